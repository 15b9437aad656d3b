"""What one player may know: the public table, their own hand and secrets, the log they saw."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from coh_core.engine.game import Game
    from coh_core.engine.rules import Rules


def upcoming(rules: Rules, state: dict[str, Any]) -> list[Any]:
    """The entries of the first pile of the game whose entries are of the built-in type `invasion`
    (none: an empty list): what `peek_invasion` looks at and players remember of."""
    name = rules.upcoming_pile
    return [] if name is None else state["piles"][name][""]


class PlayerView:
    """A read-only window on the game for one player; everything else stays hidden."""

    __slots__ = ("_game", "colour")

    def __init__(self, game: Game, colour: str):
        self._game = game
        self.colour = colour

    @property
    def decision(self) -> dict[str, Any] | None:
        decision = self._game.decision
        if decision is None or self.colour not in decision.options:
            return None
        return decision.to_json(self.colour)

    def log(self) -> list[dict[str, Any]]:
        return [e for e in self._game.log if "to" not in e or self.colour in e["to"]]

    def to_json(self) -> dict[str, Any]:
        state = self._game.state
        me = self.colour
        coming = upcoming(self._game.rules, state)
        return {
            "me": me,
            "players": list(state["players"]),
            "turn": state["turn"],
            "phase": state["phase"],
            "step": state["step"],
            "at": state["at"],
            "first": state["first"],
            "leader": state["leader"],
            "eliminated": list(state["eliminated"]),
            "locations": {loc: _location(place) for loc, place in state["locations"].items()},
            "characters": {c: _character(ch) for c, ch in state["characters"].items()},
            "counts": {place: dict(counts) for place, counts in state["counts"].items()},
            "piles": self._piles(),
            "pile_sizes": {
                name: {owner: len(held) for owner, held in piles.items()}
                for name, piles in state["piles"].items()
            },
            "roles": dict(self._game.rules.roles),
            "known_invasions": [c for c in state["known_invasions"].get(me, []) if c in coming],
            "movement": self._movement(),
            "result": state["result"],
            "decision": self.decision,
        }

    def _piles(self) -> dict[str, dict[str, list[Any]]]:
        """The entries of the piles the player may see (`sees` in the pack's piles): every one's,
        the player's own, or none; of the others the view has only their sizes (`pile_sizes`)."""
        found: dict[str, dict[str, list[Any]]] = {}
        for name, piles in self._game.state["piles"].items():
            sees = self._game.rules.piles[name].sees
            found[name] = {
                owner: list(held)
                for owner, held in piles.items()
                if sees == "everyone" or (sees == "owner" and owner == self.colour)
            }
        return found

    def _movement(self) -> dict[str, str]:
        """Movement cards already revealed this turn, and the player's own choice."""
        state = self._game.state
        decision = self._game.decision
        hidden = set(decision.options) if decision is not None and decision.kind == "movement_card" else set()
        return {p: c for p, c in state["movement"].items() if p == self.colour or p not in hidden}


def _location(place: dict[str, Any]) -> dict[str, Any]:
    return dict(place)


def _character(ch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ch.items()}

"""What one player may know: the public table, their own hand and secrets, the log they saw."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from coh_core.engine.game import Game


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

    def places(self) -> list[Any]:
        """Where each entry of `log()` was written (`Game.places`), for the narrative's headings."""
        game = self._game
        return [
            p for e, p in zip(game.log, game.places, strict=True) if "to" not in e or self.colour in e["to"]
        ]

    def to_json(self) -> dict[str, Any]:
        state = self._game.state
        me = self.colour
        return {
            "me": me,
            "players": list(state["players"]),
            "turn": state["turn"],
            "phase": state["phase"],
            "step": state["step"],
            "at": state["at"],
            "first": self._game.first_player(),
            "pointers": dict(state["pointers"]),  # every pointer is on the table
            "eliminated": self._game.out_of_game(),
            "locations": {loc: _location(place) for loc, place in state["locations"].items()},
            "pieces": {kind: _pieces(of_kind) for kind, of_kind in state["pieces"].items()},
            "piece_roles": dict(self._game.rules.piece_roles),
            "counts": {place: dict(counts) for place, counts in state["counts"].items()},
            "piles": self._piles(),
            "pile_sizes": {
                name: {owner: len(held) for owner, held in piles.items()}
                for name, piles in state["piles"].items()
            },
            "roles": dict(self._game.rules.roles),
            "memory": self._memory(),
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

    def _memory(self) -> dict[str, Any]:
        """What the game remembers that the player may see, as the pack declares it (`visible`):
        everyone's value, the player's own only, or nothing; an entry of a player answering the
        question it is `hidden_while_asked` by is that player's only."""
        game, me = self._game, self.colour
        decision = game.decision
        found: dict[str, Any] = {}
        for name, spec in game.rules.memory.items():
            value = game.state["memory"][name]
            if spec.visible == "none" or (spec.visible == "owner" and not spec.per_player):
                continue
            if spec.visible == "owner":
                value = {me: value[me]} if me in value else {}
            elif decision is not None and decision.kind == spec.hidden_while_asked:
                value = {p: v for p, v in value.items() if p == me or p not in decision.options}
            found[name] = _copied(value)
        return found


def _copied(value: Any) -> Any:
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value


def _location(place: dict[str, Any]) -> dict[str, Any]:
    return dict(place)


def _pieces(of_kind: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {piece: _piece(held) for piece, held in of_kind.items()}


def _piece(ch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ch.items()}

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
            "eliminated": list(state["eliminated"]),
            "locations": {loc: _location(place) for loc, place in state["locations"].items()},
            "characters": {c: _character(ch) for c, ch in state["characters"].items()},
            "hand": sorted(state["hands"][me]),
            "packet": sorted(state["packets"].get(me, [])),  # during a draft, the cards to pick from
            "hand_sizes": {p: len(h) for p, h in state["hands"].items()},
            "counts": {place: dict(counts) for place, counts in state["counts"].items()},
            "food": list(state["food"][me]),
            "food_counts": {p: len(f) for p, f in state["food"].items()},
            "food_face_up": list(state["food_truck"]["up"]),
            "discard": list(state["discard"]),
            "deck_size": len(state["deck"]),
            "invasions_left": len(state["invasion_deck"]),
            "memory": self._memory(),
            "result": state["result"],
            "decision": self.decision,
        }

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
    public = {k: v for k, v in place.items() if k != "cards"}
    public["cards"] = len(place["cards"])
    return public


def _character(ch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ch.items()}

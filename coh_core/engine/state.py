"""The starting state of a game: plain JSON-compatible data, generator state included."""

from __future__ import annotations

from typing import Any

from coh_core.engine.rng import Rng
from coh_core.engine.rules import Rules, pile_owners
from coh_core.engine.runtime import EngineError
from coh_core.packs.model import BOARD

STATE_VERSION = 6  # 6: the result in the shape the pack declares (coh_core.packs.results)


def older_layout(version: Any) -> str:
    """What to add where a state's layout version is refused: an older coh's states are not read."""
    older = type(version) is int and version < STATE_VERSION
    return " (an older coh's state, which this coh no longer reads)" if older else ""


def seat_colours(rules: Rules, players: int, colours: list[str] | None) -> list[str]:
    """The colours at the table, clockwise: the given ones, or the pack's first N."""
    limits = rules.setup["players"]
    if not limits["min"] <= players <= limits["max"]:
        raise EngineError(
            "GAME-PLAYERS", f"this pack plays with {limits['min']}-{limits['max']} players, not {players}"
        )
    known = [str(c) for c in rules.components["colours"]]
    chosen = list(colours) if colours else known[:players]
    unknown = [c for c in chosen if c not in known]
    if unknown or len(chosen) != players or len(set(chosen)) != players:
        raise EngineError(
            "GAME-COLOURS", f"need {players} distinct colours of {', '.join(known)}; got {chosen}"
        )
    return chosen


def board_order(rules: Rules) -> list[str]:
    """The locations on the board in its order (`setup.board.locations`): the order per-location
    steps run in, each one's number counted from 1. A pack without a board has no locations."""
    board = rules.setup.get(BOARD) or {}
    return [str(location) for location in board.get("locations") or []]


def starting_sides(rules: Rules) -> dict[str, str]:
    """The side each location of the board starts on (`setup.board.sides`: every one's that has
    sides, SETUP-BOARD; a place without sides has none)."""
    board = rules.setup.get(BOARD) or {}
    return {str(location): str(side) for location, side in (board.get("sides") or {}).items()}


def initial_state(rules: Rules, players: int, seed: int, colours: list[str] | None = None) -> dict[str, Any]:
    seats = seat_colours(rules, players, colours)
    shape = _shape(rules)
    order = list(shape.order)
    rng = Rng(seed)
    piles = initial_piles(rules, seats, order, rng)
    state: dict[str, Any] = {
        "version": STATE_VERSION,
        "pack": rules.pack.id,
        "seed": seed,
        "rng": rng.state,
        "players": seats,
        "pointers": dict.fromkeys(rules.pointers, seats[0]),
        "cycles": {name: pointer_cycle(rules, p.cycle, seats) for name, p in rules.pointers.items()},
        "turn": 0,
        "phase": "setup",
        "step": None,
        "at": None,
        "order": order,
        "locations": {location: {"side": side} for location, side in shape.sides},
        "pieces": {kind: {} for kind in rules.piece_kinds},
        "counts": _counts(shape, seats),
        "piles": piles,
        "memory": {name: _copy(empty) for name, empty in shape.memory},
        "result": None,
    }
    if rules.stateful_graphs:  # (a pack without edges with states has no `edges`)
        state["edges"] = {name: rules.graphs[name].initial_states() for name in rules.stateful_graphs}
    return state


class _Shape:
    """What the starting state of every game of a pack holds whatever its seats and seed: worked
    out on its first game, kept in `Rules.derived` (the pack does not change during play)."""

    __slots__ = ("memory", "order", "places", "sides", "supplies", "zero")

    def __init__(self, rules: Rules):
        self.order = tuple(board_order(rules))
        sides = starting_sides(rules)
        # (a place without sides shows none: None)
        self.sides = tuple((location, sides.get(location)) for location in self.order)
        self.places = tuple(rules.places)  # places the pack names, besides locations and players
        self.zero = dict.fromkeys(rules.counters, 0)  # a place's counts: none of any kind
        self.supplies = tuple((c.supply_at, c.kind, c.supply or 0) for c in rules.counters.values())
        self.memory = tuple((name, m.empty) for name, m in rules.memory.items())


_SHAPE = "initial_state"  # the shape's name in `Rules.derived`


def _shape(rules: Rules) -> _Shape:
    found = rules.derived.get(_SHAPE)
    if not isinstance(found, _Shape):
        found = rules.derived[_SHAPE] = _Shape(rules)
    return found


def _counts(shape: _Shape, seats: list[str]) -> dict[str, dict[str, int]]:
    """Every place's count of every kind of counter: none, but each kind's supply at its place.

    A kind whose supply never runs out reads 0 there, as it has none to count."""
    zero = shape.zero
    counts = {place: zero.copy() for place in shape.order}
    for place in seats:
        counts[place] = zero.copy()
    for place in shape.places:
        counts[place] = zero.copy()
    for place, kind, supply in shape.supplies:
        counts[place][kind] = supply
    return counts


def pointer_cycle(rules: Rules, cycle: str, seats: list[str]) -> list[str]:
    """What a pointer moves round: the seats clockwise, or the seated colours of a list of components."""
    return list(seats) if cycle == "seats" else [c for c in rules.components[cycle] if c in seats]


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else dict(value)


def initial_piles(
    rules: Rules, seats: list[str], order: list[str], rng: Rng
) -> dict[str, dict[str, list[Any]]]:
    """Every pile the pack declares, per owner ("" for a pile of the game): empty, but those that
    start with a list of the components, shuffled if the pack says so (in declaration order)."""
    piles: dict[str, dict[str, list[Any]]] = {}
    for name, pile in rules.piles.items():
        piles[name] = {owner: [] for owner in pile_owners(rules, pile.per, seats, order)}
        if pile.start is not None:
            entries = list(rules.components[pile.start])
            if pile.shuffled:
                rng.shuffle(entries)
            for held in piles[name].values():
                held.extend(entries)
    return piles

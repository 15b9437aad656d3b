"""Whether a game's state obeys its pack's declarations: what a position read from a file (a save,
a record's starting state) must pass before the engine plays from it.

Everything checked is derived from what the pack declares (its players and colours, pointers,
places, counters and their supplies, piles and the types of their entries, kinds of pieces,
traits, memory, the states of the edges of its graphs, phases and steps), never from a game's words:
- the state has the engine's layout, each part holding exactly what the pack declares;
- references name things that exist (a piece's owner is seated, its place a location...);
- values are of their declared types and within their declared ranges;
- every component is accounted for: a counter whose supply is N never totals more than N
  across all places, and an entry of a pile never appears more often, across all piles, than the
  pack holds of it (an entity of a kind with `copies` as many times as that field says, else
  once; a token of a list the piles start with as often as the lists hold it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from coh_core.effects.registry import type_parts
from coh_core.engine.flow import END, SETUP
from coh_core.engine.rules import Rules, pile_owners
from coh_core.engine.state import STATE_VERSION, board_order, older_layout, pointer_cycle
from coh_core.limits import MAX_NUMBER, MAX_SEED, MIN_SEED
from coh_core.packs.declarations import NUMBER_TYPES, number_bounds

Path = tuple[str | int, ...]
_KEYS = (
    "version", "pack", "seed", "rng", "players", "pointers", "cycles", "turn", "phase", "step", "at",
    "order", "locations", "pieces", "counts", "piles", "memory", "result",
)  # fmt: skip
_OPTIONAL_KEYS = ("ending",)  # present only once an effect has set it (`end_game`)
_EDGES = "edges"  # a part of the state only of a pack whose graphs have edges with states
_PIECE_KEYS = ("owner", "at", "exhausted", "alive", "traits")
_RNG_STATES = 2**64  # the generator's state is an unsigned 64-bit integer
MAX_STATE_PROBLEMS = 20  # problems of one state reported at most (an edited state may break everything)


@dataclass(frozen=True)
class StateProblem:
    """Where in the state (a path of keys and indexes) something breaks the pack's declarations."""

    path: Path
    message: str


def state_problems(rules: Rules, state: Any) -> list[StateProblem]:
    """Every way the state breaks the pack's declarations (none for a state the engine reached)."""
    if not isinstance(state, dict):
        return [StateProblem((), f"a state is a mapping, not {_shown(state)}")]
    found = list(_layout(rules, state))
    if found:  # the parts below read each other: a part missing or extra would only mislead them
        return found
    # the parts the others are read against: checked first, and the rest only if they hold
    for check in (_header, _players, _order):
        found += check(rules, state)
        if found:
            return found
    for check in (_pointers, _flow, _locations, _pieces, _counts, _piles, _memory, _edges):
        found += check(rules, state)
    # entries of the wrong type, or piles missing, would only be counted wrong
    return found or _components(rules, state)


def _layout(rules: Rules, state: dict[str, Any]) -> Iterator[StateProblem]:
    keys = (*_KEYS, _EDGES) if rules.stateful_graphs else _KEYS  # (only a pack with edges with states)
    missing = [f"`{key}`" for key in keys if key not in state]
    if missing:
        yield StateProblem((), f"the state has no {', '.join(missing)}")
    for key in state:
        if key not in keys and key not in _OPTIONAL_KEYS:
            yield StateProblem((key,), f"`{key}` is no part of a state")
    if "ending" in state and state["ending"] is not True:
        yield StateProblem(
            ("ending",), f"`ending` is true once the game is asked to end, not {_shown(state['ending'])}"
        )


def _header(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    found: list[StateProblem] = []
    if state["version"] != STATE_VERSION:
        found.append(
            StateProblem(
                ("version",),
                f"layout version {_shown(state['version'])}{older_layout(state['version'])},"
                f" not {STATE_VERSION}",
            )
        )
    if state["pack"] != rules.pack.id:
        found.append(
            StateProblem(("pack",), f"a game of pack {_shown(state['pack'])}, not `{rules.pack.id}`")
        )
    if not (_is_int(state["seed"]) and MIN_SEED <= state["seed"] <= MAX_SEED):  # (a bool is no number)
        found.append(StateProblem(("seed",), f"the seed is {_shown(state['seed'])}, not a 64-bit integer"))
    if not (_is_int(state["rng"]) and 0 <= state["rng"] < _RNG_STATES):
        found.append(
            StateProblem(("rng",), f"the generator's state is {_shown(state['rng'])}, not 0 to 2**64-1")
        )
    return found


def _players(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    players = state["players"]
    colours = [str(c) for c in rules.components["colours"]]
    limits = rules.setup["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        return [StateProblem(("players",), f"the players are {_shown(players)}, not a list of colours")]
    found = [
        StateProblem(("players", i), f"{_shown(p)} is no colour of the pack ({', '.join(colours)})")
        for i, p in enumerate(players)
        if p not in colours
    ]
    found += [
        StateProblem(("players", i), f"{_shown(p)} is seated twice")
        for i, p in enumerate(players)
        if p in players[:i]
    ]
    if not limits["min"] <= len(players) <= limits["max"]:
        found.append(
            StateProblem(
                ("players",), f"{len(players)} players; the pack plays with {limits['min']}-{limits['max']}"
            )
        )
    return found


def _pointers(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    found = list(_same_keys(("pointers",), state["pointers"], rules.pointers, "pointer"))
    found += _same_keys(("cycles",), state["cycles"], rules.pointers, "pointer")
    if found:
        return found
    for name, pointer in rules.pointers.items():
        cycle = pointer_cycle(rules, pointer.cycle, state["players"])
        if state["cycles"][name] != cycle:
            found.append(
                StateProblem(("cycles", name), f"the cycle is {_shown(state['cycles'][name])}, not {cycle}")
            )
        if state["pointers"][name] not in cycle:
            found.append(
                StateProblem(
                    ("pointers", name),
                    f"points at {_shown(state['pointers'][name])}, which is not in {cycle}",
                )
            )
    return found


def _flow(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    """The turn within the game's, the phase and step among the pack's, `at` a location."""
    found: list[StateProblem] = []
    turn = state["turn"]
    if not (_is_int(turn) and 0 <= turn <= rules.turns):
        found.append(StateProblem(("turn",), f"turn {_shown(turn)}; the game plays turns 1-{rules.turns}"))
    steps = {
        SETUP: [s.id for s in rules.setup_steps],
        **{phase.id: [s.id for s in phase.steps] for phase in rules.phases},
        END: [s.id for s in rules.end_steps],
    }
    phase, step = state["phase"], state["step"]
    if not isinstance(phase, str) or phase not in steps:
        found.append(StateProblem(("phase",), f"{_shown(phase)} is no phase; one of {', '.join(steps)}"))
    elif step is not None and step not in steps[phase]:
        found.append(
            StateProblem(
                ("step",), f"{_shown(step)} is no step of `{phase}`; one of {', '.join(steps[phase])}"
            )
        )
    if state["at"] is not None and state["at"] not in board_order(rules):
        found.append(StateProblem(("at",), f"{_shown(state['at'])} is no location"))
    return found


def _order(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    order = board_order(rules)
    if state["order"] != order:
        return [StateProblem(("order",), f"the locations are {_shown(state['order'])}, not {order}")]
    return []


def _locations(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    order = state["order"]
    found = list(_same_keys(("locations",), state["locations"], order, "location"))
    for location, held in state["locations"].items() if not found else ():
        side = held.get("side") if isinstance(held, dict) else None
        sides = [s for (at, s) in rules.sides if at == location]
        if not isinstance(held, dict) or set(held) != {"side"}:
            fits = False
        elif not sides:  # a place without sides shows none
            fits = side is None
        else:
            fits = isinstance(side, str) and (location, side) in rules.sides
        if not fits:
            wanted = f"{{side: one of {', '.join(sides)}}}" if sides else "{side: null} (it has no sides)"
            found.append(StateProblem(("locations", location), f"{_shown(held)} is not {wanted}"))
    return found


def _pieces(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    found = list(_same_keys(("pieces",), state["pieces"], rules.piece_kinds, "kind of pieces"))
    for kind, spec in rules.piece_kinds.items() if not found else ():
        pieces = state["pieces"][kind]
        if not isinstance(pieces, dict):
            found.append(StateProblem(("pieces", kind), f"{_shown(pieces)} is not a mapping of pieces"))
            continue
        ids = set(rules.ids.get(rules.pack.ref_types().get(spec.of, spec.of), ()))
        for piece, held in pieces.items():
            path: Path = ("pieces", kind, piece)
            if piece not in ids:
                found.append(StateProblem(path, f"`{piece}` is no {spec.of} of the pack"))
            else:
                found += _piece(rules, state, path, held)
    return found


def _piece(rules: Rules, state: dict[str, Any], path: Path, held: Any) -> list[StateProblem]:
    if not isinstance(held, dict) or set(held) != set(_PIECE_KEYS):
        return [StateProblem(path, f"a piece holds exactly {', '.join(_PIECE_KEYS)}, not {_shown(held)}")]
    found: list[StateProblem] = []
    if held["owner"] not in state["players"]:
        found.append(StateProblem((*path, "owner"), f"{_shown(held['owner'])} is not seated"))
    if held["at"] is not None and held["at"] not in state["order"]:
        found.append(StateProblem((*path, "at"), f"{_shown(held['at'])} is no location"))
    found += [
        StateProblem((*path, flag), f"{_shown(held[flag])} is not true or false")
        for flag in ("exhausted", "alive")
        if not isinstance(held[flag], bool)
    ]
    traits = held["traits"]
    if not isinstance(traits, dict):
        return [*found, StateProblem((*path, "traits"), f"{_shown(traits)} is not a mapping of traits")]
    for name, given in traits.items():
        found += _trait(rules, state, (*path, "traits", name), name, given)
    return found


def _trait(rules: Rules, state: dict[str, Any], path: Path, name: str, given: Any) -> list[StateProblem]:
    """A trait given during play: `[value, until]`, the value of the trait's type and range."""
    spec = rules.declared.traits.get(name)
    if spec is None:
        return [StateProblem(path, f"`{name}` is no trait the pack declares")]
    if not (isinstance(given, list) and len(given) == 2 and isinstance(given[1], str)):
        return [StateProblem(path, f"a trait given is [value, until], not {_shown(given)}")]
    value = given[0]
    wrong = _type_problem(rules, state, spec.type, value)
    if wrong is None and spec.type in NUMBER_TYPES:
        low, high = number_bounds(spec.type, spec.low, spec.high)
        if not low <= value <= high:
            wrong = f"{value} is outside {low}-{high}"
    return [] if wrong is None else [StateProblem((*path, 0), wrong)]


def _counts(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    """Every place counts every kind of counter, none below zero or beyond its supply in all."""
    places = [*state["order"], *state["players"], *rules.places]
    found = list(_same_keys(("counts",), state["counts"], places, "place"))
    if found:
        return found
    for place in places:
        held = state["counts"][place]
        found += _same_keys(("counts", place), held, rules.counters, "kind of counter")
        if found:
            continue
        found += [
            StateProblem(("counts", place, kind), f"{_shown(n)} is not a count (0 to {MAX_NUMBER:,})")
            for kind, n in held.items()
            if not (_is_int(n) and 0 <= n <= MAX_NUMBER)
        ]
    if found:
        return found
    for kind, counter in rules.counters.items():
        total = sum(state["counts"][place][kind] for place in places)
        if counter.supply is not None and total > counter.supply:
            most = max(places, key=lambda place: state["counts"][place][kind])
            found.append(
                StateProblem(
                    ("counts", most, kind),
                    f"{total} `{kind}` across all places; the pack has {counter.supply}",
                )
            )
    return found


def _piles(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    """Each pile the pack declares, for each of its owners, a list of entries of its type."""
    found = list(_same_keys(("piles",), state["piles"], rules.piles, "pile"))
    for name, pile in rules.piles.items() if not found else ():
        held = state["piles"][name]
        owners = pile_owners(rules, pile.per, state["players"], state["order"])
        found += _same_keys(("piles", name), held, owners, f"owner of `{name}`")
        for owner, entries in held.items() if isinstance(held, dict) else ():
            path: Path = ("piles", name, owner)
            if not isinstance(entries, list):
                found.append(StateProblem(path, f"{_shown(entries)} is not a list"))
                continue
            if pile.size is not None and len(entries) > pile.size:
                found.append(
                    StateProblem(path, f"{len(entries)} entries; the pile holds at most {pile.size}")
                )
            for index, entry in enumerate(entries):
                wrong = _type_problem(rules, state, pile.of, entry)
                if wrong is not None:
                    found.append(StateProblem((*path, index), wrong))
    return found


def _components(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    """No entry appears in the piles of its type more often than the pack holds it."""
    by_type: dict[str, list[str]] = {}
    for name, pile in rules.piles.items():
        by_type.setdefault(pile.of, []).append(name)
    found: list[StateProblem] = []
    for of, names in by_type.items():
        held = _held(rules, of, names)
        if held is None:
            continue  # entries the pack holds no count of (numbers from nowhere): their type is checked
        seen: Counter[Any] = Counter()
        for name in names:
            for owner, entries in state["piles"][name].items():
                for index, entry in enumerate(entries):
                    seen[_key(entry)] += 1
                    if seen[_key(entry)] == held[_key(entry)] + 1:
                        found.append(
                            StateProblem(
                                ("piles", name, owner, index),
                                f"{_shown(entry)} is in the piles more often than the pack holds it"
                                f" ({held[_key(entry)]})",
                            )
                        )
    return found


def _held(rules: Rules, of: str, piles: list[str]) -> Counter[Any] | None:
    """How many of each entry of a type the pack holds: of an entity, its kind's `copies` field
    (once, if the kind has none); of a token, as many as the lists the piles start with hold; None
    when the pack says nothing of how many there are."""
    kinds = [name for name, type_name in rules.pack.ref_types().items() if type_name == of]
    if kinds:
        declared = rules.pack.kind_declarations()[kinds[0]]
        copies = declared.get("copies")
        held: Counter[Any] = Counter()
        for entity in rules.pack.entities_of(kinds[0]):
            number: Any = entity.data.get(copies) if isinstance(copies, str) else 1
            held[entity.id] = number if _is_int(number) else 1
        return held
    starts = [rules.piles[name].start for name in piles]
    if not any(start is not None for start in starts):
        return None
    return Counter(_key(entry) for start in starts if start is not None for entry in rules.components[start])


def _memory(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    found = list(_same_keys(("memory",), state["memory"], rules.memory, "memory"))
    for name, spec in rules.memory.items() if not found else ():
        value = state["memory"][name]
        if value == spec.empty:
            continue
        type_name = rules.declared.memory[name][1]
        wrong = _type_problem(rules, state, type_name, value)
        if wrong is not None:
            found.append(StateProblem(("memory", name), wrong))
    return found


def _edges(rules: Rules, state: dict[str, Any]) -> list[StateProblem]:
    """Each graph with edges with states has the state of each of them, one its kind declares."""
    if not rules.stateful_graphs:
        return []
    found = list(
        _same_keys((_EDGES,), state[_EDGES], list(rules.stateful_graphs), "graph with edges with states")
    )
    for name in rules.stateful_graphs if not found else ():
        graph = rules.graphs[name]
        kinds = {graph.keys[i]: graph.edges[i][2] for i in graph.stateful}
        given = state[_EDGES][name]
        problems = list(_same_keys((_EDGES, name), given, list(kinds), "edge with states"))
        found += problems
        for key, kind in kinds.items() if not problems else ():
            if given[key] not in kind.states:
                found.append(
                    StateProblem(
                        (_EDGES, name, key),
                        f"{_shown(given[key])} is no state of an edge of kind `{kind.name}`"
                        f" ({', '.join(kind.states)})",
                    )
                )
    return found


# -- values of a type ----------------------------------------------------------------------------


def _type_problem(rules: Rules, state: dict[str, Any], type_name: str, value: Any) -> str | None:
    """What is wrong with a value of the type (None: nothing), for a message."""
    head, args = type_parts(type_name)
    if head == "list" and len(args) == 1:
        if not isinstance(value, list):
            return f"{_shown(value)} is not a list"
        return next((w for item in value if (w := _type_problem(rules, state, args[0], item))), None)
    if head == "map" and len(args) == 2:
        if not isinstance(value, dict):
            return f"{_shown(value)} is not a mapping"
        for key, item in value.items():
            wrong = _type_problem(rules, state, args[0], key) or _type_problem(rules, state, args[1], item)
            if wrong is not None:
                return wrong
        return None
    if type_name in NUMBER_TYPES:
        low = 0 if type_name == "count" else -MAX_NUMBER
        ok = _is_int(value) and low <= value <= MAX_NUMBER
        return (
            None if ok else f"{_shown(value)} is not a number of type {type_name} ({low} to {MAX_NUMBER:,})"
        )
    if type_name == "bool":
        return None if isinstance(value, bool) else f"{_shown(value)} is not true or false"
    members = _members(rules, state, type_name)
    if members is None:  # a text, an event's id, any value: nothing to compare it with
        return None if type_name == "any" or isinstance(value, str) else f"{_shown(value)} is not a text"
    found = isinstance(value, str | int) and not isinstance(value, bool) and value in members
    return None if found else f"{_shown(value)} is no {type_name}"


def _members(rules: Rules, state: dict[str, Any], type_name: str) -> set[Any] | None:
    """The values of a type in this game, or None for a type whose values are not listed."""
    if type_name == "player":
        return set(state["players"])
    if type_name == "colour":
        return set(rules.components["colours"])
    if type_name == "location":
        return set(state["order"])
    if type_name == "side":
        return {side for (_, side) in rules.sides}
    declared = rules.declared.members(type_name)
    if declared is not None:
        return set(declared)
    ids = rules.ids.get(type_name)
    return None if ids is None else set(ids)


# -- helpers -------------------------------------------------------------------------------------


def _same_keys(
    path: Path, given: Any, wanted: Mapping[str, Any] | list[str], what: str
) -> Iterator[StateProblem]:
    """Problems of a mapping that should hold exactly the given keys."""
    if not isinstance(given, dict):
        yield StateProblem(path, f"{_shown(given)} is not a mapping by {what}")
        return
    for key in wanted:
        if key not in given:
            yield StateProblem(path, f"no entry for {what} `{key}`")
    for key in given:
        if key not in wanted:
            yield StateProblem((*path, key), f"`{key}` is no {what} of this game")


def _key(entry: Any) -> Any:
    """An entry as a key of a count (entries are texts or numbers; anything else counts apart)."""
    return entry if isinstance(entry, str | int) else repr(entry)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 60 else text[:57] + "..."

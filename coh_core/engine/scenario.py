"""Rules tests as data: a partial game state, scripted answers, and what must then hold.

A scenario file (YAML) has `players`, `given` (where in the turn to start and the parts of
the state that matter), `when` (the answers, decision by decision) and `then` (checks on
the state, the log and the next decision). See `tests/scenarios/README.md` for the format.
Every failed check is reported at its own line in the file.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from coh_core.effects.checker import suggest
from coh_core.engine.compile.trees import walk_calls
from coh_core.engine.flow import END, SETUP, in_window
from coh_core.engine.game import Game, as_action
from coh_core.engine.rules import Pile, Rules, Step, pile_owners
from coh_core.engine.runtime import EngineError, IllegalAction
from coh_core.engine.state import initial_state
from coh_core.errors import ContentError, Location, Problem, UsageError
from coh_core.packs.model import Pack
from coh_core.packs.paths import PathRefused, readable_file
from coh_core.packs.schema import validator
from coh_core.packs.yamlsrc import YamlDoc, load_yaml


@dataclass
class Outcome:
    path: str
    name: str
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def run_file(pack: Pack, path: Path, display: str | None = None, reload: bool = False) -> Outcome:
    """Play a scenario file and check it. `reload`: the game is saved and loaded (`Game.to_json`,
    `Game.from_json`) before each answer of `when`, which must change nothing."""
    shown = display or str(path)
    try:
        doc, problems = load_yaml(readable_file(path), shown)
    except PathRefused as refused:
        return Outcome(shown, path.stem, [Problem(refused.code, refused.message, Location(shown))])
    if doc is None:
        return Outcome(shown, path.stem, problems)
    outcome = Outcome(
        shown, str(doc.data.get("name", path.stem)) if isinstance(doc.data, dict) else path.stem
    )
    outcome.problems.extend(problems)
    outcome.problems.extend(_schema_problems(doc))
    if outcome.problems:
        return outcome
    try:
        game = _when(_given(_under_rules(pack, doc), doc), doc, outcome, reload)
        if outcome.ok:
            _then(game, doc, outcome)
    except EngineError as exc:
        location = exc.location or doc.location(())
        outcome.problems.append(Problem(exc.code, exc.message, location))
    return outcome


def _under_rules(pack: Pack, doc: YamlDoc) -> Pack:
    """The pack with the scenario's `rules` (overlays) applied."""
    rules = tuple(_rule_named(str(r), doc) for r in doc.data.get("rules") or [])
    if not rules:
        return pack
    try:
        return _composed(pack.root, rules)
    except (UsageError, ContentError) as exc:
        problems = exc.problems if isinstance(exc, ContentError) else [exc.as_problem()]
        message = "; ".join(f"{p.code} {p.message}" for p in problems[:3])
        raise EngineError(
            "SCENARIO-RULES", f"cannot play under {list(rules)}: {message}", doc.location(("rules",))
        ) from exc


def _rule_named(rule: str, doc: YamlDoc) -> str:
    """An overlay by id as it is; by path (`../my-overlay`), relative to the scenario's folder."""
    if "/" not in rule and not rule.startswith("."):
        return rule
    return str((Path(doc.path).parent / rule).resolve())


@cache
def _composed(root: Path, rules: tuple[str, ...]) -> Pack:
    """A pack with overlays, composed once per process and set of rules."""
    from coh_core.packs import load_pack_checked

    return load_pack_checked(root, rules)


@cache
def _scenario_validator() -> jsonschema.Draft7Validator:
    """The scenario schema, read once per process."""
    return validator("scenario.schema.json")


@cache
def _given_keys() -> frozenset[str]:
    """What a scenario's `given` holds besides counters (the schema's named properties)."""
    schema = _scenario_validator().schema
    assert isinstance(schema, dict)  # the shipped scenario schema is an object, never `true`
    return frozenset(schema["properties"]["given"]["properties"])


def _schema_problems(doc: YamlDoc) -> list[Problem]:
    return [
        Problem("SCENARIO-SHAPE", error.message, doc.location(tuple(error.absolute_path)))
        for error in _scenario_validator().iter_errors(doc.data)
    ]


# --- given --------------------------------------------------------------------------------------


def _given(pack: Pack, doc: YamlDoc) -> Game:
    from coh_core.engine import rules_for

    rules = rules_for(pack)
    data = doc.data
    players = list(data["players"])
    given = data.get("given") or {}
    state = initial_state(rules, len(players), int(data.get("seed", 1)), players)
    _unknown_ids(pack, rules, doc, state, given)
    _unknown_counters(rules, doc, state, given)
    start = _start(rules, doc, state, given)
    if start is not None and start["phase"] != SETUP:
        state["turn"] = int(given.get("turn", 1))
    _pointers(rules, state, given)
    for location, side in (given.get("sides") or {}).items():
        state["locations"][location]["side"] = str(side)
    _counters(rules, state, given)
    _characters(rules, state, given.get("characters") or {})
    for name in rules.memory:
        if name in given:
            state["memory"][name] = copy.deepcopy(given[name])
    _piles(rules, doc, state, given)
    _edges(rules, doc, state, given)
    _balance_supplies(rules, state, given)
    _memory_needed(pack, doc, rules, state, start)
    _fits_declarations(rules, doc, state, given)
    return Game(rules, state, start)


def _pointers(rules: Rules, state: dict[str, Any], given: dict[str, Any]) -> None:
    """Each pointer by its name (the turn order's also as `first`); those not given are at the
    first player."""
    first = given.get("first", state["players"][0])
    if rules.turn_pointer is not None:
        first = given.get(rules.turn_pointer, first)
    for name in rules.pointers:
        state["pointers"][name] = str(given.get(name, first))


def _start(rules: Rules, doc: YamlDoc, state: dict[str, Any], given: dict[str, Any]) -> dict[str, Any] | None:
    """Where the game starts (None: at the beginning).

    `phase: setup` starts in the pack's setup steps (at `step`, or the first one); `phase: end`
    at the end-of-game steps (at `step`, or the first one); any other phase is a phase of the
    turn, started at `step` (its whole `do` runs) of location `at` in a per-location phase.
    """
    phase, step, at = given.get("phase"), given.get("step"), given.get("at")

    def problem(key: str, message: str) -> EngineError:
        return EngineError("SCENARIO-START", message, doc.location(("given", key)))

    def check_step(steps: tuple[Step, ...], group: str) -> None:
        ids = [s.id for s in steps]
        if step is not None and step not in ids:
            raise problem("step", f"`{step}` is not a {group} step (known: {', '.join(ids)})")

    if phase in (SETUP, END) and at is not None:
        raise problem("at", f"`at` is for per-location phases of the turn, not `{phase}`")
    if phase == SETUP:
        if "turn" in given:
            raise problem("turn", "the setup comes before turn 1: a setup start has no `turn`")
        check_step(rules.setup_steps, SETUP)
        return None if step is None else {"phase": SETUP, "step": step}
    start = {"turn": int(given.get("turn", 1)), "phase": phase, "at": at, "step": step}
    if phase == END:
        check_step(rules.end_steps, END)
        return start
    if phase is None:
        if step is not None or at is not None:
            raise problem("step" if step is not None else "at", "`step` and `at` need a `phase`")
        return start
    found = next((p for p in rules.phases if p.id == phase), None)
    if found is None:
        known = ", ".join([SETUP, *(p.id for p in rules.phases), END])
        raise problem("phase", f"`{phase}` is not a phase (known: {known})")
    check_step(found.steps, phase)
    if at is not None and not found.per_location:
        raise problem("at", f"`at` is for per-location phases; `{phase}` is not one")
    if at is not None and at not in state["locations"]:
        raise problem("at", f"unknown location `{at}`")
    return start


def _given_piles(rules: Rules, given: dict[str, Any]) -> Iterator[tuple[str, str, list[Any]]]:
    """The piles `given` names, in its order: (pile, owner, entries); a pile of the game is a list,
    one kept per player or per location a mapping of owners to lists."""
    for name, value in given.items():
        pile = rules.piles.get(name)
        if pile is None or value is None:
            continue
        if pile.per == "game":
            yield name, "", list(value)
        else:
            yield from ((name, str(owner), list(held)) for owner, held in value.items())


def _piles(rules: Rules, doc: YamlDoc, state: dict[str, Any], given: dict[str, Any]) -> None:
    """Piles given are set; entries of a kind a pile starts the game with (`start`) come out of it,
    so that they are conserved: a value it no longer holds is an error at that value."""
    starts = {pile.of: name for name, pile in rules.piles.items() if pile.start is not None}
    for name, owner, entries in _given_piles(rules, given):
        source = starts.get(rules.piles[name].of)
        path = ("given", name) if rules.piles[name].per == "game" else ("given", name, owner)
        if source is None or source == name:
            state["piles"][name][owner] = entries
            continue
        held = state["piles"][source][""]
        for index, entry in enumerate(entries):
            if entry not in held:
                left = ", ".join(str(v) for v in sorted(held)) or "none"
                raise EngineError(
                    "SCENARIO-SOURCE-PILE",
                    f"no entry of value {entry} is left in the pile `{source}` to give (left: {left})",
                    doc.location((*path, index)),
                )
            held.remove(entry)
            state["piles"][name][owner].append(entry)


def _steps_of_turn(rules: Rules, start: dict[str, Any]) -> Iterator[Step]:
    """The steps of the start turn from the start position on (per-location steps once)."""
    phases = [p.id for p in rules.phases]
    first = phases.index(start["phase"]) if start["phase"] is not None else 0
    for phase in rules.phases[first:]:
        steps = [s.id for s in phase.steps]
        skip = phase.id == start["phase"] and start["step"] is not None
        yield from phase.steps[steps.index(start["step"]) if skip else 0 :]


def _calls(pack: Pack, step: Step) -> set[str]:
    """The names of the procedures and verbs a step's `do` calls."""
    slot = step.run.slot
    return {name for c in pack.effects if slot is not None and c.slot is slot for name in walk_calls(c.tree)}


def _edges(rules: Rules, doc: YamlDoc, state: dict[str, Any], given: dict[str, Any]) -> None:
    """Under a graph's name, the states of its edges that have states, each edge named by its two
    ends either way round (`a/b: open`)."""
    for name in rules.stateful_graphs:
        for written, value in (given.get(name) or {}).items():
            key = _edge_key(rules, name, str(written))
            if key is None:
                raise EngineError(
                    "SCENARIO-REF",
                    f"`{written}` is no edge with states of the graph `{name}`"
                    + suggest(str(written), sorted(state["edges"][name])),
                    doc.location(("given", name, written), key=True),
                )
            state["edges"][name][key] = value


def _edge_key(rules: Rules, graph: str, written: str) -> str | None:
    """The name the state gives the edge `a/b` (or `b/a`) of a graph, if it has states."""
    spec = rules.graphs[graph]
    a, _, b = written.partition("/")
    index = spec.pairs.get((a, b))
    return None if index is None or index not in spec.stateful else spec.keys[index]


def _memory_needed(
    pack: Pack, doc: YamlDoc, rules: Rules, state: dict[str, Any], start: dict[str, Any] | None
) -> None:
    """A start between the step that sets a value of each player (`set_by` of a memory the pack
    declares) and the step that reads it (`read_by`) needs it for every player still in the game."""
    if start is None or start["phase"] in (None, SETUP, END):
        return
    for name, memory in rules.memory.items():
        if (
            memory.per_player
            and memory.set_by is not None
            and memory.read_by is not None
            and _between(pack, rules, start, memory.set_by, memory.read_by)
        ):
            _given_for_everyone(doc, rules, state, name, start)


def _between(pack: Pack, rules: Rules, start: dict[str, Any], set_by: str, read_by: str) -> bool:
    """Whether the turn's steps from the start call `read_by` before any calls `set_by`."""
    for step in _steps_of_turn(rules, start):
        called = _calls(pack, step)
        if set_by in called:
            return False
        if read_by in called:
            return True
    return False


def _given_for_everyone(
    doc: YamlDoc, rules: Rules, state: dict[str, Any], name: str, start: dict[str, Any]
) -> None:
    values = state["memory"][name]
    out_memory = rules.memory_roles.get("out_of_game")
    out = state["memory"][out_memory] if out_memory is not None else []
    missing = [p for p in state["players"] if p not in out and p not in values]
    if missing:
        memory = rules.memory[name]
        raise EngineError(
            "SCENARIO-MEMORY",
            f"turn {start['turn']} starts after the step that sets `{name}` (`{memory.set_by}`) and"
            f" before the one that reads it (`{memory.read_by}`): `given.{name}` needs a value for"
            f" every player still in the game, and has none for {', '.join(missing)}",
            doc.location(("given", name), key=True),
        )


def _fits_declarations(rules: Rules, doc: YamlDoc, state: dict[str, Any], given: dict[str, Any]) -> None:
    """What `given` sets (piles, memory, counters, pieces and their traits) obeys the pack's
    declarations as a saved game's state must (`state_check`): the first problem, at the value."""
    from coh_core.engine.state_check import state_problems

    problems = state_problems(rules, state)
    if problems:
        first = problems[0]
        raise EngineError(
            "SCENARIO-STATE",
            f"`given` sets what the pack's declarations do not allow: {first.message}",
            doc.location(_given_path(rules, first.path, given)),
        )


def _given_path(rules: Rules, path: tuple[Any, ...], given: dict[str, Any]) -> tuple[Any, ...]:
    """Where in the scenario a part of the state (`path`) was given, as near as can be told."""
    head, rest = (path[0], path[1:]) if path else ("", ())
    if head == "memory" and rest:
        return ("given", *rest)
    if head == "piles" and rest:
        pile = rules.piles.get(str(rest[0]))
        if pile is not None and pile.per == "game":  # given as the list itself, not by owner ""
            return ("given", rest[0], *rest[2:])
        return ("given", *rest)
    if head == "counts" and len(rest) >= 2:
        place, kind = rest[0], rest[1]
        return ("given", kind, place) if kind in given else ("given", place, kind)
    if head == "pieces":
        return ("given", "characters")
    return ("given",)


def _characters(rules: Rules, state: dict[str, Any], given: dict[str, Any]) -> None:
    """The players' pieces given (the pack's kind of pieces of role `players`), by player."""
    kind = rules.piece_roles.get("players")
    if given and kind is None:
        raise EngineError("SCENARIO-PIECES", "the pack declares no kind of pieces of role `players`")
    for player, mine in given.items():
        for character, spec in mine.items():
            where = spec if isinstance(spec, str) else spec["at"]
            entry: dict[str, Any] = {
                "owner": player,
                "at": where,
                "exhausted": False,
                "alive": True,
                "traits": {},
            }
            if isinstance(spec, dict):
                entry["exhausted"] = bool(spec.get("exhausted", False))
                entry["alive"] = bool(spec.get("alive", True))
                entry["traits"] = {k: _trait(v) for k, v in (spec.get("traits") or {}).items()}
            state["pieces"][kind][character] = entry


def _trait(value: Any) -> list[Any]:
    """A given trait: a value for the rest of the game, or `{value, until}`."""
    if isinstance(value, dict) and "value" in value:
        return [value["value"], value.get("until", "end_of_game")]
    return [value, "end_of_game"]


def _counters(rules: Rules, state: dict[str, Any], given: dict[str, Any]) -> None:
    """Counters given by kind (`<kind>: {<place>: 3}`) or by place (`<place>: {<kind>: 30}`)."""
    counts = state["counts"]
    for kind in rules.counters:
        for place, count in (given.get(kind) or {}).items():
            counts[place][kind] = int(count)
    for place in rules.places:
        for kind, count in (given.get(place) or {}).items():
            counts[place][kind] = int(count)


def _balance_supplies(rules: Rules, state: dict[str, Any], given: dict[str, Any]) -> None:
    """Whatever the scenario put on the table comes out of its supply (unless it gives the supply)."""
    counts = state["counts"]
    for counter in rules.counters.values():
        if counter.supply is None or counter.kind in (given.get(counter.supply_at) or {}):
            continue
        elsewhere = sum(held[counter.kind] for place, held in counts.items() if place != counter.supply_at)
        counts[counter.supply_at][counter.kind] = counter.supply - elsewhere


def _unknown_ids(
    pack: Pack, rules: Rules, doc: YamlDoc, state: dict[str, Any], given: dict[str, Any]
) -> None:
    locations = set(state["locations"])

    def unknown(path: tuple[Any, ...], message: str) -> EngineError:
        return EngineError("SCENARIO-REF", message, doc.location(("given", *path), key=True))

    per_location = [name for name, pile in rules.piles.items() if pile.per == "location"]
    per_player = [name for name, pile in rules.piles.items() if pile.per == "player"]
    for key in ("sides", *per_location):
        for location in given.get(key) or {}:
            if location not in locations:
                raise unknown((key, location), f"unknown location `{location}`")
    per_player_memory = [name for name, memory in rules.memory.items() if memory.per_player]
    per_piece = [name for name, pile in rules.piles.items() if pile.per not in ("game", "player", "location")]
    for key in per_piece:
        owners = set(pile_owners(rules, rules.piles[key].per, state["players"], state["order"]))
        for piece in given.get(key) or {}:
            if piece not in owners:
                raise unknown((key, piece), f"`{piece}` is no piece whose `{key}` the game keeps")
    for key in ("characters", *per_player, *per_player_memory):
        for player in given.get(key) or {}:
            if player not in state["players"]:
                raise unknown((key, player), f"`{player}` is not at the table")
    for player, mine in (given.get("characters") or {}).items():
        for character in mine:
            if pack.entity(character) is None:
                raise unknown(("characters", player, character), f"unknown character `{character}`")
    _unknown_entries(rules, doc, given)


def _unknown_counters(rules: Rules, doc: YamlDoc, state: dict[str, Any], given: dict[str, Any]) -> None:
    """Keys of `given` the scenario format does not have are kinds of counters or places the pack
    declares; their places and kinds must be ones the game has."""
    places = set(state["counts"])
    for key, value in given.items():
        if (
            key in _given_keys()
            or key in rules.piles
            or key in rules.pointers
            or key in rules.memory
            or key in rules.stateful_graphs
        ):
            continue
        if key in rules.counters:
            members, what = places, "place (a location, a player at the table or a place of the pack)"
        elif key in rules.places:
            members, what = set(rules.counters), "kind of counter"
        else:
            known = sorted(
                {
                    *_given_keys(),
                    *rules.counters,
                    *rules.places,
                    *rules.piles,
                    *rules.pointers,
                    *rules.memory,
                    *rules.stateful_graphs,
                }
            )
            raise EngineError(
                "SCENARIO-GIVEN",
                f"`{key}` is not part of a scenario's `given`, nor a kind of counter, a place or a pile of"
                " the pack" + suggest(key, known),
                doc.location(("given", key), key=True),
            )
        for name in value or {}:
            if name not in members:
                raise EngineError(
                    "SCENARIO-REF",
                    f"`{name}` is not a {what}" + suggest(str(name), sorted(members)),
                    doc.location(("given", key, name), key=True),
                )


def _unknown_entries(rules: Rules, doc: YamlDoc, given: dict[str, Any]) -> None:
    """The entries given to piles of ids (of cards, of any entity kind) must be ids of the rules in play."""
    for name, owner, entries in _given_piles(rules, given):
        pile = rules.piles[name]
        known = rules.ids.get(pile.of)
        path = ("given", name) if pile.per == "game" else ("given", name, owner)
        if known is None:
            continue  # entries of no type of ids: numbers
        for index, entry in enumerate(entries):
            if entry not in known:
                message = f"unknown {pile.of} `{entry}` (is an overlay that adds it missing from `rules`?)"
                raise EngineError("SCENARIO-REF", message, doc.location((*path, index)))


# --- when ---------------------------------------------------------------------------------------


def _pass_while_possible(game: Game, once: bool) -> None:
    """`pass`: every waiting player passes once; `passes`: again while all of them may pass."""
    while game.decision is not None and all(
        ("pass",) in game.decision.legal(c) for c in game.decision.waiting
    ):
        for colour in game.decision.waiting:
            game.submit(colour, ["pass"])
        if once:
            return


def _answers(game: Game, answers: dict[str, Any]) -> bool:
    """Whether the entry answers the decision waiting: each player it names is asked, and may do that."""
    decision = game.decision
    if decision is None:
        return False
    for colour, action in answers.items():
        if colour not in decision.waiting:
            return False
        try:
            if as_action(action) not in decision.legal(colour):
                return False
        except IllegalAction:
            return True  # not an action at all: `submit` reports it
    return True


def _pass_windows_before(game: Game, answers: dict[str, Any]) -> int:
    """Everyone passes the windows before the decision the entry answers; how many decisions were passed.

    A window (cards, powers and gifts, or a pass) that the entry does not answer is one the
    script leaves out: its players pass, as they would with nothing to do.
    """
    passed = 0
    while not _answers(game, answers) and in_window(game.frames):
        decision = game.decision
        assert decision is not None  # a window waits for an answer
        if not all(("pass",) in decision.legal(c) for c in decision.waiting):
            break
        for colour in decision.waiting:
            game.submit(colour, ["pass"])
        passed += 1
    return passed


def _when(game: Game, doc: YamlDoc, outcome: Outcome, reload: bool) -> Game:
    """Give the scripted answers; the game at the end (a copy of it, when `reload`)."""
    for index, answers in enumerate(doc.data.get("when") or []):
        where = doc.location(("when", index))
        if reload and game.decision is not None:
            game = Game.from_json(game.rules, game.to_json(), copy=False)
        if answers in ("pass", "passes"):
            _pass_while_possible(game, once=answers == "pass")
            continue
        passed = _pass_windows_before(game, answers)
        plural = "s" if passed > 1 else ""
        after = f" (after passing {passed} window decision{plural} the script leaves out)" if passed else ""
        decision = game.decision
        if decision is None:
            message = f"the game ended before this answer{after}"
            outcome.problems.append(Problem("SCENARIO-OVER", message, where))
            return game
        missing = [c for c in answers if c not in decision.waiting]
        if missing:
            message = (
                f"{missing[0]} is not asked now; the engine waits for {decision.waiting}"
                f" ({decision.kind}){after}"
            )
            outcome.problems.append(Problem("SCENARIO-NOT-ASKED", message, where))
            return game
        for colour, action in answers.items():
            try:
                game.submit(colour, action)
            except IllegalAction as exc:
                legal = [list(a) for a in decision.legal(colour)]
                outcome.problems.append(Problem(exc.code, f"{exc.message}; legal: {legal}{after}", where))
                return game
        if game.decision is decision:
            message = f"the decision also waits for {decision.waiting}"
            outcome.problems.append(Problem("SCENARIO-INCOMPLETE", message, where))
            return game
    return game


# --- then ---------------------------------------------------------------------------------------

Check = Callable[[Game, Any], tuple[bool, Any]]


def _per_location(field_name: str) -> Check:
    def check(game: Game, expected: dict[str, Any]) -> tuple[bool, Any]:
        actual = {loc: game.state["locations"][loc][field_name] for loc in expected}
        return actual == expected, actual

    return check


def _per_character(read: Callable[[dict[str, Any]], Any]) -> Check:
    def check(game: Game, expected: dict[str, Any]) -> tuple[bool, Any]:
        chars = game.pieces
        actual = {c: read(chars[c]) if c in chars else None for c in expected}
        return actual == expected, actual

    return check


def _log_has(game: Game, expected: list[Any]) -> tuple[bool, Any]:
    keys = [e["key"] for e in game.log]
    missing = [k for k in expected if k not in keys]
    return not missing, {"missing": missing}


def _log_lacks(game: Game, expected: list[Any]) -> tuple[bool, Any]:
    keys = {e["key"] for e in game.log}
    present = [k for k in expected if k in keys]
    return not present, {"present": present}


def _decision(game: Game, expected: Any) -> tuple[bool, Any]:
    """The game's next decision (or that it is over), compared on the keys the check names and
    shown whole: whether the game is over, and the decision's kind and who it waits for, with
    what the check asks of its answers (`legal`, `offers`, `refuses`)."""
    decision = game.decision
    actual: dict[str, Any] = {"over": decision is None}
    if decision is not None:
        actual.update(kind=decision.kind, waiting=decision.waiting)
    if not isinstance(expected, dict):  # (`decision: null`...: no check of a decision is written so)
        return False, actual
    if decision is not None:
        if "legal" in expected:
            actual["legal"] = {c: [list(a) for a in decision.legal(c)] for c in expected["legal"]}
        if "offers" in expected:
            offered = {
                c: [list(a) for a in decision.legal(c) if list(a) in expected["offers"][c]]
                for c in expected["offers"]
            }
            actual["offers"] = offered
        if "refuses" in expected:
            offered = {
                c: [a for a in actions if as_action(a) in decision.legal(c)]
                for c, actions in expected["refuses"].items()
            }
            # as expected when none is offered; else what was offered all the same
            actual["refuses"] = (
                expected["refuses"]
                if not any(offered.values())
                else {c: {"offered all the same": acts} for c, acts in offered.items() if acts}
            )
    return {k: actual.get(k) for k in expected} == expected, actual


def _pile_check(pile: Pile) -> Check:
    """A pile's entries: a list (compared sorted: as many of each) or a number of entries; of a pile
    kept per player or per location, per owner."""

    def read(held: list[Any] | None, expected: Any) -> Any:
        if held is None:
            return None  # an owner the game does not have: the check fails, showing it
        return len(held) if isinstance(expected, int) else sorted(held)

    def check(game: Game, expected: Any) -> tuple[bool, Any]:
        piles = game.state["piles"][pile.name]
        if pile.per == "game":
            actual = read(piles[""], expected)
            return actual == (sorted(expected) if isinstance(expected, list) else expected), actual
        found = {owner: read(piles.get(owner), value) for owner, value in expected.items()}
        wanted = {owner: sorted(v) if isinstance(v, list) else v for owner, v in expected.items()}
        return found == wanted, found

    return check


def _score(game: Game, expected: Any) -> tuple[bool, Any]:
    """The entries of the game's result the scenario names (`_result_keys` has checked them)."""
    result = game.state["result"]
    actual = {k: result.get(k) for k in expected} if result else None
    return actual == expected, actual


def _result_keys(rules: Rules, doc: YamlDoc, expected: Any) -> list[Problem]:
    """SCENARIO-CHECK for an entry of `then: result` that the pack's result does not have: a
    ranking has `scores`, `tie_breaks` (by the ids it declares) and `winners`, a team `won`."""
    declared = rules.result
    path = ("then", "result")
    if declared is None:
        return [
            Problem("SCENARIO-CHECK", "the pack declares no result to check", doc.location(path, key=True))
        ]
    keys = declared.keys()
    found = []
    for key in expected if isinstance(expected, dict) else ():
        if key not in keys:
            message = (
                f"`{key}` is no part of a `{declared.kind}` result (it has {', '.join(keys)})"
                + suggest(str(key), keys)
            )
            found.append(Problem("SCENARIO-CHECK", message, doc.location((*path, key), key=True)))
    breaks = expected.get("tie_breaks") if isinstance(expected, dict) else None
    known = [t.id for t in declared.tie_breaks]
    for name in breaks if isinstance(breaks, dict) and "tie_breaks" in keys else ():
        if name not in known:
            message = (
                f"unknown tie-break `{name}` (the pack declares {', '.join(known) or 'none'})"
                + suggest(str(name), known)
            )
            found.append(
                Problem("SCENARIO-CHECK", message, doc.location((*path, "tie_breaks", name), key=True))
            )
    return found


CHECKS: dict[str, Check] = {
    "sides": _per_location("side"),
    "alive": _per_character(lambda ch: ch["alive"]),
    "at": _per_character(lambda ch: ch["at"]),
    "owners": _per_character(lambda ch: ch["owner"]),
    "exhausted": _per_character(lambda ch: ch["exhausted"]),
    "traits": _per_character(lambda ch: {k: v[0] for k, v in ch["traits"].items()}),
    "first": lambda game, expected: (game.first_player() == expected, game.first_player()),
    "phases": lambda game, expected: (
        [p.id for p in game.rules.phases] == expected,
        [p.id for p in game.rules.phases],
    ),
    "eliminated": lambda game, expected: (game.out_of_game() == expected, game.out_of_game()),
    "log_has": _log_has,
    "log_lacks": _log_lacks,
    "decision": _decision,
    "result": _score,
}


def _counter_check(rules: Rules, key: str) -> Check | None:
    """A kind of counter checked per place (`<kind>: {<place>: 3}`), or a place of the pack per kind
    (`<place>: {<kind>: 37}`)."""
    if key in rules.counters:
        return lambda game, expected: _counts_equal(expected, {p: _count(game, p, key) for p in expected})
    if key in rules.places:
        return lambda game, expected: _counts_equal(expected, {k: _count(game, key, k) for k in expected})
    if key in rules.pointers:
        return lambda game, expected: (game.state["pointers"][key] == expected, game.state["pointers"][key])
    if key in rules.memory:
        return lambda game, expected: (game.state["memory"][key] == expected, game.state["memory"][key])
    if key in rules.stateful_graphs:
        return lambda game, expected: _edges_equal(game, key, expected)
    return None


def _edges_equal(game: Game, graph: str, expected: dict[str, Any]) -> tuple[bool, Any]:
    """The states of the edges named (either way round); None for a name that is no such edge."""
    states = game.state["edges"][graph]
    actual = {}
    for written in expected:
        key = _edge_key(game.rules, graph, str(written))
        actual[written] = None if key is None else states[key]
    return actual == expected, actual


def _count(game: Game, place: str, kind: str) -> int | None:
    """None where the place or the kind is unknown: the check fails, showing it."""
    found = game.state["counts"].get(place, {}).get(kind)
    return None if found is None else int(found)


def _counts_equal(expected: dict[str, int], actual: dict[str, int | None]) -> tuple[bool, Any]:
    return actual == expected, actual


def _then(game: Game, doc: YamlDoc, outcome: Outcome) -> None:
    for key, expected in (doc.data.get("then") or {}).items():
        pile = game.rules.piles.get(key)
        check = CHECKS.get(key) or _counter_check(game.rules, key)
        if check is None and pile is not None:
            check = _pile_check(pile)
        if key == "result":
            wrong = _result_keys(game.rules, doc, expected)
            if wrong:
                outcome.problems.extend(wrong)
                continue
        if check is None:
            rules = game.rules
            known = ", ".join(
                sorted(
                    {
                        *CHECKS,
                        *rules.counters,
                        *rules.places,
                        *rules.piles,
                        *rules.pointers,
                        *rules.memory,
                        *rules.stateful_graphs,
                    }
                )
            )
            outcome.problems.append(
                Problem(
                    "SCENARIO-CHECK",
                    f"unknown check `{key}` (known: {known})",
                    doc.location(("then", key), key=True),
                )
            )
            continue
        ok, actual = check(game, expected)
        if not ok:
            message = f"{key}: expected {expected!r}, got {actual!r}"
            outcome.problems.append(
                Problem("SCENARIO-FAILED", message, doc.location(("then", key), key=True))
            )

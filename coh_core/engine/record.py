"""Game records: the decision log as JSON lines, saving, loading and replaying.

A record is a header (pack, rules, seats, and a seed or a starting state), one line per
answered decision, and an end line with the final state's digest and the game's result
(`schemas/record.schema.json`). Records come from strangers, so a replay checks each line
before it uses it: the text (`record_text`), the line's kind and place, its shape against
the schema, then what the engine makes of it. Everything wrong with a record is a
`RecordError` whose problems are located at a line and column; I/O failures are UsageErrors.
The REPLAY-* codes are listed in tests/broken_records/README.md, with a case for each.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from jsonschema.exceptions import ValidationError

from coh_core.engine.game import Game
from coh_core.engine.record_text import (
    JsonPath,
    Line,
    RecordError,
    echo,
    json_path,
    printable,
    read_lines,
    refuse,
)
from coh_core.engine.runtime import EngineError, IllegalAction
from coh_core.errors import CohError, Location, Problem
from coh_core.packs.model import Pack
from coh_core.packs.schema import validator

# 2: the result in the shape the pack declares (a ranking's tie-breaks by id); 3: the log holds
# the chance events (each roll, random draw and shuffle), so the digest of an older record's game
# is no longer what this coh finds
RECORD_FORMAT = 3
# What an older coh's records hold otherwise, by their format: why this coh no longer reads them.
OLDER_FORMATS = {
    1: "which kept the game's result in another shape",
    2: "whose game log held no chance events",
}
SCHEMA = "record.schema.json"
# The key that makes a line what it is, and what the line is then called.
KINDS = {"coh_record": "the header", "answers": "the answers line", "end": "the end line"}
_A_KIND = {"coh_record": "a header line", "answers": "an answers line", "end": "an end line"}

__all__ = ["RECORD_FORMAT", "RecordError", "header_of", "load", "replay", "save", "write_record"]


class Locator(Protocol):
    """Where the value at a JSON path of one line stands (its key's place with `key`)."""

    def __call__(self, path: JsonPath = (), key: bool = False) -> Location: ...


def _fixed(where: Location) -> Locator:
    """A locator for data that has no text (a save made in Python): every path at `where`."""

    def at(path: JsonPath = (), key: bool = False) -> Location:
        return where

    return at


# --- writing -------------------------------------------------------------------------------


def header_of(game: Game, seed: int | None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    head: dict[str, Any] = {
        "coh_record": RECORD_FORMAT,
        "pack": game.state["pack"],
        "rules": list(game.rules.pack.rules_id),
        "players": game.players,
    }
    if seed is not None and game.start is None and game.initial["turn"] == 0:
        head["seed"] = seed
    else:
        head["initial"] = game.initial
        head["start"] = game.start
    head.update(extra or {})
    return head


def save(game: Game, seed: int | None = None) -> dict[str, Any]:
    """Everything needed to continue this game exactly: its start and the answers so far."""
    return {"header": header_of(game, seed), "answers": list(game.history)}


def write_record(path: Path, game: Game, seed: int | None, extra: dict[str, Any] | None = None) -> None:
    """The record of the game so far; the end line only once the game is over."""
    lines = [header_of(game, seed, extra)]
    lines.extend({"answers": answers} for answers in game.history)
    if game.over:
        lines.append({"end": True, "digest": game.digest(), "result": game.state["result"]})
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


# --- reading -------------------------------------------------------------------------------


def load(pack: Pack, saved: dict[str, Any]) -> Game:
    """Rebuild a saved game by replaying its answers (checked as a record's lines are)."""
    game = start_from(pack, saved["header"])
    for index, answers in enumerate(saved["answers"]):
        apply_answers(game, answers, Location("<save>", index + 1, 1))
    return game


def replay(pack: Pack, path: Path) -> Game:
    """Replay the record at `path`: the finished game if it matches the record to its end line.

    Raises RecordError for anything wrong in the record (at the first bad line, with every
    problem of that line; at the end line, a wrong digest and a wrong result both), and
    UsageError when the file cannot be read.
    """
    lines = read_lines(path)
    header = next(lines, None)
    if header is None:
        raise refuse("REPLAY-EMPTY", "the record is empty: it has no header line", Location(str(path), 1, 1))
    if _kind(header) != "coh_record":
        raise refuse(
            "REPLAY-ORDER",
            f"a record begins with its header line, not with {_A_KIND[_kind(header)]}",
            header.at(),
        )
    # A game from a state the record holds, not one the engine built: see _engine_failures.
    foreign = header.number if "initial" in header.value else None
    with _engine_failures(header, foreign):
        game = start_from(pack, header.value, header.at)
    last, end = header, None
    for line in lines:
        kind = _kind(line)
        if end is not None:
            raise refuse(
                "REPLAY-ORDER",
                f"{_A_KIND[kind]} after the end line (line {end.number}), which is the record's last",
                line.at(),
            )
        if kind == "coh_record":
            raise refuse(
                "REPLAY-ORDER", f"a second header line; the header is line {header.number}", line.at()
            )
        _check_shape(line.value, KINDS[kind], line.at)
        if kind == "answers":
            with _engine_failures(line, foreign):
                _apply(game, line.value["answers"], line.at)
        else:
            end = line
        last = line
    if end is None:
        raise refuse(
            "REPLAY-TRUNCATED",
            'the record stops here without its end line ({"end": true, "digest": ...}): it was cut short',
            last.at(),
        )
    with _engine_failures(end, foreign):
        _check_end(game, end)
    return game


def _kind(line: Line) -> str:
    """The key that gives the line its kind; REPLAY-SCHEMA for a line of none of the kinds."""
    for key in KINDS:
        if key in line.value:
            return key
    keys = f"the keys {echo(list(line.value))}" if line.value else "no key"
    raise refuse(
        "REPLAY-SCHEMA",
        "a line of unknown kind: record lines have `coh_record` (the header), `answers` or `end`;"
        f" this one has {keys}",
        line.at(),
    )


@contextmanager
def _engine_failures(line: Line, foreign: int | None) -> Iterator[None]:
    """What goes wrong while the engine uses a line, as a problem of that line.

    `foreign`: the line of the header when the game started from a state the record holds.
    """
    try:
        yield
    except RecordError:
        raise
    except EngineError as exc:
        cause = exc.__cause__
        if foreign is not None and cause is not None and not isinstance(cause, CohError):
            raise _bad_state(cause, foreign, line.at()) from exc  # an effect tripped on the state
        raise refuse(
            "REPLAY-ENGINE", f"the engine stopped here: {exc.code} {printable(exc.message)}", line.at()
        ) from exc
    except Exception as exc:
        # The engine trusts the states it builds; a state read from a record is checked for its
        # frame only (the schema), so what the engine trips on in the rest is the record's fault.
        # In a game started from a seed, any other exception is a bug of coh: let it be seen.
        if foreign is None:
            raise
        raise _bad_state(exc, foreign, line.at()) from exc


def _bad_state(exc: BaseException, foreign: int, where: Location) -> RecordError:
    """REPLAY-STATE: what the engine tripped on in a starting state read from the record."""
    detail = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return refuse(
        "REPLAY-STATE",
        f"the engine cannot play from the recorded starting state (`initial` on line {foreign}):"
        f" {type(exc).__name__} {echo(detail)}",
        where,
    )


def start_from(pack: Pack, header: dict[str, Any], at: Locator | None = None) -> Game:
    """The game a record's header starts, after checking the header; RecordError otherwise."""
    from coh_core.engine import new_game

    at = at or _fixed(Location("<header>", 1, 1))
    version = header.get("coh_record")
    if type(version) is int and version != RECORD_FORMAT:  # another coh's record, not a broken one
        older = f" (an older coh's, {OLDER_FORMATS[version]})" if version in OLDER_FORMATS else ""
        raise refuse(
            "REPLAY-FORMAT",
            f"a record of format {version}{older}; this coh reads format {RECORD_FORMAT}",
            at(("coh_record",)),
        )
    _check_shape(header, KINDS["coh_record"], at)
    _check_rules(pack, header, at)
    if "initial" in header:
        return _resume(pack, header, at)
    players = list(header["players"])
    try:
        return new_game(pack, players=len(players), seed=header["seed"], colours=players)
    except EngineError as exc:
        raise refuse(
            "REPLAY-START", f"cannot seat the recorded players: {printable(exc.message)}", at(("players",))
        ) from exc


def _check_rules(pack: Pack, header: dict[str, Any], at: Locator) -> None:
    if header["pack"] != pack.id:
        raise refuse(
            "REPLAY-RULES", f"recorded with pack {echo(header['pack'])}, not `{pack.id}`", at(("pack",))
        )
    recorded = list(header["rules"])
    if recorded != pack.rules_id:
        asked = " ".join(f"--rules {_shell_word(r)}" for r in recorded) or "no --rules"
        played = f"rules {echo(recorded)}" if recorded else "the base game's rules"
        now = f"rules {echo(pack.rules_id)}" if pack.rules_id else "the base game's rules"
        raise refuse(
            "REPLAY-RULES",
            f"played under {played}, replayed under {now}: replay it with {asked}",
            at(("rules",)),
        )


def _shell_word(name: str) -> str:
    """An overlay name as typed on a command line; quoted JSON if it holds anything unusual."""
    plain = name and all(c.isascii() and (c.isalnum() or c in "._/-") for c in name)
    return name if plain else echo(name)


def _resume(pack: Pack, header: dict[str, Any], at: Locator) -> Game:
    """A game from the recorded state, once the state agrees with its header."""
    from coh_core.engine import resume_game, rules_for
    from coh_core.engine.state import STATE_VERSION, older_layout
    from coh_core.engine.state_check import MAX_STATE_PROBLEMS, state_problems

    state = header["initial"]
    if state["version"] != STATE_VERSION:
        raise refuse(
            "REPLAY-STATE",
            f"a state of layout version {state['version']}{older_layout(state['version'])};"
            f" this engine reads version {STATE_VERSION}",
            at(("initial", "version")),
        )
    for key in ("pack", "players"):
        if state[key] != header[key]:
            raise refuse(
                "REPLAY-STATE",
                f"`initial.{key}` is {echo(state[key])} but the header's `{key}` is {echo(header[key])}",
                at(("initial", key)),
            )
    wrong = state_problems(rules_for(pack), state)
    if wrong:
        raise RecordError(
            [
                Problem("REPLAY-STATE", f"the recorded starting state: {p.message}", at(("initial", *p.path)))
                for p in wrong[:MAX_STATE_PROBLEMS]
            ]
        )
    return resume_game(pack, json.loads(json.dumps(state)), header.get("start"))


def apply_answers(game: Game, answers: dict[str, Any], where: Location) -> None:
    """Submit one recorded decision's answers (checked first); RecordError if the game disagrees."""
    _check_shape({"answers": answers}, KINDS["answers"], _fixed(where))
    _apply(game, answers, _fixed(where))


def _apply(game: Game, answers: dict[str, Any], at: Locator) -> None:
    decision = game.decision
    if decision is None:
        raise refuse("REPLAY-MISMATCH", "the game is already over but the record goes on", at())
    if sorted(decision.waiting) != sorted(answers):
        raise refuse(
            "REPLAY-MISMATCH",
            f"the record answers for {echo(sorted(answers))}"
            f" but the game waits for {echo(sorted(decision.waiting))}",
            at(("answers",)),
        )
    for colour, action in answers.items():
        try:
            game.submit(colour, action)
        except IllegalAction as exc:  # the game is unchanged: what it offers still stands
            offered = [list(a) for a in decision.legal(colour)]
            raise refuse(
                "REPLAY-MISMATCH",
                f"{echo(colour)} answers {echo(action)}, which the game does not offer here ({exc.code});"
                f" it offers {echo(offered, 80)}",
                at(("answers", colour)),
            ) from exc


def _check_end(game: Game, end: Line) -> None:
    """The end line against the replayed game: finished, the same digest, the same result."""
    if game.decision is not None:
        raise refuse(
            "REPLAY-UNFINISHED",
            f"the record ends here but the game goes on: it waits for {echo(game.decision.waiting)}",
            end.at(),
        )
    problems = []
    digest, recorded = game.digest(), end.value["digest"]
    if digest != recorded:
        problems.append(
            Problem(
                "REPLAY-DIGEST",
                f"the replayed game's digest is {digest}, the record says {recorded}",
                end.at(("digest",)),
            )
        )
    difference = _first_difference(end.value["result"], game.state["result"], ("result",))
    if difference is not None:
        path, theirs, ours = difference
        problems.append(
            Problem(
                "REPLAY-RESULT",
                f"`{json_path(path)}` is {_shown(theirs)} in the record but {_shown(ours)} in the"
                " replayed game",
                end.at(path),
            )
        )
    if problems:
        raise RecordError(problems)


_ABSENT = object()  # a key one side of a comparison lacks


def _shown(value: Any) -> str:
    return "absent" if value is _ABSENT else echo(value)


def _first_difference(recorded: Any, replayed: Any, path: JsonPath) -> tuple[JsonPath, Any, Any] | None:
    """The first place (in the record's order) where two JSON values differ, with both values."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in [*recorded, *(k for k in replayed if k not in recorded)]:
            found = _first_difference(recorded.get(key, _ABSENT), replayed.get(key, _ABSENT), (*path, key))
            if found is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed):
        for index, (theirs, ours) in enumerate(zip(recorded, replayed, strict=True)):
            found = _first_difference(theirs, ours, (*path, index))
            if found is not None:
                return found
        return None
    # Scalars, or values of different kinds: JSON's 1, 1.0 and true are three values.
    same = type(recorded) is type(replayed) and recorded == replayed
    return None if same else (path, recorded, replayed)


# --- the shape of a line: the schema -------------------------------------------------------

_WANTED = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _check_shape(value: dict[str, Any], what: str, at: Locator) -> None:
    """The line against the record schema; RecordError with every violation, in column order."""
    errors = list(validator(SCHEMA, strict_integers=True).iter_errors(value))
    if not errors:
        return
    mistyped = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    problems: dict[tuple[Location, str], Problem] = {}
    for error in errors:
        path = tuple(error.absolute_path)
        if path in mistyped and error.validator != "type":
            continue  # a value of the wrong type: its ranges and lengths say nothing more
        for message, where in _explain(error, path, what, at):
            problems.setdefault((where, message), Problem("REPLAY-SCHEMA", message, where))
    raise RecordError([problems[k] for k in sorted(problems)])


def _explain(
    error: ValidationError, path: JsonPath, what: str, at: Locator
) -> Iterator[tuple[str, Location]]:
    """Each violation in words: the JSON path, what was expected, the value found."""
    name = f"`{json_path(path)}`" if path else what
    keyword = str(error.validator)
    expected: Any = error.validator_value
    found: Any = error.instance
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if keyword == "type":
        wanted = " or ".join(
            _WANTED.get(t, str(t)) for t in (expected if isinstance(expected, list) else [expected])
        )
        yield f"{name} must be {wanted}, got {echo(found)}", at(path)
    elif keyword == "required":
        for key in (k for k in expected if k not in found):
            yield f"{name} lacks the key `{key}`", at(path)
    elif keyword == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        for key in (k for k in found if k not in allowed):
            yield (
                f"unknown key {echo(key)} in {name}; allowed: {', '.join(allowed)}",
                at((*path, key), key=True),
            )
    elif keyword == "oneOf" and all(set(s) == {"required"} for s in expected):
        keys = [k for s in expected for k in s["required"]]
        has = [k for k in keys if k in found]
        got = " and ".join(f"`{k}`" for k in has) if has else "neither"
        yield f"{name} needs exactly one of {' or '.join(f'`{k}`' for k in keys)}; it has {got}", at(path)
    elif keyword == "dependencies":
        for key, needs in expected.items():
            for need in (n for n in needs if key in found and n not in found):
                yield f"{name} has `{key}`, which goes with `{need}` only; it lacks `{need}`", at(path)
    elif keyword == "const":
        yield f"{name} must be {echo(expected)}, got {echo(found)}", at(path)
    elif keyword in ("minimum", "maximum"):
        bound = "at least" if keyword == "minimum" else "at most"
        yield f"{name} is {echo(found)}; it must be {bound} {expected}", at(path)
    elif keyword in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength"):
        unit = {"I": "item", "P": "key", "L": "character"}[keyword[3]]
        bound = "at least" if keyword.startswith("min") else "at most"
        yield f"{name} has {len(found)} {unit}(s); it must have {bound} {expected}", at(path)
    elif keyword == "uniqueItems":
        repeated = next((item for i, item in enumerate(found) if item in found[:i]), None)
        yield f"{name} lists {echo(repeated) if repeated is not None else 'an item'} twice", at(path)
    else:  # pattern, anyOf...: the schema's description says what fits
        description = schema.get("description", f"the record schema's `{keyword}`")
        yield f"{name} is {echo(found)}, which does not fit: {description}", at(path)

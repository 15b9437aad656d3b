"""A `coh play` game saved between two decisions, to go on with later (`coh play --resume`).

A save is one line of JSON (format `coh_save: 1`): how the game was set up (the pack and
overlays as given, the seed, the seats, which of them humans play and which bots), the state
of each bot's random generator, how much of the log each human has seen, and the position
itself (`Game.to_json`, format `coh-game/1`) with its digest. It is written whole to a
temporary file that then replaces the save, so that a save is never half written.

A save comes from the disk, where anything may have happened to it: it is read with the
record reader's checks (size, encoding, one JSON object) and each field is checked before
use. Anything wrong is a `RecordError` whose problems are located `SAVE-*` problems.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coh_core.engine.game import Game
from coh_core.engine.record_text import Line, RecordError, echo, read_lines, refuse
from coh_core.engine.rules import Rules
from coh_core.errors import Location, Problem
from coh_core.files import write_whole

SAVE_FORMAT = 1
BOT_KINDS = ("random", "heuristic", "expert")


@dataclass
class PlaySetup:
    """What `coh play` needs besides the position to go on with a game."""

    seed: int
    bots: str
    humans: list[str]
    rules: list[str] = field(default_factory=list)  # the overlays as given on the command line
    pack: str | None = None  # the pack directory as given, if not the built-in one
    lang: str | None = None
    log: str | None = None  # where `--log` writes
    decisions: int = 0  # answers given so far
    expert: dict[str, Any] = field(default_factory=dict)  # the expert's budget given: iterations, seconds


def save_document(
    game: Game, setup: PlaySetup, agents: Mapping[str, Any], seen: Mapping[str, int]
) -> dict[str, Any]:
    """The save of a game at this decision."""
    return {
        "coh_save": SAVE_FORMAT,
        "seed": setup.seed,
        "bots": setup.bots,
        "humans": setup.humans,
        "rules": setup.rules,
        "pack": setup.pack,
        "lang": setup.lang,
        "log": setup.log,
        "decisions": setup.decisions,
        "expert": setup.expert,
        "generators": {c: a.rng.state for c, a in agents.items() if hasattr(a, "rng")},
        "seen": dict(seen),
        "digest": game.digest(),
        "game": game.to_json(),
    }


def write_save(path: Path, document: Mapping[str, Any]) -> None:
    """Write the save atomically (a temporary file beside it, then replaced); UsageError IO-WRITE."""
    write_whole(path, json.dumps(document, separators=(",", ":"), ensure_ascii=True) + "\n")


def read_save(path: Path) -> tuple[PlaySetup, dict[str, Any], Line]:
    """The setup, the rest of the save's fields, and its line; RecordError (SAVE-*) or UsageError."""
    try:
        lines = list(read_lines(path))
    except RecordError as exc:
        raise RecordError([_as_save(p) for p in exc.problems]) from None
    if not lines:
        raise refuse("SAVE-FORMAT", "the file is empty, not a coh save", Location(str(path), 1, 1))
    line = lines[0]
    doc = line.value
    if "coh_save" not in doc:
        hint = " (a game record: `coh replay` reads it)" if "coh_record" in doc else ""
        raise refuse("SAVE-FORMAT", f"not a coh save: no `coh_save` field{hint}", line.at())
    if len(lines) > 1:
        raise refuse(
            "SAVE-FORMAT",
            "a save is one line of JSON; this file has more",
            Location(line.file, lines[1].number, 1),
        )
    if doc["coh_save"] != SAVE_FORMAT:
        raise refuse(
            "SAVE-FORMAT",
            f"save format {echo(doc['coh_save'])}; this coh reads format {SAVE_FORMAT}",
            line.at(("coh_save",)),
        )
    _check_fields(doc, line)
    setup = PlaySetup(
        seed=doc["seed"], bots=doc["bots"], humans=doc["humans"], rules=doc["rules"], pack=doc["pack"],
        lang=doc["lang"], log=doc["log"], decisions=doc["decisions"], expert=dict(doc.get("expert", {})),
    )  # fmt: skip
    return setup, doc, line


# Each field of a save and what it holds: (check, what it should be).
_FIELDS: dict[str, tuple[Any, str]] = {
    "seed": (lambda v: _is_int(v), "an integer"),
    "bots": (lambda v: v in BOT_KINDS, f"one of {', '.join(BOT_KINDS)}"),
    "humans": (lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v), "a list of colours"),
    "rules": (lambda v: isinstance(v, list) and all(isinstance(r, str) for r in v), "a list of overlays"),
    "pack": (lambda v: v is None or isinstance(v, str), "a path or null"),
    "lang": (lambda v: v is None or isinstance(v, str), "a language or null"),
    "log": (lambda v: v is None or isinstance(v, str), "a path or null"),
    "decisions": (lambda v: _is_int(v) and v >= 0, "a count"),
    "generators": (
        lambda v: isinstance(v, dict) and all(_is_int(s) and s >= 0 for s in v.values()),
        "states by colour",
    ),
    "seen": (
        lambda v: isinstance(v, dict) and all(_is_int(s) and s >= 0 for s in v.values()),
        "counts by colour",
    ),
    "digest": (lambda v: isinstance(v, str), "a digest"),
    "game": (lambda v: isinstance(v, dict), "a position (`coh-game/1`)"),
}


# Fields a save may leave out (saves written before them): what each should be.
_OPTIONAL: dict[str, tuple[Any, str]] = {
    "expert": (
        lambda v: (
            isinstance(v, dict)
            and set(v) <= {"iterations", "seconds"}
            and (v.get("iterations") is None or (_is_int(v["iterations"]) and v["iterations"] >= 1))
            and (v.get("seconds") is None or _is_seconds(v["seconds"]))
        ),
        "the expert's budget: {iterations: a count of at least 1, seconds: a number above 0}",
    ),
}


def _is_seconds(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < float("inf")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_fields(doc: Mapping[str, Any], line: Line) -> None:
    problems = [
        Problem("SAVE-FIELD", f"the save has no `{name}` field", line.at())
        for name in _FIELDS
        if name not in doc
    ]
    problems += [
        Problem("SAVE-FIELD", f"`{name}` should be {what}, not {echo(doc[name])}", line.at((name,)))
        for name, (check, what) in (*_FIELDS.items(), *_OPTIONAL.items())
        if name in doc and not check(doc[name])
    ]
    if problems:
        raise RecordError(problems)


def restore_game(rules: Rules, doc: Mapping[str, Any], line: Line) -> Game:
    """The saved position, checked against the save's digest; RecordError SAVE-GAME otherwise."""
    position = doc["game"]
    if position.get("format") != "coh-game/1":
        raise refuse(
            "SAVE-GAME", f"the position's format is {echo(position.get('format'))}, not \"coh-game/1\"",
            line.at(("game", "format")),
        )  # fmt: skip
    try:
        game = Game.from_json(rules, dict(position))
        digest = game.digest()
    except Exception as exc:  # a position edited by hand: whatever breaks, it is the save's fault
        raise refuse(
            "SAVE-GAME", f"the position cannot be restored under these rules ({type(exc).__name__})",
            line.at(("game",)),
        ) from None  # fmt: skip
    named = {"humans": doc["humans"], "generators": list(doc["generators"]), "seen": list(doc["seen"])}
    for name, colours in named.items():
        stranger = next((c for c in colours if c not in game.players), None)
        if stranger is not None:
            where = line.at((name,))
            raise refuse(
                "SAVE-FIELD", f"`{name}` names {echo(stranger)}, who is not at the saved table", where
            )
    if digest != doc["digest"]:
        raise refuse(
            "SAVE-GAME",
            f"the position does not match its digest {echo(doc['digest'])} (it is {digest}): it was changed",
            line.at(("digest",)),
        )
    return game


def _as_save(problem: Problem) -> Problem:
    """A problem of the record reader, coded as the save's."""
    code = problem.code.replace("REPLAY-", "SAVE-", 1)
    return Problem(code, problem.message, problem.location, problem.context, problem.also)

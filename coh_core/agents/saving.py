"""A `coh play` game saved between two decisions, to go on with later (`coh play --resume`).

A save is one line of JSON (format `coh_save: 2`): how the game was set up (the pack and
overlays as given, the seed, the seats, which of them humans play and which bots), the state
of each bot's random generator, how much of the log each human has seen, and the position
itself (`Game.to_json`, format `coh-game/1`; its text made by `Game.to_json_text`, which makes
again only the text of what is new in the game) with its digest. It is written whole to a
temporary file that then replaces the save, so that a save is never half written. It names no
file that coh writes: where a resumed game's log goes is said on the command line, or nowhere.

A save comes from the disk, where anything may have happened to it (or from a stranger): it
is read with the record reader's checks (size, encoding, one JSON object), each field is
checked before use, the bots' budgets obey the command line's bounds, and the game is played
again from its seed through its answers, which must lead exactly to the saved position
(`restore_game`). Anything wrong is a `RecordError` whose problems are located `SAVE-*`
problems.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coh_core.agents.expert import budget_fault
from coh_core.engine import new_game, rules_for
from coh_core.engine.game import GAME_FORMAT, Game
from coh_core.engine.record_text import JsonPath, Line, RecordError, echo, json_path, read_lines, refuse
from coh_core.engine.runtime import IllegalAction
from coh_core.engine.state_check import MAX_STATE_PROBLEMS, state_problems
from coh_core.errors import Location, Problem
from coh_core.files import write_whole
from coh_core.limits import MAX_EXPERT_ITERATIONS, MAX_EXPERT_SECONDS
from coh_core.packs.model import Pack

SAVE_FORMAT = 2  # 2: the game log holds the chance events (each roll, random draw and shuffle)
# What an older coh's saves hold otherwise, by their format: why this coh no longer reads them.
OLDER_FORMATS = {1: "whose game log held no chance events"}
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
    log: str | None = None  # where `--log` writes (from the command line only: a save names no file)
    decisions: int = 0  # answers given so far
    expert: dict[str, Any] = field(default_factory=dict)  # the expert's budget given: iterations, seconds


def save_document(
    game: Game,
    setup: PlaySetup,
    agents: Mapping[str, Any],
    seen: Mapping[str, int],
    passing: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The save of a game at this decision (`passing`: the humans' standing passes, as JSON)."""
    return {**_save_fields(game, setup, agents, seen, passing), "game": game.to_json()}


def save_text(
    game: Game,
    setup: PlaySetup,
    agents: Mapping[str, Any],
    seen: Mapping[str, int],
    passing: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """`save_document`'s line, as `write_save` writes it (the position's text from `Game.to_json_text`)."""
    fields = json.dumps(
        _save_fields(game, setup, agents, seen, passing), separators=(",", ":"), ensure_ascii=True
    )
    return f'{fields[:-1]},"game":{game.to_json_text()}}}'


def _save_fields(
    game: Game,
    setup: PlaySetup,
    agents: Mapping[str, Any],
    seen: Mapping[str, int],
    passing: Mapping[str, Mapping[str, Any]] | None,
) -> dict[str, Any]:
    """What a save holds besides the position."""
    return {
        "coh_save": SAVE_FORMAT,
        "seed": setup.seed,
        "bots": setup.bots,
        "humans": setup.humans,
        "rules": setup.rules,
        "pack": setup.pack,
        "lang": setup.lang,
        "decisions": setup.decisions,
        "expert": setup.expert,
        "generators": {c: a.rng.state for c, a in agents.items() if hasattr(a, "rng")},
        "seen": dict(seen),
        "passing": dict(passing or {}),
        "digest": game.digest(),
    }


def write_save(path: Path, save: Mapping[str, Any] | str) -> None:
    """Write the save (a document, or its text from `save_text`) atomically, a temporary file
    beside it then replaced; UsageError IO-WRITE."""
    text = save if isinstance(save, str) else json.dumps(save, separators=(",", ":"), ensure_ascii=True)
    write_whole(path, text + "\n")


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
        found = doc["coh_save"]
        known = type(found) is int and found in OLDER_FORMATS
        older = f" (an older coh's, {OLDER_FORMATS[found]})" if known else ""
        raise refuse(
            "SAVE-FORMAT",
            f"save format {echo(found)}{older}; this coh reads format {SAVE_FORMAT}",
            line.at(("coh_save",)),
        )
    _check_fields(doc, line)
    setup = PlaySetup(
        seed=doc["seed"], bots=doc["bots"], humans=doc["humans"], rules=doc["rules"], pack=doc["pack"],
        lang=doc["lang"], decisions=doc["decisions"], expert=dict(doc.get("expert", {})),
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
    "decisions": (lambda v: _is_int(v) and v >= 0, "a count"),
    "generators": (
        lambda v: isinstance(v, dict) and all(_is_int(s) and 0 <= s < 2**64 for s in v.values()),
        "states by colour (0 to 2**64-1)",
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
            and budget_fault(v.get("iterations"), v.get("seconds")) is None
        ),
        "the expert's budget, as `--expert-iterations` and `--expert-seconds` take it: {iterations:"
        f" 1 to {MAX_EXPERT_ITERATIONS:,}, seconds: above 0 and at most {MAX_EXPERT_SECONDS:g}}}",
    ),
    "passing": (
        lambda v: (
            isinstance(v, dict)
            and all(
                isinstance(p, dict)
                and set(p) == {"scope", "seen"}
                and (p["scope"] is None or isinstance(p["scope"], list))
                and _is_int(p["seen"])
                and p["seen"] >= 0
                for p in v.values()
            )
        ),
        "the humans' standing passes by colour: {scope: a list or null, seen: a count}",
    ),
    # where a save made before this version wrote its game's log (a save names no file now)
    "log": (lambda v: v is None or isinstance(v, str), "a path or null (it is not used)"),
}


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


def restore_game(pack: Pack, doc: Mapping[str, Any], line: Line) -> Game:
    """The saved game, played again from its seed through its answers; RecordError (SAVE-*) unless
    the saved position obeys the pack and is exactly where those answers lead.

    Nothing of the saved position is trusted: its state is first checked against the pack's
    declarations (SAVE-STATE, at the first value that breaks them), then the game is played again
    from the seed with the saved answers (each must be one the game offered) and the position it
    reaches must be the saved one, entry for entry (SAVE-GAME). The game returned is the one played
    again: what the save holds besides its answers only has to agree with it."""
    position = doc["game"]
    if position.get("format") != GAME_FORMAT:
        raise refuse(
            "SAVE-GAME", f"the position's format is {echo(position.get('format'))}, not {echo(GAME_FORMAT)}",
            line.at(("game", "format")),
        )  # fmt: skip
    rules = rules_for(pack)
    wrong = state_problems(rules, position.get("state"))
    if wrong:
        raise RecordError(
            [
                Problem("SAVE-STATE", p.message, line.at(("game", "state", *p.path)))
                for p in wrong[:MAX_STATE_PROBLEMS]
            ]
        )
    game = _played_again(pack, doc, position, line)
    _check_same(game, position, line)
    for name in ("humans", "generators", "seen", "passing"):
        colours = doc[name] if name == "humans" else list(doc.get(name) or {})
        stranger = next((c for c in colours if c not in game.players), None)
        if stranger is not None:
            where = line.at((name,))
            raise refuse(
                "SAVE-FIELD", f"`{name}` names {echo(stranger)}, who is not at the saved table", where
            )
    _check_counts(game, doc, line)
    if game.digest() != doc["digest"]:  # the position agrees entry for entry: only the digest was changed
        digest = f"the position's digest is {game.digest()}, not {echo(doc['digest'])}: it was changed"
        raise refuse("SAVE-GAME", digest, line.at(("digest",)))
    return game


def _played_again(pack: Pack, doc: Mapping[str, Any], position: Mapping[str, Any], line: Line) -> Game:
    """The game from the save's seed and seats, through every answer the save holds."""
    state = position["state"]
    if state["seed"] != doc["seed"]:
        raise refuse(
            "SAVE-GAME", f"the position's seed {echo(state['seed'])} is not the save's {echo(doc['seed'])}",
            line.at(("game", "state", "seed")),
        )  # fmt: skip
    if position.get("start") is not None:
        where = line.at(("game", "start"))
        raise refuse("SAVE-GAME", "a game `coh play` saves begins at the setup, not at a `start`", where)
    history, pending = position.get("history"), position.get("decision")
    if pending is not None and not isinstance(pending, dict):
        where = line.at(("game", "decision"))
        raise refuse("SAVE-GAME", f"{echo(pending)} is not a decision waiting for answers, nor null", where)
    answers = [*(history if isinstance(history, list) else [None]), (pending or {}).get("answers", {})]
    game = new_game(pack, players=len(state["players"]), seed=doc["seed"], colours=list(state["players"]))
    for index, given in enumerate(answers):
        path: JsonPath = (
            ("game", "history", index) if index < len(answers) - 1 else ("game", "decision", "answers")
        )
        if not isinstance(given, dict):
            raise refuse("SAVE-GAME", f"{echo(given)} is not the answers of a decision", line.at(path))
        if game.decision is None and given:
            raise refuse("SAVE-GAME", "answers after the end of the game", line.at(path))
        asked = game.decision
        for colour, action in given.items():
            try:
                game.submit(colour, action)
            except IllegalAction as exc:
                raise refuse(
                    "SAVE-GAME", f"answer {index + 1} of the game: {exc.message}", line.at((*path, colour))
                ) from None
        if index < len(answers) - 1 and game.decision is asked:
            waiting = ", ".join(game.decision.waiting) if game.decision is not None else ""
            raise refuse(
                "SAVE-GAME", f"decision {index + 1} is answered only in part ({waiting} not)", line.at(path)
            )
    return game


def _check_same(game: Game, position: Mapping[str, Any], line: Line) -> None:
    """SAVE-GAME at the first entry of the saved position that is not what the game played again holds."""
    played = game.to_json()
    if "places" not in position:  # a save from before the log's headings were kept
        played.pop("places")
    # the generator's state last: where a position was changed, it differs as a consequence
    saved = {**position, "state": {k: v for k, v in position["state"].items() if k != "rng"}}
    saved["rng"] = position["state"]["rng"]
    played["rng"] = played["state"].pop("rng")
    for path, saved_value, found in _differences(saved, played, ()):
        path = ("state", "rng") if path == ("rng",) else path
        raise refuse(
            "SAVE-GAME",
            f"`{json_path(('game', *path))}` is {echo(saved_value)} where the game's answers lead to"
            f" {echo(found)}:"
            " the save was changed, or the rules were since",
            line.at(("game", *path)),
        )


def _differences(saved: Any, played: Any, path: JsonPath) -> Iterator[tuple[JsonPath, Any, Any]]:
    """(path, saved value, value played) of the first places where two JSON values differ."""
    if isinstance(saved, dict) and isinstance(played, dict):
        for key in dict.fromkeys([*played, *saved]):
            if saved.get(key, _MISSING) != played.get(key, _MISSING):
                yield from _differences(saved.get(key, _MISSING), played.get(key, _MISSING), (*path, key))
                return
    elif isinstance(saved, list) and isinstance(played, list) and len(saved) == len(played):
        for index, (one, other) in enumerate(zip(saved, played, strict=True)):
            if one != other:
                yield from _differences(one, other, (*path, index))
                return
    elif saved != played:
        yield path, (None if saved is _MISSING else saved), (None if played is _MISSING else played)


_MISSING = object()  # a key one of two mappings lacks


def _check_counts(game: Game, doc: Mapping[str, Any], line: Line) -> None:
    """What the save counts of the game agrees with it: its answers, what each human has seen."""
    answers = sum(len(a) for a in game.history) + (len(game.decision.answers) if game.decision else 0)
    if doc["decisions"] != answers:
        raise refuse(
            "SAVE-FIELD", f"`decisions` is {doc['decisions']}, but the game holds {answers} answers",
            line.at(("decisions",)),
        )  # fmt: skip
    for colour, seen in doc["seen"].items():
        if seen > len(game.log):
            raise refuse(
                "SAVE-FIELD", f"{colour} has seen {seen} entries of a log of {len(game.log)}",
                line.at(("seen", colour)),
            )  # fmt: skip


def _as_save(problem: Problem) -> Problem:
    """A problem of the record reader, coded as the save's."""
    code = problem.code.replace("REPLAY-", "SAVE-", 1)
    return Problem(code, problem.message, problem.location, problem.context, problem.also)

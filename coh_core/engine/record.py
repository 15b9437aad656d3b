"""Game records: the decision log as JSON lines, saving, loading and replaying.

A record is a header (pack, seats, seed, or a starting state), one line per answered
decision, and an end line with the state digest. Loading a saved game replays its
answers; a replay that is offered different choices than the record holds stops with
REPLAY-MISMATCH at the line concerned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coh_core.engine.game import Game
from coh_core.engine.runtime import EngineError, IllegalAction
from coh_core.errors import Location
from coh_core.packs.model import Pack

RECORD_FORMAT = 1


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


def load(pack: Pack, saved: dict[str, Any]) -> Game:
    """Rebuild a saved game by replaying its answers."""
    game = start_from(pack, saved["header"])
    for index, answers in enumerate(saved["answers"]):
        apply_answers(game, answers, Location("<save>", index + 1, 1))
    return game


def start_from(pack: Pack, header: dict[str, Any]) -> Game:
    from coh_core.engine import new_game, resume_game

    if header.get("coh_record") != RECORD_FORMAT:
        raise EngineError("REPLAY-FORMAT", f"not a coh game record (format {header.get('coh_record')!r})")
    if header.get("pack") != pack.id:
        raise EngineError("REPLAY-RULES", f"recorded with pack {header.get('pack')!r}, not {pack.id!r}")
    recorded = list(header.get("rules") or [])
    if recorded != pack.rules_id:
        asked = " ".join(f"--rules {r}" for r in recorded) or "no --rules"
        raise EngineError(
            "REPLAY-RULES",
            f"played under rules {recorded or 'of the base game'}, replayed under"
            f" {pack.rules_id or 'the base game'}: replay it with {asked}",
        )
    if "initial" in header:
        return resume_game(pack, json.loads(json.dumps(header["initial"])), header.get("start"))
    players = list(header["players"])
    return new_game(pack, players=len(players), seed=int(header["seed"]), colours=players)


def apply_answers(game: Game, answers: dict[str, Any], where: Location) -> None:
    decision = game.decision
    if decision is None:
        raise EngineError("REPLAY-MISMATCH", "the game is already over but the record goes on", where)
    if sorted(decision.waiting) != sorted(answers):
        raise EngineError(
            "REPLAY-MISMATCH",
            f"the record answers for {sorted(answers)} but the game waits for {sorted(decision.waiting)}",
            where,
        )
    for colour, action in answers.items():
        try:
            game.submit(colour, action)
        except IllegalAction as exc:
            raise EngineError("REPLAY-MISMATCH", f"{exc.code}: {exc.message}", where) from exc


def write_record(path: Path, game: Game, seed: int | None, extra: dict[str, Any] | None = None) -> None:
    """The record of the game so far; the end line only once the game is over."""
    lines = [header_of(game, seed, extra)]
    lines.extend({"answers": answers} for answers in game.history)
    if game.over:
        lines.append({"end": True, "digest": game.digest(), "result": game.state["result"]})
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


def read_record(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The record's lines with their line numbers; malformed JSON is a located error."""
    found: list[tuple[int, dict[str, Any]]] = []
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EngineError(
                "REPLAY-JSON", f"not JSON: {exc.msg}", Location(str(path), number, exc.colno)
            ) from exc
        if not isinstance(value, dict):
            raise EngineError(
                "REPLAY-JSON", "each line must be a JSON object", Location(str(path), number, 1)
            )
        found.append((number, value))
    if not found:
        raise EngineError("REPLAY-EMPTY", "the record is empty", Location(str(path)))
    return found


def replay(pack: Pack, path: Path) -> tuple[Game, str | None]:
    """Replay a record; returns the game and the digest the record ends with (None if absent)."""
    lines = read_record(path)
    game = start_from(pack, lines[0][1])
    expected: str | None = None
    for number, line in lines[1:]:
        if "answers" in line:
            apply_answers(game, line["answers"], Location(str(path), number, 1))
        elif line.get("end"):
            expected = line.get("digest")
    return game, expected

"""Broken saves: each case edits a real game's save and lists exactly the problems `coh play
--resume` must report (code, and the JSON path each is located at) and its exit code. See
broken_saves/README.md."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.engine.record_text import column_of

CASE_DIR = Path(__file__).parent / "broken_saves"
CASES = sorted(CASE_DIR.glob("*.yaml"))
PLAYED = ["--players", "4", "--seed", "3", "--human", "red", "--bots", "random"]


@pytest.fixture(scope="session")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The save of a real game, stopped when red's 40 answers ran out (see the README)."""
    path = tmp_path_factory.mktemp("save") / "game.save"
    result = CliRunner().invoke(main, ["play", *PLAYED, "--save", str(path)], input="1\n" * 40)
    assert result.exit_code == 2, result.output[-2000:]
    return path.read_text(encoding="utf-8")


def _digest(position: dict[str, Any]) -> str:
    """The digest of a position as `Game.digest` makes it, as one who edits a save would remake it."""
    blob = json.dumps([position["state"], position["log"]], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _edited(text: str, edits: list[dict[str, Any]]) -> str:
    doc = json.loads(text)
    for edit in edits:
        if edit.get("redigest"):
            doc["digest"] = _digest(doc["game"])
            continue
        *parents, last = edit.get("set") or edit["delete"]
        target = doc
        for step in parents:
            target = target[step]
        if "delete" in edit:
            del target[last]
        elif isinstance(target, list) and last == len(target):
            target.append(edit["value"])
        else:
            target[last] = edit["value"] * edit["times"] if "times" in edit else edit["value"]
    return json.dumps(doc, separators=(",", ":"))


@pytest.mark.parametrize("case_path", CASES, ids=[p.stem for p in CASES])
def test_broken_save(case_path: Path, saved_game: str, tmp_path: Path) -> None:
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    text = _edited(saved_game.rstrip("\n"), case["edits"])
    save = tmp_path / "game.save"
    save.write_text(text + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["play", "--resume", str(save), "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.exit_code == case.get("exit", 1), result.output[-2000:]
    problems = json.loads(result.stdout)["problems"]
    found = [(p["code"], p["file"], p["line"], p["col"]) for p in problems]
    wanted = [(e["code"], str(save), 1, column_of(text, tuple(e.get("path", ())))) for e in case["expect"]]
    assert found == wanted, [p["message"] for p in problems]
    for problem, expected in zip(problems, case["expect"], strict=True):
        for words in expected.get("says") or []:
            assert words in problem["message"], problem["message"]


def test_every_case_has_a_description_and_expectations() -> None:
    for path in CASES:
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert case.get("description") and case.get("edits") and case.get("expect"), path.name

"""Broken and hostile packs: each case edits a copy of the base pack and lists exactly the
problems `coh validate` must report (code, file, line, column). See broken_packs/README.md."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.packs import READING_CODES
from coh_core.packs.model import name_meant

CASE_DIR = Path(__file__).parent / "broken_packs"
CASES = sorted(CASE_DIR.glob("*.yaml"))


SECRET = "SECRET-OUTSIDE-THE-PACK"  # what the file outside the pack holds; never to be echoed


def _apply(pack: Path, case: dict[str, Any], outside: Path) -> None:
    for edit in case.get("edits", []):
        target = pack / edit["file"]
        text = target.read_text(encoding="utf-8")
        assert edit["replace"] in text, f"case edit does not apply: {edit['replace']!r}"
        replacement = _content(edit["with"])
        target.write_text(text.replace(edit["replace"], replacement, edit.get("count", 1)), encoding="utf-8")
    for relative, content in (case.get("add") or {}).items():
        (pack / relative).parent.mkdir(parents=True, exist_ok=True)
        (pack / relative).write_text(_content(content), encoding="utf-8")
    for relative in case.get("remove", []):
        (pack / relative).unlink()
    for relative in case.get("dirs", []):
        (pack / relative).mkdir(parents=True)
    for relative in case.get("fifos", []):
        os.mkfifo(pack / relative)
    for relative, target in (case.get("links") or {}).items():
        (pack / relative).parent.mkdir(parents=True, exist_ok=True)
        (pack / relative).symlink_to(target.replace("{outside}", str(outside)))


def _content(content: str | dict[str, Any]) -> str:
    """A file's text, or (`pieces: [[text, times], ...]`) one too long to write out in the case."""
    if isinstance(content, str):
        return content
    return "".join(text * times for text, times in content["pieces"])


@pytest.fixture()
def outside(tmp_path: Path) -> Path:
    """A folder beside the pack, holding a file no pack may read."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.yaml").write_text(f"characters: [{SECRET}]\n", encoding="utf-8")
    return folder


def _relative(file: str, pack: Path) -> str:
    """A reported file relative to the pack (a symbolic link is not followed: it is what was named)."""
    path = Path(file)
    return (path.parent.resolve() / path.name).relative_to(pack.resolve()).as_posix()


def _position(pack: Path, expected: dict[str, Any]) -> tuple[int, int]:
    """Line and column given directly, or as the place where the text `at` first occurs."""
    if "line" in expected:
        return expected["line"], expected["col"]
    text = (pack / expected["file"]).read_text(encoding="utf-8")
    index = text.index(expected["at"]) + expected.get("offset", 0)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


@pytest.mark.parametrize("case_path", CASES, ids=lambda p: p.stem)
def test_broken_pack(case_path: Path, base_copy: Path, outside: Path) -> None:
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    if (case.get("fifos") and not hasattr(os, "mkfifo")) or (case.get("links") and os.name == "nt"):
        pytest.skip("this file system has no named pipes or symbolic links")
    _apply(base_copy, case, outside)
    result = CliRunner().invoke(main, ["validate", str(base_copy), "--format", "json"])
    assert "Traceback" not in result.output
    assert SECRET not in result.output
    assert result.exit_code == case.get("exit", 1), result.output
    report = json.loads(result.output)
    found = sorted(
        (p["code"], _relative(p["file"], base_copy), p["line"], p["col"], kind == "warnings")
        for kind in ("problems", "warnings")
        for p in report.get(kind, [])
    )
    wanted = sorted(
        (e["code"], e["file"], *_position(base_copy, e), bool(e.get("warning"))) for e in case["expect"]
    )
    assert found == wanted
    assert _reading_first(report.get("problems", [])), "the problems of reading come first"
    messages = [p["message"] for kind in ("problems", "warnings") for p in report.get(kind, [])]
    for expected in (e for e in case["expect"] if "says" in e):
        assert any(expected["says"] in m for m in messages), (expected["says"], messages)


def _reading_first(problems: list[dict[str, Any]]) -> bool:
    """Whether the problems of reading (a file unread, a value the schema refused) come before
    the others: the cause before what may follow from it."""
    reading = [p["code"].startswith(READING_CODES) for p in problems]
    return reading == sorted(reading, reverse=True)


def test_there_are_at_least_a_dozen_cases() -> None:
    assert len(CASES) >= 12


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("Duration", "duration"),
        ("FoodSource", "food_source"),
        ("food-source", "food_source"),
        ("end of turn", "end_of_turn"),
        ("tie_rule", "tie_rule"),
        ("HP2Max", "hp2_max"),
    ],
)
def test_a_key_that_breaks_the_naming_rule_is_read_as_the_name_it_meant(key: str, meant: str) -> None:
    """What a rejected key's uses are taken to name (not reported again) and the schema's hint."""
    assert name_meant(key) == meant

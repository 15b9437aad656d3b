"""Broken packs: each case edits a copy of the base pack and lists exactly the problems
`coh validate` must report (code, file, line, column). See broken_packs/README.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from coh_core.cli import main

CASE_DIR = Path(__file__).parent / "broken_packs"
CASES = sorted(CASE_DIR.glob("*.yaml"))


def _apply(pack: Path, case: dict[str, Any]) -> None:
    for edit in case.get("edits", []):
        target = pack / edit["file"]
        text = target.read_text(encoding="utf-8")
        assert edit["replace"] in text, f"case edit does not apply: {edit['replace']!r}"
        target.write_text(text.replace(edit["replace"], edit["with"], edit.get("count", 1)), encoding="utf-8")
    for relative, content in (case.get("add") or {}).items():
        (pack / relative).parent.mkdir(parents=True, exist_ok=True)
        (pack / relative).write_text(content, encoding="utf-8")
    for relative in case.get("remove", []):
        (pack / relative).unlink()


def _position(pack: Path, expected: dict[str, Any]) -> tuple[int, int]:
    """Line and column given directly, or as the place where the text `at` first occurs."""
    if "line" in expected:
        return expected["line"], expected["col"]
    text = (pack / expected["file"]).read_text(encoding="utf-8")
    index = text.index(expected["at"]) + expected.get("offset", 0)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


@pytest.mark.parametrize("case_path", CASES, ids=lambda p: p.stem)
def test_broken_pack(case_path: Path, base_copy: Path) -> None:
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    _apply(base_copy, case)
    result = CliRunner().invoke(main, ["validate", str(base_copy), "--format", "json"])
    assert "Traceback" not in result.output
    assert result.exit_code == case.get("exit", 1), result.output
    found = sorted(
        (
            p["code"],
            Path(p["file"]).resolve().relative_to(base_copy.resolve()).as_posix(),
            p["line"],
            p["col"],
        )
        for p in json.loads(result.output)["problems"]
    )
    wanted = sorted((e["code"], e["file"], *_position(base_copy, e)) for e in case["expect"])
    assert found == wanted


def test_there_are_at_least_a_dozen_cases() -> None:
    assert len(CASES) >= 12

"""Broken overlays: each case writes one or more overlay packs and lists exactly the problems
`coh validate --rules ...` must report (code, file, line, column), or the usage error it
must refuse with. See broken_overlays/README.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.packs import READING_CODES
from coh_core.resources import content_root

CASE_DIR = Path(__file__).parent / "broken_overlays"
CASES = sorted(CASE_DIR.glob("*.yaml"))
MANIFEST = """id: {id}
version: "1.0.0"
format: 2
kind: overlay
requires: [base]
files: [patches.yaml]
"""
TEXT = "locale: en\nmessages:\n  pack.{id}.name: {id}\n"


def _write(root: Path, case: dict[str, Any]) -> list[str]:
    """The case's overlays as directories under `root`; returns the `--rules` to pass."""
    for overlay_id, files in case["overlays"].items():
        files = {
            "pack.yaml": MANIFEST.format(id=overlay_id),
            "text/en.yaml": TEXT.format(id=overlay_id),
            **files,
        }
        for relative, content in files.items():
            path = root / overlay_id / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
    return [str(root / r) if (root / r).is_dir() else r for r in case.get("rules", list(case["overlays"]))]


def _position(root: Path, expected: dict[str, Any]) -> tuple[int, int]:
    text = (root / expected["file"]).read_text(encoding="utf-8")
    index = text.index(expected["at"])
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def _where(root: Path, problem: dict[str, Any]) -> str:
    path = Path(problem["file"]).resolve()
    return path.relative_to(root.resolve()).as_posix() if root.resolve() in path.parents else problem["file"]


@pytest.mark.parametrize("case_path", CASES, ids=lambda p: p.stem)
def test_broken_overlay(case_path: Path, tmp_path: Path) -> None:
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    rules = _write(tmp_path, case)
    args = ["validate", str(content_root() / "base"), "--format", "json"]
    result = CliRunner().invoke(main, [*args, *(a for r in rules for a in ("--rules", r))])
    assert "Traceback" not in result.output
    assert result.exit_code == case.get("exit", 1), result.output
    # these overlays have no translations (warnings): that is not what the cases are about
    problems = [p for p in json.loads(result.stdout)["problems"] if not p["code"].startswith("I18N-")]
    found = sorted((p["code"], _where(tmp_path, p), p["line"], p["col"]) for p in problems)
    wanted = sorted(
        (e["code"], e["file"], *_position(tmp_path, e)) if "at" in e else (e["code"], "<coh>", 0, 0)
        for e in case["expect"]
    )
    assert found == wanted
    reading = [p["code"].startswith(READING_CODES) for p in problems]
    assert reading == sorted(reading, reverse=True), "the problems of reading come first"
    for expected, problem in zip(case["expect"], problems, strict=True):
        if "says" in expected:
            assert expected["says"] in problem["message"]
        if "never_says" in expected:
            assert expected["never_says"] not in problem["message"]
        if "also" in expected:  # the second place, in the pack below, that the problem shows
            assert Path(problem["also"]["file"]).as_posix().endswith(expected["also"])
        if "quotes" in expected:
            assert _quoted(args, rules, problem) == expected["quotes"]


def _quoted(args: list[str], rules: list[str], problem: dict[str, Any]) -> str:
    """The source line shown under a problem in the text output (above its caret)."""
    text_args = [a for a in args if a not in ("--format", "json")]
    output = CliRunner().invoke(main, [*text_args, *(a for r in rules for a in ("--rules", r))]).stdout
    lines = output.splitlines()
    head = f"{problem['file']}:{problem['line']}:{problem['col']}: {problem['code']} "
    index = next(i for i, line in enumerate(lines) if line.startswith(head))
    assert lines[index + 2].strip() == "^"
    return lines[index + 1].strip()


def test_there_are_cases_for_every_kind_of_mistake() -> None:
    codes = {e["code"] for c in CASES for e in yaml.safe_load(c.read_text(encoding="utf-8"))["expect"]}
    wanted = {"OVERLAY-UNKNOWN", "OVERLAY-PATH", "OVERLAY-CONFLICT", "OVERLAY-SHAPE", "SCHEMA-TYPE"}
    assert wanted <= codes

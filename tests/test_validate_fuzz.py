"""Seeded mutation fuzzing: whatever is done to the base pack's files, `coh validate`
answers with located, coded problems and exit 1 (or 0) - never a traceback."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.cli import main

_SNIPPETS = [
    "(",
    ")",
    "{",
    "}",
    ":",
    "- ",
    "\t",
    "@",
    "=",
    "#",
    '"',
    "'",
    "no",
    "&a",
    "*a",
    "\x00",
    "é",
    "\n",
]


def _mutate(text: str, rng: random.Random) -> str:
    """One small edit a clumsy editor or a bad merge could make."""
    lines = text.split("\n")
    choice = rng.randrange(5)
    index = rng.randrange(len(lines))
    if choice == 0:
        del lines[index]
    elif choice == 1:
        lines.insert(index, lines[rng.randrange(len(lines))])
    elif choice == 2 and lines[index]:
        at = rng.randrange(len(lines[index]))
        lines[index] = lines[index][:at] + rng.choice(_SNIPPETS) + lines[index][at:]
    elif choice == 3 and lines[index]:
        at = rng.randrange(len(lines[index]))
        lines[index] = lines[index][:at] + lines[index][at + 1 :]
    else:
        lines[index] = lines[index].replace(" ", "", 1)
    return "\n".join(lines)


def _run_case(seed: int, pack: Path) -> None:
    rng = random.Random(seed)
    files = sorted(p for p in pack.rglob("*.yaml"))
    for _ in range(rng.randint(1, 3)):
        target = rng.choice(files)
        target.write_text(_mutate(target.read_text(encoding="utf-8"), rng), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(pack), "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), (seed, result.output)
    assert result.exit_code in (0, 1), (seed, result.output)
    document = json.loads(result.output)
    for problem in document["problems"]:
        assert problem["code"] and problem["message"] and problem["file"], (seed, problem)
        assert problem["line"] >= 0 and problem["col"] >= 0, (seed, problem)
    assert document["ok"] == (result.exit_code == 0)


@pytest.mark.parametrize("seed", range(40))
def test_mutated_pack_never_crashes(seed: int, base_copy: Path) -> None:
    _run_case(seed, base_copy)


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(40, 2040))
def test_mutated_pack_never_crashes_soak(seed: int, base_copy: Path) -> None:
    _run_case(seed, base_copy)

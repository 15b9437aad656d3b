"""Every scenario file under tests/scenarios is a test: rulebook examples, cards, characters, locations."""

from __future__ import annotations

from pathlib import Path

import pytest

from coh_core.engine.scenario import run_file
from coh_core.packs.model import Pack

SCENARIOS = Path(__file__).parent / "scenarios"
FILES = sorted(SCENARIOS.rglob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_scenario(base_pack: Pack, path: Path) -> None:
    outcome = run_file(base_pack, path, str(path.relative_to(SCENARIOS)))
    assert outcome.ok, "\n".join(p.render() for p in outcome.problems)


def test_a_failing_check_is_reported_at_its_line(base_pack: Pack, tmp_path: Path) -> None:
    source = (SCENARIOS / "rulebook" / "tie_broken_by_first_player.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(source.replace("first: red", "first: green"))
    outcome = run_file(base_pack, broken, "broken.yaml")
    [problem] = outcome.problems
    line = next(n for n, text in enumerate(source.splitlines(), start=1) if text.startswith("  first: red"))
    assert (problem.code, problem.location.line) == ("SCENARIO-FAILED", line)
    assert "expected 'green', got 'red'" in problem.message


def test_an_illegal_scripted_answer_names_the_legal_ones(base_pack: Pack, tmp_path: Path) -> None:
    source = (SCENARIOS / "rulebook" / "tie_broken_by_first_player.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(source.replace("{green: [winner, red]}", "{green: [winner, green]}"))
    [problem] = run_file(base_pack, broken, "broken.yaml").problems
    assert problem.code == "ACTION-ILLEGAL"
    assert "['winner', 'red']" in problem.message

"""The procedure reference (docs/procedures.md) is the one `coh docs procedures` writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.packs.model import Pack
from coh_core.packs.procedures_doc import generate_procedures

ROOT = Path(__file__).resolve().parent.parent


def test_procedure_reference_is_up_to_date(base_pack: Pack) -> None:
    committed = (ROOT / "docs" / "procedures.md").read_text(encoding="utf-8")
    assert committed == generate_procedures(base_pack), "run `coh docs procedures -o docs/procedures.md`"


def test_procedure_reference_lists_every_step_and_verb(base_pack: Pack) -> None:
    text = generate_procedures(base_pack)
    turn = base_pack.section("turn")
    for phase in turn["phases"]:
        for step in phase["steps"]:
            assert f"`turn/phases/{phase['id']}/steps/{step['id']}`" in text
    for step in [*turn["setup"], *turn["end"]]:
        assert f"/{step['id']}` |" in text
    for verb in base_pack.entities_of("verb"):
        assert f"| `{verb.id}(" in text


@pytest.mark.parametrize(
    ("verb", "reads"),
    [
        # param(zombie_cap) is read by room_for_zombies, which place_zombies calls
        ("place_zombies", "`zombie_cap` via `room_for_zombies`"),
        ("room_for_zombies", "`zombie_cap` |"),
        ("kill_zombies", "| - |"),
    ],
)
def test_procedure_reference_follows_calls_to_the_params(base_pack: Pack, verb: str, reads: str) -> None:
    line = next(x for x in generate_procedures(base_pack).splitlines() if x.startswith(f"| `{verb}("))
    assert line.endswith(reads) or reads in line


def test_procedure_reference_under_an_overlay_has_its_phase(runner: CliRunner) -> None:
    result = runner.invoke(main, ["docs", "procedures", "--rules", "hunger"])
    assert result.exit_code == 0, result.output
    assert "| `turn/phases/hunger/steps/eat` | Feed the groups | `hunger` |" in result.output
    assert "## hunger/verbs.yaml" in result.output

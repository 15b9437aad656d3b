"""The action windows of ruling 15 are pack data: each opens behind a rule parameter.

With an overlay that switches one off, the scenario that proves it no longer holds, and the
way it fails shows which window is gone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from coh_core.engine.scenario import run_file
from coh_core.packs import load_pack_checked

SCENARIOS = Path(__file__).parent.parent / "scenarios"

OVERLAY = """\
id: no-{name}
version: '1.0.0'
format: 2
kind: overlay
summary: One action window switched off.
requires: [base]
files: [patches.yaml]
"""
PATCH = "patches:\n  - set: params/{param}/value\n    to: false\n"
TEXT = "locale: en\nmessages:\n  pack.no-{name}.name: No {name}\n"


@pytest.mark.parametrize(
    ("param", "scenario", "code", "says"),
    [
        # green's Molotov waits for a later window: blue's Geek reaches the Armory before the door shuts
        (
            "window_after_move",
            "windows/after_move_card_blocks_the_next_move.yaml",
            "SCENARIO-FAILED",
            "'geek': 'armory'",
        ),
        # the Energy Drink comes in the attack window, after the activation it was to pay for
        (
            "window_before_activation",
            "windows/before_activation_card_pays_for_it.yaml",
            "ACTION-ILLEGAL",
            "['activate', 'hospital']",
        ),
        # nobody is asked before the antidotes are paid: the game ends before the gift
        (
            "window_before_antidotes",
            "windows/before_antidotes_gift_saves_a_character.yaml",
            "SCENARIO-OVER",
            "the game ended",
        ),
        # no window before the attack at the Church: the zombies eat red's only character, and red,
        # out of the game, is never asked again
        ("window_before_attack", "cards/shotgun.yaml", "SCENARIO-NOT-ASKED", "(movement_card)"),
        # the Shotgun of the deal at the Hospital meets the sharing vote instead of a window
        ("window_before_sharing", "rulebook/sharing_hospital_deal.yaml", "ACTION-ILLEGAL", "['vote', 'red']"),
    ],
)
def test_a_window_switched_off_by_its_parameter_does_not_open(
    tmp_path: Path, param: str, scenario: str, code: str, says: str
) -> None:
    overlay = tmp_path / f"no-{param}"
    overlay.mkdir()
    (overlay / "pack.yaml").write_text(OVERLAY.format(name=param), encoding="utf-8")
    (overlay / "patches.yaml").write_text(PATCH.format(param=param), encoding="utf-8")
    (overlay / "text").mkdir()
    (overlay / "text" / "en.yaml").write_text(TEXT.format(name=param), encoding="utf-8")
    pack = load_pack_checked(rules=[str(overlay)])
    assert run_file(load_pack_checked(), SCENARIOS / scenario).ok
    problems = run_file(pack, SCENARIOS / scenario).problems
    assert [p.code for p in problems] == [code], [p.render() for p in problems]
    assert says in problems[0].message

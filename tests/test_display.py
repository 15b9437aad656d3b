"""The values a kind's `list` columns and `show` lines make of an entity's data (`display_value`),
one form at a time, with the base pack's English texts; and `coh show` pages made of declared
lines (`gap`, `indent`, `effect`, `triggers`, `each`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.narrative import Narrator
from coh_core.packs.display import NOTHING, Display
from coh_core.packs.model import Pack

# The fields the data of the cases below declares: a default, and records in a list.
FIELDS = {
    "window": {"type": "window", "default": "anytime"},
    "sides": {
        "type": "list[record]",
        "fields": {
            "side": {"type": "name"},
            "capacity": {"type": "count"},
            "kind": {"type": "string", "default": "vote"},
        },
    },
}
DATA = {
    "rested": 5,
    "traits": {"votes": 0, "hidden": True},
    "symbols": ["explosion"],
    "sides": [{"side": "A", "capacity": 2}, {"side": "B", "capacity": "unlimited", "state_of": ["A"]}],
    "flag": False,
}
# The entity's own texts, by their keys below `<kind>.<id>.`.
TEXTS = {"A.name": "Side A", "power": "Draw a card."}


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ({"field": "rested"}, 5),
        ({"field": "window"}, "anytime"),  # left out: the declared default
        ({"field": "missing", "default": "-"}, "-"),
        ({"field": "sides", "size": True}, 2),
        ({"field": "sides", "sum": "capacity"}, 2),  # (a number only)
        ({"field": "symbols", "sep": " + ", "item": {"text": "ui.symbol.{value}"}}, "explosion"),
        ({"text": "ui.window.{window}"}, "in any action window"),  # the default fills a key too
        ({"field": "traits", "entries": True, "item": {"pattern": "{name}={value}"}}, "votes=0, hidden=true"),
        ({"when": ["flag", "symbols"], "text": "ui.yes"}, "yes"),
        ({"when": "flag", "text": "ui.yes"}, NOTHING),  # false is not set
        ({"when": ["traitz"], "text": "ui.yes"}, NOTHING),
        ({"own_text": "power"}, "Draw a card."),
        ({"own_text": "B.name", "optional": True}, NOTHING),
        ({"own_text": "B.name", "or": {"field": "rested"}}, 5),
        ({"text": "ui.fact.attack_victim.{kind}", "optional": True}, NOTHING),  # no such text
        (
            {
                "join": [{"text": "ui.yes"}, {"when": "flag", "text": "ui.yes"}, {"field": "rested"}],
                "sep": "/",
            },
            "yes/5",
        ),
        (
            {
                "field": "sides",
                "sep": "; ",
                "item": {
                    "pattern": "{label}: {room}",
                    "fill": {
                        "label": {"own_text": "{side}.name", "or": {"field": "side"}},
                        "room": {"field": "capacity", "cases": {"unlimited": {"text": "ui.fact.no_limit"}}},
                    },
                },
            },
            "Side A: 2; B: no limit on characters",
        ),
        (
            {
                "field": "sides",
                "item": {"text": "ui.fact.attack_victim.{kind}", "optional": True},
                "sep": ",",
            },
            "",  # every item comes to nothing: so does none of the list
        ),
        ({"text": "ui.fact.state_of", "fill": {"sides": {"own_text": "B.name", "optional": True}}}, NOTHING),
    ],
)
def test_a_value_is_made_as_its_form_says(base_pack: Pack, spec: dict[str, Any], shown: Any) -> None:
    display = Display(Narrator(base_pack, locale="en"), TEXTS)
    assert display.value(spec, DATA, FIELDS) == shown


SHOW = """\
    show:
      - {text: ui.show.slot, fill: {slot: {text: "ui.slot.{slot}"}}}
      - each: sides
        lines:
          - {gap: true, own_text: "{side}.name", or: {field: side}}
          - {indent: 1, own_text: "{side}.attack", optional: true}
          - {indent: 2, effect: attack_if, label: attacked when}
          - {indent: 2, effect: activation.effect}
          - {indent: 1, triggers: triggers}
"""


def test_show_lines_are_made_for_each_item_with_gaps_and_indents(base_copy: Path, runner: CliRunner) -> None:
    declarations = base_copy / "declarations.yaml"
    text = declarations.read_text(encoding="utf-8")
    start = text.index("    show:\n", text.index("  location:\n"))
    end = text.index("    checks:\n", start)
    declarations.write_text(text[:start] + SHOW + text[end:], encoding="utf-8")
    result = runner.invoke(main, ["show", "armory", "--pack", str(base_copy), "--lang", "en"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()[1:]
    assert lines[:10] == [
        "",
        "  Place in the city: corner",
        "",
        "  Side A",
        "    The zombies attack when 3 or more of them are here.",
        "      attacked when: attack_strength(here) >= 3",
        "      activation effect: draw_cards(1)",
        "    on marker_placed, once the current action is over:",
        "      if: markers(here) >= 3",
        "      do:",
    ]

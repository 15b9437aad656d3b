"""The type checker against the cases in checker_cases.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from coh_core.effects.checker import Symbols, check_condition, check_effect
from coh_core.effects.parser import parse_condition, parse_effect
from coh_core.effects.registry import EVENTS, WINDOWS

CASES: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "checker_cases.yaml").read_text())
SYMBOLS = Symbols(
    {"crossroads": "location", "red": "colour", "blonde": "character"},
    frozenset({"A", "B", "collapsed", "burnt"}),
    messages={"greeting": ("player", "count")},
)


def _extra(case: dict[str, Any]) -> dict[str, str]:
    if "window" in case:
        return dict(WINDOWS[case["window"]].bindings)
    if "event" in case:
        return dict(EVENTS[case["event"]].bindings)
    return {}


def _label(case: dict[str, Any]) -> str:
    return f"{case['context']}: {case.get('effect', case.get('condition'))}"


@pytest.mark.parametrize("case", CASES, ids=_label)
def test_checker_findings(case: dict[str, Any]) -> None:
    if "effect" in case:
        findings = check_effect(parse_effect(case["effect"]), SYMBOLS, case["context"], _extra(case))
    else:
        findings = check_condition(parse_condition(case["condition"]), SYMBOLS, case["context"], _extra(case))
    assert [{"code": f.code, "col": f.span.col} for f in findings] == case["expect"]


def test_messages_suggest_the_nearest_name() -> None:
    findings = check_effect(parse_effect("kil_zombies(2, at=here)"), SYMBOLS, "power")
    assert findings[0].message == "unknown verb `kil_zombies`; did you mean `kill_zombies`?"

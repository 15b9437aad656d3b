"""The parser against the cases in parser_cases.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from coh_core.effects.ast import dump
from coh_core.effects.parser import EffectSyntaxError, parse_condition, parse_effect

CASES: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "parser_cases.yaml").read_text())


def _parse(case: dict[str, Any]) -> Any:
    return parse_effect(case["effect"]) if "effect" in case else parse_condition(case["condition"])


@pytest.mark.parametrize("case", [c for c in CASES if "ast" in c], ids=lambda c: c["name"])
def test_parses_to_ast(case: dict[str, Any]) -> None:
    assert dump(_parse(case)) == case["ast"]


@pytest.mark.parametrize("case", [c for c in CASES if "error" in c], ids=lambda c: c["name"])
def test_reports_syntax_error(case: dict[str, Any]) -> None:
    with pytest.raises(EffectSyntaxError) as raised:
        _parse(case)
    found = {"code": raised.value.code, "line": raised.value.line, "col": raised.value.col}
    assert found == case["error"]


def test_spans_point_into_the_source() -> None:
    block = parse_effect("draw_cards(1)\n  kill_zombies(2, at=here)")
    call = block.statements[1]
    assert (call.span.line, call.span.col) == (2, 3)
    assert "draw_cards(1)\n  kill_zombies(2, at=here)"[call.span.start : call.span.end].startswith("kill")

"""The printer writes source that parses back to the same AST: every parser case, and every
effect of the base pack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from coh_core.effects import ast
from coh_core.effects.ast import dump
from coh_core.effects.parser import parse_condition, parse_effect
from coh_core.effects.printer import format_effect, format_expr
from coh_core.packs.model import Pack

CASES: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "parser_cases.yaml").read_text())


def _round_trip(tree: ast.Block | ast.Expr) -> None:
    if isinstance(tree, ast.Block):
        printed = format_effect(tree) if tree.statements else ""
        again: ast.Block | ast.Expr = parse_effect(printed)
    else:
        printed = format_expr(tree)
        again = parse_condition(printed)
    assert dump(again) == dump(tree), printed


@pytest.mark.parametrize("case", [c for c in CASES if "ast" in c], ids=lambda c: c["name"])
def test_printed_case_parses_back_to_the_same_ast(case: dict[str, Any]) -> None:
    tree = parse_effect(case["effect"]) if "effect" in case else parse_condition(case["condition"])
    _round_trip(tree)


def test_printed_base_pack_parses_back_to_the_same_ast(base_pack: Pack) -> None:
    for effect in base_pack.effects:
        _round_trip(effect.tree)

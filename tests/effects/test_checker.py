"""The type checker against the cases in checker_cases.yaml."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from coh_core.effects import checker as checker_module
from coh_core.effects.checker import Checker, Symbols, check_condition, check_effect
from coh_core.effects.parser import parse_condition, parse_effect
from coh_core.effects.registry import Declarations, EnumSpec, Kind, Param, Signature
from coh_core.packs.declarations import declarations_of
from coh_core.packs.effects_index import pack_verbs
from coh_core.packs.model import Pack

CASES: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "checker_cases.yaml").read_text())


@pytest.fixture(scope="module")
def declared(base_pack: Pack) -> Declarations:
    """The base pack's enumerations, traits, events and windows."""
    return declarations_of(base_pack)


@pytest.fixture(scope="module")
def symbols(base_pack: Pack, declared: Declarations) -> Symbols:
    """A few ids of each kind, and the base pack's own verbs (`kill_zombies`, `zombies`...)."""
    return Symbols(
        {"crossroads": "location", "red": "colour", "blonde": "character"},
        frozenset({"A", "B", "collapsed", "burnt"}),
        verbs=pack_verbs(base_pack, declared),
        messages={"greeting": ("player", "count")},
        carried={"greeting": ("mood",)},
        declared=declared,
        questions={"pick_place": ("player",), "pick": (), "cancel_move": ("player", "character", "location")},
        answers=frozenset({"place", "pair"}),
    )


def _extra(case: dict[str, Any], declared: Declarations) -> dict[str, str]:
    """The names the case's window or event binds, or (a verb's parameters) those it gives."""
    if "window" in case:
        return dict(declared.windows[case["window"]].bindings)
    if "event" in case:
        return dict(declared.events[case["event"]].bindings)
    return dict(case.get("names", {}))


def _label(case: dict[str, Any]) -> str:
    return f"{case['context']}: {case.get('effect', case.get('condition'))}"


@pytest.mark.parametrize("case", CASES, ids=_label)
def test_checker_findings(case: dict[str, Any], symbols: Symbols, declared: Declarations) -> None:
    extra = _extra(case, declared)
    if "effect" in case:
        findings = check_effect(parse_effect(case["effect"]), symbols, case["context"], extra)
    else:
        findings = check_condition(parse_condition(case["condition"]), symbols, case["context"], extra)
    assert [{"code": f.code, "col": f.span.col} for f in findings] == [
        {"code": e["code"], "col": e["col"]} for e in case["expect"]
    ]
    for finding, expected in zip(findings, case["expect"], strict=True):
        assert expected.get("says", "") in finding.message


def test_messages_suggest_the_nearest_name(symbols: Symbols) -> None:
    findings = check_effect(parse_effect("kil_zombies(2, at=here)"), symbols, "piece_ability")
    assert findings[0].message == "unknown verb `kil_zombies`; did you mean `kill_zombies`?"


def test_enumerations_and_traits_are_the_packs() -> None:
    """A pack that declares no traits and no `duration` has none: the values are reported as such."""
    bare = Symbols(declared=Declarations())
    findings = check_effect(
        parse_effect("set_trait(self, hidden, true, until=end_of_turn)"), bare, "piece_ability"
    )
    assert [(f.code, f.span.col, f.message) for f in findings] == [
        ("EFF-ENUM", 17, "`hidden` is not a trait: the pack declares no trait"),
        (
            "EFF-ENUM",
            37,
            "`end_of_turn` is not a duration: the pack declares no type `duration` (its enumerations: trait)",
        ),
    ]


def test_values_are_not_reported_while_declarations_failed_to_load() -> None:
    partial = Symbols(declared=Declarations(complete=False))
    effect = parse_effect("set_trait(self, hidden, true, until=end_of_turn)")
    assert check_effect(effect, partial, "piece_ability") == []


def test_a_misspelt_value_suggests_the_declared_one(symbols: Symbols) -> None:
    findings = check_effect(
        parse_effect("set_trait(self, hidden, true, until=end_of_trun)"), symbols, "piece_ability"
    )
    assert findings[0].message == (
        "`end_of_trun` is not a duration; one of: end_of_game, end_of_turn, leaves_location;"
        " did you mean `end_of_turn`?"
    )


def test_a_default_that_calls_with_a_default_left_out_reads_its_names_too(symbols: Symbols) -> None:
    """`first_mine(c: character = first(my_characters()))`: where `first_mine()` is written, the
    default calls `my_characters` without `player`, whose default reads `me` there in turn."""
    first_mine = Signature(
        "first_mine", Kind.SELECTOR, (Param("c", "character", "first(my_characters())"),), "character", ""
    )
    nested = replace(symbols, verbs={**symbols.verbs, "first_mine": first_mine})
    effect = parse_effect("kill_character(first_mine())")
    assert check_effect(effect, nested, "card") == []
    [finding] = check_effect(effect, nested, "step")
    assert (finding.code, finding.span.col) == ("EFF-UNBOUND-NAME", 16)
    assert finding.message.startswith(
        "`first_mine` is called without `c`, whose default `first(my_characters())` reads `me`"
    )


def test_defaults_inside_each_other_are_followed_to_a_bound(symbols: Symbols) -> None:
    """300 selectors, each defaulting to the next: a call of the first neither overflows the stack
    nor is refused (each declaration past the bound is, where coh_core.packs checks it)."""
    chain = {
        f"chain_{i}": Signature(
            f"chain_{i}",
            Kind.SELECTOR,
            (Param("n", "count", f"chain_{i + 1}()" if i < 300 else "1"),),
            "count",
            "",
        )
        for i in range(301)
    }
    deep = replace(symbols, verbs={**symbols.verbs, **chain})
    assert check_effect(parse_effect("score_points(chain_0())"), deep, "card") == []
    [finding] = Checker(deep, "verb").check_default(
        parse_condition("chain_1()"), "chain_0", chain["chain_0"].params[0]
    )
    assert finding.code == "EFF-LIMIT"
    assert (
        Checker(deep, "verb").check_default(
            parse_condition("chain_294()"), "chain_293", chain["chain_293"].params[0]
        )
        == []
    )


def _defaults_calling_the_next(levels: int, width: int) -> dict[str, Signature]:
    """Selectors `w_0` ... `w_<levels>`, each defaulting to `width` calls of the next, added up;
    the last one's default is 1."""
    return {
        f"w_{i}": Signature(
            f"w_{i}",
            Kind.SELECTOR,
            (Param("n", "count", " + ".join([f"w_{i + 1}()"] * width) if i < levels else "1"),),
            "count",
            "",
        )
        for i in range(levels + 1)
    }


def test_a_default_met_again_in_one_check_is_followed_once(
    symbols: Symbols, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each default calls the next one 3 times, 7 deep: 3**7 ways down, but 8 defaults."""
    wide = replace(symbols, verbs={**symbols.verbs, **_defaults_calling_the_next(7, 3)})
    followed: list[str] = []
    default_of = checker_module._default_of
    monkeypatch.setattr(
        checker_module, "_default_of", lambda sig, name: followed.append(sig.name) or default_of(sig, name)
    )
    assert check_effect(parse_effect("score_points(w_0())"), wide, "card") == []
    assert sorted(name for name in followed if name.startswith("w_")) == [f"w_{i}" for i in range(8)]


def test_defaults_too_long_together_to_follow_are_refused_where_declared(symbols: Symbols) -> None:
    """40 calls of the next one in each of 8 defaults inside each other: past what the checker can
    follow, the call is left alone and the declarations are refused (EFF-LIMIT), never a crash."""
    chain = _defaults_calling_the_next(8, 40)
    wide = replace(symbols, verbs={**symbols.verbs, **chain})
    assert check_effect(parse_effect("score_points(w_0())"), wide, "card") == []
    default = chain["w_0"].params[0]
    assert default.default is not None
    found = Checker(wide, "verb").check_default(parse_condition(default.default), "w_0", default)
    assert [f.code for f in found] == ["EFF-LIMIT"]


def test_a_value_of_two_enumerations_must_be_written_where_one_is_expected(
    base_pack: Pack, declared: Declarations
) -> None:
    """Where no type is expected, a value two enumerations share could be either: refused, located,
    naming both; where one of them is expected, it is that one's."""
    shared = {
        "weather": EnumSpec("weather", "The sky.", {"clear": "no clouds", "storm": "wind and rain"}),
        "verdict": EnumSpec("verdict", "A ruling.", {"clear": "not guilty", "guilty": "guilty"}),
    }
    both = replace(declared, types={**declared.types, **shared})
    symbols = Symbols({}, verbs=pack_verbs(base_pack, both), declared=both)
    [finding] = check_effect(parse_effect("let w = clear; no_effect()"), symbols, "piece_ability")
    assert (finding.code, finding.span.col) == ("EFF-AMBIGUOUS-NAME", 9)
    assert "`verdict`, `weather`" in finding.message
    typed = parse_condition("clear == x")
    assert check_condition(typed, symbols, "piece_ability", {"x": "weather"}) == []

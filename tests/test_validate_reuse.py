"""`coh validate` reuses, for each overlay, the checks of what the overlay leaves unchanged
(coh_core.packs.reuse): it must find exactly what checking every composed pack whole finds.

Each case runs both ways, the incremental one sharing one run's results (`Reuse`) across every
case of the module (after the shipped content), so reused results meet broken packs and
overlays they were not made on; the problems and warnings must be the same, one for one (code,
message, file, line, column, caret, second place)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from long_runs import spread
from test_broken_overlays import CASES as OVERLAY_CASES
from test_broken_overlays import _write
from test_broken_packs import CASES as PACK_CASES
from test_broken_packs import _apply

from coh_core.errors import UsageError
from coh_core.packs import ValidationReport, validate_paths
from coh_core.packs.overlays import shipped_overlays_of, shipped_packs
from coh_core.packs.reuse import Reuse
from coh_core.resources import content_root


@pytest.fixture(scope="module")
def shared() -> Reuse:
    """One run's results, made on the shipped content first, then reused by every case below."""
    reuse = Reuse()
    validate_paths([content_root()], reuse=reuse)
    return reuse


def _found(paths: list[Path], rules: list[str], reuse: Reuse) -> dict[str, Any]:
    """What validating finds: every problem and warning as JSON, the figures, or the usage error."""
    try:
        report: ValidationReport = validate_paths(paths, rules, reuse=reuse)
    except UsageError as error:
        return {"usage": error.as_problem().to_json()}
    return {
        "problems": [p.to_json() for p in report.problems],
        "warnings": [p.to_json() for p in report.warnings],
        "figures": (report.entities, report.effects, report.files),
        "packs": ["+".join([p.id, *p.rules_id]) for p in report.packs],
    }


def _both(
    shared: Reuse, paths: list[Path], rules: list[str] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    whole = _found(paths, rules or [], Reuse(enabled=False))
    return whole, _found(paths, rules or [], shared)


def test_shipped_content_finds_the_same_and_reuses() -> None:
    reuse = Reuse()
    whole = _found([content_root()], [], Reuse(enabled=False))
    incremental = _found([content_root()], [], reuse)
    assert incremental == whole
    games = shipped_packs(content_root(), "base")  # each game alone, each overlay on its game
    shipped = [*games, *(f"{game}+{o}" for game in games for o in shipped_overlays_of(content_root(), game))]
    assert sorted(whole["packs"]) == sorted(shipped) and len(games) == 2
    # the overlays' unchanged effects were not checked again: most of all the checks were reused
    assert reuse.effects.reused > whole["figures"][1] * 3 // 4


SHIPPED_OVERLAYS = shipped_overlays_of(content_root(), "base")


def test_the_base_game_ships_eleven_overlays() -> None:
    assert len(SHIPPED_OVERLAYS) == 11


@pytest.mark.parametrize("name", spread(SHIPPED_OVERLAYS, every=3))
def test_every_shipped_overlay_named_as_rules_finds_the_same(shared: Reuse, name: str) -> None:
    whole, incremental = _both(shared, [content_root() / "base"], [name])
    assert incremental == whole, name


@pytest.mark.parametrize("case_path", spread(OVERLAY_CASES, every=3, ids=lambda p: p.stem))
def test_broken_overlay_finds_the_same(case_path: Path, tmp_path: Path, shared: Reuse) -> None:
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    rules = _write(tmp_path, case)
    whole, incremental = _both(shared, [content_root() / "base"], rules)
    assert incremental == whole
    assert whole.get("problems") or whole.get("usage") or case.get("exit") == 0


def _about_checking(case_path: Path) -> bool:
    """Cases with named pipes or links are about reading files, not checking them (test_broken_packs)."""
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    return not (case.get("fifos") or case.get("links"))


CHECKING_CASES = [path for path in PACK_CASES if _about_checking(path)]


@pytest.mark.parametrize("case_path", spread(CHECKING_CASES, every=3, ids=lambda p: p.stem))
def test_broken_pack_finds_the_same(case_path: Path, tmp_path: Path, shared: Reuse) -> None:
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    pack = tmp_path / "base"
    shutil.copytree(content_root() / "base", pack)
    outside = tmp_path / "outside"
    outside.mkdir()
    _apply(pack, case, outside)
    whole, incremental = _both(shared, [pack])
    assert incremental == whole


@pytest.mark.parametrize(
    ("one", "other", "expected"),
    [
        ({"a": 1, "b": 2}, {"a": 1, "b": 2}, True),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),  # an order can show in a message
        ({"a": 1}, {"a": True}, False),  # equal, of another type
        ({"a": 1}, {"a": 1.0}, False),
        ((1, "x"), (1, "x"), True),
        ([1, [2]], [1, [2]], True),
        ([1, [2]], [1, (2,)], False),
        (frozenset({"a"}), frozenset({"a"}), True),
        ("verb", "verb", True),
        (None, 0, False),
    ],
)
def test_same_means_equal_in_every_way_a_check_could_see(one: Any, other: Any, expected: bool) -> None:
    from coh_core.packs.reuse import same

    assert same(one, other) is expected
    assert same(other, one) is expected


def test_a_check_is_reused_only_while_what_it_read_is_unchanged() -> None:
    from coh_core.effects.checker import Finding, Symbols
    from coh_core.effects.registry import Kind, Signature

    run = Reuse().effects
    verb = Signature("shout", Kind.VERB, (), None, "")
    seen: list[str] = []

    def check(symbols: Symbols) -> list[Finding]:
        seen.append("checked")
        return [] if "shout" in symbols.verbs else [Finding("EFF-UNKNOWN-VERB", "no shout", _span())]

    key = ("shout()", "effect", "step", (), False, None)
    with_verb = Symbols(verbs={"shout": verb}, refs={"a": "location"})
    assert run.symbols(with_verb).findings(key, check) == []
    # another pack: another id (not read by the check), the same verb: reused
    assert run.symbols(Symbols(verbs={"shout": verb}, refs={"b": "location"})).findings(key, check) == []
    assert seen == ["checked"] and run.reused == 1
    # the verb it read is gone: checked again, and found
    found = run.symbols(Symbols(verbs={}, refs={"a": "location"})).findings(key, check)
    assert [f.code for f in found] == ["EFF-UNKNOWN-VERB"] and seen == ["checked", "checked"]


def _span() -> Any:
    from coh_core.effects import ast

    return ast.Span(1, 1, 0, 5)

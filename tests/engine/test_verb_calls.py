"""The call graph of a pack's verbs: how deep calls nest and how many verbs one call runs.

`coh validate` refuses a pack past either bound (tests/hostile_packs: `EFF-LIMIT`, `EFF-COST`),
and the compiler reads the same graph: a verb nested deeper than play allows fails when called,
located and naming its chain, even in a pack no check has refused.
"""

from __future__ import annotations

import itertools
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from coh_core.effects.calls import RUNS_CAP, Reach, callees_first, chain, reach
from coh_core.engine import EngineError, new_game
from coh_core.engine.compile import lowering
from coh_core.packs import load_pack_checked
from coh_core.resources import content_root


def _graph(edges: dict[str, str]) -> dict[str, Counter[str]]:
    """`{"a": "b b c"}`: a calls b twice and c once."""
    return {name: Counter(calls.split()) for name, calls in edges.items()}


REACH_CASES = {
    "a verb that calls none": ({"a": ""}, {"a": Reach(1, None, 1)}),
    "a chain": (
        {"a": "b", "b": "c", "c": ""},
        {"a": Reach(3, "b", 3), "b": Reach(2, "c", 2), "c": Reach(1, None, 1)},
    ),
    "fan-out multiplies": (
        {"a": "b b", "b": "c c c", "c": ""},
        {"a": Reach(3, "b", 9), "b": Reach(2, "c", 4)},
    ),
    "a diamond counts both ways": ({"a": "b c", "b": "d", "c": "d", "d": ""}, {"a": Reach(3, "b", 5)}),
    "the deeper callee leads the chain": ({"a": "b c", "b": "", "c": "d", "d": ""}, {"a": Reach(3, "c", 4)}),
    "a call of no verb is left out": ({"a": "b z"}, {"a": Reach(1, None, 1)}),
}


@pytest.mark.parametrize(("edges", "expected"), REACH_CASES.values(), ids=REACH_CASES.keys())
def test_reach_counts_depth_and_runs(edges: dict[str, str], expected: dict[str, Reach]) -> None:
    graph = {
        name: Counter(n for n in calls.elements() if n in edges) for name, calls in _graph(edges).items()
    }
    found = reach(graph)
    assert {name: found[name] for name in expected} == expected


def test_callees_come_first() -> None:
    graph = _graph({"a": "b c", "b": "d", "c": "d", "d": "", "e": "a"})
    order = callees_first(graph)
    assert sorted(order) == sorted(graph)
    for name, calls in graph.items():
        assert all(order.index(callee) < order.index(name) for callee in calls)
    assert callees_first(graph, ["b"]) == ["d", "b"]  # only what `b` reaches


def test_a_cycle_is_left_to_the_checks() -> None:
    """Verbs on a cycle (refused by VERB-RECURSION) are ordered anyhow and never loop here."""
    graph = _graph({"a": "b", "b": "a", "c": "a"})
    assert sorted(callees_first(graph)) == ["a", "b", "c"]
    assert set(reach(graph)) <= {"a", "b", "c"}


def test_a_chain_ten_thousand_long_needs_no_recursion() -> None:
    """A stranger's pack may chain thousands of verbs: nothing here recurses per link."""
    names = [f"v{index}" for index in range(10_000)]
    graph = {name: Counter([after]) for name, after in itertools.pairwise(names)} | {names[-1]: Counter()}
    found = reach(graph)
    assert found["v0"] == Reach(10_000, "v1", 10_000)
    assert chain("v0", found) == names


def test_runs_stop_counting_at_the_cap() -> None:
    names = [f"v{index}" for index in range(100)]
    graph = {name: Counter([after, after]) for name, after in itertools.pairwise(names)} | {
        names[-1]: Counter()
    }
    assert reach(graph)["v0"].runs == RUNS_CAP  # 2^100 - 1, not worked out


def test_runs_match_a_count_of_the_calls() -> None:
    """On random graphs without cycles, `runs` is what running every call would count."""
    rng = random.Random(7)
    for _ in range(50):
        names = [f"v{index}" for index in range(12)]
        graph = {
            name: Counter(rng.choice(names[index + 1 :]) for _ in range(rng.randint(0, 3)))
            if index + 1 < len(names)
            else Counter()
            for index, name in enumerate(names)
        }

        counted = {name: found.runs for name, found in reach(graph).items()}
        assert counted == {name: _runs_by_calling(graph, name) for name in names}


def _runs_by_calling(graph: dict[str, Counter[str]], name: str) -> int:
    """The verbs one call of `name` runs, counted by following every call (slow, and obviously so)."""
    return 1 + sum(times * _runs_by_calling(graph, callee) for callee, times in graph[name].items())


def _chained_pack(tmp_path: Path, links: int) -> Path:
    """The base pack with a chain of `links` verbs, the first called as the game is set up."""
    pack = tmp_path / "base"
    shutil.copytree(content_root() / "base", pack)
    verbs = ["verbs:"]
    for index in range(links):
        body = f"v{index + 1}()" if index + 1 < links else "no_effect()"
        verbs.append(f'  - {{id: v{index}, doc: One link., do: "{body}"}}')
    (pack / "verbs.yaml").write_text("\n".join(verbs) + "\n", encoding="utf-8")
    manifest = pack / "pack.yaml"
    listed = manifest.read_text(encoding="utf-8")
    manifest.write_text(
        listed.replace("  - params.yaml\n", "  - params.yaml\n  - verbs.yaml\n"), encoding="utf-8"
    )
    turn = pack / "turn.yaml"
    step = "        build_invasion_deck()\n"
    turn.write_text(
        turn.read_text(encoding="utf-8").replace(step, step + "        v0()\n", 1), encoding="utf-8"
    )
    return pack


def test_play_refuses_verbs_nested_past_its_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A verb whose calls nest deeper than play allows fails when it is called (`ENGINE-LIMIT` at
    the call that goes too deep, naming the chain), never Python's stack running out. The pack
    validates (12 verbs); play's limit is lowered to 10 to reach the guard no check leaves."""
    root = _chained_pack(tmp_path, 12)
    pack = load_pack_checked(root)
    monkeypatch.setattr(lowering, "MAX_VERB_NESTING", 10)
    game = new_game(pack, players=3, seed=1)
    rng = random.Random(1)
    with pytest.raises(EngineError) as raised:
        while not game.over:
            for colour in list(game.decision.waiting):  # type: ignore[union-attr]
                game.submit(colour, rng.choice(game.decision.legal(colour)))  # type: ignore[union-attr]
    error = raised.value
    assert error.code == "ENGINE-LIMIT"
    assert "more than 10 pack verbs would run inside each other: v0 -> v1 -> " in error.message
    assert error.message.endswith("v10 -> ...")
    assert error.location is not None and error.location.file.endswith("verbs.yaml")
    lines = (root / "verbs.yaml").read_text(encoding="utf-8").splitlines()
    assert (error.location.line, error.location.col) == (2, lines[1].index("v1()") + 1)  # v0's call of v1

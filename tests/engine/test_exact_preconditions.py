"""Dry programs (`Compiler.dry_program`) answer as the whole programs would.

A card, power or activation is offered when some path of answers to its choices lets a dry run
of it reach its end. A dry run now runs the block without its last statements that could not stop
it (no choice among nothing, no failing check, no selector with nothing to give), and a block
where nothing could stop one is not run at all (`CompiledBlock.sure`). Compared here at every
offer of seeded random games, base pack and every shipped overlay, against an exploration of
the whole program as dry runs made it before; and, effect by effect, what is left out.
"""

from __future__ import annotations

import inspect
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.effects.parser import parse_effect
from coh_core.engine import compiler_for, new_game
from coh_core.engine.compile.dry import _OF_SOME, _TOTAL
from coh_core.engine.compile.model import CompiledBlock
from coh_core.engine.game import DRY_RUN_LIMIT, Game, _next_path
from coh_core.engine.library import IMPLS
from coh_core.engine.machine import Program, run_sync
from coh_core.engine.rules import Playable
from coh_core.engine.runtime import NoOptions, Rt
from coh_core.limits import MAX_LOOP_STEPS
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.packs.overlays import shipped_overlays_of
from coh_core.resources import content_root

SHIPPED = shipped_overlays_of(content_root(), "base")


def _whole(program: Program, rt: Rt, env: dict[str, Any], before: Program | None = None) -> bool:
    """Whether some path of a program reaches its end in dry runs, every statement run, as before
    dry programs (`before`: a program run first on each path, in the same table of names)."""
    rt.path.clear()
    rt.counts.clear()
    for _ in range(DRY_RUN_LIMIT):
        names = dict(env)
        rt.step = 0
        try:
            if before is not None:
                rt.paying = True
                run_sync(before, rt, names)
                rt.paying = False
            run_sync(program, rt, names)
            return True
        except NoOptions:
            pass
        if not _next_path(rt.path, rt.counts):
            return False
    return False


def _could_before(played: Game, playable: Playable, env: dict[str, Any], actor: str) -> bool:
    """`Game._could` as it was before dry programs: the condition, then the whole programs explored."""
    rt = Rt(played, env, actor, dry=True)  # (a run made to explore has the dry-run paths)
    rt.dry = False  # the condition is read as in play
    if playable.condition is not None and not playable.condition(rt):
        return False
    rt.loops = MAX_LOOP_STEPS
    rt.dry = True
    cost, effect = playable.cost, playable.effect
    if cost is not None and effect is not None and cost.binds & effect.reads:
        return _whole(effect.program, rt, env, before=cost.program)
    if cost is not None:
        rt.paying = True
        if not _whole(cost.program, rt, env):
            return False
        rt.paying = False
    return effect is None or _whole(effect.program, rt, env)


def _kind(block: CompiledBlock | None) -> str:
    if block is None or block.check is None:
        return "none"
    return "sure" if block.sure else "same" if block.check is block.program else "trimmed"


def _compare(monkeypatch: pytest.MonkeyPatch, seen: Counter[str]) -> None:
    """Every time the engine asks whether a card, power or activation could be played, the answer
    is also worked out as before, and both must agree."""
    could = Game._could

    def checked(
        self: Game, playable: Playable, env: dict[str, Any], actor: str, rt: Rt | None = None
    ) -> bool:
        expected = _could_before(self, playable, dict(env), actor)
        found = could(self, playable, env, actor, rt)
        assert found is expected, (playable.owner, env)
        seen[f"{_kind(playable.cost)} {_kind(playable.effect)} {found}"] += 1
        return found

    monkeypatch.setattr(Game, "_could", checked)


def _play(pack: Pack, players: int, seed: int) -> None:
    played = new_game(pack, players=players, seed=seed)
    agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(played.players)}
    while not played.over:
        decision = played.decision
        assert decision is not None
        for colour in decision.waiting:
            played.submit(colour, ask(played, agents[colour], colour))


@pytest.mark.parametrize("overlay", [None, *SHIPPED])
def test_dry_programs_answer_every_offer_as_the_whole_programs(
    monkeypatch: pytest.MonkeyPatch, base_pack: Pack, overlay: str | None
) -> None:
    pack = base_pack if overlay is None else load_pack_checked(rules=[overlay])
    seen: Counter[str] = Counter()
    _compare(monkeypatch, seen)
    for seed in range(30):
        _play(pack, players=3 + seed % 4, seed=seed)
    # effects left out entirely, cut short and run whole all came up, cut short ones both ways,
    # and costs cut short both ways: the comparison is not idle
    assert seen["none sure True"] > 100 and seen["none trimmed True"] > 100, seen
    assert seen["none trimmed False"] > 50 and seen["none same True"] > 50, seen
    assert sum(n for k, n in seen.items() if k.startswith("trimmed") and k.endswith("True")) > 20, seen
    assert sum(n for k, n in seen.items() if k.startswith("trimmed") and k.endswith("False")) > 20, seen


Case = tuple[str, str, Callable[[CompiledBlock], bool]]


def _left_out(count: int) -> Callable[[CompiledBlock], bool]:
    """The dry program is the block's program without its last `count` instructions (but its end)."""

    def test(block: CompiledBlock) -> bool:
        dry = block.dry_program()
        return dry is not None and len(dry.ops) == len(block.program.ops) - count

    return test


def _whole_program(block: CompiledBlock) -> bool:
    return block.dry_program() is block.program


def _sure(block: CompiledBlock) -> bool:
    return block.dry_program() is None and block.sure


# A list that may be empty, and the block ending there when it is (`_empty_guard`).
GUARDED = (
    "let xs = [a for a in locations() if a != a]\nif count(xs) == 0 {\n  log(no_marker_target)\n  return\n}\n"
)


@pytest.mark.parametrize(
    ("why", "source", "expected"),
    [
        (
            "logs and sets check nothing",
            "log(cards_drawn, player=me, count=1)\nset_trait(self, votes, 1, until=end_of_turn)",
            _sure,
        ),
        (
            "a check stays, what follows goes",
            "needs(1 > 0)\nlog(cards_drawn, player=me, count=1)",
            _left_out(1),
        ),
        ("a check at the end stays", "log(cards_drawn, player=me, count=1)\nneeds(1 > 0)", _whole_program),
        ("a choice stays", "let at = choose(locations())\nlog(no_marker_target)", _left_out(1)),
        (
            "a choice at the end stays",
            "log(no_marker_target)\nlet c = choose(colours_in_play())",
            _whole_program,
        ),
        ("an item past the end may be nothing", "let x = [1][2]\nlog(no_marker_target)", _left_out(1)),
        ("the first of nothing may stop", "let x = first([])", _whole_program),
        ("the least of a list written out never does", "let x = min([1, count(locations())])", _sure),
        (
            "the least of a list built may be of nothing",
            "let x = min([1 for a in locations()])",
            _whole_program,
        ),
        ("the first of a list built may be nothing", "let n = zombies(first(locations()))", _whole_program),
        ("a pack selector over total selectors", "let xs = locations_with_room()", _sure),
        (
            "a loop and a branch that check nothing",
            "for a in locations() { if a == a { log(no_marker_target) } }",
            _sure,
        ),
        ("a branch with a check", "if 1 > 0 { needs(false) }\nlog(no_marker_target)", _left_out(1)),
        (
            "a choice among a list that cannot be empty",
            GUARDED + "let x = choose(xs)\nlog(no_marker_target)",
            _sure,
        ),
        ("a question among one", GUARDED + "let x = ask(me, xs, question=marker, answer=marker)", _sure),
        (
            "a list bound again after its guard",
            GUARDED + "let xs = [a for a in xs if a == 1]\nlet x = choose(xs)",
            _whole_program,
        ),
        (
            "a guard that does not return",
            "let xs = locations()\nif count(xs) == 0 { log(no_marker_target) }\nlet x = choose(xs)",
            _whole_program,
        ),
    ],
)
def test_what_a_dry_program_leaves_out(base_pack: Pack, why: str, source: str, expected: Any) -> None:
    compiler = compiler_for(base_pack)
    block = compiler.block(parse_effect(source), None, frozenset({"me", "self"}))
    assert expected(block), why


def test_a_pack_verb_that_could_not_stop_a_dry_run_has_nothing_to_run(base_pack: Pack) -> None:
    """`place_explosion_marker` asks only among targets it made sure there are (or returns)."""
    compiler = compiler_for(base_pack)
    dry = compiler.dry_body("place_explosion_marker")
    assert len(dry.ops) == 1 and len(compiler.body("place_explosion_marker").ops) > 5  # (its end alone)


def test_a_pack_verb_called_runs_its_own_dry_program(base_pack: Pack) -> None:
    """`kill_zombies` checks that there are zombies, then moves them and logs it: its dry program
    keeps the check alone, and a block calling it calls that instead of the whole body."""
    compiler = compiler_for(base_pack)
    block = compiler.block(parse_effect("kill_zombies(2, at=choose(locations()))"), None, frozenset({"me"}))
    body, dry = compiler.body("kill_zombies"), compiler.dry_body("kill_zombies")
    assert dry is not body and len(dry.ops) < len(body.ops)
    check = block.dry_program()
    assert check is not None and check is not block.program
    assert any(getattr(op, "program", None) is dry for op in check.ops)
    assert not any(getattr(op, "program", None) is dry for op in block.program.ops)


@pytest.mark.parametrize("name", sorted(_TOTAL))
def test_selectors_said_to_always_give_never_stop_a_run(name: str) -> None:
    """`_TOTAL`'s selectors raise no NoOptions in their engine code (nor call what does)."""
    impl = IMPLS[name]
    text = inspect.getsource(impl.fn)
    assert "NoOptions" not in text and "_need(" not in text and impl.check is None, name
    stopping = ("first", "min_of", "max_of", "random_item", "pack_data", "entity_data", "index_of")
    assert not any(re.search(rf"\b{call}\(", text) for call in stopping), name


def test_selectors_that_may_have_nothing_to_give_are_not_said_to_always_give() -> None:
    stopping = {name for name, impl in IMPLS.items() if "NoOptions" in inspect.getsource(impl.fn)}
    assert stopping >= set(_OF_SOME) and not stopping & _TOTAL, stopping

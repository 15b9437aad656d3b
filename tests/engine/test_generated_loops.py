"""Lists and maps built with `for`: the loop bound counts each item exactly as the loop reaches it,
and a list of lists stays within the size bound, however the compiler writes the loop."""

from __future__ import annotations

import contextlib

import pytest

from coh_core.effects.parser import parse_effect
from coh_core.engine import codegen, compiler_for, new_game
from coh_core.engine.compile.lowering import Compiler
from coh_core.engine.library import IMPLS
from coh_core.engine.machine import Program, run_sync
from coh_core.engine.runtime import EngineError, NoOptions, Rt
from coh_core.limits import MAX_LOOP_STEPS
from coh_core.packs.effects_index import symbols_of
from coh_core.packs.model import Pack


def _run(pack: Pack, source: str, loops: int = MAX_LOOP_STEPS) -> Rt:
    """Run an effect unchecked with `loops` iterations left; the run, stopped or not."""
    game = new_game(pack, 4, 1)
    compiler = Compiler(IMPLS, symbols_of(pack).refs)
    program = compiler.block(parse_effect(source), None, frozenset()).program
    rt = Rt(game, {}, game.players[0])
    rt.loops = loops
    with contextlib.suppress(NoOptions):  # (a run that stopped: what it counted is what is asked)
        run_sync(program, rt, rt.env)
    return rt


@pytest.mark.parametrize(
    ("source", "counted"),
    [
        ("let xs = [a for a in range(1, 10)]", 10),
        ("let xs = [a for a in range(1, 10) if a > 4]", 10),
        ("let m = {k: 1 for k in [x, y, z]}", 3),
        ("let xs = [[b for b in range(1, 3)] for a in range(1, 4)]", 4 + 4 * 3),
        # past the end of a list there is nothing: the effect stops at the fourth item
        ("let xs = [[10, 20, 30][a] for a in range(0, 9)]", 4),
        ("let xs = [a for a in range(0, 9) if [10, 20, 30][a] > 0]", 4),
    ],
)
def test_each_item_reached_counts_once(base_pack: Pack, source: str, counted: int) -> None:
    assert MAX_LOOP_STEPS - _run(base_pack, source).loops == counted


def test_an_effect_that_stops_before_the_bound_stops_as_it_did(base_pack: Pack) -> None:
    """Five iterations left, a loop of nine that stops at its fourth: no bound is reached."""
    rt = _run(base_pack, "let xs = [[10, 20, 30][a] for a in range(0, 8)]", loops=5)
    assert rt.loops == 1
    with pytest.raises(EngineError) as raised:
        _run(base_pack, "let xs = [[10, 20, 30, 40, 50, 60][a] for a in range(0, 8)]", loops=5)
    assert raised.value.code == "ENGINE-LIMIT"
    assert "loop iterations in one run of an effect" in raised.value.message


def test_the_loop_bound_holds_in_a_list_built_with_for(base_pack: Pack) -> None:
    assert MAX_LOOP_STEPS - _run(base_pack, f"let xs = [a for a in range(1, {MAX_LOOP_STEPS})]").loops == (
        MAX_LOOP_STEPS
    )
    with pytest.raises(EngineError) as raised:
        _run(base_pack, f"let xs = [a for a in range(0, {MAX_LOOP_STEPS})]")
    assert raised.value.code == "ENGINE-LIMIT"


@pytest.mark.parametrize(
    "source",
    [
        "let ys = range(1, 4000); let xs = [ys for a in range(1, 3)]",
        "let ys = range(1, 4000); let xs = [[a, ys] for a in range(1, 3)]",
        "let ys = range(1, 4000); let m = {k: ys for k in [x, y, z]}",
    ],
)
def test_a_list_of_lists_built_with_for_stays_within_the_size_bound(base_pack: Pack, source: str) -> None:
    with pytest.raises(EngineError) as raised:
        _run(base_pack, source)
    assert raised.value.code == "ENGINE-LIMIT"
    assert "counting those of the lists and maps inside it" in raised.value.message


def test_bare_names_in_a_list_are_not_tested_as_lists(base_pack: Pack) -> None:
    """A bare name is written as a text: the list holding it needs no test of its items' types."""
    before = set(codegen._CODE)
    rt = _run(base_pack, "let xs = [x, y, z]; let ys = [xs, xs]")
    written = "".join(text for text in codegen._CODE if text not in before)
    assert rt.env["xs"] == ["x", "y", "z"] and rt.env["ys"] == [["x", "y", "z"]] * 2
    assert "type('x')" not in written
    assert "type(env['xs']) is list" in written  # (a name bound to a value is still tested)


_DEEP = {
    "sums": lambda d: "(1 + " * d + "1" + ")" * d,
    "lists built with for": lambda d: (
        "[" + "[" * d + "a0" + "".join(f" for a{i} in [1] if a{i} > 0]" for i in range(d - 1, -1, -1)) + "]"
    ),
    "maps built with for": lambda d: "{k: " * d + "1" + " for k in [x]}" * d,
    "calls": lambda d: "max([" * d + "1" + "])" * d,
    "items of lists": lambda d: "[1, 2][" * d + "0" + "]" * d,
    "selectors over lists built with for": lambda d: (
        "count_of(zombies, first([at for at in locations() if " * d + "true" + "]))" * d
    ),
}


# (the parser refuses these: more than 48 levels)
_TOO_DEEP = {("selectors over lists built with for", depth) for depth in (9, 12, 14)}


@pytest.mark.parametrize(
    ("form", "depth"),
    [(form, depth) for form in sorted(_DEEP) for depth in (6, 9, 12, 14) if (form, depth) not in _TOO_DEEP],
)
def test_deep_expressions_compile_within_what_python_nests(base_pack: Pack, form: str, depth: int) -> None:
    """Python compiles at most 20 blocks inside each other in one function: the compiler writes
    what would nest deeper as functions of their own, also where a choice wraps the expression."""
    expr = _DEEP[form](depth)
    for source in (f"let v = {expr}", f"let v = choose([{expr}])"):
        _run(base_pack, source)  # (SyntaxError: too many statically nested blocks)


def _outcome(pack: Pack, source: str, dry: bool, direct: bool) -> tuple[object, ...]:
    """What running an effect unchecked gives: its names, the loop bound left, what it raised."""
    game = new_game(pack, 4, 1)
    program = compiler_for(pack).block(parse_effect(source), None, frozenset()).program
    assert program.direct is not None  # (the function of the whole program: `_direct`)
    if not direct:
        program.direct = None  # its instructions run by the machine, block by block
    return run_outcome(program, Rt(game, {}, game.players[0], dry))


def run_outcome(program: Program, rt: Rt) -> tuple[object, ...]:
    """Run a program that cannot ask to its end: its names, the loop bound left, what it raised."""
    try:
        run_sync(program, rt, rt.env)
    except EngineError as error:
        return (rt.env, rt.loops, error.code, error.message, error.location)
    except NoOptions as error:
        return (rt.env, rt.loops, "NoOptions", str(error))
    return (rt.env, rt.loops)


@pytest.mark.parametrize(
    "source",
    [
        "let xs = []; for a in range(1, 5) { if a > 2 { let xs = xs + [a] } else { let xs = xs + [0 - a] } }",
        "let x = 0; for a in range(1, 3) { if a > 1 { if a > 2 { let x = a } else { } } }",
        "let x = 0; for a in range(1, 9) { let x = a; if a == 3 { return } }",
        "let n = 0; while n < 5 { let n = n + 1 }",
        "let xs = []; for a in range(1, 3) { let c = choose([a, a + 10]); let xs = xs + [c] }",
        "let xs = []; for a in range(1, 3) { let c = choose([a]); let xs = xs + [c] }",
        "let x = 0; for a in [1, 2] { let x = a; let c = choose([]) }",
        "for a in range(1, 6000) { for b in [1, 2] { no_effect() } }",
        "for a in [1] { let p = ask(me, [1, 2], question=discard, answer=discard) }",
        "for a in [1] { let t = may(me, 1, question=discard, answer=discard) }",
        "discard_cards(1); let x = hand(me)",
    ],
)
@pytest.mark.parametrize("dry", [False, True])
def test_a_program_that_jumps_runs_as_one_function_as_it_runs_block_by_block(
    base_pack: Pack, source: str, dry: bool
) -> None:
    assert _outcome(base_pack, source, dry, direct=True) == _outcome(base_pack, source, dry, direct=False)

"""Lists and maps at play time: the guards that hold where the checker could not look."""

from __future__ import annotations

import pytest

from coh_core.effects.parser import parse_effect
from coh_core.engine import new_game
from coh_core.engine.compile.lowering import Compiler
from coh_core.engine.library import IMPLS
from coh_core.engine.machine import run_sync
from coh_core.engine.runtime import EngineError, Rt
from coh_core.packs.effects_index import symbols_of
from coh_core.packs.model import Pack


def _run(pack: Pack, source: str) -> dict[str, object]:
    """Run an effect unchecked (as the checker never lets it through) and return its names."""
    game = new_game(pack, 4, 1)
    compiler = Compiler(IMPLS, symbols_of(pack).refs)
    program = compiler.block(parse_effect(source), None, frozenset()).program
    env: dict[str, object] = {}
    run_sync(program, Rt(game, env, game.players[0]), env)
    return env


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("let m = {1: 2}", "the number 1"),
        ("let m = {true: 2}", "true"),
        ("let m = {[1]: 2}", "a list"),
        ("let m = {k: 1 for k in [{}]}", "a map"),
    ],
)
def test_a_key_that_is_no_name_stops_the_effect(base_pack: Pack, source: str, shown: str) -> None:
    with pytest.raises(EngineError) as raised:
        _run(base_pack, source)
    assert raised.value.code == "EFF-MAP-KEY"
    assert raised.value.message == f"the key of a map must be a name, not {shown}"


def test_a_value_held_twice_counts_twice(base_pack: Pack) -> None:
    """Nested lists and maps count their inner items each time they appear: 2 + 2 * 4,999."""
    grow = "let xs = [1, 2, 3, 4]; while count(xs) < {n} {{ let xs = xs + [0] }}; let ys = [xs, xs]"
    names = _run(base_pack, grow.format(n=4999))
    assert len(names["ys"]) == 2  # type: ignore[arg-type]
    with pytest.raises(EngineError) as raised:
        _run(base_pack, grow.format(n=5000))
    assert raised.value.code == "ENGINE-LIMIT"
    assert "counting those of the lists and maps inside it" in raised.value.message


def test_a_sum_stays_within_the_largest_number(base_pack: Pack) -> None:
    assert _run(base_pack, "let s = sum([1000000000, -1])")["s"] == 999_999_999
    with pytest.raises(EngineError) as raised:
        _run(base_pack, "let s = sum([1000000000, 1])")
    assert raised.value.code == "ENGINE-LIMIT"
    assert raised.value.message == "a number beyond 1,000,000,000 in magnitude"


def _wrapped(value: object, times: int) -> object:
    for _ in range(times):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("source", "value"),
    [
        # about as deep as the parser allows: more `try` blocks than Python compiles in one function
        ("let x = " + "(1 + " * 40 + "1" + ")" * 40, 41),
        # loops inside loops, the innermost reading the outermost's name
        (
            "let x = " + "[" * 22 + "a0" + "".join(f" for a{i} in [1]]" for i in range(21, -1, -1)),
            _wrapped(1, 22),
        ),
        ("let x = [[a + b for b in [10, 20]] for a in [1, 2]]", [[11, 21], [12, 22]]),
    ],
)
def test_deeply_nested_expressions_compile_and_run(base_pack: Pack, source: str, value: object) -> None:
    assert _run(base_pack, source)["x"] == value


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("let s = \"__import__('os').system('exit 3')\"", "__import__('os').system('exit 3')"),
        ('let s = "a\\"); raise SystemExit(3) #"', 'a\\"); raise SystemExit(3) #'),  # no escapes in text
        ('let s = "one\\ntwo"', "one\\ntwo"),
        ('let s = "\\\\"', "\\\\"),
        ('let s = {"x\'y": 1}["x\'y"]', 1),
        ('let s = ["\\")", "}"][0]', '\\")'),
        ('let s = ["{x}", "f\'{1}\'"][1]', "f'{1}'"),
    ],
)
def test_text_in_pack_code_is_a_value_never_python(base_pack: Pack, source: str, value: object) -> None:
    """Pack code is written as Python source (codegen.py): text that looks like Python stays text."""
    assert _run(base_pack, source)["s"] == value

"""An `if`, a `for` or a `while` that cannot stop or switch frames runs inside one block of the
generated code: what it does is what its instructions do run one at a time."""

from __future__ import annotations

import pytest
from test_generated_loops import run_outcome

from coh_core.effects.parser import parse_effect
from coh_core.engine import compiler_for, new_game
from coh_core.engine.compile.blocks import _one_op
from coh_core.engine.machine import run_sync
from coh_core.engine.runtime import Rt
from coh_core.packs.model import Pack


def _outcome(pack: Pack, source: str, dry: bool, one_at_a_time: bool, loops: int = 0) -> tuple[object, ...]:
    """What running an effect unchecked block by block gives: its names, the loop bound left, what
    it raised; or running its instructions one at a time."""
    game = new_game(pack, 4, 1)
    program = compiler_for(pack).block(parse_effect(source), None, frozenset()).program
    program.direct = None  # the machine runs it, block by block
    assert program.blocks is not None
    if one_at_a_time:
        program.blocks = [_one_op(op, pc) for pc, op in enumerate(program.ops)]
    rt = Rt(game, {"me": game.players[0]}, game.players[0], dry)
    if loops:
        rt.loops = loops
    return run_outcome(program, rt)


_SOURCES = [
    "let xs = []; for a in range(1, 5) { if a > 2 { let xs = xs + [a] } else { let xs = xs + [0 - a] } }",
    "let x = 0; for a in range(1, 3) { if a > 1 { if a > 2 { let x = a } else { } } }",
    "let n = 0; while n < 5 { let n = n + 1; for a in [1, 2] { let n = n + a - a } }",
    "let x = 0; if x == 0 { let x = 1 } else { let x = 2 }; let y = x",
    "let x = 0; for a in range(1, 9) { let x = a; if a == 3 { return } }",
    "let x = 0; for a in range(1, 4) { let x = x + [10, 20][a] }",
    "for a in range(1, 6000) { for b in [1, 2] { no_effect() } }",
    "let xs = []; for a in range(1, 3) { let c = choose([a]); let xs = xs + [c] }",
    "for a in [1, 2] { let h = discard_pile() }",
]


@pytest.mark.parametrize("source", _SOURCES)
@pytest.mark.parametrize("dry", [False, True])
def test_a_quiet_statement_in_one_block_does_what_its_instructions_do(
    base_pack: Pack, source: str, dry: bool
) -> None:
    assert _outcome(base_pack, source, dry, one_at_a_time=False) == _outcome(
        base_pack, source, dry, one_at_a_time=True
    )


def test_the_loop_bound_stops_a_quiet_loop_where_it_stopped_before(base_pack: Pack) -> None:
    source = "let x = 0; for a in range(1, 50) { let x = x + 1 }"
    quiet = _outcome(base_pack, source, False, one_at_a_time=False, loops=10)
    assert quiet == _outcome(base_pack, source, False, one_at_a_time=True, loops=10)
    assert quiet[2] == "ENGINE-LIMIT"
    assert isinstance(quiet[0], dict)
    assert (quiet[0]["x"], quiet[0]["a"]) == (10, 10)


@pytest.mark.parametrize(
    "source",
    [
        "let x = 0; for a in range(1, 9) { if a > 1 { let x = x + a } else { let x = 0 - a } }",
        "for a in [1] { let n = 0; while n < 5 { let n = n + 1 } }",
        "for a in [1, 2] { let h = discard_pile() }",
    ],
)
def test_a_quiet_statement_is_one_block_call(base_pack: Pack, source: str) -> None:
    game = new_game(base_pack, 4, 1)
    program = compiler_for(base_pack).block(parse_effect(source), None, frozenset()).program
    program.direct = None
    blocks = program.blocks
    assert blocks is not None
    calls: list[int] = []

    def counted(pc: int) -> object:
        def block(*args: object) -> object:
            calls.append(pc)
            return blocks[pc](*args)

        return block

    program.blocks = [counted(pc) for pc in range(len(blocks))]
    rt = Rt(game, {"me": game.players[0]}, game.players[0])
    run_sync(program, rt, rt.env)
    assert calls == [0]

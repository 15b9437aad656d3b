"""The machine that runs programs: a running program's place is data that can be saved and loaded."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from coh_core.effects.parser import parse_effect
from coh_core.engine import compiler_for, new_game, rules_for
from coh_core.engine.compiler import Compiler
from coh_core.engine.game import Game
from coh_core.engine.library import IMPLS
from coh_core.engine.machine import (
    Frame,
    NativeFrame,
    NotSaveable,
    Program,
    execute,
    frames_from_json,
    frames_to_json,
)
from coh_core.engine.rules import build_rules
from coh_core.engine.runtime import Decision, EngineError, Rt
from coh_core.packs.effects_index import symbols_of
from coh_core.packs.model import Pack

# Questions inside loops inside a test, with names bound before, inside and after them.
EFFECT = """\
let total = 0
for place in locations() {
  if zombies(place) < 8 {
    let n = choose_number(0, 2)
    add_zombies(n, at=place)
    let total = total + n
  }
}
let k = 0
while k < 2 {
  let k = k + 1
  kill_zombies(choose_number(0, k), at=choose(locations()))
}
let centre = first(locations())
let pair = ask(first(colours_in_play()), [[centre, a] for a in locations() if a != centre],
               question=marker, answer=marker)
move_zombies(1, from=pair[0], to=pair[1])
add_zombies(1, at=ask(first(colours_in_play()), locations(), question=marker, answer=marker))
"""


def _program(pack: Pack, source: str) -> tuple[Program, dict[str, Program]]:
    compiler = Compiler(IMPLS, symbols_of(pack).refs)
    block = compiler.block(parse_effect(source), None, frozenset())
    return block.program, compiler.programs


def _start(game: Game, program: Program) -> tuple[list[Any], Any]:
    frames: list[Any] = [Frame(program, Rt(game, {}, game.players[0]), {}, None)]
    return frames, execute(frames)


def _answer(frames: list[Any], asked: Decision, rng: random.Random) -> tuple[Any, Any]:
    """Pick an answer at random and give it; returns the answer and the next question."""
    [(colour, options)] = asked.options.items()
    choice = rng.choice(options)
    top = frames[-1]
    top.program.ops[top.pc - 1].resume(top, {colour: choice})
    return choice, execute(frames)


@pytest.mark.parametrize("seed", range(8))
def test_a_program_saved_at_any_question_goes_on_as_the_original(base_pack: Pack, seed: int) -> None:
    game = new_game(base_pack, 4, seed)
    program, programs = _program(base_pack, EFFECT)
    frames, asked = _start(game, program)
    rng = random.Random(seed)
    saves = []
    answers: list[Any] = []
    while asked is not None:
        saves.append(
            (frames_to_json(frames), json.loads(json.dumps(game.state)), len(answers), len(game.log))
        )
        answer, asked = _answer(frames, asked, rng)
        answers.append(answer)
    assert len(saves) >= 6  # it did stop inside the `for`, inside the `if`, in the `while` and at `ask`
    assert any(len(a) == 3 for a in answers)  # an option that is a list is spread in the answer
    for saved, state, done, logged in saves:
        copy = new_game(base_pack, 4, seed)  # the same game, at its first decision of setup
        copy.state, copy.log = state, []  # this effect reads only locations and their zombies
        loaded = frames_from_json(json.loads(json.dumps(saved)), programs, copy)
        asked = execute(loaded)  # the instruction that asked asks again
        for answer in answers[done:]:
            [(colour, _)] = asked.options.items()
            top = loaded[-1]
            top.program.ops[top.pc - 1].resume(top, {colour: answer})
            asked = execute(loaded)
        assert asked is None
        assert copy.state == game.state
        assert copy.log == game.log[logged:]


def test_program_ids_are_the_same_on_every_load_and_name_one_program_each(base_pack: Pack) -> None:
    first = rules_for(base_pack).programs
    again = compiler_for(base_pack)
    second = build_rules(base_pack, again).programs
    assert sorted(first) == sorted(second)
    assert len(first) == len({id(p) for p in first.values()})
    assert all(ident == program.id for ident, program in first.items())


def test_engine_code_in_python_cannot_be_saved(base_pack: Pack) -> None:
    game = new_game(base_pack, 4, 1)
    with pytest.raises(NotSaveable) as raised:
        frames_to_json([NativeFrame(iter(()), None, Rt(game, {}, None))])  # type: ignore[arg-type]
    assert raised.value.code == "GAME-NOT-SAVEABLE"


def test_a_frame_of_a_program_the_pack_lacks_is_refused(base_pack: Pack) -> None:
    game = new_game(base_pack, 4, 1)
    program, programs = _program(base_pack, EFFECT)
    frames, _ = _start(game, program)
    saved = frames_to_json(frames)
    saved["frames"][0]["program"] = "nowhere:1"
    with pytest.raises(EngineError) as raised:
        frames_from_json(saved, programs, game)
    assert raised.value.code == "GAME-PROGRAM" and "nowhere:1" in raised.value.message

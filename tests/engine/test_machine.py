"""The machine that runs programs: a running program's place is data that can be saved and loaded."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from coh_core.effects.parser import parse_effect
from coh_core.engine import compiler_for, new_game, rules_for
from coh_core.engine.game import Game
from coh_core.engine.machine import (
    Frame,
    Program,
    execute,
    frames_from_json,
    frames_to_json,
    resume,
)
from coh_core.engine.rules import build_rules
from coh_core.engine.runtime import Decision, EngineError, Rt
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
    compiler = compiler_for(pack)  # the built-in primitives and the pack's verbs (`add_zombies`...)
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
            (frames_to_json(frames), json.loads(json.dumps(game.state)), len(answers), len(game.log), asked)
        )
        answer, asked = _answer(frames, asked, rng)
        answers.append(answer)
    assert len(saves) >= 6  # it did stop inside the `for`, inside the `if`, in the `while` and at `ask`
    assert any(len(a) == 3 for a in answers)  # an option that is a list is spread in the answer
    for saved, state, done, logged, question in saves:
        copy = new_game(base_pack, 4, seed)  # the same game, at its first decision of setup
        copy.state, copy.log = state, []  # this effect reads only locations and their zombies
        loaded = frames_from_json(json.loads(json.dumps(saved)), programs, copy)
        asked = question  # the question the saved frames wait on
        for answer in answers[done:]:
            [(colour, _)] = asked.options.items()
            resume(loaded, {colour: answer})
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


def test_a_frame_of_a_program_the_pack_lacks_is_refused(base_pack: Pack) -> None:
    game = new_game(base_pack, 4, 1)
    program, programs = _program(base_pack, EFFECT)
    frames, _ = _start(game, program)
    saved = frames_to_json(frames)
    saved["frames"][0]["program"] = "nowhere:1"
    with pytest.raises(EngineError) as raised:
        frames_from_json(saved, programs, game)
    assert raised.value.code == "GAME-PROGRAM" and "nowhere:1" in raised.value.message


# A map grows while the program asks: saved as JSON between two questions, it loads equal.
MAP_EFFECT = """\
let added = {}
for place in locations() {
  let added = added + {place: choose_number(0, 2)}
}
let doubled = {p: added[p] * 2 for p in locations() if added[p] > 0}
for place in locations() { if place in doubled { add_zombies(doubled[place], at=place) } }
"""


def test_a_map_in_a_running_program_saves_as_json_and_loads_equal(base_pack: Pack) -> None:
    game = new_game(base_pack, 4, 1)
    program, programs = _program(base_pack, MAP_EFFECT)
    frames, asked = _start(game, program)
    rng = random.Random(1)
    for _ in range(3):
        _, asked = _answer(frames, asked, rng)
    saved = json.loads(json.dumps(frames_to_json(frames)))
    original = frames[-1].env
    added = original["added"]
    assert len(added) == 3
    assert [env["added"] for env in saved["envs"]] == [added]
    assert [list(env["added"]) for env in saved["envs"]] == [list(added)]  # in the same order
    copy = new_game(base_pack, 4, 1)
    copy.state, copy.log = json.loads(json.dumps(game.state)), []
    loaded = frames_from_json(saved, programs, copy)
    names = loaded[-1].env
    again = asked  # the question the saved frames wait on
    while asked is not None:
        answer, asked = _answer(frames, asked, rng)
        [(colour, _)] = again.options.items()
        resume(loaded, {colour: answer})
        again = execute(loaded)
    assert again is None
    assert copy.state == game.state
    assert names["doubled"] == original["doubled"] and names["doubled"]


# Players answering at once: each among their own options (one with a lone option is not
# asked, one with none is left out), twice, the second time among pairs.
EACH_EFFECT = """\
let players = colours_in_play()
let lone = first(players)
let none = players[1]
let others = {p: locations() for p in players if p != lone and p != none}
let picks = ask_each(others + {lone: [first(locations())], none: []}, question=marker, answer=marker)
for p in keys(picks) { add_zombies(1, at=picks[p]) }
let centre = first(locations())
let pairs = ask_each({p: [[centre, at] for at in locations() if at != centre] for p in players},
                     question=marker, answer=marker)
for p in keys(pairs) { move_zombies(1, from=pairs[p][0], to=pairs[p][1]) }
"""


def _answer_all(frames: list[Any], asked: Decision, rng: random.Random) -> tuple[dict[str, Any], Any]:
    answers = {colour: rng.choice(options) for colour, options in asked.options.items()}
    resume(frames, answers)
    return answers, execute(frames)


def test_players_asked_at_once_answer_among_their_own_options_and_save_between(base_pack: Pack) -> None:
    game = new_game(base_pack, 4, 2)
    program, programs = _program(base_pack, EACH_EFFECT)
    frames, asked = _start(game, program)
    players = [c for c in game.state["cycles"]["leader"] if c in game.players]
    lone, none = players[0], players[1]
    assert asked is not None and sorted(asked.options) == sorted(players[2:])  # the others are not asked
    rng = random.Random(2)
    saved = (frames_to_json(frames), json.loads(json.dumps(game.state)))
    first_answers, asked = _answer_all(frames, asked, rng)
    picks = frames[-1].env["picks"]
    assert list(picks) == [*players[2:], lone] and none not in picks  # in the options' order
    assert picks[lone] == game.state["order"][0]  # its lone option, taken without asking
    assert all(picks[p] == first_answers[p][1] for p in players[2:])
    assert asked is not None and sorted(asked.options) == sorted(players)
    second_answers, asked = _answer_all(frames, asked, rng)
    assert asked is None
    assert all(len(action) == 3 for action in second_answers.values())  # pairs are spread in answers
    frames_saved, state = saved
    copy = new_game(base_pack, 4, 2)
    copy.state, copy.log = state, []
    loaded = frames_from_json(frames_saved, programs, copy)
    resume(loaded, first_answers)
    assert execute(loaded) is not None
    resume(loaded, second_answers)
    assert execute(loaded) is None
    assert copy.state == game.state

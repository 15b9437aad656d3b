"""`random_item`, `shuffle` and `roll` draw from the game's generator as the engine's Python did; a dry
run (is a card playable?) draws nothing."""

from __future__ import annotations

from typing import Any

import pytest

from coh_core.effects.parser import parse_effect
from coh_core.engine import compiler_for, new_game
from coh_core.engine.machine import run_sync
from coh_core.engine.rng import Rng
from coh_core.engine.runtime import EngineError, NoOptions, Rt
from coh_core.packs.model import Pack


def _run(pack: Pack, source: str, dry: bool = False) -> tuple[Any, int, int]:
    """The value of `x`, and the generator's state before and after."""
    program = compiler_for(pack).block(parse_effect(source), None, frozenset()).program
    game = new_game(pack, 4, 1)
    before = game.rng.state
    env: dict[str, Any] = {}
    run_sync(program, Rt(game, env, None, dry=dry), env)
    return env["x"], before, game.rng.state


def test_random_item_and_shuffle_draw_as_choice_and_shuffle_do(base_pack: Pack) -> None:
    value, before, after = _run(base_pack, "let x = [random_item(locations()), shuffle(locations())]")
    rng = Rng.from_state(before)
    order = ["water_tower", "church", "hospital", "armory", "bank", "crossroads"]
    first = rng.choice(order)
    shuffled = list(order)
    rng.shuffle(shuffled)
    assert value == [first, shuffled] and rng.state == after


def test_a_dry_run_draws_nothing(base_pack: Pack) -> None:
    value, before, after = _run(
        base_pack, "let x = [random_item(locations())] + shuffle(locations())", dry=True
    )
    assert before == after and value[0] == value[1] == "water_tower"


def test_a_random_item_of_nothing_stops_the_effect(base_pack: Pack) -> None:
    with pytest.raises(NoOptions):
        _run(base_pack, "let x = random_item([l for l in locations() if zombies(l) > 100])")


def test_roll_draws_each_die_from_the_generator(base_pack: Pack) -> None:
    value, before, after = _run(base_pack, "let x = [roll(4), roll(3, sides=20), roll(0)]")
    rng = Rng.from_state(before)
    sixes = [rng.randbelow(6) + 1 for _ in range(4)]
    twenties = [rng.randbelow(20) + 1 for _ in range(3)]
    assert value == [sixes, twenties, []] and rng.state == after


def test_roll_gives_every_face_and_no_other(base_pack: Pack) -> None:
    value, _, _ = _run(base_pack, "let x = roll(600)")
    assert set(value) == {1, 2, 3, 4, 5, 6}


def test_a_dry_run_rolls_nothing(base_pack: Pack) -> None:
    value, before, after = _run(base_pack, "let x = roll(3, sides=8)", dry=True)
    assert before == after and value == [1, 1, 1]


def test_a_die_of_no_sides_stops_the_effect(base_pack: Pack) -> None:
    with pytest.raises(NoOptions):
        _run(base_pack, "let x = roll(2, sides=0)")


def test_more_dice_than_a_list_holds_are_refused_before_drawing(base_pack: Pack) -> None:
    with pytest.raises(EngineError) as raised:
        _run(base_pack, "let x = roll(10001)")
    assert raised.value.code == "ENGINE-LIMIT" and "10,001 dice" in raised.value.message

"""`random_item` and `shuffle` draw from the game's generator as the engine's Python did; a dry
run (is a card playable?) draws nothing."""

from __future__ import annotations

from typing import Any

import pytest

from coh_core.effects.parser import parse_effect
from coh_core.engine import compiler_for, new_game
from coh_core.engine.machine import run_sync
from coh_core.engine.rng import Rng
from coh_core.engine.runtime import NoOptions, Rt
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

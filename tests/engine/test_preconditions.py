"""Preconditions derived from effects (`Compiler.precondition`) decide as the dry runs would.

A card or power whose first verb checks something no choice changes (the Geek moves zombies
from its own place: none there, nothing to move, wherever they would go) is refused without
exploring its choices; one whose check reads a chosen value (the Shotgun's target) has none.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.effects.parser import parse_effect
from coh_core.engine import compiler_for, new_game, rules_for
from coh_core.engine.compile.model import CompiledBlock
from coh_core.engine.flow import in_window
from coh_core.engine.game import Game
from coh_core.engine.rules import Playable, Rules
from coh_core.engine.runtime import NoOptions
from coh_core.packs.model import Pack


def _blocks(rules: Rules) -> Iterator[CompiledBlock]:
    playables = [*rules.cards.values(), *rules.powers.values()]
    playables += [side.activation for side in rules.sides.values() if side.activation is not None]
    for playable in playables:
        yield from (block for block in (playable.cost, playable.effect) if block is not None)


@pytest.mark.parametrize(
    ("kind", "ident", "part", "derived"),
    [
        ("power", "geek", "effect", True),  # move_zombies needs zombies where the geek stands
        ("power", "rocker", "effect", True),  # the same, chosen destination after
        # checks no choice comes before: a failing dry run stops there anyway
        ("power", "guard_and_rex", "effect", False),  # kill_zombies needs zombies here
        ("power", "businessman", "cost", False),  # discard_cards requires cards before asking which
        ("card", "shotgun", "effect", False),  # kill_zombies' check reads the chosen location
        ("power", "thief", "effect", False),  # the check reads the chosen victim's hand
        ("power", "grandpa", "effect", False),  # set_trait checks nothing
    ],
)
def test_derived_where_the_check_reads_no_choice(
    base_pack: Pack, kind: str, ident: str, part: str, derived: bool
) -> None:
    rules = rules_for(base_pack)
    playable = (rules.cards if kind == "card" else rules.powers)[ident]
    block = getattr(playable, part)
    assert (block.pre is not None) is derived


def _offers_with_and_without(game: Game) -> tuple[list[list[object]], list[list[object]]]:
    """Every seated player's offers in the current window, with the preconditions and without."""
    env = game.frames[-1].env
    windows, names = tuple(env["windows"]), env["names"]
    blocks = list(_blocks(game.rules))
    saved = [block.pre for block in blocks]
    with_pre = [game.offers(p, windows, names) for p in game.turn_order()]
    try:
        for block in blocks:
            block.pre = None
        without = [game.offers(p, windows, names) for p in game.turn_order()]
    finally:
        for block, pre in zip(blocks, saved, strict=True):
            block.pre = pre
    return with_pre, without


def test_preconditions_decide_as_the_dry_runs_do(base_pack: Pack) -> None:
    refused = 0
    compared = 0
    blocks = list(_blocks(rules_for(base_pack)))
    originals = {id(block): block.pre for block in blocks}

    def counting(pre: object) -> object:
        def run(rt: object) -> None:
            nonlocal refused
            try:
                pre(rt)  # type: ignore[operator]
            except NoOptions:
                refused += 1
                raise

        return run

    for block in blocks:
        if block.pre is not None:
            block.pre = counting(block.pre)  # type: ignore[assignment]
    try:
        for seed in range(12):
            game = new_game(base_pack, players=4, seed=seed)
            agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(game.players)}
            while not game.over:
                if in_window(game.frames):
                    with_pre, without = _offers_with_and_without(game)
                    assert with_pre == without, f"seed {seed}, turn {game.state['turn']}"
                    compared += 1
                decision = game.decision
                assert decision is not None
                for colour in decision.waiting:
                    game.submit(colour, ask(game, agents[colour], colour))
    finally:
        for block in blocks:
            block.pre = originals[id(block)]  # type: ignore[assignment]
    assert compared > 1000
    assert refused > 50  # the preconditions did refuse something: the comparison is not idle


@pytest.mark.parametrize(
    ("cost", "could"),
    [
        ("let n = choose([0, 1])", True),  # paying with 1 lets the effect happen
        ("let n = choose([0, -1])", False),  # no way of paying does
    ],
)
def test_an_effect_that_reads_a_name_its_cost_binds_is_explored_with_the_cost(
    base_pack: Pack, cost: str, could: bool
) -> None:
    compiler = compiler_for(base_pack)
    playable = Playable(
        "test",
        "anytime",
        None,
        compiler.block(parse_effect(cost), None, frozenset({"me"})),
        compiler.block(parse_effect("needs(n > 0)"), None, frozenset({"me", "n"})),
    )
    game = new_game(base_pack, players=4, seed=1)
    me = game.players[0]
    assert game._could(playable, {"me": me}, me) is could

"""A round window passes over a player without asking `window_options` (flow's `_WindowAsk`) when
they hold no card the window takes, no rested character whose power it takes, and, with a gift
left, no card and no item to give: at every decision of played games, such a player would be
offered nothing but a pass, with a gift left or without."""

from __future__ import annotations

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game
from coh_core.engine.game import PASS, Game
from coh_core.engine.machine import Frame
from coh_core.packs.model import Pack


def _passed_over(game: Game, player: str, windows: tuple[str, ...], giving: bool) -> bool:
    """The round window's test, as `_WindowAsk` makes it (`giving`: the player has a gift left)."""
    kinds, characters = game.rules.usable_in(windows)
    pile = game.rules.hand_pile
    hand = game.state["piles"][pile][player] if pile is not None else []
    if kinds & set(hand) or characters & set(game._rested_by_player().get(player, ())):
        return False
    if not giving:
        return True
    held = game.state["counts"][player]
    return not hand and not any(held[kind] for _, kind in game._items)


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_a_player_passed_over_is_offered_only_a_pass(base_pack: Pack, players: int, seed: int) -> None:
    game = new_game(base_pack, players=players, seed=seed)
    agents = {c: RandomAgent(seed=seed * 100 + i) for i, c in enumerate(game.players)}
    checked = offered = 0
    while not game.over:
        assert game.decision is not None
        top = game.frames[-1]
        if isinstance(top, Frame) and top.env.get("mode") == "round":
            windows = tuple(top.env["windows"])
            seated = game._seated()
            for player in seated:
                for giving in (True, False):
                    options = game.window_options(
                        player, windows, top.env["names"], seated if giving else None
                    )
                    if _passed_over(game, player, windows, giving):
                        assert options == [PASS], (player, giving, options)
                        checked += 1
                    offered += len(options) > 1
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    assert checked > 10 and offered > 10  # both kinds of player were met

"""The living, rested characters per player that windows look through for powers are kept
between decisions: at every decision of a played game they are what the pieces say."""

from __future__ import annotations

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game
from coh_core.engine.game import Game
from coh_core.packs.model import Pack


def _from_pieces(game: Game) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for character, ch in game.pieces.items():
        if ch["alive"] and not ch["exhausted"]:
            found.setdefault(ch["owner"], []).append(character)
    return found


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (6, 3)])
def test_rested_characters_follow_exhausts_rests_and_deaths(base_pack: Pack, players: int, seed: int) -> None:
    game = new_game(base_pack, players=players, seed=seed)
    agents = {c: RandomAgent(seed=seed * 100 + i) for i, c in enumerate(game.players)}
    changes = 0
    before = _from_pieces(game)
    while not game.over:
        assert game.decision is not None
        now = _from_pieces(game)
        assert game._rested_by_player() == now
        changes += now != before
        before = now
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    assert changes > 5  # characters were exhausted, rested or died along the way

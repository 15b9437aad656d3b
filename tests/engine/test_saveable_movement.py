"""The procedures of movement, invasion and activation are pack code: at each of their questions the
game is saved as JSON, and loaded it goes on as the original does (`tests/engine/test_position.py`
plays 4-player games; these are of every size, and load every rarer question of these procedures)."""

from __future__ import annotations

from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import Game, new_game, rules_for
from coh_core.packs.model import Pack

# The questions the ported procedures put: the movement cards chosen together, the characters' move,
# the windows before and during it, the cancel of a move, a location's activation (and a movement card
# picked again by the Teen's power: `change_movement_card`).
KINDS = frozenset({"movement_card", "move", "before_own_move", "own_move", "cancel_move", "activate"})
RARE = frozenset({"own_move", "cancel_move"})
GAMES = [(3, 1), (3, 2), (4, 3), (5, 4), (5, 5), (6, 6), (6, 7)]


def _play(game: Game, seed: int) -> tuple[list[tuple[int, str, dict[str, Any]]], list[tuple[str, Any]]]:
    """Play to the end; the saves made at the questions of KINDS, and every answer given."""
    agents = {c: RandomAgent(seed * 1000 + i) for i, c in enumerate(game.players)}
    saves: list[tuple[int, str, dict[str, Any]]] = []
    answers: list[tuple[str, Any]] = []
    while game.decision is not None:
        decision = game.decision
        if decision.kind in KINDS:
            saves.append((len(answers), decision.kind, game.to_json()))
        for colour in decision.waiting:
            answer = ask(game, agents[colour], colour)
            game.submit(colour, answer)
            answers.append((colour, answer))
    return saves, answers


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_a_game_saved_at_a_question_of_movement_goes_on_as_the_original(
    base_pack: Pack, players: int, seed: int
) -> None:
    game = new_game(base_pack, players, seed)
    saves, answers = _play(game, seed)
    assert {"movement_card", "move", "before_own_move", "activate"} <= {kind for _, kind, _ in saves}
    checked = saves[:: max(1, len(saves) // 4)] + [save for save in saves if save[1] in RARE]
    for done, kind, doc in checked:
        loaded = Game.from_json(rules_for(base_pack), doc)
        assert loaded.decision is not None and loaded.decision.kind == kind
        for colour, answer in answers[done:]:
            loaded.submit(colour, answer)
        assert loaded.over and loaded.digest() == game.digest() and loaded.log == game.log

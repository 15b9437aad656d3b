"""The questions the shipped house rules ask are asked by pack code: a game saved at any of them
loads and goes on as the original."""

from __future__ import annotations

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game, rules_for
from coh_core.engine.game import Game
from coh_core.engine.runtime import Action
from coh_core.packs import load_pack_checked

# Each house rule and the questions of its own that it asks.
KINDS = {
    "hunger": frozenset({"hunger", "hunger_exhaust"}),
    "auction-sharing": frozenset({"bid", "claim"}),
    "rescue-helicopter": frozenset({"helicopter"}),
}
MOST_GAMES = 60  # random games played until every question has been asked (hunger's choice: first in game 50)


@pytest.mark.parametrize("overlay", sorted(KINDS))
def test_a_game_saved_at_a_question_of_a_house_rule_goes_on_as_the_original(overlay: str) -> None:
    pack = load_pack_checked(None, [overlay])
    rules = rules_for(pack)
    asked: set[str] = set()
    for seed in range(MOST_GAMES):
        game = new_game(pack, players=3 + seed % 4, seed=seed)
        agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(game.players)}
        answers: list[tuple[str, Action]] = []
        saves: list[tuple[int, dict[str, object]]] = []
        while game.decision is not None:
            decision = game.decision
            if decision.kind in KINDS[overlay]:
                saves.append((len(answers), game.to_json()))
                asked.add(decision.kind)
            for colour in decision.waiting:
                action = ask(game, agents[colour], colour)
                game.submit(colour, action)
                answers.append((colour, action))
        for index, (done, doc) in enumerate(saves):
            loaded = Game.from_json(rules, doc)
            assert loaded.to_json() == doc
            if index % 5 == 0 or index == len(saves) - 1:
                for colour, action in answers[done:]:
                    loaded.submit(colour, action)
                assert loaded.over and loaded.digest() == game.digest() and loaded.log == game.log
        if asked == KINDS[overlay]:
            return
    pytest.fail(f"{MOST_GAMES} games under {overlay} never asked {sorted(KINDS[overlay] - asked)}")

"""The questions of setup and the end of the game (procedures-setup.yaml) are asked by pack code:
a game saved at any of them loads and goes on as the original, under every overlay that changes
those procedures and with every number of players."""

from __future__ import annotations

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game, rules_for
from coh_core.engine.game import Game
from coh_core.engine.runtime import Action
from coh_core.packs import load_pack_checked

# The decisions the procedures of setup and the end put (place_characters, the draft of
# deal_action_cards, pay_antidotes, the scoring window of score_game).
KINDS = frozenset({"place", "draft", "unvaccinated", "scoring"})
GAMES = [
    ((), 3, 1),
    ((), 4, 2),
    ((), 5, 3),
    ((), 6, 4),
    (("expert-draft",), 3, 5),
    (("expert-draft",), 5, 6),
    (("placement-clockwise",), 4, 7),
    (("rulebook-fr",), 4, 8),
]


@pytest.mark.parametrize(("overlays", "players", "seed"), GAMES)
def test_a_game_saved_at_a_question_of_setup_or_the_end_goes_on_as_the_original(
    overlays: tuple[str, ...], players: int, seed: int
) -> None:
    pack = load_pack_checked(None, list(overlays))
    rules = rules_for(pack)
    game = new_game(pack, players=players, seed=seed)
    agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(game.players)}
    answers: list[tuple[str, Action]] = []
    saves: list[tuple[int, dict[str, object]]] = []
    while game.decision is not None:
        decision = game.decision
        if decision.kind in KINDS:
            saves.append((len(answers), game.to_json()))
        for colour in decision.waiting:
            action = ask(game, agents[colour], colour)
            game.submit(colour, action)
            answers.append((colour, action))
    kinds = {doc["decision"]["kind"] for _, doc in saves}  # type: ignore[index]
    assert "place" in kinds and ("draft" in kinds) == ("expert-draft" in overlays)
    for index, (done, doc) in enumerate(saves):
        loaded = Game.from_json(rules, doc)
        assert loaded.to_json() == doc
        if index % 7 == 0 or index == len(saves) - 1:
            for colour, action in answers[done:]:
                loaded.submit(colour, action)
            assert loaded.over and loaded.digest() == game.digest() and loaded.log == game.log

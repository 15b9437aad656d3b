"""The attack, the votes and the sharing are pack code (procedures-votes.yaml): a game stopped at
one of their questions is data (`Game.to_json`), loaded without replaying the game, under other
numbers of players and the French rules (the other tie and sharing rules) too."""

from __future__ import annotations

from typing import Any

import pytest

from coh_core.engine import new_game, rules_for
from coh_core.engine.game import Game
from coh_core.engine.rng import Rng
from coh_core.packs import load_pack_checked

# The questions the pack's procedures ask.
PORTED = frozenset({"vote", "vote_for", "break_tie", "victim", "share"})


def _play(game: Game, answers: list[tuple[str, Any]]) -> None:
    for colour, action in answers:
        game.submit(colour, action)
    assert game.over


def _answers_of(game: Game, seed: int) -> tuple[list[tuple[str, Any]], list[tuple[int, dict[str, Any]]]]:
    """Play to the end at random; the answers given, and a save at every ported question."""
    rng = Rng(seed)
    answers: list[tuple[str, Any]] = []
    saves: list[tuple[int, dict[str, Any]]] = []
    while not game.over:
        decision = game.decision
        assert decision is not None
        if decision.kind in PORTED:
            saves.append((len(answers), game.to_json()))
        for colour in sorted(decision.waiting):
            options = decision.options[colour]
            answers.append((colour, options[rng.randbelow(len(options))]))
            game.submit(*answers[-1])
    return answers, saves


@pytest.mark.parametrize(
    ("rules", "players", "seed"),
    [((), 4, 1), ((), 3, 2), ((), 5, 3), ((), 6, 4), (("rulebook-fr",), 4, 5), (("rulebook-fr",), 5, 6)],
)
def test_a_game_saved_at_a_question_of_the_votes_goes_on_as_the_original(
    rules: tuple[str, ...], players: int, seed: int
) -> None:
    pack = load_pack_checked(rules=rules)
    game = new_game(pack, players, seed)
    answers, saves = _answers_of(game, seed)
    assert saves  # the game asked the pack's questions
    for done, saved in saves[:: max(1, len(saves) // 6)]:
        loaded = Game.from_json(rules_for(pack), saved)
        assert loaded.decision is not None and loaded.decision.kind in PORTED
        _play(loaded, answers[done:])
        assert loaded.digest() == game.digest() and loaded.log == game.log

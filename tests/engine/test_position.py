"""A game's position is data: saved as JSON at a decision, loaded, or forked, it goes on exactly
as the original does with the same answers."""

from __future__ import annotations

import random
from typing import Any

import pytest
from long_runs import spread

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game, rules_for
from coh_core.engine.game import Game
from coh_core.engine.runtime import Action, EngineError
from coh_core.packs.model import Pack

GAMES = range(20)

Answer = tuple[str, Action]


Played = tuple[Game, list[Answer], list[tuple[int, dict[str, Any]]]]
_PLAYED: dict[tuple[int, int], Played] = {}


def _play(pack: Pack, seed: int) -> Played:
    """A game of random players to its end: its answers in order, and a save at each decision
    (with how many answers came before it). Played once per test session."""
    key = (id(pack), seed)
    if key not in _PLAYED:
        _PLAYED[key] = _played(pack, seed)
    return _PLAYED[key]


def _played(pack: Pack, seed: int) -> Played:
    game = new_game(pack, players=4, seed=seed)
    agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(game.players)}
    answers: list[Answer] = []
    saves: list[tuple[int, dict[str, Any]]] = []
    while game.decision is not None:
        decision = game.decision
        saves.append((len(answers), game.to_json()))
        for colour in decision.waiting:
            action = ask(game, agents[colour], colour)
            game.submit(colour, action)
            answers.append((colour, action))
    return game, answers, saves


def _finish(game: Game, answers: list[Answer]) -> Game:
    for colour, action in answers:
        game.submit(colour, action)
    assert game.over
    return game


def _same_game(copy: Game, original: Game) -> None:
    assert copy.digest() == original.digest()
    assert copy.log == original.log
    assert copy.history == original.history
    assert copy.state["result"] == original.state["result"]


@pytest.mark.parametrize("seed", spread(GAMES, every=10))
def test_a_game_saved_at_a_decision_loads_and_goes_on_as_the_original(base_pack: Pack, seed: int) -> None:
    rules = rules_for(base_pack)
    original, answers, saves = _play(base_pack, seed)
    assert saves, "no decision of the game could be saved"
    for index, (done, doc) in enumerate(saves):
        loaded = Game.from_json(rules, doc)
        assert loaded.to_json() == doc  # nothing is lost or changed by a round trip
        if index % 10 == 0 or index == len(saves) - 1:
            _same_game(_finish(loaded, answers[done:]), original)


@pytest.mark.soak
@pytest.mark.parametrize("seed", spread(GAMES, every=5))
def test_every_saved_decision_goes_on_as_the_original(base_pack: Pack, seed: int) -> None:
    rules = rules_for(base_pack)
    original, answers, saves = _play(base_pack, seed)
    for done, doc in saves:
        _same_game(_finish(Game.from_json(rules, doc), answers[done:]), original)


@pytest.mark.parametrize("seed", spread(GAMES, every=5))
def test_a_fork_at_a_random_decision_plays_on_as_the_original_with_the_same_answers(
    base_pack: Pack, seed: int
) -> None:
    original, answers, saves = _play(base_pack, seed)
    done, doc = random.Random(seed).choice(saves)
    game = Game.from_json(rules_for(base_pack), doc)
    fork = game.fork()
    _finish(game, answers[done:])
    assert fork.decision is not None and not fork.over  # answering the game left its fork where it was
    _same_game(_finish(fork, answers[done:]), original)


def test_a_saved_decision_keeps_the_answers_already_given(base_pack: Pack) -> None:
    """A decision put to several players at once, saved after some of them answered."""
    game = new_game(base_pack, players=4, seed=3)
    agents = {c: RandomAgent(seed=i) for i, c in enumerate(game.players)}
    while game.decision is not None:
        decision = game.decision
        if len(decision.waiting) > 1:
            first = decision.waiting[0]
            game.submit(first, ask(game, agents[first], first))
            loaded = Game.from_json(rules_for(base_pack), game.to_json())
            assert loaded.decision is not None and loaded.decision.waiting == decision.waiting
            assert loaded.decision.answers == decision.answers
            return
        for colour in decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    pytest.fail("the game put no decision to several players at once")


@pytest.mark.parametrize("version", [4, None, "5"])
def test_a_position_of_another_state_layout_is_refused_with_its_version(
    base_pack: Pack, version: Any
) -> None:
    saved = new_game(base_pack, players=3, seed=1).to_json()
    saved["state"]["version"] = version
    with pytest.raises(EngineError) as refused:
        Game.from_json(rules_for(base_pack), saved)
    assert refused.value.code == "GAME-VERSION" and repr(version) in refused.value.message

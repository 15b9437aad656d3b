"""The attack, the votes and the sharing are pack code (procedures-votes.yaml): a game stopped at
one of their questions is frames of data, saved and loaded without replaying the game."""

from __future__ import annotations

import json
from typing import Any

import pytest

from coh_core.engine import new_game
from coh_core.engine.game import Game
from coh_core.engine.machine import execute, frames_from_json, frames_to_json
from coh_core.engine.rng import Rng
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack

# The questions the pack's procedures ask (the secret ballot is Python until `ask_each`).
PORTED = frozenset({"victim", "break_tie", "share"})


def _save(game: Game) -> dict[str, Any]:
    """Everything a game holds at a decision, as JSON: the machine's frames and the rest."""
    game.state["rng"] = game.rng.state
    doc = {
        "frames": frames_to_json(game.frames),
        "state": game.state,
        "log": game.log,
        "history": game.history,
        "after": game.after,
        "fired": game.fired,
        "depth": game.depth,
        "pending": game.pending,
        "pending_count": game._pending_count,
    }
    copy: dict[str, Any] = json.loads(json.dumps(doc))
    return copy


def _load(pack: Pack, players: int, doc: dict[str, Any]) -> Game:
    """A game of the same pack put where the save says (a new game's own position is dropped)."""
    game = new_game(pack, players, 0)
    game.state = doc["state"]
    game.rng = Rng.from_state(int(doc["state"]["rng"]))
    game.log, game.history = doc["log"], doc["history"]
    game.after, game.fired, game.depth = doc["after"], doc["fired"], doc["depth"]
    game.pending, game._pending_count = doc["pending"], doc["pending_count"]
    game._living_key, game._order_key = -1, None
    game.frames = frames_from_json(doc["frames"], game.rules.programs, game)
    game.decision = execute(game.frames)  # the instruction that asked asks again
    return game


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
            saves.append((len(answers), _save(game)))
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
        loaded = _load(pack, players, saved)
        assert loaded.decision is not None and loaded.decision.kind in PORTED
        _play(loaded, answers[done:])
        assert loaded.digest() == game.digest()

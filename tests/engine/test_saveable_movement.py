"""The procedures of movement, invasion and activation are pack code: at each of their questions the
game's place in them is frames of data, saved as JSON and loaded onto a copy that goes on as the
original does."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.engine import Game, new_game
from coh_core.engine.machine import execute, frames_from_json, frames_to_json
from coh_core.engine.rng import Rng
from coh_core.packs.model import Pack

# The questions the ported procedures put: the characters' move, the windows before and during it,
# the cancel of a move.
KINDS = frozenset({"move", "before_own_move", "own_move", "cancel_move"})
RARE = frozenset({"own_move", "cancel_move"})
GAMES = [(4, seed) for seed in range(6)] + [(3, 6), (5, 7), (6, 8)]


def _snapshot(game: Game) -> dict[str, Any]:
    """The game at a question: its frames as JSON, and what the game holds besides them."""
    return {
        "frames": json.loads(json.dumps(frames_to_json(game.frames))),
        "state": copy.deepcopy(game.state),
        "log": copy.deepcopy(game.log),
        "rng": game.rng.state,
        "after": copy.deepcopy(game.after),
        "fired": list(game.fired),
        "depth": game.depth,
        "pending": copy.deepcopy(game.pending),
        "pending_count": game._pending_count,
    }


def _load(pack: Pack, players: int, seed: int, saved: dict[str, Any]) -> Game:
    """Another game of the same pack, set to the saved place: it asks the saved question again."""
    game = new_game(pack, players, seed + 1000)  # any game: all it holds is replaced below
    game.state, game.log = copy.deepcopy(saved["state"]), copy.deepcopy(saved["log"])
    game.rng = Rng.from_state(saved["rng"])
    game.after, game.fired, game.depth = copy.deepcopy(saved["after"]), list(saved["fired"]), saved["depth"]
    game.pending, game._pending_count = copy.deepcopy(saved["pending"]), saved["pending_count"]
    game._living_key, game._order_key = -1, None
    # the loaded frames hold the saved document's names and loops: a copy, as each load is
    game.frames = frames_from_json(copy.deepcopy(saved["frames"]), game.rules.programs, game)
    game.decision = execute(game.frames)
    return game


def _play(game: Game, seed: int) -> tuple[list[tuple[int, str, dict[str, Any]]], list[dict[str, Any]]]:
    """Play to the end; the saves made at the questions of KINDS, and every answer given."""
    agents = {c: RandomAgent(seed * 1000 + i) for i, c in enumerate(game.players)}
    saves: list[tuple[int, str, dict[str, Any]]] = []
    answers: list[dict[str, Any]] = []
    while not game.over:
        decision = game.decision
        assert decision is not None
        if decision.kind in KINDS:
            assert not any(frame.native for frame in game.frames), decision.kind
            saves.append((len(answers), decision.kind, _snapshot(game)))
        given = {c: decision.legal(c) for c in decision.waiting}
        chosen = {c: agents[c].act(game.view(c), legal) for c, legal in given.items()}
        answers.append(chosen)
        for colour, answer in chosen.items():
            game.submit(colour, answer)
    return saves, answers


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_a_game_saved_at_a_question_of_movement_goes_on_as_the_original(
    base_pack: Pack, players: int, seed: int
) -> None:
    game = new_game(base_pack, players, seed)
    saves, answers = _play(game, seed)
    assert {"move", "before_own_move"} <= {kind for _, kind, _ in saves}
    # every question of the rarer kinds, and some of the others
    rare = [save for save in saves if save[1] in RARE]
    for done, kind, saved in saves[:: max(1, len(saves) // 6)] + rare:
        loaded = _load(base_pack, players, seed, saved)
        assert loaded.decision is not None and loaded.decision.kind == kind
        for chosen in answers[done:]:
            for colour, answer in chosen.items():
                loaded.submit(colour, answer)
        assert loaded.over
        assert loaded.digest() == game.digest()

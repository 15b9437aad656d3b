#!/usr/bin/env python3
"""What a step of the research environments costs, against the engine's own decision, side by side.

An environment step should cost at most twice the engine's decision, on the same games. Each
round plays the same seeded 4-player games of the base pack (`--games`) several ways:

- `pettingzoo`: `raw_env`'s `last()` (the observation vector and the mask) and `step(id)`, the
  id drawn at random among the mask's legal ids (ascending) with a generator seeded by the game;
- `engine`: the same games, answer for answer, through the engine alone: `game.legal(colour)`
  (what any agent reads) and `game.submit(colour, action)` of the answer the environment's game
  was given (recorded in an untimed game first; choosing costs nothing here);
- `engine+ids`: the same through the action space (`legal_ids`, `submit_id`);
- `openspiel`: `legal_actions()` and `apply_action(id)` of `python_coh`, drawing as `pettingzoo`
  does, with an observation tensor of the player to move written at each step (what an agent
  reads);
- `vector`: the batched runner (`coh_core.rl.vector.VectorTables`) with as many games at once,
  stepped until that many have ended (its decisions: steps times games; the games dealt again
  after an end are played too, so its games/s counts only the games ended).

An engine that drew its own answers would play other games than the environments (the legal
answers come in another order than their ids), and a game's decisions do not all cost the same:
only the same games make a fair ratio.

Printed: microseconds per decision for each, the best of `--rounds` rounds (after one untimed
game of each), and each one's ratio to `engine`. Needs `pip install '.[rl]'`.

    python tools/bench_env.py --games 10 --rounds 3
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from typing import Any

SEEDS_FROM = 1


Moves = list[list[tuple[str, Any]]]  # per game, each (seat, answer) in the order given


def _engine(moves: Moves, by_id: bool) -> tuple[int, float]:
    """The recorded games answer for answer: the engine's part of each of the environment's steps."""
    from coh_core import load_ruleset
    from coh_core.engine import new_game

    pack = load_ruleset()
    decisions, spent = 0, 0.0
    for seed, game_moves in enumerate(moves, start=SEEDS_FROM):
        game = new_game(pack, players=4, seed=seed)
        ids = [game.space.id_of(action) for _colour, action in game_moves] if by_id else []
        start = time.perf_counter()
        for index, (colour, action) in enumerate(game_moves):
            if by_id:
                game.legal_ids(colour)
                game.submit_id(colour, ids[index])
            else:
                game.legal(colour)
                game.submit(colour, action)
        spent += time.perf_counter() - start
        decisions += len(game_moves)
        assert game.over, "the recorded game did not end where the environment's did"
    return decisions, spent


def _recorded(games: int) -> Moves:
    """Each (seat, answer) of the environment's games, in the order the environment gave them."""
    moves: Moves = []
    _pettingzoo(games, record=moves)
    return moves


def _pettingzoo(games: int, record: Moves | None = None) -> tuple[int, float]:
    import numpy as np

    from coh_core.engine.rng import Rng
    from coh_core.rl.pettingzoo import raw_env

    env = raw_env(players=4)
    decisions, spent = 0, 0.0
    for seed in range(SEEDS_FROM, SEEDS_FROM + games):
        env.reset(seed=seed)
        rng = Rng(seed)
        game_moves: list[tuple[str, Any]] = []
        start = time.perf_counter()
        while env.agents:
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            ident = int(legal[rng.randbelow(len(legal))])
            if record is not None:  # (an untimed game: the cost of the copy is not the step's)
                game = env.seats.game
                assert game is not None
                game_moves.append((env.agent_selection, game.space.action(ident)))
            env.step(ident)
            decisions += 1
        spent += time.perf_counter() - start
        if record is not None:
            record.append(game_moves)
    return decisions, spent


def _openspiel(games: int) -> tuple[int, float]:
    import pyspiel

    import coh_core.rl.openspiel  # noqa: F401  (registers python_coh)
    from coh_core.engine.rng import Rng

    decisions, spent = 0, 0.0
    for seed in range(SEEDS_FROM, SEEDS_FROM + games):
        state = pyspiel.load_game("python_coh", {"players": 4, "seed": seed}).new_initial_state()
        rng = Rng(seed)
        start = time.perf_counter()
        while not state.is_terminal():
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randbelow(len(legal))])
            decisions += 1
        spent += time.perf_counter() - start
    return decisions, spent


def _vector(games: int) -> tuple[int, float]:
    import numpy as np

    from coh_core.engine.rng import Rng
    from coh_core.rl.vector import VectorTables

    tables = VectorTables(games, players=4, seed=SEEDS_FROM)
    rng = Rng(SEEDS_FROM)
    decisions = 0
    start = time.perf_counter()
    _observations, masks, _seats = tables.reset()
    while tables.finished < games:
        actions = []
        for row in masks:
            legal = np.flatnonzero(row)
            actions.append(int(legal[rng.randbelow(len(legal))]))
        _observations, masks, _seats, _rewards, _dones = tables.step(actions)
        decisions += games
    return decisions, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    moves = _recorded(args.games)
    ways: dict[str, Callable[[int], tuple[int, float]]] = {
        "engine": lambda n: _engine(moves[:n], by_id=False),
        "engine+ids": lambda n: _engine(moves[:n], by_id=True),
        "pettingzoo": _pettingzoo,
        "openspiel": _openspiel,
        "vector": _vector,
    }
    for way in ways.values():
        way(1)  # (warm: packs loaded, rules compiled, caches filled, before any timing)
    best: dict[str, float] = {}
    counted: dict[str, int] = {}
    for _round in range(args.rounds):
        for name, way in ways.items():  # (side by side: each round runs every way once)
            decisions, spent = way(args.games)
            counted[name] = decisions
            best[name] = min(best.get(name, float("inf")), spent / decisions)
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"{args.games} games of 4 seats, best of {args.rounds} rounds")
    for name, per in best.items():
        ratio = per / best["engine"]
        rate = args.games / (per * counted[name])
        print(
            f"{name:12} {per * 1e6:8.1f} us a decision  ({counted[name]} decisions)  x{ratio:.2f}"
            f"  {rate:6.1f} games/s"
        )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What a step of the research environments costs, against the engine's own decision, side by side.

Issue 29 asks that an environment step cost at most twice the engine's decision. Each round plays
the same seeded 4-player games of the base pack (`--games`) four ways, each answering at random
among the legal answers with the same generator:

- `engine`: `game.legal(colour)` and `game.submit(colour, action)`, as `bench_play.py`'s agents do;
- `engine+ids`: the same through the action space (`legal_ids`, `submit_id`);
- `pettingzoo`: `raw_env`'s `last()` (the observation vector and the mask) and `step(id)`;
- `openspiel`: `legal_actions()` and `apply_action(id)` of `python_coh`, with an observation
  tensor of the player to move written at each step (what an agent reads);
- `vector`: the batched runner (`coh_core.rl.vector.VectorTables`) with as many games at once,
  stepped until that many have ended (its decisions: steps times games; the games dealt again
  after an end are played too, so its games/s counts only the games ended).

Printed: microseconds per decision for each, the best of `--rounds` rounds (after one untimed
game of each), and each one's ratio to `engine`. Needs `pip install '.[rl]'`.

    python tools/bench_env.py --games 10 --rounds 3
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

SEEDS_FROM = 1


def _engine(games: int, by_id: bool) -> tuple[int, float]:
    from coh_core import load_ruleset
    from coh_core.engine import new_game
    from coh_core.engine.rng import Rng

    pack = load_ruleset()
    decisions, spent = 0, 0.0
    for seed in range(SEEDS_FROM, SEEDS_FROM + games):
        game = new_game(pack, players=4, seed=seed)
        rng = Rng(seed)
        start = time.perf_counter()
        while not game.over:
            for colour in game.waiting:
                if by_id:
                    ids = game.legal_ids(colour)
                    game.submit_id(colour, ids[rng.randbelow(len(ids))])
                else:
                    legal = game.legal(colour)
                    game.submit(colour, legal[rng.randbelow(len(legal))])
                decisions += 1
        spent += time.perf_counter() - start
    return decisions, spent


def _pettingzoo(games: int) -> tuple[int, float]:
    import numpy as np

    from coh_core.engine.rng import Rng
    from coh_core.rl.pettingzoo import raw_env

    env = raw_env(players=4)
    decisions, spent = 0, 0.0
    for seed in range(SEEDS_FROM, SEEDS_FROM + games):
        env.reset(seed=seed)
        rng = Rng(seed)
        start = time.perf_counter()
        while env.agents:
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.randbelow(len(legal))]))
            decisions += 1
        spent += time.perf_counter() - start
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
    ways: dict[str, Callable[[int], tuple[int, float]]] = {
        "engine": lambda n: _engine(n, by_id=False),
        "engine+ids": lambda n: _engine(n, by_id=True),
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

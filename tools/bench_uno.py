#!/usr/bin/env python3
"""Reference benchmark: RLCard's UNO environment with random agents, full games on one core.

Runs in its own virtual environment (it needs `rlcard`, which the project does not depend on):

    python3 -m venv /tmp/rl && /tmp/rl/bin/pip install rlcard      # RLCard 1.2.0 + numpy
    /tmp/rl/bin/python tools/bench_uno.py --seconds 20 --core 0

`tools/bench_play.py` starts it as a subprocess and reads the one JSON line it prints.

What is measured: `env.run(is_training=False)` from start to end, i.e. everything RLCard does for a
full game -- dealing (`reset`), the agent call for every turn, `env.step` (action decoding, the game
step, the numpy state encoding of the next player's observation and its legal-action dict), the final
observations of all players and the payoffs. `rlcard.make` and agent construction are outside the
timing; a few warm-up games are played first and not counted.

What a decision is: `Env.run` calls `agents[player_id].eval_step(state)` exactly once per turn of the
loop, and every call is followed by one `env.step`. The agents here count their `eval_step` calls; the
count is checked against `len(env.action_recorder)` (one entry per `env.step`, reset with each game).
RLCard calls the agent even when the only legal action is `draw`; those calls are counted as
decisions and also reported separately as `forced_decisions`.

Note: RLCard's UNO is a two-player game (its `game_num_players` setting is not applied for UNO and
its payoffs assume two players), so these are two-player games.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

import numpy as np
import rlcard
from rlcard.agents import RandomAgent


class CountingRandomAgent(RandomAgent):  # type: ignore[misc]
    """RLCard's RandomAgent, counting each decision it is asked for."""

    def __init__(self, num_actions: int) -> None:
        super().__init__(num_actions=num_actions)
        self.calls = 0
        self.forced = 0

    def eval_step(self, state: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.calls += 1
        if len(state["legal_actions"]) == 1:
            self.forced += 1
        return super().eval_step(state)  # type: ignore[no-any-return]


def _pin(core: int | None) -> list[int] | None:
    """Pin this process to one core where the OS allows it; return the resulting affinity."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    if core is not None:
        os.sched_setaffinity(0, {core})
    return sorted(os.sched_getaffinity(0))


def _play(env: Any, games: int | None, seconds: float | None) -> tuple[int, int, float, float]:
    """Play full games until `games` are done or `seconds` have passed; return games, steps, wall, cpu."""
    played = steps = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds if seconds is not None else None
    while True:
        env.run(is_training=False)
        played += 1
        steps += len(env.action_recorder)
        if games is not None and played >= games:
            break
        if deadline is not None and time.perf_counter() >= deadline:
            break
    return played, steps, time.perf_counter() - wall0, time.process_time() - cpu0


def run(games: int | None, seconds: float | None, seed: int, warmup: int) -> dict[str, Any]:
    np.random.seed(seed)  # RLCard's RandomAgent draws from numpy's global generator
    env = rlcard.make("uno", config={"seed": seed})
    agents = [CountingRandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)]
    env.set_agents(agents)
    _play(env, warmup, None)
    for agent in agents:
        agent.calls = agent.forced = 0
    played, steps, wall, cpu = _play(env, games, seconds)
    decisions = sum(agent.calls for agent in agents)
    if decisions != steps:
        sys.exit(f"decision count mismatch: {decisions} agent calls but {steps} env steps")
    return {
        "bench": "rlcard-uno-random",
        "games": played,
        "players": env.num_players,
        "decisions": decisions,
        "forced_decisions": sum(agent.forced for agent in agents),
        "seconds": round(wall, 4),
        "cpu_seconds": round(cpu, 4),
        "games_per_s": round(played / wall, 2),
        "decisions_per_s": round(decisions / wall, 1),
        "decisions_per_game": round(decisions / played, 2),
        "seed": seed,
        "warmup_games": warmup,
        "rlcard": rlcard.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this wall time (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=20, help="untimed games played first")
    parser.add_argument("--core", type=int, default=None, help="pin to this core (default: leave as is)")
    args = parser.parse_args()
    if args.games is None and args.seconds is None:
        args.seconds = 10.0
    affinity = _pin(args.core)
    result = run(args.games, args.seconds, args.seed, args.warmup)
    result["affinity"] = affinity
    print(json.dumps(result))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What a mid-game fork costs, against playing 20 decisions, measured side by side in one run.

Forking a game in the middle (`Game.fork`) must cost less than playing 20
decisions, so that search bots can copy positions freely. For each of `--games` seeded
4-player games of the base pack, random agents play to a decision in the middle of the game
that can be saved; there the benchmark times `--repeat` forks, and `--repeat` runs of the next
20 decisions (each on a fresh fork, which is not timed; the agents' choices are timed, as in
`bench_play.py`, and agents are asked as `coh_core.agents.runner.ask` asks them: no view for the
random agent, which reads none). It also times `to_json` and `from_json` (a save and a load):
the load of a document handed over (`copy=False`, as a table loads what it just read from its
file or store: each load is given a fresh document, made untimed), and the load that copies the
document it is given first (the default, for a document its caller keeps).
Printed: the median time of each per position, and the ratios fork / 20 decisions and
(save + load) / 20 decisions (target of each: below 1; the load handed over), then
(save + copying load) / 20 decisions.

    python tools/bench_fork.py --games 20 --repeat 50
"""

from __future__ import annotations

import argparse
import copy
import functools
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

DECISIONS = 20


def _submit_round(game: Any, agents: dict[str, Any]) -> int:
    """Every player asked answers; returns how many answered (each answer is a decision)."""
    from coh_core.agents.runner import ask

    # asked as the runner asks: no view (a drawn world, dearer than a decision) for an agent that
    # reads none, so that "20 decisions" times the engine's play and not world draws
    waiting = game.decision.waiting
    for colour in waiting:
        game.submit(colour, ask(game, agents[colour], colour))
    return len(waiting)


def _middle(ruleset: Any, seed: int) -> tuple[Any, dict[str, Any]] | None:
    """A game played by random agents to its first decision past its middle."""
    from coh_core.agents import RandomAgent
    from coh_core.engine import new_game

    probe = new_game(ruleset, players=4, seed=seed)
    agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(probe.players)}
    total = 0
    while not probe.over:
        total += _submit_round(probe, agents)
    game = new_game(ruleset, players=4, seed=seed)
    agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(game.players)}
    done = 0
    while not game.over:
        if done >= total // 2:
            return game, agents
        done += _submit_round(game, agents)
    return None


def _timed(action: Callable[[], Any], setup: Callable[[], Any] | None, repeat: int) -> float:
    """The median time of `action` (given what `setup` returns, untimed), in seconds."""
    times = []
    for _ in range(repeat):
        given = setup() if setup is not None else None
        start = time.perf_counter()
        action() if given is None else action(given)  # type: ignore[call-arg]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _fresh_copy(game: Any, agents: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """A fork of the position, with agents in the same state as the original's."""
    return game.fork(), copy.deepcopy(agents)


def _play_decisions(pair: tuple[Any, dict[str, Any]]) -> None:
    game, agents = pair
    played = 0
    while played < DECISIONS and not game.over:
        played += _submit_round(game, agents)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()

    from coh_core import load_ruleset
    from coh_core.engine import rules_for
    from coh_core.engine.game import Game

    ruleset = load_ruleset()
    rules = rules_for(ruleset)
    forks, plays, saves, loads, copying = [], [], [], [], []
    for seed in range(args.games):
        found = _middle(ruleset, seed)
        if found is None:
            continue
        game, agents = found
        forks.append(_timed(game.fork, None, args.repeat))
        fresh = functools.partial(_fresh_copy, game, agents)
        plays.append(_timed(_play_decisions, fresh, args.repeat))
        saves.append(_timed(game.to_json, None, args.repeat))
        handed = functools.partial(Game.from_json, rules, copy=False)
        loads.append(_timed(handed, game.to_json, args.repeat))
        copying.append(_timed(functools.partial(Game.from_json, rules, game.to_json()), None, args.repeat))
    fork, play = statistics.median(forks), statistics.median(plays)
    save, load, copied = statistics.median(saves), statistics.median(loads), statistics.median(copying)
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"positions: {len(forks)} mid-game decisions, {args.repeat} timings each (medians)")
    print(f"fork:            {fork * 1e3:8.3f} ms")
    print(f"{DECISIONS} decisions:    {play * 1e3:8.3f} ms")
    print(f"save (to_json):  {save * 1e3:8.3f} ms")
    print(f"load (from_json, the document handed over):{load * 1e3:8.3f} ms")
    print(f"load (from_json, copying the document):    {copied * 1e3:8.3f} ms")
    verdict = "PASS" if fork < play else "MISS"
    print(f"fork / {DECISIONS} decisions: {fork / play:.2f} (target < 1: {verdict})")
    verdict = "PASS" if save + load < play else "MISS"
    print(f"(save + load) / {DECISIONS} decisions: {(save + load) / play:.2f} (target < 1: {verdict})")
    print(f"(save + copying load) / {DECISIONS} decisions: {(save + copied) / play:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

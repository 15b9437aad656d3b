#!/usr/bin/env python3
"""Two checkouts of coh side by side: the same random 4-player games, rounds alternating.

What a change costs the engine, measured as a ratio in one run: each round plays `--games` full
games of the base pack with seeded random answers in one checkout, then in the other, each in
a fresh interpreter whose `coh_core` is that checkout's (`PYTHONPATH`), pinned to the same core,
timed with the process's CPU time (another process on the machine moves it much less than the
wall clock). Untimed warm-up games come first. Both checkouts must play the same games: the
decisions counted must be equal, else the figures compare different work and the tool says so
(exit 1).

    git worktree add /tmp/before HEAD~1
    python tools/bench_checkouts.py /tmp/before . --games 300 --rounds 7

Prints per checkout the median CPU seconds, games/s and decisions/s, and the ratio of the
second's time to the first's (above 1: the second is slower).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

_ROUND = """
import json, random, sys, time
from coh_core.engine import new_game
from coh_core.packs import load_pack_checked

pack = load_pack_checked()


def play(seed):
    rng = random.Random(seed)
    game = new_game(pack, players=4, seed=seed)
    answered = 0
    while not game.over:
        decision = game.decision
        for colour in list(decision.waiting):
            game.submit(colour, rng.choice(decision.legal(colour)))
            answered += 1
    return answered


games, warmup = int(sys.argv[1]), int(sys.argv[2])
for seed in range(warmup):
    play(1_000_000 + seed)
start = time.process_time()
decisions = sum(play(seed) for seed in range(games))
print(json.dumps({"seconds": time.process_time() - start, "decisions": decisions}))
"""


def _round(checkout: Path, games: int, warmup: int, core: int | None) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(checkout.resolve()), COH_NO_CACHE="1")
    command = [sys.executable, "-c", _ROUND, str(games), str(warmup)]
    if core is not None and hasattr(os, "sched_setaffinity"):
        command = ["taskset", "-c", str(core), *command]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="a checkout of coh (the reference)")
    parser.add_argument("second", type=Path, help="another checkout (the change)")
    parser.add_argument("--games", type=int, default=300, help="games per round and checkout")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--core", type=int, default=None, help="core to pin both to (default: none)")
    args = parser.parse_args()
    times: dict[Path, list[float]] = {args.first: [], args.second: []}
    decisions: dict[Path, set[float]] = {args.first: set(), args.second: set()}
    for _ in range(args.rounds):
        for checkout in (args.first, args.second):
            found = _round(checkout, args.games, args.warmup, args.core)
            times[checkout].append(found["seconds"])
            decisions[checkout].add(found["decisions"])
    if decisions[args.first] != decisions[args.second] or len(decisions[args.first]) != 1:
        print(f"the checkouts played different games: decisions {decisions}", file=sys.stderr)
        return 1
    answered = decisions[args.first].pop()
    for checkout, seconds in times.items():
        median = statistics.median(seconds)
        print(
            f"{checkout}: median {median:.3f} s CPU for {args.games} games"
            f" ({args.games / median:.1f} games/s, {answered / median:,.0f} decisions/s);"
            f" rounds {', '.join(f'{s:.3f}' for s in seconds)}"
        )
    ratio = statistics.median(times[args.second]) / statistics.median(times[args.first])
    print(f"second / first: {ratio:.3f}x the time ({int(answered):,} decisions per round in both)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What a game of expert bots costs: all-expert games timed in CPU seconds, on one or two builds.

Each game (4 players of the base pack by default, every seat the expert bot at the given budget)
is played in a fresh interpreter and timed in that process's CPU seconds, from the first decision
to the end (the pack's loading is not timed). With `--python`, the interpreter of a venv where
the compiled build is installed (`COH_COMPILE=1 pip install .`), each seed is played on both
builds, in turn: on that installed package, and on this checkout's sources with the same
interpreter (pure Python). Each game's digest is printed beside its time: the two builds must
play the same game, and the tool stops if they do not.

    python tools/bench_expert.py --seeds 2 3                      # this checkout only
    python tools/bench_expert.py --python /tmp/coh-c/bin/python --seeds 2 3 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# The child: one all-expert game, timed by its own CPU clock. argv: players, seed, iterations.
_CHILD = """
import json, sys, time
from coh_core.agents import make_bot
from coh_core.agents.runner import ask
from coh_core.build_info import build_kind
from coh_core.engine import new_game
from coh_core.packs import load_game
players, seed, iterations = (int(value) for value in sys.argv[1:4])
pack = load_game("base")
game = new_game(pack, players=players, seed=seed)
seats = enumerate(game.players)
bots = {c: make_bot("expert", seed * 10 + i, pack, expert_iterations=iterations) for i, c in seats}
start = time.process_time()
while not game.over:
    for colour in game.decision.waiting:
        game.submit(colour, ask(game, bots[colour], colour))
cpu = time.process_time() - start
found = {"cpu": cpu, "digest": game.digest(), "decisions": len(game.history), "build": build_kind()}
print(json.dumps(found))
"""


def play(python: str, pure: bool, players: int, seed: int, iterations: int) -> dict[str, Any]:
    """One game in a fresh interpreter: its CPU seconds, digest, decisions and build."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if pure:
        env["PYTHONPATH"] = str(ROOT)
    command = [python, "-c", _CHILD, str(players), str(seed), str(iterations)]
    # (run outside the checkout: `python -c` puts the working directory first on the path)
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, check=False, cwd=tempfile.gettempdir()
    )
    if done.returncode != 0:
        sys.exit(f"bench_expert: the game of seed {seed} failed ({done.returncode}):\n{done.stderr}")
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", help="the interpreter of a venv with the compiled build installed")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seeds", type=int, nargs="+", default=[2])
    parser.add_argument("--iterations", type=int, default=None, help="the expert's budget (default: its own)")
    parser.add_argument("--rounds", type=int, default=1, help="times each game is played on each build")
    args = parser.parse_args()
    from coh_core.agents.expert import DEFAULT_ITERATIONS

    iterations = args.iterations or DEFAULT_ITERATIONS
    sides = [("pure", sys.executable, True)]
    if args.python:
        sides = [("compiled", args.python, False), ("pure", args.python, True)]
    times: dict[str, list[float]] = {name: [] for name, _, _ in sides}
    print(f"{args.players} expert bots, {iterations} iterations a searched decision; CPU seconds a game")
    for seed in args.seeds:
        for round_ in range(args.rounds):
            order = sides if round_ % 2 == 0 else sides[::-1]
            digests = set()
            for name, python, pure in order:
                found = play(python, pure, args.players, seed, iterations)
                if name == "compiled" and found["build"] != "compiled (mypyc)":
                    sys.exit(f"bench_expert: {python} has no compiled build installed ({found['build']})")
                digests.add(found["digest"])
                times[name].append(found["cpu"])
                played = f"{found['decisions']} decisions  {found['digest']}"
                print(f"seed {seed:>3} {name:<9} {found['cpu']:7.2f} s  {played}")
            if len(digests) > 1:
                sys.exit(f"bench_expert: the builds played different games for seed {seed}")
    for name, found in times.items():
        print(f"{name:<9} median {statistics.median(found):.2f} s a game ({len(found)} games)")
    if args.python:
        ratio = statistics.median(times["pure"]) / statistics.median(times["compiled"])
        print(f"compiled: {ratio:.2f}x as fast as pure Python")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

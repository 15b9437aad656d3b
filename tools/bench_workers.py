#!/usr/bin/env python3
"""Workers benchmark: `coh simulate` games per second with `--workers 1` and `--workers 2`.

Each run is a fresh process, timed wall-clock, the worker counts interleaved (1, 2, 1, 2...) so
that a change in the machine's load touches both alike. Two figures per count: the whole command
(start, pack check, games, statistics, report and plots), and its games alone (a fresh process
that checks the pack as the command does, then times only `coh_core.sim.run.simulate`). With
each, the processor time of every process involved (the workers' too): on a machine shared with
other jobs, a second worker may get no more processor time than the first, and the wall-clock
ratio then measures the load; the processor time says what the work itself cost.

    pip install '.[sim]'
    python tools/bench_workers.py --games 100 --runs 3
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The games alone, as `coh simulate` plays them: its pack checked first, then timed.
_GAMES_ONLY = """
import resource, sys, time
from coh_core.packs import load_pack_checked
from coh_core.sim.games import Variant
from coh_core.sim.run import simulate
def cpu():
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in used)
games, workers = int(sys.argv[1]), int(sys.argv[2])
packs = {(None, ()): load_pack_checked()}
start, used = time.perf_counter(), cpu()
simulate([Variant("base", (), 4)], games, workers=workers, progress=False, packs=packs)
print(time.perf_counter() - start, cpu() - used)
"""


def _cpu() -> float:
    """CPU seconds of the finished child processes (and of theirs: the workers)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _command(coh: str, games: int, workers: int, out: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of the whole command."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run(
        [coh, "simulate", "--games", str(games), "--workers", str(workers), "--no-progress",
         "--format", "json", "--out", out],
        capture_output=True, check=True, cwd="/tmp",
    )  # fmt: skip
    return time.perf_counter() - start, _cpu() - cpu


def _games_only(games: int, workers: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds of the games alone (with their statistics)."""
    done = subprocess.run(
        [sys.executable, "-c", _GAMES_ONLY, str(games), str(workers)],
        capture_output=True, text=True, check=True, cwd="/tmp",
    )  # fmt: skip
    wall, used = done.stdout.split()[-2:]
    return float(wall), float(used)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    coh = shutil.which("coh")
    if coh is None:
        sys.exit("needs `coh` on PATH: pip install -e '.[sim]'")
    whole: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}
    alone: dict[int, list[float]] = {1: [], 2: []}
    alone_cpu: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.runs):
            for workers in (1, 2):
                wall, used = _command(coh, args.games, workers, out)
                whole[workers].append(wall)
                cpu[workers].append(used)
                wall, used = _games_only(args.games, workers)
                alone[workers].append(wall)
                alone_cpu[workers].append(used)
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}; "
        f"{args.games} games of 4 heuristic bots, {args.runs} runs each (median)"
    )
    print("| measured | `--workers 1` | `--workers 2` | 2 workers / 1 |")
    print("|---|---|---|---|")
    for label, timings in (("`coh simulate`, whole command", whole), ("its games alone", alone)):
        one, two = (args.games / statistics.median(timings[w]) for w in (1, 2))
        print(f"| {label} | {one:.1f} games/s | {two:.1f} games/s | {two / one:.2f}x |")
    one_cpu, two_cpu = (statistics.median(cpu[w]) for w in (1, 2))
    print(f"| CPU time of the whole command | {one_cpu:.1f} s | {two_cpu:.1f} s | {two_cpu / one_cpu:.2f}x |")
    games_one, games_two = (statistics.median(alone_cpu[w]) for w in (1, 2))
    print(
        f"| CPU time of its games alone | {games_one:.1f} s | {games_two:.1f} s"
        f" | {games_two / games_one:.2f}x |"
    )
    # On two free cores, two workers at best halve the games' processor time: the games alone
    # could then reach this (an estimate from processor time, which a shared machine inflates too).
    print(
        f"(from the CPU times, on 2 free cores its games alone could reach {2 * games_one / games_two:.2f}x)"
    )


if __name__ == "__main__":
    main()

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

`--timeline` instead runs the command once with each worker count and prints when each of its
phases starts and ends (the start, the imports, the pack check, the compile, the fork, each
worker's first and last game, the parent's import of the report's libraries, the last record
received, the statistics, each plot, the exit) with the processor time of its process then: what
is in series with the games and what leaves a core idle, which a shared machine does not hide.

    python tools/bench_workers.py --timeline --games 200
"""

from __future__ import annotations

import argparse
import atexit
import importlib.abc
import importlib.machinery
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

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


# --- the timeline: `coh simulate` run in a probe process that stamps each phase ---------------

_STAMPS = "COH_BENCH_TIMELINE"  # the file the probe appends its stamps to
_LAUNCHED = "COH_BENCH_LAUNCHED"  # when the probe process was started (epoch seconds)


def _stamp(label: str) -> None:
    """One line on the timeline: when, which process and thread, what, its CPU seconds so far."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    line = (
        f"{time.time():.6f}\t{os.getpid()}\t{threading.current_thread().name}\t{label}\t"
        f"{used.ru_utime + used.ru_stime:.4f}\t{used.ru_minflt}\n"
    )
    with open(os.environ[_STAMPS], "a", encoding="utf-8") as stamps:  # O_APPEND: one write per line
        stamps.write(line)


def _stamped(owner: Any, name: str, label: str) -> None:
    """`owner.name` replaced by the same function stamping its start and end (picklable by name)."""
    original = getattr(owner, name)

    def stamped(*args: Any, **kwargs: Any) -> Any:
        _stamp(f"{label} start")
        try:
            return original(*args, **kwargs)
        finally:
            _stamp(f"{label} end")

    for attribute in ("__name__", "__qualname__", "__module__"):
        setattr(stamped, attribute, getattr(original, attribute))
    setattr(owner, name, stamped)


# Modules the command imports late (their import is part of the timeline), and their functions
# stamped once they are imported.
_LATE = {
    "coh_core.sim.stats": ("summarize",),
    "coh_core.sim.report": ("plot_seats", "plot_characters", "plot_lengths", "write_report"),
}


class _LateImports(importlib.abc.MetaPathFinder):
    """Stamps the import of each of `_LATE`'s modules, then its functions."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if name not in _LATE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        assert spec is not None and isinstance(spec.loader, importlib.machinery.SourceFileLoader)
        execute = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            _stamp(f"import {name.rsplit('.', 1)[-1]} start")
            execute(module)
            _stamp(f"import {name.rsplit('.', 1)[-1]} end")
            for function in _LATE[name]:
                _stamped(module, function, function.replace("_", " "))

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _probe(games: str, workers: str, out: str) -> None:
    """`coh simulate` in this process, its phases stamped (the workers' games too)."""
    _stamp("interpreter up")
    sys.meta_path.insert(0, _LateImports())
    import coh_core.cli as cli
    import coh_core.sim.games as sim_games
    import coh_core.sim.run as sim_run

    _stamp("imports end")
    _stamped(cli, "_load_pack", "pack check")
    _stamped(sim_games, "rules_for", "compile")
    _stamped(sim_games, "_started", "fork done")
    _stamped(sim_run, "load_report_libraries", "meanwhile")
    _stamped(sim_games, "_collect", "records")
    play_task, first = sim_games.play_task, [True]

    def stamped_play_task(task: Any) -> Any:
        if first:
            first.clear()
            _stamp("first game start")
        try:
            return play_task(task)
        finally:
            _stamp("game end")

    for attribute in ("__name__", "__qualname__", "__module__"):
        setattr(stamped_play_task, attribute, getattr(play_task, attribute))
    sim_games.play_task = stamped_play_task
    parent = os.getpid()
    atexit.register(lambda: _stamp("exit") if os.getpid() == parent else None)
    args = ["simulate", "--games", games, "--workers", workers, "--no-progress", "--format", "json"]
    cli.main([*args, "--out", out], prog_name="coh")


def _timeline(games: int, workers: int, out: str) -> None:
    """Runs the probe once and prints its timeline, then where the cores were idle."""
    with tempfile.NamedTemporaryFile(suffix=".tsv") as stamps:
        env = {**os.environ, _STAMPS: stamps.name, _LAUNCHED: f"{time.time():.6f}"}
        launched, cpu = float(env[_LAUNCHED]), _cpu()
        subprocess.run(
            [sys.executable, __file__, "--probe", str(games), str(workers), out],
            stdout=subprocess.DEVNULL, check=True, cwd="/tmp", env=env,
        )  # fmt: skip
        ended, cpu = time.time(), _cpu() - cpu
        lines = [line.split("\t") for line in Path(stamps.name).read_text().splitlines()]
    parent = lines[0][1]
    pids = list(dict.fromkeys(pid for _, pid, *_ in lines))
    names = {pid: "parent" if pid == parent else f"worker {pids.index(pid)}" for pid in pids}
    print(f"\n## `coh simulate --games {games} --workers {workers}`: {ended - launched:.3f} s launch to end")
    print("| t (s) | process | thread | event | its CPU (s) | its minor faults |")
    print("|---:|---|---|---|---:|---:|")
    ends: dict[str, list[list[str]]] = {}
    for when, pid, thread, label, used, faults in lines:
        if label == "game end":  # one line per worker below, not one per game
            ends.setdefault(pid, []).append([when, used, faults])
            continue
        print(f"| {float(when) - launched:.3f} | {names[pid]} | {thread} | {label} | {used} | {faults} |")
    print(f"| {ended - launched:.3f} | parent | | gone (seen by the caller) | {cpu:.4f} (all) | |")
    last_ends = []
    for pid, played in ends.items():
        last_end, its_cpu = float(played[-1][0]) - launched, float(played[-1][1])
        last_ends.append(last_end)
        print(
            f"- {names[pid]}: {len(played)} games, the last ended at {last_end:.3f} s"
            f" (its CPU then {its_cpu:.3f} s, {played[-1][2]} minor faults)"
        )
    last_cpu = {pid: float(used) for _, pid, _, _, used, _ in lines}  # each process's at its last stamp
    others = sum(used for pid, used in last_cpu.items() if pid != parent)  # the workers', a plot's
    print(f"- CPU after the parent's last stamp (exit), to its end: {cpu - others - last_cpu[parent]:.3f} s")
    starts = [float(w) - launched for w, _, _, label, *_ in lines if label == "first game start"]
    print(
        f"- before the first game {min(starts):.3f} s; games {max(last_ends) - min(starts):.3f} s; "
        f"a worker idle at the end {max(last_ends) - min(last_ends):.3f} s; after the last game "
        f"{ended - launched - max(last_ends):.3f} s"
    )
    parent_cpu = {label: float(used) for _, pid, _, label, used, _ in lines if pid == parent}
    if "meanwhile start" in parent_cpu:  # forked workers: what the parent took from their cores
        playing = parent_cpu["records end"] - parent_cpu["meanwhile start"]
        imports = parent_cpu["meanwhile end"] - parent_cpu["meanwhile start"]
        print(
            f"- the parent's CPU while the workers played: {playing:.3f} s, of which at most"
            f" {imports:.3f} s while it imported the report's libraries"
        )


def main() -> None:
    if sys.argv[1:2] == ["--probe"]:
        _probe(*sys.argv[2:5])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeline", action="store_true", help="each phase's time, once per worker count")
    args = parser.parse_args()
    if args.timeline:
        with tempfile.TemporaryDirectory() as out:
            for workers in (1, 2):
                _timeline(args.games, workers, out)
        return
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

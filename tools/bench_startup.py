#!/usr/bin/env python3
"""Start-up benchmark: `coh --help` (and every command's `--help`) against a bare `python -c pass`.

Each run is a fresh process, timed wall-clock; the commands are interleaved (one run of each,
then again) so that a change in the machine's load touches them alike. Reports the median, the
best and the middle half (first to third quartile) of N runs, each command's median as a multiple
of the bare interpreter's, and the spread of that ratio run by run (each run against the bare
interpreter's run just before it): its quartiles and how many runs were within 5x; and the
median processor time against the bare interpreter's (less moved by other jobs than the clock).
`import click` is the floor every command line built on click pays.

    python tools/bench_startup.py --runs 21
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
import time

COMMANDS = ["validate", "list", "show", "i18n", "explain", "docs", "export", "play", "replay", "scenario",
            "simulate"]  # fmt: skip


# As a user runs it: the compiled modules (.pyc) written on the first run and read afterwards.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _cpu() -> float:
    """CPU seconds of the finished child processes."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _once(command: list[str], cpu: list[float] | None = None) -> float:
    """Wall-clock seconds of one fresh run (its CPU seconds appended to `cpu`)."""
    start, used = time.perf_counter(), _cpu()
    done = subprocess.run(command, capture_output=True, cwd="/tmp", env=ENV, check=False)
    elapsed = time.perf_counter() - start
    if cpu is not None:
        cpu.append(_cpu() - used)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--all", action="store_true", help="Every command's --help too, not only coh's.")
    args = parser.parse_args()
    coh = shutil.which("coh")
    if coh is None:
        sys.exit("needs `coh` on PATH: pip install -e .")
    commands: dict[str, list[str]] = {
        "`python -c pass`": [sys.executable, "-c", "pass"],
        "`python -c 'import click'`": [sys.executable, "-c", "import click"],
        "`coh --help`": [coh, "--help"],
    }
    if args.all:
        commands |= {f"`coh {name} --help`": [coh, name, "--help"] for name in COMMANDS}
    for command in commands.values():
        _once(command)  # warm the OS file cache (and the .pyc files) once
    timings: dict[str, list[float]] = {label: [] for label in commands}
    cpu: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(args.runs):
        for label, command in commands.items():
            timings[label].append(_once(command, cpu[label]))
    bare_runs = timings["`python -c pass`"]
    bare = statistics.median(bare_runs)
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}, {args.runs} runs each"
    )
    print(
        "| command | median | best | middle half | median / `python -c pass`"
        " | run by run: middle half | runs within 5x | CPU median / `python -c pass`'s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    bare_cpu = statistics.median(cpu["`python -c pass`"])
    for label, runs in timings.items():
        median = statistics.median(runs)
        low, _, high = _quartiles(runs)
        ratios = [run / bare_run for run, bare_run in zip(runs, bare_runs, strict=True)]
        ratio_low, _, ratio_high = _quartiles(ratios)
        within = sum(ratio <= 5 for ratio in ratios)
        print(
            f"| {label} | {median * 1000:.1f} ms | {min(runs) * 1000:.1f} ms"
            f" | {low * 1000:.1f}-{high * 1000:.1f} ms | {median / bare:.2f}x"
            f" | {ratio_low:.2f}-{ratio_high:.2f}x | {within}/{len(runs)}"
            f" | {statistics.median(cpu[label]) / bare_cpu:.2f}x |"
        )


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    """First quartile, median, third quartile."""
    low, middle, high = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return low, middle, high


if __name__ == "__main__":
    main()

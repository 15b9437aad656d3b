#!/usr/bin/env python3
"""Start-up benchmark: `coh --help` (and every command's `--help`) against a bare `python -c pass`.

Each run is a fresh process, timed wall-clock; the commands are interleaved (one run of each,
then again) so that a change in the machine's load touches them alike. Reports the median and
the best of N runs, and each command's median as a multiple of the bare interpreter's.

    python tools/bench_startup.py --runs 21
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

COMMANDS = ["validate", "list", "show", "i18n", "explain", "docs", "export", "play", "replay", "scenario",
            "simulate"]  # fmt: skip


# As a user runs it: the compiled modules (.pyc) written on the first run and read afterwards.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _once(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, cwd="/tmp", env=ENV, check=False)
    elapsed = time.perf_counter() - start
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
        "`coh --help`": [coh, "--help"],
    }
    if args.all:
        commands |= {f"`coh {name} --help`": [coh, name, "--help"] for name in COMMANDS}
    for command in commands.values():
        _once(command)  # warm the OS file cache (and the .pyc files) once
    timings: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(args.runs):
        for label, command in commands.items():
            timings[label].append(_once(command))
    bare = statistics.median(timings["`python -c pass`"])
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}, {args.runs} runs each"
    )
    print("| command | median | best | median / `python -c pass` |")
    print("|---|---|---|---|")
    for label, runs in timings.items():
        median = statistics.median(runs)
        print(f"| {label} | {median * 1000:.0f} ms | {min(runs) * 1000:.0f} ms | {median / bare:.1f}x |")


if __name__ == "__main__":
    main()

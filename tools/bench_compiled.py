#!/usr/bin/env python3
"""The compiled build (mypyc) against pure Python: self-play rounds of both, alternating, in one run.

Each round runs `tools/bench_play.py` twice with the interpreter that has the compiled build
installed (`COH_COMPILE=1 pip install .`): once on that installed package, once with this checkout's
sources first on the path (pure Python, the same dependencies); the order alternates from round
to round. Each run times its coh games and, when RLCard is at hand, UNO's in the same process pair,
so each side also gets its own ratio to UNO's decisions/s. The median of the rounds is printed.
`--clock cpu` times the coh games of each side in CPU seconds instead (no UNO): steadier where
the machine is shared.

    COH_COMPILE=1 /tmp/coh-c/bin/pip install .     # once: a compiled build in its own venv
    python tools/bench_compiled.py --python /tmp/coh-c/bin/python --games 300 --repeat 5
    python tools/bench_compiled.py --python /tmp/coh-c/bin/python --games 100 --repeat 8 --clock cpu
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
BENCH_PLAY = TOOLS / "bench_play.py"
SIDES = ("compiled", "pure")


def run_side(args: argparse.Namespace, side: str) -> dict[str, Any]:
    """One bench_play round for one side; its JSON report."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if side == "pure":
        env["PYTHONPATH"] = str(ROOT)
    command = [args.python, str(BENCH_PLAY), "--format", "json", "--repeat", "1"]
    command += ["--games", str(args.games), "--players", str(args.players), "--seed", str(args.seed)]
    command += ["--warmup", str(args.warmup)]
    if args.uno_python:
        command += ["--uno-python", args.uno_python]
    if args.core is not None:
        command += ["--core", str(args.core)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"bench_compiled: {' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


# The --clock cpu child: bench_play's own game loop, timed by this process's CPU time (what a
# machine shared with other work disturbs least). argv: tools directory, games, players, seed, warm-up.
_CPU_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from bench_play import load_engine, time_coh, warm_up
games, players, seed, warmup = (int(value) for value in sys.argv[2:6])
engine = load_engine()
warm_up(engine, players, warmup, seed + games)
start = time.process_time()
done = time_coh(engine, players, games, seed)
seconds = time.process_time() - start
print(json.dumps({"coh": {"median": {"decisions_per_s": done.decisions / seconds}}, "uno": None}))
"""


def run_cpu_side(args: argparse.Namespace, side: str) -> dict[str, Any]:
    """One round for one side timed in CPU seconds (no UNO); a report shaped like bench_play's."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if side == "pure":
        env["PYTHONPATH"] = str(ROOT)
    command = [args.python, "-P", "-c", _CPU_CHILD, str(TOOLS)]
    command += [str(args.games), str(args.players), str(args.seed), str(args.warmup)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"bench_compiled: the CPU-time round of {side} failed ({done.returncode}):\n{done.stderr}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def build_of(python: str, side: str) -> str:
    """What `coh_core.build_info` says for that side (the compiled side must say compiled)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if side == "pure":
        env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [python, "-P", "-c", "import coh_core.build_info as b; print(b.build_kind())"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )
    return done.stdout.strip() or done.stderr.strip()[-300:]


def decisions_per_s(report: dict[str, Any], name: str) -> float | None:
    part = report.get(name)
    return None if part is None else float(part["median"]["decisions_per_s"])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="an interpreter with the compiled build installed")
    parser.add_argument("--games", type=int, default=300, help="coh games per round and side (default 300)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5, help="rounds (each runs both sides)")
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall: bench_play.py rounds with UNO (default); cpu: CPU seconds of the coh games only",
    )
    parser.add_argument("--uno-python", default=None, help="passed on to bench_play.py")
    parser.add_argument("--core", type=int, default=None, help="passed on to bench_play.py")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    builds = {side: build_of(args.python, side) for side in SIDES}
    if builds != {"compiled": "compiled (mypyc)", "pure": "pure Python"}:
        sys.exit(f"bench_compiled: expected a compiled install and pure sources, found {builds}")
    coh: dict[str, list[float]] = {side: [] for side in SIDES}
    uno: dict[str, list[float]] = {side: [] for side in SIDES}
    ratios: list[float] = []
    for round_number in range(args.repeat):
        order = SIDES if round_number % 2 == 0 else SIDES[::-1]
        this_round: dict[str, float] = {}
        for side in order:
            report = run_side(args, side) if args.clock == "wall" else run_cpu_side(args, side)
            this_round[side] = decisions_per_s(report, "coh") or 0.0
            coh[side].append(this_round[side])
            uno_rate = decisions_per_s(report, "uno")
            if uno_rate is not None:
                uno[side].append(uno_rate)
        ratios.append(this_round["compiled"] / this_round["pure"])
        print(
            f"round {round_number + 1}: compiled {this_round['compiled']:,.0f} decisions/s, "
            f"pure {this_round['pure']:,.0f}, {ratios[-1]:.2f}x",
            flush=True,
        )
    print()
    clock = "wall-clock" if args.clock == "wall" else "CPU-time"
    print(f"{args.repeat} rounds of {args.games} {args.players}-player games per side ({clock}), medians:")
    for side in SIDES:
        line = f"  {side:8} ({builds[side]}): {statistics.median(coh[side]):,.0f} decisions/s"
        if uno[side]:
            line += f", {statistics.median(coh[side]) / statistics.median(uno[side]):.2f}x UNO's"
        print(line)
    spread = f"rounds {min(ratios):.2f}x to {max(ratios):.2f}x"
    print(f"  compiled / pure: {statistics.median(ratios):.2f}x ({spread})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Self-play benchmark: full random games of coh on one core, against RLCard's UNO in the same run.

Measures full 4-player games of the base pack played by `coh_core.agents.RandomAgent`s -- games per
second and agent decisions per second -- and, in the same run and pinned to the same core, RLCard's
UNO environment with its random agents (`tools/bench_uno.py`, run by a separate interpreter that has
`rlcard` installed). Targets: >= 500 games/s, and >= 2x UNO's decisions/s.

    python3 -m venv /tmp/rl && /tmp/rl/bin/pip install rlcard     # once: UNO's own environment
    python tools/bench_play.py --games 2000
    python tools/bench_play.py --games 2000 --repeat 5 --format json --uno-python /path/to/python

What one coh game costs here: `new_game` (setup), the agents' construction, and every decision until
`game.over`; loading the ruleset happens once, before any timing. A decision is one `submit` of one
player's answer (a decision the engine puts to several players at once counts once per player). UNO's
figures come from `tools/bench_uno.py`, whose docstring says what it counts and times. Untimed warm-up
games come first. Each of `--repeat` rounds plays coh in this process and then UNO in its subprocess,
on the same core; the median round is judged (`--stat best` judges the best), and both are printed.
`--clock cpu` times both with the CPU time of their process instead of the wall clock (UNO's
`cpu_seconds`): on a machine other work shares, the ratio then moves much less from run to run.
Exit status: 0 after a report (PASS or MISS), 2 when the coh engine API is not importable.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

TOOLS = Path(__file__).resolve().parent
UNO_SCRIPT = TOOLS / "bench_uno.py"
DEFAULT_UNO_PYTHON = "/tmp/rl/bin/python"
TARGET_GAMES_PER_S = 500.0
TARGET_UNO_FACTOR = 2.0
MAX_DECISIONS_PER_GAME = 1_000_000  # a game that does not end is a bug, not a slow benchmark


@dataclass
class Round:
    """One timed batch of games."""

    games: int
    decisions: int
    seconds: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds


@dataclass
class Summary:
    """The rounds of one benchmark reduced to the median and best round."""

    name: str
    players: int
    rounds: list[Round]
    info: dict[str, Any]

    def games_per_s(self, stat: str) -> float:
        return _reduce([r.games_per_s for r in self.rounds], stat)

    def decisions_per_s(self, stat: str) -> float:
        return _reduce([r.decisions_per_s for r in self.rounds], stat)

    @property
    def decisions_per_game(self) -> float:
        return sum(r.decisions for r in self.rounds) / sum(r.games for r in self.rounds)


def _reduce(values: list[float], stat: str) -> float:
    return max(values) if stat == "best" else statistics.median(values)


# --- machine ---------------------------------------------------------------------------------------


def pin_to_core(core: int | None) -> int | None:
    """Pin this process (and the children it starts) to one core; return it, or None if unsupported."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    chosen = core if core is not None else min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {chosen})
    return chosen


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# --- coh -------------------------------------------------------------------------------------------


class EngineMissing(Exception):
    """The engine API this benchmark drives is not (yet) importable."""


def load_engine() -> tuple[Any, Callable[..., Any], type[Any]]:
    """Return (ruleset, new_game, RandomAgent); the ruleset is loaded here, outside any timing."""
    try:
        from coh_core import load_ruleset
        from coh_core.agents import RandomAgent
        from coh_core.engine import new_game
    except ImportError as error:
        raise EngineMissing(
            f"the coh engine API is not available yet ({error}).\n"
            "This benchmark needs `from coh_core.engine import new_game`, "
            "`from coh_core.agents import RandomAgent` "
            "(game.players, game.over, game.decision.waiting, decision.legal(colour), game.view(colour), "
            "game.submit(colour, choice), RandomAgent(seed=...).act(view, legal))."
        ) from error
    return load_ruleset(), new_game, RandomAgent


def play_game(
    ruleset: Any, new_game: Callable[..., Any], agent_type: type[Any], players: int, seed: int
) -> int:
    """Play one full game with random agents; return the number of decisions taken."""
    game = new_game(ruleset, players=players, seed=seed)
    agents = {colour: agent_type(seed=seed * 1000 + i) for i, colour in enumerate(game.players)}
    decisions = 0
    while not game.over:
        d = game.decision
        before = decisions
        for colour in d.waiting:
            agent = agents[colour]
            # as coh_core.agents.runner.ask: no view for an agent that answers from the legal
            # actions alone (`reads_view = False`, the random agent), since making one is not free
            view = game.view(colour) if getattr(agent, "reads_view", True) else None
            game.submit(colour, agent.act(view, d.legal(colour)))
            decisions += 1
        if decisions == before or decisions > MAX_DECISIONS_PER_GAME:
            raise RuntimeError(f"game with seed {seed} stalled or does not end after {decisions} decisions")
    return decisions


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


Engine = tuple[Any, Callable[..., Any], type[Any]]  # (ruleset, new_game, RandomAgent): `load_engine`


def warm_up(engine: Engine, players: int, games: int, seed: int) -> None:
    """Untimed games (the pack's programs are compiled at its first game), then what was made so far
    (the pack, its compiled programs) left out of garbage collections, as `coh simulate` plays its
    games (`coh_core.sim.games`): self-play as the simulator runs it."""
    time_coh(engine, players, games, seed)
    gc.freeze()


def time_coh(engine: Engine, players: int, games: int, seed: int, clock: str = "wall") -> Round:
    """Play games seeded seed, seed+1, ... and time them together (on the wall clock or in CPU time)."""
    ruleset, new_game, agent_type = engine
    now = CLOCKS[clock]
    decisions = 0
    start = now()
    for s in range(seed, seed + games):
        decisions += play_game(ruleset, new_game, agent_type, players, s)
    return Round(games, decisions, now() - start)


# --- UNO -------------------------------------------------------------------------------------------


class UnoUnavailable(Exception):
    """The UNO reference could not be measured; the message says why and what to do."""


def uno_python(option: str | None) -> str:
    python = option or os.environ.get("COH_UNO_PYTHON") or DEFAULT_UNO_PYTHON
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        raise UnoUnavailable(
            f"no interpreter at {python}; create UNO's own environment with\n"
            "    python3 -m venv /tmp/rl && /tmp/rl/bin/pip install rlcard\n"
            "or point --uno-python / COH_UNO_PYTHON at a Python that has rlcard installed."
        )
    return python


def time_uno(python: str, games: int, seed: int, core: int | None) -> dict[str, Any]:
    command = [python, str(UNO_SCRIPT), "--games", str(games), "--seed", str(seed)]
    if core is not None:
        command += ["--core", str(core)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UnoUnavailable(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr.strip()}")
    lines = done.stdout.strip().splitlines()
    try:
        result: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError) as error:
        raise UnoUnavailable(f"{' '.join(command)} printed no JSON result:\n{done.stdout}") from error
    return result


def uno_summary(results: list[dict[str, Any]], clock: str = "wall") -> Summary:
    seconds = "cpu_seconds" if clock == "cpu" else "seconds"
    rounds = [Round(r["games"], r["decisions"], r[seconds]) for r in results]
    info = {key: results[-1][key] for key in ("python", "implementation", "rlcard", "numpy", "seed")}
    info["forced_share"] = sum(r["forced_decisions"] for r in results) / sum(r.decisions for r in rounds)
    return Summary("RLCard UNO", results[-1]["players"], rounds, info)


# --- report ----------------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def judge(coh: Summary, uno: Summary | None, stat: str) -> dict[str, Any]:
    games_per_s = coh.games_per_s(stat)
    result: dict[str, Any] = {
        "games_per_s": {
            "value": games_per_s,
            "target": TARGET_GAMES_PER_S,
            "verdict": verdict(games_per_s >= TARGET_GAMES_PER_S),
        }
    }
    if uno is None:
        result["decisions_vs_uno"] = {"verdict": "NOT MEASURED"}
    else:
        ratio = coh.decisions_per_s(stat) / uno.decisions_per_s(stat)
        result["decisions_vs_uno"] = {
            "ratio": ratio,
            "target": TARGET_UNO_FACTOR,
            "verdict": verdict(ratio >= TARGET_UNO_FACTOR),
        }
    return result


def summary_json(summary: Summary) -> dict[str, Any]:
    return {
        "name": summary.name,
        "players": summary.players,
        "median": {
            "games_per_s": summary.games_per_s("median"),
            "decisions_per_s": summary.decisions_per_s("median"),
        },
        "best": {
            "games_per_s": summary.games_per_s("best"),
            "decisions_per_s": summary.decisions_per_s("best"),
        },
        "decisions_per_game": summary.decisions_per_game,
        "rounds": [asdict(r) for r in summary.rounds],
        **summary.info,
    }


def row(summary: Summary, stat: str) -> str:
    other = "best" if stat == "median" else "median"
    return (
        f"| {summary.name} | {summary.players} | {summary.rounds[0].games} "
        f"| {summary.games_per_s(stat):,.0f} ({summary.games_per_s(other):,.0f}) "
        f"| {summary.decisions_per_s(stat):,.0f} ({summary.decisions_per_s(other):,.0f}) "
        f"| {summary.decisions_per_game:,.1f} |"
    )


def print_text(
    machine: dict[str, Any], coh: Summary, uno: Summary | None, note: str | None, stat: str
) -> None:
    other = "best" if stat == "median" else "median"
    print(f"machine: {machine['cpu']}, {machine['cores']} cores, pinned to core {machine['core']}")
    line = f"Python: {machine['python']} ({machine['implementation']})"
    if uno is not None:
        line += f"; UNO: Python {uno.info['python']}, RLCard {uno.info['rlcard']}, numpy {uno.info['numpy']}"
    print(line)
    clock = "CPU time" if machine["clock"] == "cpu" else "wall clock"
    print(f"{len(coh.rounds)} round(s) each, {stat} shown ({other} in brackets), timed on the {clock}")
    print()
    print("| benchmark | players | games/round | games/s | decisions/s | decisions/game |")
    print("|---|---|---|---|---|---|")
    print(row(coh, stat))
    if uno is not None:
        print(row(uno, stat))
    print()
    targets = judge(coh, uno, stat)
    games = targets["games_per_s"]
    print(f"{games['verdict']}  games/s {games['value']:,.0f} (target >= {TARGET_GAMES_PER_S:,.0f})")
    vs_uno = targets["decisions_vs_uno"]
    if uno is None:
        print(f"NOT MEASURED  decisions/s vs UNO: {note}")
    else:
        print(
            f"{vs_uno['verdict']}  decisions/s {vs_uno['ratio']:.2f}x UNO's "
            f"(target >= {TARGET_UNO_FACTOR:g}x; UNO games are {uno.players}-player, "
            f"{uno.info['forced_share']:.0%} of UNO decisions had one legal action)"
        )


# --- main ------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="coh games per round (default 2000)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the median (or best) is judged")
    parser.add_argument("--stat", choices=["median", "best"], default="median")
    parser.add_argument("--warmup", type=int, default=20, help="untimed coh games before the rounds")
    parser.add_argument("--uno-games", type=int, default=None, help="UNO games per round (default: --games)")
    parser.add_argument(
        "--uno-python", default=None, help=f"default: $COH_UNO_PYTHON or {DEFAULT_UNO_PYTHON}"
    )
    parser.add_argument("--core", type=int, default=None, help="core to pin to (default: lowest allowed)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="what times a round (default: wall)"
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        parser.error("--games and --repeat must be at least 1")
    return args


def run_rounds(args: argparse.Namespace, core: int | None) -> tuple[Summary, Summary | None, str | None]:
    """Each round: one batch of coh games in this process, then one batch of UNO games in a subprocess."""
    engine = load_engine()
    warm_up(engine, args.players, args.warmup, args.seed + args.games)  # other seeds
    coh_rounds: list[Round] = []
    uno_results: list[dict[str, Any]] = []
    note: str | None = None
    try:
        python: str | None = uno_python(args.uno_python)
    except UnoUnavailable as error:
        python, note = None, f"UNO skipped: {error}"
    for _ in range(args.repeat):
        coh_rounds.append(time_coh(engine, args.players, args.games, args.seed, args.clock))
        if python is None:
            continue
        try:
            uno_results.append(time_uno(python, args.uno_games or args.games, args.seed, core))
        except UnoUnavailable as error:
            python, note, uno_results = None, f"UNO skipped: {error}", []
    coh = Summary("coh (City of Horror)", args.players, coh_rounds, {"python": platform.python_version()})
    return coh, (uno_summary(uno_results, args.clock) if uno_results else None), note


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    core = pin_to_core(args.core)
    machine = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "core": core,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "clock": args.clock,
    }
    try:
        coh, uno, note = run_rounds(args, core)
    except EngineMissing as error:
        print(f"bench_play: {error}", file=sys.stderr)
        return 2
    if note is not None:
        print(note, file=sys.stderr)
    if args.format == "json":
        report = {
            "machine": machine,
            "stat": args.stat,
            "coh": summary_json(coh),
            "uno": summary_json(uno) if uno is not None else None,
            "uno_note": note,
            "targets": judge(coh, uno, args.stat),
        }
        print(json.dumps(report, indent=2))
    else:
        print_text(machine, coh, uno, note, args.stat)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""How often one kind of bot wins against another, over seat-rotated tables of the base pack.

Each of `--seeds` game seeds is played once with the tested bot in each seat and the other
kind in every other seat (`--players` games per seed), so every seat holds the tested bot
equally often under the same deals. A win is the tested bot among the game's winners; a tie
counts as a win for each tied player (the count of wins that are shared is printed too). Rates
come with Wilson 95% intervals. Also counted: the games the tested bot ends with no survivor,
and the decisions of kind `--same-kind` that asked every player at once, with how many of them
every player answered the same way (for the base pack: all choosing the same movement card).

    python tools/bench_bots.py --tested heuristic --against random --seeds 100
    python tools/bench_bots.py --tested expert --against heuristic --seeds 100 --workers 2 \\
        --records expert.jsonl --json expert.json --markdown expert.md
    python tools/bench_bots.py --tested expert --against heuristic --expert-search flat ...

The expert's budget is `--expert-iterations` (tree iterations per searched decision; sampled
worlds for `--expert-search flat`, the former search, each world playing out every answer) or
`--expert-seconds` (not deterministic). Each record holds the CPU seconds of its game too.

Prints one Markdown table row (with its header); `--json` and `--markdown` write the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate (0, 1 when there are no trials)."""
    if trials == 0:
        return 0.0, 1.0
    rate = successes / trials
    centre = rate + z * z / (2 * trials)
    spread = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    return (centre - spread) / scale, (centre + spread) / scale


Job = tuple[int, int, str, str, int, dict[str, Any], str]


def play_seed(job: Job) -> list[dict[str, Any]]:
    """The games of one seed, the tested bot in each seat in turn: one record per game."""
    index, players, tested, against, base_seed, expert, same_kind = job
    iterations, seconds = expert["iterations"], expert["seconds"]
    from coh_core.agents import make_bot
    from coh_core.agents.expert import ExpertAgent
    from coh_core.engine import new_game
    from coh_core.packs import load_pack_checked

    pack = _pack(load_pack_checked)
    seed = base_seed * 1_000_003 + index
    records = []
    for seat in range(players):
        game = new_game(pack, players, seed)
        agents = {
            colour: make_bot(
                tested if place == seat else against, seed * 7919 + place, pack, iterations, seconds
            )
            for place, colour in enumerate(game.players)
        }
        for agent in agents.values():
            if isinstance(agent, ExpertAgent):
                agent.search, agent.expand_after = expert["search"], expert["expand_after"]
                agent.guided = expert["guided"]
        started, cpu = time.perf_counter(), time.process_time()
        same, asked_all = _play(game, agents, same_kind)
        result = game.state["result"]
        winners = list(result["winners"])
        colour = game.players[seat]
        records.append(
            {
                "seed": seed,
                "seat": seat,
                "colour": colour,
                "winners": winners,
                "won": colour in winners,
                "shared": colour in winners and len(winners) > 1,
                "survivors": len(game.living(colour)),  # the pieces the player still has
                "same": same,
                "asked_all": asked_all,
                "seconds": time.perf_counter() - started,
                "cpu_seconds": time.process_time() - cpu,
                "expert": expert,
            }
        )
    return records


_PACKS: dict[str, Any] = {}


def _pack(load: Any) -> Any:
    if "base" not in _PACKS:
        _PACKS["base"] = load(None, ())
    return _PACKS["base"]


def _play(game: Any, agents: dict[str, Any], same_kind: str) -> tuple[int, int]:
    """Plays the game out; returns how many `same_kind` decisions asked every player at once and
    got the same answer from all, and how many asked every player at once."""
    same = asked_all = 0
    while not game.over:
        decision = game.decision
        answers = {}
        for colour in decision.waiting:
            answers[colour] = agents[colour].act(game.view(colour), decision.legal(colour))
            game.submit(colour, answers[colour])
        if decision.kind == same_kind and len(answers) == len(game.players) > 1:
            asked_all += 1
            same += len(set(answers.values())) == 1
    return same, asked_all


def summary(records: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    games = len(records)
    wins = sum(r["won"] for r in records)
    low, high = wilson(wins, games)
    asked_all = sum(r["asked_all"] for r in records)
    same = sum(r["same"] for r in records)
    return {
        "tested": args.tested,
        "against": args.against,
        "players": args.players,
        "seeds": args.seeds,
        "first": args.first,
        "base_seed": args.seed,
        "expert_iterations": args.expert_iterations,
        "expert_seconds": args.expert_seconds,
        "expert_search": args.expert_search,
        "expert_expand_after": args.expert_expand_after,
        "expert_guided": not args.expert_unguided,
        "games": games,
        "wins": wins,
        "shared_wins": sum(r["shared"] for r in records),
        "win_rate": wins / games if games else 0.0,
        "wilson95": [low, high],
        "no_survivor": sum(r["survivors"] == 0 for r in records),
        "wins_by_seat": [sum(r["won"] for r in records if r["seat"] == s) for s in range(args.players)],
        "same_kind": args.same_kind,
        "asked_all": asked_all,
        "same_answer": same,
        "same_rate": same / asked_all if asked_all else 0.0,
        "seconds_per_game": sum(r["seconds"] for r in records) / games if games else 0.0,
        "cpu_seconds_per_game": sum(r.get("cpu_seconds", 0.0) for r in records) / games if games else 0.0,
    }


HEADER = (
    "| tested | against | games | wins (shared) | win rate | Wilson 95% | no survivor "
    "| all answer the same | s/game | CPU s/game |\n"
    "|---|---|---:|---:|---:|---|---:|---:|---:|---:|"
)


def markdown_row(s: dict[str, Any]) -> str:
    low, high = s["wilson95"]
    tested = s["tested"] + (f" ({_budget(s)})" if s["tested"] == "expert" else "")
    return (
        f"| {tested} | {s['players'] - 1} x {s['against']} | {s['games']} | {s['wins']} ({s['shared_wins']}) "
        f"| {s['win_rate']:.1%} | {low:.1%}-{high:.1%} | {s['no_survivor'] / s['games']:.0%} "
        f"| {s['same_answer']}/{s['asked_all']} ({s['same_rate']:.1%}) | {s['seconds_per_game']:.2f} "
        f"| {s['cpu_seconds_per_game']:.2f} |"
    )


def _budget(s: dict[str, Any]) -> str:
    """The expert's search and budget, as the table names it: `tree, 32 it.`."""
    parts = [s.get("expert_search", "tree")]
    if s.get("expert_iterations") is not None or s.get("expert_seconds") is None:
        parts.append(f"{s.get('expert_iterations') or 'default'} it.")
    if s.get("expert_seconds") is not None:
        parts.append(f"{s['expert_seconds']} s")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    from coh_core.agents.expert import EXPAND_AFTER

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    kinds = ("random", "heuristic", "expert")
    parser.add_argument("--tested", choices=kinds, default="heuristic")
    parser.add_argument("--against", choices=kinds, default="random")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seeds", type=int, default=100, help="game seeds; each is played once per seat")
    parser.add_argument("--seed", type=int, default=1, help="the base seed the game seeds come from")
    parser.add_argument(
        "--first", type=int, default=0, help="the index of the first game seed (to split a run)"
    )
    parser.add_argument(
        "--records", type=Path, default=None, help="a JSONL file each seed's games are added to"
    )
    parser.add_argument(
        "--expert-iterations",
        type=int,
        default=None,
        help="the expert's tree iterations per searched decision (flat: sampled worlds)",
    )
    parser.add_argument(
        "--expert-seconds",
        type=float,
        default=None,
        help="the expert's seconds per searched decision (not deterministic)",
    )
    parser.add_argument(
        "--expert-search", choices=("tree", "flat"), default="tree", help="the expert's search"
    )
    parser.add_argument(
        "--expert-expand-after",
        type=int,
        default=EXPAND_AFTER,
        help="visits of an answer before the tree grows below it (1: at once)",
    )
    parser.add_argument(
        "--expert-unguided",
        action="store_true",
        help="below the root, expand an untried answer at random (not the heuristic's first)",
    )
    parser.add_argument(
        "--same-kind", default="movement_card", help="the decision kind to count same answers of"
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.players < 2 or args.seeds < 1 or args.workers < 1:
        parser.error("--players must be at least 2, --seeds and --workers at least 1")
    if args.expert_iterations is not None and args.expert_iterations < 1:
        parser.error(f"--expert-iterations {args.expert_iterations}: give at least 1")
    if args.expert_seconds is not None and not 0 < args.expert_seconds < float("inf"):
        parser.error(f"--expert-seconds {args.expert_seconds}: give a number of seconds above 0")
    jobs = [
        (
            index,
            args.players,
            args.tested,
            args.against,
            args.seed,
            {
                "iterations": args.expert_iterations,
                "seconds": args.expert_seconds,
                "search": args.expert_search,
                "expand_after": args.expert_expand_after,
                "guided": not args.expert_unguided,
            },
            args.same_kind,
        )
        for index in range(args.first, args.first + args.seeds)
    ]
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    if args.workers == 1:
        batches = map(play_seed, jobs)
    else:
        pool = multiprocessing.get_context("spawn").Pool(args.workers)
        batches = pool.imap(play_seed, jobs)
    for done, batch in enumerate(batches, start=1):
        records.extend(batch)
        if args.records is not None:
            with args.records.open("a") as out:
                out.writelines(json.dumps(record) + "\n" for record in batch)
        if done % 10 == 0 or done == len(jobs):
            wins = sum(r["won"] for r in records)
            print(
                f"{done}/{len(jobs)} seeds, {wins}/{len(records)} won, {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    result = summary(records, args)
    result["wall_seconds"] = time.perf_counter() - started
    table = f"{HEADER}\n{markdown_row(result)}\n"
    print(table, end="")
    if args.json is not None:
        args.json.write_text(json.dumps({"summary": result, "games": records}, indent=1) + "\n")
    if args.markdown is not None:
        args.markdown.write_text(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

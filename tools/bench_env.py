#!/usr/bin/env python3
"""What a step of the research environments costs, against the engine's own decision, side by side.

An environment step should cost at most twice the engine's decision, on the same games. The
games are recorded first, untimed: seeded 4-player games of the base pack, each answer an id drawn
at random among the legal ids (ascending) with a generator seeded by the game. Each round then
replays them, answer for answer, several ways:

- `engine`: the engine alone: `game.legal(colour)` (what any agent reads) and
  `game.submit(colour, action)`;
- `engine+ids`: the same through the action space (`legal_ids`, `submit_id`);
- `pettingzoo`: `raw_env`'s `last()` (the observation vector and the mask) and `step(id)`;
- `openspiel`: `python_coh`'s `observation_tensor` of the player to move (what an agent reads),
  `legal_actions()` and `apply_action(id)`;
- `vector`: the batched runner (`coh_core.rl.vector.VectorTables`) with `--games` games at once,
  stepped until that many have ended (its decisions: steps times games; a game that ends is dealt
  again with the next seed and played too, so its games/s counts only the games ended).

Every way is given the answers, so that none pays for choosing one (an agent's work, not the
step's), and all play the same games: the engine drawing its own answers would play other games
(its legal answers come in another order than their ids), and a game's decisions do not all cost
the same.

Printed: microseconds per decision for each, the best of `--rounds` rounds (after one untimed
game of each), and each one's ratio to `engine`. `--clock cpu` times with the process's CPU time
instead of the wall clock: on a machine other work shares, the ratios move less from run to run.
Needs `pip install '.[rl]'`.

    python tools/bench_env.py --games 10 --rounds 3
    python tools/bench_env.py --games 10 --rounds 5 --clock cpu
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

SEEDS_FROM = 1
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_now = CLOCKS["wall"]  # what times the ways (`--clock`)

Moves = dict[int, list[tuple[str, int]]]  # per seed, each (seat, id of its answer) in the order given


def _record(seeds: range) -> Moves:
    """The games of these seeds, each answer drawn at random among the legal ids (ascending)."""
    from coh_core.engine.rng import Rng
    from coh_core.rl.pettingzoo import raw_env

    env = raw_env(players=4)
    moves: Moves = {}
    for seed in seeds:
        env.reset(seed=seed)
        game = env.seats.game
        assert game is not None
        rng = Rng(seed)
        played = moves[seed] = []
        while not game.over:
            seat = game.waiting[0]
            legal = sorted(game.legal_ids(seat))
            ident = legal[rng.randbelow(len(legal))]
            played.append((seat, ident))
            game.submit_id(seat, ident)
    return moves


def _engine(moves: Moves, games: int, by_id: bool) -> tuple[int, float]:
    """The recorded games answer for answer through the engine alone."""
    from coh_core import load_ruleset
    from coh_core.engine import new_game

    pack = load_ruleset()
    decisions, spent = 0, 0.0
    for seed in range(SEEDS_FROM, SEEDS_FROM + games):
        game = new_game(pack, players=4, seed=seed)
        played = moves[seed]
        answers = [game.space.action(ident) for _seat, ident in played]
        start = _now()
        for index, (seat, ident) in enumerate(played):
            if by_id:
                game.legal_ids(seat)
                game.submit_id(seat, ident)
            else:
                game.legal(seat)
                game.submit(seat, answers[index])
        spent += _now() - start
        decisions += len(played)
        assert game.over, "the recorded game did not end where it ended when recorded"
    return decisions, spent


def _pettingzoo(moves: Moves, games: int) -> tuple[int, float]:
    from coh_core.rl.pettingzoo import raw_env

    env = raw_env(players=4)
    decisions, spent = 0, 0.0
    for seed in range(SEEDS_FROM, SEEDS_FROM + games):
        env.reset(seed=seed)
        answers = iter(moves[seed])
        start = _now()
        while env.agents:
            _observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(next(answers)[1])
            decisions += 1
        spent += _now() - start
    return decisions, spent


def _openspiel(moves: Moves, games: int) -> tuple[int, float]:
    import pyspiel

    import coh_core.rl.openspiel  # noqa: F401  (registers python_coh)

    decisions, spent = 0, 0.0
    for seed in range(SEEDS_FROM, SEEDS_FROM + games):
        state = pyspiel.load_game("python_coh", {"players": 4, "seed": seed}).new_initial_state()
        answers = iter(moves[seed])
        start = _now()
        while not state.is_terminal():
            state.observation_tensor(state.current_player())
            state.legal_actions()
            state.apply_action(next(answers)[1])
            decisions += 1
        spent += _now() - start
    return decisions, spent


def _vector(moves: Moves, games: int) -> tuple[int, float]:
    from coh_core.rl.vector import VectorTables

    tables = VectorTables(games, players=4, seed=SEEDS_FROM)
    decisions = 0
    start = _now()
    tables.reset()
    # (per row, the answers of the game it plays: a row's game ended is dealt again, seeded anew)
    answers = [iter(moves[game.state["seed"]]) for game in tables.games]
    while tables.finished < games:
        actions = [next(row)[1] for row in answers]
        _observations, _masks, _seats, _rewards, dones = tables.step(actions)
        for i in dones.nonzero()[0]:
            answers[i] = iter(moves[tables.games[i].state["seed"]])
        decisions += games
    return decisions, _now() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="what times the ways (default: wall)"
    )
    args = parser.parse_args()
    global _now
    _now = CLOCKS[args.clock]
    # (the vector runner deals a game again for each that ends: at most as many again, plus one
    # for each game that ends in the step the last one counted ends in)
    moves = _record(range(SEEDS_FROM, SEEDS_FROM + 3 * args.games))
    ways: dict[str, Callable[[int], tuple[int, float]]] = {
        "engine": lambda n: _engine(moves, n, by_id=False),
        "engine+ids": lambda n: _engine(moves, n, by_id=True),
        "pettingzoo": lambda n: _pettingzoo(moves, n),
        "openspiel": lambda n: _openspiel(moves, n),
        "vector": lambda n: _vector(moves, n),
    }
    for way in ways.values():
        way(1)  # (warm: packs loaded, rules compiled, caches filled, before any timing)
    best: dict[str, float] = {}
    counted: dict[str, int] = {}
    for _round in range(args.rounds):
        for name, way in ways.items():  # (side by side: each round runs every way once)
            decisions, spent = way(args.games)
            counted[name] = decisions
            best[name] = min(best.get(name, float("inf")), spent / decisions)
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    clock = "CPU time" if args.clock == "cpu" else "wall clock"
    print(f"{args.games} games of 4 seats, best of {args.rounds} rounds, timed on the {clock}")
    for name, per in best.items():
        ratio = per / best["engine"]
        rate = args.games / (per * counted[name])
        print(
            f"{name:12} {per * 1e6:8.1f} us a decision  ({counted[name]} decisions)  x{ratio:.2f}"
            f"  {rate:6.1f} games/s"
        )


if __name__ == "__main__":
    main()

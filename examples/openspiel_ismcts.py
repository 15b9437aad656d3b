"""OpenSpiel's information-set MCTS playing coh fairly: it searches worlds drawn from what its seat
may know (`resample_from_infostate`), never the real game's hands and decks.

    pip install '.[rl]'
    python examples/openspiel_ismcts.py --games 4 --simulations 40

Seat 0 is the search bot, the other seats play at random; the seat rotates with each game's seed.
Prints each game's returns and the search bot's wins.
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import coh_core.rl.openspiel  # noqa: F401  (registers python_coh)


def play(game_name: str, players: int, seed: int, simulations: int) -> tuple[list[float], int]:
    """One game: the search bot at seat `seed % players`, random players elsewhere; the returns
    and the search bot's seat."""
    game = pyspiel.load_game("python_coh", {"game": game_name, "players": players, "seed": seed})
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=rng)
    searcher = seed % players
    state = game.new_initial_state()
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.current_player() == searcher and len(legal) > 1:
            action = bot.step(state)
        else:
            action = legal[rng.randint(len(legal))]
        state.apply_action(action)
    return list(state.returns()), searcher


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="base")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=40)
    args = parser.parse_args()
    wins = 0
    for seed in range(1, args.games + 1):
        returns, searcher = play(args.game, args.players, seed, args.simulations)
        wins += returns[searcher] > 0
        print(f"seed {seed}: search bot at seat {searcher}, returns {returns}")
    print(f"search bot won {wins} of {args.games}")


if __name__ == "__main__":
    main()

"""Many games of one table stepped together, for vectorized training: arrays in, arrays out.

    from coh_core.rl.vector import VectorTables
    tables = VectorTables(64, game="base", players=4, seed=1)
    observations, masks, seats = tables.reset()
    while training:
        actions = policy(observations, masks)  # one id of the action space per game
        observations, masks, seats, rewards, dones = tables.step(actions)

Each game has one seat to answer at a time (the first of those waiting, as in the AEC
environment); row i of `observations` (float32, games x the observation's size) and `masks`
(int8, games x the action space's size) are that seat's, and `seats[i]` its index in seat order.
A game that ends in a step gives its returns in `rewards[i]` (float32, games x seats; zeros
otherwise) and `dones[i]` True, and is dealt again at once with the next seed: its row is then
the new game's first seat. The games are stepped one after the other in this process.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from coh_core.engine import Game
from coh_core.engine.observe import Memo, observer_for
from coh_core.engine.views import seen_parts
from coh_core.rl.table import Table


class VectorTables:
    """`count` games of one table (a pack, its overlays, its seats), dealt from consecutive seeds."""

    def __init__(
        self, count: int, game: str = "base", rules: tuple[str, ...] = (), players: int = 4, seed: int = 0
    ):
        if count < 1:
            raise ValueError(f"count={count}: at least one game")
        self.table = Table(game, tuple(rules), players)
        self.count = count
        self.space = self.table.space
        self.observer = observer_for(self.table.ruleset, self.table.seats)
        self.seats = list(self.table.seats)
        self._seat_index = {seat: n for n, seat in enumerate(self.seats)}
        self._next_seed = seed
        self.games: list[Game] = []
        self._memos = [Memo() for _ in range(count)]  # each game's last observations (`observation`)
        self.finished = 0  # games played to their end since the last reset

    def _deal(self) -> Game:
        game = self.table.new(self._next_seed)
        self._next_seed += 1
        return game

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every game again (from `seed` on, else from the next seed); their first seats' rows."""
        if seed is not None:
            self._next_seed = seed
        self.games = [self._deal() for _ in range(self.count)]
        self.finished = 0
        return self._rows()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each game's seat answers its action's id (`IllegalAction` for one it may not give)."""
        chosen = np.asarray(actions, dtype=np.int64).reshape(self.count)
        rewards = np.zeros((self.count, len(self.seats)), np.float32)
        dones = np.zeros(self.count, bool)
        for i, game in enumerate(self.games):
            game.submit_id(game.waiting[0], int(chosen[i]))
            if game.over:
                returns = game.returns()
                rewards[i] = [returns[seat] for seat in self.seats]
                dones[i] = True
                self.finished += 1
                self.games[i] = self._deal()
        observations, masks, seats = self._rows()
        return observations, masks, seats, rewards, dones

    def _rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        observations = np.empty((self.count, self.observer.size), np.float32)
        width = len(self.space)
        legal: list[int] = []  # (the masks' 1s, as indices into all the rows at once: one numpy call)
        seats = np.empty(self.count, np.int64)
        observe, memos, seat_index = self.observer.observe, self._memos, self._seat_index
        for i, game in enumerate(self.games):
            seat = game.waiting[0]
            observations[i] = np.frombuffer(
                observe(seen_parts(game, seat), memos[i], game.journal), np.float32
            )
            legal.extend([i * width + ident for ident in game.legal_ids(seat)])
            seats[i] = seat_index[seat]
        masks = np.zeros((self.count, width), np.int8)
        masks.reshape(-1)[legal] = 1
        return observations, masks, seats

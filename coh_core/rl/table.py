"""A table the adapters play at: a shipped game (or a pack's folder) with overlays, and its seats."""

from __future__ import annotations

from dataclasses import dataclass

from coh_core.engine import Game, new_game, rules_for
from coh_core.engine.rules import Rules
from coh_core.engine.space import ActionSpace, action_space
from coh_core.packs import load_game
from coh_core.packs.model import Pack


@dataclass(frozen=True)
class Table:
    """What every game of an environment shares: the pack (a shipped game's name or a pack's
    folder, with overlays by name) and the number of seats."""

    game: str = "base"
    rules: tuple[str, ...] = ()
    players: int = 4

    @property
    def pack(self) -> Pack:
        return load_game(self.game, self.rules)

    @property
    def ruleset(self) -> Rules:
        return rules_for(self.pack)

    @property
    def space(self) -> ActionSpace:
        return action_space(self.ruleset)

    @property
    def seats(self) -> list[str]:
        """The seats' colours, in seat order (the pack's first colours, as `new_game` seats them)."""
        return self.pack.colours()[: self.players]

    def new(self, seed: int) -> Game:
        return new_game(self.pack, players=self.players, seed=seed)

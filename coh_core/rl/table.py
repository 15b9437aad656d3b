"""A table the adapters play at: a shipped game (or a pack's folder) with overlays, and its seats."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from coh_core.engine import Game, new_game, rules_for
from coh_core.engine.rules import Rules
from coh_core.engine.space import ActionSpace, action_space
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.resources import content_root


@dataclass(frozen=True)
class Table:
    """What every game of an environment shares: the pack (a shipped game's name or a pack's
    folder, with overlays by name) and the number of seats."""

    game: str = "base"
    rules: tuple[str, ...] = ()
    players: int = 4

    @property
    def pack(self) -> Pack:
        return _loaded(self.game, self.rules)

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


@cache
def _loaded(game: str, rules: tuple[str, ...]) -> Pack:
    """A pack loaded once per process (a game's name, else a folder)."""
    shipped = content_root() / game
    root = shipped if shipped.is_dir() and "/" not in game else Path(game)
    return load_pack_checked(root, rules)

"""Players that answer the engine's decisions: random, heuristic, scripted and a human at a terminal."""

from __future__ import annotations

from typing import Any, Protocol

from coh_core.engine.rng import Rng

Action = tuple[Any, ...]


class Agent(Protocol):
    def act(self, view: Any, legal: list[Action]) -> Action: ...


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    def __init__(self, seed: int = 0):
        self.rng = Rng(seed)

    def act(self, view: Any, legal: list[Action]) -> Action:
        return legal[self.rng.randbelow(len(legal))]

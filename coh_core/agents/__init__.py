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


def make_agent(kind: str, seed: int, narrator: Any = None, err: bool = False) -> Agent:
    """An agent by name: random, heuristic or human (a terminal; on stderr when `err`)."""
    if kind == "random":
        return RandomAgent(seed)
    if kind == "heuristic":
        from coh_core.agents.heuristic import HeuristicAgent

        return HeuristicAgent(seed, narrator.pack if narrator is not None else None)
    if kind == "human":
        from coh_core.agents.terminal import TerminalAgent

        return TerminalAgent(narrator, err)
    raise ValueError(f"unknown agent kind {kind!r}")


class ScriptedAgent:
    """Answers from a list, in order (for tests); fails loudly when the script runs out."""

    def __init__(self, script: list[Action]):
        self.script = list(script)

    def act(self, view: Any, legal: list[Action]) -> Action:
        if not self.script:
            raise LookupError(f"the script is exhausted; legal actions were {legal}")
        return self.script.pop(0)

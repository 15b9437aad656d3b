"""Players that answer the engine's decisions: random, heuristic and expert bots, scripts, humans."""

from __future__ import annotations

from typing import Any, Protocol

from coh_core.engine.rng import Rng

Action = tuple[Any, ...]


class Agent(Protocol):
    """Answers a decision from the seat's view (`PlayerView`) and its legal actions. An agent that
    answers from the legal actions alone says so with a class attribute `reads_view = False`: it
    is then handed no view (`None`), which saves making one at each decision."""

    def act(self, view: Any, legal: list[Action]) -> Action: ...


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    reads_view = False

    def __init__(self, seed: int = 0):
        self.rng = Rng(seed)

    def act(self, view: Any, legal: list[Action]) -> Action:
        return legal[self.rng.randbelow(len(legal))]


BOT_KINDS = ("random", "heuristic", "expert")


def make_bot(
    kind: str,
    seed: int,
    pack: Any = None,
    expert_iterations: int | None = None,
    expert_seconds: float | None = None,
) -> Agent:
    """A bot by name: random, heuristic or expert (a tree search over forks of the game, whose
    budget is `expert_iterations` per searched decision, or `expert_seconds`, or the first of both
    reached; its default iterations when neither is given)."""
    if kind == "random":
        return RandomAgent(seed)
    if kind == "heuristic":
        from coh_core.agents.heuristic import HeuristicAgent

        return HeuristicAgent(seed, pack)
    if kind == "expert":
        from coh_core.agents.expert import ExpertAgent

        return ExpertAgent(seed, pack, expert_iterations, expert_seconds)
    raise ValueError(f"unknown agent kind {kind!r}")


def make_agent(
    kind: str,
    seed: int,
    narrator: Any = None,
    err: bool = False,
    expert_iterations: int | None = None,
    expert_seconds: float | None = None,
) -> Agent:
    """An agent by name: a bot (`make_bot`, with the expert's budget) or human (a terminal; on
    stderr when `err`)."""
    if kind == "human":
        from coh_core.agents.terminal import TerminalAgent

        return TerminalAgent(narrator, err)
    pack = narrator.pack if narrator is not None else None
    return make_bot(kind, seed, pack, expert_iterations, expert_seconds)


class ScriptedAgent:
    """Answers from a list, in order (for tests); fails loudly when the script runs out."""

    reads_view = False

    def __init__(self, script: list[Action]):
        self.script = list(script)

    def act(self, view: Any, legal: list[Action]) -> Action:
        if not self.script:
            raise LookupError(f"the script is exhausted; legal actions were {legal}")
        return self.script.pop(0)

"""Drive a game with one agent per colour until it ends."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from coh_core.agents import Action, Agent
from coh_core.engine.game import Game
from coh_core.engine.runtime import Decision


def play_out(
    game: Game,
    agents: Mapping[str, Agent],
    before: Callable[[Game, Decision], None] | None = None,
    after: Callable[[Game], None] | None = None,
) -> int:
    """Ask each waiting player's agent (`ask`); returns the decisions made.

    `before` is called at each decision, `after` after each answer (to save the game there).
    """
    decisions = 0
    while not game.over:
        decision = game.decision
        assert decision is not None
        if before is not None:
            before(game, decision)
        for colour in decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
            decisions += 1
            if after is not None:
                after(game)
    return decisions


def ask(game: Game, agent: Agent, colour: str) -> Action:
    """The agent's answer for `colour` now, from that seat's view and legal actions (no view for an
    agent whose `reads_view` is false: making one is not free)."""
    view = game.view(colour) if getattr(agent, "reads_view", True) else None
    return agent.act(view, game.legal(colour))

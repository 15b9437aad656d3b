"""The light view of a position the bots read in their searches (sharing the game's data)."""

from __future__ import annotations

from typing import Any

from coh_core.engine.game import Game


def light_view(game: Game, colour: str) -> dict[str, Any]:
    """What the heuristic reads of a view, sharing the game's own data instead of copying it
    (rollouts and look-aheads run in a sampled world, where nothing is the real game's secret)."""
    state = game.state
    decision = game.decision
    return {
        "me": colour,
        "players": state["players"],
        "turn": state["turn"],
        "eliminated": game.out_of_game(),
        "locations": state["locations"],
        "pieces": state["pieces"],
        "piece_roles": game.rules.piece_roles,
        "counts": state["counts"],
        # (of the decision, the heuristic reads its kind and question: not its answers, made JSON)
        "decision": None if decision is None else {"kind": decision.kind, "prompt": decision.prompt},
    }

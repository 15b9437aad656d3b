"""Running one effect text in a game, outside any card or step: what the tests of primitives use."""

from __future__ import annotations

from typing import Any

from coh_core.effects.parser import parse_effect
from coh_core.engine import Game, compiler_for
from coh_core.engine.machine import run_sync
from coh_core.engine.runtime import Rt


def run_effect(game: Game, source: str) -> dict[str, Any]:
    """Run the effect as the game's first player; the names it bound, by name."""
    program = compiler_for(game.rules.pack).block(parse_effect(source), None, frozenset()).program
    env: dict[str, Any] = {}
    run_sync(program, Rt(game, env, game.players[0]), env)
    return env

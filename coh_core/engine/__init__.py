"""The game engine: compiled rules, state, flow, decisions, views, log and replay."""

from __future__ import annotations

from typing import Any

from coh_core.effects import ast
from coh_core.effects.registry import VERB_CONTEXTS
from coh_core.engine.compile.lowering import Compiler
from coh_core.engine.compile.model import PackVerb
from coh_core.engine.game import PASS, Game
from coh_core.engine.library import IMPLS
from coh_core.engine.rules import Rules, build_rules
from coh_core.engine.runtime import Action, Decision, EngineError, IllegalAction
from coh_core.engine.state import initial_state
from coh_core.packs.effects_index import symbols_of
from coh_core.packs.model import Pack

__all__ = [
    "PASS",
    "Action",
    "Decision",
    "EngineError",
    "Game",
    "IllegalAction",
    "Rules",
    "compiler_for",
    "new_game",
    "rules_for",
]

_RULES: dict[int, tuple[Pack, Rules]] = {}


def rules_for(pack: Pack) -> Rules:
    """The pack compiled for play, once per loaded pack."""
    cached = _RULES.get(id(pack))
    if cached is None or cached[0] is not pack:
        cached = (pack, build_rules(pack, compiler_for(pack)))
        _RULES[id(pack)] = cached
    return cached[1]


def compiler_for(pack: Pack) -> Compiler:
    """A compiler of the pack's effects, over the engine's implementations and the pack's verbs."""
    symbols = symbols_of(pack)
    verbs = {
        effect.slot.owner: PackVerb(symbols.verbs[effect.slot.owner], effect.tree, effect.slot)
        for effect in pack.effects
        if effect.slot.context in VERB_CONTEXTS
        and effect.slot.owner in symbols.verbs
        and isinstance(effect.tree, ast.Block)
    }
    types = pack.ref_types()
    pieces = pack.section("components").get("pieces") or {}
    piece_types = frozenset(
        types[str(entry.get("of"))]
        for entry in pieces.values()
        if isinstance(entry, dict) and entry.get("of") in types
    )
    return Compiler(IMPLS, symbols.refs, verbs, piece_types)


def new_game(
    ruleset: Pack,
    players: int = 4,
    seed: int = 0,
    colours: list[str] | None = None,
) -> Game:
    """A new game from setup on: seats `players` colours (the pack's first N by default)."""
    rules = rules_for(ruleset)
    given = None if colours is None else list(colours)  # (as given now: `remake` makes the same state later)
    return Game(
        rules,
        initial_state(rules, players, seed, given),
        remake=lambda: initial_state(rules, players, seed, given),
    )


def resume_game(ruleset: Pack, state: dict[str, Any], start: dict[str, Any] | None = None) -> Game:
    """A game from a given state; `start` says where in the turn structure to begin."""
    return Game(rules_for(ruleset), state, start)

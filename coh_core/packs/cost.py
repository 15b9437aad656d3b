"""What one call of a pack's verbs may cost, bounded before any game is played.

No loop is needed to run without end: verbs that each call the next twice run 2^40 verbs in a
chain of 41. From the calls written in each verb (a loop's body counted once: loops have a
bound of their own at play), `coh validate` works out how many verbs one call runs and how deep
calls nest, and refuses a pack past `MAX_WORK` (`EFF-COST`) or `MAX_VERB_NESTING` (`EFF-LIMIT`),
at the call inside the verb where the count first goes past the bound: the verbs that call that
one are past it only because of it. What loops multiply is stopped at play (`ENGINE-LIMIT`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping

from coh_core.effects import ast
from coh_core.effects.calls import Reach, calls_by_count, calls_of, chain, reach
from coh_core.effects.registry import VERB_CONTEXTS
from coh_core.errors import Location, Problem
from coh_core.limits import MAX_VERB_NESTING, MAX_WORK
from coh_core.packs.model import CompiledEffect, Pack


def runaway_problems(pack: Pack) -> Iterator[Problem]:
    """Verbs nested deeper than MAX_VERB_NESTING, and verbs and effects of which one run calls more
    than MAX_WORK verbs; each reported once, where it goes past the bound."""
    names = {verb.id for verb in pack.entities_of("verb")}
    bodies: dict[str, CompiledEffect] = {}
    others: list[CompiledEffect] = []
    for effect in pack.effects:
        if effect.slot.context in VERB_CONTEXTS and effect.slot.owner in names:
            bodies[effect.slot.owner] = effect
        elif any(call.name in names for call in ast.calls(effect.tree)):
            others.append(effect)
    graph = {name: calls_of([effect.tree], names) for name, effect in bodies.items()}
    reaches = reach(graph)
    for name in sorted(bodies):
        found = _verb_problem(name, bodies[name], graph[name], reaches)
        if found is not None:
            yield found
    for effect in others:
        found = _effect_problem(effect, calls_of([effect.tree], names), reaches)
        if found is not None:
            yield found


def _verb_problem(
    name: str, body: CompiledEffect, calls: Counter[str], reaches: Mapping[str, Reach]
) -> Problem | None:
    own = reaches.get(name)
    if own is None:  # on a cycle: VERB-RECURSION
        return None
    if own.depth == MAX_VERB_NESTING + 1:  # (deeper ones call this chain: it is reported once, here)
        assert own.deeper is not None
        return Problem(
            "EFF-LIMIT",
            f"`{name}` starts {own.depth} pack verbs running inside each other, more than the"
            f" {MAX_VERB_NESTING} play allows: {' -> '.join(chain(name, reaches))}",
            _call_location(body, own.deeper),
        )
    if own.depth > MAX_VERB_NESTING or own.runs <= MAX_WORK:
        return None
    brought = calls_by_count(calls, reaches)
    if any(reaches[callee].runs > MAX_WORK for callee, _ in brought):
        return None  # a verb it calls goes past the bound already: reported there
    return Problem(
        "EFF-COST",
        f"one call of `{name}` runs {own.runs:,} pack verbs, more than the {MAX_WORK:,} play runs"
        f" between two decisions: {_because(calls, brought, reaches)}",
        _call_location(body, brought[0][0]),
    )


def _effect_problem(
    effect: CompiledEffect, calls: Counter[str], reaches: Mapping[str, Reach]
) -> Problem | None:
    brought = calls_by_count(calls, reaches)
    runs = sum(count for _, count in brought)
    if runs <= MAX_WORK or any(reaches[callee].runs > MAX_WORK for callee, _ in brought):
        return None
    return Problem(
        "EFF-COST",
        f"this effect runs {runs:,} pack verbs, more than the {MAX_WORK:,} play runs between two"
        f" decisions: {_because(calls, brought, reaches)}",
        _call_location(effect, brought[0][0]),
    )


def _because(calls: Counter[str], brought: list[tuple[str, int]], reaches: Mapping[str, Reach]) -> str:
    """The calls that bring the most runs, in words: "it calls `a` twice (524,287 verbs each), ..."."""
    parts = [f"`{name}` {_times(calls[name])} ({reaches[name].runs:,} verbs each)" for name, _ in brought[:3]]
    more = f" and {len(brought) - 3} more" if len(brought) > 3 else ""
    return "it calls " + ", ".join(parts) + more


def _times(times: int) -> str:
    return {1: "once", 2: "twice"}.get(times, f"{times} times")


def _call_location(effect: CompiledEffect, callee: str) -> Location:
    """Where the effect first calls `callee` (the effect itself if the call is not found)."""
    slot = effect.slot
    spans = [call.span.start for call in ast.calls(effect.tree) if call.name == callee]
    if not spans:
        return slot.doc.location(slot.path)
    return slot.doc.offset_in_scalar(slot.path, min(spans))

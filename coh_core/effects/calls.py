"""The call graph of a pack's verbs: how deep their calls nest and how many verbs one call runs.

Worked out without recursion, over graphs with no cycle (a verb that calls itself is refused
before: `VERB-RECURSION`): a stranger's chain of verbs may be thousands long. Both the pack
checks (`coh validate`) and the compiler read it, so the bound `coh validate` promises is the
one play keeps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from coh_core.effects import ast

CallGraph = Mapping[str, Counter[str]]  # verb -> the verbs its body calls, each as often as written
RUNS_CAP = 2**63  # runs counted beyond this are this: the bound they are compared with is far below


def calls_of(trees: Iterable[ast.Node], verbs: Iterable[str]) -> Counter[str]:
    """The calls of `verbs` written in the trees, each counted as often as it is written."""
    known = set(verbs)
    return Counter(call.name for tree in trees for call in ast.calls(tree) if call.name in known)


@dataclass(frozen=True)
class Reach:
    """What one call of a verb may lead to, worked out from the calls written in the verbs."""

    depth: int  # verbs running inside each other in its deepest chain of calls, itself included
    deeper: str | None  # the verb it calls that this chain goes through (None: it calls none)
    runs: int  # verbs one call runs, itself included: a loop's body counted once (RUNS_CAP at most)


def callees_first(graph: CallGraph, start: Iterable[str] | None = None) -> list[str]:
    """The verbs reached from `start` (every verb when None), each after the verbs it calls.

    A verb on a cycle comes after the others of the cycle it was reached from: the order of a
    cycle is arbitrary, and only the checks that refuse it read it."""
    order: list[str] = []
    placed: set[str] = set()
    for root in sorted(graph) if start is None else start:
        if root in placed:
            continue
        placed.add(root)
        stack = [(root, iter(sorted(graph.get(root, ()))))]
        while stack:
            name, callees = stack[-1]
            callee = next(callees, None)
            if callee is None:
                stack.pop()
                order.append(name)
            elif callee not in placed:
                placed.add(callee)
                stack.append((callee, iter(sorted(graph.get(callee, ())))))
    return order


def reach(graph: CallGraph) -> dict[str, Reach]:
    """Per verb, the deepest chain of calls it starts and the verbs one call of it runs."""
    found: dict[str, Reach] = {}
    for name in callees_first(graph):
        depth, deeper, runs = 1, None, 1
        for callee, times in sorted(graph.get(name, Counter()).items()):
            inner = found.get(callee)  # (None: a cycle, refused by VERB-RECURSION; or no verb)
            if inner is None:
                continue
            if inner.depth + 1 > depth:
                depth, deeper = inner.depth + 1, callee
            runs = min(RUNS_CAP, runs + times * inner.runs)
        found[name] = Reach(depth, deeper, runs)
    return found


def chain(name: str, reaches: Mapping[str, Reach]) -> list[str]:
    """The deepest chain of calls that starts at `name`: `name`, the verb it calls, and so on."""
    found = [name]
    deeper = reaches[name].deeper
    while deeper is not None:
        found.append(deeper)
        deeper = reaches[deeper].deeper
    return found


def calls_by_count(calls: Counter[str], reaches: Mapping[str, Reach]) -> list[tuple[str, int]]:
    """The verbs in `calls` with the runs each brings (times written x runs of one call), most first."""
    brought = [(name, times * reaches[name].runs) for name, times in calls.items() if name in reaches]
    return sorted(brought, key=lambda item: (-item[1], item[0]))

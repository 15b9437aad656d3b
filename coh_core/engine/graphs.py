"""Boards that are graphs (`components: graphs`): places joined by undirected edges of kinds the
pack declares, an edge of a kind with states passable in some of them, and straight lines of places
along which places are seen.

The states of the edges live in the game's state (`state["edges"][graph][edge]`, an edge named
`a/b` as the pack declares it), only for the graphs that have edges with states. Distances are
breadth-first searches across the passable edges from one place, kept per graph and per states of
its edges: reused until an edge changes its state. The states themselves are the key, so a state
read from a file or changed by hand is never read against distances worked out for others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# At most this many sets of edge states keep their distances per graph (then all are forgotten).
MAX_KEPT_STATES = 256


class EdgeKind:
    """A kind of edge: always passable (no states), or passable in some of its states."""

    __slots__ = ("name", "passable", "states")

    def __init__(self, name: str, states: tuple[str, ...], passable: frozenset[str]):
        self.name = name
        self.states = states  # the first is the one an edge starts in; none: always passable
        self.passable = passable


class Graph:
    """A graph the pack declares, ready for play: its edges in declaration order, which kind each
    is of, the places joined to each place, and its lines."""

    __slots__ = (
        "_kept",
        "adjacent",
        "edges",
        "keys",
        "kinds",
        "lines",
        "name",
        "of",
        "order",
        "pairs",
        "stateful",
    )

    def __init__(self, name: str, entry: Mapping[str, Any]):
        self.name = name
        self.of = str(entry["of"])
        self.kinds: dict[str, EdgeKind] = {}
        for kind, spec in (entry.get("edge_kinds") or {}).items():
            states = tuple(str(s) for s in spec.get("states") or [])
            passable = frozenset(str(s) for s in spec.get("passable") or [])
            self.kinds[str(kind)] = EdgeKind(str(kind), states, passable)
        # the edges in declaration order: (one end, the other, its kind)
        self.edges: list[tuple[str, str, EdgeKind]] = []
        self.keys: list[str] = []  # each edge's name in the state: `a/b`, its ends as declared
        self.pairs: dict[tuple[str, str], int] = {}  # (a, b) and (b, a) -> the edge's index
        self.adjacent: dict[str, list[tuple[str, int]]] = {}  # a place -> (neighbour, edge), in order
        self.order: dict[str, int] = {}  # a place -> where the edges first name it
        for index, edge in enumerate(entry.get("edges") or []):
            a, b = (str(p) for p in edge["between"])
            self.edges.append((a, b, self.kinds[str(edge["kind"])]))
            self.keys.append(f"{a}/{b}")
            self.pairs[a, b] = self.pairs[b, a] = index
            self.adjacent.setdefault(a, []).append((b, index))
            self.adjacent.setdefault(b, []).append((a, index))
            for place in (a, b):
                self.order.setdefault(place, len(self.order))
        self.lines: list[list[str]] = [[str(p) for p in line] for line in entry.get("lines") or []]
        # the edges whose kind has states, in declaration order (the others are always passable)
        self.stateful: list[int] = [i for i, (_, _, kind) in enumerate(self.edges) if kind.states]
        # per states of the stateful edges: the edges not passable, and the distances from each source
        self._kept: dict[tuple[str, ...], tuple[frozenset[int], dict[str, dict[str, int]]]] = {}

    def initial_states(self) -> dict[str, str]:
        """Each edge with states in the first state of its kind."""
        return {self.keys[i]: self.edges[i][2].states[0] for i in self.stateful}

    def _config(self, states: Mapping[str, str]) -> tuple[frozenset[int], dict[str, dict[str, int]]]:
        """The edges not passable in these states, and the distances worked out in them so far."""
        keys = self.keys
        key = tuple([states[keys[i]] for i in self.stateful])
        found = self._kept.get(key)
        if found is None:
            if len(self._kept) >= MAX_KEPT_STATES:
                self._kept.clear()
            edges = self.edges
            closed = frozenset(i for i in self.stateful if states[keys[i]] not in edges[i][2].passable)
            found = self._kept[key] = (closed, {})
        return found

    def neighbours(self, place: str, states: Mapping[str, str]) -> list[str]:
        """The places joined to `place` by a passable edge, in the order of the edges."""
        closed = self._config(states)[0]
        return [other for other, edge in self.adjacent.get(place, ()) if edge not in closed]

    def joined(self, place: str) -> list[str]:
        """The places joined to `place` by an edge, passable or not, in the order of the edges."""
        return [other for other, _ in self.adjacent.get(place, ())]

    def distances(self, source: str, states: Mapping[str, str]) -> dict[str, int]:
        """The number of steps to every place `source` reaches across passable edges (itself 0);
        shared: never changed by its reader."""
        closed, kept = self._config(states)
        found = kept.get(source)
        if found is None:
            found = {source: 0}
            frontier = [source]
            adjacent = self.adjacent
            steps = 0
            while frontier:
                steps += 1
                reached: list[str] = []
                for place in frontier:
                    for other, edge in adjacent.get(place, ()):
                        if other not in found and edge not in closed:
                            found[other] = steps
                            reached.append(other)
                frontier = reached
            kept[source] = found
        return found

    def first_steps(self, source: str, target: str, states: Mapping[str, str]) -> list[str]:
        """The neighbours of `source` one step nearer to `target` (none if it is `source` or out of reach)."""
        back = self.distances(target, states)  # (edges go both ways: the distance to `target`)
        away = back.get(source)
        if not away:
            return []
        return [other for other in self.neighbours(source, states) if back.get(other) == away - 1]

    def nearest(self, source: str, places: list[str], states: Mapping[str, str]) -> list[str]:
        """Those of `places` at the least distance from `source`, in their order (none reached: none)."""
        found = self.distances(source, states)
        reached = [found[p] for p in places if p in found]
        if not reached:
            return []
        least = min(reached)
        return [p for p in places if found.get(p) == least]

    def within(self, place: str, n: int, states: Mapping[str, str]) -> list[str]:
        """The places at most `n` steps away, itself included: the nearer first, then in order."""
        found = self.distances(place, states)
        order = self.order
        near = [p for p, d in found.items() if d <= n]
        return sorted(near, key=lambda p: (found[p], order.get(p, -1)))

    def in_sight(self, place: str, states: Mapping[str, str]) -> list[str]:
        """The place, and the places seen along each line through it both ways, up to the first
        edge that is not passable (the place beyond it unseen); in the order the edges name them."""
        closed = self._config(states)[0]
        pairs = self.pairs
        seen = {place}
        for line in self.lines:
            if place not in line:
                continue
            start = line.index(place)
            for step in (1, -1):
                at = start
                while 0 <= at + step < len(line) and pairs[line[at], line[at + step]] not in closed:
                    at += step
                    seen.add(line[at])
        order = self.order
        return sorted(seen, key=lambda p: order.get(p, -1))

    def edge(self, a: str, b: str) -> int | None:
        """The index of the edge between two places, either way round (None: they are not joined)."""
        return self.pairs.get((a, b))


def graphs_of(components: Mapping[str, Any]) -> dict[str, Graph]:
    """The graphs a pack's `components` section declares, by name, in declaration order."""
    return {str(name): Graph(str(name), entry) for name, entry in (components.get("graphs") or {}).items()}

"""Which sections of a game's state the engine changed: a count per section, moved at each change.

The state is plain data changed in place (`coh_core.engine.state`); whoever keeps something worked
out from a section (`coh_core.engine.observe.Memo`) reads its count, and while the count has not
moved the section holds what it held, with nothing to compare. Each primitive that writes a section
moves its count (`coh_core.engine.library`, `game.py`, `worlds.py`); a test plays games of every
shipped pack and checks that every section that changed over a decision had its count moved.

The piles and the memory are counted entry by entry besides (`piles_changed`, `memory_changed`).
A game made from a state (`new_game`, `fork`, `from_json`) starts a journal of its own: counts
read from one game's journal say nothing of another's. Whoever changes a game's state by hand
(a test, a tool) calls `Journal.touch_all`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

# The sections counted: the state's keys of the same names, and `decisions`, the questions put
# (a new `Game.decision`). The step and where it runs are single values, compared as they are.
SECTIONS: Final = (
    "turn",
    "phase",
    "pointers",
    "locations",
    "pieces",
    "counts",
    "piles",
    "memory",
    "edges",
    "result",
    "decisions",
)


class Journal:
    """A game's count of changes per section (`SECTIONS`): each only ever grows."""

    __slots__ = (
        "counts",
        "decisions",
        "edges",
        "locations",
        "memory",
        "memory_changed",
        "phase",
        "pieces",
        "piles",
        "piles_changed",
        "pointers",
        "result",
        "turn",
    )

    def __init__(self) -> None:
        self.turn = 0
        self.phase = 0
        self.pointers = 0
        self.locations = 0
        self.pieces = 0
        self.counts = 0
        self.piles = 0
        self.memory = 0
        self.edges = 0
        self.result = 0
        self.decisions = 0
        # per pile (by name) and per entry of the memory, the section's count at its last change
        # (none yet: absent)
        self.piles_changed: dict[str, int] = {}
        self.memory_changed: dict[str, int] = {}

    def pile(self, *names: str | None) -> None:
        """The piles of these names changed (None: a role no pile plays, nothing)."""
        self.piles += 1
        for name in names:
            if name is not None:
                self.piles_changed[name] = self.piles

    def remembered(self, *names: str | None) -> None:
        """These entries of the memory changed (None: a role no entry plays, nothing)."""
        self.memory += 1
        for name in names:
            if name is not None:
                self.memory_changed[name] = self.memory

    def touch_all(self, piles: Iterable[str] = (), memory: Iterable[str] = ()) -> None:
        """Every section may have changed (the state was changed outside the engine's primitives),
        these piles and entries of the memory with them (those of the state: every one)."""
        for section in SECTIONS:
            setattr(self, section, getattr(self, section) + 1)
        self.piles_changed.update(dict.fromkeys(piles, self.piles))
        self.memory_changed.update(dict.fromkeys(memory, self.memory))

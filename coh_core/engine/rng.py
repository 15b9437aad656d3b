"""A seeded random generator whose whole state is one integer.

The game state must be plain JSON with the generator inside it, so that a saved game
continues exactly as the original. Python's `random.Random` carries 625 words of state;
SplitMix64 carries one 64-bit integer, is fast in pure Python, and its output is fixed
by a published reference, so the same seed gives the same game on every platform.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_SPAN = 1 << 64
_MASK = _SPAN - 1
_GOLDEN = 0x9E3779B97F4A7C15
# `_SPAN - _SPAN % n`, the draws below which `randbelow(n)` takes one, for the usual bounds (a
# look-up costs less than two operations on numbers of 65 bits)
_LIMITS = tuple(_SPAN - _SPAN % n if n else 0 for n in range(1024))


class Rng:
    """SplitMix64 (Steele, Lea and Flood, 2014): `Rng(seed)`; `Rng.from_state(rng.state)` resumes."""

    __slots__ = ("state",)

    def __init__(self, seed: int):
        self.state = seed & _MASK

    @classmethod
    def from_state(cls, state: int) -> Rng:
        return cls(state)

    def next64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias (rejection sampling)."""
        if n <= 0:
            raise ValueError(f"randbelow needs a positive bound, got {n}")
        limit = _LIMITS[n] if n < 1024 else _SPAN - _SPAN % n
        state = self.state
        while True:  # `next64`, written out: a draw is the hottest call of a random game
            state = (state + _GOLDEN) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            value = z ^ (z >> 31)
            if value < limit:
                self.state = state
                return value % n

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self.randbelow(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher-Yates): for each index from the last, `randbelow(index + 1)`."""
        state = self.state
        for index in range(len(items) - 1, 0, -1):
            n = index + 1
            limit = _LIMITS[n] if n < 1024 else _SPAN - _SPAN % n
            while True:  # (`randbelow`, written out: a game shuffles its decks at setup)
                state = (state + _GOLDEN) & _MASK
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                value = z ^ (z >> 31)
                if value < limit:
                    break
            other = value % n
            items[index], items[other] = items[other], items[index]
        self.state = state

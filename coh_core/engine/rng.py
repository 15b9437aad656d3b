"""A seeded random generator whose whole state is one integer.

The game state must be plain JSON with the generator inside it, so that a saved game
continues exactly as the original. Python's `random.Random` carries 625 words of state;
SplitMix64 carries one 64-bit integer, is fast in pure Python, and its output is fixed
by a published reference, so the same seed gives the same game on every platform.

The generator is written twice, to the same numbers: once over Python's integers (masked to 64
bits), once over the compiled build's native 64-bit integers (`i64`, whose arithmetic wraps as the
generator needs; mypyc runs the integers of the first above 2**62 as objects, which made a draw
slower compiled than interpreted). Only the compiled build takes the second, and keeps the state
as the signed integer of the same bits; `Rng.state` is the unsigned one in both. The generator's
tests and `tests/test_compiled.py` (the same games on both builds) run on the compiled build too.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TYPE_CHECKING, Final, TypeVar

if TYPE_CHECKING:  # (annotations only: never looked up when the module runs)
    from mypy_extensions import i64

T = TypeVar("T")

_SPAN = 1 << 64
_MASK = _SPAN - 1
_SIGNED_MAX = (1 << 63) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
# `_SPAN - _SPAN % n`, the draws below which `randbelow(n)` takes one, for the usual bounds (a
# look-up costs less than two operations on numbers of 65 bits)
_LIMITS = tuple(_SPAN - _SPAN % n if n else 0 for n in range(1024))


def _wraps(top: i64) -> bool:
    """Whether `i64` arithmetic wraps at 64 bits here: in the compiled build; interpreted, `i64` is
    Python's `int`, which does not."""
    return top + 1 < 0


# Whether to draw over native 64-bit integers: asked of the arithmetic itself, so that only a build
# where it wraps as the generator needs takes that path (not a file name, which a frozen or
# byte-code-only install would get wrong).
_NATIVE: Final = _wraps(_SIGNED_MAX)
# The same generator over signed 64-bit integers (two's complement): the constants as such, the
# masks that make `>>` a logical shift, and `_SPAN % n` for the usual bounds.
_GOLDEN_S: Final = -7046029254386353131
_MIX1_S: Final = -4658895280553007687
_MIX2_S: Final = -7723592293110705685
_LOW34: Final = (1 << 34) - 1
_LOW37: Final = (1 << 37) - 1
_LOW33: Final = (1 << 33) - 1
_REMAINDERS: Final = tuple(_SPAN % n if n else 0 for n in range(1024))


def _kept(value: int) -> int:
    """A 64-bit unsigned state as `Rng` keeps it: as is, or, in the compiled build, as the signed
    64-bit integer of the same bits (which its native draws work on)."""
    return value - _SPAN if _NATIVE and value > _SIGNED_MAX else value


class Rng:
    """SplitMix64 (Steele, Lea and Flood, 2014): `Rng(seed)`; `Rng.from_state(rng.state)` resumes."""

    __slots__ = ("_s",)

    def __init__(self, seed: int):
        self._s: i64 = _kept(seed & _MASK)  # the state (`_kept`)

    @property
    def state(self) -> int:
        """The state as the generator defines it: an unsigned 64-bit integer."""
        value: int = self._s  # (a Python integer first: `_MASK` is no 64-bit signed one)
        return value & _MASK if _NATIVE else value

    @classmethod
    def from_state(cls, state: int) -> Rng:
        return cls(state)

    def __reduce__(self) -> tuple[type[Rng], tuple[int]]:
        """Pickled (and copied) as its unsigned state: the same in both builds, whichever reads it."""
        return (Rng, (self.state,))

    def next64(self) -> int:
        """The next 64-bit output."""
        state = (self.state + _GOLDEN) & _MASK
        self._s = _kept(state)
        z = state
        z = ((z ^ (z >> 30)) * _MIX1) & _MASK
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK
        return z ^ (z >> 31)

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias (rejection sampling)."""
        if n <= 0:
            raise ValueError(f"randbelow needs a positive bound, got {n}")
        if _NATIVE and n < 1024:
            return self._randbelow_native(n)
        limit = _LIMITS[n] if n < 1024 else _SPAN - _SPAN % n
        state: int = self._s  # (`state`, written out: interpreted, the state is kept unsigned)
        if _NATIVE:
            state &= _MASK
        while True:  # `next64`, written out: a draw is the hottest call of a random game
            state = (state + _GOLDEN) & _MASK
            z = ((state ^ (state >> 30)) * _MIX1) & _MASK
            z = ((z ^ (z >> 27)) * _MIX2) & _MASK
            value = z ^ (z >> 31)
            if value < limit:
                self._s = _kept(state) if _NATIVE else state
                return value % n

    def _randbelow_native(self, n: int) -> int:
        """`randbelow` over the compiled build's 64-bit integers (0 < n < 1024): the same draws.

        A draw `u` (unsigned) is the signed `z`: `u = z` when z >= 0, else `z + 2**64`. `u` is
        taken when below `2**64 - r` (r = `2**64 % n`, below n): every z >= 0 is, and a negative z
        when below -r. Then `u % n` is `z % n`, or `(z % n + r) % n` (Python's `%`, as i64 does it).
        """
        bound: i64 = n
        rest: i64 = _REMAINDERS[n]
        state: i64 = self._s
        while True:
            state = state + _GOLDEN_S
            z: i64 = (state ^ ((state >> 30) & _LOW34)) * _MIX1_S
            z = (z ^ ((z >> 27) & _LOW37)) * _MIX2_S
            z = z ^ ((z >> 31) & _LOW33)
            if z >= 0:
                self._s = state
                return z % bound
            if z < -rest:
                self._s = state
                return (z % bound + rest) % bound

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self.randbelow(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher-Yates): for each index from the last, `randbelow(index + 1)`."""
        if _NATIVE and len(items) <= 1024:
            for index in range(len(items) - 1, 0, -1):
                other = self._randbelow_native(index + 1)
                items[index], items[other] = items[other], items[index]
            return
        state = self.state
        for index in range(len(items) - 1, 0, -1):
            n = index + 1
            limit = _LIMITS[n] if n < 1024 else _SPAN - _SPAN % n
            while True:  # (`randbelow`, written out: a game shuffles its decks at setup)
                state = (state + _GOLDEN) & _MASK
                z = ((state ^ (state >> 30)) * _MIX1) & _MASK
                z = ((z ^ (z >> 27)) * _MIX2) & _MASK
                value = z ^ (z >> 31)
                if value < limit:
                    break
            other = value % n
            items[index], items[other] = items[other], items[index]
        self._s = _kept(state)

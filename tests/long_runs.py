"""The default run's share of a data-driven check: a spread of its cases, every `every`-th; the
others are marked `long` (deselected by default, `python -m pytest -m long` runs them, and
`.ci/run` does), so that every case still runs in CI and the default run stays short."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest


def spread(values: Iterable[Any], every: int, ids: Callable[[Any], str] | None = None) -> list[Any]:
    """The cases, those but every `every`-th (from the first) marked `long`."""
    found = []
    for index, value in enumerate(values):
        marks = () if index % every == 0 else (pytest.mark.long,)
        name = ids(value) if ids is not None else None
        found.append(pytest.param(*value if isinstance(value, tuple) else (value,), marks=marks, id=name))
    return found

"""The web table (`coh serve`, the optional extra `web`): rooms of a game played in browsers,
each seat at its own secret link, bots at the others, kept in SQLite between restarts."""

from __future__ import annotations

import importlib.util

from coh_core.build_info import install_hint

REQUIRED = ("starlette", "uvicorn")
INSTALL_HINT = install_hint("web")


def missing_libraries(names: tuple[str, ...] = REQUIRED) -> list[str]:
    """The libraries among `names` that are not installed (found without importing them)."""
    return [name for name in names if importlib.util.find_spec(name) is None]

"""The user's cache: what earlier runs found, under names made of digests of everything it
depends on, so that an entry can never answer for content that changed.

Where: `$COH_CACHE_DIR`, else `$XDG_CACHE_HOME/coh`, else `~/.cache/coh` (created private to the
user). `COH_NO_CACHE=1` turns it off. Most entries are empty files: coh only asks whether one
exists. The one read is lark's table for the effects grammar, which lark checks against the
grammar's digest before using it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
from pathlib import Path

_ENTRY = re.compile(r"[a-z][a-z-]*/[0-9a-f]{64}")  # a folder of the cache and a digest: no path


def directory() -> Path | None:
    """The cache's folder, or None when the cache is turned off."""
    if os.environ.get("COH_NO_CACHE", "") not in ("", "0"):
        return None
    given = os.environ.get("COH_CACHE_DIR")
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "coh"


def enabled() -> bool:
    return directory() is not None


def has(entry: str) -> bool:
    """Whether an earlier run recorded `entry` (a folder and a digest)."""
    folder = directory()
    return folder is not None and bool(_ENTRY.fullmatch(entry)) and (folder / entry).is_file()


def add(entry: str) -> None:
    """Record `entry`; a cache that cannot be written (a read-only home) is simply not used."""
    name, _, digest = entry.partition("/")
    folder = created(name) if _ENTRY.fullmatch(entry) else None
    if folder is None:
        return
    with contextlib.suppress(OSError):
        (folder / digest).touch()


def created(name: str) -> Path | None:
    """A folder of the cache, created private to the user; None if off or impossible."""
    root = directory()
    if root is None or not re.fullmatch(r"[a-z][a-z-]*", name):
        return None
    try:
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        (root / name).mkdir(exist_ok=True, mode=0o700)
    except OSError:
        return None
    return root / name


def library_stamp(name: str) -> str:
    """An installed library's version as its files show it (size and time of its first module):
    installing another version changes it. Found without importing the library."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return f"{name}:absent"
    try:
        found = os.stat(spec.origin)
    except OSError:
        return f"{name}:{spec.origin}"
    return f"{name}:{spec.origin}:{found.st_size}:{found.st_mtime_ns}"

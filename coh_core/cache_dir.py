"""The user's cache: what earlier runs found, under names made of digests of everything it
depends on, so that an entry can never answer for content that changed.

Where: `$COH_CACHE_DIR`, else `$XDG_CACHE_HOME/coh`, else the folder each system has for a user's
cached files (platformdirs' `user_cache_dir`: `~/.cache/coh` on Linux, under `~/Library` on macOS,
under `%LOCALAPPDATA%` on Windows), created private to the user. `COH_NO_CACHE=1` turns it off.
Most entries are empty files: coh only asks whether one exists. Those read are lark's table for
the effects grammar, which lark checks against the grammar's digest before using it, and files of
entries (`Stored`: the effects' trees, the YAML files read) named by a digest of the code that
writes them, each entry by a digest of all it depends on.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib.util
import os
import pickle
import re
from pathlib import Path
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

_ENTRY = re.compile(r"[a-z][a-z-]*/[0-9a-f]{64}")  # a folder of the cache and a digest: no path


def directory() -> Path | None:
    """The cache's folder, or None when the cache is turned off."""
    if os.environ.get("COH_NO_CACHE", "") not in ("", "0"):
        return None
    given = os.environ.get("COH_CACHE_DIR")
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:  # honoured on every system, as it always was
        return Path(xdg) / "coh"
    from platformdirs import user_cache_dir  # imported where no folder is given, not at start-up

    return Path(user_cache_dir("coh", appauthor=False))


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


class PickledDict(dict[K, V]):
    """Entries kept in one pickle file of the cache, named by a digest of the code that makes
    them; read once, written back whole (replaced, never half written) when the process ends if
    it learned new ones. A damaged or older file is ignored: its entries are worked out again."""

    LIMIT = 20_000  # entries kept: past this, the file starts again (what is no longer used)

    def __init__(self, path: Path | None) -> None:
        super().__init__()
        self.path, self.learned = path, False
        if path is not None and path.is_file():
            try:
                # written by coh in the user's own cache folder (private to the user)
                found = pickle.loads(path.read_bytes())
                self.update(found if isinstance(found, dict) else {})
            except Exception:  # a damaged or older file: work them out again, and write it anew
                self.clear()

    def learn(self, key: K, value: V) -> None:
        if self.path is None:
            return
        if len(self) >= self.LIMIT:
            self.clear()
        self[key] = value
        if not self.learned:
            self.learned = True
            atexit.register(self.save)

    def save(self) -> None:
        if self.path is None:
            return
        spare = self.path.with_name(f"{self.path.name}.{os.getpid()}")
        try:
            spare.write_bytes(pickle.dumps(dict(self), protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(spare, self.path)  # whole: a process reading it never sees half a file
        except (OSError, pickle.PicklingError, RecursionError):
            spare.unlink(missing_ok=True)


class Stored(PickledDict[str, bytes]):
    """Entries (bytes, by a digest of all each depends on): each read of an entry gives its own
    bytes, a fresh object once unpickled."""


def stored(name: str, sources: list[Path], stamps: list[str]) -> Stored:
    """The entries of the cache's folder `name`, made by the code in `sources` with the installed
    libraries `stamps` (see `library_stamp`); none when the cache is off."""
    folder = created(name)
    if folder is None:
        return Stored(None)
    digest = hashlib.sha256()
    for source in sources:
        digest.update(hashlib.sha256(source.read_bytes()).digest())
    for stamp in stamps:
        digest.update(stamp.encode())
    path = folder / f"{name}-{digest.hexdigest()[:32]}.pickle"
    if path not in _STORED:  # one per file: each would write it whole, and the last one win
        _STORED[path] = Stored(path)
    return _STORED[path]


_STORED: dict[Path, Stored] = {}

"""Writing a whole file or nothing: what `coh export -o` and `coh play --save` write."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from coh_core.errors import UsageError


def write_whole(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file beside it, then put in its place: a reader
    sees the old file or the new one, never half of one, and an error or Ctrl-C while writing
    leaves no temporary file. The file keeps its permissions (a new one gets the umask's).
    UsageError IO-WRITE if it cannot be written."""
    temporary: str | None = None
    try:
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
        ) as handle:
            temporary = handle.name
            handle.write(text)
        os.chmod(temporary, _file_mode(path))
        os.replace(temporary, path)
        temporary = None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}", code="IO-WRITE") from None
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


def _file_mode(path: Path) -> int:
    """The permissions a file written in place would have: its own, else the umask's."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask

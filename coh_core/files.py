"""Writing a whole file or nothing: what `coh export -o` and `coh play --save` write."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from coh_core.errors import UsageError


def write_whole(path: Path, text: str) -> None:
    """Write `text` to `path` as the kind of thing it is (UsageError IO-WRITE if it cannot be written).

    A new path or a regular file: through a temporary file beside it, then put in its place: a
    reader sees the old file or the new one, never half of one, and an error or Ctrl-C while
    writing leaves no temporary file. The file keeps its permissions (a new one gets the umask's).
    A symbolic link: the same for the file it leads to (made if absent), the link kept.
    A named pipe or a character device (a terminal, /dev/stdout, /dev/null): written to as a
    stream, as a shell's `>` would; opening a pipe waits for a reader.
    Anything else (a folder, a block device, a socket) is refused before anything is written.
    """
    try:
        found = os.stat(path)  # through links, to what is written
    except FileNotFoundError:
        found = None  # a new file, at the path or where its link leads
    except (OSError, ValueError) as exc:  # a loop of links, a file where a folder should be, a NUL
        raise _cannot(path, exc) from None
    if found is not None and (stat.S_ISFIFO(found.st_mode) or stat.S_ISCHR(found.st_mode)):
        _write_stream(path, text)
    elif found is not None and not stat.S_ISREG(found.st_mode):
        raise UsageError(f"cannot write {path}: it is {kind_of(found.st_mode)}", code="IO-WRITE")
    else:
        target = Path(os.path.realpath(path))
        if found is None or _same_file(found, target):
            _replace(target, text, path)
        else:  # a link the system makes up (/dev/stdout to a file a shell opened): no path to replace
            _write_stream(path, text)


def kind_of(mode: int) -> str:
    """What a file of this mode is, as a message says it ("a folder", "a named pipe"...)."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "no regular file")


def _same_file(found: os.stat_result, path: Path) -> bool:
    try:
        return os.path.samestat(found, os.stat(path))
    except OSError:
        return False


def _cannot(path: Path, exc: OSError | ValueError) -> UsageError:
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return UsageError(f"cannot write {path}: {why}", code="IO-WRITE")


def _write_stream(path: Path, text: str) -> None:
    """Write to a pipe or a device as it is (no O_CREAT: if it went away, nothing is made instead)."""
    try:
        with open(os.open(path, os.O_WRONLY), "w", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as exc:
        raise _cannot(path, exc) from None


def _replace(target: Path, text: str, given: Path) -> None:
    """Write `target` through a temporary file beside it; errors name the path as `given`."""
    temporary: str | None = None
    try:
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
        ) as handle:
            temporary = handle.name
            handle.write(text)
        os.chmod(temporary, _file_mode(target))
        os.replace(temporary, target)
        temporary = None
    except OSError as exc:
        raise _cannot(given, exc) from None
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

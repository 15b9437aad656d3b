"""Which files a pack may read: only regular files inside its own directory.

Every name a pack gives (a manifest's `files` and `text`, a text file found by its name) is
checked here before anything opens it. A name that is absolute, climbs with `..`, holds a
NUL character or is over-long, or that leads outside the pack through a symbolic link, is
refused without being opened; so are directories, devices, pipes and symbolic-link loops.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path, PurePosixPath

from coh_core.errors import CohError
from coh_core.limits import MAX_NAME_BYTES, MAX_PATH_CHARS

_DRIVE = re.compile(r"^[A-Za-z]:")


class PathRefused(CohError):
    """A name a pack gives that must not be opened; `code` says why (PACK-PATH, IO-READ, FILE-MISSING)."""


def real_path(path: Path) -> Path:
    """`path` with every symbolic link followed, as far as it exists; never raises on a loop."""
    return Path(os.path.realpath(path))


def _contained(root: Path, relative: str) -> Path:
    """The pack's real root, once the name `relative` is checked and found inside it (containment
    first, so that nothing outside the pack is even looked up)."""
    _check_name(relative)
    base = real_path(root)
    if not real_path(base / relative).is_relative_to(base):
        raise PathRefused(
            f"`{_shown(relative)}` is a symbolic link to a place outside the pack; a pack reads only"
            " its own files",
            code="PACK-PATH",
        )
    return base


def file_in_pack(root: Path, relative: str) -> Path:
    """The regular file `relative` names inside the pack at `root`, checked before it is opened."""
    base = _contained(root, relative)
    try:
        target = Path(os.path.realpath(base / relative, strict=True))
    except FileNotFoundError:
        raise PathRefused(f"`{_shown(relative)}` does not exist", code="FILE-MISSING") from None
    except OSError as exc:  # a symbolic-link loop, a folder that cannot be searched
        raise PathRefused(f"cannot read `{_shown(relative)}`: {exc.strerror}", code="IO-READ") from None
    return _regular(target, relative)


def path_in_pack(root: Path, relative: str) -> Path:
    """The regular file or the folder `relative` names inside the pack at `root` (a manifest lists
    its scenarios by file or by folder), checked as `file_in_pack` checks a file."""
    base = _contained(root, relative)
    if real_path(base / relative).is_dir():
        return real_path(base / relative)
    return file_in_pack(root, relative)


def readable_file(path: Path) -> Path:
    """`path` (a file named on the command line) if it is a regular file; else PathRefused (IO-READ)."""
    try:
        target = Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:
        raise PathRefused(f"no such file: {path}", code="IO-MISSING") from None
    except OSError as exc:
        raise PathRefused(f"cannot read `{_shown(str(path))}`: {exc.strerror}", code="IO-READ") from None
    return _regular(target, str(path))


def _check_name(relative: str) -> None:
    if "\x00" in relative:
        raise PathRefused(f"`{_shown(relative)}` contains a NUL character", code="PACK-PATH")
    if len(relative) > MAX_PATH_CHARS:
        raise PathRefused(
            f"`{_shown(relative)}` is longer than {MAX_PATH_CHARS} characters", code="PACK-PATH"
        )
    if "\\" in relative:
        raise PathRefused(f"`{_shown(relative)}`: separate folders with /, not \\", code="PACK-PATH")
    parts = PurePosixPath(relative).parts
    if relative.startswith("/") or _DRIVE.match(relative):
        raise PathRefused(
            f"`{_shown(relative)}` is an absolute path; name a file inside the pack, relative to pack.yaml",
            code="PACK-PATH",
        )
    if ".." in parts:
        raise PathRefused(f"`{_shown(relative)}` climbs out of the pack with `..`", code="PACK-PATH")
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in parts):
        raise PathRefused(
            f"`{_shown(relative)}` has a name longer than {MAX_NAME_BYTES} bytes", code="PACK-PATH"
        )


def _regular(target: Path, shown: str) -> Path:
    try:
        mode = target.stat().st_mode
    except OSError as exc:
        raise PathRefused(f"cannot read `{_shown(shown)}`: {exc.strerror}", code="IO-READ") from None
    if stat.S_ISDIR(mode):
        raise PathRefused(f"`{_shown(shown)}` is a directory, not a file", code="IO-READ")
    if not stat.S_ISREG(mode):
        raise PathRefused(f"`{_shown(shown)}` is not a regular file", code="IO-READ")
    return target


def _shown(name: str, width: int = 80) -> str:
    """A name as it is echoed in a message: control characters escaped, long ones shortened."""
    printable = name.encode("unicode_escape").decode("ascii") if not name.isprintable() else name
    return printable if len(printable) <= width else f"{printable[:width]}..."

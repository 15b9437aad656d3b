"""Writing a whole file or nothing (`coh export -o`, `coh play --save`), and a folder's files
all together or none of them (`coh simulate --out`)."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType

from coh_core.errors import Location, UsageError


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


def _cannot(path: Path, exc: OSError | ValueError, where: Location | None = None) -> UsageError:
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return UsageError(f"cannot write {path}: {why}", where, code="IO-WRITE")


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
        return 0o666 & ~_umask()


class WholeFolder:
    """The files `names` of the folder `out`, written together or not at all.

    Entering checks `out` (`check_folder`) and makes a private folder to write them in (the
    real test that `out` can be written): inside `out` when it exists, else in the deepest
    folder above it that does. Leaving without an error moves them into `out`: a new `out` by
    renaming the private folder to it (at once, however many files), an existing one file by
    file, each replacing the file of that name. Ctrl-C, SIGTERM and SIGHUP are held back while
    that happens, so an interruption leaves the files all old or all new. Leaving with an error
    (or an interruption) moves nothing. Either way the private folder is removed. The other
    files of `out` are left as they are. Errors are UsageError IO-WRITE, located at `where`.
    """

    def __init__(self, out: Path, names: Sequence[str], where: str | None = None) -> None:
        self.out = out
        self.names = tuple(names)
        self.where = Location(where) if where else None
        self.staging: Path | None = None
        self.done = False  # whether the files are in `out`

    def __enter__(self) -> Path:
        exists = check_folder(self.out, self.names, self.where)
        above = self.out if exists else _deepest_folder(self.out)
        try:
            with signals_held():  # made and noted, or not made
                self.staging = Path(tempfile.mkdtemp(prefix=".coh-partial-", dir=above))
        except OSError as exc:
            why = f"cannot make a folder in {above} ({exc.strerror})"
            raise UsageError(f"cannot write {self.out}: {why}", self.where, code="IO-WRITE") from None
        except BaseException:  # a signal held back meanwhile: __exit__ is not called for this block
            self._remove_staging()
            raise
        return self.staging

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            if kind is None:
                self._move_in()
        finally:
            self._remove_staging()

    def _remove_staging(self) -> None:
        staging, self.staging = self.staging, None
        if staging is not None:
            with signals_held():
                shutil.rmtree(staging, ignore_errors=True)

    def _move_in(self) -> None:
        assert self.staging is not None
        exists = check_folder(self.out, self.names, self.where)  # again: the games may have taken hours
        try:
            with signals_held():
                if not exists and self._renamed():
                    return
                for name in self.names:
                    _keep_mode(self.out / name, self.staging / name)
                    os.replace(self.staging / name, self.out / name)
                self.done = True
        except OSError as exc:
            why = exc.strerror or str(exc)
            raise UsageError(f"cannot write {self.out}: {why}", self.where, code="IO-WRITE") from None

    def _renamed(self) -> bool:
        """The private folder made `out` (and the folders above it made); False if `out` has
        appeared meanwhile with files in it (they are then moved in one by one)."""
        assert self.staging is not None
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.staging.chmod(0o777 & ~_umask())  # as a folder made by mkdir (mkdtemp's is private)
        try:
            os.rename(self.staging, self.out)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            check_folder(self.out, self.names, self.where)
            return False
        self.staging, self.done = None, True
        return True


def check_folder(out: Path, names: Sequence[str], where: Location | None = None) -> bool:
    """Whether the folder `out` exists; UsageError IO-WRITE, naming what is in the way, when the
    files `names` cannot be written in it: `out` (or a folder above it) is no folder, one of
    the names is taken by anything but a regular file (a folder, a link, a pipe...)."""

    def refused(path: Path, why: str) -> UsageError:
        return UsageError(f"cannot write {path}: {why}", where, code="IO-WRITE")

    try:
        found = os.stat(out)  # through a link: a link to a folder is that folder
    except FileNotFoundError:
        if os.path.islink(out):
            raise refused(out, "it is a symbolic link to nothing") from None
        return False
    except NotADirectoryError as exc:
        blocking = next((p for p in reversed(out.parents) if p.exists() and not p.is_dir()), None)
        if blocking is None:  # (gone since, or on the way a link leads)
            raise _cannot(out, exc, where) from None
        raise refused(out, f"{blocking} is {kind_of(blocking.stat().st_mode)}, not a folder") from None
    except (OSError, ValueError) as exc:
        raise _cannot(out, exc, where) from None
    if not stat.S_ISDIR(found.st_mode):
        raise refused(out, f"it is {kind_of(found.st_mode)}, not a folder")
    for name in names:
        try:
            mode = os.lstat(out / name).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _cannot(out / name, exc, where) from None
        if not stat.S_ISREG(mode):
            raise refused(out / name, f"it is {kind_of(mode)}, where a file is to be written")
    return True


def _deepest_folder(path: Path) -> Path:
    """The deepest folder above `path` that exists (the current one for a relative path)."""
    return next(p for p in path.absolute().parents if p.is_dir())


def _keep_mode(old: Path, new: Path) -> None:
    """`new` with the permissions of the file `old` it replaces, if there is one."""
    with suppress(FileNotFoundError):
        new.chmod(old.stat().st_mode & 0o7777)


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held back while the block runs (a few renames), then acted on
    as they would have been: an interruption comes after the block, never in its middle.

    Python runs signal handlers in the main thread only: elsewhere the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    held = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    # (a handler set outside Python, which getsignal gives as None, could not be put back)
    before = {number: signal.getsignal(number) for number in held if signal.getsignal(number) is not None}
    for number in before:
        signal.signal(number, lambda number, _: arrived.append(number))
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(arrived):
            signal.raise_signal(number)

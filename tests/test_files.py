"""Where coh writes what the user names.

`-o FILE` (`coh export`, `coh docs`, `coh i18n template`) and `coh play --save`:
`coh_core.files.write_whole` for each kind of path. A regular file or a new path is replaced
whole; a symbolic link's target is, the link kept; a named pipe or a character device is written
to as a stream; a folder, a block device, a socket or a path that cannot be reached is `IO-WRITE`,
exit 2, with nothing written.

A folder's files all together (`coh simulate --out`, whose own tests are in tests/sim):
`WholeFolder` writes them aside and moves them in at once, or not at all."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.errors import UsageError
from coh_core.files import WholeFolder, signals_held, write_whole

TEXT = "written\n"
COH = [sys.executable, "-c", "from coh_core.cli import main; main()"]  # `coh` in a process of its own
WAIT = 60.0  # seconds: the longest a test waits for a writer before failing instead of hanging


def _regular(tmp_path: Path) -> Path:
    target = tmp_path / "out.txt"
    target.write_text("previous\n")
    target.chmod(0o640)
    return target


def _link(tmp_path: Path) -> Path:
    (tmp_path / "real.txt").write_text("previous\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    return tmp_path / "link.txt"


def _chain(tmp_path: Path) -> Path:
    _link(tmp_path)
    (tmp_path / "second.txt").symlink_to("link.txt")
    return tmp_path / "second.txt"


def _dangling(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.txt").symlink_to("sub/real.txt")
    return tmp_path / "link.txt"


def _new(tmp_path: Path) -> Path:
    return tmp_path / "new.txt"


# Set-ups written whole: the path's own file (or the one its link leads to) holds the text, and
# every link is still a link. (name, set-up, the file written, the links that stay links)
WHOLE: list[tuple[str, Callable[[Path], Path], str, list[str]]] = [
    ("a new path", _new, "new.txt", []),
    ("a regular file", _regular, "out.txt", []),
    ("a link to a file", _link, "real.txt", ["link.txt"]),
    ("a link to a link to a file", _chain, "real.txt", ["link.txt", "second.txt"]),
    ("a link to a file not yet there", _dangling, "sub/real.txt", ["link.txt"]),
]


@pytest.mark.parametrize(("setup", "written", "links"), [c[1:] for c in WHOLE], ids=[c[0] for c in WHOLE])
def test_a_file_is_replaced_whole_and_a_link_is_followed(
    tmp_path: Path, setup: Callable[[Path], Path], written: str, links: list[str]
) -> None:
    given = setup(tmp_path)
    before = {p.name for p in tmp_path.rglob("*")}
    write_whole(given, TEXT)
    assert (tmp_path / written).read_text() == TEXT
    assert all((tmp_path / link).is_symlink() for link in links)
    assert {p.name for p in tmp_path.rglob("*")} == before | {Path(written).name}  # no temporary file


def test_a_replaced_file_keeps_its_permissions_through_a_link(tmp_path: Path) -> None:
    given = _link(tmp_path)
    (tmp_path / "real.txt").chmod(0o604)
    write_whole(given, TEXT)
    assert (tmp_path / "real.txt").read_text() == TEXT
    assert stat.S_IMODE((tmp_path / "real.txt").stat().st_mode) == 0o604


def test_a_named_pipe_is_written_to_and_stays_a_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # A reader first, opened without waiting for a writer: the writer's open then does not wait.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_whole(fifo, TEXT)  # (the text fits in the pipe's buffer)
        assert os.read(reader, 1024) == TEXT.encode()
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def _device(tmp_path: Path, name: str, minor: int) -> Path:
    """/dev/null (minor 3) or /dev/full (7): a node of its own when the tests run as root.

    Root may write in /dev: a `write_whole` that replaced what it writes to (as it once did)
    would replace the machine's /dev/null with a regular file. Anyone else cannot.
    """
    if os.geteuid() != 0:
        if not Path("/dev", name).is_char_device():
            pytest.skip(f"no /dev/{name}")
        return Path("/dev", name)
    node = tmp_path / name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, minor))  # Linux's numbers for them
    except (OSError, AttributeError) as exc:
        pytest.skip(f"no device node can be made here: {exc}")
    return node


def test_a_character_device_is_written_to_as_it_is(tmp_path: Path) -> None:
    null = _device(tmp_path, "null", 3)
    write_whole(null, TEXT)
    assert null.is_char_device()
    assert [p.name for p in tmp_path.iterdir()] in ([], ["null"])


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "folder").mkdir()
    return tmp_path / "folder"


def _link_to_folder(tmp_path: Path) -> Path:
    _folder(tmp_path)
    (tmp_path / "link").symlink_to("folder")
    return tmp_path / "link"


def _loop(tmp_path: Path) -> Path:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    return tmp_path / "a"


def _socket(tmp_path: Path) -> Path:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))  # left bound: the test's folder goes with it
    return tmp_path / "sock"


def _under_a_file(tmp_path: Path) -> Path:
    (tmp_path / "file").write_text("previous\n")
    return tmp_path / "file" / "out.txt"


def _missing_folder(tmp_path: Path) -> Path:
    return tmp_path / "missing" / "out.txt"


def _full_device(tmp_path: Path) -> Path:
    return _device(tmp_path, "full", 7)


# Set-ups refused: IO-WRITE naming the path, with the reason. (name, set-up, said)
REFUSED: list[tuple[str, Callable[[Path], Path], str]] = [
    ("a folder", _folder, "it is a folder"),
    ("a link to a folder", _link_to_folder, "it is a folder"),
    ("a loop of links", _loop, "Too many levels of symbolic links"),
    ("a socket", _socket, "it is a socket"),
    ("a file where a folder should be", _under_a_file, "Not a directory"),
    ("a folder that does not exist", _missing_folder, "No such file or directory"),
    ("a full device", _full_device, "No space left on device"),
]


@pytest.mark.parametrize(("setup", "said"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_what_cannot_take_a_file_is_an_io_error_and_nothing_is_written(
    tmp_path: Path, setup: Callable[[Path], Path], said: str
) -> None:
    given = setup(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(UsageError) as error:
        write_whole(given, TEXT)
    assert error.value.code == "IO-WRITE"
    assert error.value.message == f"cannot write {given}: {said}"
    assert sorted(tmp_path.rglob("*")) == before


# Every command that takes `-o FILE` writes through write_whole: one behaviour for all of them.
COMMANDS = [["export"], ["docs", "effects"], ["docs", "procedures"], ["i18n", "template", "fr"]]


def _ids(args: list[str]) -> str:
    return " ".join(args)


@pytest.mark.parametrize("command", COMMANDS, ids=_ids)
def test_each_command_follows_a_link_and_keeps_it(
    runner: CliRunner, tmp_path: Path, command: list[str]
) -> None:
    given = _link(tmp_path)
    result = runner.invoke(main, [*command, "-o", str(given)])
    assert result.exit_code == 0, result.output
    assert given.is_symlink()
    assert (tmp_path / "real.txt").read_text() == runner.invoke(main, command).stdout


@pytest.mark.parametrize("command", COMMANDS, ids=_ids)
def test_each_command_refuses_a_folder(runner: CliRunner, tmp_path: Path, command: list[str]) -> None:
    result = runner.invoke(main, [*command, "-o", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert f"IO-WRITE cannot write {tmp_path}: it is a folder" in result.stderr
    assert list(tmp_path.iterdir()) == []


def _read_while(fifo: Path, running: Callable[[], bool]) -> bytes:
    """What is written into `fifo` while `running()` (the writer) is true, read as it comes."""
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # there is a reader: the writer's open goes on
    chunks: list[bytes] = []
    start = time.monotonic()
    try:
        while time.monotonic() - start < WAIT:
            alive = running()  # before reading: a writer that has ended has written all it will
            try:
                data = os.read(reader, 1 << 16)
            except BlockingIOError:
                data = b""
            if data:
                chunks.append(data)
            elif not alive:
                break
            else:
                time.sleep(0.01)
    finally:
        os.close(reader)
    return b"".join(chunks)


@pytest.mark.parametrize("command", COMMANDS, ids=_ids)
def test_each_command_streams_into_a_named_pipe(
    runner: CliRunner, tmp_path: Path, command: list[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    results = []
    writer = threading.Thread(target=lambda: results.append(runner.invoke(main, [*command, "-o", str(fifo)])))
    writer.start()
    received = _read_while(fifo, writer.is_alive)
    writer.join(WAIT)
    assert results and results[0].exit_code == 0, results
    assert received.decode() == runner.invoke(main, command).stdout
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/fd as Linux makes it")
@pytest.mark.parametrize("into", ["a pipe", "a file"])
def test_the_link_to_stdout_writes_where_stdout_goes(tmp_path: Path, into: str) -> None:
    """/dev/stdout leads to /proc/self/fd/1 (written here: a `write_whole` that replaced the link
    could not replace it). A pipe: written to as a stream; a file (a shell's `>`): the link
    leads to it, and it is replaced whole."""
    expected = CliRunner().invoke(main, ["docs", "effects"]).stdout
    command = [*COH, "docs", "effects", "-o", "/proc/self/fd/1"]
    if into == "a pipe":
        done = subprocess.run(command, capture_output=True, text=True, timeout=WAIT, check=False)
        assert (done.returncode, done.stdout) == (0, expected), done.stderr
    else:
        target = tmp_path / "out.md"
        with target.open("w") as stdout:
            done = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, timeout=WAIT, check=False)
        assert done.returncode == 0, done.stderr
        assert target.read_text() == expected
        assert [p.name for p in tmp_path.iterdir()] == ["out.md"]


def test_a_save_through_a_link_keeps_the_link(tmp_path: Path) -> None:
    """`coh play --save` writes its file the same way."""
    save = _link(tmp_path)
    args = ["play", "--seed", "1", "--human", "red", "--save", str(save)]
    result = CliRunner().invoke(main, args, input="1\n")
    assert result.exit_code == 2, result.output  # the input ended: saved, then stopped
    assert save.is_symlink()
    assert '"decisions"' in (tmp_path / "real.txt").read_text()


# --- a folder's files, all together (`coh simulate --out`) ------------------------------------

NAMES = ("a.txt", "b.txt")


def _write_all(folder: Path, text: str) -> None:
    for name in NAMES:
        (folder / name).write_text(text)


def _entries(folder: Path) -> dict[str, str]:
    """Every entry below `folder` (hidden ones too), by its path inside it: its text, or `/`."""
    return {
        str(path.relative_to(folder)): "/" if path.is_dir() else path.read_text()
        for path in sorted(folder.rglob("*"))
    }


def test_the_files_are_moved_into_an_existing_folder_and_the_others_left(tmp_path: Path) -> None:
    _write_all(tmp_path, "old\n")
    (tmp_path / "mine.txt").write_text("mine\n")
    (tmp_path / "a.txt").chmod(0o600)
    folder = WholeFolder(tmp_path, NAMES)
    with folder as staging:
        assert staging.parent == tmp_path  # beside the files it replaces: a rename, on one file system
        _write_all(staging, "new\n")
        assert _entries(tmp_path)["a.txt"] == "old\n"  # nothing moved yet
    assert folder.done
    assert _entries(tmp_path) == {"a.txt": "new\n", "b.txt": "new\n", "mine.txt": "mine\n"}
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o600


def test_a_new_folder_is_made_at_once_with_the_folders_above_it(tmp_path: Path) -> None:
    out = tmp_path / "x" / "y" / "out"
    with WholeFolder(out, NAMES) as staging:
        assert staging.parent == tmp_path  # the deepest folder that exists
        _write_all(staging, "new\n")
        assert _entries(tmp_path) == {
            staging.name: "/",
            f"{staging.name}/a.txt": "new\n",
            f"{staging.name}/b.txt": "new\n",
        }
    assert _entries(tmp_path) == {
        "x": "/",
        "x/y": "/",
        "x/y/out": "/",
        "x/y/out/a.txt": "new\n",
        "x/y/out/b.txt": "new\n",
    }


@pytest.mark.parametrize("error", [ValueError("a failure"), KeyboardInterrupt()], ids=["an error", "Ctrl-C"])
@pytest.mark.parametrize("exists", [True, False], ids=["an existing folder", "a new folder"])
def test_an_error_in_the_block_moves_nothing_and_leaves_nothing(
    tmp_path: Path, error: BaseException, exists: bool
) -> None:
    out = tmp_path / "out"
    if exists:
        out.mkdir()
        _write_all(out, "old\n")
    before = _entries(tmp_path)
    folder = WholeFolder(out, NAMES)
    with pytest.raises(type(error)), folder as staging:
        _write_all(staging, "new\n")
        raise error
    assert not folder.done
    assert _entries(tmp_path) == before


@pytest.mark.usefixtures("default_ctrl_c")
@pytest.mark.parametrize("exists", [True, False], ids=["an existing folder", "a new folder"])
def test_ctrl_c_while_the_files_are_moved_in_comes_after_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exists: bool
) -> None:
    out = tmp_path / "out"
    if exists:
        out.mkdir()
        _write_all(out, "old\n")
    move = "replace" if exists else "rename"
    done = getattr(os, move)

    def interrupted(*args: Any) -> None:
        monkeypatch.setattr(os, move, done)
        signal.raise_signal(signal.SIGINT)
        done(*args)

    monkeypatch.setattr(os, move, interrupted)
    folder = WholeFolder(out, NAMES)
    with pytest.raises(KeyboardInterrupt), folder as staging:
        _write_all(staging, "new\n")
    assert folder.done
    assert _entries(tmp_path) == {"out": "/", "out/a.txt": "new\n", "out/b.txt": "new\n"}


@pytest.mark.usefixtures("default_ctrl_c")
def test_ctrl_c_as_the_private_folder_is_made_leaves_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make = tempfile.mkdtemp

    def interrupted(**kwargs: Any) -> str:
        signal.raise_signal(signal.SIGINT)
        return make(**kwargs)

    monkeypatch.setattr(tempfile, "mkdtemp", interrupted)
    with pytest.raises(KeyboardInterrupt), WholeFolder(tmp_path / "out", NAMES):
        raise AssertionError("the block is not run")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.usefixtures("default_ctrl_c")
def test_a_signal_held_back_is_acted_on_after_the_block() -> None:
    steps: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with signals_held():
            signal.raise_signal(signal.SIGINT)
            steps.append("the rest of the block")
        steps.append("after the block")
    assert steps == ["the rest of the block"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_file_where_the_folder_should_be_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("mine\n")
    with pytest.raises(UsageError) as error, WholeFolder(tmp_path / "out" / "sub", NAMES):
        pass
    assert error.value.code == "IO-WRITE"
    assert (
        error.value.message
        == f"cannot write {tmp_path}/out/sub: {tmp_path}/out is a regular file, not a folder"
    )
    assert _entries(tmp_path) == {"out": "mine\n"}

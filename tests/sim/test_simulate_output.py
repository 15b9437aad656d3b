"""`coh simulate --out`: the report is written aside, then moved in all together. An error,
Ctrl-C (exit 130) or SIGTERM (143) leaves the previous report as it was, or the new one whole,
never a mix and never the folder it was written in; files coh did not write are left alone
(skipped without the sim extra)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

for _library in ("joblib", "scipy", "matplotlib", "tqdm"):
    pytest.importorskip(_library, reason="coh simulate's extra is not installed: pip install '.[sim]'")

from coh_core.cli import main  # noqa: E402
from coh_core.sim import OUTPUTS, report, run  # noqa: E402

ARGS = ["simulate", "--games", "2", "--bots", "random", "--workers", "1", "--no-progress"]
MINE = "notes.txt"  # a file of the user's in the output folder


def _simulate(runner: CliRunner, out: Path, *args: str) -> Result:
    result = runner.invoke(main, [*ARGS, "--out", str(out), *args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


@pytest.fixture(scope="module")
def previous(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the report of an earlier run (seed 7) and a file of the user's."""
    out = tmp_path_factory.mktemp("previous") / "out"
    result = _simulate(CliRunner(), out, "--seed", "7")
    assert result.exit_code == 0, result.output
    (out / MINE).write_text("my notes\n")
    return out


@pytest.fixture()
def out(previous: Path, tmp_path: Path) -> Path:
    """A copy of `previous` for one test."""
    return Path(shutil.copytree(previous, tmp_path / "out", symlinks=True))


def _contents(folder: Path) -> dict[str, bytes]:
    """Every entry of the folder, hidden ones too, by name."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def _raises(error: BaseException) -> Callable[..., Any]:
    def fails(*args: object, **kwargs: object) -> None:
        raise error

    return fails


# How a run goes wrong: (name, what to replace with what fails, exit code, what stderr ends with).
# `run.simulate` plays the games; the plots are drawn after games.jsonl and summary.json are
# written (with one worker, in the command's own process).
INTERRUPTED = "SIM-INTERRUPTED interrupted before the report was written: {out} is as it was\n"
FAILED = "ENGINE-INTERNAL the engine failed (ValueError: broken)\n"
FAILURES: list[tuple[str, str, BaseException, int, str]] = [
    ("Ctrl-C during the games", "simulate", KeyboardInterrupt(), 130, INTERRUPTED),
    ("Ctrl-C while the plots are drawn", "plot_lengths", KeyboardInterrupt(), 130, INTERRUPTED),
    ("a game that fails", "simulate", ValueError("broken"), 1, FAILED),
    (
        "a full disk while the report is written",
        "plot_lengths",
        OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
        2,
        "--out: IO-WRITE cannot write {out}: No space left on device\n",
    ),
    ("a plot that fails", "plot_lengths", ValueError("broken"), 1, FAILED),
]


@pytest.mark.parametrize(
    ("replaced", "error", "code", "said"), [f[1:] for f in FAILURES], ids=[f[0] for f in FAILURES]
)
def test_a_run_that_stops_leaves_the_previous_report_as_it_was(
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    out: Path,
    replaced: str,
    error: BaseException,
    code: int,
    said: str,
) -> None:
    before = _contents(out)
    monkeypatch.setattr(run if replaced == "simulate" else report, replaced, _raises(error))
    result = _simulate(runner, out)
    assert result.exit_code == code, result.output
    assert result.stderr.endswith(said.format(out=out))
    assert _contents(out) == before  # every file as it was, and no folder the report was written in


def test_a_new_folder_appears_whole_or_not_at_all(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "a" / "b" / "out"
    with monkeypatch.context() as patch:
        patch.setattr(report, "plot_lengths", _raises(KeyboardInterrupt()))
        assert _simulate(runner, out).exit_code == 130
    assert list(tmp_path.iterdir()) == []  # not even the folders above it
    result = _simulate(runner, out)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.rglob("*")) == sorted(["a", "b", "out", *OUTPUTS])
    umask = os.umask(0)
    os.umask(umask)
    assert (out.stat().st_mode & 0o777) == 0o777 & ~umask  # as `mkdir` makes it (not private)


def test_a_new_report_replaces_the_old_one_and_leaves_the_other_files(
    runner: CliRunner, out: Path, previous: Path
) -> None:
    (out / "report.md").chmod(0o600)
    result = _simulate(runner, out, "--seed", "8")
    assert result.exit_code == 0, result.output
    after = _contents(out)
    assert sorted(after) == sorted([*OUTPUTS, MINE])
    assert after[MINE] == (previous / MINE).read_bytes()
    assert after["games.jsonl"] != (previous / "games.jsonl").read_bytes()  # seed 8, not 7
    assert (out / "report.md").stat().st_mode & 0o777 == 0o600  # the replaced file's permissions


@pytest.mark.usefixtures("default_ctrl_c")
@pytest.mark.parametrize("new", [False, True], ids=["into a folder", "as a new folder"])
@pytest.mark.parametrize(
    ("number", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["INT", "TERM"]
)
def test_a_signal_while_the_files_are_moved_in_comes_after_them(
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    out: Path,
    previous: Path,
    number: int,
    code: int,
    new: bool,
) -> None:
    """The signal arrives at the first rename: the others are done all the same, then it stops
    the command (as the signal does)."""
    if new:
        shutil.rmtree(out)
    move = "rename" if new else "replace"
    done = getattr(os, move)

    def interrupted(*args: Any) -> None:
        monkeypatch.setattr(os, move, done)
        signal.raise_signal(number)
        done(*args)

    monkeypatch.setattr(os, move, interrupted)
    result = _simulate(runner, out, "--seed", "8")
    assert result.exit_code == code, result.output
    assert result.stderr == f"SIM-INTERRUPTED interrupted after the report was written in {out}\n"
    after = _contents(out)
    assert sorted(after) == sorted([*OUTPUTS] if new else [*OUTPUTS, MINE])
    assert all(after[name] != (previous / name).read_bytes() for name in ("games.jsonl", "summary.json"))


# --- real signals, to a real command with worker processes -----------------------------------

ANNOUNCED = """
import os, pathlib, signal, sys
# as a command started at a terminal (a background job of a shell without job control would
# start with Ctrl-C ignored, and a command keeps it so)
signal.signal(signal.SIGINT, signal.default_int_handler)
from coh_core.sim import games
play = games.play_task
def announced(task):  # each game leaves a file as it starts: the test knows the games have begun
    pathlib.Path(os.environ["COH_TEST_PLAYED"], str(task.first)).touch()
    return play(task)
games.play_task = announced
from coh_core.cli import main
main()
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the workers are forked on Linux")
@pytest.mark.parametrize(
    ("number", "everyone", "code"),
    [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 143), (signal.SIGHUP, True, 129)],
    ids=["Ctrl-C at the terminal", "SIGTERM to the command", "the terminal hung up"],
)
def test_a_signal_during_the_games_stops_every_process_and_leaves_the_folder_as_it_was(
    out: Path, tmp_path: Path, number: int, everyone: bool, code: int
) -> None:
    """`everyone`: to every process of the command (as a terminal sends it), else to its first only."""
    played = tmp_path / "played"
    played.mkdir()
    before = _contents(out)
    args = ["simulate", "--games", "400", "--bots", "random", "--workers", "2", "--out", str(out)]
    command = subprocess.Popen(
        [sys.executable, "-c", ANNOUNCED, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env={**os.environ, "COH_TEST_PLAYED": str(played)},
    )  # fmt: skip
    try:
        start = time.monotonic()
        while len(list(played.iterdir())) < 4 and time.monotonic() - start < 60:
            time.sleep(0.05)
        (os.killpg if everyone else os.kill)(command.pid, number)
        stdout, stderr = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
    assert command.returncode == code, stderr
    assert (
        stderr.splitlines()[-1]
        == f"SIM-INTERRUPTED interrupted before the report was written: {out} is as it was"
    )
    assert "Traceback" not in stderr
    assert stdout == ""
    assert _contents(out) == before
    assert len(list(played.iterdir())) < 400
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):  # no worker left playing
        os.killpg(command.pid, 0)


def _runaway_pack(base_copy: Path) -> Path:
    """The base pack, with a setup step whose loop runs 1,274,999 pack verbs before the first
    decision (a verb that runs 255, called 5,000 times): past the work play allows."""
    links = [f'  - {{id: h{i}, doc: One link., do: "h{i + 1}(); h{i + 1}()"}}' for i in range(7)]
    (base_copy / "verbs.yaml").write_text(
        "\n".join(["verbs:", *links, '  - {id: h7, doc: The last link., do: "no_effect()"}']) + "\n"
    )
    manifest = base_copy / "pack.yaml"
    manifest.write_text(
        manifest.read_text().replace("  - params.yaml\n", "  - params.yaml\n  - verbs.yaml\n")
    )
    turn, step = base_copy / "turn.yaml", "        build_invasion_deck()\n"
    turn.write_text(turn.read_text().replace(step, step + "        for i in range(1, 5000) { h0() }\n", 1))
    return base_copy


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_engine_error_in_a_game_is_reported_located_and_nothing_is_written(
    base_copy: Path, tmp_path: Path, workers: str
) -> None:
    """The error of a game played in a worker process reaches the command whole (its code and
    place), as one played in the command's own process does: exit 1, no report."""
    pack = _runaway_pack(base_copy)
    result = CliRunner().invoke(
        main, ["simulate", "--games", "2", "--bots", "random", "--no-progress", "--workers", workers,
               "--pack", str(pack), "--out", str(tmp_path / "o"), "--format", "json"],
    )  # fmt: skip
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output
    [problem] = json.loads(result.stdout)["problems"]
    assert problem["code"] == "ENGINE-LIMIT"
    assert "more than 1,000,000 pack verbs run between two decisions" in problem["message"]
    assert Path(problem["file"]).name == "verbs.yaml" and problem["line"] > 1
    assert not (tmp_path / "o").exists()

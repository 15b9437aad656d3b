"""`coh simulate` refuses what it cannot do before it plays any game: every argument checked as
`coh play` checks it, and an `--out` that cannot take the report. Exit 2 (1 for a broken pack),
a stable code, the offending value, never a traceback, nothing written; with `--format json`,
one JSON document on stdout (skipped without the sim extra)."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

for _library in ("joblib", "scipy", "matplotlib", "tqdm"):
    pytest.importorskip(_library, reason="coh simulate's extra is not installed: pip install '.[sim]'")

from coh_core.cli import main  # noqa: E402
from coh_core.limits import MAX_SEED, MIN_SEED  # noqa: E402
from coh_core.sim import OUTPUTS, run  # noqa: E402
from coh_core.sim.games import base_seeds, game_seed  # noqa: E402

NO_DASK = importlib.util.find_spec("distributed") is None


@pytest.fixture(autouse=True)
def _no_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case here is refused before the games: playing one fails the test."""

    def played(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr(run, "simulate", played)


def _simulate(runner: CliRunner, out: Path, *args: str) -> Result:
    result = runner.invoke(main, ["simulate", "--games", "2", "--no-progress", "--out", str(out), *args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


# --- arguments ------------------------------------------------------------------------------

# (arguments, exit code, what stderr says). Click's own checks (a number out of its range, a
# choice that is none) say "Invalid value", exit 2, as for `coh play`.
ARGUMENTS: list[tuple[list[str], int, str]] = [
    (["--players", "12"], 2, "GAME-PLAYERS this pack plays with 3-6 players, not 12"),
    (["--players", "2"], 2, "GAME-PLAYERS this pack plays with 3-6 players, not 2"),
    (["--players", "4", "--players", "7"], 2, "GAME-PLAYERS this pack plays with 3-6 players, not 7"),
    (["--players", "13"], 2, "Invalid value for '--players'"),
    (["--players", "4", "--players", "4"], 2, "--players: USAGE-SIM --players 4 is given twice"),
    (["--games", "0"], 2, "Invalid value for '--games'"),
    (["--seed", "x"], 2, "Invalid value for '--seed'"),
    (["--seed", str(2**63)], 2, f"--seed: USAGE-SEED --seed {2**63}: the games' seeds"),
    (["--seed", str(-(2**63))], 2, f"--seed: USAGE-SEED --seed {-(2**63)}: the games' seeds"),
    (["--workers", "0"], 2, "USAGE-SIM --workers 0: give a number of processes"),
    (["--workers", "5000"], 2, "USAGE-SIM --workers 5000: at most 1024 processes"),
    (["--bots", "clever"], 2, "USAGE-SIM --bots 'clever': the bots are"),
    (
        ["--bots", "random,heuristic"],
        2,
        "USAGE-SIM --bots random,heuristic: one kind per seat needs 2 players",
    ),
    (["--expert-iterations", "5"], 2, "USAGE-BUDGET --expert-iterations goes with an expert bot"),
    (["--bots", "expert", "--expert-iterations", "0"], 2, "USAGE-BUDGET --expert-iterations 0"),
    (["--bots", "expert", "--expert-seconds", "nan"], 2, "USAGE-BUDGET --expert-seconds nan"),
    (["--compare", "base"], 2, "USAGE-SIM --compare needs at least two variants"),
    (["base", "zombie-horde"], 2, "USAGE-SIM `base`: variants are named after --compare"),
    (["--compare", "base", "base"], 2, "--compare: USAGE-SIM variant `base` is named twice"),
    (["--compare", "base", "zombie-horde+"], 2, "USAGE-SIM variant `zombie-horde+` has an empty part"),
    (["--compare", "base", ""], 2, "USAGE-SIM variant `` has an empty part"),
    (["--compare", "base", "no-such-overlay"], 2, "OVERLAY-UNKNOWN"),
    (["--rules", "no-such-overlay"], 2, "OVERLAY-UNKNOWN"),
    (["--scheduler", "tcp://127.0.0.1:1"], 2, "USAGE-SIM --scheduler goes with --backend dask"),
    (["--backend", "spark"], 2, "Invalid value for '--backend'"),
    (["--format", "yaml"], 2, "Invalid value for '--format'"),
]
DASK_ARGUMENTS: list[tuple[list[str], int, str]] = [
    (["--backend", "dask", "--workers", "2"], 2, "USAGE-SIM --workers goes with --backend joblib"),
    (["--backend", "dask", "--scheduler", ""], 2, "--scheduler: SIM-SCHEDULER an empty address"),
]


def _ids(cases: list[tuple[list[str], int, str]]) -> list[str]:
    return [" ".join(args) or "(none)" for args, _, _ in cases]


@pytest.mark.parametrize(("args", "code", "said"), ARGUMENTS, ids=_ids(ARGUMENTS))
def test_bad_arguments_are_refused_before_any_game(
    runner: CliRunner, tmp_path: Path, args: list[str], code: int, said: str
) -> None:
    result = _simulate(runner, tmp_path / "o", *args)
    assert result.exit_code == code, result.output
    assert said in result.stderr
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(NO_DASK, reason="the extra dask is not installed")
@pytest.mark.parametrize(("args", "code", "said"), DASK_ARGUMENTS, ids=_ids(DASK_ARGUMENTS))
def test_options_of_the_other_backend_are_refused(
    runner: CliRunner, tmp_path: Path, args: list[str], code: int, said: str
) -> None:
    result = _simulate(runner, tmp_path / "o", *args)
    assert result.exit_code == code, result.output
    assert said in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("games", [1, 2, 1000])
def test_the_seeds_accepted_are_those_whose_games_fit_in_a_record(games: int) -> None:
    low, high = base_seeds(games)
    assert game_seed(low, 0) >= MIN_SEED > game_seed(low - 1, 0)
    assert game_seed(high, games - 1) <= MAX_SEED < game_seed(high + 1, games - 1)


def test_a_broken_pack_is_exit_1_before_any_game(runner: CliRunner, base_copy: Path, tmp_path: Path) -> None:
    (base_copy / "pack.yaml").write_text("id: [", encoding="utf-8")
    result = _simulate(runner, tmp_path / "o", "--pack", str(base_copy))
    assert result.exit_code == 1, result.output
    assert "fix the pack first (coh validate)" in result.stderr
    assert not (tmp_path / "o").exists()


# --- the output folder ----------------------------------------------------------------------


def _a_file(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "out").write_text("mine\n")
    return tmp_path / "out", "{out}: it is a regular file, not a folder"


def _a_file_above(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "file").write_text("mine\n")
    return tmp_path / "file" / "out", f"{{out}}: {tmp_path / 'file'} is a regular file, not a folder"


def _a_folder_where(name: str) -> Callable[[Path], tuple[Path, str]]:
    def setup(tmp_path: Path) -> tuple[Path, str]:
        (tmp_path / "out" / name).mkdir(parents=True)
        return tmp_path / "out", f"{{out}}/{name}: it is a folder, where a file is to be written"

    return setup


def _a_link_where_report_goes(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "out").mkdir()
    (tmp_path / "elsewhere.md").write_text("mine\n")
    (tmp_path / "out" / "report.md").symlink_to(tmp_path / "elsewhere.md")
    return tmp_path / "out", "{out}/report.md: it is a symbolic link, where a file is to be written"


def _a_pipe_where_summary_goes(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "out").mkdir()
    os.mkfifo(tmp_path / "out" / "summary.json")
    return tmp_path / "out", "{out}/summary.json: it is a named pipe, where a file is to be written"


def _a_socket_where_games_go(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "out").mkdir()
    socket.socket(socket.AF_UNIX).bind(str(tmp_path / "out" / "games.jsonl"))
    return tmp_path / "out", "{out}/games.jsonl: it is a socket, where a file is to be written"


def _a_link_to_nothing(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "out").symlink_to(tmp_path / "gone")
    return tmp_path / "out", "{out}: it is a symbolic link to nothing"


def _a_loop_of_links(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "out").symlink_to(tmp_path / "again")
    (tmp_path / "again").symlink_to(tmp_path / "out")
    return tmp_path / "out", "{out}: Too many levels of symbolic links"


def _a_folder_no_one_may_write_in(tmp_path: Path) -> tuple[Path, str]:
    if os.geteuid() == 0:
        pytest.skip("root writes in any folder whatever its permissions")
    (tmp_path / "out").mkdir(mode=0o555)
    return tmp_path / "out", "{out}: cannot make a folder in {out} (Permission denied)"


def _a_folder_the_system_makes_up(tmp_path: Path) -> tuple[Path, str]:
    """/proc: nothing can be made in it, not even by root (which a folder's permissions do not stop)."""
    if sys.platform != "linux":
        pytest.skip("/proc as Linux makes it")
    return Path("/proc/coh-simulation"), "{out}: cannot make a folder in /proc (No such file or directory)"


# (name, set-up): the set-up makes the case in a test's folder and gives `--out` and what is
# said after "--out: IO-WRITE cannot write ".
OUT_CASES: list[tuple[str, Callable[[Path], tuple[Path, str]]]] = [
    ("a file where the folder goes", _a_file),
    ("a file above the folder", _a_file_above),
    *[(f"a folder where {name} goes", _a_folder_where(name)) for name in OUTPUTS],
    ("a link where report.md goes", _a_link_where_report_goes),
    ("a named pipe where summary.json goes", _a_pipe_where_summary_goes),
    ("a socket where games.jsonl goes", _a_socket_where_games_go),
    ("a link to nothing", _a_link_to_nothing),
    ("a loop of links", _a_loop_of_links),
    ("a folder no one may write in", _a_folder_no_one_may_write_in),
    ("a folder the system makes up", _a_folder_the_system_makes_up),
]


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry below `folder`: a file's bytes, a link's target, or what else it is."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path)] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[str(path)] = path.read_bytes()
        else:
            found[str(path)] = "folder" if path.is_dir() else "other"
    return found


@pytest.mark.parametrize("setup", [case[1] for case in OUT_CASES], ids=[case[0] for case in OUT_CASES])
def test_an_out_that_cannot_take_the_report_is_refused_before_any_game(
    runner: CliRunner, tmp_path: Path, setup: Callable[[Path], tuple[Path, str]]
) -> None:
    out, said = setup(tmp_path)
    before = _tree(tmp_path)
    result = _simulate(runner, out)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"--out: IO-WRITE cannot write {said.format(out=out)}\n"
    assert _tree(tmp_path) == before


# --- one JSON document ----------------------------------------------------------------------

# (arguments, exit code, the problem's code): whatever stops the command, --format json prints
# one document on stdout.
STOPPED: list[tuple[list[str], int, str]] = [
    (["--players", "12"], 2, "GAME-PLAYERS"),
    (["--workers", "0"], 2, "USAGE-SIM"),
    (["--out", "{file}"], 2, "IO-WRITE"),
    (["--pack", "{broken}"], 1, "YAML-SYNTAX"),
]


@pytest.mark.parametrize(("args", "code", "problem"), STOPPED, ids=_ids(STOPPED))
def test_with_json_whatever_stops_the_command_is_one_document(
    runner: CliRunner, tmp_path: Path, args: list[str], code: int, problem: str
) -> None:
    (tmp_path / "file").write_text("mine\n")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "pack.yaml").write_text("id: [", encoding="utf-8")
    given = [arg.format(file=tmp_path / "file", broken=broken) for arg in args]
    result = _simulate(runner, tmp_path / "o", "--format", "json", *given)
    assert result.exit_code == code, result.output
    document = json.loads(result.stdout)  # one document, nothing else
    assert document["ok"] is False
    assert [p["code"] for p in document["problems"]][:1] == [problem]

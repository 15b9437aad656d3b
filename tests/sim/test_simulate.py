"""`coh simulate`: the same numbers whatever the workers, the same seeds in every variant, the
statistics from the library, and the output folder (skipped without the sim extra)."""

from __future__ import annotations

import gc
import json
import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

for _library in ("joblib", "scipy", "matplotlib", "tqdm"):
    pytest.importorskip(_library, reason="coh simulate's extra is not installed: pip install '.[sim]'")

from coh_core.cli import main  # noqa: E402
from coh_core.sim import games, report  # noqa: E402
from coh_core.sim.games import Variant, _on_joblib, play_task, run_joblib, seats_of, tasks_for  # noqa: E402
from coh_core.sim.report import _character_rows, standing_out  # noqa: E402
from coh_core.sim.run import simulate  # noqa: E402
from coh_core.sim.stats import compare, rate, summarize_variant  # noqa: E402

BASE = Variant("base", (), 4)
GAMES = 12


def _run(workers: int, variants: list[Variant] | None = None, games: int = GAMES) -> tuple[list[Any], Any]:
    return simulate(variants or [BASE], games, workers=workers, progress=False)


def test_the_same_arguments_give_the_same_numbers() -> None:
    assert _run(1) == _run(1)


def test_one_worker_and_two_give_the_same_numbers() -> None:
    one, two = _run(1), _run(2)
    assert [r["game"] for r in two[0]] == list(range(GAMES))  # in game order, not in finishing order
    assert one == two


def test_joblib_workers_that_read_the_pickled_pack_give_the_same_records() -> None:
    """Where workers cannot be forked, joblib's fresh processes read the pack's pickle instead."""
    tasks = tasks_for([BASE], 4, None, ("heuristic",), 3)
    in_process = [record for task in tasks for record in play_task(task)]
    assert [record for chunk in _on_joblib(tasks, 2) for record in chunk] == in_process


def test_the_parent_works_meanwhile_while_forked_workers_play() -> None:
    """`coh simulate` imports the report's libraries then: the games are the same, in order."""
    tasks = tasks_for([BASE], 4, None, ("random",), 5)
    done: list[bool] = []
    records = run_joblib(tasks, 2, lambda _: None, meanwhile=lambda: done.append(True))
    assert records == run_joblib(tasks, 1, lambda _: None)
    assert done == [True]


def test_work_meanwhile_that_fails_stops_no_game_and_prints_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The command does that work again after the games, and reports its failure there."""

    def fails() -> None:
        raise ImportError("no module named 'scipy'")

    tasks = tasks_for([BASE], 4, None, ("random",), 5)
    records = run_joblib(tasks, 2, lambda _: None, meanwhile=fails)
    assert [r["game"] for r in records] == [0, 1, 2, 3]
    assert capfd.readouterr().err == ""


def _play_telling_if_frozen(task: Any) -> list[dict[str, Any]]:
    return [{**record, "frozen": gc.get_freeze_count() > 0} for record in play_task(task)]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_games_leave_the_packs_out_of_garbage_collections_and_the_collector_as_it_was(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """Frozen with one worker too (forked workers inherit it): then unfrozen, whatever happened."""
    monkeypatch.setattr(games, "play_task", _play_telling_if_frozen)
    records = run_joblib(tasks_for([BASE], 3, None, ("random",), 5), workers, lambda _: None)
    assert [r["frozen"] for r in records] == [True] * 3
    assert gc.get_freeze_count() == 0


def test_the_command_skips_the_last_garbage_collections_of_its_process(tmp_path: Path) -> None:
    """At exit every object is frozen, so that none is collected again (that took a third of a
    second); the output is whole all the same."""
    # Exit handlers run last registered first: this one, registered before the command, runs after its.
    script = """
import atexit, gc, sys
from coh_core.cli import main
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0, file=sys.stderr))
main()
"""
    args = ["simulate", "--games", "2", "--workers", "1", "--no-progress", "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-c", script, *args, "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["variants"][0]["games"] == 2
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 2
    assert len(list(tmp_path.glob("*.png"))) == 3
    assert done.stderr.splitlines()[-1] == "frozen at exit: True"  # (a first matplotlib may say more)


def test_without_a_progress_bar_its_library_is_not_even_imported() -> None:
    """tqdm took 25 ms before the first game, for a bar that `--no-progress` does not draw."""
    script = """
import sys
from coh_core.sim.games import Variant
from coh_core.sim.run import simulate
simulate([Variant("base", (), 4)], 1, bots=("random",), workers=1, progress=False)
print("tqdm" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"


def _play_then_die(task: Any) -> list[dict[str, Any]]:
    if task.first == 2:
        os._exit(3)  # as if the system had killed this worker
    return play_task(task)


def test_a_worker_that_dies_ends_the_games_with_an_error_instead_of_a_wait(
    monkeypatch: pytest.MonkeyPatch, runner: CliRunner, tmp_path: Path
) -> None:
    """multiprocessing's pool waited forever for a lost worker's game; the command now says so."""
    monkeypatch.setattr(games, "play_task", _play_then_die)
    with pytest.raises(ChildProcessError, match="a worker process ended before its games"):
        run_joblib(tasks_for([BASE], 6, None, ("random",), 5), 2, lambda _: None)
    args = ["simulate", "--games", "6", "--bots", "random", "--workers", "2", "--no-progress"]
    result = runner.invoke(main, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "SIM-BACKEND the games could not be run: a worker process ended" in result.stderr
    assert "Traceback" not in result.output


_PLAYED = "COH_TEST_PLAYED"  # a folder where each game played in a worker leaves a file


def _play_or_fail(task: Any) -> list[dict[str, Any]]:
    (Path(os.environ[_PLAYED]) / str(task.first)).touch()
    if task.first == 1:
        raise ValueError("a game that fails")
    return play_task(task)


def test_a_game_that_fails_in_a_worker_stops_the_others_soon(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The failure is raised as it was, and the games not yet handed to a worker are not played."""
    monkeypatch.setenv(_PLAYED, str(tmp_path))
    monkeypatch.setattr(games, "play_task", _play_or_fail)
    with pytest.raises(ValueError, match="a game that fails"):
        run_joblib(tasks_for([BASE], 60, None, ("random",), 5), 2, lambda _: None)
    assert len(list(tmp_path.iterdir())) < 20


def test_every_variant_plays_the_same_seeds() -> None:
    records, _ = _run(1, [BASE, Variant("again", (), 4)])
    first, second = records[:GAMES], records[GAMES:]
    assert [r["seed"] for r in first] == [r["seed"] for r in second]
    assert len({r["seed"] for r in first}) == GAMES
    # Same rules under another name: the very same games, so any difference is the rules'.
    strip = [{k: v for k, v in r.items() if k != "variant"} for r in first]
    assert strip == [{k: v for k, v in r.items() if k != "variant"} for r in second]


def test_each_colour_sits_in_each_seat_once_every_round_of_games() -> None:
    colours = ["a", "b", "c", "d"]
    tables = [seats_of(colours, index) for index in range(4)]
    for seat in range(4):
        assert sorted(table[seat] for table in tables) == colours


def test_records_give_each_seat_a_colour_and_each_piece_an_owner_at_the_table() -> None:
    records = run_joblib(tasks_for([BASE], 4, None, ("random",), 7), 1, lambda _: None)
    for record in records:
        assert len(record["seats"]) == 4
        assert set(record["scores"]) == set(record["seats"])
        assert set(record["winners"]) <= set(record["seats"])
        assert record["characters"], "no piece was dealt"
        assert {held["owner"] for held in record["characters"].values()} <= set(record["seats"])
        assert record["bots"] == ["random"] * 4


def test_an_expert_bot_takes_its_seat_beside_heuristic_ones() -> None:
    kinds = ("expert", "heuristic", "heuristic", "heuristic")
    (record,) = run_joblib(tasks_for([BASE], 1, None, kinds, 3), 1, lambda _: None)
    assert record["bots"] == list(kinds)
    assert set(record["scores"]) == set(record["seats"])


def test_the_report_lists_the_characters_that_stand_out_and_groups_the_others() -> None:
    # 10 characters dealt 100 times each; "lucky" wins 60 times, the others 20 to 28: the average
    # (276 wins in 1000: 0.276) is inside every interval but lucky's ([0.50, 0.69]).
    wins = {"lucky": 60, **{f"c{i}": 20 + i for i in range(9)}}
    summary = {"variant": "v", "players": 4, "characters": {p: rate(w, 100) for p, w in wins.items()}}
    assert standing_out(summary) == ["lucky"]
    head, rows = _character_rows([summary])
    assert head == ["character", "v (4p)"]
    assert [row[0] for row in rows] == ["lucky", "all the others", "average"]
    assert rows[1][1] == "9: 20.0% to 28.0%"
    assert rows[2][1] == "27.6%"


def test_a_wilson_interval_is_the_textbook_one() -> None:
    # Wilson's interval for 5 successes in 10 trials at 95%: 0.2366 to 0.7634.
    found = rate(5, 10)
    assert found["rate"] == 0.5
    assert found["low"] == pytest.approx(0.2366, abs=1e-4)
    assert found["high"] == pytest.approx(0.7634, abs=1e-4)


def _fake(name: str, seat_wins: list[int], games: int) -> dict[str, Any]:
    records = [
        {
            "seats": ["a", "b"],
            "winners": [colour for colour, wins in zip(["a", "b"], seat_wins, strict=True) if index < wins],
            "characters": {},
            "result": "ranking",
            "scores": {"a": 1, "b": 1},
            "tie_breaks": {},
            "survivors": {"a": 1, "b": 1},
            "turns": 3,
            "decisions": 10 + index % 2,
        }
        for index in range(games)
    ]
    return summarize_variant(records, name, 2)


def test_differences_are_tested_and_holm_corrected() -> None:
    rows = compare([_fake("x", [50, 50], 100), _fake("y", [80, 50], 100)])
    by_metric = {row["metric"]: row for row in rows}
    seat1, seat2 = by_metric["seat 1 win rate"], by_metric["seat 2 win rate"]
    assert seat1["difference"] == pytest.approx(0.3)
    assert seat1["p"] < 0.001 and seat1["significant"]  # 50% against 80% of 100 games
    assert seat2["p"] == 1.0 and not seat2["significant"]
    # Holm: the smallest p-value is multiplied by the number of tests.
    assert seat1["p_holm"] == pytest.approx(min(1.0, seat1["p"] * len(rows)))
    assert all(row["p_holm"] >= row["p"] for row in rows)


def test_variants_at_other_table_sizes_are_not_compared() -> None:
    two = _fake("x", [5, 5], 10)
    three = dict(_fake("y", [5, 5], 10), players=3)
    assert compare([two, three]) == []


def _is_png(path: Path) -> bool:
    from matplotlib.image import imread

    data = path.read_bytes()
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk follows the signature
    return data.startswith(b"\x89PNG\r\n\x1a\n") and width > 0 and height > 0 and imread(path).size > 0


def test_the_command_prints_the_comparison_and_writes_the_report(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = [
        "simulate",
        "--games",
        "8",
        "--workers",
        "1",
        "--out",
        str(out),
        "--compare",
        "base",
        "zombie-horde",
    ]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "base (4p)" in result.stdout and "zombie-horde (4p)" in result.stdout
    assert "p (Holm)" in result.stdout
    assert "8/8" in result.stderr or "16/16" in result.stderr  # the progress bar
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 16
    assert [json.loads(line)["variant"] for line in lines] == ["base"] * 8 + ["zombie-horde"] * 8
    summary = json.loads((out / "summary.json").read_text())
    assert [v["variant"] for v in summary["variants"]] == ["base", "zombie-horde"]
    report = (out / "report.md").read_text()
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) == 3
    for png in pngs:
        assert f"]({png.name})" in report
        assert _is_png(png)


def test_the_output_folder_is_the_same_byte_for_byte_with_one_worker_or_two(
    runner: CliRunner, tmp_path: Path
) -> None:
    """Every file, the plots too: with two workers the parent prepares the report while they play."""
    folders = {workers: tmp_path / str(workers) for workers in (1, 2)}
    for workers, out in folders.items():
        args = ["simulate", "--games", "6", "--workers", str(workers), "--no-progress", "--out", str(out)]
        result = runner.invoke(main, [*args, "--compare", "base", "zombie-horde"])
        assert result.exit_code == 0, result.output
    names = sorted(path.name for path in folders[1].iterdir())
    assert len(names) == 6  # games.jsonl, summary.json, report.md and three plots
    assert names == sorted(path.name for path in folders[2].iterdir())
    for name in names:
        assert (folders[1] / name).read_bytes() == (folders[2] / name).read_bytes(), name


def test_a_plot_whose_forked_process_failed_is_drawn_again_in_the_command_s_own(tmp_path: Path) -> None:
    """Drawn side by side in forked processes when the workers are free; a failure there is not lost."""
    if sys.platform != "linux":
        pytest.skip("plots are drawn in forked processes on Linux only")
    records, summary = simulate([BASE], 3, bots=("random",), workers=1, progress=False)
    parent, draw, tried = os.getpid(), report.plot_characters, tmp_path / "tried"

    def fails_elsewhere(*args: Any) -> None:
        if os.getpid() != parent:
            tried.touch()
            raise MemoryError("a process lost")
        draw(*args)

    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(report, "plot_characters", fails_elsewhere)
        report.write_report(out, {"games": 3, "bots": ["random"], "seed": 1}, summary, records, processes=3)
    assert tried.exists()
    assert sorted(path.name for path in out.glob("*.png")) == sorted(report.PLOTS.values())
    assert all(_is_png(path) for path in out.glob("*.png"))


def test_the_plots_are_drawn_all_the_same_when_no_process_can_be_forked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    records, summary = simulate([BASE], 3, bots=("random",), workers=1, progress=False)

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    report.write_report(tmp_path, {"games": 3, "bots": ["random"], "seed": 1}, summary, records, processes=3)
    assert sorted(path.name for path in tmp_path.glob("*.png")) == sorted(report.PLOTS.values())
    assert all(_is_png(path) for path in tmp_path.glob("*.png"))


def test_json_output_is_one_document(runner: CliRunner, tmp_path: Path) -> None:
    args = [
        "simulate",
        "--games",
        "4",
        "--workers",
        "1",
        "--no-progress",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    ]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["variants"][0]["games"] == 4
    assert document["comparisons"] == []


@pytest.mark.parametrize(
    ("address", "said"),
    [("tcp://127.0.0.1:1", "cannot connect to 127.0.0.1:1"), ("tcp://host:port", "not an address")],
)
def test_a_scheduler_that_cannot_be_reached_is_refused_in_seconds(
    runner: CliRunner, tmp_path: Path, address: str, said: str
) -> None:
    pytest.importorskip("distributed", reason="the extra dask is not installed")
    args = ["simulate", "--games", "2", "--no-progress", "--out", str(tmp_path / "o"), "--backend", "dask"]
    start = time.monotonic()
    result = runner.invoke(main, [*args, "--scheduler", address])
    assert time.monotonic() - start < 20  # Dask's own wait for a scheduler was 30 s and more
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"--scheduler: SIM-SCHEDULER `{address}`: {said}")
    assert "Traceback" not in result.output
    assert not (tmp_path / "o").exists()


def test_a_local_dask_cluster_gives_the_same_numbers() -> None:
    distributed = pytest.importorskip("distributed", reason="the extra dask is not installed")
    # In this process (inproc transport): no port is opened, not even on the loopback.
    cluster = distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None)
    try:
        on_dask = simulate([BASE], 6, backend="dask", scheduler=cluster.scheduler_address, progress=False)
    finally:
        cluster.close()
    assert on_dask == simulate([BASE], 6, workers=1, progress=False)


def test_an_overlay_directory_plays_as_its_shipped_id(runner: CliRunner, tmp_path: Path) -> None:
    from coh_core.resources import content_root

    copy = tmp_path / "my-overlay"
    shutil.copytree(content_root() / "zombie-horde", copy)
    out = tmp_path / "out"
    args = ["simulate", "--games", "3", "--workers", "1", "--no-progress", "--out", str(out)]
    result = runner.invoke(main, [*args, "--compare", "base+zombie-horde", str(copy)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    shipped, mine = records[:3], records[3:]
    assert {r["variant"] for r in mine} == {str(copy)}
    assert [{**r, "variant": ""} for r in shipped] == [{**r, "variant": ""} for r in mine]

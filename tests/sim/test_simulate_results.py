"""`coh simulate` of games whose pack declares a team's result: the team's win rate with its
interval, instead of each seat's; both, for a game of both kinds (skipped without the extra sim)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

for _library in ("joblib", "scipy", "matplotlib", "tqdm"):
    pytest.importorskip(_library, reason="coh simulate's extra is not installed: pip install '.[sim]'")

from team_pack import write_team_pack  # noqa: E402

from coh_core.cli import main  # noqa: E402
from coh_core.sim.stats import compare, rate, summarize_variant  # noqa: E402

GAMES = 30


def _simulate(root: Path, out: Path, *extra: str) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """The summary, the games and the table on stdout of a simulation of the pack at `root`."""
    args = ["simulate", "--pack", str(root), "--games", str(GAMES), "--bots", "random", "--workers", "1"]
    table = CliRunner().invoke(main, [*args, "--no-progress", "--out", str(out), *extra])
    assert table.exit_code == 0, table.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    games = [json.loads(line) for line in (out / "games.jsonl").read_text(encoding="utf-8").splitlines()]
    return summary, games, table.output


def test_a_team_game_is_summed_up_by_the_teams_win_rate(tmp_path: Path) -> None:
    root = write_team_pack(tmp_path / "lifeboat", "team")
    summary, games, table = _simulate(root, tmp_path / "out", "--players", "2", "--players", "3")
    for variant in summary["variants"]:
        played = [g for g in games if g["players"] == variant["players"]]
        won = sum(g["won"] for g in played)
        assert variant["team"] == rate(won, GAMES)
        assert 0 < won < GAMES  # the seeds show both outcomes
        assert variant["seats"] == []  # no seat wins alone
        for game in played:
            assert game["result"] == "team" and game["scores"] == {}
            assert game["winners"] == (game["seats"] if game["won"] else [])
    head = table.splitlines()[0].split("  ")
    assert "team wins" in head and not any(column.startswith("seat") for column in head)
    assert "| team wins |" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def test_a_game_of_both_kinds_has_the_teams_rate_and_each_seats(tmp_path: Path) -> None:
    root = write_team_pack(tmp_path / "lifeboat", "both")
    summary, games, table = _simulate(root, tmp_path / "out", "--players", "2")
    [variant] = summary["variants"]
    assert variant["team"] == rate(sum(g["won"] for g in games), GAMES)
    assert len(variant["seats"]) == 2
    for seat, found in enumerate(variant["seats"]):
        assert found == rate(sum(g["seats"][seat] in g["winners"] for g in games), GAMES)
    assert all(g["result"] == "both" and (g["winners"] == [] or g["won"]) for g in games)
    assert table.splitlines()[0].split()[:6] == ["variant", "games", "team", "wins", "seat", "1"]


def _team_games(name: str, won: int, games: int) -> dict[str, Any]:
    """The summary of `games` games of a team's result alone, `won` of them won."""
    records = [
        {
            "result": "team",
            "seats": ["a", "b"],
            "scores": {},
            "tie_breaks": {},
            "won": index < won,
            "winners": ["a", "b"] if index < won else [],
            "survivors": {"a": 0, "b": 0},
            "characters": {},
            "turns": 3,
            "decisions": 6,
        }
        for index in range(games)
    ]
    return summarize_variant(records, name, 2)


def test_two_variants_of_a_team_game_are_compared_by_the_teams_win_rate() -> None:
    rows = compare([_team_games("x", 50, 100), _team_games("y", 80, 100)])
    assert [row["metric"] for row in rows] == [
        "team win rate",
        "mean survivors",
        "mean turns",
        "mean decisions",
    ]
    team = rows[0]
    assert team["difference"] == pytest.approx(0.3) and team["significant"]

"""Places without sides on the board: `tests/games/trails`, a game whose clearings are a kind whose
ids are locations and which declares no states (no side, no limit, never full nor locked), whose
walkers are pieces standing at the clearings and move along a graph's trails, and whose berries
are counters sitting there."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from coh_core import load_ruleset
from coh_core.agents import RandomAgent
from coh_core.agents.runner import play_out
from coh_core.cli import main
from coh_core.engine import new_game, rules_for
from coh_core.engine.library import IMPLS
from coh_core.engine.runtime import EngineError
from coh_core.engine.scenario import run_file
from coh_core.engine.state_check import state_problems
from coh_core.packs.loader import scenario_files
from coh_core.packs.model import Pack

TRAILS = Path(__file__).resolve().parent / "games" / "trails"
CLEARINGS = ["meadow", "brook", "grove", "ridge", "hollow"]  # the board's order
BERRIES = 30  # the supply


@pytest.fixture(scope="module")
def trails() -> Pack:
    return load_ruleset(TRAILS)


def _validate(runner: CliRunner, root: Path) -> dict[str, list[dict[str, object]]]:
    result = runner.invoke(main, ["validate", str(root), "--strict", "--format", "json"])
    report: dict[str, list[dict[str, object]]] = json.loads(result.output)
    return report


def test_it_validates_without_a_problem_or_a_warning(runner: CliRunner) -> None:
    report = _validate(runner, TRAILS)
    assert (report["problems"], report["warnings"]) == ([], [])


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 5), (3, 2), (3, 9)])
def test_random_bots_play_it_to_the_end_on_places_without_sides(
    trails: Pack, players: int, seed: int
) -> None:
    game = new_game(trails, players=players, seed=seed)
    assert game.state["order"] == CLEARINGS
    assert game.state["locations"] == {clearing: {"side": None} for clearing in CLEARINGS}
    play_out(game, {c: RandomAgent(seed * 7 + i) for i, c in enumerate(game.players)})
    assert game.over and game.state["result"] is not None
    assert state_problems(game.rules, game.state) == []
    walkers = game.state["pieces"]["walkers"]
    assert len(walkers) == players
    assert {walker["at"] for walker in walkers.values()} <= set(CLEARINGS)
    counts = game.state["counts"]
    assert set(CLEARINGS) <= set(counts)
    assert sum(held["berries"] for held in counts.values()) == BERRIES
    picked = [entry for entry in game.log if entry["key"] == "picked"]
    assert picked and sum(counts[p]["berries"] for p in game.players) == len(picked)


def test_its_places_have_no_limit_and_keep_nobody(trails: Pack) -> None:
    game = new_game(trails, players=3, seed=4)
    for walker in game.state["pieces"]["walkers"]:
        game.relocate(walker, "grove")
    side = game.side("grove")
    assert (side.name, side.capacity, side.closed, side.locked) == ("", None, False, False)
    assert all(game.has_room(walker, "grove") for walker in game.state["pieces"]["walkers"])


@pytest.mark.parametrize("path", scenario_files(load_ruleset(TRAILS))[0], ids=lambda p: p.stem)
def test_a_rules_scenario(trails: Pack, path: Path) -> None:
    outcome = run_file(trails, path)
    assert outcome.problems == []


def test_the_table_shows_a_place_without_sides_by_its_name_alone(runner: CliRunner) -> None:
    args = ["--pack", str(TRAILS), "--players", "2", "--seed", "1", "--human", "red", "--bots", "random"]
    result = runner.invoke(main, ["play", *args], input="1\n" * 8)
    assert result.exit_code == 0, result.output
    assert "  the Meadow: Ann (Red); Bo (Blue)" in result.output
    assert "  the Grove: -" in result.output


def test_a_state_with_a_side_for_a_place_without_sides_is_refused(trails: Pack) -> None:
    game = new_game(trails, players=2, seed=1)
    game.state["locations"]["brook"] = {"side": "A"}
    problems = state_problems(rules_for(trails), game.state)
    assert [(p.path, p.message) for p in problems] == [
        (("locations", "brook"), "{'side': 'A'} is not {side: null} (it has no sides)")
    ]


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(TRAILS, tmp_path / "trails"))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _problems(runner: CliRunner, root: Path) -> list[tuple[object, ...]]:
    report = _validate(runner, root)
    return [(p["code"], Path(str(p["file"])).name, p["line"], p["message"]) for p in report["problems"]]


BOARD = "locations: [meadow, brook, grove, ridge, hollow]"


@pytest.mark.parametrize(
    ("board", "line", "says"),
    [
        (
            "locations: [meadow, brook, grove, ridge]",
            30,
            "the board must hold every location once: it lacks `hollow`",
        ),
        (
            f"{BOARD}\n    sides: {{grove: A}}",
            31,
            "location `grove` has no sides to start on: leave it out of `sides`",
        ),
    ],
    ids=["a place left off the board", "a place without sides given one"],
)
def test_a_board_that_does_not_fit_its_places_is_a_located_problem(
    runner: CliRunner, tmp_path: Path, board: str, line: int, says: str
) -> None:
    root = _copy(tmp_path)
    _edit(root / "game.yaml", BOARD, board)
    assert _problems(runner, root) == [("SETUP-BOARD", "game.yaml", line, says)]


def test_a_place_of_no_board_nor_components_is_a_located_problem(runner: CliRunner, tmp_path: Path) -> None:
    """An entity of a kind typed `place` is a place counters sit at only where `components:
    places` names it: elsewhere, counting there would fail in play."""
    root = _copy(tmp_path)
    _edit(
        root / "game.yaml",
        "  walker:\n",
        "  camp:\n    doc: A camp.\n    section: camps\n    type: place\n  walker:\n",
    )
    _edit(root / "clearings.yaml", "walkers:\n", "camps:\n  - {id: camp}\nwalkers:\n")
    problems = _problems(runner, root)
    assert [(code, file, line) for code, file, line, _ in problems] == [("KIND-PLACE", "clearings.yaml", 8)]
    assert (
        "`camp` is a place (kind `camp` has the type `place`) that `components: places` does not name"
        in str(problems[0][3])
    )


def test_a_piece_never_dealt_is_out_of_play_whatever_its_kind_is_named(trails: Pack) -> None:
    """`@id` of a piece is in play once dealt: the engine finds the kind of pieces by the type of
    its ids (here `walker`, of the type `character`), not by the kind's name."""
    game = new_game(trails, players=2, seed=1)
    assert game.rules.pieces_of_type == {"character": "walkers"}
    assert [game.in_play("character", walker) for walker in ("ann", "bo", "cy")] == [True, True, False]


def test_a_place_without_sides_cannot_be_turned_to_one(trails: Pack) -> None:
    game = new_game(trails, players=2, seed=1)
    with pytest.raises(EngineError) as raised:
        IMPLS["flip_board"].fn(SimpleNamespace(game=game), "grove", "A")
    assert (raised.value.code, game.state["locations"]["grove"]) == ("GAME-STATE", {"side": None})

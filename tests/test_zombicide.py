"""The Zombicide pack (content/zombicide): a second game written as a pack of its own, with its own
kinds, components, setup and texts. It validates with no problem and no warning, plays to the end
for 1 to 4 players, every decision of a game is a position that saves and loads, and its rules
scenarios pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.agents import RandomAgent
from coh_core.cli import main
from coh_core.engine import Game, new_game
from coh_core.engine.scenario import run_file
from coh_core.engine.state_check import state_problems
from coh_core.packs import check_pack, load_pack_checked
from coh_core.packs.loader import load_pack, scenario_files
from coh_core.packs.model import Pack
from coh_core.resources import content_root

ROOT = content_root() / "zombicide"
PLAYERS = [1, 2, 3, 4]
SEEDS = range(1, 6)


@pytest.fixture(scope="module")
def zombicide() -> Pack:
    return load_pack_checked(ROOT)


def test_it_has_no_problem() -> None:
    _, problems = check_pack(ROOT, ())
    assert [p.render() for p in problems] == []


def test_it_validates_strictly_with_no_warning() -> None:
    result = CliRunner().invoke(main, ["validate", "--strict", str(ROOT)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok:"), result.output
    assert "warning" not in result.output


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed", SEEDS)
def test_a_seeded_game_of_random_bots_plays_to_the_end(players: int, seed: int) -> None:
    args = ["play", "--pack", str(ROOT), "--players", str(players), "--bots", "random", "--seed", str(seed)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "The mission is over" in result.output
    assert "finds nothing to act on" not in result.output  # no step or action fizzled


@pytest.mark.parametrize("players", PLAYERS)
def test_every_decision_is_a_position_that_saves_and_loads(zombicide: Pack, players: int) -> None:
    """Saved and loaded at every decision, a game goes on to an end whose state obeys the pack's
    declarations, and whose result is a team's: won or lost, with no ranking."""
    game = new_game(zombicide, players=players, seed=11)
    agents = {colour: RandomAgent(seed=index) for index, colour in enumerate(game.players)}
    while not game.over:
        decision = game.decision
        assert decision is not None
        for colour in decision.waiting:
            game.submit(colour, agents[colour].act(game.view(colour), decision.legal(colour)))
            game = Game.from_json(game.rules, game.to_json())
    assert state_problems(game.rules, game.state) == []
    assert set(game.state["result"]) == {"won"}
    assert isinstance(game.state["result"]["won"], bool)


def _scenarios() -> list[Path]:
    pack, _ = load_pack(ROOT)
    assert pack is not None
    return scenario_files(pack)[0]


@pytest.mark.parametrize("path", _scenarios(), ids=lambda p: p.stem)
@pytest.mark.parametrize("reload", [False, True], ids=["played", "saved_and_loaded"])
def test_a_rules_scenario(zombicide: Pack, path: Path, reload: bool) -> None:
    outcome = run_file(zombicide, path, str(path.relative_to(ROOT)), reload=reload)
    assert outcome.ok, "\n".join(p.render() for p in outcome.problems)

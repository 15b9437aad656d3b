"""The Zombicide pack (content/zombicide): a second game written as a pack of its own, with its own
kinds, components, setup and texts. It validates with no problem and no warning, plays to the end
for 1 to 4 players (a hundred seeded games of random bots for each, every one ending with a team
result and a state that obeys the pack's declarations), every decision of a game is a position
that saves and loads, and its rules scenarios pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from long_runs import spread

from coh_core.agents import RandomAgent, make_bot
from coh_core.agents.runner import ask, play_out
from coh_core.agents.terminal import TerminalAgent
from coh_core.cli import main
from coh_core.engine import Game, new_game
from coh_core.engine.scenario import run_file
from coh_core.engine.state_check import state_problems
from coh_core.narrative import Narrator
from coh_core.packs import check_pack, load_pack_checked
from coh_core.packs.loader import load_pack, scenario_files
from coh_core.packs.model import Pack
from coh_core.resources import content_root

ROOT = content_root() / "zombicide"
PLAYERS = [1, 2, 3, 4]
SEEDS = range(1, 6)  # the games `coh play` plays in the default run
HUNDRED = range(1, 101)  # the seeds played for each number of players


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


def _random_game(pack: Pack, players: int, seed: int) -> Game:
    """A game of random bots played to its end in this process, seated and seeded as `coh play
    --players P --seed S --bots random` seats and seeds it (the test below holds them equal)."""
    game = new_game(pack, players=players, seed=seed)
    bots = {colour: make_bot("random", seed * 7919 + seat) for seat, colour in enumerate(game.players)}
    play_out(game, bots)
    return game


def _what_is_wrong(game: Game) -> list[str]:
    """What a finished game should not have: a state the declarations refuse, a result that is
    not a team's, a step or an action that found nothing to act on, a log whose last entry before
    coh's own `game_over` is not how the mission ended."""
    wrong = [p.render() for p in state_problems(game.rules, game.state)]
    result = game.state["result"]
    if not (isinstance(result, dict) and set(result) == {"won"} and isinstance(result["won"], bool)):
        wrong.append(f"result {result!r}")
    wrong += [f"fizzled: {e['params']}" for e in game.log if e["key"] == "effect_fizzled"]
    ending = [entry["key"] for entry in game.log[-2:]]
    if ending != ["mission_over", "game_over"]:
        wrong.append(f"the log ends with {ending}")
    return wrong


@pytest.mark.parametrize("players", PLAYERS)
def test_a_hundred_seeded_games_end_with_a_team_result(zombicide: Pack, players: int) -> None:
    games = {seed: _random_game(zombicide, players, seed) for seed in HUNDRED}
    wrong = {seed: found for seed, game in games.items() if (found := _what_is_wrong(game))}
    assert wrong == {}


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed", spread([1, 2], every=2))
def test_the_seeded_games_are_those_coh_play_plays(zombicide: Pack, players: int, seed: int) -> None:
    args = ["play", "--game", "zombicide", "--players", str(players), "--seed", str(seed)]
    result = CliRunner().invoke(main, [*args, "--bots", "random", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["digest"] == _random_game(zombicide, players, seed).digest()


@pytest.mark.soak
@pytest.mark.parametrize("players", PLAYERS)
def test_a_hundred_seeded_games_of_coh_play_exit_0(players: int) -> None:
    """The hundred games of each number of players, each a `coh play` of its own (a minute or so)."""
    failed = {}
    for seed in HUNDRED:
        args = ["play", "--game", "zombicide", "--players", str(players), "--seed", str(seed)]
        result = CliRunner().invoke(main, [*args, "--bots", "random", "--format", "json"])
        if result.exit_code != 0 or json.loads(result.output)["result"]["kind"] != "team":
            failed[seed] = result.output[-2000:]
    assert failed == {}


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
            game.submit(colour, ask(game, agents[colour], colour))
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


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_skill_s_page_shows_its_rule_text(zombicide: Pack, lang: str) -> None:
    for skill in zombicide.entities["skill"]:
        result = CliRunner().invoke(main, ["show", "--game", "zombicide", "--lang", lang, skill])
        assert result.exit_code == 0, result.output
        text = Narrator(zombicide, lang).text(f"skill.{skill}.text", {})
        assert text and text in result.output, result.output


@pytest.mark.parametrize("steps", [10, 30, 1000])
def test_the_table_shows_each_survivor_at_their_zone_with_experience_and_cards(
    zombicide: Pack, steps: int
) -> None:
    """Some way into a game of two players (or at its last decision, if it ends before), each
    survivor still standing is on the line of their zone, with their experience points, the
    actions they have left this round and the cards in their hands and backpack."""
    game = new_game(zombicide, players=2, seed=5)
    agents = {colour: RandomAgent(seed=index) for index, colour in enumerate(game.players)}
    state = game.view(game.players[0]).to_json()
    for _ in range(steps):
        if game.decision is None:  # the mission may end before: the last decision's table
            break
        state = game.view(game.players[0]).to_json()
        colour = game.decision.waiting[0]
        game.submit(colour, ask(game, agents[colour], colour))
    if game.decision is not None:
        state = game.view(game.players[0]).to_json()
    narrator = Narrator(zombicide)
    rows = TerminalAgent(narrator).table(state)
    standing = {s: piece for s, piece in state["pieces"]["survivors"].items() if piece["alive"]}
    assert standing
    for survivor, piece in standing.items():
        [row] = [r for r in rows if r.startswith(f"  {narrator.name('zone', piece['at'])}")]
        actions = piece["traits"]["actions"][0]
        shown = (
            f"{narrator.name('survivor', survivor)} [{piece['traits']['experience'][0]} XP, {actions} action"
        )
        shown += " left" if actions == 1 else "s left"
        for pile, words in [("in_hand", "hands"), ("backpack", "backpack")]:
            cards = sorted(state["piles"][pile].get(survivor, []))
            if cards:
                shown += f"; {words}: " + ", ".join(narrator.name("card", c) for c in cards)
        assert shown + "]" in row or shown + ";" in row, (shown, row)


def _team_wins(pack: Pack, kind: str, players: int, seeds: range) -> int:
    """How many of these seeds' games the team won, every seat a bot of this kind."""
    won = 0
    for seed in seeds:
        game = new_game(pack, players=players, seed=seed)
        bots = {colour: make_bot(kind, seed * 7919 + seat, pack) for seat, colour in enumerate(game.players)}
        play_out(game, bots)
        won += bool(game.state["result"]["won"])
    return won


def test_the_bots_told_the_teams_strategy_win_some_missions(zombicide: Pack) -> None:
    """The pack tells its bots a careful team's strategy (`bots: tactics`): heuristic bots
    following it win some missions where random bots win none. Measured first: 3 players, seeds
    1-12, the heuristic team won 5 and the random team none (`coh simulate` gives the rates over
    a hundred games, in docs/new-game.md); the assertion leaves room below."""
    seeds = range(1, 13)
    assert _team_wins(zombicide, "random", 3, seeds) == 0
    assert _team_wins(zombicide, "heuristic", 3, seeds) >= 3

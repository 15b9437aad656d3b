"""The result a pack declares (`result:`): a ranking, a team's win or loss, or both.

The base game ranks its players (its tie-break, the most survivors, is its own declaration: see
tests/test_narrative_story.py and the rulebook scenarios). Here a small game of our own that the
players win or lose together, Lifeboat (tests/team_pack.py), is played to its end with the team's
result alone and with a ranking as well: told in words and in JSON, recorded and replayed, checked
by scenarios, weighed by the expert bot; the engine stops a game that sets a result of another
kind than its pack declares, or leaves a part unset; and players who own no piece in a pack that
keeps no memory of players out of the game play every turn to the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from team_pack import CROSSING, TURNS, write_team_pack

from coh_core.agents import RandomAgent
from coh_core.agents.expert import WIN_BONUS, result_worth
from coh_core.agents.runner import ask, play_out
from coh_core.cli import main
from coh_core.engine import Game, new_game
from coh_core.engine.runtime import EngineError
from coh_core.engine.scenario import run_file
from coh_core.messages import fill
from coh_core.packs import check_pack, load_pack_checked
from coh_core.packs.engine_texts import engine_english
from coh_core.packs.model import Pack
from coh_core.packs.results import ResultSpec

SEEDS = range(1, 9)
COH = engine_english()  # Lifeboat writes none of coh's own texts: its end is in coh's words


def _filled(key: str, values: dict[str, str]) -> str:
    text = COH[key]
    assert isinstance(text, str)
    return fill(text, values)


@pytest.fixture(scope="module")
def team_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_team_pack(tmp_path_factory.mktemp("team") / "lifeboat", "team")


@pytest.fixture(scope="module")
def both_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_team_pack(tmp_path_factory.mktemp("both") / "lifeboat", "both")


def _play(root: Path, players: int, seed: int, *extra: str) -> str:
    args = ["play", "--pack", str(root), "--players", str(players), "--seed", str(seed), "--bots", "random"]
    result = CliRunner().invoke(main, [*args, *extra])
    assert result.exit_code == 0, result.output
    return result.output


def _finished(
    root: Path, players: int, seed: int, folder: Path
) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """The game's JSON document, its words (the same game), and its final state (from its save)."""
    save = folder / f"{players}-{seed}.save"
    document = json.loads(_play(root, players, seed, "--format", "json", "--save", str(save)))
    words = _play(root, players, seed).splitlines()
    state = json.loads(save.read_text(encoding="utf-8"))["game"]["state"]
    return document, words, state


def _landed(state: dict[str, Any]) -> bool:
    """What the rules of Lifeboat say of a finished game: the strokes rowed, less those the
    current undid, reach the crossing."""
    counts = state["counts"]
    rowed = sum(counts[player]["strokes"] for player in state["players"])
    return rowed - counts["wake"]["setbacks"] >= CROSSING


def test_a_team_game_ends_in_the_teams_win_or_loss_in_words_and_in_json(
    team_root: Path, tmp_path: Path
) -> None:
    outcomes = set()
    for players in (2, 3):
        for seed in SEEDS:
            document, words, state = _finished(team_root, players, seed, tmp_path)
            won = _landed(state)
            outcomes.add(won)
            assert document["result"] == {"kind": "team", "won": won}  # no scores, no breakdown
            assert words[-1] == COH[f"ui.team.{'won' if won else 'lost'}"]  # coh's words: Lifeboat has none
            assert COH["ui.scoreboard.title"] not in words
    assert outcomes == {True, False}  # the seeds show both


def test_a_game_of_both_kinds_tells_the_team_then_ranks_its_players(both_root: Path, tmp_path: Path) -> None:
    outcomes = set()
    for seed in SEEDS:
        document, words, state = _finished(both_root, 2, seed, tmp_path)
        won = _landed(state)
        outcomes.add(won)
        strokes = {player: state["counts"][player]["strokes"] for player in state["players"]}
        best = max(strokes.values())
        winners = [player for player in state["players"] if won and strokes[player] == best]
        result = document["result"]
        assert result == {
            "kind": "both",
            "won": won,
            "scores": strokes,
            "tie_breaks": {},
            "winners": winners,
            "breakdown": {player: {"strokes_rowed": n} for player, n in strokes.items()},
        }
        board = words[words.index(COH[f"ui.team.{'won' if won else 'lost'}"]) :]
        assert board[1] == COH["ui.scoreboard.title"]
        order = sorted(state["players"], key=lambda player: -strokes[player])
        for rank, (row, player) in enumerate(zip(board[2:4], order, strict=True), 1):
            if rank == 2 and strokes[order[0]] == strokes[player]:
                rank = 1
            mark = "*" if player in winners else " "
            fill = {"winner_mark": mark, "rank": str(rank), "player": player.capitalize()}
            fill |= {"score": str(strokes[player]), "parts": f"strokes {strokes[player]}"}
            assert row == _filled("ui.scoreboard.row", fill)
        named = ", ".join(p.capitalize() for p in winners) or "-"
        assert board[-1] == _filled("ui.winners", {"players": named})
    assert outcomes == {True, False}


def test_a_team_games_record_replays_and_a_result_changed_by_hand_is_named(
    team_root: Path, tmp_path: Path
) -> None:
    log = tmp_path / "game.jsonl"
    _play(team_root, 3, 2, "--log", str(log))
    runner = CliRunner()
    replayed = runner.invoke(main, ["replay", str(log), "--pack", str(team_root), "--format", "json"])
    assert replayed.exit_code == 0, replayed.output
    lines = log.read_text(encoding="utf-8").splitlines()
    end = json.loads(lines[-1])
    assert set(end["result"]) == {"won"}
    end["result"]["won"] = not end["result"]["won"]
    log.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n", encoding="utf-8")
    refused = runner.invoke(main, ["replay", str(log), "--pack", str(team_root), "--format", "json"])
    assert refused.exit_code == 1
    codes = {problem["code"]: problem["message"] for problem in json.loads(refused.stdout)["problems"]}
    assert "`result.won`" in codes["REPLAY-RESULT"]


@pytest.mark.parametrize(("kind", "won"), [("team", True), ("team", False), ("both", True), ("both", False)])
def test_the_expert_gives_every_seat_the_teams_outcome(kind: str, won: bool) -> None:
    """Once a game is over the expert bot weighs its result as its pack declares it: a team's
    outcome is every seat's (a win bonus, or as much lost), added to a ranking's score margin and
    win bonus."""
    result: dict[str, Any] = {"won": won}
    if kind == "both":
        result.update({"scores": {"red": 5, "blue": 2}, "tie_breaks": {}, "winners": ["red"] if won else []})
    declared = ResultSpec(kind)
    team = WIN_BONUS if won else -WIN_BONUS
    if kind == "team":
        assert result_worth(result, declared, "red") == result_worth(result, declared, "blue") == team
    else:
        assert result_worth(result, declared, "red") == 3.0 + (WIN_BONUS if won else 0.0) + team
        assert result_worth(result, declared, "blue") == -3.0 + team


def _scenario(folder: Path, then: str) -> Path:
    path = folder / "landing.yaml"
    path.write_text(
        "name: The boat made good 5 strokes and lands\n"
        "players: [red, blue]\n"
        f"given: {{turn: {TURNS}, phase: end, strokes: {{red: 4, blue: 3}}, setbacks: {{wake: 2}}}}\n"
        "when: []\n"
        f"then: {{result: {then}}}\n",
        encoding="utf-8",
    )
    return path


def test_a_scenario_checks_the_teams_result(team_root: Path, tmp_path: Path) -> None:
    pack = load_pack_checked(team_root)
    assert run_file(pack, _scenario(tmp_path, "{won: true}")).ok
    [failed] = run_file(pack, _scenario(tmp_path, "{won: false}")).problems
    assert failed.code == "SCENARIO-FAILED" and "got {'won': True}" in failed.message
    [wrong] = run_file(pack, _scenario(tmp_path, "{won: true, scores: {red: 4}}")).problems
    assert (wrong.code, wrong.location.line) == ("SCENARIO-CHECK", 5)
    assert "`scores` is no part of a `team` result (it has won)" in wrong.message


@pytest.mark.parametrize(
    ("then", "says"),
    [
        (
            "{living: {red: 1}}",
            "`living` is no part of a `ranking` result (it has scores, tie_breaks, winners)",
        ),
        ("{tie_breaks: {survivor: {red: 1}}}", "unknown tie-break `survivor` (the pack declares survivors)"),
    ],
)
def test_a_scenario_names_what_the_base_games_ranking_lacks(
    base_pack: Pack, tmp_path: Path, then: str, says: str
) -> None:
    path = tmp_path / "end.yaml"
    path.write_text(
        "name: the end\nplayers: [red, blue, green]\n"
        "given: {turn: 4, phase: end, step: scoring, characters: {red: {housewife: church}}}\n"
        f"when: []\nthen: {{result: {then}}}\n",
        encoding="utf-8",
    )
    [problem] = run_file(base_pack, path).problems
    assert problem.code == "SCENARIO-CHECK" and says in problem.message
    assert problem.location.line == 5


# -- what the engine refuses as the game is played ---------------------------------------------


def _edited(kind: str, folder: Path, old: str, new: str) -> Pack:
    """Lifeboat with a result of this kind and its end step's effect edited, loaded despite its
    problems (`coh validate` reports them; the engine must refuse the game all the same)."""
    copy = write_team_pack(folder / "edited", kind)
    path = copy / "game.yaml"
    game = yaml.safe_load(path.read_text(encoding="utf-8"))
    [end] = game["turn"]["end"]
    assert old in end["do"]
    end["do"] = end["do"].replace(old, new)
    path.write_text(yaml.safe_dump(game, sort_keys=False), encoding="utf-8")
    pack, _ = check_pack(copy)
    assert pack is not None
    return pack


def _played_out(pack: Pack, seed: int = 1) -> Game:
    game = new_game(pack, players=2, seed=seed)
    play_out(game, {colour: RandomAgent(seed + index) for index, colour in enumerate(game.players)})
    return game


@pytest.mark.parametrize(
    ("kind", "old", "new", "code", "static", "says"),
    [
        # a team game that ranks its players: validate names the call, and so does the engine
        (
            "team",
            "set_team_result(made_good() >= param(crossing))",
            "set_ranking({player: 0 for player in seats()}, seats())",
            "RESULT-KIND",
            ["RESULT-KIND", "RESULT-UNSET"],
            "`set_ranking` ranks the players, but the pack declares a `team` result",
        ),
        # tie-break values worked out as the game goes: only the engine can count them
        (
            "both",
            "set_ranking(scores, [player for player",
            "set_ranking(scores, tie_breaks=[scores for p in seats()], winners=[player for player",
            "RESULT-TIE-BREAKS",
            [],
            "2 tie-break values for the 0 the pack declares (none)",
        ),
    ],
)
def test_a_result_of_another_kind_than_the_packs_stops_the_game_at_the_call(
    tmp_path: Path,
    kind: str,
    old: str,
    new: str,
    code: str,
    static: list[str],
    says: str,
) -> None:
    pack = _edited(kind, tmp_path, old, new)
    _, problems = check_pack(Path(pack.root))
    assert sorted(p.code for p in problems) == static
    with pytest.raises(EngineError) as stopped:
        _played_out(pack)
    error = stopped.value
    assert error.code == code and says in error.message
    text = (Path(pack.root) / "game.yaml").read_text(encoding="utf-8").splitlines()
    assert error.location is not None and error.location.file.endswith("game.yaml")
    assert "set_ranking" in text[error.location.line - 1]


def test_a_game_over_without_the_result_its_pack_declares_stops_there(tmp_path: Path) -> None:
    pack = _edited("team", tmp_path, "set_team_result(made_good() >= param(crossing))", "no_effect()")
    _, problems = check_pack(Path(pack.root))
    assert [(p.code, "no effect of it calls `set_team_result`" in p.message) for p in problems] == [
        ("RESULT-UNSET", True)
    ]
    with pytest.raises(EngineError) as stopped:
        _played_out(pack)
    assert stopped.value.code == "RESULT-UNSET"
    assert "without the whole `team` result its pack declares: no effect called `set_team_result`" in (
        stopped.value.message
    )
    assert stopped.value.location is not None and stopped.value.location.file.endswith("game.yaml")


# -- players without pieces ----------------------------------------------------------------------


def test_players_who_own_no_piece_play_every_turn_where_the_pack_keeps_nobody_out(team_root: Path) -> None:
    """Lifeboat deals no piece and keeps no memory of role `out_of_game`: every player rows every
    turn, to the end."""
    for players in (2, 3):
        document = json.loads(_play(team_root, players, 5, "--format", "json"))
        assert document["decisions"] == players * TURNS


def test_without_a_memory_of_players_out_a_player_who_lost_every_piece_plays_on(
    base_pack: Pack, tmp_path: Path
) -> None:
    """The base game under an overlay that removes the role `out_of_game` from its memory: a
    player left with no character is never out; the turn order keeps them, they are still asked,
    and the game ends with its result."""
    overlay = tmp_path / "nobody-out"
    overlay.mkdir()
    (overlay / "pack.yaml").write_text(
        "id: nobody_out\nversion: '1.0.0'\nformat: 2\nkind: overlay\nrequires: [base]\n"
        "summary: nobody is out\n"
        "files: [patch.yaml]\ntext: {en: en.yaml}\n",
        encoding="utf-8",
    )
    (overlay / "patch.yaml").write_text(
        "patches:\n  - remove: components/memory/eliminated/role\n", encoding="utf-8"
    )
    (overlay / "en.yaml").write_text(
        "locale: en\nmessages:\n  pack.nobody_out.name: Nobody out\n", encoding="utf-8"
    )
    pack = load_pack_checked(None, [str(overlay)])
    asked = False
    for seed in range(1, 6):
        game = new_game(pack, players=4, seed=seed)
        bots = {colour: RandomAgent(seed * 10 + index) for index, colour in enumerate(game.players)}
        while not game.over:
            decision = game.decision
            assert decision is not None
            for colour in decision.waiting:
                asked = asked or (game.state["turn"] >= 1 and not game.living(colour))
                game.submit(colour, ask(game, bots[colour], colour))
            assert game.out_of_game() == []
            assert sorted(game.turn_order()) == sorted(game.players)
        assert game.state["result"]["winners"]
    assert asked  # some player with no character left was asked again


@pytest.mark.parametrize("kind", ["team", "both"])
def test_a_game_that_words_none_of_its_result_validates_and_ends_in_cohs_words(
    tmp_path: Path, kind: str
) -> None:
    """coh words every result (the scoreboard, the winners, the team's outcome): Lifeboat writes
    none of those texts, and validates without a problem asking for one."""
    root = write_team_pack(tmp_path / "lifeboat", kind)
    written = yaml.safe_load((root / "text" / "en.yaml").read_text(encoding="utf-8"))["messages"]
    assert not set(written) & set(COH)
    _, problems = check_pack(root)
    assert [p.code for p in problems] == []
    words = _play(root, 2, 1).splitlines()
    assert {COH["ui.team.won"], COH["ui.team.lost"]} & set(words)
    assert (COH["ui.scoreboard.title"] in words) == (kind == "both")


def _returns_by_the_rules(kind: str, state: dict[str, Any]) -> dict[str, float]:
    """What each seat's return must be, from the rules of Lifeboat: a team that did not land
    loses everyone's game; one that landed wins everyone's (of `both`: the best rowers win, the
    others lose)."""
    players = state["players"]
    if not _landed(state):
        return dict.fromkeys(players, -1.0)
    if kind == "team":
        return dict.fromkeys(players, 1.0)
    rowed = {p: state["counts"][p]["strokes"] for p in players}
    return {p: 1.0 if rowed[p] == max(rowed.values()) else -1.0 for p in players}


@pytest.mark.parametrize("kind", ["team", "both"])
def test_returns_follow_the_declared_result(kind: str, team_root: Path, both_root: Path) -> None:
    pack = load_pack_checked(team_root if kind == "team" else both_root)
    seen = set()
    for seed in SEEDS:
        game = new_game(pack, players=3, seed=seed)
        agents = {c: RandomAgent(seed * 10 + i) for i, c in enumerate(game.players)}
        assert game.returns() == dict.fromkeys(game.players, 0.0)  # not over yet
        play_out(game, agents)
        returns = game.returns()
        assert returns == _returns_by_the_rules(kind, game.state)
        seen.add(tuple(sorted(returns.values())))
    assert len(seen) > 1  # both a landing and a loss among the seeds


def test_returns_of_a_ranking_are_a_win_for_the_seats_ranked_first() -> None:
    pack = load_pack_checked()
    for seed in (1, 2, 3):
        game = new_game(pack, players=4, seed=seed)
        play_out(game, {c: RandomAgent(seed + i) for i, c in enumerate(game.players)})
        scores = game.state["result"]["scores"]
        ranked = {p: (scores[p], game.state["result"]["tie_breaks"]["survivors"][p]) for p in game.players}
        best = max(ranked.values())
        assert game.returns() == {p: 1.0 if ranked[p] == best else -1.0 for p in game.players}

"""`coh play`, `coh replay` and the terminal agent, through the command line."""

from __future__ import annotations

import json
import random
import re
from itertools import pairwise
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.agents import RandomAgent
from coh_core.agents.terminal import TerminalAgent
from coh_core.cli import main
from coh_core.engine import new_game
from coh_core.messages import placeholders
from coh_core.narrative import Narrator
from coh_core.packs.model import Pack

# What the narrator shows when a text is missing: `[log.key] ...` or `[ui.key] ...`.
FALLBACK = re.compile(r"\[(log|ui)\.[a-z_.]+\]")


def _play(runner: CliRunner, *args: str, answers: str = "") -> str:
    result = runner.invoke(main, ["play", *args], input=answers)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_bot_game_prints_the_story_and_the_scoreboard(runner: CliRunner) -> None:
    out = _play(runner, "--players", "4", "--seed", "1")
    lines = out.splitlines()
    assert "Final scores" in lines
    assert lines[-1].startswith("Winning: ")
    assert any(line.startswith("=== Turn 4 ===") for line in lines)
    assert not FALLBACK.search(out)


def test_the_same_seed_tells_the_same_game(runner: CliRunner) -> None:
    assert _play(runner, "--seed", "5", "--players", "3") == _play(runner, "--seed", "5", "--players", "3")
    assert _play(runner, "--seed", "5", "--players", "3") != _play(runner, "--seed", "6", "--players", "3")


def test_json_result_is_one_document(runner: CliRunner) -> None:
    doc = json.loads(_play(runner, "--players", "5", "--seed", "2", "--format", "json"))
    assert doc["players"] == doc["players"][:5] and len(doc["players"]) == 5
    result = doc["result"]
    assert set(result["scores"]) == set(doc["players"])
    assert result["winners"] and set(result["winners"]) <= set(doc["players"])


@pytest.mark.parametrize("bots", ["random", "heuristic"])
def test_a_logged_game_replays_to_the_same_digest(runner: CliRunner, tmp_path: Path, bots: str) -> None:
    log = tmp_path / "game.jsonl"
    doc = json.loads(_play(runner, "--seed", "3", "--bots", bots, "--log", str(log), "--format", "json"))
    replayed = runner.invoke(main, ["replay", str(log), "--format", "json"])
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.output)["digest"] == doc["digest"]


def test_a_tampered_log_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    _play(runner, "--seed", "3", "--log", str(log))
    lines = log.read_text().splitlines()
    end = json.loads(lines[-1])
    end["digest"] = "0" * 16
    log.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    result = runner.invoke(main, ["replay", str(log)])
    assert result.exit_code == 1
    assert "REPLAY-DIGEST" in result.output


@pytest.mark.parametrize(
    ("humans", "says"),
    [(["octarine"], "not a colour"), (["red", "red"], "given twice"), (["red", "Red"], "given twice")],
)
def test_a_human_colour_that_is_none_or_given_twice_is_a_usage_error(
    runner: CliRunner, humans: list[str], says: str
) -> None:
    args = [arg for colour in humans for arg in ("--human", colour)]
    result = runner.invoke(main, ["play", "--players", "3", *args])
    assert result.exit_code == 2
    assert "USAGE-HUMAN" in result.output and says in result.output


def _random_answers(seed: int, count: int = 4000, high: int = 4) -> str:
    rng = random.Random(seed)
    return "\n".join(str(rng.randint(1, high)) for _ in range(count)) + "\n"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_human_plays_a_whole_game_against_bots(runner: CliRunner, seed: int) -> None:
    out = _play(
        runner, "--players", "4", "--seed", str(seed), "--human", "red", answers=_random_answers(seed)
    )
    assert "[Red] " in out  # every question names the player it is for
    assert "Your choice" in out and "Your hand: " in out
    assert "Final scores" in out
    assert not FALLBACK.search(out)


def test_hotseat_asks_each_human_by_name(runner: CliRunner) -> None:
    out = _play(runner, "--seed", "4", "--human", "red", "--human", "green", answers=_random_answers(9))
    questions = {line.split("]")[0] for line in out.splitlines() if line.startswith("[")}
    assert questions == {"[Red", "[Green"}


def test_an_answer_out_of_range_is_asked_again(runner: CliRunner) -> None:
    out = _play(runner, "--seed", "1", "--human", "red", answers="99\nzwei\n" + _random_answers(1))
    assert out.count("Type one of the keys: ") >= 2


def test_the_human_sees_only_their_own_hand(runner: CliRunner) -> None:
    """Red sees the cards Red looks at, and the card another player steals from Red, no other."""
    out = _play(runner, "--players", "3", "--seed", "2", "--human", "red", answers=_random_answers(2))
    lines = [line.strip() for line in out.splitlines()]
    seen = [(before, line) for before, line in pairwise(lines) if " sees: " in line]
    assert seen and all(
        line.startswith("Red sees: ") or before.endswith(" steals an action card from Red.")
        for before, line in seen
    )
    assert any(line.startswith("Red sees: ") for _, line in seen)


def test_every_question_and_answer_of_random_games_reads_as_words(base_pack: Pack) -> None:
    """Each decision kind and answer shape the engine produced has its own text, fully filled."""
    terminal = TerminalAgent(Narrator(base_pack))
    other_question = terminal.narrator.messages["ui.decision.other"].split("{")[0]
    kinds: set[str] = set()
    for seed in range(12):
        game = new_game(base_pack, players=3 + seed % 4, seed=seed)
        agents = {c: RandomAgent(seed=seed * 10 + i) for i, c in enumerate(game.players)}
        while not game.over:
            decision = game.decision
            kinds.add(decision.kind)
            for colour in decision.waiting:
                question = terminal.question(decision.to_json(colour))
                assert not question.startswith(other_question) and not placeholders(question), decision.kind
                for action in decision.legal(colour):
                    assert terminal.narrator.declared.action_message(action)[0] != "ui.action.other", action
                    assert not placeholders(terminal.label(action)), action
                game.submit(colour, agents[colour].act(None, decision.legal(colour)))
    assert len(kinds) > 15  # the games reached most kinds of decision


# An answer, and the text key and placeholders it reads with (the base pack's `answers`).
ANSWERS = [
    (("pass",), "ui.action.pass", {}),
    (("play", "shotgun"), "ui.action.play", {"card": "shotgun"}),
    (("give", "blue", "card", "gun"), "ui.action.give.card", {"player": "blue", "card": "gun"}),
    (("give", "blue", "antidote"), "ui.action.give.antidote", {"player": "blue"}),
    (("place", "granny", "bank"), "ui.action.place", {"character": "granny", "location": "bank"}),
    (("choose", 3), "ui.action.choose", {"value": 3}),  # the engine's own
    # not of any declared kind: shown as written
    (("give", "blue"), "ui.action.other", {"value": "give blue"}),
    (("give", "blue", "hug"), "ui.action.other", {"value": "give blue hug"}),
    (("dance", 2), "ui.action.other", {"value": "dance 2"}),
]


@pytest.mark.parametrize(("action", "key", "params"), ANSWERS, ids=lambda v: str(v))
def test_an_answer_reads_as_its_kind_declares(
    base_pack: Pack, action: tuple[object, ...], key: str, params: dict[str, object]
) -> None:
    assert Narrator(base_pack).declared.action_message(action) == (key, params)


def _seed_line(out: str) -> int:
    """The seed the first line of a game given no seed names."""
    found = re.fullmatch(
        r"Game seed (\d+): the same command with `--seed \1` plays this game again\.", out.splitlines()[0]
    )
    assert found is not None, out.splitlines()[0]
    return int(found.group(1))


def test_a_game_given_no_seed_draws_one_prints_it_and_replays_with_it(runner: CliRunner) -> None:
    first = _play(runner, "--players", "3", "--bots", "random")
    second = _play(runner, "--players", "3", "--bots", "random")
    seed = _seed_line(first)
    assert seed != _seed_line(second)  # (two draws of a million seeds)
    again = _play(runner, "--players", "3", "--bots", "random", "--seed", str(seed))
    assert again.splitlines() == first.splitlines()[1:]


def test_a_json_game_given_no_seed_holds_its_seed_and_prints_no_line(runner: CliRunner) -> None:
    doc = json.loads(_play(runner, "--players", "3", "--bots", "random", "--format", "json"))
    again = json.loads(
        _play(runner, "--players", "3", "--bots", "random", "--format", "json", "--seed", str(doc["seed"]))
    )
    assert again == doc

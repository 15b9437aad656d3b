"""A game of its own needs none of coh's own texts (issue 28): `tests/games/pebbles`, a base pack
that writes no text for any key the engine declares, validates without a problem and plays to
the end, by bots and by a human at the terminal, in English and in Spanish, every line in words:
coh brings the log's headings, the table, the menus, the scoreboard and the rest. So does a game
that moves, loses, rests and exhausts pieces, flips places, plays and cancels cards, uses
abilities and gives things (City of Horror without its wording of those entries)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.cli import main
from coh_core.engine import new_game
from coh_core.messages import fill
from coh_core.narrative import Narrator, scoreboard, standings
from coh_core.packs import load_pack_checked
from coh_core.packs.engine_texts import engine_english, engine_messages
from coh_core.packs.loader import load_pack

PEBBLES = Path(__file__).resolve().parent / "games" / "pebbles"

# What the narrator shows for a key it has no text for: `[log.key] ...` or `[ui.key] ...`.
RAW_KEY = re.compile(r"\[(log|ui)\.")


def test_it_writes_no_text_of_the_engine() -> None:
    pack, _ = load_pack(PEBBLES)
    assert pack is not None
    written = {key for locale in ("en", "es") for key in pack.own_messages(locale)}
    assert not written & set(engine_english())


def test_it_validates_without_a_problem_or_a_warning(runner: CliRunner) -> None:
    result = runner.invoke(main, ["validate", str(PEBBLES), "--strict", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["ok"], report["problems"], report["warnings"]) == (True, [], [])


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (3, 7)])
def test_bots_play_it_to_the_end_in_words(runner: CliRunner, lang: str, players: int, seed: int) -> None:
    args = ["--pack", str(PEBBLES), "--players", str(players), "--seed", str(seed), "--lang", lang]
    result = runner.invoke(main, ["play", *args, "--bots", "random"])
    assert result.exit_code == 0, result.output
    assert not RAW_KEY.search(result.output), result.output
    lines = result.output.splitlines()
    engine = engine_messages(lang)
    assert engine["log.game_over"] in lines  # coh's words, in the language asked for
    assert str(engine["log.heading.end"]) in lines


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_human_plays_it_at_the_terminal_in_words(runner: CliRunner, lang: str) -> None:
    """The table, the menus, `?` and a key no answer has: every word there is coh's."""
    answers = "?\n9\n? nothing\n1\n" + "1\n" * 10
    args = ["--pack", str(PEBBLES), "--players", "2", "--seed", "1", "--human", "red", "--bots", "random"]
    args += ["--lang", lang]
    result = runner.invoke(main, ["play", *args], input=answers)
    assert result.exit_code == 0, result.output
    assert not RAW_KEY.search(result.output), result.output
    engine = engine_messages(lang)
    for key in ("ui.table.menu.hint", "ui.table.menu.help", "ui.prompt"):
        assert str(engine[key]) in result.output
    assert str(engine["ui.table.menu.unknown"]).split("{keys}")[0] in result.output  # after the 9
    assert str(engine["ui.table.menu.no_such"]).replace("{asked}", "nothing") in result.output


# The log entries the engine writes through its primitives (`coh_core.messages.ENGINE_LOG`).
PRIMITIVES_ENTRIES = (
    "character_moved",
    "character_died",
    "character_rested",
    "character_exhausted",
    "board_flipped",
    "card_played",
    "card_cancelled",
    "power_used",
    "gift",
)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_game_that_words_none_of_the_primitives_entries_tells_them_in_cohs_words(
    runner: CliRunner, base_copy: Path, lang: str
) -> None:
    """City of Horror declares none of the entries its primitives write: without its own wording
    of them (in every language), coh's tells each, and no line of the game is a raw key."""
    for path in (base_copy / "text").glob("*.yaml"):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        kept, skipping = [], False
        for line in lines:
            if line.startswith("  ") and not line.startswith("   "):
                key = line.strip().split(":")[0]
                skipping = key in {f"log.{k}" for k in PRIMITIVES_ENTRIES}
            if not skipping:
                kept.append(line)
        path.write_text("".join(kept), encoding="utf-8")
    validated = runner.invoke(main, ["validate", str(base_copy), "--format", "json"])
    assert json.loads(validated.output)["problems"] == []
    pack = load_pack_checked(base_copy)
    narrator = Narrator(pack, lang)
    for key in PRIMITIVES_ENTRIES:  # coh's words, in the language asked for
        assert narrator.messages[f"log.{key}"] == engine_messages(lang)[f"log.{key}"]
    written: set[str] = set()
    for seed in (1, 2, 3):
        args = ["--pack", str(base_copy), "--players", "5", "--seed", str(seed), "--lang", lang]
        result = runner.invoke(main, ["play", *args, "--bots", "random"])
        assert result.exit_code == 0, result.output
        assert not RAW_KEY.search(result.output), result.output
        game = new_game(pack, players=5, seed=seed)
        bots = {colour: RandomAgent(seed) for colour in game.players}
        while not game.over:
            assert game.decision is not None
            for colour in game.decision.waiting:
                game.submit(colour, ask(game, bots[colour], colour))
        written |= {entry["key"] for entry in game.log}
    assert {"character_moved", "character_died", "card_played", "power_used", "gift"} <= written


@pytest.mark.parametrize("lang", ["en", "es"])
def test_its_scoreboard_is_in_cohs_words_without_score_parts(lang: str) -> None:
    """Pebbles has no parts of its score (no verb marked `scoreboard: part`): each row is coh's
    `ui.scoreboard.row.plain`, the player's place, name and score, and nothing in brackets."""
    pack = load_pack_checked(PEBBLES)
    game = new_game(pack, players=3, seed=2)
    bots = {colour: RandomAgent(index) for index, colour in enumerate(game.players)}
    while not game.over:
        assert game.decision is not None
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, bots[colour], colour))
    narrator = Narrator(pack, lang)
    board = scoreboard(game, narrator)
    result = game.state["result"]
    rows = [
        fill(
            str(engine_messages(lang)["ui.scoreboard.row.plain"]),
            {
                "winner_mark": "*" if player in result["winners"] else " ",
                "rank": str(rank),
                "player": narrator.name("colour", player),
                "score": str(result["scores"][player]),
            },
        )
        for rank, player in standings(result, game.players)
    ]
    assert board[0] == engine_messages(lang)["ui.scoreboard.title"]
    assert board[1:4] == rows

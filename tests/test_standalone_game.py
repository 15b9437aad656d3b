"""A game of its own needs none of coh's own texts (issue 28): `tests/games/pebbles`, a base pack
that writes no text for any key the engine declares but the scoreboard's, validates without a
problem and plays to the end, by bots and by a human at the terminal, in English and in Spanish,
every line in words: coh brings the log's headings, the table, the menus and the rest."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.packs.engine_texts import engine_english, engine_messages
from coh_core.packs.loader import load_pack

PEBBLES = Path(__file__).resolve().parent / "games" / "pebbles"

# What the narrator shows for a key it has no text for: `[log.key] ...` or `[ui.key] ...`.
RAW_KEY = re.compile(r"\[(log|ui)\.")


def test_it_writes_no_text_of_the_engine_but_the_scoreboards() -> None:
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
    args = ["--pack", str(PEBBLES), "--players", "2", "--human", "red", "--bots", "random", "--lang", lang]
    result = runner.invoke(main, ["play", *args], input=answers)
    assert result.exit_code == 0, result.output
    assert not RAW_KEY.search(result.output), result.output
    engine = engine_messages(lang)
    for key in ("ui.table.menu.hint", "ui.table.menu.help", "ui.prompt"):
        assert str(engine[key]) in result.output
    assert str(engine["ui.table.menu.unknown"]).split("{keys}")[0] in result.output  # after the 9
    assert str(engine["ui.table.menu.no_such"]).replace("{asked}", "nothing") in result.output

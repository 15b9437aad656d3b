"""Chance is explicit (issue 28): each roll, random draw and shuffle is a log entry of the engine's
(`chance.roll`, `chance.draw`, `chance.shuffle`), shown to every seat with what it reveals and no
more (a draw's item and a shuffle's order are no one's to read there), and left out of the
narrative unless the pack asks for it (`messages: engine_log`). The games themselves are those
chance made before: only the log holds more."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from team_pack import write_team_pack

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.cli import main
from coh_core.effects.parser import parse_effect
from coh_core.engine import Game, compiler_for, new_game
from coh_core.engine.machine import run_sync
from coh_core.engine.runtime import Rt
from coh_core.messages import CHANCE, fill
from coh_core.narrative import Narrator
from coh_core.packs import load_pack_checked
from coh_core.packs.engine_texts import engine_english
from coh_core.packs.model import Pack

PEBBLES = Path(__file__).resolve().parent / "games" / "pebbles"


def _played(pack: Pack, players: int, seed: int) -> Game:
    game = new_game(pack, players=players, seed=seed)
    bots = {colour: RandomAgent(seed * 10 + index) for index, colour in enumerate(game.players)}
    while not game.over:
        assert game.decision is not None
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, bots[colour], colour))
    return game


def _run(pack: Pack, source: str, dry: bool = False) -> tuple[Any, list[dict[str, Any]], str]:
    """The value of `x`, the log entries the effect wrote, and the first player (who chooses)."""
    program = compiler_for(pack).block(parse_effect(source), None, frozenset()).program
    game = new_game(pack, 4, 1)
    before = len(game.log)
    env: dict[str, Any] = {}
    run_sync(program, Rt(game, env, None, dry=dry), env)
    return env["x"], game.log[before:], game.first_player()


# --- what each chance event holds --------------------------------------------------------------


def test_each_draw_from_the_generator_is_an_entry_with_what_it_reveals(base_pack: Pack) -> None:
    value, entries, first = _run(
        base_pack, "let x = [random_item(locations()), roll(3, sides=20), shuffle(seats())]"
    )
    dice = value[1]
    assert [(e["key"], e["params"]) for e in entries] == [
        ("chance.draw", {"count": 6}),  # among how many: the item is the pack's to reveal
        ("chance.roll", {"player": first, "dice": dice, "sides": 20}),  # rolled by the first player
        ("chance.shuffle", {"count": 4}),  # how many: the order is no one's to read
    ]
    assert all("to" not in e for e in entries)  # every seat sees that chance happened


def test_a_dry_run_draws_nothing_and_logs_nothing(base_pack: Pack) -> None:
    _, entries, _ = _run(
        base_pack, "let x = [random_item(locations()), roll(2)] + shuffle(locations())", dry=True
    )
    assert entries == []


def test_the_piles_that_start_shuffled_are_the_logs_first_entries(base_pack: Pack) -> None:
    game = new_game(base_pack, 4, 1)
    tokens = len(base_pack.section("components")["food_tokens"])
    assert game.log[0] == {
        "key": "chance.shuffle",
        "turn": 0,
        "params": {"count": tokens, "pile": "food_face_down"},
    }


@pytest.mark.parametrize("seed", [1, 2])
def test_no_seat_reads_more_of_chance_than_it_revealed(base_pack: Pack, seed: int) -> None:
    """The chance events are the same in every seat's view, and none names what was drawn or the
    order shuffled: what a seat alone learns (its cards, its food) stays in the pack's entries
    for it, which no other seat's view holds."""
    game = _played(base_pack, 5, seed)
    chance = [e for e in game.log if e["key"] in CHANCE]
    assert {e["key"] for e in chance} == set(CHANCE) - {"chance.roll"}  # (it rolls no dice)
    for colour in game.players:
        seen = game.view(colour).log()
        assert [e for e in seen if e["key"] in CHANCE] == chance
        assert all(colour in e["to"] for e in seen if "to" in e)
    assert all(set(e["params"]) <= {"count", "pile"} for e in chance if e["key"] != "chance.roll")


# --- the narrative --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 3])
def test_city_of_horror_tells_no_chance_event(base_pack: Pack, seed: int) -> None:
    """Its story is the one told before the chance events were logged, entry for entry."""
    game = _played(base_pack, 4, seed)
    kept = [index for index, entry in enumerate(game.log) if entry["key"] not in CHANCE]
    narrator = Narrator(base_pack)
    told = narrator.story(game.log, game.places)
    assert told == narrator.story([game.log[i] for i in kept], [game.places[i] for i in kept])
    assert len(kept) < len(game.log)


def _lifeboat(folder: Path, telling: dict[str, Any] | None) -> Path:
    root = write_team_pack(folder, "team")
    if telling is not None:
        game = yaml.safe_load((root / "game.yaml").read_text(encoding="utf-8"))
        game["messages"]["engine_log"] = telling
        (root / "game.yaml").write_text(yaml.safe_dump(game, sort_keys=False), encoding="utf-8")
    return root


@pytest.mark.parametrize("told", [False, True])
def test_a_roll_is_told_where_the_pack_asks_for_it(tmp_path: Path, told: bool) -> None:
    """Lifeboat rolls a die each turn for the current: its dice are the setbacks, and told in
    coh's words only with `engine_log: {chance.roll: {told: true}}`."""
    root = _lifeboat(tmp_path / "lifeboat", {"chance.roll": {"told": True}} if told else None)
    pack = load_pack_checked(root)
    game = _played(pack, 3, 2)
    rolls = [e["params"] for e in game.log if e["key"] == "chance.roll"]
    assert len(rolls) == 3  # one a turn
    assert sum(sum(roll["dice"]) for roll in rolls) == game.state["counts"]["wake"]["setbacks"]
    story = Narrator(pack).story(game.log, game.places)
    said = [
        fill(
            str(engine_english()["log.chance.roll"]),
            {"player": roll["player"].capitalize(), "dice": str(die)},
        )
        for roll in rolls
        for die in roll["dice"]
    ]
    assert all((line in story) == told for line in said)


def test_a_pack_may_leave_any_engine_entry_untold(tmp_path: Path) -> None:
    root = Path(shutil.copytree(PEBBLES, tmp_path / "pebbles"))
    game = root / "game.yaml"
    text = game.read_text(encoding="utf-8")
    game.write_text(
        text.replace("messages:\n", "messages:\n  engine_log:\n    game_over: {told: false}\n", 1)
    )
    result = CliRunner().invoke(
        main, ["play", "--pack", str(root), "--players", "2", "--seed", "1", "--bots", "random"]
    )
    assert result.exit_code == 0, result.output
    assert str(engine_english()["log.game_over"]) not in result.output.splitlines()


# --- what coh validate says of engine_log ------------------------------------------------------


@pytest.mark.parametrize(
    ("telling", "code", "says"),
    [
        ("    took: {told: true}\n", "MSG-ENGINE-LOG", "`took` is no log entry the engine writes"),
        ("    chance.rol: {told: true}\n", "MSG-ENGINE-LOG", "did you mean `chance.roll`?"),
        ("    chance.roll: {quiet_in: [bidding]}\n", "MSG-PHASE", "names `bidding`, which is no phase"),
        ("    game_over: {told: sometimes}\n", "SCHEMA", ""),
    ],
    ids=["the_packs_own_entry", "misspelt", "no_such_phase", "told_is_yes_or_no"],
)
def test_engine_log_names_the_engines_entries_and_the_packs_phases(
    tmp_path: Path, telling: str, code: str, says: str
) -> None:
    root = Path(shutil.copytree(PEBBLES, tmp_path / "pebbles"))
    game = root / "game.yaml"
    text = game.read_text(encoding="utf-8")
    game.write_text(text.replace("messages:\n", "messages:\n  engine_log:\n" + telling, 1), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(root), "--format", "json"])
    problems = json.loads(result.output)["problems"]
    assert [p["code"][: len(code)] for p in problems] == [code]
    assert says in problems[0]["message"]
    line = text[: text.index("messages:\n")].count("\n") + 3  # the entry, below `engine_log`
    assert (problems[0]["file"].endswith("game.yaml"), problems[0]["line"]) == (True, line)

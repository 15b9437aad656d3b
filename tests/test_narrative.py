"""The game log in English: every message the engine writes has a text with the declared
placeholders, rendering never fails, and a few entries read exactly as intended."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.cli import main
from coh_core.effects import ast as effects_ast
from coh_core.engine import new_game
from coh_core.i18n import text_forms
from coh_core.messages import UI_MESSAGES, DeclaredMessages, declared_messages, log_key, placeholders
from coh_core.narrative import Narrator, Verbatim
from coh_core.packs import load_pack_checked
from coh_core.packs.declarations import declarations_of
from coh_core.packs.engine_texts import engine_english
from coh_core.packs.model import Pack

ENGINE_DIR = Path(__file__).resolve().parents[1] / "coh_core" / "engine"


def _play(pack: Pack, players: int, seed: int) -> list[dict[str, Any]]:
    game = new_game(pack, players=players, seed=seed)
    agents = {colour: RandomAgent(seed=seed * 10 + i) for i, colour in enumerate(game.players)}
    while not game.over:
        decision = game.decision
        for colour in decision.waiting:
            game.submit(colour, agents[colour].act(None, decision.legal(colour)))
    return game.log


@pytest.fixture(scope="module")
def entries(base_pack: Pack) -> list[dict[str, Any]]:
    """The logs of 20 seeded random games, 3 to 6 players."""
    return [entry for seed in range(20) for entry in _play(base_pack, 3 + seed % 4, seed)]


@pytest.fixture(scope="module")
def narrator(base_pack: Pack) -> Narrator:
    return Narrator(base_pack)


@pytest.fixture(scope="module")
def declared(base_pack: Pack) -> DeclaredMessages:
    """The engine's messages and those of the base pack's messages.yaml."""
    return declared_messages(base_pack.section("messages"), declarations_of(base_pack))


def _note_calls() -> list[tuple[str, set[str], str]]:
    """Every `note("key", ...)` in the engine's source, and every `note_params("key", to, {...})`
    with its parameters written out: key, keyword (parameter) names, where."""
    found = []
    for path in sorted(ENGINE_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("note", "note_params")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                if node.func.attr == "note":
                    keywords = {k.arg for k in node.keywords if k.arg is not None}
                else:
                    params = node.args[2] if len(node.args) > 2 else None
                    where = f"{path.name}:{node.lineno}"
                    assert isinstance(params, ast.Dict), f"{where}: note_params' parameters not written out"
                    keywords = {k.value for k in params.keys if isinstance(k, ast.Constant)}
                found.append((node.args[0].value, keywords, f"{path.name}:{node.lineno}"))
    return found


def _log_calls(pack: Pack) -> set[str]:
    """The log messages the pack's own code writes with `log(message, ...)`."""
    return {
        call.args[0].value.name
        for effect in pack.effects
        for call in effects_ast.calls(effect.tree)
        if call.name == "log" and call.args and isinstance(call.args[0].value, effects_ast.Name)
    }


# -- coverage --------------------------------------------------------------------------------


def test_every_emitted_key_has_an_english_message(
    entries: list[dict[str, Any]], narrator: Narrator, declared: DeclaredMessages
) -> None:
    keys = {entry["key"] for entry in entries}
    assert len(keys) > 30  # the games really ran
    assert sorted(keys - set(declared.log)) == []
    assert sorted(k for k in keys if not narrator.has(log_key(k))) == []


def test_every_emitted_entry_renders(entries: list[dict[str, Any]], narrator: Narrator) -> None:
    for entry in entries:
        line = narrator.line(entry)
        assert line and not line.startswith("[") and not placeholders(line), (entry, line)


def test_emitted_entries_carry_the_declared_parameters(
    entries: list[dict[str, Any]], declared: DeclaredMessages
) -> None:
    for entry in entries:
        assert set(declared.log[entry["key"]]) <= set(entry["params"]), entry


def test_the_engine_and_the_pack_write_exactly_the_declared_keys(
    base_pack: Pack, declared: DeclaredMessages
) -> None:
    """Also the keys random games rarely reach; a new key must be declared in the base pack's
    messages.yaml (or, for the engine's own, in coh_core.messages)."""
    calls = _note_calls()
    written = {key for key, _, _ in calls} | _log_calls(base_pack)
    assert sorted(written ^ set(declared.log)) == []
    for key, keywords, where in calls:
        # `to=` is note()'s own argument (who may see the entry), never a parameter.
        lacking = set(declared.log[key]) - (keywords - {"to"})
        assert not lacking, f"{where}: note({key!r}) lacks {sorted(lacking)}"


def test_english_messages_use_exactly_the_declared_placeholders(
    base_pack: Pack, declared: DeclaredMessages
) -> None:
    english = {**engine_english(), **base_pack.messages("en")}  # the pack's words, else coh's
    for key, message in declared.texts.items():
        assert key in english, key
        used = {name for form in text_forms(english[key]) for name in placeholders(form)}
        assert sorted(used) == sorted(message.params), key


def test_ui_keys_are_namespaced(declared: DeclaredMessages) -> None:
    assert all(key.startswith("ui.") for key in UI_MESSAGES)
    assert not any(key.startswith(("ui.", "log.")) for key in declared.log)


# -- exact English -----------------------------------------------------------------------------


def _entry(key: str, audience: list[str] | None = None, **params: Any) -> dict[str, Any]:
    """A log entry as the engine writes it; `audience` becomes `to` (a private entry)."""
    entry: dict[str, Any] = {"key": key, "turn": 1, "params": params}
    if audience is not None:
        entry["to"] = audience
    return entry


GOLDEN = [
    (_entry("card_played", player="red", card="shotgun"), "Red plays Shotgun."),
    (_entry("turn_start", turn=3), "=== Turn 3 ==="),
    (
        _entry("zombies_moved", count=2, origin="water_tower", location="church"),
        "2 zombies move from Water Tower to Church.",
    ),
    (_entry("zombies_killed", count=1, location="bank"), "1 zombie is killed at Bank."),
    (_entry("zombies_killed", count=0, location="bank"), "0 zombies are killed at Bank."),
    (
        _entry("character_died", character="granny", player="blue", location="crossroads"),
        "The Granny (Blue) dies at Crossroads.",
    ),
    (
        _entry("cards_seen", audience=["red"], player="red", cards=["kitten", "gun"]),
        "Red sees: Kitten, Gun.",
    ),
    (
        _entry("airdrop", location="church", antidotes=1, cards=2),
        "Airdrop at Church: antidotes 1, action cards 2.",
    ),
    (
        _entry("movement_revealed", cards={"red": "armory", "green": "church"}),
        "Movement cards: Red: Armory, Green: Church.",
    ),
    (
        _entry(
            "votes_revealed",
            location="church",
            votes={"red": "green", "green": "green"},
            tally={"green": 3, "red": 0},
        ),
        "Vote at Church: Red for Green, Green for Green. Tally: Green 3, Red 0.",
    ),
    (
        _entry("game_scored", scores={"red": 5, "blue": 3}, living={"red": 2, "blue": 1}, winners=["red"]),
        "The scores are counted.",  # the scoreboard that follows shows them, sorted and part by part
    ),
    (_entry("board_flipped", location="water_tower", side="collapsed"), "Water Tower turns over: Collapsed."),
    (_entry("gift", player="red", recipient="blue", item="antidote"), "Red gives Blue an antidote."),
    (
        _entry("item_shared", player="red", recipient="blue", item="card", location="bank"),
        "At Bank, Red gives Blue an action card.",
    ),
    (_entry("item_kept", player="red", item="antidote", location="bank"), "At Bank, Red keeps an antidote."),
    (_entry("effect_fizzled", source="priest"), "The effect of The Priest finds nothing to act on."),
    (
        _entry("effect_fizzled", source="armory/burnt"),
        "The effect of Armory (Burnt down) finds nothing to act on.",
    ),
    (_entry("card_stolen", player="white", victim="red"), "White steals an action card from Red."),
    (
        _entry("trait_set", character="granny", trait="can_move", value=True, until="end_of_turn"),
        "The Granny may be moved, until the end of the turn.",
    ),
    (
        _entry("trait_set", character="pregnant_woman", trait="votes", value=2, until="end_of_game"),
        "The Pregnant Woman now casts 2 votes, for the rest of the game.",
    ),
    # a trait the pack has no message for falls back to the general one
    (
        _entry("trait_set", character="granny", trait="wings", value=True, until="end_of_turn"),
        "The Granny: wings is now true, until the end of the turn.",
    ),
    (_entry("invasion_seen", player="red", invasions=["one_am_a"]), "Red sees what is coming: 1:00 card A."),
    # unknown ids show as themselves; a missing message as its key and parameters
    (_entry("card_played", player="octarine", card="banana"), "octarine plays banana."),
    (_entry("characters_dealt", player="red", characters=[]), "Red gets -."),
    (_entry("no_such_key", player="red", count=2), "[log.no_such_key] player=Red count=2"),
    ({"key": "game_over"}, "The game is over."),
    ({}, "[log.None]"),
]


@pytest.mark.parametrize(("entry", "text"), GOLDEN, ids=lambda v: v if isinstance(v, str) else None)
def test_golden_english(narrator: Narrator, entry: dict[str, Any], text: str) -> None:
    assert narrator.line(entry) == text


def test_ui_strings(narrator: Narrator) -> None:
    assert narrator.ui("ui.turn", turn=2) == "Turn 2"
    assert narrator.ui("ui.scoreboard.title") == "Final scores"
    parts = Verbatim("characters 4, antidotes 3")
    row = narrator.ui("ui.scoreboard.row", rank=1, player="red", score=7, winner_mark="*", parts=parts)
    assert row == "* 1. Red: 7 points (characters 4, antidotes 3)"
    breaks = Verbatim(
        narrator.part("part.tie_break", name=narrator.name("tie_break", "survivors"), value="2")
    )
    row = narrator.ui(
        "ui.scoreboard.row.tie_breaks",
        rank=1,
        player="red",
        score=7,
        winner_mark="*",
        parts=parts,
        tie_breaks=breaks,
    )
    assert row == "* 1. Red: 7 points (characters 4, antidotes 3), survivors 2"
    assert narrator.ui("ui.winners", players=["red", "blue"]) == "Winning: Red, Blue."
    assert (narrator.ui("ui.team.won"), narrator.ui("ui.team.lost")) == ("The team won.", "The team lost.")


def test_a_missing_parameter_stays_visible(narrator: Narrator) -> None:
    assert narrator.line(_entry("gift", player="red", item="card")) == "Red gives {recipient} an action card."


def test_lines_and_an_unknown_locale_fall_back_to_english(base_pack: Pack) -> None:
    narrator = Narrator(base_pack, locale="xx")
    assert narrator.lines([_entry("first_player", player="green"), _entry("game_over")]) == [
        "Green is the first player.",
        "The game is over.",
    ]


def test_a_base_pack_without_a_log_message_is_reported(base_copy: Path) -> None:
    text = base_copy / "text" / "en.yaml"
    text.write_text(
        text.read_text(encoding="utf-8").replace('  log.attack: "The zombies attack at {location}."\n', ""),
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["validate", str(base_copy), "--format", "json"])
    assert result.exit_code == 1, result.output
    problems = json.loads(result.output)["problems"]
    assert [(p["code"], "`log.attack`" in p["message"]) for p in problems] == [("TEXT-MISSING", True)]


def _scratched(pack: Path, quiet: bool) -> Path:
    """The base pack with a trait every character is given at setup, quiet or not."""
    declarations = pack / "declarations.yaml"
    text = declarations.read_text(encoding="utf-8")
    flag = ", quiet: true" if quiet else ""
    trait = f"  scratches: {{type: count, default: 0, doc: Scratches a character has{flag}}}\n"
    declarations.write_text(text.replace("traits:\n", "traits:\n" + trait, 1), encoding="utf-8")
    turn = pack / "turn.yaml"
    step = "        build_invasion_deck()\n"
    scratch = "        for c in all_characters() { set_trait(c, scratches, 1, until=end_of_game) }\n"
    turn.write_text(turn.read_text(encoding="utf-8").replace(step, step + scratch, 1), encoding="utf-8")
    return pack


def test_a_trait_not_quiet_needs_the_text_of_its_changes(runner: CliRunner, base_copy: Path) -> None:
    loud = runner.invoke(main, ["validate", str(_scratched(base_copy, quiet=False)), "--format", "json"])
    assert loud.exit_code == 1 and "log.trait_set.scratches" in loud.stdout


def test_a_quiet_trait_is_logged_not_told_and_needs_no_text(runner: CliRunner, base_copy: Path) -> None:
    """A trait that changes often (wounds, experience) is declared `quiet`: its changes stay in
    the log (for `traits_set_since`, records and digests) but the narrative does not tell them,
    and the pack writes no text for them."""
    root = _scratched(base_copy, quiet=True)
    assert runner.invoke(main, ["validate", str(root)]).exit_code == 0
    pack = load_pack_checked(root)
    game = new_game(pack, players=3, seed=2)
    agents = {colour: RandomAgent(seed=index) for index, colour in enumerate(game.players)}
    while not game.over:
        decision = game.decision
        assert decision is not None
        for colour in list(decision.waiting):
            game.submit(colour, ask(game, agents[colour], colour))
    scratched = [e for e in game.log if e["key"] == "trait_set" and e["params"]["trait"] == "scratches"]
    assert len(scratched) >= 9  # logged, one per character dealt...
    narrator = Narrator(pack)
    story = narrator.story(game.log, game.places)
    assert not {narrator.line(entry) for entry in scratched} & set(story)  # ...and not told

"""coh's own texts (`coh_core/text/<locale>.yaml`): the words of the messages the engine declares,
in every language coh ships, which a game shows where it has no text of its own for the key.

A key is looked up in the pack's texts along the locale's fallback chain (`fr-CA` -> `fr` ->
`en`), then in the engine's along the same chain, then shown raw (`[key]`). The small game in
`tests/games/pebbles` writes no text for any engine key but the scoreboard's."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.i18n import SOURCE_LOCALE, source_hash
from coh_core.messages import engine_texts, fill
from coh_core.narrative import Narrator
from coh_core.packs.checks import check_engine_texts
from coh_core.packs.declarations import declarations_of
from coh_core.packs.engine_texts import TEXT_DIR, engine_english, engine_locales, engine_messages
from coh_core.packs.loader import load_pack
from coh_core.packs.model import Pack

ROOT = Path(__file__).resolve().parent.parent
PEBBLES = Path(__file__).resolve().parent / "games" / "pebbles"

# The engine keys a game words itself: named after what it declares, or telling its results.
PACKS_WORDS = re.compile(r"^(log\.trait_set\..+|log\.duration\..+|ui\.window\..+)$")


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("engine_texts_tool", ROOT / "tools" / "engine_texts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _loaded(root: Path) -> Pack:
    pack, _ = load_pack(root)
    assert pack is not None
    return pack


@pytest.fixture()
def pebbles_copy(tmp_path: Path) -> Path:
    """A writable copy of the small game."""
    return Path(shutil.copytree(PEBBLES, tmp_path / "pebbles"))


def _append(path: Path, lines: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + lines, encoding="utf-8")


# --- the files ------------------------------------------------------------------------------


def test_coh_speaks_the_five_languages_of_the_project() -> None:
    assert engine_locales() == ["en", "de", "es", "fr", "it"]


def test_the_texts_are_sound() -> None:
    """Each English text words a declared message with exactly its placeholders; every translation
    has every English text, translates the English as it is now, with the same placeholders and
    its language's plural forms (or says `same: true`)."""
    assert list(check_engine_texts()) == []


@pytest.mark.parametrize("locale", ["en", "de", "es", "fr", "it"])
def test_the_files_are_as_the_tool_writes_them(locale: str) -> None:
    """In the one layout, each entry under the note `coh_core/messages.py` gives it."""
    written = _tool().written(locale)
    assert (TEXT_DIR / f"{locale}.yaml").read_text(encoding="utf-8") == written


def test_a_note_changed_in_the_code_changes_the_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above would catch a note left stale: the tool writes the notes of the code."""
    import coh_core.messages as messages

    note = "The very last entry of every game, reworded."
    monkeypatch.setitem(messages._NOTES, "log.game_over", (note, {}))
    for locale in ("en", "es"):
        written = _tool().written(locale)
        assert f"  # {note}\n  log.game_over:" in written
        assert written != (TEXT_DIR / f"{locale}.yaml").read_text(encoding="utf-8")


def test_every_key_without_a_text_is_the_packs_to_word(base_pack: Pack) -> None:
    """coh words every message it declares but those named after the pack's declarations (its
    traits' changes, durations, windows): the scoreboard's and the team's result too, and the
    entries its primitives write (a piece moved, a card played, the chance events)."""
    declared = engine_texts(declarations_of(base_pack))
    without = sorted(key for key in declared if key not in engine_english())
    assert without and all(PACKS_WORDS.match(key) for key in without), without
    worded = ("ui.winners", "ui.team.won", "log.trait_set", "log.character_died", "log.chance.roll")
    assert not set(worded) & set(without)


# --- where a game's text comes from -----------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "language"),
    [
        ("en", "en"),
        ("es", "es"),
        ("de", "de"),
        ("fr-CA", "fr"),  # a region: its language's
        ("it-CH", "it"),
        ("pt", "en"),  # a language coh does not speak: English
        ("pt-BR", "en"),
    ],
)
def test_a_game_without_the_text_shows_the_engines_in_its_language(locale: str, language: str) -> None:
    narrator = Narrator(_loaded(PEBBLES), locale)
    for key in ("ui.prompt", "ui.table.menu.hint", "log.game_over"):
        assert narrator.ui(key) == engine_messages(language)[key]


@pytest.mark.parametrize("locale", ["en", "es", "de"])
def test_the_games_own_text_wins(base_pack: Pack, locale: str) -> None:
    """The base game words a player's elimination its own way, in each of its languages."""
    narrator, key = Narrator(base_pack, locale), "log.player_eliminated"
    theirs = base_pack.messages(locale)[key]
    assert isinstance(theirs, str) and theirs != engine_messages(locale)[key]
    assert narrator.text(key, {"player": "red"}) == fill(theirs, {"player": narrator.name("colour", "red")})


@pytest.mark.parametrize(
    ("english", "spanish", "shown"),
    [
        (None, None, "Tu elección"),  # the engine's Spanish
        ("Pick one", None, "Pick one"),  # the game's English before the engine's Spanish
        ("Pick one", "Escoge", "Escoge"),  # the game's Spanish
        (None, "Escoge", "Escoge"),  # the game rewords the engine's Spanish alone
    ],
)
def test_the_lookup_goes_through_the_game_then_the_engine(
    pebbles_copy: Path, english: str | None, spanish: str | None, shown: str
) -> None:
    if english is not None:
        _append(pebbles_copy / "text" / "en.yaml", f"  ui.prompt: {english}\n")
    if spanish is not None:
        source = source_hash(english or engine_english()["ui.prompt"])
        entry = f'  ui.prompt:\n    text: {spanish}\n    source: "{source}"\n'
        _append(pebbles_copy / "text" / "es.yaml", entry)
    assert Narrator(_loaded(pebbles_copy), "es").ui("ui.prompt") == shown


def test_a_key_neither_has_shows_raw(pebbles_copy: Path) -> None:
    english = pebbles_copy / "text" / "en.yaml"
    english.write_text(english.read_text(encoding="utf-8").replace("  log.took:", "  log.tookz:"), "utf-8")
    narrator = Narrator(_loaded(pebbles_copy), SOURCE_LOCALE)
    assert narrator.text("log.took", {"player": "red", "count": 2}) == "[log.took] player=Red count=2"
    assert narrator.ui("ui.nothing.of.the.kind") == "[ui.nothing.of.the.kind]"


# --- what coh validate and coh i18n say of them ----------------------------------------------


def _problems(runner: CliRunner, *args: str) -> list[dict[str, Any]]:
    result = runner.invoke(main, [*args, "--format", "json"])
    found: list[dict[str, Any]] = json.loads(result.output).get("problems", [])
    return found


def _i18n(runner: CliRunner, pack: Path, locale: str) -> dict[str, Any]:
    result = runner.invoke(main, ["i18n", "check", "--pack", str(pack), "--lang", locale, "--format", "json"])
    report: dict[str, Any] = json.loads(result.output)["locales"][0]
    return report


def test_a_game_writes_only_the_engine_keys_coh_has_no_text_for(
    runner: CliRunner, pebbles_copy: Path
) -> None:
    """Those named after what the game declares: here a window of its own."""
    game = pebbles_copy / "game.yaml"
    text = game.read_text(encoding="utf-8")
    game.write_text(text.replace("windows: {}", "windows: {haggle: {doc: a moment to haggle}}"), "utf-8")
    found = _problems(runner, "validate", str(pebbles_copy))
    assert [(p["code"], p["message"].split("`")[1]) for p in found] == [("TEXT-MISSING", "ui.window.haggle")]


def test_a_games_text_for_an_engine_key_has_its_placeholders(runner: CliRunner, pebbles_copy: Path) -> None:
    _append(pebbles_copy / "text" / "en.yaml", '  ui.play.hand_over: "Pass the terminal to {someone}."\n')
    found = _problems(runner, "validate", str(pebbles_copy))
    assert [(p["code"], p["message"].split("`")[1]) for p in found] == [
        ("TEXT-PLACEHOLDER", "ui.play.hand_over")
    ]


def _reworded(key: str, text: str, source: str) -> str:
    return f'  {key}:\n    text: "{text}"\n    source: "{source}"\n'


ENGLISH_PROMPT = source_hash("Your choice")
HAND_OVER = source_hash("Pass the terminal to {player}, who presses Enter.")


@pytest.mark.parametrize(
    ("entry", "codes"),
    [
        (_reworded("ui.prompt", "Escoge", ENGLISH_PROMPT), []),
        (_reworded("ui.prompt", "Escoge", "00000000"), ["I18N-STALE"]),  # the engine's English changed since
        (_reworded("ui.play.hand_over", "Pasa el terminal.", HAND_OVER), ["I18N-PLACEHOLDER"]),
        (_reworded("ui.prompto", "Escoge", ENGLISH_PROMPT), ["I18N-EXTRA"]),  # no text of the game's or coh's
    ],
    ids=["current", "stale", "placeholders", "unknown"],
)
def test_a_translation_may_reword_the_engines_text_alone(
    runner: CliRunner, pebbles_copy: Path, entry: str, codes: list[str]
) -> None:
    """Without its own English, against the engine's; not counted among the game's texts."""
    _append(pebbles_copy / "text" / "es.yaml", entry)
    report = _i18n(runner, pebbles_copy, "es")
    assert [p["code"] for p in report["problems"]] == codes
    own = len(_loaded(pebbles_copy).own_messages("en"))
    assert (report["entries"], report["translated"]) == (own, own)


def test_a_language_coh_does_not_speak_is_translated_by_the_game(
    runner: CliRunner, pebbles_copy: Path
) -> None:
    """In Portuguese, coh's texts would show in English: the game's file must carry them."""
    spanish = (pebbles_copy / "text" / "es.yaml").read_text(encoding="utf-8")
    (pebbles_copy / "text" / "pt.yaml").write_text(spanish.replace("locale: es", "locale: pt"), "utf-8")
    report = _i18n(runner, pebbles_copy, "pt")
    missing = [p["message"].split("`")[1] for p in report["problems"] if p["code"] == "I18N-MISSING"]
    assert missing == list(engine_english())
    own = len(_loaded(pebbles_copy).own_messages("en"))
    assert (report["entries"], report["translated"]) == (own + len(engine_english()), own)
    written = runner.invoke(main, ["i18n", "template", "pt", "--pack", str(pebbles_copy)]).stdout
    entries = yaml.safe_load(written)["messages"]
    assert {k: entries[k] for k in engine_english()} == {
        k: {"text": v, "source": source_hash(v)} for k, v in engine_english().items()
    }


def test_the_template_shows_the_engines_texts_commented_out(runner: CliRunner, pebbles_copy: Path) -> None:
    """A translator sees coh's words in their language, under their notes, to reword any."""
    _append(pebbles_copy / "text" / "es.yaml", _reworded("ui.prompt", "Escoge", ENGLISH_PROMPT))
    written = runner.invoke(main, ["i18n", "template", "es", "--pack", str(pebbles_copy)]).stdout
    entries = yaml.safe_load(written)["messages"]
    assert set(entries) - set(_loaded(pebbles_copy).own_messages("en")) == {"ui.prompt"}  # the one kept
    assert entries["ui.prompt"] == {"text": "Escoge", "source": ENGLISH_PROMPT}
    spanish = engine_messages("es")["ui.table.menu.hint"]
    assert f'  # ui.table.menu.hint:\n  #   text: "{spanish}"\n' in written


def test_the_template_of_a_game_that_rewords_them_all_has_no_part_for_them(pebbles_copy: Path) -> None:
    from coh_core.packs.i18n_files import template

    english = pebbles_copy / "text" / "en.yaml"
    _append(english, "".join(f"  {key}: {json.dumps(text)}\n" for key, text in engine_english().items()))
    pack = _loaded(pebbles_copy)
    assert all(key in pack.own_messages("en") for key in engine_english())
    assert "coh's own texts" not in template(pack, "nl")


def test_a_reworded_engine_text_is_stamped(runner: CliRunner, pebbles_copy: Path) -> None:
    _append(pebbles_copy / "text" / "es.yaml", _reworded("ui.prompt", "Escoge", "00000000"))
    result = runner.invoke(main, ["i18n", "stamp", "es", "ui.prompt", "--pack", str(pebbles_copy)])
    assert result.exit_code == 0, result.output
    assert _i18n(runner, pebbles_copy, "es")["problems"] == []

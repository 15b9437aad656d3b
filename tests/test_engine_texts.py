"""coh's own texts (`coh_core/text/<locale>.yaml`): the words of the messages the engine declares,
in every language coh ships, which a game shows where it has no text of its own for the key.

A key is looked up in the pack's texts along the locale's fallback chain (`fr-CA` -> `fr` ->
`en`), then in the engine's along the same chain, then shown raw (`[key]`). The small game in
`tests/games/pebbles` writes no text for any engine key but the scoreboard's."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from types import ModuleType

import pytest

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
PACKS_WORDS = re.compile(
    r"^(log\.trait_set\..+|log\.duration\..+|ui\.window\..+|ui\.scoreboard\..+|ui\.winners|log\.part\.score_part)$"
)


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
    traits' changes, durations, windows) and the scoreboard's."""
    declared = engine_texts(declarations_of(base_pack))
    without = sorted(key for key in declared if key not in engine_english())
    assert without and all(PACKS_WORDS.match(key) for key in without), without
    assert "ui.winners" in without and "log.trait_set" not in without


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
    english.write_text(english.read_text(encoding="utf-8").replace("  ui.winners:", "  ui.winnerz:"), "utf-8")
    narrator = Narrator(_loaded(pebbles_copy), SOURCE_LOCALE)
    assert narrator.ui("ui.winners", players=["red"]) == "[ui.winners] players=Red"
    assert narrator.ui("ui.nothing.of.the.kind") == "[ui.nothing.of.the.kind]"

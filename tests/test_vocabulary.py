"""`coh_core` names no game (issue 11): no City of Horror concept and no id of the base pack in any
of its Python files, code, strings or docstrings alike, nor in its own texts (`coh_core/text`). The
words are those of `tools/vocabulary.py`: the issue's (zombie, antidote, food, leader, invasion,
airdrop, explosion) and every id the base pack defines (characters, cards, locations, invasion
cards, components)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The engine's Python, and its own texts (`coh_core/text`), which every game may show.
ENGINE_FILES = sorted([*(ROOT / "coh_core").rglob("*.py"), *(ROOT / "coh_core" / "text").glob("*.yaml")])


def _vocabulary() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vocabulary", ROOT / "tools" / "vocabulary.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def game_words() -> re.Pattern[str]:
    vocabulary = _vocabulary()
    found: re.Pattern[str] = vocabulary.pattern(vocabulary.game_words())
    return found


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_word_of_the_game_in_the_engine(path: Path, game_words: re.Pattern[str]) -> None:
    lines = [
        f"{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if game_words.search(line)
    ]
    assert lines == []


def test_every_engine_module_is_read() -> None:
    """The files above are the whole package, its subpackages included."""
    names = {p.relative_to(ROOT).as_posix() for p in ENGINE_FILES}
    assert {"coh_core/cli.py", "coh_core/engine/game.py", "coh_core/packs/checks.py"} <= names
    assert {f"coh_core/text/{locale}.yaml" for locale in ("en", "es", "it", "fr", "de")} <= names
    assert len(names) > 40


@pytest.mark.parametrize(
    "line",
    [
        'return "kill_zombies" in verbs',
        "antidotes=count",
        "an invasion card",
        "the zombie leader's wheel",
        "FOOD = 3",
        "location.church.name",  # an id of the base pack
        "the_crossroads_slot",
    ],
)
def test_the_words_are_found_where_they_are(line: str, game_words: re.Pattern[str]) -> None:
    """The test above could pass with a pattern that finds nothing: it finds the game's words."""
    assert game_words.search(line)


@pytest.mark.parametrize(
    "line",
    ["a kind of entity the pack declares", "leadership", "move_counters(n, kind, from=a, to=b)"],
)
def test_engine_words_are_not_game_words(line: str, game_words: re.Pattern[str]) -> None:
    assert not game_words.search(line)

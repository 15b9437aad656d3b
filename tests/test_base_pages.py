"""The words of City of Horror's `coh list` and `coh show` pages are its own (issue 28): the texts
its page declarations print (`kinds:` in content/base/declarations.yaml) are declared by its
`messages: screens` and worded in each of its languages; coh declares only what every pack's pages
print (the id and name columns, the page's first line, a trigger's line) and the summary of
`coh validate`. The pages print, in every language, the game's own words, and no raw key."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.effects.registry import Declarations
from coh_core.messages import CLI_MESSAGES, GROUPS, declarations, engine_texts
from coh_core.packs.engine_texts import engine_english
from coh_core.packs.model import Pack

LANGUAGES = ("en", "es", "it", "fr", "de")
RAW_KEY = re.compile(r"\[ui\.")
# What the engine itself prints of any pack's page (`coh_core/packs/listing.py`).
EVERY_PACKS_PAGE = {"ui.column.id", "ui.column.name", "ui.show.header", "ui.show.trigger"}


def _texts_named(spec: Any) -> Iterator[str]:
    """Every fixed `ui.` key a kind's `list` or `show` declaration names (keys made of a field's
    value, `ui.slot.{slot}`, are named by their part before the brace)."""
    if isinstance(spec, dict):
        for value in spec.values():
            yield from _texts_named(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from _texts_named(value)
    elif isinstance(spec, str) and spec.startswith("ui."):
        yield spec


def _screens(pack: Pack) -> set[str]:
    section = pack.section("messages")
    return {GROUPS[group] + ident for group, ident, _ in declarations(section) if group == "screens"}


def test_every_text_its_pages_print_is_its_own_or_every_packs(base_pack: Pack) -> None:
    named = {
        key
        for entry in base_pack.kind_declarations().values()
        for part in ("list", "show", "label")
        for key in _texts_named(entry.get(part))
    }
    fixed = {key for key in named if "{" not in key}
    engine = {key for key in fixed if key in engine_texts(Declarations())}
    assert engine <= EVERY_PACKS_PAGE
    assert fixed - engine <= _screens(base_pack)
    for key in fixed - engine:
        assert all(key in base_pack.own_messages(locale) for locale in LANGUAGES), key
    for made in {key.split("{")[0] for key in named if "{" in key} - {"ui.window."}:
        # (the windows' names are declared per window, by the engine: `ui.window.<window>`)
        assert any(key.startswith(made) for key in _screens(base_pack)), made


def test_coh_declares_and_words_only_every_packs_page_texts() -> None:
    pages = {key for key in CLI_MESSAGES if not key.startswith("ui.validate.")}
    assert pages == EVERY_PACKS_PAGE | {"ui.show.trigger.after_action"}
    assert {key for key in engine_english() if key.startswith(("ui.column.", "ui.show."))} == pages


@pytest.mark.parametrize("lang", LANGUAGES)
def test_its_pages_are_in_its_own_words(runner: CliRunner, base_pack: Pack, lang: str) -> None:
    own = base_pack.own_messages(lang)
    for section in ("characters", "actions", "locations", "invasions"):
        result = runner.invoke(main, ["list", section, "--lang", lang])
        assert result.exit_code == 0 and not RAW_KEY.search(result.output), result.output
    listed = runner.invoke(main, ["list", "characters", "--lang", lang]).output.splitlines()
    assert listed[0].startswith(f"{own['ui.column.id']}  ")  # the game words even the id column
    assert str(own["ui.column.rested"]) in listed[0]
    for entity in ("granny", "gun", "water_tower", "crossroads", "midnight_a"):
        result = runner.invoke(main, ["show", entity, "--lang", lang])
        assert result.exit_code == 0 and not RAW_KEY.search(result.output), result.output
    granny = runner.invoke(main, ["show", "granny", "--lang", lang]).output
    worth = str(own["ui.show.value"]).format(rested=5, exhausted=2)
    assert worth in granny

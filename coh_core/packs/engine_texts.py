"""The engine's own texts: coh's words for the messages `coh_core.messages` declares, in every
language coh ships (`coh_core/text/<locale>.yaml`).

The files are shaped as a pack's text files: English (`en.yaml`) is the source, and each other
file translates it entry by entry, recording the source hash of the English it translates
(`coh_core.i18n.source_hash`). A game needs none of these texts: the narrator, the terminal and
the command line look a key up in the pack's texts along the locale's fallback chain, then in the
engine's along the same chain (`engine_chain`), so a pack's text for an engine key rewords it.

Some engine keys have no text here, and a game that stands on its own writes them: those named
after what the pack declares (`log.trait_set.<trait>`, `log.duration.<value>`,
`ui.window.<window>`: the pack's words), and the scoreboard's (`ui.scoreboard.*`, `ui.winners`,
`log.part.score_part`), which tell the pack's results.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from coh_core.i18n import SOURCE_LOCALE, Text, fallback_chain, source_text
from coh_core.packs.model import Pack
from coh_core.packs.yamlsrc import YamlDoc, load_yaml

TEXT_DIR = Path(__file__).resolve().parent.parent / "text"
SHOWN_DIR = "coh_core/text"  # how the files are named in a problem
ENGINE_ID = "coh"  # the engine's texts checked as a pack's (`engine_pack`)


def engine_locales() -> list[str]:
    """The languages coh has its own texts in, English first."""
    found = {path.stem for path in TEXT_DIR.glob("*.yaml")}
    return sorted(found, key=lambda locale: (locale != SOURCE_LOCALE, locale))


@cache
def engine_doc(locale: str) -> YamlDoc | None:
    """The engine's text file for a language, as loaded (None if coh has none in it)."""
    path = TEXT_DIR / f"{locale}.yaml"
    if not path.is_file():
        return None
    doc, _ = load_yaml(path, f"{SHOWN_DIR}/{path.name}")  # shipped with coh: the tests check it
    return doc


def engine_entries(locale: str) -> dict[str, Any]:
    """The `messages` of the engine's file for a language as written (entries of a translation)."""
    doc = engine_doc(locale)
    messages = doc.data.get("messages") if doc is not None and isinstance(doc.data, dict) else None
    return messages if isinstance(messages, dict) else {}


@cache
def engine_messages(locale: str) -> dict[str, Text]:
    """The engine's texts in one language by key (a string, or plural forms); none of another."""
    entries = engine_entries(locale)
    if locale == SOURCE_LOCALE:
        return {str(k): source_text(v) for k, v in entries.items()}
    return {str(k): v["text"] for k, v in entries.items() if isinstance(v, dict) and "text" in v}


def engine_english() -> dict[str, Text]:
    """The engine's English texts: every key the engine has a default for."""
    return engine_messages(SOURCE_LOCALE)


@cache
def engine_chain(locale: str) -> dict[str, Text]:
    """The engine's texts for a locale: its own, then its language's, then English underneath."""
    found: dict[str, Text] = {}
    for step in reversed(fallback_chain(locale)):
        found.update(engine_messages(step))
    return found


def engine_speaks(locale: str) -> bool:
    """Whether coh has its own texts in the locale's language (English always)."""
    return any(step != SOURCE_LOCALE and engine_doc(step) is not None for step in fallback_chain(locale)) or (
        locale.split("-")[0] == SOURCE_LOCALE
    )


def engine_pack() -> Pack | None:
    """The engine's text files as a pack that has nothing else, for the checks of a pack's texts
    (`coh_core.packs.checks.check_engine_texts`); None if the English file is unreadable."""
    english = engine_doc(SOURCE_LOCALE)
    if english is None:
        return None
    texts = {locale: doc for locale in engine_locales() if (doc := engine_doc(locale)) is not None}
    return Pack(ENGINE_ID, TEXT_DIR, {"id": ENGINE_ID, "kind": "base"}, english, text=texts)

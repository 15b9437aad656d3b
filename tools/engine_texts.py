"""Rewrite coh's own text files (`coh_core/text/<locale>.yaml`) in their one layout.

Each file lists the engine's keys in the order `coh_core/messages.py` declares them, under a
heading per part (the log, `coh play`, `coh list` and `coh show`, `coh validate`), with the note
for translators that `coh_core/messages.py` gives above each entry. The texts are the files'
own: English in `en.yaml`, each translation's `text`, `source` (the hash of the English it
translates: a changed English shows as stale until revised) and `same` in the others. Run it
after adding an engine key (write its English in `en.yaml` first, then its translations) or
changing a note:

    python tools/engine_texts.py            # rewrite the files
    python tools/engine_texts.py --check    # exit 1 if a file is not as it would be written

`tests/test_engine_texts.py` checks the files are as this writes them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coh_core.effects.registry import Declarations  # noqa: E402
from coh_core.i18n import SOURCE_LOCALE  # noqa: E402
from coh_core.messages import engine_texts  # noqa: E402
from coh_core.packs.engine_texts import TEXT_DIR, engine_entries, engine_locales  # noqa: E402
from coh_core.packs.i18n_files import entry_lines, flow, note_lines  # noqa: E402

# The parts of a file, by the beginning of their keys: the first that fits a key is its part.
_LISTING = ("column.", "show.")
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the game's log", ("log.",)),
    ("coh validate", ("ui.validate.",)),
    ("coh list and coh show", tuple(f"ui.{start}" for start in _LISTING)),
    ("coh play: the table, the questions and their answers", ("ui.",)),
)
# The parts in the order the file gives them.
ORDER = (
    "the game's log",
    "coh play: the table, the questions and their answers",
    "coh list and coh show",
    "coh validate",
)
_HEADING_WIDTH = 92


def part_of(key: str) -> str:
    """The part of the file a key is written in."""
    return next(name for name, starts in PARTS if key.startswith(starts))


def ordered_keys() -> list[str]:
    """The keys the engine has English for, by part, each part in declaration order."""
    english = engine_entries(SOURCE_LOCALE)
    declared = [key for key in engine_texts(Declarations()) if key in english]
    return sorted(declared, key=lambda key: ORDER.index(part_of(key)))  # (a stable sort)


def written(locale: str) -> str:
    """The file for a language as this tool writes it, from the texts it holds now."""
    messages = engine_texts(Declarations())
    entries = engine_entries(locale)
    header = [
        "# yaml-language-server: $schema=../../schemas/text.schema.json",
        "# coh's own texts (coh_core/messages.py declares their keys): any game shows them where it has no",
        "# text of its own for the key. Written by tools/engine_texts.py: edit the texts, then run it.",
        f"locale: {json.dumps(locale)}",
        "messages:",
    ]
    lines, part = header, ""
    for key in ordered_keys():
        if part_of(key) != part:
            part = part_of(key)
            lines.append(f"  # -- {part} ".ljust(_HEADING_WIDTH, "-"))
        lines.extend(note_lines(messages[key]))
        if key not in entries:
            continue  # a translation that lacks it: the tests report it
        lines.extend(_entry(key, entries[key], locale))
    extra = [key for key in entries if key not in messages or key not in ordered_keys()]
    for key in extra:  # kept, for the tests to report
        lines.extend(_entry(key, entries[key], locale))
    return "\n".join(lines) + "\n"


def _entry(key: str, entry: Any, locale: str) -> list[str]:
    if locale == SOURCE_LOCALE:
        return [f"  {key}: {flow(entry)}"]
    return entry_lines(key, entry if isinstance(entry, dict) else {"text": entry})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is not as it would be written")
    args = parser.parse_args()
    differ = []
    for locale in engine_locales():
        path = TEXT_DIR / f"{locale}.yaml"
        text = written(locale)
        if path.read_text(encoding="utf-8") != text:
            differ.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if args.check and differ:
        sys.exit(f"not as tools/engine_texts.py writes them: {', '.join(map(str, differ))}")


if __name__ == "__main__":
    main()

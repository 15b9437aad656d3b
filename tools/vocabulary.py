"""Count the City of Horror words left in the engine's Python (issue 11: `coh_core` names no game).

The words are the issue's (zombie, antidote, food, leader, invasion, airdrop, explosion) and every
id the base pack defines (the entities of its declared kinds but its seats' colours, and its
counters). A word is found as a whole part of an identifier or of prose: `kill_zombies`,
`zombieCount` and "the zombies" count; `foods` counts as `food`, `leadership` does not.

    python tools/vocabulary.py              # per file, then per word, and the total
    python tools/vocabulary.py --lines      # every line found, as file:line: text

Exit 0 always: this is a report of what is left to move into the pack.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coh_core.packs import load_pack_checked  # noqa: E402

CONCEPTS = ("zombie", "antidote", "food", "leader", "invasion", "airdrop", "explosion")
# Ids too common as English words to tell the game from the engine (a location `at`, a side `A`).
_TOO_COMMON = frozenset({"a", "b", "at", "open", "closed", "locked", "box", "reserve"})


def game_words() -> list[str]:
    """The issue's words and the base pack's ids, longest first (so `water_tower` wins over `tower`)."""
    pack = load_pack_checked(None, [])
    # The seats' colours are left out: red and green are also the terminal's (click's `fg="red"`).
    kinds = [kind for kind in pack.entity_kinds() if kind != "colour"]
    ids = {entity.id for kind in kinds for entity in pack.entities_of(kind)}
    components = pack.sections["components"].data if "components" in pack.sections else {}
    ids.update(components.get("counters") or {})
    words = {w.lower() for w in (*CONCEPTS, *ids) if w.lower() not in _TOO_COMMON and len(w) > 2}
    return sorted(words, key=lambda w: (-len(w), w))


def pattern(words: list[str]) -> re.Pattern[str]:
    """A word as a whole part: bounded by anything but a letter (underscores and digits bound it)."""
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![a-z])({alternatives})s?(?![a-z])", re.IGNORECASE)


def hits(found: re.Pattern[str], root: Path) -> Iterator[tuple[Path, int, str, str]]:
    """(file, line number, word, line) for each word found in the Python files under root."""
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in found.finditer(line):
                yield path, number, match.group(1).lower().removesuffix("s"), line.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", action="store_true", help="print every line found")
    args = parser.parse_args()
    found = list(hits(pattern(game_words()), ROOT / "coh_core"))
    if args.lines:
        for path, number, _, line in found:
            print(f"{path.relative_to(ROOT)}:{number}: {line}")
        return
    per_file = Counter(str(path.relative_to(ROOT)) for path, *_ in found)
    per_word = Counter(word for _, _, word, _ in found)
    lines = {(path, number) for path, number, *_ in found}
    for name, count in per_file.most_common():
        print(f"{count:5d}  {name}")
    print()
    for word, count in per_word.most_common():
        print(f"{count:5d}  {word}")
    print(f"\n{len(found)} words on {len(lines)} lines of {len(per_file)} files")


if __name__ == "__main__":
    main()

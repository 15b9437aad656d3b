#!/usr/bin/env python3
"""Validation time against pack size: does `coh validate` grow linearly?

Builds copies of the base pack with N extra action cards (each with its effect and its
English texts) for growing N, validates each in-process and prints the time per card.
Linear validation keeps that figure flat; a quadratic check makes it grow with N. The ratio
column compares each size with the smallest.

    python tools/bench_large_pack.py --sizes 2000 8000 32000
"""

from __future__ import annotations

import argparse
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coh_core.packs import validate_paths  # noqa: E402
from coh_core.resources import content_root  # noqa: E402


def _grow(pack: Path, cards: int, rejected: bool) -> None:
    """Add `cards` action cards, and their texts, to a copy of the base pack; with `rejected`,
    each card has a misspelt key, so that the schema rejects every one of them."""
    extra = "    wndow: scoring\n" if rejected else ""
    actions = "".join(
        f"  - id: bench_{i}\n    count: 1\n{extra}"
        f"    effect: kill_zombies({i % 3 + 1}, at=choose(locations()))\n"
        for i in range(cards)
    )
    with (pack / "actions.yaml").open("a", encoding="utf-8") as stream:
        stream.write(actions)
    texts = "".join(
        f"  action.bench_{i}.name: Bench card {i}\n  action.bench_{i}.text: Kill zombies.\n"
        for i in range(cards)
    )
    with (pack / "text" / "en.yaml").open("a", encoding="utf-8") as stream:
        stream.write(texts)
    for translation in (pack / "text").glob("*.yaml"):
        if translation.name != "en.yaml":
            translation.unlink()  # the benchmark measures content checks, not translation coverage


def _measure(cards: int, repeat: int, rejected: bool) -> tuple[float, int]:
    """The best time of `repeat` validations of a pack with `cards` extra cards, and its problems."""
    best, problems = float("inf"), 0
    with tempfile.TemporaryDirectory() as folder:
        pack = Path(folder) / "base"
        shutil.copytree(content_root() / "base", pack)
        _grow(pack, cards, rejected)
        for _ in range(repeat):
            start = time.perf_counter()
            report = validate_paths([pack])
            best = min(best, time.perf_counter() - start)
            problems = len(report.problems)
    return best, problems


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000, 32000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rejected", action="store_true", help="cards the schema rejects")
    args = parser.parse_args()
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"{'cards':>8} {'seconds':>9} {'us/card':>9} {'ratio':>6} {'problems':>9}")
    first: float | None = None
    for size in args.sizes:
        seconds, problems = _measure(size, args.repeat, args.rejected)
        per_card = seconds / size * 1e6
        first = first or per_card
        print(f"{size:>8} {seconds:>9.2f} {per_card:>9.1f} {per_card / first:>6.2f} {problems:>9}")


if __name__ == "__main__":
    main()

"""Content packs: find, load (safe YAML with positions), validate, compile effects once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from coh_core.errors import ContentError, Problem
from coh_core.i18n import SOURCE_LOCALE
from coh_core.packs.checks import semantic_problems
from coh_core.packs.effects_index import compile_effects
from coh_core.packs.loader import find_pack_roots, load_pack
from coh_core.packs.model import Pack
from coh_core.resources import content_root


@dataclass
class ValidationReport:
    packs: list[Pack] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def entities(self) -> int:
        return sum(p.entity_count for p in self.packs)

    @property
    def effects(self) -> int:
        return sum(p.effect_count for p in self.packs)

    @property
    def files(self) -> int:
        return sum(p.file_count for p in self.packs)


def check_pack(root: Path) -> tuple[Pack | None, list[Problem]]:
    """Load and fully validate one pack directory."""
    pack, problems = load_pack(root)
    if pack is not None:
        problems.extend(compile_effects(pack))
        problems.extend(semantic_problems(pack))
    return pack, _ordered(problems)


def validate_paths(paths: Iterable[Path]) -> ValidationReport:
    """Validate the packs named by paths (the built-in content when there are none).

    Raises UsageError for paths that do not exist or hold no pack.
    """
    report = ValidationReport()
    for root in find_pack_roots(paths):
        pack, problems = check_pack(root)
        if pack is not None:
            report.packs.append(pack)
        report.problems.extend(problems)
    return report


def load_pack_checked(root: Path | None = None) -> Pack:
    """The pack at `root` (the built-in base pack by default); ContentError if it has problems.

    Problems of a translation do not stop the pack from loading: a stale or unfinished
    language falls back to English where it must, and `coh validate` still reports them.
    """
    pack, problems = check_pack(root or content_root() / "base")
    if pack is None:
        raise ContentError(problems)
    translations = {doc.path for locale, doc in pack.text.items() if locale != SOURCE_LOCALE}
    blocking = [p for p in problems if p.location.file not in translations]
    if blocking:
        raise ContentError(blocking)
    return pack


def _ordered(problems: list[Problem]) -> list[Problem]:
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (p.location.file, p.location.line, p.location.col, p.code))

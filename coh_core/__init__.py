"""coh: a data-driven rules engine for the board game City of Horror."""

from __future__ import annotations

from pathlib import Path

from coh_core.cards import CardSet, load_cards
from coh_core.errors import CohError, ContentError, Location, Problem, UsageError
from coh_core.packs import ValidationReport, load_pack_checked, validate_paths
from coh_core.packs.model import Pack

__version__ = "0.1.0"

__all__ = [
    "CardSet",
    "CohError",
    "ContentError",
    "Location",
    "Pack",
    "Problem",
    "UsageError",
    "ValidationReport",
    "__version__",
    "load_cards",
    "load_ruleset",
    "validate_paths",
]


def load_ruleset(pack: Path | str | None = None) -> Pack:
    """Load and validate a pack (the built-in base game by default).

    Raises ContentError, carrying every located problem, when the pack is not valid.
    """
    return load_pack_checked(Path(pack) if pack is not None else None)

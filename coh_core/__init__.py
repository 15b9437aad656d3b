"""coh: a data-driven rules engine for board games, each game a pack of YAML (City of Horror built in)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Nothing heavier than `typing` (which click imports anyway) at import: `coh --help` imports this
# package, and pathlib alone would cost it a tenth of a bare interpreter's start (tests/test_startup.py).
if TYPE_CHECKING:
    from pathlib import Path

    from coh_core.build_info import __version__
    from coh_core.cards import CardSet, load_cards
    from coh_core.errors import CohError, ContentError, Location, Problem, UsageError
    from coh_core.packs import ValidationReport, validate_paths
    from coh_core.packs.model import Pack

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

# Where each public name lives: imported on first use, so that `import coh_core.cli` (and with
# it `coh --help`) does not pay for the schema, grammar and YAML libraries.
_EXPORTS = {
    "__version__": "coh_core.build_info",
    "CardSet": "coh_core.cards",
    "load_cards": "coh_core.cards",
    "CohError": "coh_core.errors",
    "ContentError": "coh_core.errors",
    "Location": "coh_core.errors",
    "Problem": "coh_core.errors",
    "UsageError": "coh_core.errors",
    "ValidationReport": "coh_core.packs",
    "validate_paths": "coh_core.packs",
    "Pack": "coh_core.packs.model",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_ruleset(pack: Path | str | None = None) -> Pack:
    """Load and validate a pack (the built-in base game by default).

    Raises ContentError, carrying every located problem, when the pack is not valid.
    """
    from pathlib import Path

    from coh_core.packs import load_pack_checked

    return load_pack_checked(Path(pack) if pack is not None else None)

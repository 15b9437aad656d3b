"""Content packs: find, load (safe YAML with positions), validate, compile effects once."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path

from coh_core.errors import ContentError, Problem, UsageError
from coh_core.packs.blame import Found, blame, found_in
from coh_core.packs.checks import semantic_problems
from coh_core.packs.declarations import declarations_kept
from coh_core.packs.drift import drift_problems
from coh_core.packs.effects_index import compile_effects
from coh_core.packs.loader import MANIFEST, PACK_ID, collect, find_pack_roots, load_pack
from coh_core.packs.model import Pack
from coh_core.packs.overlays import ComposedDoc, compose, declare_conflict, order_overlays, overlay_roots
from coh_core.packs.pack_schema import schema_of
from coh_core.packs.reuse import Reuse
from coh_core.packs.schema import validate_document
from coh_core.resources import content_root

# What a translation lacks (texts not yet translated, or translating an older English): a game
# shows those texts in English, so `coh validate` warns of them, and fails on them only when
# strict. `coh i18n check` always fails on them.
INCOMPLETE_TRANSLATION = frozenset({"I18N-MISSING", "I18N-STALE", "I18N-UNTRANSLATED"})


@dataclass
class ValidationReport:
    packs: list[Pack] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

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


class _Loads:
    """Packs read once per validation run: every overlay is checked on the same base; and the
    results of checks that the packs of the run reuse (`reuse`)."""

    def __init__(self, reuse: Reuse | None = None) -> None:
        self.found: dict[Path, tuple[Pack | None, list[Problem]]] = {}
        self.reuse = reuse or Reuse()

    def __call__(self, root: Path) -> tuple[Pack | None, list[Problem]]:
        key = root.resolve()
        if key not in self.found:
            self.found[key] = load_pack(root)
        pack, problems = self.found[key]
        return pack, list(problems)


def check_pack(
    root: Path, rules: Sequence[str] = (), loads: _Loads | None = None
) -> tuple[Pack | None, list[Problem]]:
    """Load and fully validate one pack directory, with the overlays named in `rules` applied.

    An overlay's own directory is checked as applied to the pack it requires.
    """
    loads = loads or _Loads()
    pack, problems = loads(root)
    if pack is not None and pack.manifest.get("kind") == "overlay":
        base = _required_base(pack, root, loads)
        return check_pack(base, [str(root), *rules], loads) if base is not None else (pack, problems)
    if pack is None or not rules:
        return pack, _ordered([*problems, *(_checked(pack, loads.reuse) if pack is not None else [])])
    below, loaded = pack, {pack.id: list(problems)}
    pack = _with_overlays(below, rules, problems, loads, loaded)
    problems.extend(_checked(pack, loads.reuse))
    # a problem in the files below that only a later overlay brings is reported at its cause
    recheck = partial(_recheck, below, loaded, pack.overlays, loads.reuse)
    problems = blame(problems, below, pack.overlays, recheck)
    return pack, _ordered(problems)


def _checked(pack: Pack, reuse: Reuse) -> list[Problem]:
    """The problems of a loaded (or composed) pack's effects and of the checks across it."""
    with declarations_kept(pack):  # the checks read the pack, never change it
        return [*compile_effects(pack, reuse.effects), *semantic_problems(pack)]


def _recheck(
    base: Pack,
    loaded: dict[str, list[Problem]],
    overlays: list[Pack],
    reuse: Reuse,
    applied: int,
    patches: int | None,
) -> Found:
    """What a check finds with only the first `applied` overlays (of the last, `patches` patches);
    `loaded`: the problems of reading each pack."""
    composed, composition = compose(base, overlays[:applied], patches)
    read = [p for layer in [base, *overlays[:applied]] for p in loaded.get(layer.id, [])]
    problems = [*read, *composition.problems, *_revalidated(base, composed), *_checked(composed, reuse)]
    return found_in(problems)


def _with_overlays(
    pack: Pack, rules: Sequence[str], problems: list[Problem], loads: _Loads, loaded: dict[str, list[Problem]]
) -> Pack:
    """`pack` with the overlays of `rules`; their problems (`loaded`: of reading each) go to `problems`."""
    overlays: list[Pack] = []
    for root in overlay_roots(list(rules), content_root()):
        overlay, found = loads(root)
        problems.extend(found)
        if overlay is None:
            continue
        loaded.setdefault(overlay.id, found)
        if overlay.manifest.get("kind") != "overlay":
            raise UsageError(
                f"`{overlay.id}` is a {overlay.manifest.get('kind')} pack, not an overlay",
                code="OVERLAY-KIND",
            )
        if overlay.id not in (o.id for o in overlays):
            overlays.append(overlay)
    composed, composition = compose(pack, order_overlays(overlays, {pack.id}))
    problems.extend(composition.problems)
    problems.extend(_revalidated(pack, composed))
    return composed


def _revalidated(base: Pack, composed: Pack) -> list[Problem]:
    """Check again the documents patches changed (all of them when the overlays changed the
    pack's schema) and the overlays' own files, and collect the composed pack's entities."""
    problems: list[Problem] = []
    schema = schema_of(composed.docs, composed.id)
    changed = schema != schema_of(base.docs, base.id)
    for doc in composed.docs:
        if not isinstance(doc, ComposedDoc) or doc.touched or changed:
            doc.clear_invalid()  # found again on the changed data, or by the composed schema
            problems.extend(validate_document(doc, schema))
    problems.extend(collect(composed))
    return problems


def _required_base(overlay: Pack, root: Path, loads: _Loads) -> Path | None:
    """The directory of the base pack an overlay builds on: a sibling, or a shipped pack."""
    for name in overlay.manifest.get("requires") or []:
        if not (isinstance(name, str) and PACK_ID.fullmatch(name)):
            continue  # the schema reports it; a name that is no id never becomes a path
        for candidate in (root.parent / name, content_root() / name):
            if not (candidate / MANIFEST).is_file():
                continue
            required, _ = loads(candidate)
            if required is not None and required.manifest.get("kind") != "overlay":
                return candidate
    return None


def validate_paths(
    paths: Iterable[Path], rules: Sequence[str] = (), strict: bool = False, reuse: Reuse | None = None
) -> ValidationReport:
    """Validate the packs named by paths (the built-in content when there are none). Incomplete
    translations, and texts that drift from what they describe (in a pack with no problem), are
    warnings, unless `strict`. `reuse`: the results of checks the packs share (a new one by
    default; `Reuse(enabled=False)` checks every pack whole).

    Raises UsageError for paths that do not exist or hold no pack.
    """
    report = ValidationReport()
    loads = _Loads(reuse)
    paths = list(paths)
    named = {r for p in paths if p.is_file() or (p / MANIFEST).is_file() for r in find_pack_roots([p])}
    drift: dict[Problem, list[list[str]]] = {}  # each drift, with the rules it shows under
    for root in find_pack_roots(paths):
        # An overlay found among others (not named) is checked under the rules it can be played with.
        playable = rules if root in named else _playable_with(root, rules, loads)
        pack, problems = check_pack(root, playable, loads)
        if pack is not None:
            report.packs.append(pack)
        for problem in problems:
            warns = not strict and problem.code in INCOMPLETE_TRANSLATION
            (report.warnings if warns else report.problems).append(problem)
        if pack is not None and all(p.code.startswith(TRANSLATION_CODES) for p in problems):
            for found in drift_problems(pack):
                drift.setdefault(found, []).append(pack.rules_id)
    (report.problems if strict else report.warnings).extend(_under(drift))
    report.problems = _ordered(report.problems)
    report.warnings = _ordered(report.warnings)
    return report


def _under(drift: dict[Problem, list[list[str]]]) -> Iterator[Problem]:
    """Each drift once: as it is if the pack shows it under its own rules, else saying under
    which rules it shows."""
    for problem, rules in drift.items():
        if [] in rules:
            yield problem
        else:
            under = "; ".join(" + ".join(r) for r in rules)
            yield Problem(problem.code, f"{problem.message} (under {under})", problem.location)


def _playable_with(root: Path, rules: Sequence[str], loads: _Loads) -> list[str]:
    """The rules that the pack at `root` can be played with: those that build on its game (an
    overlay of another game is for that game's packs), unless it is an overlay that declares a
    conflict with one of them, or one of them declares a conflict with it."""
    pack, _ = loads(root)
    if pack is None:
        return list(rules)
    overlay = pack.manifest.get("kind") == "overlay"
    game = _required_base(pack, root, loads) if overlay else root
    playable = []
    for rule in rules:
        try:
            (rule_root,) = overlay_roots([rule], content_root())
        except UsageError:  # reported when the rules are applied
            playable.append(rule)
            continue
        other, _ = loads(rule_root)
        if other is None:
            playable.append(rule)
            continue
        if overlay and declare_conflict(pack, other):
            continue
        if not _same_game(game, _required_base(other, rule_root, loads)):
            continue
        playable.append(rule)
    return playable


def _same_game(one: Path | None, other: Path | None) -> bool:
    """Whether two base packs are the same (an unknown one, reported elsewhere, is any)."""
    return one is None or other is None or one.resolve() == other.resolve()


def load_pack_checked(root: Path | None = None, rules: Sequence[str] = ()) -> Pack:
    """The pack at `root` (the built-in base pack by default) with the overlays in `rules`;
    ContentError if it has problems.

    Problems of a translation do not stop the pack from loading: a stale or unfinished
    language falls back to English where it must, and `coh validate` still reports them.
    """
    pack, problems = check_pack(root or content_root() / "base", rules)
    if pack is None:
        raise ContentError(problems)
    blocking = [p for p in problems if not p.code.startswith(TRANSLATION_CODES)]
    if blocking:
        raise ContentError(blocking)
    return pack


@cache
def load_game(game: str = "base", rules: tuple[str, ...] = ()) -> Pack:
    """A game loaded once per process, with the overlays in `rules`: a game coh ships by its name
    (a folder of the shipped content), else the pack's folder `game`; ContentError if it has
    problems (`load_pack_checked`)."""
    shipped = content_root() / game
    root = shipped if shipped.is_dir() and "/" not in game else Path(game)
    return load_pack_checked(root, rules)


TRANSLATION_CODES = "I18N-"  # problems of translations: reported, but they never stop a game


# Problems of reading: a file that could not be read, or a value the schema refused. What they hold
# is left out of the other checks, so they come first: fixing one may settle problems after it.
READING_CODES = ("YAML-", "IO-", "FILE-MISSING", "PACK-PATH", "PACK-LIMIT", "SCHEMA-")


def _ordered(problems: list[Problem]) -> list[Problem]:
    """The problems once each: those of reading first, then the others; each part by place."""
    unique = list(dict.fromkeys(problems))
    return sorted(
        unique,
        key=lambda p: (
            not p.code.startswith(READING_CODES),
            p.location.file,
            p.location.line,
            p.location.col,
            p.code,
        ),
    )

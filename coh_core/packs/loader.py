"""Find packs, read their manifests and files, and collect entities and sections.

Loading never stops at the first problem: whatever can be read is read, and every
problem found on the way is returned with its location.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from coh_core.errors import Location, Problem, UsageError
from coh_core.i18n import LOCALE_PATTERN
from coh_core.limits import MAX_PACK_BYTES
from coh_core.packs.model import KINDS_SECTION, SINGLETON_SECTIONS, Entity, Pack, Section
from coh_core.packs.pack_schema import schema_of
from coh_core.packs.paths import PathRefused, file_in_pack, path_in_pack, real_path
from coh_core.packs.schema import validate_document
from coh_core.packs.yamlsrc import Path_, YamlDoc, load_yaml
from coh_core.resources import content_root

MANIFEST = "pack.yaml"
PACK_ID = re.compile(r"[a-z][a-z0-9_-]*")  # as pack.schema.json writes it
PACK_SCHEMA = "pack.schema.json"
TEXT_SCHEMA = "text.schema.json"
PATCHES = "patches"  # the section of an overlay's changes to the packs below it
TEXT_DIR = "text"  # where a pack's `<locale>.yaml` text files are found without listing
# The pack format this coh reads (`format:` in pack.yaml; without it a pack is format 1), and
# what each format changed from the one before it: a pack of an older format is refused with
# those changes named, and `coh migrate` rewrites it (coh_core.packs.migrate).
PACK_FORMAT = 2
FIRST_FORMAT = 1
FORMAT_CHANGES = {
    2: "every trigger has an id, and patches name list items by their id, never by position",
}


def _short_display(path: Path) -> str:
    """A path as the user should read it: relative to the working directory when below it,
    else absolute."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative


def find_pack_roots(paths: Iterable[Path]) -> list[Path]:
    """The pack directories named by command-line paths (built-in content when none)."""
    given = list(paths) or [content_root()]
    roots: list[Path] = []
    for path in given:
        roots.extend(_roots_for(path))
    return list(dict.fromkeys(roots))


def _roots_for(path: Path) -> list[Path]:
    if not path.exists():
        raise UsageError(f"no such file or directory: {path}", Location(str(path)), code="IO-MISSING")
    resolved = real_path(path)
    if resolved.is_file():
        return [_enclosing_pack(resolved, path)]
    if (resolved / MANIFEST).is_file():
        return [resolved]
    nested = sorted(p.parent for p in resolved.glob(f"*/{MANIFEST}"))
    if nested:
        return nested
    return [_enclosing_pack(resolved, path)]


def _enclosing_pack(resolved: Path, given: Path) -> Path:
    for parent in [resolved, *resolved.parents]:
        if (parent / MANIFEST).is_file():
            return parent
    raise UsageError(
        f"{given} is not inside a content pack (no {MANIFEST} found here or above)",
        Location(str(given)),
        code="PACK-NOT-FOUND",
    )


def load_pack(root: Path) -> tuple[Pack | None, list[Problem]]:
    """Load one pack directory; returns the pack (None if its manifest is unusable) and problems."""
    manifest_path = root / MANIFEST
    shown = _short_display(manifest_path)
    try:
        manifest_doc, problems = load_yaml(file_in_pack(root, MANIFEST), shown)
    except PathRefused as refused:
        return None, [Problem(refused.code, refused.message, Location(shown, 1, 1))]
    if manifest_doc is None:
        return None, problems
    manifest = manifest_doc.data if isinstance(manifest_doc.data, dict) else {}
    old_or_new = format_problem(manifest_doc, root)
    if old_or_new is not None:  # its files are read by other rules: only its format is reported
        return None, [*problems, old_or_new]
    pack = Pack(str(manifest.get("id", root.name)), root, manifest, manifest_doc)
    problems.extend(_load_files(pack))
    problems.extend(_load_text(pack))
    # after the files: a name refused as a path (PACK-PATH) is not reported again by the schema
    problems.extend(validate_document(manifest_doc, PACK_SCHEMA))
    scenarios, listing = scenario_files(pack)
    problems.extend(listing)
    problems.extend(_orphans(pack, scenarios))
    problems.extend(collect(pack))
    for doc in [pack.manifest_doc, *pack.docs, *pack.text.values()]:
        doc.owner = pack.id
    return pack, problems


def pack_format(manifest: Any) -> Any:
    """The format a manifest says its pack is written in (FIRST_FORMAT when it says none)."""
    return manifest.get("format", FIRST_FORMAT) if isinstance(manifest, dict) else FIRST_FORMAT


def format_problem(manifest_doc: YamlDoc, root: Path) -> Problem | None:
    """PACK-FORMAT-OLD for a pack written for an earlier format (naming what changed since and
    `coh migrate`), PACK-FORMAT-NEW for one of a later format than this coh reads; None if it is
    of this format (or its format is no whole number: the schema says so)."""
    written = pack_format(manifest_doc.data)
    if not isinstance(written, int) or isinstance(written, bool) or written < FIRST_FORMAT:
        return None  # no format at all: the schema says why
    if written == PACK_FORMAT:
        return None
    has = isinstance(manifest_doc.data, dict) and "format" in manifest_doc.data
    where = manifest_doc.location(("format",)) if has else Location(manifest_doc.path, 1, 1)
    if written > PACK_FORMAT:
        message = (
            f"this pack is written in pack format {written}, newer than this coh reads (format"
            f" {PACK_FORMAT}): update coh (`pip install -U coh-engine`) to play it"
        )
        return Problem("PACK-FORMAT-NEW", message, where)
    changes = "; ".join(
        f"format {n}: {FORMAT_CHANGES[n]}" for n in range(written + 1, PACK_FORMAT + 1) if n in FORMAT_CHANGES
    )
    said = "" if has else " (it has no `format:`)"
    message = (
        f"this pack is written in pack format {written}{said}, and this coh reads format"
        f" {PACK_FORMAT} ({changes}): `coh migrate {_short_display(root)} --in-place` rewrites it"
    )
    return Problem("PACK-FORMAT-OLD", message, where)


def _listed(pack: Pack, key: str) -> list[tuple[Any, str]]:
    """(manifest path, relative file) pairs for `files` or `text`.

    Text files need no listing: `text/<locale>.yaml` is found by its name, so adding a
    language is adding one file.
    """
    value = pack.manifest.get(key)
    found: list[tuple[Any, str]] = []
    if isinstance(value, list):
        found = [((key, i), v) for i, v in enumerate(value) if isinstance(v, str)]
    elif isinstance(value, dict):
        found = [((key, k), v) for k, v in value.items() if isinstance(v, str)]
    if key == "text":
        listed = {real_path(pack.root / rel) for _, rel in found if _nameable(rel)}
        for path in sorted((pack.root / TEXT_DIR).glob("*.yaml")):
            if LOCALE_PATTERN.match(path.stem) and real_path(path) not in listed:
                found.append(((key, path.stem), f"{TEXT_DIR}/{path.name}"))
    return found


def _load_listed(pack: Pack, key: str, schema: str | None) -> tuple[list[tuple[Any, YamlDoc]], list[Problem]]:
    """The files the manifest lists under `key`, read, and checked against `schema` if given."""
    loaded: list[tuple[Any, YamlDoc]] = []
    problems: list[Problem] = []
    for manifest_path, relative in _listed(pack, key):
        where = _where_listed(pack, manifest_path, relative)
        try:
            path = file_in_pack(pack.root, relative)
            _count_bytes(pack, path)
        except PathRefused as refused:
            message = refused.message
            if refused.code == "FILE-MISSING":
                message = f"the manifest lists `{relative}`, which does not exist"
            problems.append(Problem(refused.code, message, where))
            if refused.code == "PACK-PATH":
                pack.manifest_doc.trapped.add(manifest_path)
            pack.unloaded.append(relative)
            continue
        doc, found = load_yaml(path, _short_display(pack.root / relative))
        problems.extend(found)
        if doc is None:
            pack.unloaded.append(relative)
        else:
            if schema is not None:
                problems.extend(validate_document(doc, schema))
            loaded.append((manifest_path, doc))
    return loaded, problems


def _where_listed(pack: Pack, manifest_path: Any, relative: str) -> Location:
    """Where a file is named: its manifest entry, or (a text file found by its name) the file."""
    if manifest_path in pack.manifest_doc.values:
        return pack.manifest_doc.location(manifest_path)
    return Location(_short_display(pack.root / relative), 1, 1)


def _count_bytes(pack: Pack, path: Path) -> None:
    """Add a file to what the pack reads; PathRefused (PACK-LIMIT) past the pack's limit."""
    pack.bytes_read += path.stat().st_size
    if pack.bytes_read > MAX_PACK_BYTES:
        raise PathRefused(
            f"the pack's files add up to more than {MAX_PACK_BYTES // 2**20} MiB; this one is not read",
            code="PACK-LIMIT",
        )


def _load_files(pack: Pack) -> list[Problem]:
    """The content files, checked against the schema their pack's declarations make."""
    loaded, problems = _load_listed(pack, "files", None)
    pack.docs = [doc for _, doc in loaded]
    # An overlay's kinds are its base's, and an unread file may hold the kinds: then lists of
    # entities are let through here, and checked where their kinds are known.
    declared = any(isinstance(doc.data, dict) and KINDS_SECTION in doc.data for doc in pack.docs)
    open_sections = not declared and (pack.manifest.get("kind") == "overlay" or bool(pack.unloaded))
    schema = schema_of(pack.docs, pack.id, open_sections)
    for doc in pack.docs:
        problems.extend(validate_document(doc, schema))
    return problems


def _load_text(pack: Pack) -> list[Problem]:
    loaded, problems = _load_listed(pack, "text", TEXT_SCHEMA)
    for (_, locale), doc in loaded:
        if not doc.is_valid(()) or not (isinstance(locale, str) and LOCALE_PATTERN.match(locale)):
            # a locale that is no locale (`no:` read as false) is reported where it is written
            pack.rejected_sections.append(f"text/{locale}")
            continue
        pack.text[str(locale)] = doc
        declared = doc.data.get("locale") if isinstance(doc.data, dict) else None
        if declared is not None and declared != locale:
            problems.append(
                Problem(
                    "TEXT-LOCALE",
                    f"file declares locale `{declared}` but the manifest lists it as `{locale}`",
                    doc.location(("locale",)),
                )
            )
    return problems


def scenario_files(pack: Pack) -> tuple[list[Path], list[Problem]]:
    """The scenarios the manifest lists (`scenarios`: files, or folders whose YAML files are all
    scenarios), in order; and the problems of the listing (a name that is missing or leaves the pack)."""
    found: list[Path] = []
    problems: list[Problem] = []
    for manifest_path, relative in _listed(pack, "scenarios"):
        try:
            path = path_in_pack(pack.root, relative)
        except PathRefused as refused:
            message = refused.message
            if refused.code == "FILE-MISSING":
                message = f"the manifest lists `{relative}` among its scenarios, which does not exist"
            problems.append(Problem(refused.code, message, _where_listed(pack, manifest_path, relative)))
            continue
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in {".yaml", ".yml"} and p.is_file()))
        else:
            found.append(path)
    return list(dict.fromkeys(found)), problems


def _orphans(pack: Pack, scenarios: list[Path]) -> list[Problem]:
    """Every YAML file under the pack must be reachable from its manifest (scenarios included)."""
    reachable = {real_path(pack.root / MANIFEST), *(real_path(p) for p in scenarios)}
    for key in ("files", "text"):
        reachable.update(real_path(pack.root / rel) for _, rel in _listed(pack, key) if _nameable(rel))
    problems = []
    for path in sorted(pack.root.rglob("*")):
        if path.suffix in {".yaml", ".yml"} and real_path(path) not in reachable:
            if any(
                (parent / MANIFEST).is_file()
                for parent in path.parents
                if parent != pack.root and pack.root in parent.parents
            ):
                continue  # belongs to a nested pack
            problems.append(
                Problem(
                    "FILE-ORPHAN",
                    f"not reachable from {MANIFEST}: add it to `files` (or `text`, `scenarios`) or delete it",
                    Location(_short_display(path), 1, 1),
                )
            )
    return problems


def _nameable(relative: str) -> bool:
    """Whether a listed name can be looked up at all (a NUL cannot reach the file system)."""
    return "\x00" not in relative


def collect(pack: Pack) -> list[Problem]:
    """Gather sections, then entities of the kinds the pack declares, from every file; ids share
    one namespace per pack."""
    problems: list[Problem] = []
    for doc in pack.docs:
        for section, value in _top_level(doc):
            if section in SINGLETON_SECTIONS and isinstance(value, dict):
                problems.extend(_collect_section(pack, doc, section, value))
    sections = pack.entity_sections()
    seen: dict[str, Entity] = {}
    for doc in pack.docs:
        for section, value in _top_level(doc):
            if section in sections and isinstance(value, list):
                problems.extend(_collect_entities(pack, doc, section, sections[section], value, seen))
            elif (section in SINGLETON_SECTIONS and isinstance(value, dict)) or section == PATCHES:
                continue  # a section above; or an overlay's changes, applied when the overlay is used
            elif isinstance(value, list) and _kinds_unknown(pack):
                continue  # entities of a kind declared below an overlay: found once it is applied
            else:  # a section of no declared kind (misspelt): the schema reports it; its content is missing
                pack.rejected_sections.append(section)
    problems.extend(_collect_listed(pack, seen))
    return problems


def _top_level(doc: YamlDoc) -> list[tuple[str, Any]]:
    return list(doc.data.items()) if isinstance(doc.data, dict) else []


def _kinds_unknown(pack: Pack) -> bool:
    """Whether the kinds of the pack's entities are declared elsewhere: an overlay alone, whose
    entities are of the kinds of the pack it is applied to."""
    return pack.manifest.get("kind") == "overlay" and not pack.kind_declarations()


def _collect_entities(
    pack: Pack, doc: YamlDoc, section: str, kind: str, items: list[Any], seen: dict[str, Entity]
) -> list[Problem]:
    problems = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        entity = Entity(kind, item["id"], item, doc, (section, index))
        duplicate = _register(pack, entity, seen, valid=doc.is_valid((section, index)))
        if duplicate:
            problems.append(duplicate)
    return problems


def _register(pack: Pack, entity: Entity, seen: dict[str, Entity], valid: bool = True) -> Problem | None:
    first = seen.get(entity.id)
    if first is not None:
        return Problem(
            "ID-DUPLICATE",
            f"id `{entity.id}` is already used by the {first.kind} at {first.location}",
            entity.doc.location((*entity.path, "id")),
        )
    seen[entity.id] = entity
    if valid:
        pack.entities.setdefault(entity.kind, {})[entity.id] = entity
    else:
        pack.rejected[entity.id] = entity
    return None


def _collect_section(pack: Pack, doc: YamlDoc, section: str, value: dict[str, Any]) -> list[Problem]:
    first = pack.sections.get(section)
    if first is not None:
        return [
            Problem(
                "SECTION-DUPLICATE",
                f"section `{section}` is already defined in {first.doc.path}",
                doc.location((section,), key=True),
            )
        ]
    entries = doc.rejected_entries((section,))
    if entries is None:  # a problem in the section's own shape: none of it can be trusted
        pack.rejected_sections.append(section)
        return []
    # a problem inside entries the pack names (a counter, a message...): those alone are left out
    for entry in entries:
        pack.rejected_entries[entry] = _get(value, entry[1:])
    kept = _without(value, [entry[1:] for entry in entries]) if entries else value
    pack.sections[section] = Section(section, kept, doc, (section,))
    return []


def _without(value: dict[Any, Any], paths: list[Path_]) -> dict[Any, Any]:
    """A copy of a section's value without the entries at `paths` (below it, each through
    mappings only); the value itself is not changed."""
    kept = dict(value)
    for head in {path[0] for path in paths}:
        rest = [path[1:] for path in paths if path[0] == head]
        if any(not path for path in rest):
            kept.pop(head, None)
        elif isinstance(kept.get(head), dict):
            kept[head] = _without(kept[head], rest)
    return kept


def _get(value: Any, path: Path_) -> Any:
    for part in path:
        value = value[part]
    return value


def _collect_listed(pack: Pack, seen: dict[str, Entity]) -> list[Problem]:
    """Kinds whose entities a list of `components` names (`listed`): each id is an entity too."""
    found = pack.sections.get("components")
    if found is None:
        return []
    problems = []
    for kind, entry in pack.kind_declarations().items():
        key = entry.get("listed")
        listed = found.data.get(key) if isinstance(key, str) else None
        for index, ident in enumerate(listed if isinstance(listed, list) else []):
            if isinstance(ident, str):
                entity = Entity(kind, ident, {"id": ident}, found.doc, ("components", str(key), index))
                duplicate = _register(pack, entity, seen)
                if duplicate:
                    problems.append(duplicate)
    return problems

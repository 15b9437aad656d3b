"""`coh migrate`: rewrite a pack written for an earlier pack format in the current one.

A migration is a list of small steps (`STEPS`), each undoing one change of the engine or of the
pack an overlay builds on: trigger ids, list items named by id instead of position, fields that
moved (`migrate: moved` in the manifest of the pack below), verbs that gained a parameter
(`migrate: arguments`), and the manifest's `format`. Each step reads the files as they are
parsed and changes them by located edits of their text (`Edit`): comments and layout stay. A
step that cannot rewrite something mechanically leaves a `Note` saying what to do by hand.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coh_core.effects import ast
from coh_core.effects.parser import parse_effect
from coh_core.errors import CohError, Location, Problem, UsageError
from coh_core.files import WholeFolder
from coh_core.packs.loader import (
    FIRST_FORMAT,
    MANIFEST,
    PACK_FORMAT,
    PACK_ID,
    format_problem,
    load_pack,
    pack_format,
)
from coh_core.packs.model import Pack
from coh_core.packs.overlays import (
    ComposedDoc,
    Patcher,
    PatchError,
    compose,
    item_names,
    order_overlays,
    patch_sites,
)
from coh_core.packs.paths import PathRefused, file_in_pack
from coh_core.packs.yamlsrc import Path_, YamlDoc, load_yaml
from coh_core.resources import content_root

ITEM_ID = "id"
TRIGGER_SHAPE = ("event", "do")  # the fields every trigger has (content.schema.json)
MIGRATE = "migrate"  # the manifest's declarations of what moved in a pack since overlays were written on it
OPS = ("set", "merge", "remove", "insert", "move", "add")
ANSWERS = "answers"  # the section of `messages` that declares the answers to questions
PLAYER_TYPE = "player"  # the engine's type of a seat at the table


@dataclass(frozen=True)
class Note:
    """One thing a step did (`done`), or found it could not do and leaves to the pack's author."""

    step: str
    location: Location
    message: str
    done: bool = True


@dataclass
class Source:
    """A file of the pack being migrated: where it is in the pack, and its text as parsed."""

    relative: str
    doc: YamlDoc
    edits: dict[tuple[int, int], str] = field(default_factory=dict)  # (start, end) of the text -> new text

    def text(self) -> str:
        """The file's text with its edits made (they never overlap: each names its own span)."""
        text, last, parts = self.doc.text, 0, []
        for (start, end), new in sorted(self.edits.items()):
            parts.append(text[last:start] + new)
            last = max(last, end)
        return "".join(parts) + text[last:]


@dataclass
class Migration:
    """A pack read for migrating: its manifest and content files, the packs below it composed
    (an overlay's), and what the steps changed."""

    root: Path
    manifest: Source
    files: list[Source]
    below: tuple[Pack, list[Pack]] | None  # an overlay's: the base pack and the overlays it requires
    written: int  # the format the pack says it is written in
    notes: list[Note] = field(default_factory=list)

    @property
    def changed(self) -> list[Source]:
        return [s for s in [self.manifest, *self.files] if s.edits]

    def note(self, step: str, source: Source, path: Path_, message: str, done: bool = True) -> None:
        self.notes.append(Note(step, source.doc.location(path), message, done))

    def replace_scalar(self, source: Source, path: Path_, value: str) -> None:
        """Write a new plain value in place of the scalar at `path` (and in the data)."""
        span = source.doc.scalars.get(path)
        if span is None:
            raise MigrateError(f"cannot rewrite the value at {source.doc.location(path)} in place")
        quote = source.doc.text[span.start] if span.style in ("'", '"') else ""
        source.edits[(span.start, span.end)] = f"{quote}{value}{quote}"
        _set(source.doc.data, path, value)

    def overlay(self) -> Pack:
        """The pack being migrated as an overlay (its files as they now read) for the Patcher."""
        manifest = self.manifest.doc.data if isinstance(self.manifest.doc.data, dict) else {}
        name = str(manifest.get("id", self.root.name))
        return Pack(name, self.root, manifest, self.manifest.doc, docs=[s.doc for s in self.files])


class MigrateError(CohError):
    """A pack `coh migrate` cannot read or rewrite (located, with a stable code)."""

    def __init__(self, message: str, location: Location | None = None, code: str = "MIGRATE-PACK"):
        super().__init__(message, location, code=code)


@dataclass(frozen=True)
class Step:
    """One change from a format to the next: its name, the change it undoes, and what does it."""

    name: str
    undoes: str
    run: Callable[[Migration], None]


# -- reading the pack --------------------------------------------------------------------


def read_pack(root: Path) -> Migration:
    """The pack at `root` read for migrating; MigrateError (located) if it cannot be read, or is of
    a format newer than this coh's."""
    manifest = _source(root, MANIFEST)
    data = manifest.doc.data
    if not isinstance(data, dict):
        raise MigrateError("the manifest is no mapping", manifest.doc.location(()), code="MIGRATE-PACK")
    written = pack_format(data)
    if not isinstance(written, int) or isinstance(written, bool) or written < FIRST_FORMAT:
        where = manifest.doc.location(("format",))
        raise MigrateError(f"`format` must be a whole number from {FIRST_FORMAT}, got {written!r}", where)
    refused = format_problem(manifest.doc, root)
    if refused is not None and refused.code == "PACK-FORMAT-NEW":
        raise MigrateError(refused.message, refused.location, code=refused.code)
    listed = data.get("files")
    files = [
        _source(root, name, manifest.doc.location(("files", index)))
        for index, name in enumerate(listed if isinstance(listed, list) else [])
        if isinstance(name, str)
    ]
    below = _below(root, manifest.doc) if data.get("kind") == "overlay" else None
    return Migration(root, manifest, files, below, written)


def _source(root: Path, relative: str, listed: Location | None = None) -> Source:
    """A file of the pack, parsed; MigrateError located where the manifest lists it (`listed`)
    if it may not be read or is missing, at its own fault if it is no YAML."""
    where = listed or Location(str(root / relative))
    try:
        path = file_in_pack(root, relative)
    except PathRefused as refused:
        raise MigrateError(refused.message, where, code=refused.code) from None
    if not path.is_file():
        raise MigrateError(f"`{relative}` is listed, and is no file of the pack", where, code="FILE-MISSING")
    doc, problems = load_yaml(path, str(root / relative))
    if doc is None or problems:
        first = problems[0] if problems else Problem("MIGRATE-PACK", "unreadable", Location(str(path)))
        raise MigrateError(first.message, first.location, code=first.code)
    return Source(relative, doc)


def _below(root: Path, manifest: YamlDoc) -> tuple[Pack, list[Pack]]:
    """The packs an overlay requires as today's coh reads them: the base pack, and the overlays
    it names in `requires` in the order they apply (found beside it or among the shipped packs)."""
    base: Pack | None = None
    overlays: list[Pack] = []
    for pack in _required(root, manifest, set()):
        if pack.manifest.get("kind") == "overlay":
            overlays.append(pack)
        else:
            base = pack
    if base is None:
        raise MigrateError("the overlay requires no base pack coh can find", Location(str(root / MANIFEST)))
    return base, order_overlays(overlays, {base.id})


def _required(root: Path, manifest: YamlDoc, seen: set[str]) -> Iterator[Pack]:
    """The packs the manifest requires, and those they require (each once)."""
    required = manifest.data.get("requires") if isinstance(manifest.data, dict) else None
    for index, name in enumerate(required if isinstance(required, list) else []):
        if not isinstance(name, str) or not PACK_ID.fullmatch(name) or name in seen:
            continue
        seen.add(name)
        found = [c for c in (root.parent / name, content_root() / name) if (c / MANIFEST).is_file()]
        if not found:
            where = manifest.location(("requires", index))
            message = f"the overlay requires `{name}`, found neither beside it nor shipped"
            raise MigrateError(message, where, code="MIGRATE-BELOW")
        pack, problems = load_pack(found[0])
        if pack is None:
            first = problems[0]
            message = f"`{name}`, which the overlay requires, cannot be read: {first.code} {first.message}"
            raise MigrateError(message, first.location, code="MIGRATE-BELOW")
        yield pack
        yield from _required(found[0], pack.manifest_doc, seen)


# -- the steps -----------------------------------------------------------------------------


def _moved_fields(migration: Migration) -> None:
    """Patches that name a field where it was before the pack below moved it (`migrate: moved`
    in its manifest, `old/path: new/path`) name it where it is."""
    moved = _declared(migration, "moved")
    for source, at, op, target in _targets(migration):
        for old, new in moved.items():
            if target == old or target.startswith(old + "/"):
                renamed = str(new) + target[len(old) :]
                migration.replace_scalar(source, (*at, op), renamed)
                migration.note("moved_fields", source, (*at, op), f"`{target}` is now `{renamed}`")
                break


def _new_arguments(migration: Migration) -> None:
    """Calls of a verb that gained a parameter since (`migrate: arguments` in the manifest of the
    pack below: `verb: {param: value}`) are given the value the old call meant, as a keyword
    after their own arguments."""
    gained = _declared(migration, "arguments")
    if not gained:
        return
    for source in migration.files:
        for path in list(source.doc.scalars):
            value = _get(source.doc.data, path)
            if not isinstance(value, str) or not any(f"{verb}(" in value for verb in gained):
                continue
            try:
                tree = parse_effect(value)
            except CohError:
                continue  # not an effect (a note, a text): nothing to rewrite
            inserts = list(_missing_arguments(value, tree, gained))
            for offset, piece in inserts:
                index = source.doc.index_in_scalar(path, offset)
                if index is not None:
                    source.edits[(index, index)] = piece
            for offset, piece in sorted(inserts, reverse=True):
                value = value[:offset] + piece + value[offset:]
            _set(source.doc.data, path, value)
            for verb in sorted({verb for verb, _ in _calls_given(tree, gained)}):
                message = f"calls of `{verb}` given what it gained: {_listed(gained[verb])}"
                migration.note("new_arguments", source, path, message)


def _calls_given(tree: ast.Node, gained: dict[str, Any]) -> Iterator[tuple[str, ast.Call]]:
    for call in ast.calls(tree):
        if isinstance(gained.get(call.name), dict):
            yield call.name, call


def _missing_arguments(text: str, tree: ast.Node, gained: dict[str, Any]) -> Iterator[tuple[int, str]]:
    """Where each call of a verb in `gained` lacks parameters (the offset of its `)`), and the
    keywords to write there."""
    for verb, call in _calls_given(tree, gained):
        close = call.span.end - 1
        if text[close : close + 1] != ")":
            continue
        given = {a.keyword for a in call.args if a.keyword}
        missing = [f"{k}={v}" for k, v in gained[verb].items() if k not in given]
        if missing:
            yield close, (", " if call.args else "") + ", ".join(missing)


def _listed(values: dict[str, Any]) -> str:
    return ", ".join(f"`{k}={v}`" for k, v in values.items())


def _trigger_ids(migration: Migration) -> None:
    """Every trigger gets an id (`on_<event>`, then `_2`, `_3`... where its list has one already):
    those the pack writes in its lists, and those its patches insert."""
    for source in migration.files:
        for path, triggers in _trigger_lists(source.doc.data, ()):
            taken = {str(t[ITEM_ID]) for t in triggers if isinstance(t, dict) and ITEM_ID in t}
            for index, trigger in enumerate(triggers):
                if _needs_id(trigger):
                    _give_id(migration, source, (*path, index), trigger, taken)
    taken_by_list: dict[str, set[str]] = {}
    for source, at, op, target in _targets(migration):
        item = _get(source.doc.data, (*at, "item")) if op == "insert" else None
        if _needs_id(item):
            taken = taken_by_list.setdefault(target, _names_below(migration, target))
            _give_id(migration, source, (*at, "item"), item, taken)


def _needs_id(value: Any) -> bool:
    return isinstance(value, dict) and all(k in value for k in TRIGGER_SHAPE) and ITEM_ID not in value


def _trigger_lists(data: Any, path: Path_) -> Iterator[tuple[Path_, list[Any]]]:
    """Every list of triggers in a file's data (a list holding a mapping of a trigger's shape)."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _trigger_lists(value, (*path, key))
    elif isinstance(data, list):
        if any(isinstance(i, dict) and all(k in i for k in TRIGGER_SHAPE) for i in data):
            yield path, data
        for index, value in enumerate(data):
            yield from _trigger_lists(value, (*path, index))


def _give_id(migration: Migration, source: Source, path: Path_, trigger: Any, taken: set[str]) -> None:
    event = re.sub(r"[^a-z0-9_]", "_", str(trigger.get("event")).lower())
    name, number = f"on_{event}", 1
    while name in taken:
        number += 1
        name = f"on_{event}_{number}"
    taken.add(name)
    doc = source.doc
    line, col = doc.values[path]
    start = doc.index_of(line, col)
    if doc.text[start] == "{":  # a mapping in flow style: the id first inside its braces
        source.edits[(start + 1, start + 1)] = f"{ITEM_ID}: {name}, "
    else:  # a block mapping: the id on a line of its own, above its first key
        source.edits[(start, start)] = f"{ITEM_ID}: {name}\n" + " " * (col - 1)
    trigger[ITEM_ID] = name
    migration.note("trigger_ids", source, path, f"the trigger on `{trigger.get('event')}` is named `{name}`")


def _names_below(migration: Migration, target: str) -> set[str]:
    """The names of the items of the list `target` names in the packs below (none if unknown)."""
    patcher = _patcher(migration)
    if patcher is None:
        return set()
    try:
        host, path, _ = patcher.resolve(target, migration.manifest.doc, (), old_positions=True)
    except PatchError:
        return set()
    items = _get(host.data, path)
    names = patcher.item_names
    return (
        {str(i[n]) for i in items if isinstance(i, dict) for n in names if n in i}
        if isinstance(items, list)
        else set()
    )


def _positions_to_ids(migration: Migration) -> None:
    """Patches that name a list item by its position name it by its id: the item found there
    when the patch applies, in the packs below as the earlier patches left them."""
    patcher = _patcher(migration)
    if patcher is None:
        return
    overlay = migration.overlay()
    for doc, at in patch_sites(overlay):
        source = next(s for s in migration.files if s.doc is doc)
        patch = _get(doc.data, at)
        op = next((o for o in OPS if isinstance(patch, dict) and o in patch), None)
        if op is None or not isinstance(patch[op], str):
            continue
        try:
            _, _, named = patcher.resolve(patch[op], doc, (*at, op), old_positions=True)
        except PatchError as error:
            migration.notes.append(_by_hand(error.problem))
            continue
        if named != patch[op]:
            migration.note("positions_to_ids", source, (*at, op), f"`{patch[op]}` is now `{named}`")
            migration.replace_scalar(source, (*at, op), named)
        for word in ("before", "after"):
            where = patch.get(word)
            if op in ("insert", "move") and (isinstance(where, int) or str(where).isdigit()):
                _beside_by_name(migration, patcher, source, at, op, word)
        try:
            patcher.apply_patch(overlay, doc, at)
        except PatchError as error:
            migration.notes.append(_by_hand(error.problem))
        migration.notes.extend(_by_hand(problem) for problem in patcher.result.problems)
        patcher.result.problems.clear()


def _by_hand(problem: Problem) -> Note:
    """A patch that cannot be followed in the packs below: what applying it says, for its author."""
    return Note("positions_to_ids", problem.location, f"{problem.code} {problem.message}", done=False)


def _beside_by_name(
    migration: Migration, patcher: Patcher, source: Source, at: Path_, op: str, word: str
) -> None:
    """`before: 2` / `after: 2` named by the item at that position of the list."""
    patch = _get(source.doc.data, at)
    target = str(patch[op])
    try:
        host, path, _ = patcher.resolve(target, source.doc, (*at, op), old_positions=True)
    except PatchError:
        return
    items = _get(host.data, path if op == "insert" else path[:-1])
    position = int(patch[word])
    if op == "move" and isinstance(items, list):  # placed among the others, once it has left
        items = [i for index, i in enumerate(items) if index != path[-1]]
    names = patcher.item_names
    found = items[position] if isinstance(items, list) and 0 <= position < len(items) else None
    name = next((str(found[n]) for n in names if isinstance(found, dict) and n in found), None)
    if name is None:
        message = f"`{word}: {position}` names an item by its position, and it has no name: place it by hand"
        migration.note("positions_to_ids", source, (*at, word), message, done=False)
        return
    line, col = source.doc.values[(*at, word)]
    start = source.doc.index_of(line, col)
    end = (
        start + len(str(patch[word])) if isinstance(patch[word], int) else source.doc.scalars[(*at, word)].end
    )
    source.edits[(start, end)] = name
    patch[word] = name
    migration.note("positions_to_ids", source, (*at, word), f"`{word}: {position}` is now `{word}: {name}`")


def _format(migration: Migration) -> None:
    """The manifest says the format it is written in: this coh's."""
    source = migration.manifest
    doc = source.doc
    if "format" in doc.data:
        line, col = doc.values[("format",)]
        start = doc.index_of(line, col)
        source.edits[(start, start + len(str(doc.data["format"])))] = str(PACK_FORMAT)
    else:  # a line of its own, after the version's (or the first key's)
        key = "version" if "version" in doc.data else next(iter(doc.data), None)
        after = doc.index_of(doc.keys[(key,)][0], 1) if key is not None else 0
        end = doc.text.find("\n", after)
        if end < 0:  # the last line, without a line break
            source.edits[(len(doc.text), len(doc.text))] = f"\nformat: {PACK_FORMAT}\n"
        else:
            source.edits[(end + 1, end + 1)] = f"format: {PACK_FORMAT}\n"
    doc.data["format"] = PACK_FORMAT
    migration.note("format", source, (), f"the manifest says it is written in pack format {PACK_FORMAT}")


def _answer_types(migration: Migration) -> None:
    """Answers' placeholders without `types` (every answer has an id in the action space, so each
    placeholder's values must be known) are typed where the placeholder is named after what it
    holds: a kind of the packs below, or `player`; the others are left to the author."""
    if migration.below is None:
        return
    known = {*migration.below[0].kind_declarations(), PLAYER_TYPE}
    for source, path in _answers(migration):
        for key, entry in _get(source.doc.data, path).items():
            params = entry.get("params") if isinstance(entry, dict) else None
            if not isinstance(params, dict) or not params or "types" in entry or "values" in entry:
                continue
            typed = {str(name): str(name) for name in params if name in known}
            at = (*path, key)
            if len(typed) < len(params):
                left = ", ".join(f"`{n}`" for n in params if n not in typed)
                message = (
                    f"the answer `{key}` must say what its placeholders {left} hold: a type"
                    f" (`types: {{...}}`) or the values they take (`values: {{...}}`)"
                )
                migration.note("answer_types", source, at, message, done=False)
                continue
            written = ", ".join(f"{n}: {v}" for n, v in typed.items())
            _insert_before_key(source, (*at, "params"), f"types: {{{written}}}")
            entry["types"] = typed
            migration.note("answer_types", source, at, f"the answer `{key}`'s placeholders typed: {written}")


def _answers(migration: Migration) -> Iterator[tuple[Source, Path_]]:
    """Where the pack writes answers: its own `messages`, or patches merged into them."""
    for source in migration.files:
        data = source.doc.data
        messages = data.get("messages") if isinstance(data, dict) else None
        if isinstance(messages, dict) and isinstance(messages.get(ANSWERS), dict):
            yield source, ("messages", ANSWERS)
    for source, at, op, target in _targets(migration):
        if (
            op == "merge"
            and target == f"messages/{ANSWERS}"
            and isinstance(_get(source.doc.data, at).get("with"), dict)
        ):
            yield source, (*at, "with")


def _insert_before_key(source: Source, key_path: Path_, entry: str) -> None:
    """A new `key: value` written just before the key at `key_path`, in its mapping's style."""
    doc = source.doc
    line, col = doc.keys[key_path]
    start = doc.index_of(line, col)
    before = doc.text[:start].rstrip(" ")
    if before.endswith(("{", ",")):  # a flow mapping
        source.edits[(start, start)] = f"{entry}, "
    else:
        source.edits[(start, start)] = f"{entry}\n" + " " * (col - 1)


# The steps from each format to the next, in order: what the pack below moved comes first (its
# paths are today's, so the positions after it are found in today's lists), then the trigger ids
# (the positions then find them), then the positions, and the format last.
STEPS: dict[int, tuple[Step, ...]] = {
    2: (
        Step("moved_fields", "fields the pack below moved (its `migrate: moved`)", _moved_fields),
        Step("new_arguments", "parameters the verbs below gained (`migrate: arguments`)", _new_arguments),
        Step("answer_types", "answers whose placeholders had no types", _answer_types),
        Step("trigger_ids", "triggers without ids (every trigger has one since format 2)", _trigger_ids),
        Step("positions_to_ids", "list items named by position (by id since format 2)", _positions_to_ids),
        Step("format", "a manifest without the format it is written in", _format),
    ),
}


def migrate(root: Path) -> Migration:
    """The pack at `root` read and migrated in memory (nothing written): its edits and notes."""
    migration = read_pack(root)
    for version in range(migration.written + 1, PACK_FORMAT + 1):
        for step in STEPS.get(version, ()):
            step.run(migration)
    migration.notes.sort(key=lambda n: (n.location.file, n.location.line, n.location.col))
    return migration


# -- writing -------------------------------------------------------------------------------


def write_in_place(migration: Migration) -> list[str]:
    """The changed files of the pack rewritten, all together or none (each through a temporary
    file beside it); the files written."""
    changed = migration.changed
    names = [s.relative for s in changed]
    with WholeFolder(migration.root, names) as staging:
        for source in changed:
            _write(staging / source.relative, source.text())
    return names


def write_copy(migration: Migration, out: Path) -> list[str]:
    """The whole pack, migrated, in a new folder `out` (written whole, or not at all); the files
    written. Links in the pack are left out: what they lead to is no file of the pack's."""
    if out.exists() and any(out.iterdir()) if out.is_dir() else out.exists():
        raise UsageError(f"{out} exists: name a new folder (or an empty one)", code="MIGRATE-OUT")
    if out.resolve() == migration.root.resolve() or migration.root.resolve() in out.resolve().parents:
        raise UsageError(f"{out} is inside the pack: use --in-place to rewrite it", code="MIGRATE-OUT")
    texts = {s.relative: s.text() for s in migration.changed}
    names = sorted(
        path.relative_to(migration.root).as_posix()
        for path in migration.root.rglob("*")
        if path.is_file()
        and not any(p.is_symlink() for p in [path, *path.parents] if migration.root in p.parents)
    )
    with WholeFolder(out, names) as staging:
        for name in names:
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if name in texts:
                _write(target, texts[name])
            else:
                shutil.copyfile(migration.root / name, target)
    return names


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# -- helpers ---------------------------------------------------------------------------------


def _declared(migration: Migration, key: str) -> dict[str, Any]:
    """What the packs below declare under `migrate: <key>` in their manifests, together."""
    found: dict[str, Any] = {}
    base, overlays = migration.below or (None, [])
    for pack in [base, *overlays] if base is not None else []:
        declared = pack.manifest.get(MIGRATE)
        value = declared.get(key) if isinstance(declared, dict) else None
        found.update(value if isinstance(value, dict) else {})
    return found


def _targets(migration: Migration) -> Iterator[tuple[Source, Path_, str, str]]:
    """Every patch of the pack: its file, place, operation and target as written."""
    for source in migration.files:
        patches = source.doc.data.get("patches") if isinstance(source.doc.data, dict) else None
        for index, patch in enumerate(patches if isinstance(patches, list) else []):
            op = next((o for o in OPS if isinstance(patch, dict) and o in patch), None)
            if op is not None and isinstance(patch[op], str):
                yield source, ("patches", index), op, patch[op]


def _patcher(migration: Migration) -> Patcher | None:
    """A Patcher over a fresh copy of the packs below (None for a base pack)."""
    if migration.below is None:
        return None
    base, overlays = migration.below
    composed, _ = compose(base, overlays)
    kinds = {kind: section for section, kind in base.entity_sections().items()}
    return Patcher([d for d in composed.docs if isinstance(d, ComposedDoc)], kinds, item_names(base))


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        data = data[part]
    return data


def _set(data: Any, path: Path_, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value

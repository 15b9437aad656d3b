"""Overlays: packs that change the packs they build on, applied in a declared order.

An overlay's `patches` set, merge, remove, insert or move values of the packs below it, or add
to a number (`add`: two overlays that each add a card to the deck's size agree),
addressed by entity id or section and then by field (`<kind>/<id>/<field>`,
`turn/phases/location_resolution/steps/sharing/do`), a list's items by their names, never by
position (OVERLAY-POSITION: a position names whatever the overlays below left there). Its
other sections add entities; its
text files add or replace texts. Applying overlays builds a new pack whose documents are
`ComposedDoc`s: each remembers, for every value an overlay wrote, the file and place it was
written at, so every later check (schema, effects, references) points into the overlay, and
`coh explain` can say which pack set each field. A problem that appears in a file of the packs
below only because of an overlay is moved to the patch that brings it (`coh_core.packs.blame`).

Order: an overlay comes after the packs it `requires` and the overlays it says it comes
`after`; otherwise in the order asked for. Two overlays that are not ordered that way and
change the same field are a conflict (`OVERLAY-CONFLICT`), unless their changes give the same
result in either order (`_apart`: additions to a number, inserts of differently named items);
overlays that declare
`conflicts` with each other cannot be used together.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coh_core.effects.checker import suggest
from coh_core.errors import Location, Problem, UsageError
from coh_core.packs.model import Pack
from coh_core.packs.roles import STATE_NAME, state_field_roles
from coh_core.packs.yamlsrc import Path_, YamlDoc, parse_yaml
from coh_core.resources import content_root, installed_content

OPS = ("set", "merge", "remove", "insert", "move", "add")
# What each change needs besides its path, and what else it may have.
NEEDS = {"set": ("to",), "merge": ("with",), "remove": (), "insert": ("item",), "move": (), "add": ("by",)}
ALLOWS = {
    "set": (),
    "merge": (),
    "remove": (),
    "insert": ("before", "after"),
    "move": ("before", "after"),
    "add": (),
}
ITEM_NAME = "id"  # how list items are named in a patch path (and the places' states by their name)


@dataclass
class ComposedDoc(YamlDoc):
    """A document after overlays: its data, and where each changed value was written."""

    base: YamlDoc | None = None
    grafts: dict[Path_, tuple[YamlDoc, Path_]] = field(default_factory=dict)
    touched: bool = False  # a patch changed it: its data must be validated again

    def origin(self, path: Path_) -> tuple[YamlDoc, Path_]:
        path = tuple(path)
        for size in range(len(path), -1, -1):
            found = self.grafts.get(path[:size])
            if found is not None:
                doc, at = found
                return doc.origin((*at, *path[size:]))
        assert self.base is not None
        return self.base.origin(path)

    def location(self, path: Path_, key: bool = False) -> Location:
        doc, at = self.origin(path)
        return doc.location(at, key)

    def offset_in_scalar(self, path: Path_, offset: int) -> Location:
        doc, at = self.origin(path)
        return doc.offset_in_scalar(at, offset)


def compose_doc(doc: YamlDoc) -> ComposedDoc:
    """A copy of a document that patches may change (what the schema found stays found)."""
    composed = ComposedDoc(doc.path, doc.text, copy.deepcopy(doc.data), owner=doc.owner, base=doc)
    for path in doc.invalid:
        composed.mark_invalid(path, doc.entry_of.get(path))
    return composed


@dataclass
class Change:
    """One applied patch: which overlay, which field (by name), and where it is written; its
    operation, the name of the item an `insert` adds, and the item an `insert` or `move` puts
    it beside (`before`/`after`)."""

    overlay: str
    target: str
    location: Location
    op: str = "set"
    item: str | None = None
    anchor: str | None = None


@dataclass
class Composition:
    """What applying overlays found: problems, and every field each overlay changed."""

    problems: list[Problem] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


def order_overlays(overlays: list[Pack], available: set[str]) -> list[Pack]:
    """The overlays in application order; UsageError for a missing requirement, a declared
    conflict, or a cycle."""
    chosen = {o.id: o for o in overlays}
    for overlay in overlays:
        for needed in _ids(overlay, "requires"):
            if needed not in chosen and needed not in available:
                raise UsageError(
                    f"overlay `{overlay.id}` requires `{needed}`: {_how_to_add(needed)}",
                    code="OVERLAY-REQUIRES",
                )
        for other in _ids(overlay, "conflicts"):
            if other in chosen:
                raise UsageError(
                    f"overlays `{overlay.id}` and `{other}` cannot be used together"
                    f" (`{overlay.id}` declares the conflict)",
                    code="OVERLAY-CONFLICTS",
                )
    ordered: list[Pack] = []
    placing: list[str] = []

    def place(overlay: Pack) -> None:
        if overlay in ordered:
            return
        if overlay.id in placing:
            cycle = " -> ".join([*placing[placing.index(overlay.id) :], overlay.id])
            raise UsageError(f"overlays ordered in a circle: {cycle}", code="OVERLAY-CYCLE")
        placing.append(overlay.id)
        befores = {*_ids(overlay, "requires"), *_ids(overlay, "after")}
        for other in overlays:  # what must come first, in the order asked for
            if other.id in befores:
                place(other)
        placing.pop()
        ordered.append(overlay)

    for overlay in overlays:
        place(overlay)
    return ordered


def _how_to_add(overlay_id: str) -> str:
    """How to ask for a required overlay: by id if coh ships it, else by its directory."""
    if (content_root() / overlay_id / "pack.yaml").is_file():
        return f"add `--rules {overlay_id}`"
    return f"add `--rules DIR` with the directory of the overlay `{overlay_id}` (coh does not ship one)"


def declare_conflict(one: Pack, other: Pack) -> bool:
    """Whether either overlay declares that it cannot be used with the other."""
    return other.id in _ids(one, "conflicts") or one.id in _ids(other, "conflicts")


def _ids(pack: Pack, key: str) -> list[str]:
    value = pack.manifest.get(key)
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def ordered_before(overlays: list[Pack]) -> dict[str, set[str]]:
    """For each overlay, the overlays it is declared to come after (directly or not)."""
    direct = {o.id: set(_ids(o, "requires")) | set(_ids(o, "after")) for o in overlays}
    closed: dict[str, set[str]] = {}

    def walk(name: str, seen: set[str]) -> set[str]:
        if name in closed:
            return closed[name]
        found: set[str] = set()
        for before in direct.get(name, set()):
            if before not in seen:
                found |= {before, *walk(before, seen | {before})}
        closed[name] = found
        return found

    for overlay in overlays:
        walk(overlay.id, {overlay.id})
    return closed


class Patcher:
    """Applies the patches of overlays to the documents of a pack being composed."""

    def __init__(
        self,
        docs: list[ComposedDoc],
        kind_sections: dict[str, str] | None = None,
        item_names: tuple[str, ...] = (ITEM_NAME,),
    ):
        self.docs = docs
        self.kind_sections = kind_sections or {}  # the section of each kind of entity, by kind
        self.item_names = item_names  # the fields that name a list's items in a patch path
        self.result = Composition()

    def apply(self, overlay: Pack, patches: int | None = None) -> None:
        """Apply the overlay's patches in order (only the first `patches` of them, if given)."""
        for doc, at in patch_sites(overlay)[:patches]:
            try:
                self.apply_patch(overlay, doc, at)
            except PatchError as error:
                self.result.problems.append(error.problem)

    def apply_patch(self, overlay: Pack, doc: YamlDoc, at: Path_) -> None:
        """Apply the one patch at `at` of the overlay's file `doc`; PatchError if it cannot be."""
        patch = _get(doc.data, at)
        if isinstance(patch, dict) and doc.is_valid(at):  # else the schema has said what is wrong
            self._apply(overlay, doc, int(at[1]), patch)

    def _apply(self, overlay: Pack, doc: YamlDoc, index: int, patch: dict[str, Any]) -> None:
        at: Path_ = ("patches", index)
        op = _shape(doc, at, patch)
        target = str(patch[op])
        here = doc.location((*at, op))
        host, path, named = self.resolve(target, doc, (*at, op))
        if op != "set" and not _exists(host.data, path):
            raise PatchError("OVERLAY-PATH", f"`{named}` does not exist: nothing to {op}", here)
        host.touched = True
        if op == "merge":  # a change of each value it sets: merges that add different keys agree
            for target, source in self._merge(host, path, doc, (*at, "with"), patch["with"], named):
                self.result.changes.append(Change(overlay.id, target, doc.location(source, key=True)))
            return
        added = _names([patch["item"]], self.item_names) if op == "insert" else []
        beside = next((str(patch[w]) for w in ("before", "after") if w in patch), None)
        change = Change(overlay.id, named, here, op, added[0] if added else None, beside)
        self.result.changes.append(change)
        if op == "set":
            self._set(host, path, doc, (*at, "to"), patch["to"])
        elif op == "remove":
            self._remove(host, path)
        elif op == "insert":
            self._insert(host, path, doc, at, patch)
        elif op == "add":
            self._add(host, path, doc, at, patch["by"], named)
        else:
            self._move(host, path, doc, at, patch)

    # -- finding what a patch names ------------------------------------------------------

    def resolve(
        self, target: str, doc: YamlDoc, at: Path_, old_positions: bool = False
    ) -> tuple[ComposedDoc, Path_, str]:
        """The document and data path a target names, and the target with list items by name.
        `old_positions`: a position finds the item there, as format 1 let it (`coh migrate`)."""
        head, *rest = target.split("/")

        def fail(message: str) -> PatchError:
            return PatchError("OVERLAY-PATH", message, doc.location(at))

        if head in self.kind_sections:
            if not rest:
                raise fail(f"`{target}` names a kind of entity, not one: add its id (`{head}/<id>`)")
            host, path = self._entity(head, rest[0], doc, at)
            rest = rest[1:]
        else:
            host, path = self._section(head, doc, at)
        named = [head] if head not in self.kind_sections else [head, target.split("/")[1]]
        value = _get(host.data, path)
        for part in rest:
            if isinstance(value, dict):
                if part not in value and part != rest[-1]:
                    raise fail(f"`{'/'.join([*named, part])}` does not exist" + suggest(part, value))
                path, value = (*path, part), value.get(part)
            elif isinstance(value, list):
                position = _item_index(value, part, self.item_names)
                if position is None and old_positions and part.isdigit() and int(part) < len(value):
                    position = int(part)
                    part = next(iter(_names([value[position]], self.item_names)), part)
                if position is None:
                    raise self._unnamed(value, part, "/".join(named), doc, at)
                path, value = (*path, position), value[position]
            else:
                raise fail(f"`{'/'.join(named)}` holds a single value: nothing is inside it")
            named.append(part)
        return host, path, "/".join(named)

    def _unnamed(self, items: list[Any], part: str, named: str, doc: YamlDoc, at: Path_) -> PatchError:
        """What is wrong with naming an item of `items` by `part`: no item has that name, or it is
        a position (OVERLAY-POSITION, naming the item's name when it has one)."""
        known = _names(items, self.item_names)
        if not (part.isdigit() and int(part) < len(items)):
            message = f"no item `{part}` in `{named}`" + suggest(part, known)
            return PatchError("OVERLAY-PATH", message, doc.location(at))
        names = _names([items[int(part)]], self.item_names)
        if names:
            message = f"`{named}/{part}` names an item by its position: use `{named}/{names[0]}`"
        else:
            message = (
                f"`{named}/{part}` names an item by its position, and the items of `{named}` have no"
                f" names: change the whole list (`set: {named}`)"
            )
        return PatchError("OVERLAY-POSITION", message, doc.location(at))

    def _entity(self, kind: str, entity_id: str, doc: YamlDoc, at: Path_) -> tuple[ComposedDoc, Path_]:
        section = self.kind_sections[kind]
        known: list[str] = []
        for host in self.docs:
            items = host.data.get(section) if isinstance(host.data, dict) else None
            for index, item in enumerate(items if isinstance(items, list) else []):
                if isinstance(item, dict) and item.get("id") == entity_id:
                    return host, (section, index)
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    known.append(item["id"])
        other = self._kind_of(entity_id)
        hint = f"; `{entity_id}` is a {other}: `{other}/{entity_id}`" if other else suggest(entity_id, known)
        raise PatchError(
            "OVERLAY-UNKNOWN", f"no {kind} `{entity_id}` to change in the packs below{hint}", doc.location(at)
        )

    def _kind_of(self, entity_id: str) -> str | None:
        """The kind of the entity with this id in the packs below, if there is one."""
        for host in self.docs:
            for kind, section in self.kind_sections.items():
                items = host.data.get(section) if isinstance(host.data, dict) else None
                if isinstance(items, list) and any(
                    isinstance(i, dict) and i.get("id") == entity_id for i in items
                ):
                    return str(kind)
        return None

    def _section(self, name: str, doc: YamlDoc, at: Path_) -> tuple[ComposedDoc, Path_]:
        sections: list[str] = []
        for host in self.docs:
            if isinstance(host.data, dict) and isinstance(host.data.get(name), dict):
                return host, (name,)
            if isinstance(host.data, dict):
                sections.extend(k for k, v in host.data.items() if isinstance(v, dict))
        listed_by = {section: kind for kind, section in self.kind_sections.items()}
        if name in listed_by:
            hint = f": a patch names an entity by its kind, `{listed_by[name]}/<id>`"
        else:
            hint = suggest(name, [*self.kind_sections, *sections])
        raise PatchError(
            "OVERLAY-UNKNOWN", f"no section or kind `{name}` in the packs below{hint}", doc.location(at)
        )

    # -- the operations ------------------------------------------------------------------

    def _set(self, host: ComposedDoc, path: Path_, doc: YamlDoc, source: Path_, value: Any) -> None:
        parent = _get(host.data, path[:-1])
        if isinstance(parent, list):
            parent[int(path[-1])] = copy.deepcopy(value)
        else:
            parent[path[-1]] = copy.deepcopy(value)
        host.grafts[path] = (doc, source)

    def _add(self, host: ComposedDoc, path: Path_, doc: YamlDoc, at: Path_, by: Any, named: str) -> None:
        """Add a whole number to one: additions commute, so they never conflict with each other."""
        current = _get(host.data, path)
        if not _is_int(current):
            message = f"`add` adds to a whole number; `{named}` is {current!r}"
            raise PatchError("OVERLAY-TYPE", message, doc.location((*at, "add")))
        if not _is_int(by):
            message = f"`by` must be a whole number, got {by!r}"
            raise PatchError("OVERLAY-TYPE", message, doc.location((*at, "by")))
        self._set(host, path, doc, (*at, "by"), current + by)

    def _merge(
        self, host: ComposedDoc, path: Path_, doc: YamlDoc, source: Path_, value: Any, named: str
    ) -> list[tuple[str, Path_]]:
        """Merge key by key; the fields set (by name) and where the overlay writes each."""
        current = _get(host.data, path)
        if not isinstance(current, dict):
            message = f"`{named}` is not a mapping to merge into"
            raise PatchError("OVERLAY-TYPE", message, doc.location(source))
        written: list[tuple[str, Path_]] = []
        for key, item in value.items():
            if isinstance(item, dict) and isinstance(current.get(key), dict):
                written += self._merge(host, (*path, key), doc, (*source, key), item, f"{named}/{key}")
            else:
                self._set(host, (*path, key), doc, (*source, key), item)
                written.append((f"{named}/{key}", (*source, key)))
        return written

    def _remove(self, host: ComposedDoc, path: Path_) -> None:
        parent = _get(host.data, path[:-1])
        if isinstance(parent, list):
            self._rebuild(host, path[:-1], [i for i in range(len(parent)) if i != path[-1]], {})
            return
        del parent[path[-1]]
        for key in [k for k in host.grafts if k[: len(path)] == path]:
            del host.grafts[key]

    def _insert(self, host: ComposedDoc, path: Path_, doc: YamlDoc, at: Path_, patch: dict[str, Any]) -> None:
        items = _get(host.data, path)
        if not isinstance(items, list):
            raise PatchError("OVERLAY-TYPE", "`insert` needs a list", doc.location((*at, "insert")))
        position = self._place(items, doc, at, patch, default=len(items))
        order: list[int | None] = list(range(len(items)))
        order.insert(position, None)
        self._rebuild(host, path, order, {position: (doc, (*at, "item"), patch["item"])})

    def _move(self, host: ComposedDoc, path: Path_, doc: YamlDoc, at: Path_, patch: dict[str, Any]) -> None:
        items = _get(host.data, path[:-1])
        if not isinstance(items, list):
            raise PatchError("OVERLAY-TYPE", "`move` needs an item of a list", doc.location((*at, "move")))
        moving = int(path[-1])
        order: list[int | None] = [i for i in range(len(items)) if i != moving]
        rest = [items[i] for i in order if i is not None]
        order.insert(self._place(rest, doc, at, patch, default=len(rest)), moving)
        self._rebuild(host, path[:-1], order, {})

    def _place(self, items: list[Any], doc: YamlDoc, at: Path_, patch: dict[str, Any], default: int) -> int:
        """The index `before`/`after` name in the list (`start`, `end`, an id or a position)."""
        for word, shift in (("before", 0), ("after", 1)):
            if word not in patch:
                continue
            where = patch[word]
            if where == "start":
                return 0
            if where == "end":
                return len(items)
            found = _item_index(items, str(where), self.item_names)
            if found is None and (_is_int(where) or str(where).isdigit()):
                names = _names(items[int(where) : int(where) + 1], self.item_names)
                use = f": use `{word}: {names[0]}`" if names else ": name an item, `start` or `end`"
                message = f"`{word}: {where}` names an item by its position{use}"
                raise PatchError("OVERLAY-POSITION", message, doc.location((*at, word)))
            if found is None:
                raise PatchError(
                    "OVERLAY-PATH",
                    f"no item `{where}` to put it {word}"
                    + suggest(str(where), _names(items, self.item_names)),
                    doc.location((*at, word)),
                )
            return found + shift
        return default

    def _rebuild(
        self,
        host: ComposedDoc,
        path: Path_,
        order: list[int | None],
        new: dict[int, tuple[YamlDoc, Path_, Any]],
    ) -> None:
        """Rewrite a list in a new order (None: a new item); every item keeps its origins."""
        old = _get(host.data, path)
        item_origin = {i: host.origin((*path, i)) for i in range(len(old))}
        moved_to = {source: position for position, source in enumerate(order) if source is not None}
        depth = len(path)
        grafts: dict[Path_, tuple[YamlDoc, Path_]] = {}
        for key, value in host.grafts.items():
            if len(key) <= depth or key[:depth] != path:
                grafts[key] = value
            elif len(key) > depth + 1 and key[depth] in moved_to:  # a change inside a kept item
                grafts[(*path, moved_to[int(key[depth])], *key[depth + 1 :])] = value
        rebuilt = []
        for position, source in enumerate(order):
            if source is None:
                doc, at, value = new[position]
                rebuilt.append(copy.deepcopy(value))
                grafts[(*path, position)] = (doc, at)
            else:
                rebuilt.append(old[source])
                grafts[(*path, position)] = item_origin[source]
        host.grafts = grafts
        old[:] = rebuilt


def patch_sites(overlay: Pack) -> list[tuple[YamlDoc, Path_]]:
    """Every patch of an overlay, in the order they are applied: its file and place."""
    sites: list[tuple[YamlDoc, Path_]] = []
    for doc in overlay.docs:
        patches = doc.data.get("patches") if isinstance(doc.data, dict) else None
        if isinstance(patches, list):
            sites.extend((doc, ("patches", index)) for index in range(len(patches)))
    return sites


def _shape(doc: YamlDoc, at: Path_, patch: dict[str, Any]) -> str:
    """The change a patch makes; OVERLAY-SHAPE unless it is exactly one change with what it needs."""
    ops = [name for name in OPS if name in patch]
    if len(ops) != 1:
        said = " and ".join(f"`{o}`" for o in ops) or "none"
        raise PatchError(
            "OVERLAY-SHAPE",
            f"a patch makes exactly one change ({', '.join(OPS)}); this one has {said}",
            doc.location(at),
        )
    op = ops[0]
    lacking = [k for k in NEEDS[op] if k not in patch]
    extra = [k for k in patch if k != op and k not in NEEDS[op] and k not in ALLOWS[op]]
    if lacking or extra or ("before" in patch and "after" in patch):
        wants = " and ".join(f"`{k}`" for k in NEEDS[op]) or "nothing else"
        places = " (and `before` or `after`)" if ALLOWS[op] else ""
        raise PatchError(
            "OVERLAY-SHAPE",
            f"`{op}` takes {wants}{places}; this one has {', '.join(f'`{k}`' for k in patch)}",
            doc.location((*at, op), key=True),
        )
    return op


class PatchError(Exception):
    def __init__(self, code: str, message: str, location: Location):
        super().__init__(message)
        self.problem = Problem(code, message, location)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        data = data[part]
    return data


def _exists(data: Any, path: Path_) -> bool:
    for part in path:
        inside_list = isinstance(data, list) and isinstance(part, int) and part < len(data)
        if not (inside_list or (isinstance(data, dict) and part in data)):
            return False
        data = data[part]
    return True


def _names(items: list[Any], fields: tuple[str, ...]) -> list[str]:
    """The names list items go by in patch paths."""
    return [str(i[n]) for i in items if isinstance(i, dict) for n in fields if n in i]


def _item_index(items: list[Any], name: str, fields: tuple[str, ...]) -> int | None:
    """Where the item of this name is (never by position: a patch names items)."""
    for index, item in enumerate(items):
        if isinstance(item, dict) and any(str(item.get(n)) == name for n in fields if n in item):
            return index
    return None


def conflicts(composition: Composition, overlays: list[Pack]) -> Iterator[Problem]:
    """Two overlays, not ordered by `requires`/`after`, that change the same field."""
    before = ordered_before(overlays)
    shipped = {o.id for o in overlays if is_shipped(o)}
    seen: list[Change] = []
    for change in composition.changes:
        for earlier in seen:
            if earlier.overlay == change.overlay or _ordered(earlier.overlay, change.overlay, before):
                continue
            if _overlaps(earlier.target, change.target) and not _apart(earlier, change):
                yield _conflict(change, earlier, shipped)
                break
        seen.append(change)


def _conflict(change: Change, earlier: Change, shipped: set[str]) -> Problem:
    """The conflict of two changes, reported in (and fixed by editing) the user's own overlay:
    a shipped overlay is never the one to edit."""
    if change.overlay in shipped and earlier.overlay not in shipped:
        change, earlier = earlier, change  # the user's overlay is the one to order
    if change.op == earlier.op == "insert" and change.item == earlier.item and change.item is not None:
        what = f"add `{change.item}` to `{change.target}`"
    else:
        what = f"change `{change.target}`"
    both = f"`{change.overlay}` and `{earlier.overlay}` (at {earlier.location}) both {what}"
    if change.overlay in shipped:
        fix = "; both are shipped overlays not made to be played together: leave one of them out"
    else:
        fix = (
            f", and neither says it comes after the other: add `after: [{earlier.overlay}]` to the"
            f" pack.yaml of `{change.overlay}`"
        )
        if earlier.overlay not in shipped:
            fix += f" (or `after: [{change.overlay}]` to that of `{earlier.overlay}`)"
    return Problem("OVERLAY-CONFLICT", both + fix, change.location)


def is_shipped(pack: Pack) -> bool:
    """Whether a pack came with coh (or is in the checkout's content): never the user's to edit."""
    root = pack.root.resolve()
    return any(folder.resolve() in root.parents for folder in (content_root(), installed_content()))


def _ordered(first: str, second: str, before: dict[str, set[str]]) -> bool:
    return first in before.get(second, set()) or second in before.get(first, set())


def _overlaps(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def _apart(one: Change, other: Change) -> bool:
    """Two changes whose result is the same in either order: two additions to the same number;
    two inserts of differently named items into one list (two overlays that each add a trigger);
    an insert into a list and a change to another of its items (set or merged inside it, removed,
    or moved), which is found by its name wherever the new one goes, as long as neither is put
    beside the item the other brings or takes away."""
    if one.op == other.op == "add" and one.target == other.target:
        return True
    if one.op == other.op == "insert" and one.target == other.target:
        return one.item is not None and other.item is not None and one.item != other.item
    for insert, inside in ((one, other), (other, one)):
        if insert.op != "insert" or insert.item is None or not inside.target.startswith(insert.target + "/"):
            continue
        name = inside.target[len(insert.target) + 1 :].split("/")[0]
        if name == insert.item:
            return False
        if inside.target != f"{insert.target}/{name}" or inside.op in ("set", "merge"):
            return True  # a change inside the other item, or the item replaced where it stands
        if inside.op == "remove":
            return name != insert.anchor
        return inside.op == "move" and name != insert.anchor and inside.anchor != insert.item
    return False


def compose(base: Pack, overlays: list[Pack], last_patches: int | None = None) -> tuple[Pack, Composition]:
    """A new pack: `base` with the overlays applied in order (see `order_overlays`); of the last
    overlay's patches only the first `last_patches`, if given (to find which one does something)."""
    docs = [compose_doc(d) for d in base.docs]
    sections = base.entity_sections()
    patcher = Patcher(docs, {kind: section for section, kind in sections.items()}, item_names(base))
    for number, overlay in enumerate(overlays, 1):
        patcher.apply(overlay, last_patches if number == len(overlays) else None)
    patcher.result.problems.extend(conflicts(patcher.result, overlays))
    added = [d for o in overlays for d in o.docs if _adds_content(d)]
    composed = Pack(
        base.id,
        base.root,
        base.manifest,
        base.manifest_doc,
        docs=[*docs, *added],
        text=dict(base.text),
        overlays=list(overlays),
    )
    return composed, patcher.result


def item_names(pack: Pack) -> tuple[str, ...]:
    """The fields that name a list's items in a patch path: `id`, and the field of role
    `state_name` that names a place's states (`set: <kind>/<id>/<states>/<state name>/<field>`)."""
    found = [ITEM_NAME]
    for entry in pack.kind_declarations().values():
        fields = entry.get("fields") if isinstance(entry, dict) else None
        for spec in (fields or {}).values() if isinstance(fields, dict) else ():
            named = state_field_roles(spec.get("fields")).get(STATE_NAME) if isinstance(spec, dict) else None
            if named is not None and named not in found:
                found.append(named)
    return tuple(found)


def _adds_content(doc: YamlDoc) -> bool:
    """Whether an overlay's file holds more than patches: sections and entities (of kinds below
    or its own), checked against the composed pack's schema, which names any misspelt one."""
    return isinstance(doc.data, dict) and any(k != "patches" for k in doc.data)


def overlay_roots(names: list[str], content: Path) -> list[Path]:
    """The pack directories of overlays named by id (shipped ones) or by path."""
    roots = []
    for name in names:
        given = Path(name)
        if (given / "pack.yaml").is_file():
            roots.append(given)
        elif (content / name / "pack.yaml").is_file():
            roots.append(content / name)
        else:
            shipped = shipped_packs(content, "overlay")
            raise UsageError(
                f"no overlay `{name}` (shipped: {', '.join(shipped)}; or give an overlay's directory)"
                + suggest(name, shipped),
                code="OVERLAY-UNKNOWN",
            )
    return roots


def shipped_packs(content: Path, kind: str) -> list[str]:
    """The folders of `content` holding a pack whose manifest's kind is `kind` (`base` or
    `overlay`), sorted: the games and the overlays coh ships."""
    return [name for name, manifest in _manifests(content).items() if manifest.get("kind") == kind]


def shipped_overlays_of(content: Path, game: str) -> list[str]:
    """The overlays of `content` that build on the game `game`: they require it, or an overlay
    that does."""
    manifests = _manifests(content)
    return [name for name in shipped_packs(content, "overlay") if _game_of(name, manifests) == game]


def _game_of(
    name: str, manifests: dict[str, dict[str, Any]], seen: frozenset[str] = frozenset()
) -> str | None:
    """The base pack that the pack `name` builds on (itself for a base pack), through what its
    overlays require; None if there is none among `manifests` (or the requirements loop)."""
    manifest = manifests.get(name, {})
    if manifest.get("kind") == "base":
        return name
    required = manifest.get("requires")
    for other in required if isinstance(required, list) and name not in seen else []:
        game = _game_of(other, manifests, seen | {name}) if isinstance(other, str) else None
        if game is not None:
            return game
    return None


def _manifests(content: Path) -> dict[str, dict[str, Any]]:
    """The manifests of the packs in `content`, by folder; one that cannot be read as a mapping
    is empty (its own validation reports it)."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(content.glob("*/pack.yaml")):
        try:
            doc, _ = parse_yaml(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError):
            doc = None
        data = doc.data if doc is not None else None
        found[path.parent.name] = data if isinstance(data, dict) else {}
    return found

"""Problems an overlay causes in the packs below it, reported where the overlay can fix them.

A check that fails in a file of the base pack, or of an overlay applied earlier (a total that
no longer adds up, a value that no longer fits a type an overlay changed), is usually no fault
of that file: it is sound on its own, and what broke it is a patch of a later overlay. Such a
problem is looked for again with fewer overlays applied, then with fewer of the guilty
overlay's patches, until the one patch (or the content the overlay adds) that brings it is
known. The problem is then reported there, naming the value below to patch as well; the place
below follows in the message, under the patch's quoted line, and as the problem's `also`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from coh_core.errors import Location, Problem
from coh_core.packs.model import Pack
from coh_core.packs.overlays import ITEM_NAME, OPS, item_names, patch_sites
from coh_core.packs.yamlsrc import Path_, YamlDoc

Found = frozenset[tuple[str, Location]]
# The problems (code and place) with the first `n` overlays applied, and of the last of them only
# its first `patches` patches (None: all of them).
Recheck = Callable[[int, int | None], Found]

# Texts of the packs below that nothing uses once an overlay removed what they belonged to: an
# overlay cannot remove a text, and an unused text does no harm, so this is not a problem.
_UNUSED_TEXT = "TEXT-UNKNOWN"


def blame(problems: list[Problem], base: Pack, overlays: list[Pack], recheck: Recheck) -> list[Problem]:
    """The problems, those an overlay causes in the files of a pack or overlay below it moved to
    their cause."""
    layers = _layers(base, overlays)
    sections = base.entity_sections()  # kind by the section listing its entities
    names = item_names(base)  # the fields that name a list's items in a patch path
    # with every overlay, the check finds what it has found: those problems
    cached: dict[tuple[int, int | None], Found] = {(len(overlays), None): found_in(problems)}

    def found(applied: int, patches: int | None = None) -> Found:
        if (applied, patches) not in cached:
            cached[applied, patches] = recheck(applied, patches)
        return cached[applied, patches]

    moved: list[Problem] = []
    for problem in problems:
        doc, role, layer = layers.get(problem.location.file, (None, "", len(overlays)))
        key = (problem.code, problem.location)
        # nothing comes after the last overlay; an OVERLAY- problem is placed where it is on purpose
        if (
            doc is None
            or layer == len(overlays)
            or problem.code.startswith("OVERLAY-")
            or key in found(layer)
        ):
            moved.append(problem)
            continue
        # the last overlay without which it is not there (most often the last one: one check)
        guilty = next(n for n in range(len(overlays), layer, -1) if key not in found(n - 1))
        if problem.code != _UNUSED_TEXT:
            overlay = overlays[guilty - 1]
            cause = _cause(key, overlay, partial(found, guilty))
            moved.append(_at_cause(problem, doc, role, overlay, sections, names, *cause))
    return moved


def found_in(problems: list[Problem]) -> Found:
    """What a check found, as blame compares it: each problem's code and place."""
    return frozenset((p.code, p.location) for p in problems)


def _layers(base: Pack, overlays: list[Pack]) -> dict[str, tuple[YamlDoc, str, int]]:
    """Each file of the base pack (layer 0) and of the overlays (1, 2...): its document, and
    whether it holds content, texts or a manifest."""
    layers: dict[str, tuple[YamlDoc, str, int]] = {}
    for layer, pack in enumerate([base, *overlays]):
        # what an overlay adds cannot be patched; what its patches write can (at their target)
        layers.update({d.path: (d, "overlay" if layer else "content", layer) for d in pack.docs})
        layers.update({d.path: (d, "text", layer) for d in pack.text.values()})
        layers[pack.manifest_doc.path] = (pack.manifest_doc, "manifest", layer)
    return layers


def _cause(
    key: tuple[str, Location], overlay: Pack, found: Callable[[int | None], Found]
) -> tuple[YamlDoc, Location, str]:
    """Where the overlay causes the problem (its patch, or its manifest for what it adds), and what."""
    sites = patch_sites(overlay)
    if key in found(0) or not sites:
        return overlay.manifest_doc, overlay.manifest_doc.location(("id",)), f"what `{overlay.id}` adds"
    low, high = 1, len(sites)  # the first patch with which the problem is there
    while low < high:
        middle = (low + high) // 2
        if key in found(middle):
            high = middle
        else:
            low = middle + 1
    doc, at = sites[low - 1]
    patch = _get(doc.data, at)
    op = next((o for o in OPS if isinstance(patch, dict) and o in patch), None)
    return doc, doc.location((*at, op) if op else at), "this patch"


def _at_cause(
    problem: Problem,
    doc: YamlDoc,
    role: str,
    overlay: Pack,
    sections: Mapping[str, str],
    names: tuple[str, ...],
    written: YamlDoc,
    where: Location,
    cause: str,
) -> Problem:
    """The problem at its cause in the overlay (`where` in `written`), with the fix; the base
    position follows in the message, and under the overlay's line with its own."""
    path = doc.path_at(problem.location.line, problem.location.col)
    fix = "change this patch" if cause == "this patch" else "change what it adds"
    if role == "text" and path is not None and len(path) > 1 and path[0] == "messages":
        fix = f"give `{overlay.id}` a text `{path[1]}` of its own, or {fix}"
    elif (
        path
        and (role == "content" or (role, path[0]) == ("overlay", "patches"))
        and not (len(path) < 2 and path[0] in sections)
    ):
        target = patch_target(doc.data, path, sections, names)
        fix = f"patch `{target}` in `{overlay.id}` as well, or {fix}" if target else fix
    context = (
        f"{_quote(written, where)}\n  which breaks, in `{doc.owner or 'the pack below'}`:\n"
        f"{_quote(doc, problem.location)}"
    )
    message = f"{problem.message} (at {problem.location}, because of {cause}): {fix}"
    return Problem(problem.code, message, where, context, also=problem.location)


def _quote(doc: YamlDoc, where: Location) -> str:
    """A file's line at a location, and a caret under its column."""
    return f"    {doc.source_line(where.line)}\n    {' ' * max(where.col - 1, 0)}^"


def patch_target(
    data: Any, path: Path_, sections: Mapping[str, str], names: tuple[str, ...] = (ITEM_NAME,)
) -> str | None:
    """How a patch names the value at a data path (entities by kind and id, list items by name);
    a value an overlay's patch writes is named by the patch's target. None if it has no name."""
    head, *rest = path
    if head == "patches":
        return _patched_target(data, path)
    parts = [str(head)]
    value = data.get(head) if isinstance(data, dict) else None
    if head in sections and rest and isinstance(value, list):
        index = int(rest.pop(0))
        value = value[index] if index < len(value) else None
        parts = [sections[str(head)], _item_name(value, index, names)]
    for part in rest:
        if isinstance(value, list) and isinstance(part, int):
            item = value[part] if part < len(value) else None
            parts.append(_item_name(item, part, names))
            value = item
        else:
            parts.append(str(part))
            value = value.get(part) if isinstance(value, dict) else None
    return "/".join(parts)


def _patched_target(data: Any, path: Path_) -> str | None:
    """The name of a value inside a `set` or `merge` patch: its target, then the path inside."""
    patch = _get(data, path[:2]) if len(path) > 2 else None
    if not isinstance(patch, dict) or path[2] not in ("to", "with"):
        return None
    target = patch.get("set", patch.get("merge"))
    return "/".join([str(target), *(str(p) for p in path[3:])]) if isinstance(target, str) else None


def _item_name(item: Any, index: int, names: tuple[str, ...]) -> str:
    """A list item's name in a patch path: its id (or the name of a place's state), else its position."""
    for name in names:
        if isinstance(item, dict) and name in item:
            return str(item[name])
    return str(index)


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        data = data[part]
    return data

"""Problems an overlay causes in the packs below it, reported where the overlay can fix them.

A check that fails in a file of the base pack (a total that no longer adds up, a value that no
longer fits a type an overlay changed) is usually no fault of that file: the base pack is sound
on its own, and what broke it is a patch of an overlay. Such a problem is found again with fewer
overlays applied, then with fewer of the guilty overlay's patches, until the one patch (or the
content the overlay adds) that makes it appear is known. The problem is then reported at that
patch, naming the value of the base pack to patch as well; the base position follows in the
message.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from coh_core.errors import Location, Problem
from coh_core.packs.model import ENTITY_SECTIONS, Pack
from coh_core.packs.overlays import NAME_FIELDS, OPS, patch_sites
from coh_core.packs.yamlsrc import Path_, YamlDoc

Found = frozenset[tuple[str, Location]]
# The problems (code and place) with the first `n` overlays applied, and of the last of them only
# its first `patches` patches (None: all of them).
Recheck = Callable[[int, int | None], Found]

# Texts of the packs below that nothing uses once an overlay removed what they belonged to: an
# overlay cannot remove a text, and an unused text does no harm, so this is not a problem.
_UNUSED_TEXT = "TEXT-UNKNOWN"


def blame(problems: list[Problem], base: Pack, overlays: list[Pack], recheck: Recheck) -> list[Problem]:
    """The problems, those an overlay causes in the base pack's files moved to their cause."""
    below = {d.path: (d, "content") for d in base.docs}
    below.update({d.path: (d, "text") for d in base.text.values()})
    below[base.manifest_doc.path] = (base.manifest_doc, "manifest")
    cached: dict[tuple[int, int | None], Found] = {}

    def found(applied: int, patches: int | None = None) -> Found:
        if (applied, patches) not in cached:
            cached[applied, patches] = recheck(applied, patches)
        return cached[applied, patches]

    moved: list[Problem] = []
    for problem in problems:
        doc, role = below.get(problem.location.file, (None, ""))
        key = (problem.code, problem.location)
        if doc is None or not overlays or key in found(0):
            moved.append(problem)
            continue
        guilty = next((n for n in range(1, len(overlays) + 1) if key in found(n)), None)
        if guilty is None:  # pragma: no cover - the full composition found it
            moved.append(problem)
        elif problem.code != _UNUSED_TEXT:
            overlay = overlays[guilty - 1]
            cause = _cause(key, overlay, partial(found, guilty))
            moved.append(_at_cause(problem, doc, role, overlay, *cause))
    return moved


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
    problem: Problem, doc: YamlDoc, role: str, overlay: Pack, written: YamlDoc, where: Location, cause: str
) -> Problem:
    """The problem at its cause in the overlay (`where` in `written`), with the fix; the base
    position follows in the message, and under the overlay's line with its own."""
    path = doc.path_at(problem.location.line, problem.location.col)
    fix = "change this patch" if cause == "this patch" else "change what it adds"
    if role == "text" and path is not None and len(path) > 1 and path[0] == "messages":
        fix = f"give `{overlay.id}` a text `{path[1]}` of its own, or {fix}"
    elif role == "content" and path is not None and not (len(path) < 2 and path[0] in ENTITY_SECTIONS):
        fix = f"patch `{patch_target(doc.data, path)}` in `{overlay.id}` as well, or {fix}"
    context = (
        f"{_quote(written, where)}\n  which breaks, in `{doc.owner or 'the pack below'}`:\n"
        f"{_quote(doc, problem.location)}"
    )
    message = f"{problem.message} (at {problem.location}, because of {cause}): {fix}"
    return Problem(problem.code, message, where, context, also=problem.location)


def _quote(doc: YamlDoc, where: Location) -> str:
    """A file's line at a location, and a caret under its column."""
    return f"    {doc.source_line(where.line)}\n    {' ' * max(where.col - 1, 0)}^"


def patch_target(data: Any, path: Path_) -> str:
    """How a patch names the value at a data path: entities by kind and id, list items by name."""
    head, *rest = path
    parts = [str(head)]
    value = data.get(head) if isinstance(data, dict) else None
    if head in ENTITY_SECTIONS and rest and isinstance(value, list):
        index = int(rest.pop(0))
        value = value[index] if index < len(value) else None
        parts = [ENTITY_SECTIONS[str(head)], _item_name(value, index)]
    for part in rest:
        if isinstance(value, list) and isinstance(part, int):
            item = value[part] if part < len(value) else None
            parts.append(_item_name(item, part))
            value = item
        else:
            parts.append(str(part))
            value = value.get(part) if isinstance(value, dict) else None
    return "/".join(parts)


def _item_name(item: Any, index: int) -> str:
    """A list item's name in a patch path: its id (or side), else its position."""
    for name in NAME_FIELDS:
        if isinstance(item, dict) and name in item:
            return str(item[name])
    return str(index)


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        data = data[part]
    return data

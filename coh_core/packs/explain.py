"""`coh explain`: an entity (or section) as the rules in play have it, and who set each field."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from coh_core.i18n import fallback_chain
from coh_core.packs.model import Pack
from coh_core.packs.yamlsrc import Path_, YamlDoc

SECTIONS = ("turn", "setup", "components", "params", "messages", "types", "traits", "events", "windows")


@dataclass(frozen=True)
class Field:
    """One value of the effective entity: where it is, what it is, which pack wrote it where."""

    path: tuple[str | int, ...]  # as a patch names it: list items by id or side where they have one
    value: Any
    pack: str
    location: str

    def to_json(self) -> dict[str, Any]:
        return {
            "path": "/".join(str(p) for p in self.path),
            "value": self.value,
            "set_by": self.pack,
            "at": self.location,
        }


@dataclass(frozen=True)
class Explained:
    kind: str
    id: str
    rules: list[str]
    fields: list[Field]
    texts: list[Field]


def explain(pack: Pack, name: str, locale: str) -> Explained | None:
    """The fields of an entity (or `turn`, `setup`, `components`) and of its texts, with origins."""
    entity = pack.entity(name)
    if entity is not None:
        doc, root, data, kind = entity.doc, entity.path, entity.data, entity.kind
    elif name in pack.sections:
        section = pack.sections[name]
        doc, root, data, kind = section.doc, section.path, section.data, "section"
    else:
        return None
    fields = list(_leaves(doc, root, data, (), ()))
    prefix = f"{kind}.{name}."
    return Explained(kind, name, pack.rules_id, fields, list(_texts(pack, prefix, locale)))


def _leaves(
    doc: YamlDoc, root: Path_, value: Any, path: Path_, named: tuple[str | int, ...]
) -> Iterator[Field]:
    """Every scalar, and every list of scalars, with the file and pack it came from."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(doc, root, item, (*path, key), (*named, key))
        return
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        for index, item in enumerate(value):
            yield from _leaves(doc, root, item, (*path, index), (*named, _item_name(item, index)))
        return
    source, at = doc.origin((*root, *path))
    yield Field(named, value, source.owner or "?", str(source.location(at)))


def _item_name(item: Any, index: int) -> str | int:
    """A list item as patch paths name it: by its id or side, else by position."""
    if isinstance(item, dict):
        for key in ("id", "side"):
            if isinstance(item.get(key), str):
                return str(item[key])
    return index


def _texts(pack: Pack, prefix: str, locale: str) -> Iterator[Field]:
    """The entity's texts in `locale` (or what it falls back to), and which pack's file has each."""
    layers = [pack, *pack.overlays]
    keys = sorted({k for layer in layers for k in layer.own_messages("en") if k.startswith(prefix)})
    for key in keys:
        found = _text_origin(layers, key, locale)
        if found is not None:
            yield found


def _text_origin(layers: list[Pack], key: str, locale: str) -> Field | None:
    for step in fallback_chain(locale):
        for layer in reversed(layers):  # the last pack applied wins
            if key in layer.own_messages(step):
                doc = layer.text[step]
                where = doc.location(("messages", key), key=True)
                return Field((key,), layer.own_messages(step)[key], layer.id, str(where))
    return None


def render(explained: Explained) -> list[str]:
    """The text `coh explain` prints: each field, then who set it and where."""
    rules = " + ".join(explained.rules) or "no overlay"
    lines = [f"{explained.id}  ({explained.kind}; rules: {rules})", ""]
    width = max((len(_label(f)) for f in explained.fields), default=0)
    for item in explained.fields:
        value = item.value
        shown = value.strip().splitlines() if isinstance(value, str) else [_scalar(value)]
        lines.append(f"  {_label(item).ljust(width)}  {shown[0] if shown else ''}")
        lines.extend(f"  {'':<{width}}  {line}" for line in shown[1:])
        lines.append(f"  {'':<{width}}    <- {item.pack} ({item.location})")
    if explained.texts:
        lines.extend(["", "  texts:"])
        for item in explained.texts:
            text = item.value if isinstance(item.value, str) else item.value.get("other", "")
            lines.append(f"    {item.path[0]}: {text}")
            lines.append(f"      <- {item.pack} ({item.location})")
    return lines


def _label(item: Field) -> str:
    return "/".join(str(p) for p in item.path) + ":"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return "null" if value is None else str(value)

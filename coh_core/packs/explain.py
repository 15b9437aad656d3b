"""`coh explain`: an entity (or section), a verb or a rule parameter as the rules in play have it:
who set each field, and which effects use it."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from coh_core.effects import ast
from coh_core.effects.registry import Kind, signature
from coh_core.i18n import fallback_chain
from coh_core.packs.declarations import declarations_of
from coh_core.packs.effects_index import pack_verbs
from coh_core.packs.model import CompiledEffect, Pack
from coh_core.packs.yamlsrc import Path_, YamlDoc

SECTIONS = (
    "turn", "setup", "components", "params", "messages", "types", "traits", "events", "windows", "contexts",
    "result",
)  # fmt: skip


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
class Use:
    """An effect that calls a verb or reads a parameter: whose effect it is, and where the call is."""

    owner: str
    location: str

    def to_json(self) -> dict[str, Any]:
        return {"in": self.owner, "at": self.location}


@dataclass(frozen=True)
class Explained:
    kind: str
    id: str
    rules: list[str]
    fields: list[Field]
    texts: list[Field]
    signature: str | None = None  # of a verb, selector or procedure
    doc: str | None = None  # of a built-in one (a pack's own verb has its `doc` field)
    uses: list[Use] | None = None  # of a verb or a parameter: the effects that call or read it

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"id": self.id, "kind": self.kind, "rules": self.rules}
        if self.signature is not None:
            document["signature"] = self.signature
        if self.doc is not None:
            document["doc"] = self.doc
        document["fields"] = [f.to_json() for f in self.fields]
        document["texts"] = [f.to_json() for f in self.texts]
        if self.uses is not None:
            document["used_by"] = [u.to_json() for u in self.uses]
        return document


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
    texts = list(_texts(pack, prefix, locale))
    if kind == "verb":
        verb = pack_verbs(pack, declarations_of(pack)).get(name)
        shown = None if verb is None else verb.render()
        return Explained(kind, name, pack.rules_id, fields, texts, shown, None, _callers(pack, name))
    return Explained(kind, name, pack.rules_id, fields, texts)


def explain_builtin(pack: Pack, name: str) -> Explained | None:
    """A verb, selector or procedure built into the engine, and the pack's effects that call it."""
    found = signature(name)
    if found is None:
        return None
    kind = f"built-in {_KIND_NAMES[found.kind]}"
    return Explained(kind, name, pack.rules_id, [], [], found.render(), found.doc, _callers(pack, name))


def explain_param(pack: Pack, name: str) -> Explained | None:
    """A rule parameter: its fields (type, value, meaning) with who set each, and the effects that
    read it (`param(name)`)."""
    section = pack.sections.get("params")
    if section is None or not isinstance(section.data.get(name), dict):
        return None
    fields = list(_leaves(section.doc, (*section.path, name), section.data[name], (), ()))
    return Explained("rule parameter", name, pack.rules_id, fields, [], uses=_readers(pack, name))


_KIND_NAMES = {Kind.VERB: "verb", Kind.SELECTOR: "selector", Kind.PROCEDURE: "procedure"}


def _callers(pack: Pack, name: str) -> list[Use]:
    """Every call of `name` in the pack's effects, in the order of the pack."""
    return [_use(effect, call) for effect in pack.effects for call in _calls(effect, name)]


def _readers(pack: Pack, name: str) -> list[Use]:
    """Every `param(name)` in the pack's effects."""
    return [
        _use(effect, call)
        for effect in pack.effects
        for call in _calls(effect, "param")
        if call.args and isinstance(call.args[0].value, ast.Name) and call.args[0].value.name == name
    ]


def _calls(effect: CompiledEffect, name: str) -> list[ast.Call]:
    return sorted((c for c in ast.calls(effect.tree) if c.name == name), key=lambda c: c.span.start)


def _use(effect: CompiledEffect, call: ast.Call) -> Use:
    slot = effect.slot
    where = slot.doc.offset_in_scalar(slot.path, call.span.start)
    owner = "/".join(str(p) for p in slot.path) if slot.owner in ("turn", "setup") else slot.owner
    return Use(owner, str(where))


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
    if explained.signature is not None:
        lines.extend([f"  {explained.signature}", ""])
    if explained.doc is not None:
        lines.extend([*(f"  {line}" for line in textwrap.wrap(explained.doc, 96)), ""])
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
    if explained.uses is not None:
        what = "read by" if explained.kind == "rule parameter" else "used by"
        if lines[-1]:
            lines.append("")
        lines.append(f"  {what}:" if explained.uses else f"  {what}: nothing in these rules")
        lines.extend(f"    {use.owner}  ({use.location})" for use in explained.uses)
    return lines


def _label(item: Field) -> str:
    return "/".join(str(p) for p in item.path) + ":"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return "null" if value is None else str(value)

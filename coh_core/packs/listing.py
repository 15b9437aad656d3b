"""Rows for `coh list` and the page for `coh show`, built from a loaded pack, in one language.

What is printed of a kind is what it declares: the columns of its `list` and the lines of its
`show`, each a value made from the entity's data (coh_core.packs.display); a kind that declares
neither is listed and shown field by field. Every word comes from the pack's text through a
`Narrator` (`ui.column.*`, `ui.show.*`...); ids and effect code are shown as they are written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coh_core.effects import ast
from coh_core.effects.printer import format_effect, format_expr
from coh_core.narrative import Narrator
from coh_core.packs.display import NOTHING, Display, cell, json_like, shown, ui
from coh_core.packs.fields import EFFECT_TYPES, NOT_PLAIN, RECORD, field_type, naming_field
from coh_core.packs.model import CompiledEffect, Entity, Pack

Rows = list[list[str]]
INDENT = "  "  # a line of `coh show`, and each level of `indent` below it


def _name(narrator: Narrator, entity: Entity) -> str:
    return narrator.name(entity.kind, entity.id)


def _head(narrator: Narrator, *columns: str) -> list[str]:
    return [narrator.ui(f"ui.column.{c}") for c in columns]


def list_sections(pack: Pack) -> list[str]:
    """What `coh list` takes: the section of each kind the pack declares (listed as its `list`
    says, else by its declared fields)."""
    return [str(e["section"]) for e in pack.kind_declarations().values() if isinstance(e.get("section"), str)]


def list_rows(
    pack: Pack, section: str, narrator: Narrator | None = None
) -> tuple[list[str], Rows, list[dict[str, Any]], str]:
    """Table head, rows, JSON records and a footer line for the kind listed in one section."""
    narrator = narrator or Narrator(pack)
    kind = pack.entity_sections()[section]
    declared = pack.kind_declarations()[kind]
    records = [entity_record(narrator, e) for e in pack.entities_of(kind)]
    if "list" not in declared:
        return (*_field_rows(narrator, records, declared), records, _field_footer(narrator, section, records))
    listing, fields = declared["list"], declared.get("fields")
    columns = listing["columns"]
    head = [narrator.ui(str(c["head"])) for c in columns]
    rows = [
        [_cell_of(Display(narrator, r.get("text") or {}).value(c["value"], r, fields)) for c in columns]
        for r in records
    ]
    return head, rows, records, _footer(narrator, listing["footer"], records)


def _cell_of(value: Any) -> str:
    return "" if value is NOTHING else str(value)


def _footer(narrator: Narrator, footer: Any, records: list[dict[str, Any]]) -> str:
    """The line below the table: a text filled with `count`, the number of entities, or a value
    made of the list of their records (`{text: ..., fill: {count: {sum: count}}}`)."""
    if isinstance(footer, Mapping):
        return _cell_of(Display(narrator, {}).value(footer, records))
    return ui(narrator, str(footer), count=len(records))


def shown_fields(declared: dict[str, Any]) -> list[str]:
    """The fields a kind without a listing of its own shows, in order: those whose values are
    words or numbers, or lists of them (records and effects are shown by `coh show`)."""
    fields = declared.get("fields")
    shown = []
    for name, spec in fields.items() if isinstance(fields, dict) else ():
        parsed = field_type(spec)
        if parsed is not None and parsed.base not in NOT_PLAIN:
            shown.append(str(name))
    return shown


def _field_rows(
    narrator: Narrator, records: list[dict[str, Any]], declared: dict[str, Any]
) -> tuple[list[str], Rows]:
    """The id, the name and each shown field (its default where an entity leaves it out); the
    field's name heads its column, as the pack writes it."""
    fields = shown_fields(declared)
    specs = declared.get("fields") or {}
    head = [*_head(narrator, "id", "name"), *fields]
    rows = [[r["id"], r["name"], *(cell(r.get(f, specs[f].get("default"))) for f in fields)] for r in records]
    return head, rows


def _field_footer(narrator: Narrator, section: str, records: list[dict[str, Any]]) -> str:
    """The pack's footer for the section if it has one (`ui.list.footer.<section>`), else none."""
    key = f"ui.list.footer.{section}"
    return ui(narrator, key, count=len(records)) if narrator.has(key) else ""


def entity_record(narrator: Narrator, entity: Entity) -> dict[str, Any]:
    """The entity's data plus its text in the narrator's language, ready for JSON."""
    record: dict[str, Any] = {"id": entity.id, "kind": entity.kind, "name": _name(narrator, entity)}
    prefix = f"{entity.kind}.{entity.id}."
    texts = {
        k[len(prefix) :]: narrator.text(k, {})
        for k in narrator.messages
        if k.startswith(prefix) and k != prefix + "name"
    }
    record.update({k: v for k, v in entity.data.items() if k != "id"})
    if texts:
        record["text"] = texts
    return record


# -- show --------------------------------------------------------------------------------

Lines = list[str]


def show_entity(
    pack: Pack,
    entity_id: str,
    narrator: Narrator | None = None,
    places: list[str] | None = None,
    play: bool = False,
) -> tuple[str, dict[str, Any]] | None:
    """The page `coh show` prints, and the matching JSON record, for one entity; in `play`, as the
    table of a game shows it, with `places` its city (`coh_core.packs.display.Display`)."""
    narrator = narrator or Narrator(pack)
    entity = pack.entity(entity_id)
    if entity is None:
        return None
    compiled = {c.slot.path: c for c in pack.effects if c.slot.doc is entity.doc}
    record = entity_record(narrator, entity)
    record["effects"] = {
        _label(entity, c, pack): _pretty(c)
        for path, c in compiled.items()
        if path[: len(entity.path)] == entity.path
    }
    declared = pack.kind_declarations().get(entity.kind, {})
    page = _Page(
        narrator, entity, compiled, declared, Display(narrator, record.get("text") or {}, places, play)
    )
    label = str(declared.get("label") or f"ui.kind.{entity.kind}")
    kind = narrator.ui(label) if narrator.has(label) else entity.kind  # the kind as the pack names it
    lines = [
        ui(narrator, "ui.show.header", name=record["name"], kind=kind, id=entity.id, file=entity.location)
    ]
    lines.extend(page.body())
    return "\n".join(lines).rstrip(), record


class _Page:
    """Builds the text of one entity: its numbers, its text and its effects, side by side."""

    def __init__(
        self,
        narrator: Narrator,
        entity: Entity,
        compiled: dict[Any, CompiledEffect],
        declared: dict[str, Any],
        display: Display,
    ):
        self.narrator, self.entity, self.compiled, self.declared = narrator, entity, compiled, declared
        self.display = display

    def ui(self, key: str, **params: Any) -> str:
        return ui(self.narrator, key, **params)

    def effect(self, label: str, path: tuple[Any, ...], indent: str) -> Lines:
        found = self.compiled.get((*self.entity.path, *path))
        if found is None:
            return []
        pretty = _pretty(found).splitlines()
        if len(pretty) == 1:
            return [f"{indent}{label}: {pretty[0]}"]
        return [f"{indent}{label}:", *(f"{indent}  {line}" for line in pretty)]

    def triggers(self, path: tuple[Any, ...], triggers: Any, indent: str) -> Lines:
        lines: Lines = []
        for index, trigger in enumerate(triggers or []):
            key = (
                "ui.show.trigger.after_action"
                if trigger.get("timing") == "after_action"
                else "ui.show.trigger"
            )
            lines.append(indent + self.ui(key, event=str(trigger["event"])))
            lines.extend(self.effect("if", (*path, index, "if"), indent + "  "))
            lines.extend(self.effect("do", (*path, index, "do"), indent + "  "))
        return lines

    def body(self) -> Lines:
        """The lines the kind's `show` declares, each made from the entity's data; without them,
        each field the entity gives, and its effects."""
        data, fields = self.entity.data, self.declared.get("fields")
        if "show" in self.declared:
            lines = self.lines(self.declared.get("show") or [], data, fields, (), 0)
        else:
            lines = self.field_lines(data, fields, (), INDENT)
        return ["", *lines] if lines else []

    def lines(self, specs: list[Any], data: Any, fields: Any, path: tuple[Any, ...], depth: int) -> Lines:
        """The lines of `show` (or of its `each`) made from data at `path` in the entity, whose
        fields `fields` declares: a value, an effect pretty-printed, triggers, or the lines of each
        item of a list; each after a blank line (`gap`) and indented (`indent`) as it says."""
        found: Lines = []
        for spec in specs:
            if "when" in spec and not shown(data, spec["when"]):
                continue
            level = depth + int(spec.get("indent", 0))
            pad = INDENT * (level + 1)
            if "each" in spec:
                field = str(spec["each"])
                items = data.get(field) if isinstance(data, Mapping) else None
                inner = _record_fields(fields, field)
                for index, item in enumerate(items if isinstance(items, list) else []):
                    found.extend(
                        self.lines(spec.get("lines") or [], item, inner, (*path, field, index), level)
                    )
                continue
            if "effect" in spec:
                parts = tuple(str(spec["effect"]).split("."))
                made = self.effect(str(spec.get("label", " ".join(parts))), (*path, *parts), pad)
            elif "triggers" in spec:
                field = str(spec["triggers"])
                held = data.get(field) if isinstance(data, Mapping) else None
                made = self.triggers((*path, field), held, pad)
            else:
                value = self.display.value(spec, data, fields)
                made = [] if value is NOTHING else [pad + str(value)]
            found.extend(([""] if made and spec.get("gap") else []) + made)
        return found

    def field_lines(self, data: dict[str, Any], fields: Any, path: tuple[Any, ...], indent: str) -> Lines:
        """`name: value` for each declared field the data gives, effects pretty-printed, records
        and lists of records indented below their name."""
        lines: Lines = []
        for name, spec in fields.items() if isinstance(fields, dict) else ():
            parsed, value = field_type(spec), data.get(name)
            if parsed is None or value is None:
                continue
            at = (*path, name)
            if parsed.base in EFFECT_TYPES and parsed.lists == 0:
                lines.extend(self.effect(str(name), at, indent))
            elif parsed.base == "triggers":
                lines.extend(self.triggers(at, value, indent))
            elif parsed.base == RECORD and isinstance(value, dict):
                lines.append(f"{indent}{name}:")
                lines.extend(self.field_lines(value, spec.get("fields"), at, indent + "  "))
            elif parsed.base == RECORD and isinstance(value, list):
                for index, item in enumerate(value):
                    lines.append(f"{indent}{name} {index + 1}:")
                    lines.extend(self.field_lines(item, spec.get("fields"), (*at, index), indent + "  "))
            else:
                lines.append(
                    f"{indent}{name}: {cell(value) if not isinstance(value, dict) else json_like(value)}"
                )
        return lines


def _record_fields(fields: Any, name: str) -> Any:
    """The declarations of the fields of the records a list field holds."""
    spec = fields.get(name) if isinstance(fields, Mapping) else None
    return spec.get("fields") if isinstance(spec, Mapping) else None


def _label(entity: Entity, compiled: CompiledEffect, pack: Pack) -> str:
    """Where an effect is in its entity, in words: the path to it, an item of a list of records
    named by its naming field and its value (`side A attack_if`)."""
    tail = compiled.slot.path[len(entity.path) :]
    fields: Any = pack.kind_declarations().get(entity.kind, {}).get("fields")
    data: Any = entity.data
    words: list[str] = []
    at = 0
    while at < len(tail):
        part = tail[at]
        spec = fields.get(part) if isinstance(fields, Mapping) and isinstance(part, str) else None
        value = data.get(part) if isinstance(data, Mapping) and isinstance(part, str) else None
        item = _item(value, tail[at + 1] if at + 1 < len(tail) else None)
        named = naming_field(spec)
        if item is not None and named is not None and named in item:
            words.append(f"{named} {item[named]}")
            data, fields, at = item, spec.get("fields") if spec is not None else None, at + 2
            continue
        words.append(str(part))
        data, fields, at = value, spec.get("fields") if isinstance(spec, Mapping) else None, at + 1
    return " ".join(words) or "effect"


def _item(value: Any, index: Any) -> Mapping[str, Any] | None:
    """The record at `index` of a list, if that is what there is."""
    if isinstance(value, list) and isinstance(index, int) and 0 <= index < len(value):
        found = value[index]
        return found if isinstance(found, Mapping) else None
    return None


def _pretty(compiled: CompiledEffect) -> str:
    tree = compiled.tree
    return format_effect(tree) if isinstance(tree, ast.Block) else format_expr(tree)

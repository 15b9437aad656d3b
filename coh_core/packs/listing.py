"""Rows for `coh list` and the page for `coh show`, built from a loaded pack, in one language.

Every word comes from the pack's text through a `Narrator` (`ui.column.*`, `ui.show.*`...);
ids and effect code are shown as they are written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from coh_core.effects import ast
from coh_core.effects.printer import format_effect, format_expr
from coh_core.narrative import Narrator, Verbatim
from coh_core.packs.fields import EFFECT_TYPES, NOT_PLAIN, RECORD, field_type
from coh_core.packs.model import CompiledEffect, Entity, Pack

Rows = list[list[str]]


def ui(narrator: Narrator, key: str, **params: Any) -> str:
    """A `ui.` text; string parameters are shown as they are (already in words, or ids)."""
    return narrator.ui(key, **{k: Verbatim(v) if isinstance(v, str) else v for k, v in params.items()})


def _name(narrator: Narrator, entity: Entity) -> str:
    return narrator.name(entity.kind, entity.id)


def _head(narrator: Narrator, *columns: str) -> list[str]:
    return [narrator.ui(f"ui.column.{c}") for c in columns]


def list_sections(pack: Pack) -> list[str]:
    """What `coh list` takes: the section of each kind the pack declares (listed as its `list`
    or `render` says, else by its declared fields)."""
    return [str(e["section"]) for e in pack.kind_declarations().values() if isinstance(e.get("section"), str)]


def list_rows(
    pack: Pack, section: str, narrator: Narrator | None = None
) -> tuple[list[str], Rows, list[dict[str, Any]], str]:
    """Table head, rows, JSON records and a footer line for the kind listed in one section."""
    narrator = narrator or Narrator(pack)
    kind = pack.entity_sections()[section]
    declared = pack.kind_declarations()[kind]
    records = [_record(narrator, e) for e in pack.entities_of(kind)]
    render = declared.get("render")
    if render is not None:
        head, rows = _RENDERERS[str(render)](narrator, records, declared)
        return head, rows, records, _footer(narrator, section, str(render), records)
    if "list" not in declared:
        return (*_field_rows(narrator, records, declared), records, _field_footer(narrator, section, records))
    listing = declared["list"]
    columns = listing["columns"]
    head = [narrator.ui(str(c["head"])) for c in columns]
    rows = [[str(display(narrator, c["value"], r)) for c in columns] for r in records]
    return head, rows, records, ui(narrator, str(listing["footer"]), count=len(records))


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
    rows = [
        [r["id"], r["name"], *(_cell(r.get(f, specs[f].get("default"))) for f in fields)] for r in records
    ]
    return head, rows


def _cell(value: Any) -> str:
    """A field's value as a pack writes it: lists joined, true and false in lower case."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return json_like(value)


def _field_footer(narrator: Narrator, section: str, records: list[dict[str, Any]]) -> str:
    """The pack's footer for the section if it has one (`ui.list.footer.<section>`), else none."""
    key = f"ui.list.footer.{section}"
    return ui(narrator, key, count=len(records)) if narrator.has(key) else ""


def _footer(narrator: Narrator, section: str, render: str, records: list[dict[str, Any]]) -> str:
    if render == "card":
        return ui(
            narrator,
            f"ui.list.footer.{section}",
            kinds=len(records),
            count=sum(r["count"] for r in records),
        )
    return ui(narrator, f"ui.list.footer.{section}", count=len(records))


def display(narrator: Narrator, spec: dict[str, Any], data: Any) -> Any:
    """A value shown of an entity's data, made as a `display_value` of the schema says."""
    value: Any = data
    if "present" in spec:
        value = [{"name": name, "value": data[name]} for name in spec["present"] if data.get(name)]
    elif "field" in spec:
        value = data.get(spec["field"]) if isinstance(data, dict) else None
        if value is None:
            return spec.get("default", "")
    if spec.get("size"):
        return len(value) if isinstance(value, list | dict | str) else 0
    if isinstance(value, list) and ("item" in spec or "sep" in spec):
        item = spec.get("item") or {}
        return str(spec.get("sep", ", ")).join(str(display(narrator, item, v)) for v in value)
    if "text" in spec:
        fields = value if isinstance(value, dict) else {}
        key = _fill_fields(str(spec["text"]), fields)
        fill = {name: display(narrator, sub, value) for name, sub in (spec.get("fill") or {}).items()}
        return ui(narrator, key, **fill)
    if "pattern" in spec:
        return _fill_fields(str(spec["pattern"]), value if isinstance(value, dict) else {})
    return value


# A field's name in braces: the only thing a pattern or a text key fills (no format spec, no
# attribute or index lookup: a stranger's pack could use those to read or blow up the output).
_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def _fill_fields(pattern: str, fields: dict[str, Any]) -> str:
    """A pattern with each `{field}` replaced by the field's value (empty if the record lacks it)."""
    return _FIELD.sub(lambda m: str(fields.get(m.group(1), "")), pattern)


def _shown(data: dict[str, Any], field: str) -> bool:
    """Whether a line `when` a field is shown: the entity has the field, and it is no empty list."""
    return data.get(field) not in (None, [], {}, "")


def _record(narrator: Narrator, entity: Entity) -> dict[str, Any]:
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


def _window(narrator: Narrator, window: str | None) -> str:
    return narrator.ui(f"ui.window.{window or 'anytime'}")


def _character_rows(
    narrator: Narrator, records: list[dict[str, Any]], declared: dict[str, Any]
) -> tuple[list[str], Rows]:
    head = _head(narrator, "id", "name", "rested", "exhausted", "when", "disadvantage")
    yes = narrator.ui("ui.yes")
    rows = [
        [
            r["id"],
            r["name"],
            str(r["rested"]),
            str(r["exhausted"]),
            _window(narrator, r["power"].get("window")),
            yes if r.get("traits") or r.get("triggers") else "",
        ]
        for r in records
    ]
    return head, rows


def _action_rows(
    narrator: Narrator, records: list[dict[str, Any]], declared: dict[str, Any]
) -> tuple[list[str], Rows]:
    head = _head(narrator, "id", "name", "count", "when", "symbols")
    rows = [
        [
            r["id"],
            r["name"],
            str(r["count"]),
            _window(narrator, r.get("window")),
            ", ".join(narrator.ui(f"ui.symbol.{s}") for s in r.get("symbols", [])),
        ]
        for r in records
    ]
    return head, rows


def _side_summary(narrator: Narrator, location: str, side: dict[str, Any]) -> str:
    label = _side_name(narrator, location, str(side["side"]))
    if side.get("state_of"):
        sides = "/".join(_side_name(narrator, location, s) for s in side["state_of"])
        label += " " + ui(narrator, "ui.side.state_of", sides=sides)
    return f"{label}: {_capacity(narrator, side)}"


def _side_name(narrator: Narrator, location: str, side: str) -> str:
    found = narrator.messages.get(f"location.{location}.{side}.name")
    return found if isinstance(found, str) else side


def _capacity(narrator: Narrator, side: dict[str, Any]) -> str:
    capacity = side.get("capacity")
    return str(capacity) if isinstance(capacity, int) else narrator.ui("ui.fact.no_limit")


def _location_rows(
    narrator: Narrator, records: list[dict[str, Any]], declared: dict[str, Any]
) -> tuple[list[str], Rows]:
    head = _head(narrator, "id", "name", "slot", "sides")
    rows = [
        [
            r["id"],
            r["name"],
            narrator.ui(f"ui.slot.{r['slot']}"),
            "; ".join(_side_summary(narrator, r["id"], s) for s in r["sides"]),
        ]
        for r in records
    ]
    return head, rows


Renderer = Callable[[Narrator, list[dict[str, Any]], dict[str, Any]], tuple[list[str], Rows]]
# The engine's ways of listing a kind of its own shape (a kind's `render`).
_RENDERERS: dict[str, Renderer] = {
    "character": _character_rows,
    "card": _action_rows,
    "location": _location_rows,
}


# -- show --------------------------------------------------------------------------------

Lines = list[str]


def show_entity(
    pack: Pack, entity_id: str, narrator: Narrator | None = None
) -> tuple[str, dict[str, Any]] | None:
    """The page `coh show` prints, and the matching JSON record, for one entity."""
    narrator = narrator or Narrator(pack)
    entity = pack.entity(entity_id)
    if entity is None:
        return None
    compiled = {c.slot.path: c for c in pack.effects if c.slot.doc is entity.doc}
    record = _record(narrator, entity)
    record["effects"] = {
        _label(entity, c, pack): _pretty(c)
        for path, c in compiled.items()
        if path[: len(entity.path)] == entity.path
    }
    declared = pack.kind_declarations().get(entity.kind, {})
    page = _Page(narrator, entity, compiled, declared)
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
    ):
        self.narrator, self.entity, self.compiled, self.declared = narrator, entity, compiled, declared
        self.prefix = f"{entity.kind}.{entity.id}."

    def text(self, key: str) -> str:
        full = self.prefix + key
        return self.narrator.text(full, {}) if self.narrator.has(full) else ""

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
        builder = {
            "character": self.character,
            "card": self.action,
            "location": self.location,
        }.get(str(self.declared.get("render")))
        return builder() if builder else self.declared_lines()

    def declared_lines(self) -> Lines:
        """The lines the kind's `show` declares, each filled from the entity's data; without
        them, each field the entity gives, and its effects."""
        data = self.entity.data
        if "show" not in self.declared:
            lines = self.field_lines(data, self.declared.get("fields"), (), "  ")
        else:
            lines = [
                "  " + str(display(self.narrator, line, data))
                for line in self.declared.get("show") or []
                if "when" not in line or _shown(data, str(line["when"]))
            ]
        return ["", *lines] if lines else []

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
                    f"{indent}{name}: {_cell(value) if not isinstance(value, dict) else json_like(value)}"
                )
        return lines

    def character(self) -> Lines:
        data = self.entity.data
        power = data["power"]
        lines = [
            "",
            "  " + self.ui("ui.show.value", rested=data["rested"], exhausted=data["exhausted"]),
            "",
            "  "
            + self.ui(
                "ui.show.power", window=_window(self.narrator, power.get("window")), text=self.text("power")
            ),
        ]
        for key in ("if", "cost", "effect"):
            lines.extend(self.effect(key, ("power", key), "    "))
        if data.get("traits") or data.get("triggers"):
            lines.extend(["", "  " + self.ui("ui.show.disadvantage", text=self.text("disadvantage"))])
            traits = ", ".join(f"{k}={json_like(v).lower()}" for k, v in (data.get("traits") or {}).items())
            if traits:
                lines.append("    " + self.ui("ui.show.traits", traits=traits))
            lines.extend(self.triggers(("triggers",), data.get("triggers"), "    "))
        return lines

    def action(self) -> Lines:
        data = self.entity.data
        head = self.ui(
            "ui.show.cards", count=data["count"], window=_window(self.narrator, data.get("window"))
        )
        if data.get("symbols"):
            names = ", ".join(self.narrator.ui(f"ui.symbol.{s}") for s in data["symbols"])
            head += " " + self.ui("ui.show.symbols", symbols=names)
        lines = ["", f"  {head}", "", f"  {self.text('text')}"]
        for key in ("if", "cost", "effect"):
            lines.extend(self.effect(key, (key,), "    "))
        return lines

    def location(self) -> Lines:
        lines = [
            "",
            "  " + self.ui("ui.show.slot", slot=self.narrator.ui(f"ui.slot.{self.entity.data['slot']}")),
        ]
        for index, side in enumerate(self.entity.data["sides"]):
            lines.extend(self.side(index, side))
        return lines

    def side(self, index: int, side: dict[str, Any]) -> Lines:
        name = side["side"]
        path: tuple[Any, ...] = ("sides", index)
        facts = _side_facts(self.narrator, self.entity.id, side, self.declared.get("side_facts") or [])
        lines = [
            "",
            "  " + self.ui("ui.show.side", name=self.text(f"{name}.name") or name, side=name, facts=facts),
        ]
        for key in ("effect", "special", "attack"):
            if self.text(f"{name}.{key}"):
                lines.append("    " + self.ui(f"ui.show.side.{key}", text=self.text(f"{name}.{key}")))
        for key in ("cost", "effect"):
            lines.extend(self.effect(f"activation {key}", (*path, "activation", key), "      "))
        lines.extend(self.effect("attack if", (*path, "attack_if"), "      "))
        lines.extend(self.triggers((*path, "triggers"), side.get("triggers"), "      "))
        return lines


def _side_facts(narrator: Narrator, location: str, side: dict[str, Any], shown: list[str]) -> str:
    """A side's capacity, then the fields its kind declares as facts (`side_facts`), in order."""
    capacity = side.get("capacity")
    facts = [
        ui(narrator, "ui.fact.capacity", count=capacity)
        if isinstance(capacity, int)
        else narrator.ui("ui.fact.no_limit")
    ]
    for field in shown:
        value = side.get(field)
        if value is True:
            facts.append(narrator.ui(f"ui.fact.{field}"))
        elif isinstance(value, list) and value:
            sides = "/".join(_side_name(narrator, location, str(s)) for s in value)
            facts.append(ui(narrator, f"ui.fact.{field}", sides=sides))
        elif isinstance(value, str) and narrator.has(f"ui.fact.{field}.{value}"):
            facts.append(narrator.ui(f"ui.fact.{field}.{value}"))
    return ", ".join(facts)


def json_like(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(json_like(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {json_like(v)}" for k, v in value.items()) + "}"
    return str(value)


def _label(entity: Entity, compiled: CompiledEffect, pack: Pack) -> str:
    tail = compiled.slot.path[len(entity.path) :]
    render = pack.kind_declarations().get(entity.kind, {}).get("render")
    if render == "location" and len(tail) >= 2 and tail[0] == "sides":
        side = entity.data["sides"][tail[1]]["side"]
        tail = (f"side {side}", *tail[2:])
    return " ".join(str(p) for p in tail) or "effect"


def _pretty(compiled: CompiledEffect) -> str:
    tree = compiled.tree
    return format_effect(tree) if isinstance(tree, ast.Block) else format_expr(tree)

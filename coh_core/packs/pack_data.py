"""The pack's data as effects read it: `pack_data`, `entity_data` and `pack_ids`.

The field of an entity has the type its kind declares (`_declared_fields`), and the declared
default where the entry leaves it out (`entries_with_defaults`). What no declaration types (the
sections' keys, a field typed `id`, a kind without `fields`) has the type of its value as it is
written: a number is `int`, `true`/`false` a `bool`, the id of one of the pack's entities the
type of that entity (`location`, `character`...), a list of one of those a list of it; other
values (mappings, text that names nothing, lists of mixed things) cannot be read by effects.
A field whose values are records (a location's `sides`, each `{side: A, capacity: 2, ...}`) is
read as records of a type named after the field (`location.sides`, a list of them for a list),
whose fields `entity_data` reads in turn (`entity_data(side, capacity)`), typed the same way.

Of a section, the columns of a table with one row per number of players (`per_player_count`
in `setup`) are read by their names: the value in the row for the number of seats at the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coh_core.packs.fields import RECORD, FieldContext, context_of, field_type
from coh_core.packs.model import SECTION_FIELDS, Pack
from coh_core.packs.yamlsrc import Path_, YamlDoc

# The sections effects may read (`params` are read with `param(name)`).
READABLE_SECTIONS = ("setup", "components")
# A table with one row per number of players: its columns are read by name.
PLAYER_TABLE = "per_player_count"
PLAYER_COLUMN = "players"
UNREADABLE = ""  # the type of a value that effects cannot read


def value_type(value: Any, refs: Mapping[str, str]) -> str:
    """The type of a value of the pack, or UNREADABLE."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return refs.get(value, UNREADABLE)
    if isinstance(value, list):
        inner = "any"
        for item in value:
            inner = _unify(inner, value_type(item, refs))
        return UNREADABLE if inner == UNREADABLE or inner.startswith("list[") else f"list[{inner}]"
    return UNREADABLE


def _unify(known: str, found: str) -> str:
    """One type for two values: the same, or `list[any]` (an empty list) with a list of anything."""
    if known == "any" or known == found:
        return found
    if found == "any":
        return known
    if known == "list[any]" and found.startswith("list["):
        return found
    if found == "list[any]" and known.startswith("list["):
        return known
    return UNREADABLE


def section_types(pack: Pack, refs: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Per readable section, the type of each of its keys (UNREADABLE for those effects cannot read);
    a section the pack lacks has no keys."""
    found: dict[str, dict[str, str]] = {}
    for name in READABLE_SECTIONS:
        section = pack.sections.get(name)
        if section is None:
            found[name] = {}
            continue
        data = section.data
        types = {
            str(key): _typed(section.doc, (*section.path, key), value, refs) for key, value in data.items()
        }
        types.update(_declared_ids(pack, name, types))
        rows = data.get(PLAYER_TABLE)
        if isinstance(rows, list):
            columns: dict[str, str] = {}
            for index, row in enumerate(rows):
                for key, value in row.items() if isinstance(row, dict) else ():
                    if key != PLAYER_COLUMN:
                        where = (*section.path, PLAYER_TABLE, index, key)
                        columns[str(key)] = _unify(
                            columns.get(str(key), "any"), _typed(section.doc, where, value, refs)
                        )
            types.update({key: kind for key, kind in columns.items() if key not in types})
        found[name] = types
    return found


def field_types(pack: Pack, refs: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Per type of entity (`location`, `character`...) and of record inside one (`location.sides`),
    the type of each field its entries have: as its kind declares it (`fields`), else as the
    values written say."""
    found: dict[str, dict[str, str]] = {}
    kinds = pack.kind_declarations()
    context = context_of(kinds, pack.section("types"))
    for kind, type_name in pack.ref_types().items():
        _record_fields(type_name, [(e.doc, e.path, e.data) for e in pack.entities_of(kind)], refs, found)
        fields = kinds.get(kind, {}).get("fields")
        if isinstance(fields, dict):
            _declared_fields(type_name, fields, context, found)
    return found


def _declared_fields(
    type_name: str, fields: Mapping[str, Any], context: FieldContext, found: dict[str, dict[str, str]]
) -> None:
    """The fields a kind (or a record field) declares, typed as effects read them, into `found`;
    a declared `id` keeps the type its values give it (the id of an entity of some kind)."""
    own = found.setdefault(type_name, {})
    for name, spec in fields.items():
        parsed = field_type(spec)
        if parsed is None or parsed.lists > 1 or parsed.value is not None:
            own.setdefault(str(name), UNREADABLE)
            continue
        if parsed.base == RECORD:
            record_type = f"{type_name}.{name}"
            own[str(name)] = f"list[{record_type}]" if parsed.lists else record_type
            inner = spec.get("fields")
            _declared_fields(record_type, inner if isinstance(inner, dict) else {}, context, found)
            continue
        read = _READ_AS.get(parsed.base) or (
            parsed.base if parsed.base in context.enumerations or parsed.base in context.references else None
        )
        if read is None:  # an `id`: as its values say
            own.setdefault(str(name), "any")
        else:
            own[str(name)] = f"list[{read}]" if parsed.lists and read != UNREADABLE else read


# How effects read a value of a declared field type (`coh_core.packs.fields`); an enumeration or a
# kind's ids as themselves, an `id` as the type of the entity it names.
_READ_AS = {
    "int": "int",
    "count": "int",
    "bool": "bool",
    "string": "string",
    "name": "string",
    "window": "window_name",
    "event": "event_name",
    "effect": UNREADABLE,
    "condition": UNREADABLE,
    "triggers": UNREADABLE,
    "trait_values": UNREADABLE,
}


Record = tuple[YamlDoc, Path_, dict[str, Any]]  # a record, and where it is written


def _record_fields(
    type_name: str, records: list[Record], refs: Mapping[str, str], found: dict[str, dict[str, str]]
) -> None:
    """The fields of records of one type, and of the records inside them, into `found`."""
    fields: dict[str, str] = {}
    inner: dict[str, list[Record]] = {}
    for doc, path, record in records:
        for key, value in record.items():
            at = (*path, key)
            kind = _typed(doc, at, value, refs)
            held = _records(value)
            if held is not None and kind != "any":
                record_type = f"{type_name}.{key}"
                kind = record_type if isinstance(value, dict) else f"list[{record_type}]"
                places = [at] if isinstance(value, dict) else [(*at, i) for i in range(len(held))]
                inner.setdefault(str(key), []).extend(
                    (doc, where, item) for where, item in zip(places, held, strict=True)
                )
            fields[str(key)] = _unify(fields.get(str(key), "any"), kind)
    found[type_name] = fields
    for key, nested in inner.items():
        _record_fields(f"{type_name}.{key}", nested, refs, found)


def _declared_ids(pack: Pack, section: str, types: Mapping[str, str]) -> dict[str, str]:
    """The keys the pack declares as an id of one of its kinds (`section_fields`: `start: {type:
    location}`) whose value names no entity: of that type all the same (`REF-UNDEF` reports the
    value; an effect reading it is not wrong)."""
    declared = pack.section(SECTION_FIELDS).get(section)
    kinds = set(pack.ref_types().values())
    return {
        str(key): str(spec["type"])
        for key, spec in (declared.items() if isinstance(declared, dict) else ())
        if types.get(str(key)) == UNREADABLE and isinstance(spec, dict) and spec.get("type") in kinds
    }


def _typed(doc: YamlDoc, path: Path_, value: Any, refs: Mapping[str, str]) -> str:
    """The type of a value, or `any` for one a YAML trap (a tag...) replaced, reported as such."""
    origin, at = doc.origin(path)
    if any(trapped[: len(at)] == at for trapped in origin.trapped):
        return "any"
    return value_type(value, refs)


def _records(value: Any) -> list[dict[str, Any]] | None:
    """A record, or a list of records, as a list of records; None for any other value."""
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return list(value)
    return None


def section_value(pack: Pack, section: str, key: str, players: int) -> Any:
    """The value `key` of a section (a column of its player table: the row for `players`), or KeyError."""
    data = pack.section(section)
    if key in data:
        return _copy(data[key])
    for row in data.get(PLAYER_TABLE) or ():
        if row.get(PLAYER_COLUMN) == players and key in row:
            return _copy(row[key])
    raise KeyError(key)


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def ids_of_type(pack: Pack) -> dict[str, list[str]]:
    """Per type of entity, the ids of the pack's entities of that type, sorted."""
    return {type_name: sorted(pack.entities.get(kind, {})) for kind, type_name in pack.ref_types().items()}


def entries_with_defaults(pack: Pack) -> dict[str, dict[str, Any]]:
    """Every entity's data by id, as `entity_data` reads it: with the declared defaults of the
    fields it leaves out (in the records inside it too). An entity without a field of no
    default still lacks it (`has_entity_data`)."""
    kinds = pack.kind_declarations()
    found: dict[str, dict[str, Any]] = {}
    for kind, by_id in pack.entities.items():
        fields = kinds.get(kind, {}).get("fields")
        for ident, entity in by_id.items():
            found[ident] = _filled(entity.data, fields) if isinstance(fields, dict) else entity.data
    return found


def _filled(data: dict[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
    """A record with the defaults of the declared fields it leaves out; the data itself when it
    leaves none out (most do: a copy only where one is needed)."""
    filled = data
    for name, spec in fields.items():
        if not isinstance(spec, dict):
            continue
        value = data.get(name, _ABSENT)
        if value is _ABSENT and "default" in spec:
            value = _copy(spec["default"])
        inner = spec.get("fields")
        if isinstance(inner, dict) and value is not _ABSENT:
            value = _filled_records(value, inner)
        if value is not _ABSENT and value is not data.get(name, _ABSENT):
            filled = dict(filled) if filled is data else filled
            filled[name] = value
    return filled


def _filled_records(value: Any, fields: Mapping[str, Any]) -> Any:
    if isinstance(value, dict):
        return _filled(value, fields)
    if isinstance(value, list):
        items = [_filled(item, fields) if isinstance(item, dict) else item for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


_ABSENT = object()

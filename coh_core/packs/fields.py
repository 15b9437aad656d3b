"""The fields a kind of entity declares (`kinds: <kind>: fields:`): their types, and the JSON
Schema each becomes in the pack's schema (coh_core.packs.pack_schema).

A field's `type` is written as the effect language writes types: a built-in field type
(`FIELD_TYPES`), an enumeration of the pack's `types`, the type of a kind's ids (a reference to
an entity of that kind), `record` (a mapping of named `fields`), `list[T]` of any of them, or
`map[K, T]`. The same declarations give the fields a pack adds to the shared sections
(`section_fields`). Declarations are read leniently here: whatever cannot be understood becomes
"anything" in the schema, and `field_problems` reports it (`KIND-FIELD`, `SECTION-FIELD`) where
it is written.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from coh_core import cache_dir
from coh_core.effects.checker import shown, suggest
from coh_core.effects.registry import CONTEXTS, VERB_CONTEXTS
from coh_core.packs.schema import shared_definitions

RECORD = "record"
ENTITY_ID = "id"  # every entity's own field, which no kind declares
_REF = "#/definitions/"

# The field types every pack has, with the schema of a value of each.
FIELD_TYPES: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"},
    "count": {"type": "integer", "minimum": 0},
    "bool": {"type": "boolean"},
    "string": {"type": "string"},
    "id": {"$ref": _REF + "id"},
    "name": {"$ref": _REF + "name"},
    "effect": {"$ref": _REF + "effect"},
    "condition": {"$ref": _REF + "condition"},
    "window": {"$ref": _REF + "window"},
    "event": {"$ref": _REF + "event"},
    "triggers": {"$ref": _REF + "triggers"},
    "trait_values": {"$ref": _REF + "trait_values"},
    RECORD: {"type": "object"},
}
_NUMBERS = {"int", "count"}
EFFECT_TYPES = ("effect", "condition")  # a field's text in the effect language
CHECKED_IN_A_CONTEXT = (*EFFECT_TYPES, "triggers")  # fields whose effects need a `context`
_LIST = re.compile(r"list\[(.*)\]")
_MAP = re.compile(r"map\[(.*)\]")
MAP = "map"
MAX_TYPE_NESTING = 16  # lists and maps inside each other
MAP_KEYS = ("id", "name", "string")  # besides enumerations and kinds' ids: what a key may be
# the types whose values are no plain word or number: not a map's values, not a listing's cell
NOT_PLAIN = frozenset({RECORD, *CHECKED_IN_A_CONTEXT, "trait_values"})


@dataclass(frozen=True)
class FieldType:
    """A parsed field type: its innermost type and how many lists it is inside; for a map
    (`map[location, name]`), the type of its keys and of its values."""

    base: str
    lists: int = 0
    key: str | None = None
    value: FieldType | None = None

    @property
    def written(self) -> str:
        inner = f"{MAP}[{self.key}, {self.value.written}]" if self.value is not None else self.base
        return "list[" * self.lists + inner + "]" * self.lists


@lru_cache(maxsize=4096)
def parse_field_type(text: str) -> FieldType | None:
    """`list[list[location]]` as (location, 2), `map[location, name]` as a map of names by
    location; None when the text is no type."""
    if text.count("[") > MAX_TYPE_NESTING:
        return None  # (a hostile pack's thousands of brackets would run the parser out of stack)
    lists = 0
    text = text.strip()
    while (found := _LIST.fullmatch(text)) is not None:
        text, lists = found.group(1).strip(), lists + 1
    if (found := _MAP.fullmatch(text)) is not None:
        key, comma, rest = found.group(1).partition(",")
        value = parse_field_type(rest) if comma else None
        if value is None or not re.fullmatch(r"[a-z][a-z0-9_]*", key.strip()):
            return None
        return FieldType(MAP, lists, key.strip(), value)
    return FieldType(text, lists) if re.fullmatch(r"[a-z][a-z0-9_]*", text) else None


def field_type(spec: Any) -> FieldType | None:
    """The parsed type of a field's declaration (None when it has no type that parses)."""
    written = spec.get("type") if isinstance(spec, dict) else None
    return parse_field_type(written) if isinstance(written, str) else None


@dataclass(frozen=True)
class FieldContext:
    """What a pack's field types may name besides the built-in ones."""

    enumerations: Mapping[str, list[str]]  # the pack's `types`, by name: their values
    references: Mapping[str, str]  # the type of a kind's ids: the kind
    contexts: tuple[str, ...] | None = ()  # the contexts the pack declares; None: not known (rejected)

    def known(self) -> list[str]:
        return [*FIELD_TYPES, *self.enumerations, *self.references]


def context_of(
    kinds: Mapping[str, Any], types: Mapping[str, Any], contexts: Mapping[str, Any] | None = None
) -> FieldContext:
    # (`contexts` None: the section is there but was rejected, so any name may be declared in it)
    """The field types a pack's `kinds` and `types` sections make, and the contexts its `contexts`
    section names (as written, not yet checked)."""
    enumerations: dict[str, list[str]] = {}
    for name, entry in types.items():
        values = entry.get("values") if isinstance(entry, dict) else None
        if isinstance(values, dict):
            enumerations[str(name)] = [str(v) for v in values]
    references = {
        str(entry["type"]): str(kind)
        for kind, entry in kinds.items()
        if isinstance(entry, dict) and isinstance(entry.get("type"), str)
    }
    declared = None if contexts is None else tuple(str(name) for name in contexts)
    return FieldContext(enumerations, references, declared)


# -- the schema of a field ----------------------------------------------------------------------


def entity_schema(kind: str, entry: Mapping[str, Any], context: FieldContext) -> dict[str, Any]:
    """The schema of one entity of a kind: its `id` and its declared fields, nothing else."""
    fields = entry.get("fields")
    record = record_schema(fields if isinstance(fields, dict) else {}, context)
    record["properties"] = {ENTITY_ID: {"description": f"The {kind}'s unique id.", "$ref": _REF + "id"}}
    record["properties"].update(_properties(fields if isinstance(fields, dict) else {}, context))
    record["required"] = [ENTITY_ID, *record.get("required", [])]
    if isinstance(entry.get("doc"), str):
        record["description"] = entry["doc"]
    return record


def _properties(fields: Mapping[str, Any], context: FieldContext) -> dict[str, Any]:
    return {
        str(name): field_schema(spec, context) if isinstance(spec, dict) else {}
        for name, spec in fields.items()
        if name != ENTITY_ID
    }


def record_schema(fields: Mapping[str, Any], context: FieldContext) -> dict[str, Any]:
    required = [str(n) for n, s in fields.items() if isinstance(s, dict) and s.get("required") is True]
    schema: dict[str, Any] = {"type": "object", "properties": _properties(fields, context)}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def field_schema(spec: Mapping[str, Any], context: FieldContext) -> dict[str, Any]:
    """The schema of one declared field ("anything" where the declaration is not understood)."""
    written = spec.get("type")
    parsed = parse_field_type(written) if isinstance(written, str) else None
    if parsed is not None and parsed.base == MAP:
        value = _map_schema(parsed, spec, context)
    else:
        value = _value_schema(parsed.base, spec, context) if parsed else {}
    for _ in range(parsed.lists if parsed else 0):
        value = {"type": "array", "items": value}
    if parsed and parsed.lists:
        value.update(_list_bounds(spec))  # the outermost list's
    also = spec.get("also")
    if isinstance(also, list) and also:
        value = {"anyOf": [value, {"enum": [w for w in also if isinstance(w, str)]}]}
    schema: dict[str, Any] = {}
    if isinstance(spec.get("doc"), str):
        schema["description"] = spec["doc"]
    schema.update(value)
    for key in ("default", "examples"):
        if key in spec and _plain(spec[key]):  # (a value that holds itself is left out)
            schema[key] = copy.deepcopy(spec[key])
    return schema


def _map_schema(parsed: FieldType, spec: Mapping[str, Any], context: FieldContext) -> dict[str, Any]:
    """A mapping of values by keys: keys as the key type writes them, values of the value type."""
    assert parsed.key is not None and parsed.value is not None
    keys = _value_schema(parsed.key, {}, context)
    values = _value_schema(parsed.value.base, spec, context) if parsed.value.base != MAP else {}
    if parsed.value.base == MAP:
        values = _map_schema(parsed.value, spec, context)
    for _ in range(parsed.value.lists):
        values = {"type": "array", "items": values}
    return {"type": "object", "propertyNames": keys, "additionalProperties": values}


def _value_schema(base: str, spec: Mapping[str, Any], context: FieldContext) -> dict[str, Any]:
    if base == RECORD:
        fields = spec.get("fields")
        return record_schema(fields if isinstance(fields, dict) else {}, context)
    if base in FIELD_TYPES:
        schema = dict(FIELD_TYPES[base])
        if base in _NUMBERS:
            schema.update(_number_bounds(spec, schema.get("minimum")))
        values = spec.get("values")
        if base == "string" and isinstance(values, list):
            schema["enum"] = [v for v in values if isinstance(v, str)]
        return schema
    if base in context.references:  # (an enumeration named like a kind's type is DECL-DUPLICATE)
        return {"$ref": _REF + "id"}
    if base in context.enumerations:
        return {"type": "string", "enum": list(context.enumerations[base])}
    return {}


def _number_bounds(spec: Mapping[str, Any], floor: Any) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    low, high = spec.get("min"), spec.get("max")
    if isinstance(low, int) and not isinstance(low, bool):
        bounds["minimum"] = max(low, floor) if isinstance(floor, int) else low
    if isinstance(high, int) and not isinstance(high, bool):
        bounds["maximum"] = high
    return bounds


def _list_bounds(spec: Mapping[str, Any]) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    least = spec.get("min_items")
    if isinstance(least, int) and not isinstance(least, bool):
        bounds["minItems"] = least
    if spec.get("unique") is True:
        bounds["uniqueItems"] = True
    return bounds


# -- the values an entity holds ----------------------------------------------------------------


Held = tuple[tuple[str | int, ...], str, Any, bool]  # path, base type, value, whether a map's key


def field_values(data: Mapping[str, Any], fields: Any) -> Iterator[Held]:
    """Every value an entity (or a record) holds in its declared fields, inside lists, maps and
    records: its path below the entity, its field's base type, the value, and whether it is a
    map's key (then the path is the key's). Values of fields that are not declared, or not of the
    declared shape (the schema reports them), are left out."""
    if not isinstance(fields, dict):
        return
    for name, spec in fields.items():
        parsed = field_type(spec)
        if parsed is not None and name in data:
            yield from _held((str(name),), data[name], parsed, spec)


def held_by(path: tuple[str | int, ...], value: Any, spec: Mapping[str, Any]) -> Iterator[Held]:
    """Every value one declared field holds (`value`, at `path`), as `field_values` gives them."""
    parsed = field_type(spec)
    if parsed is not None:
        yield from _held(path, value, parsed, spec)


def _held(
    path: tuple[str | int, ...], value: Any, parsed: FieldType, spec: Mapping[str, Any]
) -> Iterator[Held]:
    if parsed.lists:
        inner = FieldType(parsed.base, parsed.lists - 1, parsed.key, parsed.value)
        for index, item in enumerate(value if isinstance(value, list) else []):
            yield from _held((*path, index), item, inner, spec)
    elif parsed.value is not None:
        for key, item in value.items() if isinstance(value, dict) else ():
            yield (*path, key), str(parsed.key), key, True
            yield from _held((*path, key), item, parsed.value, spec)
    elif parsed.base == RECORD:
        if isinstance(value, dict):
            for inner_path, base, held, is_key in field_values(value, spec.get("fields")):
                yield (*path, *inner_path), base, held, is_key
    else:
        yield path, parsed.base, value, False


def is_set(value: Any) -> bool:
    """Whether a field's value is set: given, and not false nor an empty list, mapping or text."""
    return value is not None and value is not False and value not in ([], {}, "")


def naming_field(spec: Any) -> str | None:
    """Of a field that holds a list of records, the first field of type `id` or `name` its records
    declare: what names each item (`side` of a location's `sides`)."""
    parsed = field_type(spec)
    if parsed is None or parsed.base != RECORD or parsed.lists != 1:
        return None
    inner = spec.get("fields")
    for name, field in inner.items() if isinstance(inner, Mapping) else ():
        found = field_type(field)
        if found is not None and found.lists == 0 and found.base in ("id", "name"):
            return str(name)
    return None


def field_texts(data: Mapping[str, Any], fields: Any) -> Iterator[str]:
    """The texts an entity needs by its fields' `text` (keys below `<kind>.<id>.`): for each field
    it sets that declares `text: true`, the field's name; `text: <name>`, that name (several fields
    may need one text); the texts of a record field's fields alike, and those of each record of a
    list of records below its name (`A.attack`: `<item>.<text>`, the item named by its naming
    field). Each text once, in the order first needed."""
    yield from dict.fromkeys(_field_texts(data, fields, ""))


def _field_texts(data: Mapping[str, Any], fields: Any, prefix: str) -> Iterator[str]:
    for name, spec in fields.items() if isinstance(fields, Mapping) else ():
        if not isinstance(spec, Mapping):
            continue
        value, text = data.get(name), spec.get("text")
        if (text is True or isinstance(text, str)) and is_set(value):
            yield prefix + (str(name) if text is True else text)
        parsed = field_type(spec)
        if parsed is None or parsed.base != RECORD:
            continue
        if parsed.lists == 0 and isinstance(value, Mapping):
            yield from _field_texts(value, spec.get("fields"), prefix)
        named = naming_field(spec)
        for item in value if named is not None and isinstance(value, list) else ():
            if isinstance(item, Mapping) and isinstance(item.get(named), str):
                yield from _field_texts(item, spec.get("fields"), f"{prefix}{item[named]}.")


# -- the checks of a declaration ---------------------------------------------------------------


@dataclass(frozen=True)
class FieldProblem:
    """Something wrong with one field's declaration: the path below the field, whether it is
    the key, and what is wrong."""

    path: tuple[str, ...]
    message: str
    key: bool = False


def field_problems(spec: Mapping[str, Any], context: FieldContext) -> Iterator[FieldProblem]:
    """What is wrong with one field's declaration (its shape was checked by the schema)."""
    written = spec.get("type")
    if not isinstance(written, str):
        return
    if written.count("[") > MAX_TYPE_NESTING:
        said = f"`{shown(written)}` nests lists and maps more than {MAX_TYPE_NESTING} deep"
        yield FieldProblem(("type",), said)
        return
    parsed = parse_field_type(written)
    unknown = _unknown_part(parsed, context) if parsed is not None else written
    if parsed is None or unknown is not None:
        yield FieldProblem(
            ("type",),
            f"`{shown(written)}` is no field type; a field type is one of {', '.join(FIELD_TYPES)}, an"
            f" enumeration of the pack's `types`, the type of a kind's ids, `list[T]` or `map[K, T]`"
            f" (K: {', '.join(MAP_KEYS)}, an enumeration or a kind's ids)"
            + suggest(str(unknown), context.known()),
        )
        return
    yield from _misplaced(spec, parsed)
    yield from _context_problems(spec, parsed, context.contexts)
    low, high = spec.get("min"), spec.get("max")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        yield FieldProblem(("min",), f"`min` {spec['min']} is above `max` {spec['max']}")
    if "default" in spec and not _fits(spec["default"], spec, context):
        yield FieldProblem(("default",), f"the default {spec['default']!r} is not a value of the field")
    fields = spec.get("fields")
    if parsed.base == RECORD and isinstance(fields, dict):
        for name, inner in fields.items():
            if isinstance(inner, dict):
                for problem in field_problems(inner, context):
                    yield FieldProblem(("fields", str(name), *problem.path), problem.message, problem.key)


def _unknown_part(parsed: FieldType, context: FieldContext) -> str | None:
    """The name in a parsed type that is no type (or no type a map's keys can have), if any."""
    if parsed.value is None:
        return None if parsed.base in context.known() else parsed.base
    keys = (*MAP_KEYS, *context.enumerations, *context.references)
    return parsed.key if parsed.key not in keys else _unknown_part(parsed.value, context)


def _innermost(parsed: FieldType) -> FieldType:
    """A map's values' type, inside maps of maps; else the type itself."""
    return _innermost(parsed.value) if parsed.value is not None else parsed


def _misplaced(spec: Mapping[str, Any], written: FieldType) -> Iterator[FieldProblem]:
    """Keys that say nothing for the field's type (for a map: its values' type, but its lists)."""
    parsed = FieldType(_innermost(written).base, written.lists)
    fits = {
        "min": parsed.base in _NUMBERS,
        "max": parsed.base in _NUMBERS,
        "values": parsed.base == "string",
        "fields": parsed.base == RECORD,
        "min_items": parsed.lists > 0,
        "unique": parsed.lists > 0,
    }
    for key, allowed in fits.items():
        if key in spec and not allowed:
            said = f"`{key}` says nothing for a field of type `{written.written}`"
            yield FieldProblem((key,), said, key=True)
    if written.value is not None and parsed.base in NOT_PLAIN:
        said = f"a map holds plain values, not `{parsed.base}`: use a list of records with a key field"
        yield FieldProblem(("type",), said)
    elif parsed.base == RECORD and "fields" not in spec:
        yield FieldProblem(("type",), "a `record` field needs its `fields`")


def _plain(value: Any) -> bool:
    """Whether JSON can write the value (YAML aliases can make one that holds itself)."""
    try:
        json.dumps(value, default=str)
    except (TypeError, ValueError):
        return False
    return True


def _context_problems(
    spec: Mapping[str, Any], parsed: FieldType, declared: tuple[str, ...] | None
) -> Iterator[FieldProblem]:
    """A field of effects names the context they are checked in: one the pack declares, or one of
    the engine's."""
    context = spec.get("context")
    if parsed.base not in CHECKED_IN_A_CONTEXT:
        if context is not None:
            said = f"`context` says nothing for a field of type `{parsed.written}`"
            yield FieldProblem(("context",), said, key=True)
        return
    contexts = entity_contexts(declared or ())
    if context is None:
        yield FieldProblem(
            ("type",),
            f"a field of type `{parsed.written}` needs the `context` its effects are checked in: one of"
            f" {', '.join(contexts)}",
        )
    elif isinstance(context, str) and context not in contexts and declared is not None:
        yield FieldProblem(
            ("context",), f"no context `{context}`; one of {', '.join(contexts)}" + suggest(context, contexts)
        )


def entity_contexts(declared: Iterable[str] = ()) -> list[str]:
    """The contexts an entity's effects may be checked in: those the pack declares, and the
    engine's roles and own contexts but a verb's."""
    return list(dict.fromkeys([*declared, *(name for name in CONTEXTS if name not in VERB_CONTEXTS)]))


def _fits(value: Any, spec: Mapping[str, Any], context: FieldContext) -> bool:
    """Whether the value is one of the field's, as the pack's schema judges it."""
    field = field_schema(spec, context)
    field.pop("default", None)
    if not _plain(value):
        return _judged(field, value)
    # as Python writes them, where 1, 1.0, True and "1" differ
    written = repr((json.dumps(field, sort_keys=True, default=str), value))
    found = _FITS.get(written)
    if found is None:  # each overlay of a validation run repeats the base pack's declarations
        if len(_FITS) > 4096:
            _FITS.clear()
        found = _FITS[written] = _known_or_judged(written, field, value)
    return found


_FITS: dict[str, bool] = {}  # the fits judged in this process


def _known_or_judged(written: str, field: dict[str, Any], value: Any) -> bool:
    """A fit found before (the cache) is not judged again: a validation whose every file is known
    valid never imports jsonschema."""
    known = f"field-fits/{hashlib.sha256((written + _judge()).encode()).hexdigest()}"
    if cache_dir.enabled() and cache_dir.has(known):
        return True
    fits = _judged(field, value)
    if fits and cache_dir.enabled():
        cache_dir.add(known)
    return fits


def _judged(field: dict[str, Any], value: Any) -> bool:
    from jsonschema import Draft7Validator

    return bool(Draft7Validator({**field, "definitions": shared_definitions()}).is_valid(value))


@cache
def _judge() -> str:
    """What else decides whether a value fits: the shared definitions and the jsonschema installed."""
    shared = json.dumps(shared_definitions(), sort_keys=True)
    return hashlib.sha256(shared.encode()).hexdigest() + cache_dir.library_stamp("jsonschema")

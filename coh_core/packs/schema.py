"""JSON Schema validation of content files, with errors mapped to YAML positions."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from coh_core import cache_dir
from coh_core.effects.checker import suggest
from coh_core.errors import Problem
from coh_core.packs.model import name_meant
from coh_core.packs.yamlsrc import Path_, YamlDoc
from coh_core.resources import schema_path

# jsonschema is imported when a document is checked for the first time: a `coh validate` whose
# every file is known valid (the cache below) never pays for it.
if TYPE_CHECKING:
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import ValidationError

CONTENT_SCHEMA = "content.schema.json"  # what every pack's content schema shares

_TYPE_NAMES = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "nothing",
}


def _unique_items(checker: Any, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """`uniqueItems` in linear time: jsonschema compares items that cannot be sorted (mappings,
    mixed types) pair by pair, which a hostile file with a long list turns into minutes."""
    from jsonschema.exceptions import ValidationError

    if not (unique and checker.is_type(instance, "array")):
        return
    seen: set[Any] = set()
    for index, item in enumerate(instance):
        key = _canonical(item)
        if key in seen:
            yield ValidationError("has non-unique elements", path=[index])  # located at the repeat
            return
        seen.add(key)


def _canonical(value: Any) -> Any:
    """A hashable value equal for JSON-equal values (1 == 1.0, but true != 1)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, int | float):
        return ("number", value)  # 1 and 1.0 hash and compare equal
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    return ("other", repr(value))


def _written_as_integer(checker: object, instance: object) -> bool:
    """An integer as JSON writes it: draft-07 also counts `1.0`, which a Python reader gets as a float."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def _validator_classes() -> tuple[type[Draft7Validator], type[Draft7Validator]]:
    """Draft 7 as published with uniqueItems checked in linear time; and the same for JSON read
    from strangers (game records), where `1.0` must not pass for the integer 1."""
    from jsonschema import Draft7Validator, validators

    # (`extend` is untyped in types-jsonschema; it returns a Draft7Validator subclass.)
    bounded: type[Draft7Validator] = validators.extend(  # type: ignore[no-untyped-call]
        Draft7Validator, {"uniqueItems": _unique_items}
    )
    strict: type[Draft7Validator] = validators.extend(  # type: ignore[no-untyped-call]
        bounded, type_checker=Draft7Validator.TYPE_CHECKER.redefine("integer", _written_as_integer)
    )
    return bounded, strict


@dataclass(frozen=True)
class Schema:
    """A schema made for one pack (coh_core.packs.pack_schema): its name, and a digest of all it
    is made from (compared and cached by); its value is made when first asked for, so that a
    validation whose every file is known valid never makes it."""

    name: str
    stamp: str
    make: Callable[[], dict[str, Any]] = field(compare=False, repr=False)

    @cached_property
    def data(self) -> dict[str, Any]:
        return self.make()

    def written(self) -> str:
        """The schema as a file holds it: indented, one key a line."""
        return json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"


@cache
def shipped_schema(name: str) -> dict[str, Any]:
    """The shipped schema `name`, read once."""
    loaded: dict[str, Any] = json.loads(schema_path(name).read_text(encoding="utf-8"))
    return loaded


def shared_definitions() -> dict[str, Any]:
    """The definitions every pack's content schema shares (ids, effects, triggers...)."""
    definitions: dict[str, Any] = shipped_schema(CONTENT_SCHEMA)["definitions"]
    return definitions


@cache
def validator(name: str, strict_integers: bool = False) -> Draft7Validator:
    """The shipped schema `name`, loaded once; `strict_integers` refuses floats such as 1.0 as integers."""
    bounded, strict = _validator_classes()
    schema = shipped_schema(name)
    return strict(schema) if strict_integers else bounded(schema)


@lru_cache(maxsize=16)
def _made_validator(schema: Schema) -> Draft7Validator:
    bounded, _ = _validator_classes()
    return bounded(schema.data)


def validate_document(doc: YamlDoc, schema: str | Schema) -> list[Problem]:
    """Every schema violation of a document, located at the offending key or value; `schema` is
    a shipped schema's name or a pack's own.

    Data found valid before (the same data, schema and validating code) is not checked again:
    see `_known_valid`.
    """
    known = _known_valid(doc.data, schema)
    if known is not None and cache_dir.has(known):
        return []
    problems = []
    errors = 0
    checking = validator(schema) if isinstance(schema, str) else _made_validator(schema)
    for error in checking.iter_errors(doc.data):
        errors += 1
        found = list(_to_problems(doc, error))
        if found:
            for path, entry in _marked(error):
                doc.mark_invalid(path, entry)
            problems.extend(found)
    if known is not None and not errors:  # not when an error was only left unsaid (a YAML trap)
        cache_dir.add(known)
    return sorted(problems, key=lambda p: (p.location.line, p.location.col, p.code))


# Schema keywords under which a value is named by the pack itself (`counters: {vp: ...}`), not by
# the schema; and those under which it is an item of a list (it has a position, not a name).
_NAMED = ("patternProperties", "additionalProperties")
_LISTED = ("items", "additionalItems")
_NAMING = ("properties", "dependencies")  # keywords followed by a name of the schema's, not a keyword


def _marked(error: ValidationError) -> list[tuple[Path_, Path_ | None]]:
    """Where a schema problem makes the data invalid, and the named entry each place lies in.

    In a mapping whose keys the pack chooses (`types`, `messages: log`), a key that is not a name
    (`Duration:`) is an entry of its own, left out alone; elsewhere, the value the problem is at.
    """
    at = tuple(error.absolute_path)
    reached, entry = _reach(error)
    schema = error.schema if isinstance(error.schema, dict) else {}
    names_keys = error.validator == "additionalProperties" and "patternProperties" in schema
    if reached == "fixed" and at and names_keys:
        patterns = list(schema["patternProperties"])
        instance = error.instance if isinstance(error.instance, dict) else {}
        return [((*at, key), (*at, key)) for key in instance if not _matches(key, patterns)]
    return [(at, entry if reached == "named" else None)]


def _reach(error: ValidationError) -> tuple[str, Path_]:
    """How the schema reaches the value a problem is at: through a value the pack names itself
    (`named`, and that entry: a counter, a message, an enumeration...), through an item of a list
    (`listed`), or through keys the schema names only (`fixed`)."""
    at = tuple(error.absolute_path)
    words = list(error.absolute_schema_path)[:-1]  # the last is the keyword that failed
    depth, index = 0, 0
    while index < len(words) and depth < len(at):
        word = words[index]
        if word in _NAMED:
            return ("named", at[: depth + 1]) if depth > 0 else ("listed", ())
        if word in _LISTED:
            return "listed", ()
        if word == "properties":
            depth += 1
        index += 2 if word in _NAMING else 1
    return ("fixed", at) if depth == len(at) else ("listed", ())


def named_entry(error: ValidationError) -> Path_ | None:
    """The entry a schema problem lies in: the first value below a section that the pack names
    itself (a counter, a message, an enumeration...), when every key above it is one the schema
    names. None when the problem is in no such entry (at a section's own key, in a list).

    Such an entry can be left out alone: what the rest of its section declares is still read.
    """
    reached, entry = _reach(error)
    return entry if reached == "named" else None


def _known_valid(data: Any, schema: str | Schema) -> str | None:
    """The cache entry that says `data` is valid against the schema: named by a digest of all its
    validity depends on (the data as Python writes it, where 1, 1.0, True and "1" all differ; the
    schema; the code that validates). None when there is no cache, for self-containing data, or
    for a schema that has no stamp (made of declarations that contain themselves)."""
    if not cache_dir.enabled() or (isinstance(schema, Schema) and not schema.stamp):
        return None
    try:  # json refuses a value that contains itself, which repr would write ambiguously
        json.dumps(data, default=str)
    except (TypeError, ValueError):
        return None
    written = repr(data)
    digest = hashlib.sha256()
    digest.update(_validating(schema) if isinstance(schema, str) else _validating_made(schema))
    digest.update(hashlib.sha256(written.encode()).digest())
    return f"schema-valid/{digest.hexdigest()}"


@cache
def _validating(schema_name: str) -> bytes:
    """A digest of what else decides whether data is valid: the schema, this module's source, and
    the installed jsonschema (its files' size and time: another version changes them)."""
    return _validating_bytes(schema_path(schema_name).read_bytes())


@lru_cache(maxsize=16)
def _validating_made(schema: Schema) -> bytes:
    return _validating_bytes(schema.stamp.encode())


def _validating_bytes(schema: bytes) -> bytes:
    from pathlib import Path

    parts = (schema, Path(__file__).read_bytes())
    stamp = cache_dir.library_stamp("jsonschema").encode()
    return hashlib.sha256(b"".join(hashlib.sha256(part).digest() for part in (*parts, stamp))).digest()


def _to_problems(doc: YamlDoc, error: ValidationError) -> Iterator[Problem]:
    if tuple(error.absolute_path) in doc.trapped:
        return  # already reported as a YAML 1.1 trap
    if error.validator == "additionalProperties":
        yield from _unknown_keys(doc, error, tuple(error.absolute_path))
    else:
        yield _to_problem(doc, error)


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "nothing" if value is None else type(value).__name__


def _wanted(schema_type: Any) -> str:
    types = schema_type if isinstance(schema_type, list) else [schema_type]
    return " or ".join(_TYPE_NAMES.get(t, str(t)) for t in types)


def _field(path: tuple[Any, ...]) -> str:
    named = [str(p) for p in path if isinstance(p, str)]
    return f"`{named[-1]}`" if named else "the document"


def _owner(path: tuple[Any, ...], instance: Any) -> str:
    """Name an object by its id when it has one, else by its key."""
    if isinstance(instance, dict) and isinstance(instance.get("id"), str):
        return f"`{instance['id']}`"
    return _field(path)


def _shown(value: Any) -> str:
    return "" if value is None else f" {json.dumps(value)}"


def _to_problem(doc: YamlDoc, error: ValidationError) -> Problem:
    path = tuple(error.absolute_path)
    keyword = error.validator
    if keyword == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        return Problem(
            "SCHEMA-REQUIRED",
            f"missing required key `{missing}` in {_owner(path, error.instance)}",
            doc.location(path),
        )
    if keyword == "type":
        return Problem(
            "SCHEMA-TYPE",
            f"{_field(path)} must be {_wanted(error.validator_value)}, "
            f"got {_type_name(error.instance)}{_shown(error.instance)}",
            doc.location(path),
        )
    if keyword == "enum":
        options = [str(o) for o in error.validator_value] if isinstance(error.validator_value, list) else []
        return Problem(
            "SCHEMA-ENUM",
            f"{_field(path)} is {json.dumps(error.instance)}; expected one of {', '.join(options)}"
            + suggest(str(error.instance), options),
            doc.location(path),
        )
    if keyword in {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "minLength",
        "minProperties",
    }:
        return Problem("SCHEMA-RANGE", f"{_field(path)}: {error.message}", doc.location(path))
    if keyword == "pattern":
        return Problem(
            "SCHEMA-PATTERN",
            f"{_field(path)}: {json.dumps(error.instance)} is not a valid "
            + (
                _head_hint(str(error.instance), str(error.validator_value))
                or f"name (pattern {error.validator_value})"
            ),
            doc.location(path),
        )
    if keyword == "uniqueItems":
        item = error.instance[path[-1]] if path and isinstance(error.instance, list) else None  # type: ignore[index]
        return Problem(
            "SCHEMA-UNIQUE", f"{_field(path[:-1])} lists {_shown_item(item)} twice", doc.location(path)
        )
    return Problem("SCHEMA-INVALID", f"{_field(path)}: {_short(error)}", doc.location(path))


def _head_hint(value: str, pattern: str) -> str:
    """For a pattern that starts with a choice of words (a patch's target: a kind or a section),
    the words and the closest when the value starts with another; else ''."""
    words = re.match(r"\^\(([a-z_|]+)\)", pattern)
    head = re.split(r"[^A-Za-z0-9_]", value, maxsplit=1)[0]
    if words is None or head in words.group(1).split("|"):
        return ""
    choices = words.group(1).split("|")
    return f"name: it starts with one of {', '.join(choices)}" + suggest(head, choices)


def _shown_item(item: Any) -> str:
    text = json.dumps(item, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:60] + "..."


def _short(error: ValidationError) -> str:
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
    if error.validator in {"oneOf", "anyOf"} and description:
        return f"{json.dumps(error.instance)} does not fit: {description}"
    return error.message


def _unknown_keys(doc: YamlDoc, error: ValidationError, path: tuple[Any, ...]) -> Iterator[Problem]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    allowed = list(schema.get("properties", {}))
    patterns = list(schema.get("patternProperties", {}))
    instance = error.instance if isinstance(error.instance, dict) else {}
    unknown = [k for k in instance if k not in allowed and not _matches(k, patterns)]
    for key in (k for k in unknown if (*path, k) not in doc.trapped):
        if allowed:
            hint = suggest(key, allowed) or f"; allowed: {', '.join(allowed)}"
        else:
            hint = f"; keys here must match {' or '.join(patterns)}" if patterns else ""
            meant = name_meant(str(key))
            if patterns and meant != key and _matches(meant, patterns):
                hint += f" (`{meant}`?)"
        yield Problem(
            "SCHEMA-UNKNOWN-KEY",
            f"unknown key `{key}`{hint}",
            doc.location((*path, key), key=True),
        )


def _matches(key: Any, patterns: list[str]) -> bool:
    """Whether a key is allowed by one of the `patternProperties` (its siblings are not unknown)."""
    return isinstance(key, str) and any(re.search(pattern, key) for pattern in patterns)

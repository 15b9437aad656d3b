"""A pack's own JSON Schema for its content files: the sections every pack shares
(`schemas/content.schema.json`), and one section for each kind the pack declares, whose entities
hold exactly the kind's declared fields (coh_core.packs.fields).

The loader validates a pack's files against it; `coh schema` writes it for editors.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from typing import Any

from coh_core.packs.fields import FieldContext, context_of, entity_schema, record_schema
from coh_core.packs.model import ENGINE_SECTIONS, KINDS_SECTION, SECTION_FIELDS, SINGLETON_SECTIONS
from coh_core.packs.pack_data import PLAYER_TABLE
from coh_core.packs.schema import CONTENT_SCHEMA, Schema, shipped_schema
from coh_core.packs.yamlsrc import YamlDoc
from coh_core.resources import schema_path

TYPES_SECTION = "types"
PATCHES = "patches"  # an overlay's changes (coh_core.packs.loader.PATCHES)
_DECLARING = (KINDS_SECTION, TYPES_SECTION, SECTION_FIELDS, "events", "windows")


def schema_of(docs: Iterable[YamlDoc], pack_id: str, open_sections: bool = False) -> Schema:
    """The content schema of the pack whose files are `docs` (its kinds and types as written).
    `open_sections`: the pack's kinds are declared by a pack below it (an overlay read alone),
    so any list of entities is let through, to be checked once the overlay is applied."""
    # Made once per declarations: each overlay of a validation run is composed on the same base.
    declared = _declared(docs)
    if open_sections and not declared:
        pack_id = "an overlay"  # one schema for every overlay read alone, that declares nothing
    try:
        written = json.dumps(declared, default=str)  # in the order written: it is kept
    except ValueError:  # declarations that hold themselves (YAML aliases): no stamp, never cached
        return Schema(f"{pack_id} content", "", lambda: pack_schema(declared, pack_id, open_sections))
    return _made(written, pack_id, open_sections)


@lru_cache(maxsize=32)
def _made(declared: str, pack_id: str, open_sections: bool) -> Schema:
    """The schema of these declarations, named by a digest of them and of what makes a schema of
    them (the shared schema, this module and the field language's)."""
    made_from = f"{pack_id}\0{open_sections}\0{declared}\0{_maker()}"
    stamp = hashlib.sha256(made_from.encode()).hexdigest()
    return Schema(
        f"{pack_id} content", stamp, lambda: pack_schema(json.loads(declared), pack_id, open_sections)
    )


@cache
def _maker() -> str:
    from pathlib import Path

    from coh_core.packs import fields

    parts = (
        schema_path(CONTENT_SCHEMA).read_bytes(),
        Path(__file__).read_bytes(),
        Path(fields.__file__).read_bytes(),
    )
    return hashlib.sha256(b"".join(hashlib.sha256(part).digest() for part in parts)).hexdigest()


def _declared(docs: Iterable[YamlDoc]) -> dict[str, dict[str, Any]]:
    """The first of each declaring section in the files (a second is SECTION-DUPLICATE)."""
    found: dict[str, dict[str, Any]] = {}
    for doc in docs:
        if not isinstance(doc.data, dict):
            continue
        for section in _DECLARING:
            value = doc.data.get(section)
            if isinstance(value, dict):
                found.setdefault(section, value)
    return found


def pack_schema(
    declared: Mapping[str, Mapping[str, Any]], pack_id: str, open_sections: bool = False
) -> dict[str, Any]:
    """The schema as a JSON value: the shared schema with a section for each kind the pack
    declares, and the names of its events and windows offered as examples (an editor's
    completions: an overlay may declare more, so they are not the only values)."""
    kinds, types = declared.get(KINDS_SECTION, {}), declared.get(TYPES_SECTION, {})
    shared = shipped_schema(CONTENT_SCHEMA)
    schema: dict[str, Any] = {
        "$schema": shared["$schema"],
        "$id": f"https://coh.invalid/packs/{pack_id}/schema.json",
        "title": f"coh content file of the {pack_id} pack",
        "description": (
            "A content file of the pack, or of an overlay on it: the sections every pack shares"
            " and one list for each kind of entity the pack declares (its `kinds`). Made by"
            " `coh schema` from the pack's declarations; edit those, not this file."
        ),
    }
    # shallow copies: the shared schema is read, never changed, and the result is written out
    schema.update({k: v for k, v in shared.items() if k not in schema})
    properties: dict[str, Any] = dict(shared["properties"])
    schema["properties"] = properties
    schema["definitions"] = definitions = dict(shared["definitions"])
    context = context_of(kinds, types)
    for kind, entry in kinds.items():
        section = entry.get("section") if isinstance(entry, dict) else None
        if not isinstance(section, str) or section in properties or section in _RESERVED:
            continue  # a section of its own, or a second claim: KIND-SECTION
        described = entry.get("doc")
        said = f": {described}" if isinstance(described, str) else "."
        properties[section] = {
            "description": f"The entities of kind `{kind}`{said}",
            "type": "array",
            "items": entity_schema(str(kind), entry, context),
        }
    _add_section_fields(definitions, declared.get(SECTION_FIELDS, {}), context)
    for section, definition in (("events", "event"), ("windows", "window")):
        names = [str(name) for name in declared.get(section, {})]
        if names:
            definitions[definition] = {**definitions[definition], "examples": names}
    if open_sections or any(_sourceless(entry) for entry in kinds.values()):
        # a kind that names no list of its own (its `section` misspelt): any list may be its
        # entities, not reported as a section of no kind; the kind is, where it is declared
        schema["additionalProperties"] = {"type": "array"}
    return schema


def _sourceless(entry: Any) -> bool:
    """Whether a kind's declaration names neither the section of its entities nor the list of
    `components` that names them."""
    return isinstance(entry, dict) and not any(isinstance(entry.get(k), str) for k in ("section", "listed"))


_RESERVED = {*SINGLETON_SECTIONS, *ENGINE_SECTIONS, PATCHES}


def shared_fields() -> dict[str, tuple[str, ...]]:
    """The fields every pack's `setup`, `components` and player table have of their own."""
    definitions = shipped_schema(CONTENT_SCHEMA)["definitions"]
    table = definitions["setup"]["properties"][PLAYER_TABLE]["items"]
    return {
        "setup": tuple(definitions["setup"]["properties"]),
        "components": tuple(definitions["components"]["properties"]),
        PLAYER_TABLE: tuple(table["properties"]),
    }


def _add_section_fields(
    definitions: dict[str, Any], declared: Mapping[str, Any], context: FieldContext
) -> None:
    """The fields the pack adds to `setup` and `components`, and the columns of the player table
    (a field every pack has keeps its own schema: SECTION-FIELD)."""
    for section in ("setup", "components"):
        fields = declared.get(section)
        if isinstance(fields, dict):
            definitions[section] = _with_fields(definitions[section], fields, context)
    columns = declared.get(PLAYER_TABLE)
    if isinstance(columns, dict):
        setup = dict(definitions["setup"])
        properties = dict(setup["properties"])
        table = dict(properties[PLAYER_TABLE])
        table["items"] = _with_fields(table["items"], columns, context)
        properties[PLAYER_TABLE] = table
        setup["properties"] = properties
        definitions["setup"] = setup


def _with_fields(shared: dict[str, Any], fields: Mapping[str, Any], context: FieldContext) -> dict[str, Any]:
    """A shared record's schema with the declared fields added (never replacing its own)."""
    added = record_schema(fields, context)
    own = shared.get("properties", {})
    properties = {**own, **{name: spec for name, spec in added["properties"].items() if name not in own}}
    required = [
        *shared.get("required", []),
        *(r for r in added.get("required", []) if r not in shared.get("properties", {})),
    ]
    return {**shared, "properties": properties, **({"required": required} if required else {})}

"""The pack's declarations of its effect language: enumerations, traits, events and windows.

`declarations_of` reads them for the checker, the engine, the messages and the reference;
the checks here report what is wrong with the declarations themselves (`DECL-*`) and with
the content that names them (`REF-UNDEF` for a window, an event or a trait the pack does not
declare, `DECL-VALUE` for a character's trait value that does not fit the trait).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from coh_core.effects.checker import suggest
from coh_core.effects.registry import (
    PILE_OWNER_TYPES,
    ROLES,
    TRAIT_ROLES,
    TYPES,
    ContextSpec,
    Declarations,
    EnumSpec,
    EventSpec,
    GraphSpec,
    PileSpec,
    TraitSpec,
    WindowSpec,
    map_of,
    normalize_type,
)
from coh_core.errors import Location, Problem
from coh_core.limits import MAX_NUMBER
from coh_core.messages import DeclaredMessages, declared_messages
from coh_core.packs.fields import context_of, field_values
from coh_core.packs.model import SECTION_FIELDS, Entity, Pack, Section
from coh_core.packs.reuse import written
from coh_core.packs.yamlsrc import Path_

# The sections of a pack that declare, in the order `coh docs effects` lists them.
DECLARATION_SECTIONS = ("types", "traits", "events", "windows")

NUMBER_TYPES = ("int", "count")
SCALAR_TYPES = (*NUMBER_TYPES, "bool")  # besides enumerations, what a parameter or trait may hold
_SCALAR_VALUES = {"count": "a whole number, not negative", "int": "a whole number", "bool": "true or false"}


# -- reading ----------------------------------------------------------------------------


def messages_of(pack: Pack, declared: Declarations | None = None) -> DeclaredMessages:
    """`declared_messages` of the pack's `messages` section with its declarations (`declared`:
    already worked out), worked out once for the same section and declarations: equal in every
    way a check could see (the bytes pickle writes for them), as they are in a base pack and in
    most overlays applied to it."""
    section = pack.section("messages")
    declared = declared if declared is not None else declarations_of(pack)
    try:
        key = (written(section), written(declared))
    except Exception:  # a value pickle cannot write: worked out each time
        return declared_messages(section, declared)
    found = _MESSAGES.get(key)
    if found is None:
        if len(_MESSAGES) > 16:
            _MESSAGES.clear()
        found = _MESSAGES[key] = declared_messages(section, declared)
    return found


# The messages worked out, by what they were worked out of (as bytes: whatever changes later).
_MESSAGES: dict[tuple[bytes, bytes], DeclaredMessages] = {}


@contextmanager
def declarations_kept(pack: Pack) -> Iterator[None]:
    """Within: the pack is not changed, so what it declares is worked out once (`declarations_of`)."""
    _KEPT[id(pack)] = (pack, _declarations(pack))
    try:
        yield
    finally:
        del _KEPT[id(pack)]


_KEPT: dict[int, tuple[Pack, Declarations]] = {}  # by the pack's identity, while it is kept unchanged


def declarations_of(pack: Pack) -> Declarations:
    """What the pack declares; entries the schema rejected are left out (already reported).

    A type that does not exist (reported once, where it is declared: DECL-TYPE) is taken as
    `any`, so that the effects using the trait or the name do not report it again.
    """
    kept = _KEPT.get(id(pack))
    return kept[1] if kept is not None and kept[0] is pack else _declarations(pack)


def _declarations(pack: Pack) -> Declarations:
    types = {name: _enum(name, entry) for name, entry in _entries(pack, "types") if name not in TYPES}
    entity_types = _entity_types(pack)
    known = Declarations(types=types, entity_types=entity_types)
    return Declarations(
        types=types,
        entity_types=entity_types,
        traits={name: _trait(name, entry, known) for name, entry in _entries(pack, "traits")},
        events={name: _event(name, entry, known) for name, entry in _entries(pack, "events")},
        windows={name: _window(name, entry, known) for name, entry in _entries(pack, "windows")},
        counters={name: str(entry["doc"]) for name, entry in _component_entries(pack, "counters")},
        places=dict(_component_places(pack)),
        piles={name: _pile(name, entry, known, pack) for name, entry in _component_entries(pack, "piles")},
        pointers={name: (str(e["doc"]), str(e["type"])) for name, e in _component_entries(pack, "pointers")},
        memory={
            name: (str(e["doc"]), _memory_type(e, known)) for name, e in _component_entries(pack, "memory")
        },
        graphs={name: _graph(name, e, pack) for name, e in _component_entries(pack, "graphs")},
        contexts={
            name: _context(name, entry)
            for name, entry in _entries(pack, "contexts")
            if entry["role"] in ROLES
        },
        complete=pack.complete or all(name in pack.sections for name in DECLARATION_SECTIONS),
        rejected=pack.rejected_names(),
    )


def _graph(name: str, entry: dict[str, Any], pack: Pack) -> GraphSpec:
    """A graph as effects see it: its places of the type it says (one the pack's entities do not
    make, reported where it is declared: GRAPH-OF, is taken as `any`), the states of its edges."""
    of = str(entry["of"])
    states: dict[str, str] = {}
    for kind, spec in (entry.get("edge_kinds") or {}).items():
        for state in spec.get("states") or [] if isinstance(spec, dict) else []:
            states.setdefault(str(state), str(kind))
    known = of in pack.ref_types().values()
    return GraphSpec(name, str(entry["doc"]), of if known else "any", states)


def _entity_types(pack: Pack) -> dict[str, str]:
    """The new types the pack's kinds of entities make: `type` of a kind that is no built-in type."""
    found: dict[str, str] = {}
    for name, entry in pack.kind_declarations().items():
        type_name = str(entry["type"])
        if type_name not in TYPES:
            found.setdefault(type_name, str(entry.get("type_doc") or f"a {name} (`@id`)"))
    return found


def _entries(pack: Pack, section_name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    section = pack.sections.get(section_name)
    if section is None:
        return
    for name, entry in section.data.items():
        if isinstance(entry, dict) and section.doc.is_valid((*section.path, name)):
            yield str(name), entry


def _component_entries(pack: Pack, key: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The entries of a mapping of the `components` section the schema accepted."""
    section = pack.sections.get("components")
    found = None if section is None else section.data.get(key)
    if not isinstance(found, dict):
        return
    for name, entry in found.items():
        if (
            isinstance(entry, dict)
            and section is not None
            and section.doc.is_valid((*section.path, key, name))
        ):
            yield str(name), entry


def _memory_type(entry: dict[str, Any], known: Declarations) -> str:
    """The type of the whole value: of each player's, a map by player (a type that does not exist,
    reported where it is declared: COMPONENT-MEMORY, is taken as `any`)."""
    value = normalize_type(str(entry["type"]))
    if not known.is_known_type(value):
        value = "any"
    return map_of("player", value) if entry.get("per_player") is True else value


def _component_places(pack: Pack) -> Iterator[tuple[str, str]]:
    section = pack.sections.get("components")
    found = None if section is None else section.data.get("places")
    if isinstance(found, dict):
        yield from ((str(name), str(doc)) for name, doc in found.items() if isinstance(doc, str))


def trait_types(declared: Declarations) -> list[str]:
    """The types a trait (or a rule parameter) may have: numbers, yes/no, the pack's enumerations."""
    return [*SCALAR_TYPES, *sorted(declared.types)]


def _pile(name: str, entry: dict[str, Any], known: Declarations, pack: Pack) -> PileSpec:
    """A pile as effects see it; entries of a type that does not exist (DECL-TYPE) are `any`, and
    so are the owners of a pile kept per kind of pieces the pack does not declare (COMPONENT-PILE)."""
    of, per = str(entry["of"]), str(entry.get("per", "game"))
    owner = PILE_OWNER_TYPES.get(per)
    if owner is None:
        pieces = dict(_component_entries(pack, "pieces")).get(per)
        kind = pack.kind_declarations().get(str(pieces.get("of"))) if pieces is not None else None
        owner = str(kind["type"]) if kind is not None else "any"
    known_of = of if known.is_known_type(of) else "any"
    return PileSpec(name, str(entry["doc"]), known_of, per, owner, entry.get("size") is not None)


def _enum(name: str, entry: dict[str, Any]) -> EnumSpec:
    return EnumSpec(name, str(entry["doc"]), {str(k): str(v) for k, v in entry["values"].items()})


def _trait(name: str, entry: dict[str, Any], known: Declarations) -> TraitSpec:
    kind = str(entry["type"])
    kind = kind if kind in trait_types(known) else "any"
    return TraitSpec(
        name,
        kind,
        entry["default"],
        str(entry["doc"]),
        entry.get("min"),
        entry.get("max"),
        entry.get("quiet") is True,
        str(entry["role"]) if entry.get("role") in TRAIT_ROLES else None,
    )


def _context(name: str, entry: dict[str, Any]) -> ContextSpec:
    """A context the pack names: its doc, and the names and rules of the engine's role it plays."""
    role = ROLES[str(entry["role"])]
    return ContextSpec(
        name, str(entry.get("doc") or role.doc), dict(role.bindings), role.procedures_allowed, role.name
    )


def _event(name: str, entry: dict[str, Any], known: Declarations) -> EventSpec:
    return EventSpec(name, str(entry["doc"]), bool(entry.get("located", False)), _names(entry, known))


def _window(name: str, entry: dict[str, Any], known: Declarations) -> WindowSpec:
    return WindowSpec(name, str(entry["doc"]), _names(entry, known))


def _names(entry: dict[str, Any], known: Declarations) -> dict[str, str]:
    names = {str(k): str(v) for k, v in (entry.get("names") or {}).items()}
    return {k: normalize_type(v) if known.is_known_type(v) else "any" for k, v in names.items()}


# -- values of a declared type ---------------------------------------------------------------


def fits(type_name: str, value: Any, declared: Declarations) -> bool:
    """Whether a value written in YAML is of a scalar type or an enumeration."""
    if type_name in NUMBER_TYPES:
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "bool":
        return isinstance(value, bool)
    members = declared.members(type_name)
    return isinstance(value, str) and members is not None and value in members


def expected_value(type_name: str, declared: Declarations) -> str:
    """What a value of the type is, for a message."""
    members = declared.members(type_name)
    if members is not None:
        return f"one of {', '.join(members)} ({type_name})"
    return _SCALAR_VALUES[type_name]


def value_hint(type_name: str, value: Any, declared: Declarations) -> str:
    """A "did you mean" for a misspelt value of an enumeration ('' for other types)."""
    members = declared.members(type_name)
    return suggest(str(value), members) if members is not None else ""


def number_bounds(type_name: str, low: Any, high: Any) -> tuple[int, int]:
    """The values a number of the type may take within optional bounds (a count is never negative)."""
    floor = 0 if type_name == "count" else -MAX_NUMBER
    low_bound = max(low if isinstance(low, int) else -MAX_NUMBER, floor)
    high_bound = min(high if isinstance(high, int) else MAX_NUMBER, MAX_NUMBER)
    return low_bound, high_bound


# -- the declarations themselves ---------------------------------------------------------------


def check_declarations(pack: Pack) -> Iterator[Problem]:
    """Each declaration is of types that exist, and a trait's default fits the trait."""
    declared = declarations_of(pack)
    yield from _check_types(pack)
    for name, entry in _entries(pack, "traits"):
        yield from _check_trait(pack.sections["traits"], name, entry, declared)
    if "traits" in pack.sections:
        yield from _check_trait_roles(pack.sections["traits"], declared)
    for section_name in ("events", "windows"):
        for name, entry in _entries(pack, section_name):
            yield from _check_names(pack.sections[section_name], name, entry, declared)
    for name, entry in _component_entries(pack, "piles"):
        if not declared.is_known_type(str(entry["of"])) and not declared.is_rejected_type(str(entry["of"])):
            known = [*TYPES, *declared.types]
            yield Problem(
                "DECL-TYPE",
                f"the entries of pile `{name}` have the unknown type `{entry['of']}`"
                + suggest(str(entry["of"]), known),
                _at(pack.sections["components"], "piles", name, "of"),
            )


def _at(section: Section, *path: str, key: bool = False) -> Location:
    return section.doc.location((*section.path, *path), key=key)


def _check_types(pack: Pack) -> Iterator[Problem]:
    """An enumeration may not take the name of a built-in type: one of the two would be hidden."""
    for name, _ in _entries(pack, "types"):
        if name in TYPES:
            yield Problem(
                "DECL-DUPLICATE",
                f"`{name}` is a built-in type; give the enumeration another name",
                _at(pack.sections["types"], name, key=True),
            )


def _check_trait(
    section: Section, name: str, entry: dict[str, Any], declared: Declarations
) -> Iterator[Problem]:
    kind = str(entry["type"])
    allowed = trait_types(declared)
    if kind not in allowed:
        yield Problem(
            "DECL-TYPE",
            f"trait `{name}` has the unknown type `{kind}`"
            + (suggest(kind, allowed) or f"; types: {', '.join(allowed)}"),
            _at(section, name, "type"),
        )
        return
    bounds = [key for key in ("min", "max") if key in entry]
    if bounds and kind not in NUMBER_TYPES:
        yield Problem(
            "DECL-VALUE",
            f"trait `{name}` is not a number: it has no `{bounds[0]}`",
            _at(section, name, bounds[0]),
        )
    trait = declared.traits[name]
    yield from trait_value_problems(trait, entry["default"], declared, _at(section, name, "default"))


def _check_trait_roles(section: Section, declared: Declarations) -> Iterator[Problem]:
    """A trait the engine reads for a role is yes/no, and no two traits play one role."""
    holder: dict[str, str] = {}
    for trait in declared.traits.values():
        if trait.role is None:
            continue
        if trait.type not in ("bool", "any"):
            said = (
                f"trait `{trait.name}` plays the role `{trait.role}`, which is yes or no: its type is `bool`"
            )
            yield Problem("DECL-ROLE", said, _at(section, trait.name, "role"))
        elif trait.role in holder:
            said = f"traits `{holder[trait.role]}` and `{trait.name}` both play the role `{trait.role}`"
            yield Problem("DECL-ROLE", said, _at(section, trait.name, "role"))
        else:
            holder[trait.role] = trait.name


def trait_value_problems(
    trait: TraitSpec, value: Any, declared: Declarations, where: Location
) -> Iterator[Problem]:
    """A value given to a trait (its default, or a character's) is of its type and within its bounds."""
    if trait.type == "any":
        return  # a type that does not exist: reported where the trait is declared
    if not fits(trait.type, value, declared):
        yield Problem(
            "DECL-VALUE",
            f"trait `{trait.name}` must be {expected_value(trait.type, declared)}, got {json.dumps(value)}"
            + value_hint(trait.type, value, declared),
            where,
        )
    elif trait.type in NUMBER_TYPES:
        low, high = number_bounds(trait.type, trait.low, trait.high)
        if not low <= value <= high:
            yield Problem("DECL-VALUE", f"trait `{trait.name}` is {value}; it may be {low} to {high}", where)


def _check_names(
    section: Section, name: str, entry: dict[str, Any], declared: Declarations
) -> Iterator[Problem]:
    """The names an event or window binds are of types that exist."""
    what = section.name[:-1]  # event, window
    for bound, type_name in (entry.get("names") or {}).items():
        if not declared.is_known_type(str(type_name)) and not declared.is_rejected_type(str(type_name)):
            known = [*TYPES, *declared.types]
            yield Problem(
                "DECL-TYPE",
                f"{what} `{name}` gives `{bound}` the unknown type `{type_name}`"
                + suggest(str(type_name), known),
                _at(section, name, "names", str(bound)),
            )


# -- content that names a declaration ------------------------------------------------------------


def check_references(pack: Pack) -> Iterator[Problem]:
    """What entities name in fields of the declared types exists: windows, events of triggers,
    traits and their values, and entities of a kind (a field typed with the kind's ids).

    Each is checked once its section is loaded, or when the whole pack is (then a missing
    section declares nothing): what a part that failed to load declares is not known.
    """
    declared = declarations_of(pack)
    loaded = {name for name in DECLARATION_SECTIONS if name in pack.sections or pack.complete}
    kinds = pack.kind_declarations()
    of_type = context_of(kinds, {}).references
    for kind, entry in kinds.items():
        for entity in pack.entities_of(kind):
            for path, base, value, is_key in field_values(entity.data, entry.get("fields")):
                if is_key:
                    if base in of_type and pack.complete and isinstance(value, str):
                        yield from _declared(
                            entity, path, pack.entities.get(of_type[base], {}), of_type[base], key=True
                        )
                elif base == "window" and "windows" in loaded:
                    yield from _declared(entity, path, declared.windows, "window", rejected=declared.rejected)
                elif base == "event" and "events" in loaded:
                    yield from _declared(entity, path, declared.events, "event", rejected=declared.rejected)
                elif base == "triggers" and "events" in loaded:
                    yield from _trigger_events(entity, path, declared)
                elif base == "trait_values" and "traits" in loaded:
                    yield from _traits(entity, path, declared)
                elif base in of_type and pack.complete and isinstance(value, str):
                    yield from _declared(entity, path, pack.entities.get(of_type[base], {}), of_type[base])
    turn = pack.sections.get("turn")
    if turn is not None and "events" in loaded:
        yield from _trigger_events(turn, ("triggers",), declared)
    if pack.complete:
        yield from _section_references(pack, of_type)


def _section_references(pack: Pack, of_type: Mapping[str, str]) -> Iterator[Problem]:
    """What the fields a pack adds to `setup` and `components` (`section_fields`) name, typed with
    a kind's ids, exists (`start: {type: location}`)."""
    added = pack.section(SECTION_FIELDS)
    for name in ("setup", "components"):
        section = pack.sections.get(name)
        if section is None:
            continue
        for path, base, value, is_key in field_values(section.data, added.get(name)):
            if base in of_type and isinstance(value, str):
                known = pack.entities.get(of_type[base], {})
                yield from _declared(section, path, known, of_type[base], key=is_key)


def _value(holder: Entity | Section, path: Path_) -> Any:
    data: Any = holder.data
    for part in path:
        if isinstance(data, dict) and isinstance(part, str):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return None
    return data


def _where(holder: Entity | Section, path: Path_, key: bool = False) -> Location:
    return holder.doc.location((*holder.path, *path), key=key)


def _declared(
    holder: Entity | Section,
    path: Path_,
    known: Mapping[str, Any],
    what: str,
    key: bool = False,
    rejected: frozenset[str] = frozenset(),
) -> Iterator[Problem]:
    """REF-UNDEF for a name of no `what` the pack has: the value at `path`, or (`key`) its key;
    not for a name `rejected` (its declaration is broken: reported there)."""
    value = path[-1] if key else _value(holder, path)
    if isinstance(value, str) and value not in known and value not in rejected:
        where = _where(holder, path, key=key)
        yield Problem("REF-UNDEF", f"unknown {what} `{value}`" + suggest(value, known), where)


def _trigger_events(holder: Entity | Section, path: Path_, declared: Declarations) -> Iterator[Problem]:
    triggers = _value(holder, path)
    for index in range(len(triggers) if isinstance(triggers, list) else 0):
        yield from _declared(
            holder, (*path, index, "event"), declared.events, "event", rejected=declared.rejected
        )


def check_trigger_ids(pack: Pack) -> Iterator[Problem]:
    """Every list of triggers names each of its triggers once (a patch finds one by its id)."""
    for kind, entry in pack.kind_declarations().items():
        for entity in pack.entities_of(kind):
            for path, base, _, is_key in field_values(entity.data, entry.get("fields")):
                if base == "triggers" and not is_key:
                    yield from _unique_trigger_ids(entity, path)
    turn = pack.sections.get("turn")
    if turn is not None:
        yield from _unique_trigger_ids(turn, ("triggers",))


def _unique_trigger_ids(holder: Entity | Section, path: Path_) -> Iterator[Problem]:
    triggers = _value(holder, path)
    seen: set[str] = set()
    for index, trigger in enumerate(triggers if isinstance(triggers, list) else []):
        name = trigger.get("id") if isinstance(trigger, dict) else None
        if isinstance(name, str) and name in seen:
            message = f"trigger id `{name}` is used twice in this list: a patch could not tell them apart"
            yield Problem("ID-DUPLICATE", message, _where(holder, (*path, index, "id")))
        if isinstance(name, str):
            seen.add(name)


def _traits(holder: Entity, at: Path_, declared: Declarations) -> Iterator[Problem]:
    """Trait values an entity is given: each of a declared trait, of its type and in its bounds."""
    traits = _value(holder, at)
    for name, value in traits.items() if isinstance(traits, dict) else ():
        path = (*at, name)
        trait = declared.traits.get(str(name))
        if trait is None and str(name) in declared.rejected:
            continue  # its declaration is broken: reported there
        if trait is None:
            message = f"unknown trait `{name}`" + suggest(str(name), declared.traits)
            yield Problem("REF-UNDEF", message, _where(holder, path, key=True))
        elif not _trapped(holder, path):  # a YAML 1.1 trap is reported once, as such
            yield from trait_value_problems(trait, value, declared, _where(holder, path))


def _trapped(holder: Entity | Section, path: Path_) -> bool:
    doc, at = holder.doc.origin((*holder.path, *path))
    return at in doc.trapped

"""The pack's kinds of entities: checks of their declarations (`KIND-*`), and the rules each kind's
`checks` state of its entities, checked by general checks (`COUNT-MISMATCH`, `DATA-*`,
`SYMBOL-MISMATCH`).

A rule names fields of the kind's entities and values of the pack's `setup` and `components`
sections; the engine knows none of them. Each problem is located at the offending value.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from coh_core.effects import ast
from coh_core.effects.checker import suggest
from coh_core.effects.registry import signature
from coh_core.errors import Location, Problem
from coh_core.packs.declarations import declarations_of, messages_of
from coh_core.packs.fields import context_of, field_problems
from coh_core.packs.model import (
    BOARD,
    ENGINE_SECTIONS,
    KINDS_SECTION,
    SECTION_FIELDS,
    SINGLETON_SECTIONS,
    Entity,
    Pack,
    Section,
)
from coh_core.packs.pack_data import PLAYER_TABLE
from coh_core.packs.pack_schema import shared_fields
from coh_core.packs.roles import setup_role_problems, state_role_problems

Check = dict[str, Any]
_PATCHES = "patches"  # an overlay's changes (coh_core.packs.loader.PATCHES)


# -- the declarations ---------------------------------------------------------------------------


def check_kinds(pack: Pack) -> Iterator[Problem]:
    """Each kind is written in one place: a section of its own, or a list of `components`."""
    section = pack.sections.get(KINDS_SECTION)
    if section is None:
        return
    owners: dict[str, str] = {}
    for name, entry in pack.kind_declarations().items():

        def where(*path: str, key: bool = False, kind: str = name) -> Location:
            return section.doc.location((*section.path, kind, *path), key=key)

        if ("section" in entry) == ("listed" in entry):
            yield Problem(
                "KIND-SOURCE",
                f"kind `{name}` needs exactly one of `section` (its own list) and `listed` (a list of"
                " `components`)",
                where(key=True),
            )
        written = entry.get("section")
        if not isinstance(written, str):
            continue
        if written in SINGLETON_SECTIONS or written in ENGINE_SECTIONS or written == _PATCHES:
            yield Problem(
                "KIND-SECTION",
                f"`{written}` is a section of its own; kind `{name}` needs another",
                where("section"),
            )
        elif written in owners:
            yield Problem(
                "KIND-SECTION",
                f"section `{written}` already lists the entities of kind `{owners[written]}`",
                where("section"),
            )
        owners.setdefault(written, name)


def check_kind_fields(pack: Pack) -> Iterator[Problem]:
    """Each declared field says something its type can mean (`KIND-FIELD`); a kind listed by
    `components` has entities that are ids only, so no fields."""
    section = pack.sections.get(KINDS_SECTION)
    if section is None:
        return
    context = context_of(pack.kind_declarations(), pack.section("types"), _contexts(pack))
    for name, entry in pack.kind_declarations().items():
        fields = entry.get("fields")
        if not isinstance(fields, dict):
            continue
        base = (*section.path, name, "fields")
        if "listed" in entry:
            yield Problem(
                "KIND-FIELD",
                f"kind `{name}` is listed by `components`: its entities are ids, and hold no fields",
                section.doc.location(base, key=True),
            )
            continue
        for field_name, spec in fields.items():
            if isinstance(spec, dict):
                for found in field_problems(spec, context):
                    where = section.doc.location((*base, field_name, *found.path), key=found.key)
                    said = f"field `{_dotted(field_name, found.path)}` of kind `{name}`: {found.message}"
                    yield Problem("KIND-FIELD", said, where)
        for role in state_role_problems(entry.get("type"), fields):
            said = f"kind `{name}`: {role.message}"
            yield Problem("KIND-FIELD", said, section.doc.location((*base, *role.path)))


def check_section_fields(pack: Pack) -> Iterator[Problem]:
    """The fields a pack adds to the shared sections say something they can mean, are none the
    section has of its own, and play only the roles of `setup`'s fields (`SECTION-FIELD`)."""
    section = pack.sections.get(SECTION_FIELDS)
    if section is None:
        return
    context = context_of(pack.kind_declarations(), pack.section("types"), _contexts(pack))
    own = shared_fields()
    for name, fields in section.data.items():
        for field_name, spec in fields.items() if isinstance(fields, dict) else ():
            base = (*section.path, name, field_name)
            if field_name in own.get(str(name), ()):
                said = f"`{field_name}` is a field every pack's `{name}` has: name yours otherwise"
                yield Problem("SECTION-FIELD", said, section.doc.location(base, key=True))
                continue
            if isinstance(spec, dict) and "text" in spec:
                said = f"`text` says nothing for a field of `{name}`: an entity's field asks for its texts"
                yield Problem("SECTION-FIELD", said, section.doc.location((*base, "text"), key=True))
            for found in field_problems(spec, context) if isinstance(spec, dict) else ():
                where = section.doc.location((*base, *found.path), key=found.key)
                said = f"field `{_dotted(str(field_name), found.path)}` of `{name}`: {found.message}"
                yield Problem("SECTION-FIELD", said, where)
        for role in setup_role_problems(str(name), fields):
            said = f"`{name}`: {role.message}"
            yield Problem("SECTION-FIELD", said, section.doc.location((*section.path, name, *role.path)))


def _dotted(field_name: str, path: tuple[str, ...]) -> str:
    """A field inside records by its names: `doors.state` for (`doors`, fields, state, ...)."""
    names, at = [field_name], 0
    while at + 1 < len(path) and path[at] == "fields":
        names.append(path[at + 1])
        at += 2
    return ".".join(names)


def check_kind_names(pack: Pack) -> Iterator[Problem]:
    """What the kinds name exists: the texts their `list`, `show` and `label` print (declared
    messages, filled with exactly their placeholders), and the values of `setup` and `components`
    and the verbs their `checks` read."""
    section = pack.sections.get(KINDS_SECTION)
    if section is None:
        return
    texts = messages_of(pack).texts
    enums = {type_name: tuple(enum.values) for type_name, enum in declarations_of(pack).types.items()}
    # without its messages section (SECTION-MISSING), a pack's texts are not known to be missing
    known = "messages" in pack.sections
    for name, entry in pack.kind_declarations().items():
        base = (*section.path, name)
        for path, key, filled, template in _texts_named(entry, enums) if known else ():
            where = section.doc.location((*base, *path))
            message = texts.get(key)
            if message is None:
                made = f" (`{template}` for one of its values)" if template else ""
                yield Problem(
                    "KIND-TEXT",
                    f"kind `{name}` prints the text `{key}`{made}, which no message declares"
                    + suggest(key, texts),
                    where,
                )
            elif filled is not None and set(filled) != set(message.params):
                wanted = ", ".join(f"{{{p}}}" for p in message.params) or "no placeholder"
                yield Problem(
                    "KIND-TEXT",
                    f"`{key}` takes {wanted}; kind `{name}` fills "
                    + (", ".join(f"{{{f}}}" for f in filled) or "none"),
                    where,
                )
        for index, check in enumerate(entry.get("checks") or []):
            for at, problem in _check_names(pack, check):
                yield Problem("KIND-CHECK", problem, section.doc.location((*base, "checks", index, *at)))


Named = tuple[tuple[Any, ...], str, "list[str] | None", str | None]  # (path, key, filled, made from)
ValuesOf = Callable[[str], "tuple[str, ...] | None"]  # a field's values, by the field's name


def _texts_named(entry: dict[str, Any], enums: dict[str, tuple[str, ...]]) -> Iterator[Named]:
    """(path in the kind, text key, the placeholders filled or None when any may be, the key it is
    made from) of each text the kind prints: by a fixed key, or by a key made of a field's value
    (`ui.slot.{slot}`) for each value the field may hold (a field without a list of values: not
    known before the data is)."""
    values_of = _values_of(entry.get("fields") or {}, enums)
    if isinstance(entry.get("label"), str):
        yield ("label",), str(entry["label"]), [], None
    listing = entry.get("list") or {}
    for index, column in enumerate(listing.get("columns") or []):
        yield ("list", "columns", index, "head"), str(column["head"]), [], None
        yield from _value_texts(column["value"], ("list", "columns", index, "value"), values_of)
    footer = listing.get("footer")
    if isinstance(footer, dict):
        yield from _value_texts(footer, ("list", "footer"), values_of)
    elif footer is not None:
        yield ("list", "footer"), str(footer), ["count"], None
    yield from _lines_texts(entry.get("show") or [], ("show",), entry.get("fields") or {}, enums)
    if isinstance(entry.get("brief"), dict):
        yield from _value_texts(entry["brief"], ("brief",), values_of)


def _values_of(fields: dict[str, Any], enums: dict[str, tuple[str, ...]]) -> ValuesOf:
    """The values a field of these may hold: its own `values`, or its type's (an enumeration)."""

    def values(name: str) -> tuple[str, ...] | None:
        spec = fields.get(name)
        if not isinstance(spec, dict):
            return None
        if isinstance(spec.get("values"), list):
            return tuple(str(v) for v in spec["values"])
        return enums.get(str(spec.get("type")))

    return values


def _lines_texts(
    lines: list[Any], path: tuple[Any, ...], fields: dict[str, Any], enums: dict[str, tuple[str, ...]]
) -> Iterator[Named]:
    """The texts the lines of `show` print, those of the lines of each item (`each`, whose fields
    are the records') too."""
    values_of = _values_of(fields, enums)
    for index, line in enumerate(lines):
        if isinstance(line, dict):
            yield from _value_texts(line, (*path, index), values_of)
            each = fields.get(str(line.get("each"))) if "each" in line else None
            inner = each.get("fields") or {} if isinstance(each, dict) else {}
            yield from _lines_texts(line.get("lines") or [], (*path, index, "lines"), inner, enums)


def _value_texts(spec: dict[str, Any], path: tuple[Any, ...], values_of: ValuesOf) -> Iterator[Named]:
    """The texts a value prints: its own, and those of the values it is made of."""
    if "text" in spec:
        filled = list(spec.get("fill") or {})
        template = str(spec["text"])
        if "{" not in template:
            yield (*path, "text"), template, filled, None
        if not spec.get("optional"):  # (an optional text may be missing for some values)
            for key in _made_keys(template, values_of):
                yield (*path, "text"), key, filled, template
    for name, sub in (spec.get("fill") or {}).items():
        yield from _value_texts(sub, (*path, "fill", name), values_of)
    for key in ("item", "or"):
        if isinstance(spec.get(key), dict):
            yield from _value_texts(spec[key], (*path, key), values_of)
    for index, part in enumerate(spec.get("join") or []):
        yield from _value_texts(part, (*path, "join", index), values_of)
    for value, sub in (spec.get("cases") or {}).items():
        yield from _value_texts(sub, (*path, "cases", value), values_of)


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _made_keys(template: str, values_of: ValuesOf) -> list[str]:
    """The keys a key made of fields' values (`ui.slot.{slot}`) comes to, one per combination of
    the values they may hold (none when a field's values are not known)."""
    names = _PLACEHOLDER.findall(template)
    lists = [values_of(name) for name in names]
    if not names or any(values is None for values in lists):
        return []
    return [
        _filled(template, dict(zip(names, combination, strict=True)))
        for combination in itertools.product(*(values or () for values in lists))
    ]


def _filled(template: str, chosen: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda match: chosen[match.group(1)], template)


def _check_names(pack: Pack, check: Check) -> Iterator[tuple[tuple[Any, ...], str]]:
    """(where in the check, problem) for each value of `setup` or `components`, or verb, it names
    and the pack lacks."""
    setup, components = pack.section("setup"), pack.section("components")
    wanted: list[tuple[str, dict[str, Any], str, type | tuple[type, ...]]] = [
        ("total", components, "components", int),
        ("listed_once", components, "components", list),
        ("numbers_of", setup, "setup", dict),
        ("entries", setup, "setup", list),
        ("equals", setup, "setup", (int, str)),
        ("items_of", setup, "setup", list),
        ("each_at_most", components, "components", list),
    ]
    for key, values, where, kind in wanted:
        if where not in pack.sections:
            continue  # a section missing (SECTION-MISSING) names nothing
        if key in check and not isinstance(values.get(str(check[key])), kind):
            yield (key,), f"`{check[key]}` is no {_WHAT[key]} of `{where}`" + suggest(str(check[key]), values)
    rows = [r for r in setup.get(PLAYER_TABLE) or [] if isinstance(r, dict)]
    if "dealt" in check and "setup" in pack.sections and not any(check["dealt"] in r for r in rows):
        yield ("dealt",), f"`{check['dealt']}` is no column of setup's `{PLAYER_TABLE}`"
    for index, name in enumerate(check.get("needs") or []):
        if name not in setup and "setup" in pack.sections:
            yield ("needs", index), f"`{name}` is no value of `setup`" + suggest(str(name), setup)
    verb = check.get("verb")
    if "symbol" in check and not (signature(str(verb)) or pack.entity(str(verb))):
        yield ("verb",), f"no verb `{verb}`"
    params = pack.section("params")
    if "as_many_as" in check and "params" in pack.sections and check["as_many_as"] not in params:
        name = str(check["as_many_as"])
        yield ("as_many_as",), f"`{name}` is no rule parameter of `params`" + suggest(name, params)
    for key, (partner, what) in _PARTNERS.items():
        if key in check and partner not in check:
            yield (key,), f"`{key}` goes with `{partner}`: {what}"


# The keys of a check that go with another: that key, and what it names.
_PARTNERS = {
    "less": ("than", "the field it is compared with"),
    "than": ("less", "the field compared with it"),
    "as_many_as": ("items_of", "the list of `setup` whose values are counted"),
    "items_of": ("as_many_as", "the rule parameter they are counted against"),
}


_WHAT = {
    "total": "number",
    "listed_once": "list",
    "items_of": "list",
    "each_at_most": "list",
    "numbers_of": "mapping of numbers",
    "entries": "list",
    "equals": "value",
}


# -- the rules of each kind ---------------------------------------------------------------------


def check_entity_rules(pack: Pack) -> Iterator[Problem]:
    """The rules that hold within each entity (meaningful while part of the pack is missing)."""
    yield from _rules(pack, _ENTITY_RULES)


def check_pack_rules(pack: Pack) -> Iterator[Problem]:
    """The rules across sections: totals, numbers of `setup`, lists of `components`."""
    yield from _rules(pack, _PACK_RULES)


def _rules(
    pack: Pack, rules: dict[str, Callable[[Pack, str, Check], Iterator[Problem]]]
) -> Iterator[Problem]:
    for kind, entry in pack.kind_declarations().items():
        for check in entry.get("checks") or []:
            for name, rule in rules.items():
                if name in check:
                    yield from rule(pack, kind, check)


def _setup_at(pack: Pack, key: str) -> Location | None:
    found = pack.sections.get("setup")
    return None if found is None else found.doc.location((*found.path, key))


def _components_at(pack: Pack, key: str) -> Location | None:
    found = pack.sections.get("components")
    return None if found is None else found.doc.location((*found.path, key))


def _numbers(pack: Pack, check: Check) -> set[int] | None:
    """The numbers of the mapping of `setup` a check names (`numbers_of`), of its entries named by
    the list `entries` of `setup` when given; None when the mapping is missing or empty (reported
    where it is checked)."""
    setup = pack.section("setup")
    mapping = setup.get(str(check["numbers_of"]))
    if not isinstance(mapping, dict) or not mapping:
        return None
    names = setup.get(str(check["entries"])) if "entries" in check else list(mapping)
    return {
        n
        for name in (names if isinstance(names, list) else [])
        for n in (mapping.get(name) or [] if isinstance(name, str) else [])
        if isinstance(n, int)
    }


def _at(entity: Entity, *path: Any, key: bool = False) -> Location:
    return entity.doc.location((*entity.path, *path), key=key)


def _total(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """As many entities of the kind (or as much of a number field of theirs) as `components` says."""
    name = str(check["total"])
    wanted = pack.section("components").get(name)
    where = _components_at(pack, name)
    if not isinstance(wanted, int) or where is None:
        return
    entities = pack.entities_of(kind)
    summed = check.get("sum")
    if summed is None:
        found = len(entities)
    elif all(isinstance(e.data.get(summed), int) for e in entities):
        found = sum(int(e.data[summed]) for e in entities)
    else:
        return  # the schema reports the bad number; a total would only mislead
    if found != wanted:
        yield Problem(
            check.get("code", "COUNT-MISMATCH"),
            f"components say {wanted} {name.replace('_', ' ')}, the pack defines {found}",
            where,
        )


def _length(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """A list field is as long as there are numbers in a mapping of `setup`."""
    numbers = _numbers(pack, check)
    if not numbers:
        return
    field = str(check["length"])
    for entity in pack.entities_of(kind):
        value = entity.data.get(field)
        if isinstance(value, list) and len(value) != len(numbers):
            yield Problem(
                check.get("code", "DATA-SHAPE"),
                f"`{field}` lists {len(value)} numbers; setup's `{check['numbers_of']}` has {len(numbers)}",
                _at(entity, field),
            )


def _absent(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """An entity whose field equals a value of `setup` leaves some fields out."""
    field, setting = str(check.get("when")), str(check.get("equals"))
    value = pack.section("setup").get(setting)
    if value is None:
        return
    for entity in pack.entities_of(kind):
        if entity.data.get(field) != value:
            continue
        for name in check["absent"]:
            if name in entity.data:
                yield Problem(
                    check.get("code", "DATA-SHAPE"),
                    f"an entity of kind `{kind}` whose `{field}` is {value} (setup's `{setting}`)"
                    f" carries no `{name}`",
                    _at(entity, name, key=True),
                )


def _among(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """The numbers at some paths of each entity are among those of a mapping of `setup`."""
    numbers = _numbers(pack, check)
    if not numbers:
        return
    allowed = ", ".join(map(str, sorted(numbers)))
    for entity in pack.entities_of(kind):
        for path in check["among"]:
            for where, number in _at_path(entity.data, str(path).split(".")):
                if isinstance(number, int) and not isinstance(number, bool) and number not in numbers:
                    yield Problem(
                        check.get("code", "DATA-SHAPE"),
                        f"`{path}` is {number}; it may be {allowed}",
                        _at(entity, *where),
                    )


def _at_path(data: Any, parts: list[str]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) of each value at a dotted path, through the items of the lists on the way."""
    if not parts:
        yield (), data
        return
    if isinstance(data, list):
        for index, item in enumerate(data):
            for where, value in _at_path(item, parts):
                yield (index, *where), value
    elif isinstance(data, dict) and parts[0] in data:
        for where, value in _at_path(data[parts[0]], parts[1:]):
            yield (parts[0], *where), value


def _per_value(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """Enough entities with each value the lists and values of `setup` named by `needs` ask for:
    one for each time a value is named."""
    setup = pack.section("setup")
    needed: Counter[Any] = Counter()
    for name in check.get("needs") or []:
        value = setup.get(name)
        needed.update(value if isinstance(value, list) else [value])
    field = str(check["per_value"])
    having = Counter(e.data.get(field) for e in pack.entities_of(kind))
    names = [str(n) for n in check.get("needs") or []]
    where = _setup_at(pack, names[-1]) if names else None
    for value, count in needed.items():
        if value is not None and having[value] < count and where is not None:
            yield Problem(
                check.get("code", "DATA-TOO-FEW"),
                f"setup's {', '.join(f'`{n}`' for n in names)} need {count} different entities of kind"
                f" `{kind}` with `{field}: {value}`; the pack has {having[value]}",
                where,
            )


def _on_board(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """Each entity of the kind on the board (`setup.board.locations`, numbered from 1) is at a
    number that the mapping of `setup` named by `numbers_of` gives the value of its field
    `on_board`; each number the mapping gives is a place on the board, and is given once."""
    setup = pack.sections.get("setup")
    name = str(check["numbers_of"])
    mapping, board = pack.section("setup").get(name), pack.section("setup").get(BOARD)
    placed = board.get("locations") if isinstance(board, dict) else None
    if setup is None or not isinstance(mapping, dict) or not isinstance(placed, list):
        return  # no mapping (KIND-CHECK) or no board (SETUP-BOARD)
    code = check.get("code", "DATA-BOARD")
    given: dict[int, str] = {}  # each number, the value of the field it is given to
    twice: set[int] = set()  # numbers given to two values: their places are not judged
    for value, numbers in mapping.items():
        for index, number in enumerate(numbers if isinstance(numbers, list) else []):
            if not isinstance(number, int) or isinstance(number, bool):
                continue  # (the schema's)
            where = setup.doc.location((*setup.path, name, value, index))
            if number in given:
                said = f"to `{given[number]}` and to `{value}`; a place holds one location"
                yield Problem(code, f"setup's `{name}` gives the number {number} {said}", where)
                twice.add(number)
            elif not 1 <= number <= len(placed):
                said = f"the board has {len(placed)} places, numbered 1 to {len(placed)}"
                yield Problem(code, f"setup's `{name}` gives `{value}` the number {number}; {said}", where)
            given.setdefault(number, str(value))
    yield from _board_places(pack, kind, check, setup, placed, given, twice)


def _board_places(
    pack: Pack,
    kind: str,
    check: Check,
    setup: Section,
    placed: list[Any],
    given: dict[int, str],
    twice: set[int],
) -> Iterator[Problem]:
    """Each entity of the kind on the board has the value of its field its number is given (a
    number given twice is reported as such, not at its place)."""
    name, field, code = str(check["numbers_of"]), str(check["on_board"]), check.get("code", "DATA-BOARD")
    entities = {e.id: e for e in pack.entities_of(kind)}
    for index, entity_id in enumerate(placed):
        entity = entities.get(entity_id) if isinstance(entity_id, str) else None
        if entity is None or index + 1 in twice:
            continue  # not an entity of the kind (SETUP-BOARD, REF-*), or a number given twice
        number, wanted, has = index + 1, given.get(index + 1), entity.data.get(field)
        where = setup.doc.location((*setup.path, BOARD, "locations", index))
        place = f"`{entity_id}` is at place {number} of the board (`{BOARD}.locations`)"
        if wanted is None:
            yield Problem(code, f"{place}, a number setup's `{name}` gives no `{field}`", where)
        elif has != wanted:
            said = f"the number setup's `{name}` gives `{field}: {wanted}`; its own `{field}` is `{has}`"
            yield Problem(code, f"{place}, {said}", where)


def _as_many_as(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """A list of `setup` (`items_of`) holds as many values as a rule parameter's value says (one
    hour played for each of the game's turns)."""
    param, name = str(check["as_many_as"]), str(check.get("items_of"))
    declared = pack.section("params").get(param)
    wanted = declared.get("value") if isinstance(declared, dict) else None
    listed, where = pack.section("setup").get(name), _setup_at(pack, name)
    if not isinstance(wanted, int) or isinstance(wanted, bool) or not isinstance(listed, list):
        return  # a parameter or a list the pack lacks (KIND-CHECK), or a value the schema reports
    if len(listed) != wanted and where is not None:
        yield Problem(
            check.get("code", "DATA-LENGTH"),
            f"setup's `{name}` lists {len(listed)} values but the rule parameter `{param}` is {wanted}"
            f" (`params.{param}`): one value is needed for each",
            where,
        )


def _listed_once(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """A list of `components` names every entity of the kind exactly once (and nothing else)."""
    name = str(check["listed_once"])
    listed = pack.section("components").get(name)
    where = _components_at(pack, name)
    if not isinstance(listed, list) or where is None:
        return
    ids = sorted(e.id for e in pack.entities_of(kind))
    section = pack.sections["components"]
    for index, value in enumerate(listed):
        if value in ids:
            continue
        at = section.doc.location((*section.path, name, index))
        other = pack.entity(value) if isinstance(value, str) else None
        if other is not None:
            yield Problem("REF-KIND", f"`{value}` is a {other.kind}, but a {kind} is needed", at)
        else:
            yield Problem("REF-UNDEF", f"unknown {kind} `{value}`" + suggest(str(value), ids), at)
    missing = [i for i in ids if i not in listed]
    twice = sorted({str(v) for v in listed if listed.count(v) > 1})
    if missing or twice:
        said = "; ".join(
            part
            for part in (
                f"it lacks {', '.join(f'`{m}`' for m in missing)}" if missing else "",
                f"it names {', '.join(f'`{t}`' for t in twice)} more than once" if twice else "",
            )
            if part
        )
        yield Problem(
            check.get("code", "DATA-LIST"), f"`{name}` must list every {kind} exactly once: {said}", where
        )


def _dealt(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """Each row of the player table deals no more entities of the kind (copies counted) than the
    pack has: its number of players times its value in the column the check names."""
    column = str(check["dealt"])
    setup = pack.sections.get("setup")
    copies = pack.kind_declarations()[kind].get("copies")
    entities = pack.entities_of(kind)
    supply = sum(_copies(e, copies) for e in entities) if isinstance(copies, str) else len(entities)
    bound = _each_at_most(pack, check)
    seen: set[Any] = set()
    rows = setup.data.get(PLAYER_TABLE) if setup is not None else None
    for index, row in enumerate(rows if isinstance(rows, list) else []):
        if not isinstance(row, dict) or row.get("players") in seen:
            continue  # a second row for a number of players: SETUP-TABLE
        seen.add(row.get("players"))
        players, each = row.get("players"), row.get(column)
        if not isinstance(players, int) or not isinstance(each, int) or setup is None:
            continue
        where = setup.doc.location((*setup.path, PLAYER_TABLE, index))
        if players * each > supply:
            yield Problem(
                check.get("code", "DATA-SUPPLY"),
                f"{players} players need {players * each} {column.replace('_', ' ')}; the pack has {supply}",
                where,
            )
        elif bound is not None and each > len(bound[1]):
            yield Problem(
                check.get("code", "DATA-SUPPLY"),
                f"each of {players} players is dealt {each} {column.replace('_', ' ')}, more than the"
                f" {len(bound[1])} `{bound[0]}` each player has",
                where,
            )


def _each_at_most(pack: Pack, check: Check) -> tuple[str, list[Any]] | None:
    """The list of `components` a `dealt` check's `each_at_most` names, by its name: no player is
    dealt more than it holds (None without one, or when it is no list: KIND-CHECK)."""
    name = check.get("each_at_most")
    listed = pack.section("components").get(str(name)) if name is not None else None
    return (str(name), listed) if isinstance(listed, list) else None


def _copies(entity: Entity, field: str) -> int:
    count = entity.data.get(field, 1)
    return count if isinstance(count, int) and not isinstance(count, bool) else 0


def _symbol(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """An entity shows a symbol exactly when its effect calls a verb."""
    symbol, field, verb = str(check["symbol"]), str(check.get("in", "symbols")), str(check.get("verb"))
    if not (signature(verb) or pack.entity(verb)):
        return  # no such verb: KIND-CHECK
    calls: dict[str, bool] = {}
    entities = {e.id: e for e in pack.entities_of(kind)}
    for compiled in pack.effects:
        owner = entities.get(compiled.slot.owner)
        if owner is not None and compiled.slot.path == (*owner.path, "effect"):
            calls[owner.id] = any(c.name == verb for c in ast.calls(compiled.tree))
    for entity in entities.values():
        shows = symbol in (entity.data.get(field) or [])
        if entity.id in calls and calls[entity.id] != shows:
            state = (
                f"shows the `{symbol}` symbol but its effect never calls `{verb}`"
                if shows
                else f"calls `{verb}` but lacks `{field}: [{symbol}]`"
            )
            yield Problem(
                check.get("code", "SYMBOL-MISMATCH"),
                f"`{entity.id}` {state}",
                _at(entity, field if shows else "effect"),
            )


def _less(pack: Pack, kind: str, check: Check) -> Iterator[Problem]:
    """A number field of each entity is less than another of its number fields."""
    if "than" not in check:
        return  # KIND-CHECK
    smaller, larger = str(check["less"]), str(check["than"])
    for entity in pack.entities_of(kind):
        low, high = entity.data.get(smaller), entity.data.get(larger)
        if isinstance(low, int | float) and isinstance(high, int | float) and not low < high:
            yield Problem(
                check.get("code", "VALUE-ORDER"),
                f"`{entity.id}` has `{smaller}: {low}`, which must be less than its `{larger}: {high}`",
                _at(entity, smaller),
            )


_ENTITY_RULES: dict[str, Callable[[Pack, str, Check], Iterator[Problem]]] = {"symbol": _symbol, "less": _less}
_PACK_RULES: dict[str, Callable[[Pack, str, Check], Iterator[Problem]]] = {
    "total": _total,
    "length": _length,
    "absent": _absent,
    "among": _among,
    "per_value": _per_value,
    "listed_once": _listed_once,
    "dealt": _dealt,
    "on_board": _on_board,
    "as_many_as": _as_many_as,
}


def _contexts(pack: Pack) -> dict[str, Any] | None:
    """The contexts the pack declares; None when its section of them, or one of them, was
    rejected (reported): a field may name the one left out."""
    return None if pack.partly_rejected("contexts") else pack.section("contexts")

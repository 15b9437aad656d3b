"""The values `coh list` and `coh show` print of an entity, made as a kind declares them (a
`display_value` of the schema: a kind's `list` columns and `show` lines).

A value is made from some data (the entity's record, or a value inside it) and the declarations
of its fields (their defaults stand for the fields the data leaves out). It may come to nothing
(`NOTHING`: a text marked `optional` that the pack does not have, a value shown only `when` a
field is set): the value it is part of is left out with it, up to a line of `coh show`, an item
of a list, a part of a `join` or a cell of `coh list` (then empty).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from coh_core.narrative import Narrator, Verbatim
from coh_core.packs.fields import is_set

Spec = Mapping[str, Any]


class _Nothing:
    """What a value that comes to nothing is (see the module's doc)."""

    def __repr__(self) -> str:
        return "NOTHING"


NOTHING = _Nothing()


def ui(narrator: Narrator, key: str, **params: Any) -> str:
    """A `ui.` text; string parameters are shown as they are (already in words, or ids)."""
    return narrator.ui(key, **{k: Verbatim(v) if isinstance(v, str) else v for k, v in params.items()})


class Display:
    """Makes the declared values of one entity in one language: its record (its data, name and
    own texts, `texts`, by their keys below `<kind>.<id>.`) and its kind's field declarations.

    `places` are the board's places in order (a game's city as it stands; the pack's
    `setup.board.locations` when not given), which a value marked `place` names by its number
    from 1. In `play` (the table of a game, not `coh show`), a value marked `provenance` (where
    the data come from) comes to nothing.
    """

    def __init__(
        self,
        narrator: Narrator,
        texts: Mapping[str, str],
        places: Sequence[str] | None = None,
        play: bool = False,
    ):
        self.narrator = narrator
        self.texts = texts
        self.places = list(places) if places is not None else _board(narrator)
        self.play = play

    def value(self, spec: Spec, data: Any, fields: Any = None) -> Any:
        """The value `spec` makes of `data`, whose fields `fields` declares (or NOTHING)."""
        if "when" in spec and not shown(data, spec["when"]):
            return NOTHING
        if self.play and spec.get("provenance"):
            return NOTHING
        found = self._made(spec, data, fields)
        if (found is NOTHING or found == "") and "or" in spec:
            return self.value(spec["or"], data, fields)
        return found

    def _made(self, spec: Spec, data: Any, fields: Any) -> Any:
        if "join" in spec:
            parts = [self.value(part, data, fields) for part in spec["join"]]
            return str(spec.get("sep", " ")).join(str(p) for p in parts if p is not NOTHING and p != "")
        value, inner = data, fields
        if "present" in spec:
            value, inner = [{"name": n, "value": data[n]} for n in spec["present"] if data.get(n)], None
        elif "field" in spec:
            name = str(spec["field"])
            value, inner = _field(data, name, fields), _inner_fields(fields, name)
            if value is None:
                return spec.get("default", "")
        if spec.get("entries") and isinstance(value, Mapping):
            value, inner = [{"name": k, "value": v} for k, v in value.items()], None
        if spec.get("numbered") and isinstance(value, list):
            value, inner = [{"number": n, "value": v} for n, v in enumerate(value, 1)], None
        if spec.get("place"):
            return self._place(value)
        cases = spec.get("cases")
        if isinstance(cases, Mapping) and isinstance(value, str) and value in cases:
            return self.value(cases[value], value, None)
        return self._shaped(spec, value, inner)

    def _place(self, number: Any) -> Any:
        """The name of the board's place of that number (from 1); the number where there is none."""
        if isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= len(self.places):
            return self.narrator.entity(self.places[number - 1])
        return number

    def _shaped(self, spec: Spec, value: Any, fields: Any) -> Any:
        """The value of a field (or the data) as the rest of `spec` shapes it."""
        if spec.get("size"):
            return len(value) if isinstance(value, list | dict | str) else 0
        if "sum" in spec:
            name = str(spec["sum"])
            return sum(_number(_field(v, name, fields)) for v in value if isinstance(v, Mapping))
        if isinstance(value, list) and ("item" in spec or "sep" in spec):
            items = [self.value(spec.get("item") or {}, v, fields) for v in value]
            return str(spec.get("sep", ", ")).join(str(i) for i in items if i is not NOTHING)
        if "text" in spec or "own_text" in spec:
            return self._text(spec, value, fields)
        if "pattern" in spec:
            filled = self._fill(spec, value, fields)
            if filled is None:
                return NOTHING
            return fill_fields(str(spec["pattern"]), {**_named(value, fields), **filled})
        return value

    def _text(self, spec: Spec, value: Any, fields: Any) -> Any:
        """A text of the pack (`text`: a `ui.` key) or of the entity's own (`own_text`), its key's
        `{field}` filled from the value; a missing one is NOTHING where it is `optional`."""
        own = "own_text" in spec
        key = fill_fields(str(spec["own_text" if own else "text"]), _named(value, fields))
        if own:
            found = self.texts.get(key)
            return found if found else (NOTHING if spec.get("optional") else "")
        if spec.get("optional") and not self.narrator.has(key):
            return NOTHING
        filled = self._fill(spec, value, fields)
        return NOTHING if filled is None else ui(self.narrator, key, **filled)

    def _fill(self, spec: Spec, value: Any, fields: Any) -> dict[str, Any] | None:
        """The values of a text's or pattern's `fill`; None when one of them is NOTHING."""
        filled = {str(name): self.value(sub, value, fields) for name, sub in (spec.get("fill") or {}).items()}
        return None if any(v is NOTHING for v in filled.values()) else filled


def _board(narrator: Narrator) -> list[str]:
    """The board's places in the pack's order (`setup.board.locations`; none without a board)."""
    board = narrator.pack.section("setup").get("board")
    places = board.get("locations") if isinstance(board, Mapping) else None
    return [str(p) for p in places] if isinstance(places, list) else []


def shown(data: Any, when: Any) -> bool:
    """Whether data has one of the fields `when` names (one, or a list), set: present, and no
    empty list, mapping or text, nor false."""
    names = when if isinstance(when, list) else [when]
    return isinstance(data, Mapping) and any(is_set(data.get(str(name))) for name in names)


def _field(data: Any, name: str, fields: Any) -> Any:
    """A field of the data; the field's declared default where the data leaves it out."""
    if not isinstance(data, Mapping):
        return None
    if name in data:
        return data[name]
    spec = fields.get(name) if isinstance(fields, Mapping) else None
    return spec.get("default") if isinstance(spec, Mapping) else None


def _inner_fields(fields: Any, name: str) -> Any:
    """The declarations of the fields of a record field (or of the records of a list field)."""
    spec = fields.get(name) if isinstance(fields, Mapping) else None
    return spec.get("fields") if isinstance(spec, Mapping) else None


def _named(value: Any, fields: Any) -> dict[str, Any]:
    """What a key or pattern fills `{name}` from: a record's fields (defaults included), or
    `{value}` for a plain value."""
    if not isinstance(value, Mapping):
        return {"value": value}
    declared = fields.items() if isinstance(fields, Mapping) else ()
    defaults = {str(n): s["default"] for n, s in declared if isinstance(s, Mapping) and "default" in s}
    return {**defaults, **value}


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# A field's name in braces: the only thing a pattern or a text key fills (no format spec, no
# attribute or index lookup: a stranger's pack could use those to read or blow up the output).
_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def fill_fields(pattern: str, fields: Mapping[str, Any]) -> str:
    """A pattern with each `{field}` replaced by the field's value as a pack writes it (empty if
    the record lacks it)."""
    return _FIELD.sub(lambda m: cell(fields.get(m.group(1), "")), pattern)


def cell(value: Any) -> str:
    """A value as a pack writes it: lists joined, true and false in lower case."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(cell(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return json_like(value)


def json_like(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(json_like(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {json_like(v)}" for k, v in value.items()) + "}"
    return str(value)

"""Plain YAML scalars that readers take for something other than what they look like.

coh reads a plain scalar the way PyYAML does (YAML 1.1), but a pack is also read by other
tools and by people, and YAML 1.1 and YAML 1.2 disagree: `no` is false in one and text in
the other, `3:00` is 180 in one and text in the other, `017` is 15 in one and 17 in the
other, `0o17` is text in one and 15 in the other. A plain scalar is refused when the two
read it differently, and also when both read it as a value no pack means (`~` for null, an
infinity or not-a-number). Written in quotes, any of them is text for every reader.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import yaml

from coh_core.limits import MAX_INTEGER_CHARS

BOOL_TRAP = "YAML-BOOL-TRAP"
TYPE_TRAP = "YAML-TYPE-TRAP"

_TAG = "tag:yaml.org,2002:"
_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()

# YAML 1.1's one-letter booleans: the specification (and Go's yaml.v2) has them, PyYAML and
# libyaml leave them as text. As values they are refused (a `y` meant as yes); as keys they are
# left alone, since `n` is the natural name of a count parameter (`params: {n: int}`).
_YAML11_LETTER_BOOLS = {"y": True, "Y": True, "n": False, "N": False}
_YAML11_TRUE = {"y", "yes", "on", "true"}

# The YAML 1.2 core schema (section 10.3.2 of the specification), for numbers, booleans and null.
_YAML12_NULL = re.compile(r"null|Null|NULL|~|")
_YAML12_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_YAML12_INT = re.compile(r"[-+]?[0-9]+")
_YAML12_OCTAL = re.compile(r"0o[0-7]+")
_YAML12_HEX = re.compile(r"0x[0-9a-fA-F]+")
_YAML12_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_YAML12_INF = re.compile(r"[-+]?\.(inf|Inf|INF)")
_YAML12_NAN = re.compile(r"\.(nan|NaN|NAN)")

# The first characters a trap can start with; any other plain scalar is passed over at once.
_TRAP_STARTS = frozenset("0123456789-+.~<=yYnNoO")

# Names of the forms, for the message: what makes a reader see a number in the text.
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?"), "base 60"),
    (re.compile(r"[-+]?0b[0-1_]+"), "binary"),
    (re.compile(r"[-+]?0o[0-7]+|[-+]?0[0-7_]+"), "octal"),
    (re.compile(r"[-+]?0x[0-9a-fA-F_]+"), "hexadecimal"),
    (re.compile(r"[^_]*_.*"), "digits grouped with `_`"),
    (re.compile(r"[-+]?0[0-9]+"), "a leading zero"),
    (re.compile(r".*[eE].*"), "an exponent"),
)


@dataclass(frozen=True)
class Reading:
    """What a YAML reader makes of a plain scalar: a kind and, when it has one, a value."""

    kind: str  # "bool", "int", "float", "null", "str", "date", "timestamp", "merge", "value"
    value: Any = None  # None for a number too long to convert (see MAX_INTEGER_CHARS)


@dataclass(frozen=True)
class Trap:
    """A plain scalar refused for what YAML readers make of it."""

    code: str  # BOOL_TRAP or TYPE_TRAP
    text: str
    yaml11: Reading
    yaml12: Reading

    def reading(self) -> str:
        """What YAML 1.1 reads, with YAML 1.2's reading when it differs: for the message.

        The form that makes a number of the text is named after the first reading that is one."""
        readings = [(self.yaml11, "1.1")]
        if not _same(self.yaml11, self.yaml12):
            readings.append((self.yaml12, "1.2"))
        form = _form_name(self.text)
        said = []
        for reading, version in readings:
            told = f"{_describe(reading)} by YAML {version}"
            if form and reading.kind in ("int", "float"):
                told, form = f"{told} ({form})", None
            said.append(told)
        return " and as ".join(said)

    def number(self) -> str | None:
        """The plain number to write when a number is meant, if readers make one of the text."""
        for reading in (self.yaml11, self.yaml12):
            if reading.kind in ("int", "float") and reading.value is not None:
                written = repr(reading.value)
                if math.isfinite(reading.value) and trap_of(written) is None:
                    return written
        return None

    def value_message(self) -> str:
        """The problem of the trap written as a value."""
        if self.code == BOOL_TRAP:
            return (
                f"`{self.text}` would be read as {_describe(self.yaml11)} by YAML 1.1; "
                f'write true or false for a boolean, or "{self.text}" for the text'
            )
        fixes = [f'"{self.text}" for the text']
        number = self.number()
        if number is not None:
            fixes.append(f"{number} for a number")
        if self.yaml11.kind == "null":
            fixes.append("null for no value")
        if self.yaml11.kind == "merge":
            fixes.insert(0, "the keys out (coh merges no mappings)")
        return f"`{self.text}` would be read as {self.reading()}; write {', or '.join(fixes)}"

    def key_message(self) -> str:
        """The problem of the trap written as a mapping's key."""
        if self.yaml11.kind == "merge":
            fix = f'write the keys out (coh merges no mappings), or quote it ("{self.text}")'
        else:
            fix = f'quote it ("{self.text}") or use another name'
        return f"key `{self.text}` would be read as {self.reading()}; {fix}"


def trap_of(text: str, key: bool = False) -> Trap | None:
    """The trap a plain (unquoted) scalar is, or None when every reader takes it as it looks."""
    if text[:1] not in _TRAP_STARTS or (key and text in _YAML11_LETTER_BOOLS):
        return None
    old, new = yaml11_reading(text), yaml12_reading(text)
    if old.kind == "bool" or new.kind == "bool":
        return None if _same(old, new) else Trap(BOOL_TRAP, text, old, new)
    if _same(old, new) and not _means_nothing(text, old):
        return None
    return Trap(TYPE_TRAP, text, old, new)


def yaml11_reading(text: str) -> Reading:
    """What PyYAML (YAML 1.1) reads a plain scalar as, with YAML 1.1's `y` and `n` booleans."""
    if text in _YAML11_LETTER_BOOLS:
        return Reading("bool", _YAML11_LETTER_BOOLS[text])
    tag = str(_RESOLVER.resolve(yaml.ScalarNode, text, (True, False)))  # type: ignore[no-untyped-call]
    kind = tag.removeprefix(_TAG)
    if kind == "bool":
        return Reading("bool", text.lower() in _YAML11_TRUE)
    if kind == "null":
        return Reading("null")
    if kind in ("int", "float"):
        if len(text) > MAX_INTEGER_CHARS:
            return Reading(kind)
        node = yaml.ScalarNode(tag, text)
        if kind == "int":
            return Reading(kind, _CONSTRUCTOR.construct_yaml_int(node))
        return Reading(kind, _CONSTRUCTOR.construct_yaml_float(node))
    if kind == "timestamp":
        return Reading("date" if len(text) == len("2001-12-14") else "timestamp", text)
    if kind in ("merge", "value"):
        return Reading(kind)
    return Reading("str", text)


def yaml12_reading(text: str) -> Reading:
    """What a YAML 1.2 reader of the core schema reads a plain scalar as."""
    if _YAML12_NULL.fullmatch(text):
        return Reading("null")
    if _YAML12_BOOL.fullmatch(text):
        return Reading("bool", text.lower() == "true")
    for pattern, base in ((_YAML12_INT, 10), (_YAML12_OCTAL, 8), (_YAML12_HEX, 16)):
        if pattern.fullmatch(text):
            return Reading("int", int(text, base) if len(text) <= MAX_INTEGER_CHARS else None)
    if _YAML12_FLOAT.fullmatch(text):
        return Reading("float", float(text) if len(text) <= MAX_INTEGER_CHARS else None)
    if _YAML12_INF.fullmatch(text):
        return Reading("float", -math.inf if text.startswith("-") else math.inf)
    if _YAML12_NAN.fullmatch(text):
        return Reading("float", math.nan)
    return Reading("str", text)


def _same(one: Reading, other: Reading) -> bool:
    """Whether two readings are the same value (NaN is the same as NaN here)."""
    if one.kind == other.kind == "float" and one.value is not None and other.value is not None:
        return one.value == other.value or (math.isnan(one.value) and math.isnan(other.value))
    return one == other


def _means_nothing(text: str, reading: Reading) -> bool:
    """A value both YAML versions agree on that no pack means: `~` for null, infinity, NaN."""
    if reading.kind == "float" and reading.value is not None:
        return not math.isfinite(reading.value)
    return text == "~"


def _describe(reading: Reading) -> str:
    value = reading.value
    if reading.kind == "bool":
        return f"the boolean {'true' if value else 'false'}"
    if reading.kind in ("int", "float"):
        if value is None:
            return "a number"
        if math.isnan(value):
            return "the number NaN (not a number)"
        if math.isinf(value):
            return "the number minus infinity" if value < 0 else "the number infinity"
        return f"the number {value!r}"
    return {
        "null": "null (no value)",
        "str": "text",
        "date": f"the date {value}",
        "timestamp": f"the date and time {value}",
        "merge": "a merge key",
        "value": "the value indicator",
    }[reading.kind]


def _form_name(text: str) -> str | None:
    return next((name for pattern, name in _FORMS if pattern.fullmatch(text)), None)


class Dumper(yaml.SafeDumper):
    """Safe YAML that coh reads back as it was written: PyYAML writes a string plain whenever
    YAML 1.1 would read it back as a string, so `05099179` or `0o17` (numbers to YAML 1.2) and
    `y` would come out plain, and be refused; this writer double-quotes them."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = '"' if trap_of(value) is not None else None
    return dumper.represent_scalar(f"{_TAG}str", value, style=style)


Dumper.add_representer(str, _represent_str)

"""A record file's text, checked before anything reads it: size, encoding, one JSON object per
line within fixed limits, and the position of any value in a line.

Records come from strangers (a log attached to a bug report), so every way a file can be
broken ends in a located `REPLAY-*` problem, never in an exception of the JSON decoder.
Columns count characters (code points) from 1, as JSON decoder errors do.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coh_core.engine.runtime import EngineError
from coh_core.errors import Location, Problem, UsageError
from coh_core.limits import (
    MAX_INT_DIGITS,
    MAX_LINE_CHARS,
    MAX_LINES,
    MAX_RECORD_BYTES,
)
from coh_core.limits import MAX_RECORD_DEPTH as MAX_DEPTH

# A record of a whole game is about 10 KB; these bounds leave ample room and keep a hostile
# file from costing more than a moment and some tens of megabytes.
from coh_core.packs.paths import PathRefused, readable_file

JsonPath = tuple[str | int, ...]

# JSON text allows no control character other than these whitespace ones, even in strings.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_BLANK = re.compile(r"[ \t\r]*")
_SPACE = re.compile(r"[ \t\r\n]*")
# Strings (an unterminated one runs to the end of the line) and the brackets outside them.
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
# Strings, and the literals the decoder hands to its number and constant hooks.
_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"?|-?Infinity|NaN|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


class RecordError(EngineError):
    """A game record that cannot be replayed: its problems, the first as code and location."""

    def __init__(self, problems: list[Problem]):
        first = problems[0]
        super().__init__(first.code, first.message, first.location)
        self.problems = problems

    def _extra(self) -> dict[str, Any]:
        return {"problems": self.problems}


def refuse(code: str, message: str, where: Location) -> RecordError:
    """A record error with one problem."""
    return RecordError([Problem(code, message, where)])


@dataclass(frozen=True)
class Line:
    """One non-blank line of a record: where it is, its text and its JSON object."""

    file: str
    number: int
    text: str
    value: dict[str, Any]

    def at(self, path: JsonPath = (), key: bool = False) -> Location:
        """The position of the value at `path` (of its key with `key`), or of its nearest container."""
        return Location(self.file, self.number, column_of(self.text, path, key))


def echo(value: Any, width: int = 60) -> str:
    """A value as JSON on one line, ASCII only (no terminal escapes), shortened when long."""
    try:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON data (from an exception's arguments): its text
        text = json.dumps(str(value), ensure_ascii=True)
    return text if len(text) <= width else text[: width - 3] + "..."


def printable(text: str, width: int = 300) -> str:
    """Text that may quote a record (an engine message): invisible characters escaped, shortened."""
    safe = "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)
    return safe if len(safe) <= width else safe[: width - 3] + "..."


def json_path(path: JsonPath) -> str:
    """A path into a JSON value as written in JavaScript: `answers.red[1]`, `result["odd key"]`."""
    text = ""
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif _NAME.fullmatch(step):
            text += f".{step}" if text else step
        else:
            text += f"[{echo(step)}]"
    return text


def read_lines(path: Path) -> Iterator[Line]:
    """The record's non-blank lines as JSON objects, each checked; RecordError at the first bad one.

    The file is read whole (up to MAX_RECORD_BYTES) and checked for encoding first; lines
    are then parsed one at a time, so that a reader that stops early parses no further.
    """
    display = str(path)
    text = _decode(_read_capped(path, display), display)
    if text.count("\n", 0, len(text) - 1) >= MAX_LINES:  # a final newline ends a line, starts none
        raise refuse(
            "REPLAY-LIMIT",
            f"more than {MAX_LINES} lines; a whole game takes some hundreds",
            Location(display, MAX_LINES + 1, 1),
        )
    for number, line in _numbered_lines(text):
        if _BLANK.fullmatch(line):
            continue  # blank lines carry nothing (an editor may add one at the end)
        value = parse_line(line, Location(display, number, 1))
        if not isinstance(value, dict):
            raise refuse(
                "REPLAY-JSON",
                f"each line of a record is a JSON object; this one is {echo(value)}",
                Location(display, number, _space(line, 0) + 1),
            )
        yield Line(display, number, line, value)


def _read_capped(path: Path, display: str) -> bytes:
    try:
        with readable_file(path).open("rb") as handle:  # a pipe or a device could block: refused
            data = handle.read(MAX_RECORD_BYTES + 1)
    except PathRefused as refused:
        raise UsageError(refused.message, Location(display), code=refused.code) from None
    except OSError as exc:
        raise UsageError(
            f"cannot read {display}: {exc.strerror}", Location(display), code="IO-READ"
        ) from None
    if len(data) > MAX_RECORD_BYTES:
        line = data.count(b"\n", 0, MAX_RECORD_BYTES) + 1
        start = data.rfind(b"\n", 0, MAX_RECORD_BYTES) + 1
        col = len(data[start:MAX_RECORD_BYTES].decode("utf-8", errors="replace")) + 1
        raise refuse(
            "REPLAY-LIMIT",
            f"the record is larger than {_size(MAX_RECORD_BYTES)}; a whole game takes some KB",
            Location(display, line, col),
        )
    return data


def _size(count: int) -> str:
    mebibytes, rest = divmod(count, 1024 * 1024)
    return f"{mebibytes} MiB" if mebibytes and not rest else f"{count} bytes"


def _decode(data: bytes, display: str) -> str:
    """The file's text: UTF-8 without control characters, or REPLAY-ENCODING at the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[start : exc.start].decode("utf-8")) + 1  # the prefix decoded: the error is after
        raise refuse(
            "REPLAY-ENCODING",
            f"not UTF-8 text: byte 0x{data[exc.start]:02x}",
            Location(display, line, col),
        ) from None
    control = _CONTROL.search(text)
    if control is not None:
        index = control.start()
        line = text.count("\n", 0, index) + 1
        col = index - (text.rfind("\n", 0, index) + 1) + 1
        raise refuse(
            "REPLAY-ENCODING",
            f"binary content: control character U+{ord(text[index]):04X}, which JSON text never holds",
            Location(display, line, col),
        )
    return text


def _numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines split at \\n only (U+2028 and friends may sit inside JSON strings), without \\r\\n's \\r."""
    start, number = 0, 1
    while start < len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        yield number, text[start:end].removesuffix("\r")
        start, number = end + 1, number + 1


class _Refused(Exception):
    """Raised from a decoder hook: a literal the record may not hold."""

    def __init__(self, code: str, message: str, literal: str):
        super().__init__(message)
        self.code, self.message, self.literal = code, message, literal


def _integer(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(
            "REPLAY-LIMIT",
            f"an integer of {len(literal.lstrip('-'))} digits; a record's integers have at most"
            f" {MAX_INT_DIGITS}",
            literal,
        )
    return int(literal)


def _float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _Refused("REPLAY-LIMIT", f"the number {literal} is too large", literal)
    return value


def _constant(literal: str) -> Any:
    raise _Refused("REPLAY-JSON", f"{literal} is not JSON (JSON has no NaN or Infinity)", literal)


class _DuplicateKey(Exception):
    """An object holds a key twice: json.loads would silently keep the last."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _DuplicateKey
    return value


def parse_line(text: str, where: Location) -> Any:
    """One line's JSON value, within the limits; a located RecordError otherwise."""

    def at(index: int) -> Location:
        return Location(where.file, where.line, index + 1)

    if len(text) > MAX_LINE_CHARS:
        raise refuse("REPLAY-LIMIT", f"a line longer than {MAX_LINE_CHARS} characters", at(MAX_LINE_CHARS))
    # Cheap test first: a line nested deeper than the bound has more brackets than the bound.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        deep = _too_deep(text)
        if deep is not None:
            raise refuse("REPLAY-LIMIT", f"nested deeper than {MAX_DEPTH} levels", at(deep))
    try:
        return json.loads(
            text,
            parse_int=_integer,
            parse_float=_float,
            parse_constant=_constant,
            object_pairs_hook=_object,
        )
    except json.JSONDecodeError as exc:
        raise refuse("REPLAY-JSON", f"not JSON: {exc.msg}", at(exc.pos)) from None
    except _Refused as refused:  # not `exc`: mypyc gives one name one type in a function
        raise refuse(refused.code, refused.message, at(_literal_index(text, refused.literal))) from None
    except _DuplicateKey:
        key, index = _first_duplicate(text)
        raise refuse("REPLAY-JSON", f"the key {echo(key)} appears twice in one object", at(index)) from None


def _too_deep(text: str) -> int | None:
    """Index of the first bracket that opens a container deeper than MAX_DEPTH, if any."""
    depth = 0
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in ("]", "}"):
            depth -= 1
    return None


def _literal_index(text: str, literal: str) -> int:
    """Where a number or constant first occurs outside strings (the decoder reads left to right)."""
    for match in _LITERAL.finditer(text):
        if match.group() == literal:
            return match.start()
    return 0  # not reached: the decoder read the literal from this text


# --- positions of values -------------------------------------------------------------------

# Reads keys and skips scalars without converting numbers: the walker needs where each one ends.
_SKIPPER = json.JSONDecoder(parse_int=len, parse_float=len, parse_constant=len)


@dataclass(frozen=True)
class _Spot:
    path: JsonPath
    value: int  # index where the value starts
    key: int | None  # index where its key starts (members of objects)


def _space(text: str, index: int) -> int:
    return _SPACE.match(text, index).end()  # type: ignore[union-attr]  # `*` always matches


def _walk(text: str, index: int, path: JsonPath, key: int | None) -> Generator[_Spot, None, int]:
    """Every value from the one at `index` on, in text order; returns the index after it.

    Only for text the decoder has read up to the spots asked for: it does not check syntax.
    """
    yield _Spot(path, index, key)
    opener = text[index]
    if opener not in "[{":
        return _SKIPPER.raw_decode(text, index)[1]
    closer = "}" if opener == "{" else "]"
    index = _space(text, index + 1)
    count = 0
    while text[index] != closer:
        if opener == "{":
            name, after = _SKIPPER.raw_decode(text, index)
            start = _space(text, _space(text, after) + 1)  # after the colon
            end = yield from _walk(text, start, (*path, name), index)
        else:
            end = yield from _walk(text, index, (*path, count), None)
        index = _space(text, end)
        if text[index] == ",":
            index = _space(text, index + 1)
        count += 1
    return index + 1


def _spots(text: str) -> Iterator[_Spot]:
    yield from _walk(text, _space(text, 0), (), None)


def column_of(text: str, path: JsonPath, key: bool = False) -> int:
    """1-based column of the value at `path` in a parsed line (of its key with `key`).

    When the path goes further than the line does, the nearest enclosing value's column.
    """
    best = 0
    for spot in _spots(text):
        if path[: len(spot.path)] != spot.path:
            continue
        best = spot.key if key and spot.key is not None and spot.path == path else spot.value
        if spot.path == path:
            break
    return best + 1


def _first_duplicate(text: str) -> tuple[str, int]:
    """The first key (in text order) that repeats one of its object, and where it stands."""
    seen: dict[JsonPath, set[str]] = {}
    for spot in _spots(text):
        if spot.key is None or not spot.path or not isinstance(spot.path[-1], str):
            continue
        keys = seen.setdefault(spot.path[:-1], set())
        if spot.path[-1] in keys:
            return spot.path[-1], spot.key
        keys.add(spot.path[-1])
    return "", 0  # not reached: the decoder found a duplicate in this text

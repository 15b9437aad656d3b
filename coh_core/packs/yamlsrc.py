"""Safe YAML loading that keeps source positions.

Only safe loading is used (the C loader when PyYAML has it). Documents are composed
to nodes and converted here, so that every value keeps its line and column, duplicate
keys are errors, and YAML 1.1 booleans written as words (`no`, `on`, `yes`, `off`) are
reported instead of silently turning into true/false.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from coh_core.errors import Location, Problem

try:
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_BOOL_TAG = "tag:yaml.org,2002:bool"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_NULL_TAG = "tag:yaml.org,2002:null"
_STR_TAG = "tag:yaml.org,2002:str"
_PLAIN_BOOLS = {"true", "false"}
_CONSTRUCTOR = yaml.constructor.SafeConstructor()

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class ScalarSource:
    """Where a string scalar's text sits in its file, to map offsets inside it."""

    start: int  # index of the scalar's first character in the file text
    end: int
    style: str | None  # None plain, "'" or '"' quoted, "|" or ">" block


@dataclass
class YamlDoc:
    """A loaded YAML file: its data plus positions of every key and value."""

    path: str
    text: str
    data: Any
    values: dict[Path_, tuple[int, int]] = field(default_factory=dict)  # path -> (line, col)
    keys: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    scalars: dict[Path_, ScalarSource] = field(default_factory=dict)
    # Values and keys already reported as YAML 1.1 traps; the schema stays quiet about them.
    trapped: set[Path_] = field(default_factory=set)
    # Paths where the schema found a problem: what lies below them is not checked further.
    invalid: set[Path_] = field(default_factory=set)
    owner: str = ""  # the id of the pack the file belongs to
    _line_starts: list[int] = field(default_factory=list)

    def origin(self, path: Path_) -> tuple[YamlDoc, Path_]:
        """The file and path a value was written at (itself here; see ComposedDoc)."""
        return self, tuple(path)

    def is_valid(self, prefix: Path_) -> bool:
        """Whether the schema found nothing wrong at or below `prefix`."""
        size = len(prefix)
        return not any(path[:size] == prefix for path in self.invalid)

    def location(self, path: Path_, key: bool = False) -> Location:
        """The location of the value (or its key) at `path`, or of its nearest parent."""
        table = self.keys if key else self.values
        probe = tuple(path)
        while probe not in table and probe:
            probe = probe[:-1]
        line, col = table.get(probe, (1, 1))
        return Location(self.path, line, col)

    def _starts(self) -> list[int]:
        """Index of the first character of each line, computed once per document."""
        if not self._line_starts:
            self._line_starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]
        return self._line_starts

    def position_of_index(self, index: int) -> tuple[int, int]:
        starts = self._starts()
        line = bisect.bisect_right(starts, index)
        return line, index - starts[line - 1] + 1

    def source_line(self, line: int) -> str:
        starts = self._starts()
        if not 0 < line <= len(starts):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end].rstrip("\r")

    def offset_in_scalar(self, path: Path_, offset: int) -> Location:
        """The file location of character `offset` of the string scalar at `path`."""
        source = self.scalars.get(tuple(path))
        value = _get(self.data, path)
        if source is None or not isinstance(value, str):
            return self.location(path)
        index = _map_offset(self.text, source, value, offset)
        line, col = self.position_of_index(index)
        return Location(self.path, line, col)


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        data = data[part]
    return data


def _map_offset(text: str, source: ScalarSource, value: str, offset: int) -> int:
    """Map an offset in a scalar's value to an index in the file.

    YAML folding and indentation change whitespace only, so the k-th non-blank
    character of the value is the k-th non-blank character of the scalar's source.
    """
    start = source.start
    if source.style in ("'", '"'):
        start += 1
    elif source.style in ("|", ">"):
        start = text.index("\n", start) + 1  # skip the block header line
    wanted = sum(1 for c in value[:offset] if not c.isspace())
    seen = 0
    index = start
    limit = max(source.end, start)
    while index < limit:
        width, blank = _source_char(text, index, source.style)
        if not blank:
            if seen == wanted:
                return index
            seen += 1
        index += width
    return limit


# Escapes that stand for white space (YAML 1.1 section 5.7), and the widths of hex escapes.
_BLANK_ESCAPES = {"n", "t", "r", " ", "\n", "_", "L", "P", "N", "f", "v"}
_ESCAPE_WIDTHS = {"x": 4, "u": 6, "U": 10}


def _source_char(text: str, index: int, style: str | None) -> tuple[int, bool]:
    """How many source characters make the next value character, and whether it is blank."""
    char = text[index]
    if style == '"' and char == "\\" and index + 1 < len(text):
        escape = text[index + 1]
        return _ESCAPE_WIDTHS.get(escape, 2), escape in _BLANK_ESCAPES or escape == "\n"
    if style == "'" and text.startswith("''", index):
        return 2, False
    return 1, char.isspace()


def load_yaml(path: Path, display: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Load one YAML file safely; returns the document or the problems that stop it."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, [Problem("IO-READ", f"cannot read file: {exc.strerror}", Location(display))]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [
            Problem(
                "IO-ENCODING",
                f"not UTF-8: byte 0x{raw[exc.start]:02x}",
                Location(display, line, col),
            )
        ]
    return parse_yaml(text, display)


def parse_yaml(text: str, display: str) -> tuple[YamlDoc | None, list[Problem]]:
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_problem(exc, display, text)]
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        return None, [Problem("YAML-SYNTAX", str(exc), Location(display))]
    doc = YamlDoc(display, text, None)
    problems: list[Problem] = []
    doc.data = _convert(node, (), doc, problems) if node is not None else None
    return doc, problems


def _syntax_problem(exc: yaml.MarkedYAMLError, display: str, text: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
    problem = exc.problem or "invalid YAML"
    lines = text.splitlines()
    bad_line = lines[line - 1] if 0 < line <= len(lines) else ""
    if "\t" in problem or "'\\t'" in problem or bad_line[: max(col, 1)].lstrip(" ").startswith("\t"):
        tab_col = bad_line.find("\t") + 1 if "\t" in bad_line else col
        return Problem(
            "YAML-TAB",
            "a tab character is used for indentation; YAML allows spaces only",
            Location(display, line, tab_col),
            _caret(bad_line, tab_col),
        )
    context = f" ({exc.context})" if exc.context else ""
    return Problem("YAML-SYNTAX", f"{problem}{context}", Location(display, line, col), _caret(bad_line, col))


def _caret(line_text: str, col: int) -> str:
    shown = line_text.replace("\t", " ")
    return f"    {shown}\n    {' ' * max(col - 1, 0)}^"


def _convert(node: yaml.Node, path: Path_, doc: YamlDoc, problems: list[Problem]) -> Any:
    doc.values[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        return _convert_mapping(node, path, doc, problems)
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, (*path, i), doc, problems) for i, item in enumerate(node.value)]
    assert isinstance(node, yaml.ScalarNode)
    return _convert_scalar(node, path, doc, problems)


def _convert_mapping(
    node: yaml.MappingNode, path: Path_, doc: YamlDoc, problems: list[Problem]
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key_loc = Location(doc.path, key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        if not isinstance(key_node, yaml.ScalarNode):
            problems.append(Problem("YAML-KEY", "a mapping key must be a plain name", key_loc))
            continue
        key = key_node.value
        if key_node.tag == _BOOL_TAG and not key_node.style:
            doc.trapped.add((*path, key))
            problems.append(
                Problem(
                    "YAML-BOOL-TRAP",
                    f"key `{key}` would be read as the boolean {_yaml11_bool(key)} by YAML 1.1; "
                    f'quote it ("{key}") or use another name',
                    key_loc,
                )
            )
        if key in result:
            first = doc.keys[(*path, key)]
            problems.append(
                Problem(
                    "YAML-DUPLICATE-KEY",
                    f"duplicate key `{key}` (first defined at line {first[0]})",
                    key_loc,
                )
            )
            continue
        doc.keys[(*path, key)] = (key_loc.line, key_loc.col)
        result[key] = _convert(value_node, (*path, key), doc, problems)
    return result


def _yaml11_bool(word: str) -> str:
    return "true" if word.lower() in {"yes", "y", "on", "true"} else "false"


def _convert_scalar(node: yaml.ScalarNode, path: Path_, doc: YamlDoc, problems: list[Problem]) -> Any:
    value: str = node.value
    style = node.style or None  # the C loader marks plain scalars with "", the Python one None
    if style is not None or node.tag == _STR_TAG:
        doc.scalars[path] = ScalarSource(node.start_mark.index, node.end_mark.index, style)
        return value
    if node.tag == _BOOL_TAG:
        if value.lower() not in _PLAIN_BOOLS:
            doc.trapped.add(path)
            line, col = node.start_mark.line + 1, node.start_mark.column + 1
            problems.append(
                Problem(
                    "YAML-BOOL-TRAP",
                    f"`{value}` would be read as the boolean {_yaml11_bool(value)} by YAML 1.1; "
                    f'write true or false for a boolean, or "{value}" for the text',
                    Location(doc.path, line, col),
                )
            )
            return value
        return value.lower() == "true"
    if node.tag == _INT_TAG:
        return _CONSTRUCTOR.construct_yaml_int(node)
    if node.tag == _FLOAT_TAG:
        return _CONSTRUCTOR.construct_yaml_float(node)
    if node.tag == _NULL_TAG:
        return None
    return value

"""Safe, bounded YAML loading that keeps source positions.

Only safe loading is used (the C loader when PyYAML has it). Documents are composed
to nodes and converted here, so that every value keeps its line and column, duplicate
keys are errors, and plain scalars that YAML readers take for something else than they look
like (booleans written as words such as `no`, base-60 numbers such as `3:00`, octals, dates,
`~`: see yaml_traps) are reported instead of silently changing type.
"""

from __future__ import annotations

import bisect
import hashlib
import pickle
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from coh_core import cache_dir
from coh_core.errors import Location, Problem
from coh_core.limits import (
    MAX_ALIAS_VALUES,
    MAX_FILE_BYTES,
    MAX_INTEGER_CHARS,
    MAX_YAML_DEPTH,
    MAX_YAML_INTEGER,
    MAX_YAML_VALUES,
)
from coh_core.packs.yaml_traps import trap_of

try:
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_BOOL_TAG = "tag:yaml.org,2002:bool"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_NULL_TAG = "tag:yaml.org,2002:null"
_STR_TAG = "tag:yaml.org,2002:str"
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_RESOLVER = yaml.resolver.Resolver()

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
    _invalid_prefixes: set[Path_] = field(default_factory=set)  # every prefix of those, for is_valid
    # Of those, the ones inside an entry the pack names itself (a counter, a message, a type...):
    # the entry, which is left out alone while the rest of its section is checked.
    entry_of: dict[Path_, Path_] = field(default_factory=dict)
    owner: str = ""  # the id of the pack the file belongs to
    _line_starts: list[int] = field(default_factory=list)

    def origin(self, path: Path_) -> tuple[YamlDoc, Path_]:
        """The file and path a value was written at (itself here; see ComposedDoc)."""
        return self, tuple(path)

    def mark_invalid(self, path: Path_, entry: Path_ | None = None) -> None:
        """Record a schema problem at `path`: it and its parents are no longer valid; `entry`:
        the named entry it lies in, if any."""
        self.invalid.add(path)
        self._invalid_prefixes.update(path[:size] for size in range(len(path) + 1))
        if entry is not None:
            self.entry_of[path] = entry

    def clear_invalid(self) -> None:
        self.invalid.clear()
        self._invalid_prefixes.clear()
        self.entry_of.clear()

    def rejected_entries(self, prefix: Path_) -> list[Path_] | None:
        """The named entries below `prefix` that hold every schema problem found there (none if
        there is none); None when a problem lies in no such entry (the whole value is rejected)."""
        size = len(prefix)
        below = [path for path in self.invalid if path[:size] == tuple(prefix)]
        entries = [self.entry_of.get(path) for path in below]
        if any(entry is None or len(entry) <= size for entry in entries):
            return None
        return sorted({entry for entry in entries if entry is not None}, key=str)

    def is_valid(self, prefix: Path_) -> bool:
        """Whether the schema found nothing wrong at or below `prefix` (in constant time)."""
        return tuple(prefix) not in self._invalid_prefixes

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

    def index_of(self, line: int, col: int) -> int:
        """The index in the text of a 1-based line and column (the inverse of position_of_index)."""
        starts = self._starts()
        return starts[min(max(line, 1), len(starts)) - 1] + col - 1

    def path_at(self, line: int, col: int) -> Path_ | None:
        """The data path of what is written at a place: a value (the deepest one starting there),
        else a key, else the string scalar the place is inside; None if nothing is."""
        for table in (self.values, self.keys):
            paths = [path for path, at in table.items() if at == (line, col)]
            if paths:
                return max(paths, key=len)
        index = self.index_of(line, col)
        return next((path for path, at in self.scalars.items() if at.start <= index < at.end), None)

    def source_line(self, line: int) -> str:
        starts = self._starts()
        if not 0 < line <= len(starts):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end].rstrip("\r")

    def index_in_scalar(self, path: Path_, offset: int) -> int | None:
        """The index in the file's text of character `offset` of the string scalar at `path`
        (None if there is none there)."""
        source = self.scalars.get(tuple(path))
        value = _get(self.data, path)
        if source is None or not isinstance(value, str):
            return None
        return _map_offset(self.text, source, value, offset)

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
    """Load one YAML file safely; returns the document or the problems that stop it.

    The caller has checked that `path` is a regular file inside its pack (see `safe_path`).
    """
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, [Problem("IO-READ", f"cannot read file: {exc.strerror}", Location(display))]
    if len(raw) > MAX_FILE_BYTES:
        return None, [
            Problem("YAML-LIMIT", f"file larger than {MAX_FILE_BYTES // 2**20} MiB", Location(display, 1, 1))
        ]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        col = len(raw[line_start : exc.start].decode("utf-8", errors="replace")) + 1  # in characters
        return None, [
            Problem(
                "IO-ENCODING",
                f"not UTF-8: byte 0x{raw[exc.start]:02x}",
                Location(display, line, col),
            )
        ]
    return _parsed_once(text, display)


def _parsed_once(text: str, display: str) -> tuple[YamlDoc | None, list[Problem]]:
    """`parse_yaml`, or what it gave an earlier run for the same text (coh's cache: each entry
    named by a digest of the text, in a file named by a digest of this code). The text alone
    names it: a copy of a pack in another folder finds the entries of the original, and the
    name the file is shown by is put in afterwards."""
    known = _known_docs()
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    stored = known.get(key)
    if stored is not None:
        try:
            # written by coh in the user's own cache folder (private to the user)
            doc, problems = pickle.loads(stored)
            return _shown_as(doc, problems, display)
        except Exception:  # a damaged entry: parse again
            del known[key]
    doc, problems = parse_yaml(text, display)
    if doc is not None:
        known.learn(key, pickle.dumps((doc, problems), protocol=pickle.HIGHEST_PROTOCOL))
    return doc, problems


def _shown_as(doc: YamlDoc, problems: list[Problem], display: str) -> tuple[YamlDoc, list[Problem]]:
    """A document and its problems, parsed under one name, under another (`display`)."""
    shown = doc.path
    if shown == display:
        return doc, problems
    doc.path = display
    moved = [
        Problem(p.code, p.message, _renamed(p.location, shown, display), p.context, p.also) for p in problems
    ]
    return doc, moved


def _renamed(where: Location, shown: str, display: str) -> Location:
    return Location(display, where.line, where.col) if where.file == shown else where


@cache
def _known_docs() -> cache_dir.Stored:
    from coh_core import errors, limits
    from coh_core.packs import yaml_traps

    sources = [Path(__file__), Path(errors.__file__), Path(limits.__file__), Path(yaml_traps.__file__)]
    return cache_dir.stored("yaml", sources, [cache_dir.library_stamp("yaml"), sys.version])


def parse_yaml(text: str, display: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Parse one YAML document into data with positions, within the limits above."""
    try:
        return _parse_with(_Loader, text, display)
    except _TooDeepForScanner:
        # libyaml (PyYAML >= 6.0.4) refuses deep flow nesting while it scans ahead, before our
        # depth limit sees the events; the pure-Python parser reads event by event, so our own
        # limit stops it at the same place whichever PyYAML is installed.
        return _parse_with(yaml.SafeLoader, text, display)


class _TooDeepForScanner(Exception):
    """The scanner gave up on nesting before the builder could apply MAX_YAML_DEPTH."""


def _parse_with(
    loader: type[yaml.SafeLoader], text: str, display: str
) -> tuple[YamlDoc | None, list[Problem]]:
    doc = YamlDoc(display, text, None)
    problems: list[Problem] = []
    builder = _Builder(doc, problems)
    try:
        for event in yaml.parse(text, Loader=loader):
            builder.feed(event)
    except yaml.MarkedYAMLError as exc:
        if loader is not yaml.SafeLoader and "maximum nesting depth" in str(exc.problem):
            raise _TooDeepForScanner from exc
        return None, [_syntax_problem(exc, display, text)]
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        return None, [Problem("YAML-SYNTAX", str(exc), Location(display))]
    except _Stop as stop:
        return None, [*problems, stop.problem]
    doc.data = builder.result
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
    if "expected ',' or '}'" in problem and bad_line[col - 1 : col] == "[":
        # `{type: list[count]}`: inside braces, YAML reads the bracket as the start of a list
        value = _bracketed(bad_line, _word_start(bad_line, col - 1), col - 1)
        context += f'; inside `{{...}}` a value with brackets is written in quotes: "{value}"'
    return Problem("YAML-SYNTAX", f"{problem}{context}", Location(display, line, col), _caret(bad_line, col))


def _bracketed(line_text: str, start: int, bracket: int) -> str:
    """The text from `start` to the bracket that closes the one at `bracket` (or the line's end)."""
    depth = 0
    for index in range(bracket, len(line_text)):
        depth += {"[": 1, "]": -1}.get(line_text[index], 0)
        if depth == 0:
            return line_text[start : index + 1]
    return line_text[start:].rstrip()


def _word_start(line_text: str, at: int) -> int:
    """Where the word that ends at `at` begins (`list` of `list[count]`)."""
    start = at
    while start > 0 and (line_text[start - 1].isalnum() or line_text[start - 1] == "_"):
        start -= 1
    return start


def _caret(line_text: str, col: int) -> str:
    shown = line_text.replace("\t", " ")
    return f"    {shown}\n    {' ' * max(col - 1, 0)}^"


class _Stop(Exception):
    """A problem after which the rest of the file is not read."""

    def __init__(self, problem: Problem):
        super().__init__(problem.message)
        self.problem = problem


@dataclass
class _Frame:
    """An open mapping or list, and for a mapping where it stands between keys and values."""

    path: Path_
    value: dict[str, Any] | list[Any]
    is_mapping: bool = False
    key: str | None = None  # a mapping's key waiting for its value
    skip_value: bool = False  # the value of a refused or duplicate key is not read


@dataclass
class _Anchor:
    """Where an anchored node's events are in the file's event list, and how many values it holds."""

    start: int
    end: int = -1  # -1 while the node is still open
    nodes: int = 0
    depth: int = 0


_START_EVENTS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_START_TYPES: frozenset[type[yaml.Event]] = frozenset(_START_EVENTS)
_END_TYPES: frozenset[type[yaml.Event]] = frozenset({yaml.SequenceEndEvent, yaml.MappingEndEvent})


class _Builder:
    """Builds data and positions from parser events, one event at a time.

    Working from events rather than from a composed node graph keeps every limit in one
    place: the nesting depth is checked before anything deeper is read, an alias is
    expanded by replaying the events of its anchor against a budget, and explicit tags are
    seen as they are written.
    """

    def __init__(self, doc: YamlDoc, problems: list[Problem]):
        self.doc = doc
        self.problems = problems
        self.result: Any = None
        self.stack: list[_Frame] = []
        self.events: list[yaml.Event] = []  # the file's own events, for aliases to replay
        self.anchors: dict[str, _Anchor] = {}
        self.open_anchors: list[tuple[str, _Anchor]] = []
        self.replaying = 0
        self.alias_site: yaml.Event | None = None  # the alias written in the file being expanded
        self.documents = 0
        self.depth = 0
        self.skip = 0  # > 0 inside a node that is not read (a refused key or its value)
        self.nodes = 0  # values built, aliases expanded
        self.alias_nodes = 0  # of which aliases added

    def feed(self, event: yaml.Event) -> None:
        kind = type(event)
        if not self.replaying:
            self._record(event, kind)
        if kind in _START_TYPES:
            self.depth += 1
            if self.depth > MAX_YAML_DEPTH:
                self._stop("YAML-LIMIT", f"nested deeper than {MAX_YAML_DEPTH} levels", event)
            if self.skip:
                self.skip += 1
            else:
                self._node(event)
        elif kind in _END_TYPES:
            self.depth -= 1
            if self.skip:
                self.skip -= 1
            else:
                self.stack.pop()
        elif kind is yaml.ScalarEvent or kind is yaml.AliasEvent:
            if not self.skip:
                self._node(event)
        elif kind is yaml.DocumentStartEvent:
            self.documents += 1
            if self.documents > 1:
                self._stop("YAML-SYNTAX", "a file holds one YAML document; a second one starts here", event)

    def _record(self, event: yaml.Event, kind: type[yaml.Event]) -> None:
        """Keep the file's events and where each anchored node starts and ends."""
        self.events.append(event)
        if kind is yaml.AliasEvent or not (self.open_anchors or getattr(event, "anchor", None)):
            return
        index = len(self.events) - 1
        if kind in _END_TYPES:
            closing, anchor = self.open_anchors[-1]
            if anchor.depth == self.depth - 1:
                anchor.end = index
                self.anchors[closing] = anchor
                self.open_anchors.pop()
            return
        if kind is not yaml.ScalarEvent and kind not in _START_TYPES:
            return
        for _, anchor in self.open_anchors:
            anchor.nodes += 1
        name: str | None = getattr(event, "anchor", None)
        if name is not None:
            anchor = _Anchor(index, nodes=1, depth=self.depth)
            if kind is yaml.ScalarEvent:
                anchor.end = index
                self.anchors[name] = anchor
            else:
                self.anchors.pop(name, None)  # redefined: the new node, once it is complete
                self.open_anchors.append((name, anchor))

    def _stop(self, code: str, message: str, event: yaml.Event) -> None:
        raise _Stop(Problem(code, message, self._location(event)))

    def _location(self, event: yaml.Event) -> Location:
        line, col = _position(event)
        return Location(self.doc.path, line, col)

    def _node(self, event: yaml.Event) -> None:
        parent = self.stack[-1] if self.stack else None
        if parent is not None and parent.is_mapping and parent.key is None:
            if parent.skip_value:
                parent.skip_value = False
                self._skip(event)
            else:
                self._key(event, parent)
            return
        kind = type(event)
        if kind is yaml.AliasEvent:
            self._alias(event)  # type: ignore[arg-type]
            return
        self.nodes += 1
        if self.nodes > MAX_YAML_VALUES:
            self._stop("YAML-LIMIT", f"more than {MAX_YAML_VALUES} values in one file", event)
        path = self._child_path(parent)
        self.doc.values[path] = _position(event)
        if event.tag is not None:  # type: ignore[attr-defined]
            self._check_tag(event, path)
        if kind is yaml.ScalarEvent:
            self._attach(parent, self._scalar(event, path))  # type: ignore[arg-type]
            return
        is_mapping = kind is yaml.MappingStartEvent
        container: dict[str, Any] | list[Any] = {} if is_mapping else []
        self._attach(parent, container)
        self.stack.append(_Frame(path, container, is_mapping))

    def _child_path(self, parent: _Frame | None) -> Path_:
        if parent is None:
            return ()
        if parent.is_mapping:
            assert parent.key is not None
            return (*parent.path, parent.key)
        return (*parent.path, len(parent.value))

    def _attach(self, parent: _Frame | None, value: Any) -> None:
        if parent is None:
            self.result = value
        elif parent.is_mapping:
            assert parent.key is not None and isinstance(parent.value, dict)
            parent.value[parent.key] = value
            parent.key = None
        else:
            assert isinstance(parent.value, list)
            parent.value.append(value)

    def _skip(self, event: yaml.Event) -> None:
        """Pass over one node without reading it."""
        if isinstance(event, _START_EVENTS):
            self.skip = 1

    def _key(self, event: yaml.Event, frame: _Frame) -> None:
        key_event = self._aliased_scalar(event) if type(event) is yaml.AliasEvent else event
        if type(key_event) is not yaml.ScalarEvent:
            self.problems.append(
                Problem("YAML-KEY", "a mapping key must be a plain name", self._location(event))
            )
            self._skip(event)
            frame.skip_value = True
            return
        key: str = key_event.value
        path = (*frame.path, key)
        if key_event.tag is not None:
            self._check_tag(key_event, path)
        trap = None if key_event.style else trap_of(key, key=True)
        if trap is not None:
            self.doc.trapped.add(path)
            self.problems.append(Problem(trap.code, trap.key_message(), self._location(event)))
        assert isinstance(frame.value, dict)
        if key in frame.value:
            first = self.doc.keys[path]
            self.problems.append(
                Problem(
                    "YAML-DUPLICATE-KEY",
                    f"duplicate key `{key}` (first defined at line {first[0]})",
                    self._location(event),
                )
            )
            frame.skip_value = True
            return
        self.doc.keys[path] = _position(event)
        frame.key = key

    def _aliased_scalar(self, event: yaml.AliasEvent) -> yaml.Event:
        """The event an alias stands for when it is a single scalar (else the alias itself)."""
        anchor = self.anchors.get(str(event.anchor))
        if anchor is not None and anchor.start == anchor.end:
            return self.events[anchor.start]
        return event

    def _alias(self, event: yaml.AliasEvent) -> None:
        """Expand an alias by replaying its anchor's events, within the alias budget."""
        name = str(event.anchor)
        anchor = self.anchors.get(name)
        if anchor is None:
            if any(open_name == name for open_name, _ in self.open_anchors):
                self._stop("YAML-LIMIT", f"alias `*{name}` refers to a value that contains it", event)
            self._stop("YAML-SYNTAX", f"alias `*{name}` names no anchor defined before it", event)
        assert anchor is not None
        if not self.replaying:
            self.alias_site = event
        self.alias_nodes += anchor.nodes
        if self.alias_nodes > MAX_ALIAS_VALUES:
            site = self.alias_site or event
            self._stop("YAML-LIMIT", f"aliases expand to more than {MAX_ALIAS_VALUES} values", site)
        self.replaying += 1
        try:
            for replayed in self.events[anchor.start : anchor.end + 1]:
                self.feed(replayed)
        finally:
            self.replaying -= 1

    def _check_tag(self, event: yaml.Event, path: Path_) -> None:
        tag = getattr(event, "tag", None)
        if tag is None:
            return
        self.doc.trapped.add(path)
        self.problems.append(
            Problem(
                "YAML-TAG",
                f"explicit tag `{_short_tag(tag)}`: coh reads plain YAML only (no tags such as"
                " !!python/..., !include or !!str); remove it",
                self._location(event),
            )
        )

    def _resolve(self, event: yaml.ScalarEvent) -> str:
        """The type YAML gives a scalar written as it is (an explicit tag is ignored, and reported)."""
        if event.style:
            return _STR_TAG
        return str(_RESOLVER.resolve(yaml.ScalarNode, event.value, (True, False)))  # type: ignore[no-untyped-call]

    def _scalar(self, event: yaml.ScalarEvent, path: Path_) -> Any:
        value: str = event.value
        trap = None if event.style else trap_of(value)
        if trap is not None:
            # Kept as its text, and reported once where it is written (not again where an alias
            # repeats it); the schema stays quiet about it wherever it lands.
            self.doc.trapped.add(path)
            if not self.replaying:
                self.problems.append(Problem(trap.code, trap.value_message(), self._location(event)))
            return value
        tag = self._resolve(event)
        if tag == _STR_TAG:
            start, end = event.start_mark, event.end_mark
            assert start is not None and end is not None  # the parser marks every event
            self.doc.scalars[path] = ScalarSource(start.index, end.index, event.style or None)
            return value
        if tag == _BOOL_TAG:
            return value.lower() == "true"
        if tag == _INT_TAG:
            return self._integer(event, path)
        if tag == _FLOAT_TAG:
            return _CONSTRUCTOR.construct_yaml_float(yaml.ScalarNode(tag, value))
        if tag == _NULL_TAG:
            return None
        return value

    def _integer(self, event: yaml.ScalarEvent, path: Path_) -> Any:
        value: str = event.value
        number = None
        if len(value) <= MAX_INTEGER_CHARS:
            number = _CONSTRUCTOR.construct_yaml_int(yaml.ScalarNode(_INT_TAG, value))
        if number is None or not -MAX_YAML_INTEGER <= number <= MAX_YAML_INTEGER:
            self.doc.trapped.add(path)
            self.problems.append(
                Problem(
                    "YAML-LIMIT",
                    f"integer `{_shorten(value)}` is out of range (at most {MAX_YAML_INTEGER} either way)",
                    self._location(event),
                )
            )
            return value
        return number


def _position(event: yaml.Event) -> tuple[int, int]:
    """The 1-based line and column where an event starts."""
    mark = event.start_mark
    assert mark is not None  # the parser marks every event
    return mark.line + 1, mark.column + 1


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag


def _shorten(text: str, width: int = 40) -> str:
    return text if len(text) <= width else f"{text[:width]}... ({len(text)} characters)"

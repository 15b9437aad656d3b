"""The positioned YAML loader: traps, duplicates, tabs, and offsets inside scalars."""

from __future__ import annotations

import pytest
import yaml

from coh_core.packs import yaml_traps
from coh_core.packs.yamlsrc import parse_yaml


def _codes(text: str) -> list[tuple[str, int, int]]:
    _, problems = parse_yaml(text, "t.yaml")
    return [(p.code, p.location.line, p.location.col) for p in problems]


def test_values_keep_their_types_and_positions() -> None:
    doc, problems = parse_yaml("a:\n  b: 1\n  c: [true, 2.5, null, x]\n", "t.yaml")
    assert problems == [] and doc is not None
    assert doc.data == {"a": {"b": 1, "c": [True, 2.5, None, "x"]}}
    assert str(doc.location(("a", "c", 3))) == "t.yaml:3:24"
    assert str(doc.location(("a", "b"), key=True)) == "t.yaml:2:3"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: no\n", [("YAML-BOOL-TRAP", 1, 4)]),
        ("a: [yes, off]\n", [("YAML-BOOL-TRAP", 1, 5), ("YAML-BOOL-TRAP", 1, 10)]),
        ("on: 1\n", [("YAML-BOOL-TRAP", 1, 1)]),
        ("a: 'no'\nb: true\nc: False\n", []),
        ("a: 1\nb: 2\na: 3\n", [("YAML-DUPLICATE-KEY", 3, 1)]),
        ("a:\n\tb: 1\n", [("YAML-TAB", 2, 1)]),
        ("a: [1, 2\n", [("YAML-SYNTAX", 2, 1)]),
        ("a:\n  b: 1\n   c: 2\n", [("YAML-SYNTAX", 3, 5)]),
    ],
)
def test_problems(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert _codes(text) == expected


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("f: {type: list[count], doc: x}\n", '"list[count]"'),
        ("f: {type: map[id, name]}\n", '"map[id, name]"'),
    ],
)
def test_a_bracket_inside_braces_asks_for_quotes(text: str, quoted: str) -> None:
    """`{type: list[count]}`: YAML reads the bracket as a list's start; the error shows the quoted value."""
    _, problems = parse_yaml(text, "t.yaml")
    assert [p.code for p in problems] == ["YAML-SYNTAX"]
    assert f"written in quotes: {quoted}" in problems[0].message


# Plain scalars that YAML readers take for something other than they look like: what is
# written, the code, and words the message must hold (what YAML 1.1 reads it as, the quoted
# form to write for the text, and the plain number to write for a number when there is one).
BOOL, TYPE = "YAML-BOOL-TRAP", "YAML-TYPE-TRAP"
TRAPS = [
    ("yes", BOOL, ["the boolean true by YAML 1.1", '"yes" for the text', "write true or false"]),
    ("No", BOOL, ["the boolean false by YAML 1.1", '"No" for the text']),
    ("ON", BOOL, ["the boolean true by YAML 1.1", '"ON" for the text']),
    ("off", BOOL, ["the boolean false by YAML 1.1", '"off" for the text']),
    ("y", BOOL, ["the boolean true by YAML 1.1", '"y" for the text']),
    ("N", BOOL, ["the boolean false by YAML 1.1", '"N" for the text']),
    ("3:00", TYPE, ["the number 180 by YAML 1.1 (base 60)", '"3:00" for the text', "180 for a number"]),
    ("1:30:00", TYPE, ["the number 5400 by YAML 1.1 (base 60)", '"1:30:00"', "5400 for a number"]),
    ("190:20:30.15", TYPE, ["the number 685230.15 by YAML 1.1 (base 60)", '"190:20:30.15"']),
    ("017", TYPE, ["the number 15 by YAML 1.1 (octal)", "the number 17 by YAML 1.2", '"017"', "15 for"]),
    ("0o17", TYPE, ["text by YAML 1.1", "the number 15 by YAML 1.2 (octal)", '"0o17"', "15 for"]),
    ("0b101", TYPE, ["the number 5 by YAML 1.1 (binary)", '"0b101" for the text', "5 for a number"]),
    ("1_000", TYPE, ["the number 1000 by YAML 1.1 (digits grouped with `_`)", "1000 for a number"]),
    ("1_000.5", TYPE, ["the number 1000.5 by YAML 1.1", '"1_000.5"', "1000.5 for a number"]),
    ("08", TYPE, ["text by YAML 1.1", "the number 8 by YAML 1.2", '"08" for the text', "8 for a"]),
    ("1e3", TYPE, ["text by YAML 1.1", "the number 1000.0 by YAML 1.2", "1000.0 for a number"]),
    ("05099179", TYPE, ["text by YAML 1.1", "the number 5099179 by YAML 1.2", '"05099179" for the text']),
    ("1234e567", TYPE, ["text by YAML 1.1", "the number infinity by YAML 1.2", '"1234e567" for the text']),
    (".inf", TYPE, ["the number infinity by YAML 1.1", '".inf" for the text']),
    ("-.inf", TYPE, ["the number minus infinity by YAML 1.1", '"-.inf" for the text']),
    ("+.INF", TYPE, ["the number infinity by YAML 1.1", '"+.INF" for the text']),
    (".Inf", TYPE, ["the number infinity by YAML 1.1", '".Inf" for the text']),
    (".nan", TYPE, ["the number NaN", '".nan" for the text']),
    (".NaN", TYPE, ["the number NaN", '".NaN" for the text']),
    (".NAN", TYPE, ["the number NaN", '".NAN" for the text']),
    ("2024-01-01", TYPE, ["the date 2024-01-01 by YAML 1.1", '"2024-01-01" for the text']),
    ("2001-12-14t21:59:43.10-05:00", TYPE, ["the date and time", '"2001-12-14t21:59:43.10-05:00"']),
    ("2001-12-14 21:59:43.10 -5", TYPE, ["the date and time", '"2001-12-14 21:59:43.10 -5"']),
    ("~", TYPE, ["null (no value) by YAML 1.1", '"~" for the text', "null for no value"]),
    ("=", TYPE, ["the value indicator by YAML 1.1", '"=" for the text']),
    ("<<", TYPE, ["a merge key by YAML 1.1", "coh merges no mappings", '"<<" for the text']),
]

# Plain scalars every YAML reader takes as they look, and the value coh reads.
PLAIN = [
    ("true", True),
    ("False", False),
    ("null", None),
    ("", None),
    ("12", 12),
    ("-3", -3),
    ("+5", 5),
    ("0", 0),
    ("007", 7),  # octal 7 is 7: every reader agrees
    ("0x1F", 31),
    ("1.5", 1.5),
    ("1.5e+3", 1500.0),
    ("0:30", "0:30"),  # no base-60 number starts with 0
    (".Nan", ".Nan"),  # no reader's not-a-number
    ("3 o'clock", "3 o'clock"),
    ("2024-1-1", "2024-1-1"),
]


def _problems(text: str) -> list[tuple[str, int, int, str]]:
    _, problems = parse_yaml(text, "t.yaml")
    return [(p.code, p.location.line, p.location.col, p.message) for p in problems]


# Where a value can be written: the text with {} for it, and the line and column it lands at.
PLACES = [
    ("hour: {}\n", 1, 7),
    ("hours: [1, {}]\n", 1, 12),
    ("hours:\n  - {}\n", 2, 5),
    ("card: {{hour: {}}}\n", 1, 14),
    ("cards:\n  - id: a\n    hour: {}\n", 3, 11),
]


@pytest.mark.parametrize(("written", "code", "words"), TRAPS, ids=[t[0] for t in TRAPS])
@pytest.mark.parametrize(("place", "line", "col"), PLACES, ids=["value", "flow", "list", "map", "nested"])
def test_a_trap_is_refused_where_it_is_written(
    written: str, code: str, words: list[str], place: str, line: int, col: int
) -> None:
    found = _problems(place.format(written))
    assert [(c, at_line, at_col) for c, at_line, at_col, _ in found] == [(code, line, col)]
    message = found[0][3]
    assert message.startswith(f"`{written}` would be read as ")
    for word in words:
        assert word in message


@pytest.mark.parametrize(("written", "code", "words"), TRAPS, ids=[t[0] for t in TRAPS])
@pytest.mark.parametrize("quote", ["'", '"'])
def test_a_trap_written_in_quotes_is_text(written: str, code: str, words: list[str], quote: str) -> None:
    doc, problems = parse_yaml(f"hour: {quote}{written}{quote}\n", "t.yaml")
    assert problems == [] and doc is not None
    assert doc.data == {"hour": written}


@pytest.mark.parametrize(("written", "value"), PLAIN, ids=[p[0] or "empty" for p in PLAIN])
def test_a_plain_scalar_every_reader_agrees_on_is_read(written: str, value: object) -> None:
    doc, problems = parse_yaml(f"hour: {written}\n", "t.yaml")
    assert problems == [] and doc is not None
    assert doc.data == {"hour": value} and type(doc.data["hour"]) is type(value)


KEY_TRAPS = [trap for trap in TRAPS if trap[0] not in ("y", "N")]


@pytest.mark.parametrize(("written", "code", "words"), KEY_TRAPS, ids=[t[0] for t in KEY_TRAPS])
def test_a_trap_is_refused_as_a_key(written: str, code: str, words: list[str]) -> None:
    found = _problems(f"cards:\n  {written}: 1\n")
    assert [(c, line, col) for c, line, col, _ in found] == [(code, 2, 3)]
    message = found[0][3]
    assert message.startswith(f"key `{written}` would be read as ")
    reading = words[0]  # what YAML 1.1 reads it as; the fix for a key is to quote it
    assert reading in message and f'quote it ("{written}")' in message


@pytest.mark.parametrize("letter", ["y", "Y", "n", "N"])
def test_a_one_letter_key_is_a_name(letter: str) -> None:
    """YAML 1.1's `y` and `n` are booleans as values only: `n` names count parameters."""
    doc, problems = parse_yaml(f"params: {{{letter}: int}}\n", "t.yaml")
    assert problems == [] and doc is not None and doc.data == {"params": {letter: "int"}}


def test_a_trap_an_alias_repeats_is_reported_once_where_it_is_written() -> None:
    doc, problems = parse_yaml("first: &h 3:00\nagain: *h\nlist: [*h]\n", "t.yaml")
    assert [(p.code, p.location.line, p.location.col) for p in problems] == [("YAML-TYPE-TRAP", 1, 8)]
    assert doc is not None and doc.data == {"first": "3:00", "again": "3:00", "list": ["3:00"]}
    assert {("first",), ("again",), ("list", 0)} <= doc.trapped  # the schema stays quiet at each


@pytest.mark.parametrize(("written", "code", "words"), TRAPS, ids=[t[0] for t in TRAPS])
def test_coh_s_writer_quotes_a_trap_so_that_it_reads_back_as_written(
    written: str, code: str, words: list[str]
) -> None:
    """PyYAML writes `0o17`, `08` or `y` plain (text to YAML 1.1); `yaml_traps.Dumper` quotes them."""
    data = {"cards": [{"hour": written, "id": "a"}], written: [written]}
    doc, problems = parse_yaml(yaml.dump(data, Dumper=yaml_traps.Dumper), "t.yaml")
    assert problems == [] and doc is not None and doc.data == data


def test_a_duplicate_key_names_the_first_line() -> None:
    _, problems = parse_yaml("a: 1\nb: 2\na: 3\n", "t.yaml")
    assert problems[0].message == "duplicate key `a` (first defined at line 1)"


@pytest.mark.parametrize(
    ("text", "needle", "line", "col"),
    [
        ("e: kill(1, here)\n", "here", 1, 12),
        ('e: "kill(1, here)"\n', "here", 1, 13),
        ("e: 'kill(1, here)'\n", "here", 1, 13),
        ("e: |\n  draw(1)\n  kill(1,\n    here)\n", "here", 4, 5),
        ("e: >\n  draw(1)\n  kill(1, here)\n", "here", 3, 11),
        ("x:\n  e: kill(1,\n    here)\n", "here", 3, 5),
    ],
)
def test_offsets_inside_scalars_map_to_the_file(text: str, needle: str, line: int, col: int) -> None:
    doc, problems = parse_yaml(text, "t.yaml")
    assert problems == [] and doc is not None
    path = ("x", "e") if "x" in doc.data else ("e",)
    value = doc.data[path[0]] if len(path) == 1 else doc.data["x"]["e"]
    location = doc.offset_in_scalar(path, value.index(needle))
    assert (location.line, location.col) == (line, col)

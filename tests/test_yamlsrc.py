"""The positioned YAML loader: traps, duplicates, tabs, and offsets inside scalars."""

from __future__ import annotations

import pytest

from coh_core.packs.yamlsrc import parse_yaml


def _codes(text: str) -> list[tuple[str, int, int]]:
    _, problems = parse_yaml(text, "t.yaml")
    return [(p.code, p.location.line, p.location.col) for p in problems]


def test_values_keep_their_types_and_positions() -> None:
    doc, problems = parse_yaml("a:\n  b: 1\n  c: [true, 2.5, ~, x]\n", "t.yaml")
    assert problems == [] and doc is not None
    assert doc.data == {"a": {"b": 1, "c": [True, 2.5, None, "x"]}}
    assert str(doc.location(("a", "c", 3))) == "t.yaml:3:21"
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

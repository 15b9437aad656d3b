"""Schema checks that a hostile file cannot make slow: `uniqueItems` is decided in linear time,
with JSON's equality (1 equals 1.0, true is not 1), and reported at the repeated item."""

from __future__ import annotations

import json

import pytest

from coh_core.errors import Location
from coh_core.packs.schema import validate_document
from coh_core.packs.yamlsrc import parse_yaml


def _repeats(files: list[object]) -> tuple[list[Location], list[Location]]:
    """Where SCHEMA-UNIQUE is reported, and where each item of `files` is written."""
    manifest = {"id": "x", "version": "1", "format": 2, "kind": "base", "files": files}
    doc, problems = parse_yaml(json.dumps(manifest, indent=1), "pack.yaml")
    assert doc is not None and problems == []
    found = [p.location for p in validate_document(doc, "pack.schema.json") if p.code == "SCHEMA-UNIQUE"]
    return found, [doc.location(("files", index)) for index in range(len(files))]


@pytest.mark.parametrize(
    ("files", "repeat"),
    [
        (["a.yaml", "b.yaml", "a.yaml"], 2),
        ([1, 1.0], 1),
        ([True, 1], None),
        ([{"a": [1, 2]}, {"a": [1, 2]}], 1),
        ([{"a": [1, 2]}, {"a": [2, 1]}], None),
    ],
)
def test_repeated_items_are_found_at_the_repeat(files: list[object], repeat: int | None) -> None:
    found, items = _repeats(files)
    assert found == ([] if repeat is None else [items[repeat]])


def test_a_long_list_of_mappings_is_checked_in_one_pass() -> None:
    # 20,000 items that cannot be sorted: jsonschema compares such items pair by pair
    # (200 million comparisons); the linear check reports the one repeat at once.
    files: list[object] = [{"n": i} for i in range(20_000)] + [{"n": 7}]
    found, items = _repeats(files)
    assert found == [items[-1]]

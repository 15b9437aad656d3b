"""Location and Problem, written by hand (not dataclasses): values that compare, sort, hash,
copy and pickle by their fields, and never change."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable

import pytest

from coh_core.errors import Location, Problem

HERE = Location("a.yaml", 3, 7)
PROBLEM = Problem("REF-UNDEF", "no entity `x`", HERE, context="  x\n  ^", also=Location("b.yaml", 1, 1))


def test_locations_sort_by_file_line_column() -> None:
    found = [Location("b.yaml", 1, 1), Location("a.yaml", 3, 9), HERE, Location("a.yaml", 2, 50)]
    assert sorted(found) == [
        Location("a.yaml", 2, 50),
        HERE,
        Location("a.yaml", 3, 9),
        Location("b.yaml", 1, 1),
    ]
    assert HERE <= Location("a.yaml", 3, 7) < Location("a.yaml", 3, 8)
    assert Location("a.yaml", 4, 0) > HERE >= HERE


def test_a_location_reads_as_file_line_column() -> None:
    assert str(HERE) == "a.yaml:3:7"
    assert str(Location("a.yaml")) == "a.yaml"  # no line: the file alone


def test_problems_are_equal_by_code_message_and_location_only() -> None:
    """The human context and the second place do not make two findings different."""
    same = Problem("REF-UNDEF", "no entity `x`", Location("a.yaml", 3, 7))
    assert same == PROBLEM and hash(same) == hash(PROBLEM)
    assert len({same, PROBLEM}) == 1
    assert Problem("REF-UNDEF", "no entity `y`", HERE) != PROBLEM
    assert Problem("REF-UNDEF", "no entity `x`", Location("a.yaml", 3, 8)) != PROBLEM
    assert PROBLEM != ("REF-UNDEF", "no entity `x`", HERE)


@pytest.mark.parametrize("value", [HERE, PROBLEM], ids=["location", "problem"])
def test_values_never_change(value: object) -> None:
    with pytest.raises(AttributeError):
        value.code = "OTHER"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        del value.file  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "clone",
    [lambda v: pickle.loads(pickle.dumps(v)), copy.copy, copy.deepcopy],
    ids=["pickle", "copy", "deepcopy"],
)
def test_a_copy_keeps_every_field(clone: Callable[[Problem], Problem]) -> None:
    again = clone(PROBLEM)
    assert again == PROBLEM
    assert (again.context, again.also) == (PROBLEM.context, PROBLEM.also)
    assert again.render() == PROBLEM.render() == "a.yaml:3:7: REF-UNDEF no entity `x`\n  x\n  ^"

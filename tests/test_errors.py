"""Location and Problem, written by hand (not dataclasses): values that compare, sort, hash,
copy and pickle by their fields, and never change; and coh's errors, which pickle whole."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable

import pytest

from coh_core.engine.record_text import RecordError
from coh_core.engine.runtime import EngineError, IllegalAction
from coh_core.errors import CohError, ContentError, Location, Problem, UsageError
from coh_core.packs.paths import PathRefused

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


ERRORS = [
    EngineError("ENGINE-LIMIT", "more than 64 pack verbs", HERE),
    IllegalAction("ACTION-ILLEGAL", "not offered"),
    RecordError([PROBLEM, Problem("REPLAY-SCHEMA", "a seed of 1.0", Location("r.jsonl", 1, 9))]),
    ContentError([PROBLEM]),
    UsageError("--seed beyond 64 bits", code="USAGE-SEED"),
    PathRefused("a link to a place outside the pack", HERE, code="PACK-PATH"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_an_error_pickles_whole(error: CohError) -> None:
    """An error raised in a worker process (`coh simulate --workers`) reaches the parent as it was
    raised: its class, code, message, place and problems (a class whose own arguments are not the
    message once failed to unpickle, and the worker's games ended as a broken pool)."""
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert (again.code, again.message, again.location, str(again)) == (
        error.code,
        error.message,
        error.location,
        str(error),
    )
    assert getattr(again, "problems", None) == getattr(error, "problems", None)

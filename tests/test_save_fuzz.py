"""Property-based fuzzing of saves: whatever is changed in a real save (any value anywhere set to
any JSON value, removed, or a list item repeated; the digest recomputed or not), reading and
restoring it gives the game the save's answers lead to or located `SAVE-*` problems, never
another exception. A save that restores is exactly a game played from its seed. The default
run is short; `-m soak` runs the same property longer."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coh_core.agents.saving import read_save, restore_game
from coh_core.cli import main
from coh_core.engine import new_game
from coh_core.engine.record_text import RecordError
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack

QUICK = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LONG = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([0, 1, -1, 20, 99, 2**63, 2**64])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "red", "purple", "bank", "pickpocket", "end_of_game", "pass", "../x"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["red", "at", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)


class _Text(str):
    """A save's text, shown short in Hypothesis' reports."""

    def __repr__(self) -> str:
        return f"<a save of {len(self)} characters>"


@pytest.fixture(scope="module")
def save_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A save of a real game (red answering `1` 30 times)."""
    path = tmp_path_factory.mktemp("save") / "game.save"
    args = ["play", "--players", "4", "--seed", "5", "--human", "red", "--bots", "random"]
    result = CliRunner().invoke(main, [*args, "--save", str(path)], input="1\n" * 30)
    assert result.exit_code == 2, result.output[-2000:]
    return _Text(path.read_text(encoding="utf-8"))


@cache
def _base_pack() -> Pack:
    """The base pack (not a fixture: Hypothesis would print the whole pack with each example)."""
    return load_pack_checked()


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    children = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in children:
        yield from _paths(child, (*path, key))


def _digest(position: Any) -> str:
    blob = json.dumps([position["state"], position["log"]], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _changed(data: st.DataObject, text: str) -> str:
    doc = json.loads(text)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        path = data.draw(st.sampled_from(paths))
        *parents, last = path
        target = doc
        for step in parents:
            target = target[step]
        how = data.draw(st.sampled_from(["set", "remove", "repeat"]))
        if how == "remove":
            del target[last]
        elif how == "repeat" and isinstance(target, list):
            target.insert(last, target[last])
        else:
            target[last] = data.draw(_VALUES)
    if data.draw(st.booleans()):  # as one who edits a save to win would
        with suppress(KeyError, TypeError):
            doc["digest"] = _digest(doc["game"])
    return json.dumps(doc, separators=(",", ":"))


def _check(text: str, pack: Pack, folder: Path) -> None:
    path = folder / "game.save"
    path.write_text(text + "\n", encoding="utf-8")
    try:
        setup, doc, line = read_save(path)
        game = restore_game(pack, doc, line)
    except RecordError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.code.startswith("SAVE-"), problem
            assert problem.location.file == str(path) and problem.location.line == 1
        return
    # restored: exactly the game its seed and answers make
    again = new_game(pack, players=len(game.players), seed=setup.seed, colours=game.players)
    for answers in game.history:
        for colour, action in answers.items():
            again.submit(colour, action)
    assert again.digest() == game.digest()


@given(data=st.data())
@QUICK
def test_a_changed_save_restores_exactly_or_is_refused_located(
    data: st.DataObject, save_text: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(_changed(data, save_text), _base_pack(), tmp_path_factory.mktemp("fuzz"))


@pytest.mark.soak
@given(data=st.data())
@LONG
def test_a_changed_save_restores_exactly_or_is_refused_located_at_length(
    data: st.DataObject, save_text: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(_changed(data, save_text), _base_pack(), tmp_path_factory.mktemp("fuzz"))

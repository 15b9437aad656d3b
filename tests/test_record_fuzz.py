"""Property tests of the record reader that `coh replay` calls: on arbitrary bytes, and on a
real record mangled at random, it returns a game or raises RecordError whose problems are
all located REPLAY-* problems of that file - never any other exception.

The default run keeps the examples few; the `soak` copies (pytest -m soak) run thousands.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coh_core.agents import RandomAgent
from coh_core.agents.runner import play_out
from coh_core.engine import new_game, resume_game
from coh_core.engine.record import RecordError, replay, write_record
from coh_core.packs.model import Pack

# The autouse fixture that sets COH_LANG is function-scoped; what it sets holds for every example.
_FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
_SOAK = settings(
    max_examples=4000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**19, max_value=10**80)  # past 64 bits, past the digit limit
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# Texts a JSON decoder must survive: deep nesting, huge numbers, non-JSON constants, half lines.
_HOSTILE_TEXT = st.one_of(
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(4000, 6000).map(lambda n: '{"answers":{"red":["x",' + "7" * n + "]}}"),
    st.sampled_from(["NaN", "-Infinity", "1e999", '{"a":1,"a":2}', '{"end":true', "\ufeff{}", '"\\ud800"']),
    st.text(max_size=40),
)


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogatepass")


def _check(pack: Pack, path: Path, data: bytes) -> None:
    """Replay the bytes as a record: a game, or only located REPLAY-* problems of this file."""
    path.write_bytes(data)
    try:
        replay(pack, path)
    except RecordError as error:
        lines = data.decode("utf-8", errors="replace").split("\n")
        assert error.problems
        for problem in error.problems:
            where = problem.location
            assert problem.code.startswith("REPLAY-") and problem.message, problem
            assert where.file == str(path), problem
            assert 1 <= where.line <= len(lines), problem
            assert 1 <= where.col <= len(lines[where.line - 1]) + 1, problem
        assert (error.code, error.location) == (error.problems[0].code, error.problems[0].location)


@pytest.fixture(scope="session")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "record.jsonl"


_BYTES = st.one_of(
    st.binary(max_size=600),
    st.lists(st.one_of(JSON.map(json.dumps), _HOSTILE_TEXT), max_size=6).map(
        lambda lines: _encoded("\n".join(lines))
    ),
)


@_FAST
@given(data=_BYTES)
def test_arbitrary_bytes_give_located_problems(base_pack: Pack, scratch: Path, data: bytes) -> None:
    _check(base_pack, scratch, data)


@pytest.mark.soak
@_SOAK
@given(data=_BYTES)
def test_arbitrary_bytes_give_located_problems_soak(base_pack: Pack, scratch: Path, data: bytes) -> None:
    _check(base_pack, scratch, data)


# --- mutations of a real record ------------------------------------------------------------


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (the value itself first)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _set_at(line: bytes, draw: Any) -> bytes:
    """The line with one of its values (or a new key) set to arbitrary JSON."""
    value = json.loads(line)
    path = draw(st.sampled_from(_paths(value)))
    new = draw(JSON)
    if not path:
        return _encoded(json.dumps(new))
    target = value
    for step in path[:-1]:
        target = target[step]
    if isinstance(target, dict) and draw(st.booleans()):
        target[draw(st.text(max_size=8))] = new  # a key the writer never writes
    else:
        target[path[-1]] = new
    return _encoded(json.dumps(value))


def _mutate(record: bytes, draw: Any) -> bytes:
    """One to three edits a hand, a tool or an attacker could make to the record's lines."""
    lines = record.split(b"\n")[:-1]
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        index = draw(st.integers(0, len(lines) - 1))
        kind = draw(
            st.sampled_from(["drop", "duplicate", "swap", "replace", "hostile", "set", "set", "bytes"])
        )
        if kind == "drop":
            del lines[index]
        elif kind == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), lines[index])
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif kind == "replace":
            lines[index] = _encoded(json.dumps(draw(JSON)))
        elif kind == "hostile":
            lines[index] = _encoded(draw(_HOSTILE_TEXT))
        elif kind == "set":
            with contextlib.suppress(ValueError):  # no longer JSON after an earlier edit: leave it
                lines[index] = _set_at(lines[index], draw)
        else:  # raw bytes, UTF-8 or not, anywhere in the line
            at = draw(st.integers(0, len(lines[index])))
            lines[index] = lines[index][:at] + draw(st.binary(min_size=1, max_size=4)) + lines[index][at:]
    return b"\n".join(lines) + b"\n"


@_FAST
@given(draw=st.data())
def test_mangled_records_give_located_problems(
    base_pack: Pack, scratch: Path, played_record: bytes, draw: st.DataObject
) -> None:
    _check(base_pack, scratch, _mutate(played_record, draw.draw))


@pytest.mark.soak
@_SOAK
@given(draw=st.data())
def test_mangled_records_give_located_problems_soak(
    base_pack: Pack, scratch: Path, played_record: bytes, draw: st.DataObject
) -> None:
    _check(base_pack, scratch, _mutate(played_record, draw.draw))


# --- records of resumed games: the engine reads a state from the record ----------------------


@pytest.fixture(scope="session")
def resumed_record(base_pack: Pack, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The record of a game resumed from a state (its header holds `initial`, not `seed`)."""
    start = new_game(base_pack, players=3, seed=5).initial
    game = resume_game(base_pack, json.loads(json.dumps(start)))
    play_out(game, {colour: RandomAgent(seed=index) for index, colour in enumerate(game.players)})
    path = tmp_path_factory.mktemp("resumed") / "game.jsonl"
    write_record(path, game, None)
    return path.read_bytes()


def _mangle_state(record: bytes, draw: Any) -> bytes:
    """The record with one value inside its starting state (or a new key there) set to arbitrary JSON."""
    head, _, rest = record.partition(b"\n")
    header = json.loads(head)
    state = header["initial"]
    path = draw(st.sampled_from(_paths(state)[1:]))
    target = state
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = draw(JSON)
    return _encoded(json.dumps(header)) + b"\n" + rest


def test_a_resumed_game_replays(base_pack: Pack, scratch: Path, resumed_record: bytes) -> None:
    assert b'"initial"' in resumed_record.split(b"\n")[0]
    scratch.write_bytes(resumed_record)
    game = replay(base_pack, scratch)
    assert game.over and game.digest() == json.loads(resumed_record.split(b"\n")[-2])["digest"]


@_FAST
@given(draw=st.data())
def test_mangled_states_give_located_problems(
    base_pack: Pack, scratch: Path, resumed_record: bytes, draw: st.DataObject
) -> None:
    _check(base_pack, scratch, _mangle_state(resumed_record, draw.draw))


@pytest.mark.soak
@_SOAK
@given(draw=st.data())
def test_mangled_states_give_located_problems_soak(
    base_pack: Pack, scratch: Path, resumed_record: bytes, draw: st.DataObject
) -> None:
    _check(base_pack, scratch, _mangle_state(resumed_record, draw.draw))


class _Passer(RandomAgent):
    """Passes whenever it may: nobody plays a card, so no choice of a colour comes before the
    zombie leader's first strike."""

    def act(self, view: Any, legal: list[Any]) -> Any:
        return ("pass",) if ("pass",) in legal else super().act(view, legal)


@pytest.fixture(scope="session")
def quiet_record(base_pack: Pack, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The record of a resumed game in which players pass whenever they may; the zombie leader's
    first strike at the Crossroads falls on green."""
    start = new_game(base_pack, players=3, seed=2).initial
    game = resume_game(base_pack, json.loads(json.dumps(start)))
    play_out(game, {colour: _Passer(seed=index) for index, colour in enumerate(game.players)})
    path = tmp_path_factory.mktemp("quiet") / "game.jsonl"
    write_record(path, game, None)
    return path.read_bytes()


def test_a_state_the_engine_would_spin_on_is_refused(
    base_pack: Pack, scratch: Path, quiet_record: bytes
) -> None:
    """Found by the soak run: a leader wheel without green made the leader's attack loop for ever."""
    head, _, rest = quiet_record.partition(b"\n")
    header = json.loads(head)
    cycles = header["initial"]["cycles"]
    cycles["leader"] = [c for c in cycles["leader"] if c != "green"]
    scratch.write_bytes(_encoded(json.dumps(header)) + b"\n" + rest)
    with pytest.raises(RecordError) as caught:
        replay(base_pack, scratch)
    # refused before any answer is replayed: the cycle is not the one the seats make
    assert caught.value.code == "REPLAY-STATE"
    assert "the recorded starting state: the cycle is" in caught.value.message
    assert caught.value.location is not None and caught.value.location.line == 1


def test_a_starting_state_with_more_components_than_the_pack_is_refused(
    base_pack: Pack, scratch: Path, quiet_record: bytes
) -> None:
    """A record's starting state obeys the pack's declarations, as a save's does: no more of a
    counter across all places than its supply."""
    head, _, rest = quiet_record.partition(b"\n")
    header = json.loads(head)
    seat = header["initial"]["players"][0]
    header["initial"]["counts"][seat]["antidotes"] = 99
    scratch.write_bytes(_encoded(json.dumps(header)) + b"\n" + rest)
    with pytest.raises(RecordError) as caught:
        replay(base_pack, scratch)
    assert caught.value.code == "REPLAY-STATE"
    assert "`antidotes` across all places; the pack has 20" in caught.value.message

"""A seat's observation vector and information state: made from its view alone, laid out from the
pack's declarations.

The paired-world check: a world drawn again in everything one seat cannot see (others' hands, the
decks' order, what others answered to the question still open) gives that seat the same view, the
same observation and the same information state, at positions all through random games of each
shipped game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from coh_core.engine import Game, new_game, rules_for
from coh_core.engine.observe import OBSERVATION_VERSION, Memo, observer_for
from coh_core.engine.rng import Rng
from coh_core.engine.views import observation, seen_parts
from coh_core.engine.worlds import sample_world
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.resources import content_root

GAMES = {"base": 4, "zombicide": 3}


@cache
def _pack(game: str) -> Pack:
    return load_pack_checked(content_root() / game)


def _positions(game: str, seed: int, every: int) -> Iterator[Game]:
    """Every `every`-th decision of a random game (the same game each time for the same seed)."""
    played = new_game(_pack(game), players=GAMES[game], seed=seed)
    rng = Rng(seed)
    answered = 0
    while not played.over:
        for colour in played.waiting:
            if answered % every == 0:
                yield played
            legal = played.legal(colour)
            played.submit(colour, legal[rng.randbelow(len(legal))])
            answered += 1


def _without_waiting(view: dict[str, Any]) -> dict[str, Any]:
    decision = view["decision"]
    return {**view, "decision": None if decision is None else {**decision, "waiting": None}}


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("seed", [1, 2])
def test_a_world_differing_only_in_what_a_seat_cannot_see_looks_the_same_to_it(game: str, seed: int) -> None:
    rng = Rng(1000 + seed)
    checked = 0
    for position in _positions(game, seed, every=7):
        for me in position.players:
            world = sample_world(position, me, rng)
            seen, there = position.view(me), world.view(me)
            assert _without_waiting(there.to_json()) == _without_waiting(seen.to_json())
            assert there.log() == seen.log()
            assert there.observation() == seen.observation()
            assert there.information_state() == seen.information_state()
            checked += 1
    assert checked > 20


def test_what_others_hold_in_secret_is_not_in_the_observation() -> None:
    """Of two worlds that differ in the cards of another seat's hand (as many), only that seat's
    observation differs."""
    for position in _positions("base", 3, every=11):
        hands = position.state["piles"]["hands"]
        me, other = position.players[0], position.players[1]
        if not hands[other] or sorted(hands[other]) == sorted(hands[me]):
            continue
        swapped = position.fork()
        kinds = rules_for(_pack("base")).ids["card_kind"]
        swapped.state["piles"]["hands"][other] = [
            kinds[0] if c != kinds[0] else kinds[1] for c in hands[other]
        ]
        assert swapped.view(me).observation() == position.view(me).observation()
        assert swapped.view(other).observation() != position.view(other).observation()
        return
    pytest.fail("no position with a hand to change")


def test_the_observation_holds_the_seats_own_hand_and_the_table() -> None:
    for position in _positions("base", 4, every=13):
        me = position.players[2]
        hand = position.state["piles"]["hands"][me]
        if not hand:
            continue
        observer = observer_for(position.rules, position.players)
        fields = {field.name: field for field in observer.layout}
        vector = position.view(me).observation()
        seat = fields["seat"]
        assert list(vector[seat.start : seat.start + seat.size]) == [0.0, 0.0, 1.0, 0.0]
        hands = fields["pile.hands"]
        kinds = list(rules_for(_pack("base")).ids["card_kind"])
        per_seat = 1 + len(kinds)
        mine = vector[hands.start + 2 * per_seat : hands.start + 3 * per_seat]
        assert mine[0] == len(hand)
        assert {kinds[i]: int(n) for i, n in enumerate(mine[1:]) if n} == dict(Counter(hand))
        theirs = vector[hands.start : hands.start + per_seat]
        assert not any(theirs[1:])  # another seat's hand: its size only
        counts = fields["counts"]
        zombies = [
            vector[counts.start + p * len(position.rules.counters)] for p in range(6)
        ]  # the first counter kind at the board's places, in the layout's order
        places = sorted(position.state["locations"])
        assert zombies == [position.state["counts"][p]["zombies"] for p in places]
        return
    pytest.fail("no position with a card in hand")


@pytest.mark.parametrize("game", list(GAMES))
def test_the_layout_is_the_same_for_the_same_table_and_documented(game: str) -> None:
    rules = rules_for(_pack(game))
    players = rules.pack.colours()[: GAMES[game]]
    one = observer_for(rules, players).describe()
    assert one == type(observer_for(rules, players))(rules, players).describe()
    assert one["version"] == OBSERVATION_VERSION
    ends = [f["start"] + f["size"] for f in one["fields"]]
    assert [f["start"] for f in one["fields"]] == [0, *ends[:-1]] and ends[-1] == one["size"]
    assert all(f["what"] for f in one["fields"])


def test_the_information_state_tells_apart_what_the_seat_has_seen() -> None:
    strings = {game.view(game.players[0]).information_state() for game in _positions("base", 5, every=3)}
    assert len(strings) > 50


@pytest.mark.parametrize("game", list(GAMES))
def test_the_observation_reads_what_the_view_shows(game: str) -> None:
    """The observation reads parts of the seat's view shared with the game instead of copied
    (`seen_parts`): each is what the view's `to_json()` shows, all through a game."""
    for position in _positions(game, 9, every=5):
        for seat in position.players:
            shown = position.view(seat).to_json()
            parts = seen_parts(position, seat)
            for key in ("me", "turn", "phase", "pointers", "eliminated", "locations", "pieces", "counts"):
                assert parts[key] == shown[key], key
            assert parts["memory"] == shown["memory"] and parts["edges"] == shown["edges"]
            asked = shown["decision"]
            assert parts["decision"] == (None if asked is None else {"kind": asked["kind"]})
            for name, sizes in shown["pile_sizes"].items():
                seen = shown["piles"][name]
                assert parts["piles"][name] == {owner: seen.get(owner, n) for owner, n in sizes.items()}, name


@pytest.mark.parametrize("game", list(GAMES))
def test_an_observation_remembered_seat_by_seat_is_the_one_worked_out_afresh(game: str) -> None:
    """The adapters keep the seats' last observations (`Memo`) and work out again only the fields
    whose part of the view changed: at every decision of a game, for the seats observed, the
    vector is the one their view gives."""
    memo = Memo()
    checked = 0
    for position in _positions(game, 4, every=1):
        for seat in position.players[checked % 2 :: 2]:  # (each seat after some changes it did not see)
            assert observation(position, seat, memo) == position.view(seat).observation(), seat
            checked += 1
    assert checked > 150


@pytest.mark.parametrize("game", list(GAMES))
def test_a_memo_shared_by_two_games_gives_each_its_own_vector(game: str) -> None:
    """A memo trusts the journal of the game it last observed (`Game.journal`): observing a fork
    played on differently in between reads every part of the game again, by value."""
    memo = Memo()
    rng = Rng(7)
    checked = 0
    for position in _positions(game, 3, every=9):
        other = position.fork()
        for _ in range(3):  # (the fork goes on differently)
            if other.over:
                break
            seat = other.waiting[0]
            legal = other.legal(seat)
            other.submit(seat, legal[rng.randbelow(len(legal))])
        for played in (position, other, position):
            seat = played.players[checked % len(played.players)]
            assert observation(played, seat, memo) == played.view(seat).observation(), seat
            checked += 1
    assert checked > 30


def test_answering_a_simultaneous_question_in_turn_hides_the_earlier_answers() -> None:
    """Seats of a question asked of several at once may answer one after the other: what a later
    seat sees is what it saw before the earlier ones answered."""
    checked = 0
    for position in _positions("base", 11, every=1):
        if len(position.waiting) < 2 or position.decision is None or position.decision.answers:
            continue
        first, later = position.waiting[0], position.waiting[1]
        view = position.view(later)
        before = (_without_waiting(view.to_json()), view.observation(), view.information_state(), view.log())
        answered = position.fork()
        answered.submit(first, answered.legal(first)[-1])
        after_view = answered.view(later)
        after = (
            _without_waiting(after_view.to_json()),
            after_view.observation(),
            after_view.information_state(),
            after_view.log(),
        )
        assert after == before
        checked += 1
        if checked == 5:
            return
    pytest.fail(f"only {checked} questions asked of several seats at once")

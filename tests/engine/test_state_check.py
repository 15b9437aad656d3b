"""A state read from a file is checked against its pack's declarations (`state_problems`): every
state the engine reaches passes, under every shipped overlay, and each way a state can break a
declaration is found at its place."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import Game, new_game
from coh_core.engine.state_check import state_problems
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.packs.overlays import shipped_overlays_of
from coh_core.resources import content_root

OVERLAYS = shipped_overlays_of(content_root(), "base")


def _state(game: Game) -> dict[str, Any]:
    game.state["rng"] = game.rng.state
    found: dict[str, Any] = json.loads(json.dumps(game.state))
    return found


@pytest.mark.parametrize("overlay", [None, *OVERLAYS])
def test_every_state_a_game_reaches_obeys_the_declarations(overlay: str | None) -> None:
    pack = load_pack_checked(None, (overlay,) if overlay else ())
    game = new_game(pack, players=5, seed=11)
    agents = {c: RandomAgent(seed=110 + i) for i, c in enumerate(game.players)}
    checked = 0
    while True:
        assert state_problems(game.rules, _state(game)) == [], checked
        checked += 1
        if game.decision is None:
            break
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    assert checked > 100


@pytest.fixture(scope="module")
def played(base_pack: Pack) -> Game:
    """A 4-player game in its second turn, with cards in hands and characters placed."""
    game = new_game(base_pack, players=4, seed=3)
    agents = {c: RandomAgent(seed=30 + i) for i, c in enumerate(game.players)}
    while game.state["turn"] < 2:
        assert game.decision is not None
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    return game


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        *parents, last = path
        for step in parents:
            state = state[step]
        state[last] = value

    return change


def _first(kind: str) -> Callable[[dict[str, Any]], str]:
    """The first piece of a kind, as the edits name it."""
    return lambda state: sorted(state["pieces"][kind])[0]


# (what is done to a real state, where the problem is, words of its message)
BROKEN: dict[str, tuple[Callable[[dict[str, Any]], None], tuple[Any, ...], str]] = {
    "emptied": (lambda s: s.clear(), (), "the state has no `version`, `pack`, `seed`"),
    "an_unknown_part": (_set(("spare",), 1), ("spare",), "`spare` is no part of a state"),
    "another_pack": (_set(("pack",), "chess"), ("pack",), 'a game of pack "chess", not `base`'),
    "generator_beyond_64_bits": (_set(("rng",), 2**64), ("rng",), "not 0 to 2**64-1"),
    "a_colour_seated_twice": (
        lambda s: s["players"].__setitem__(1, s["players"][0]),
        ("players", 1),
        "is seated twice",
    ),
    "too_few_players": (_set(("players",), ["red"]), ("players",), "1 players; the pack plays with 3-6"),
    "a_cycle_not_the_seats": (
        lambda s: s["cycles"]["leader"].reverse(),
        ("cycles", "leader"),
        "the cycle is",
    ),
    "past_the_last_turn": (_set(("turn",), 5), ("turn",), "the game plays turns 1-4"),
    "a_step_of_another_phase": (_set(("step",), "scoring"), ("step",), "is no step of"),
    "the_city_reordered": (lambda s: s["order"].reverse(), ("order",), "the locations are"),
    "a_side_no_location_has": (
        _set(("locations", "bank", "side"), "Z"),
        ("locations", "bank"),
        "is not {side: one of",
    ),
    "a_counter_below_zero": (
        _set(("counts", "reserve", "zombies"), -1),
        ("counts", "reserve", "zombies"),
        "is not a count",
    ),
    "a_kind_of_counter_missing": (
        lambda s: s["counts"]["bank"].pop("markers"),
        ("counts", "bank"),
        "no entry for kind of counter",
    ),
    "zombies_beyond_the_box": (
        _set(("counts", "bank", "zombies"), 41),
        ("counts", "bank", "zombies"),
        "across all places",
    ),
    "a_pile_of_a_stranger": (
        lambda s: s["piles"]["hands"].update({"purple": []}),
        ("piles", "hands", "purple"),
        "no owner",
    ),
    "a_food_token_of_more_than_the_box": (
        lambda s: s["piles"]["food"]["red"].extend([3, 3]),
        ("piles", "food", "red", 0),
        "(1)",
    ),
    "a_memory_of_the_wrong_type": (
        _set(("memory", "eliminated"), ["mars"]),
        ("memory", "eliminated"),
        '"mars" is no player',
    ),
    "a_trait_out_of_its_range": (
        lambda s: s["pieces"]["characters"][_first("characters")(s)].update(
            {"traits": {"votes": [99, "end_of_turn"]}}
        ),
        ("pieces", "characters", "@", "traits", "votes", 0),
        "99 is outside 0-9",
    ),
    "a_piece_of_no_entity": (
        lambda s: s["pieces"]["characters"].update({"ghost": {}}),
        ("pieces", "characters", "ghost"),
        "`ghost` is no character of the pack",
    ),
}


@pytest.mark.parametrize(("change", "path", "words"), BROKEN.values(), ids=list(BROKEN))
def test_a_broken_state_is_found_at_its_place(
    played: Game, change: Callable[[dict[str, Any]], None], path: tuple[Any, ...], words: str
) -> None:
    state = copy.deepcopy(_state(played))
    first = _first("characters")(state)
    change(state)
    found = state_problems(played.rules, state)
    assert len(found) == 1, found
    assert found[0].path == tuple(first if step == "@" else step for step in path), found[0]
    assert words in found[0].message, found[0].message

"""What a new game works out once per pack or only on demand is the same as what it would work
out itself, at once: the starting state it keeps (`initial`), the index of its triggers."""

from __future__ import annotations

import json

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game, rules_for
from coh_core.engine.game import Game
from coh_core.engine.library import IMPLS
from coh_core.engine.runtime import Rt
from coh_core.engine.state import initial_state
from coh_core.packs.model import Pack


def _play(game: Game, seed: int, decisions: int) -> None:
    agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(game.players)}
    for _ in range(decisions):
        decision = game.decision
        assert decision is not None
        for colour in decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))


@pytest.mark.parametrize(
    ("players", "seed", "colours"), [(3, 1, None), (5, 7, None), (4, 3, ["red", "blue", "white", "green"])]
)
def test_the_starting_state_made_when_read_is_the_one_the_game_started_from(
    base_pack: Pack, players: int, seed: int, colours: list[str] | None
) -> None:
    rules = rules_for(base_pack)
    given = list(colours) if colours else None
    eager = Game(rules, initial_state(rules, players, seed, colours))  # keeps a copy at once
    lazy = new_game(base_pack, players=players, seed=seed, colours=given)
    if given:
        given.reverse()  # the caller's list changing later changes nothing
    _play(eager, seed, 30)
    _play(lazy, seed, 30)
    assert lazy.initial == eager.initial
    assert json.loads(json.dumps(lazy.initial)) == lazy.initial  # JSON as it is: no tuples
    assert lazy.initial["phase"] == "setup" and lazy.initial["pieces"] != lazy.state["pieces"]
    assert lazy.initial is lazy.initial  # made once
    assert lazy.to_json()["initial"] == eager.to_json()["initial"]


def test_a_fork_and_a_loaded_game_keep_the_starting_state(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=2)
    _play(game, 2, 20)
    fork = game.fork()
    loaded = Game.from_json(rules_for(base_pack), game.to_json())
    start = initial_state(rules_for(base_pack), 4, 2)
    assert fork.initial == loaded.initial == game.initial == start
    loaded.initial = {"replaced": True}  # a loaded game's own: the original's stays
    assert loaded.initial == {"replaced": True} and game.initial == start


def test_the_games_of_a_pack_share_its_index_of_triggers(base_pack: Pack) -> None:
    rules = rules_for(base_pack)
    one, other = new_game(base_pack, players=3, seed=1), new_game(base_pack, players=6, seed=2)
    assert one._triggers_by_id is other._triggers_by_id is rules.trigger_index().by_id
    every = [
        *rules.rule_triggers,
        *(t for side in rules.sides.values() for t in side.triggers),
        *(t for triggers in rules.character_triggers.values() for t in triggers),
    ]
    assert len(every) >= 10 and all(one.trigger(t.effect.program.id) is t for t in every)
    assert sum(map(len, one.rule_triggers.values())) == len(rules.rule_triggers)
    listening = {c for chars in one._listening.values() for c in chars}
    assert listening == {c for c, triggers in rules.character_triggers.items() if triggers}


def test_starting_states_of_a_pack_share_nothing_that_can_change(base_pack: Pack) -> None:
    rules = rules_for(base_pack)
    first = initial_state(rules, 4, 3)
    before = json.loads(json.dumps(first))
    for place in first["counts"].values():  # every list and map of the state changed in place
        for kind in place:
            place[kind] += 1
    for name, value in first["memory"].items():
        if isinstance(value, list):
            value.append(name)
        else:
            value[name] = 1
    for location in first["locations"].values():
        location["side"] = "changed"
    first["order"].reverse()
    for owners in first["piles"].values():
        for held in owners.values():
            held.append("changed")
    second = initial_state(rules, 4, 3)
    assert second == before != first


def test_a_log_entry_keeps_the_values_it_was_given(base_pack: Pack) -> None:
    game = new_game(base_pack, players=3, seed=4)
    names, players = ["a", "b"], ["red"]
    params: dict[str, object] = {"characters": names, "count": 2}
    IMPLS["log"].fn(Rt(game, {}, None), "streets_counted", players, params)
    params["count"] = 3  # what the caller holds changes later: the entry does not
    names.append("c")
    players.append("green")
    entry = game.log[-1]
    assert entry == {
        "key": "streets_counted",
        "turn": 0,
        "params": {"characters": ["a", "b"], "count": 2},
        "to": ["red"],
    }
    assert game.places[-1] == [game.state["phase"], game.state["at"]] and len(game.places) == len(game.log)

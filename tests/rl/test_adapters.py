"""The PettingZoo environments and the OpenSpiel game pass those libraries' own API tests, for the
base game, under each of its shipped overlays, and for the second game (the extra rl; .ci/run installs
it, so that CI never skips these)."""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the extra rl is not installed: pip install '.[rl]'")
pyspiel = pytest.importorskip("pyspiel", reason="the extra rl is not installed: pip install '.[rl]'")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

from coh_core.engine import IllegalAction  # noqa: E402
from coh_core.packs.overlays import shipped_overlays_of  # noqa: E402
from coh_core.resources import content_root  # noqa: E402
from coh_core.rl import openspiel as coh_spiel  # noqa: E402
from coh_core.rl import pettingzoo as coh_zoo  # noqa: E402

TABLES = [
    ("base", (), 4),
    *(
        ("base", (overlay,), 3 + i % 4)
        for i, overlay in enumerate(shipped_overlays_of(content_root(), "base"))
    ),
    ("zombicide", (), 2),
    *(("zombicide", (overlay,), 3) for overlay in shipped_overlays_of(content_root(), "zombicide")),
]


def _name(table: Any) -> str:
    return "+".join((table[0], *table[1])) + f"-{table[2]}p" if isinstance(table, tuple) else str(table)


@pytest.fixture(autouse=True)
def _quiet_advice() -> Any:
    # PettingZoo's tests advise (agents named `player_0`, a Box observation); coh's seats are colours
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("table", TABLES, ids=_name)
def test_pettingzoo_api_and_seed_tests(table: tuple[str, tuple[str, ...], int]) -> None:
    game, rules, players = table
    api_test(coh_zoo.env(game=game, rules=rules, players=players), num_cycles=1000)
    parallel_api_test(coh_zoo.parallel_env(game=game, rules=rules, players=players), num_cycles=1000)
    seed_test(lambda: coh_zoo.env(game=game, rules=rules, players=players), num_cycles=50)
    parallel_seed_test(lambda: coh_zoo.parallel_env(game=game, rules=rules, players=players), num_cycles=50)


@pytest.mark.parametrize("table", TABLES, ids=_name)
def test_openspiel_random_simulation_with_serialization(table: tuple[str, tuple[str, ...], int]) -> None:
    game, rules, players = table
    loaded = pyspiel.load_game(
        coh_spiel.SHORT_NAME, {"game": game, "rules": ",".join(rules), "players": players}
    )
    pyspiel.random_sim_test(loaded, num_sims=1, serialize=True, verbose=False)


def _played_out(
    step: Callable[[Any], None], agents: Any, last: Callable[[], Any], table: Any
) -> dict[str, float]:
    totals: dict[str, float] = {}
    for agent in agents():
        observation, reward, termination, truncation, _info = last()
        totals[agent] = totals.get(agent, 0.0) + reward
        step(
            None
            if termination or truncation
            else table.action_space(agent).sample(observation["action_mask"])
        )
    return totals


def test_an_aec_game_plays_to_its_end_with_the_returns_as_rewards() -> None:
    table = coh_zoo.env(players=4)
    table.reset(seed=5)
    for n, agent in enumerate(table.possible_agents):
        table.action_space(agent).seed(n)  # (the same game every run)
    totals = _played_out(table.step, table.agent_iter, table.last, table)
    game = table.unwrapped.seats.game
    assert game is not None and game.over
    # (ties share the win: every seat may have won)
    assert totals == game.returns() and set(totals.values()) <= {-1.0, 1.0}


def test_an_illegal_action_loses_the_game_or_raises_as_asked() -> None:
    wrapped = coh_zoo.env(players=3)
    wrapped.reset(seed=2)
    seat = wrapped.agent_selection
    illegal = next(i for i, legal in enumerate(wrapped.observe(seat)["action_mask"]) if not legal)
    wrapped.step(illegal)
    assert wrapped.rewards[seat] == coh_zoo.ILLEGAL_REWARD and all(wrapped.terminations.values())
    raw = coh_zoo.raw_env(players=3)
    raw.reset(seed=2)
    with pytest.raises(IllegalAction):
        raw.step(illegal)
    for policy in ("lose", "raise"):
        parallel = coh_zoo.parallel_env(players=3, illegal=policy)
        parallel.reset(seed=2)
        actions = dict.fromkeys(parallel.agents, illegal)
        if policy == "raise":
            with pytest.raises(IllegalAction):
                parallel.step(actions)
            continue
        _obs, rewards, terminations, _trunc, infos = parallel.step(actions)
        assert (
            rewards[seat] == coh_zoo.ILLEGAL_REWARD
            and all(terminations.values())
            and "illegal" in infos[seat]
        )
        assert parallel.agents == []


def test_a_resampled_state_is_one_the_player_cannot_tell_apart() -> None:
    loaded = pyspiel.load_game(coh_spiel.SHORT_NAME, {"players": 4, "seed": 7})
    state = loaded.new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differed = 0
    moves = 0
    while not state.is_terminal() and moves < 400:
        player = state.current_player()
        world = state.resample_from_infostate(player, sampler)
        assert world.current_player() == player
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_tensor(player) == state.observation_tensor(player)
        assert world.legal_actions() == state.legal_actions()
        differed += str(world) != str(state)
        state.apply_action(state.legal_actions()[moves * 7919 % len(state.legal_actions())])
        moves += 1
    assert differed > moves // 2  # the hidden hands and decks were dealt again


def test_clone_serialize_and_pickle_go_on_identically() -> None:
    loaded = pyspiel.load_game(coh_spiel.SHORT_NAME, {"players": 3, "seed": 4})
    state = loaded.new_initial_state()
    for n in range(60):
        state.apply_action(state.legal_actions()[n % len(state.legal_actions())])
    copies = [
        state.clone(),
        pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(loaded, state))[1],
        pickle.loads(pickle.dumps(state)),
    ]
    for copy in copies:
        assert str(copy) == str(state) and copy.history() == state.history()
    while not state.is_terminal():
        action = state.legal_actions()[-1]
        for playing in (state, *copies):
            playing.apply_action(action)
    assert all(str(copy) == str(state) and copy.returns() == state.returns() for copy in copies)


def test_the_ismcts_example_plays_a_game_to_its_end() -> None:
    import runpy
    from pathlib import Path

    example = runpy.run_path(str(Path(__file__).parents[2] / "examples" / "openspiel_ismcts.py"))
    returns, searcher = example["play"]("base", 3, 2, 3)
    assert searcher == 2 and len(returns) == 3 and set(returns) <= {-1.0, 1.0}


def test_the_batched_runner_plays_its_games_to_their_ends_and_deals_again() -> None:
    import numpy as np

    from coh_core.engine import new_game
    from coh_core.engine.rng import Rng
    from coh_core.rl.vector import VectorTables

    tables = VectorTables(3, players=3, seed=20)
    observations, masks, _seats = tables.reset()
    assert observations.shape == (3, tables.observer.size) and masks.shape == (3, len(tables.space))
    rng = Rng(1)
    ended: dict[int, list[float]] = {}
    played: list[list[int]] = [[], [], []]  # each first game's answers, to play it again alone
    while len(ended) < 3:
        actions = []
        for i in range(3):
            legal = np.flatnonzero(masks[i])
            assert len(legal) > 0
            actions.append(int(legal[rng.randbelow(len(legal))]))
        before = [tables.games[i] for i in range(3)]
        observations, masks, seats, rewards, dones = tables.step(actions)
        for i in range(3):
            assert tables.seats[seats[i]] == tables.games[i].waiting[0]
            if before[i].state["seed"] - 20 == i:  # the first game dealt to row i
                played[i].append(actions[i])
            if dones[i] and before[i].state["seed"] - 20 == i:
                ended[i] = [float(r) for r in rewards[i]]
                assert tables.games[i] is not before[i]  # dealt again
    for i in range(3):  # the same games, played alone from the same seeds and answers
        game = new_game(tables.table.pack, players=3, seed=20 + i)
        for action in played[i]:
            game.submit_id(game.waiting[0], action)
        assert game.over and ended[i] == [game.returns()[seat] for seat in game.players]
    assert tables.finished >= 3

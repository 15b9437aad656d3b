"""Seeded random games for 3-6 players: what must hold at every decision and at the end.

The default run plays a few dozen games per player count; `pytest -m soak` plays thousands.
"""

from __future__ import annotations

from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import play_out
from coh_core.engine import Game, new_game
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.packs.overlays import shipped_overlays_of
from coh_core.resources import content_root

PLAYER_COUNTS = (3, 4, 5, 6)
QUICK_GAMES = 25
SOAK_GAMES = 1000
OVERLAY_GAMES = 8


# The entries of the piles of these types are conserved (the invasion cards revealed leave the game).
CONSERVED = ("int", "card_kind")


def _totals(state: dict[str, Any], counters: dict[str, int], piles: dict[str, Any]) -> dict[str, int]:
    """Every counter of a kind with a supply, wherever it is; every entry of the piles of each type
    conserved (food tokens, action cards), in whichever pile."""
    totals = {kind: sum(held[kind] for held in state["counts"].values()) for kind in counters}
    for name, held in state["piles"].items():
        of = piles[name]["of"]
        if of in CONSERVED:
            totals[of] = totals.get(of, 0) + sum(len(entries) for entries in held.values())
    return totals


class Watcher:
    """Checks the invariants before every decision of one game."""

    def __init__(self, pack: Pack):
        components = pack.section("components")
        self.counters = {
            kind: counter["supply"] for kind, counter in components["counters"].items() if "supply" in counter
        }
        self.piles = components["piles"]
        self.expected = {
            **self.counters,
            "int": len(components["food_tokens"]),
            "card_kind": components["action_cards"],
        }
        self.cap = pack.section("params")["zombie_cap"]["value"]
        self.dead: set[str] = set()

    def __call__(self, game: Game, decision: Any) -> None:
        self.check(game)

    def check(self, game: Game) -> None:
        state = game.state
        if state["turn"] > 0 or state["piles"]["deck"][""]:
            assert _totals(state, self.counters, self.piles) == self.expected
        assert all(n >= 0 for held in state["counts"].values() for n in held.values()), state["counts"]
        for location in state["locations"]:
            zombies = state["counts"][location]["zombies"]
            assert 0 <= zombies <= self.cap, (location, zombies)
            side = game.side(location)
            crowd = [c for c in game.at(location) if not game.trait(c, "ignores_capacity")]
            if side.capacity is not None and not side.closed:
                assert len(crowd) <= side.capacity, (location, crowd)
        for character, data in state["pieces"]["characters"].items():
            if character in self.dead:
                assert not data["alive"], f"{character} came back to life"
            elif not data["alive"]:
                self.dead.add(character)


def _play(pack: Pack, players: int, seed: int) -> Game:
    game = new_game(pack, players=players, seed=seed)
    agents = {c: RandomAgent(seed * 31 + i) for i, c in enumerate(game.players)}
    watcher = Watcher(pack)
    play_out(game, agents, before=watcher)
    watcher.check(game)
    _check_end(game)
    return game


def _check_end(game: Game) -> None:
    state = game.state
    assert state["turn"] == 4 and state["phase"] == "end"
    result = state["result"]
    assert set(result["scores"]) == set(state["players"])
    assert all(isinstance(s, int) and s >= 0 for s in result["scores"].values())
    assert result["winners"] and set(result["winners"]) <= set(state["players"])
    for player in state["players"]:
        if not game.living(player):
            assert result["scores"][player] == 0
    survivors = result["tie_breaks"]["survivors"]  # the base pack's tie-break: its living characters
    assert survivors == {p: len(game.living(p)) for p in state["players"]}
    best = max((result["scores"][p], survivors[p]) for p in state["players"])
    assert all((result["scores"][p], survivors[p]) == best for p in result["winners"])


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_keep_the_invariants(base_pack: Pack, players: int) -> None:
    for seed in range(QUICK_GAMES):
        _play(base_pack, players, seed)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_same_seed_gives_the_same_game(base_pack: Pack, players: int) -> None:
    first = _play(base_pack, players, 7)
    second = _play(base_pack, players, 7)
    assert first.digest() == second.digest()
    assert first.history == second.history


@pytest.mark.soak
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_soak_random_games_keep_the_invariants(base_pack: Pack, players: int) -> None:
    for seed in range(1000, 1000 + SOAK_GAMES):
        _play(base_pack, players, seed)


OVERLAYS = shipped_overlays_of(content_root(), "base")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_games_under_each_overlay_keep_the_invariants(overlay: str) -> None:
    """Every shipped overlay plays whole games: its own totals and zombie cap hold."""
    pack = load_pack_checked(rules=[overlay])
    for seed in range(OVERLAY_GAMES):
        _play(pack, 3 + seed % 4, seed)


@pytest.mark.soak
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_soak_games_under_each_overlay(overlay: str) -> None:
    pack = load_pack_checked(rules=[overlay])
    for seed in range(1000, 1000 + SOAK_GAMES // 4):
        _play(pack, 3 + seed % 4, seed)

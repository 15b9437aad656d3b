"""What a player's view shows of what the game remembers (`components: memory`): each value as the
pack declares who sees it. Nothing another player may not see is in a player's view."""

from __future__ import annotations

from typing import Any

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import Game, new_game
from coh_core.packs.model import Pack


def _game_at(base_pack: Pack, kind: str, players: int = 4, seed: int = 3) -> Game:
    """A game played by random agents up to its first question of this kind."""
    game = new_game(base_pack, players=players, seed=seed)
    agents = {c: RandomAgent(seed * 100 + i) for i, c in enumerate(game.players)}
    while game.decision is not None and game.decision.kind != kind:
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    assert game.decision is not None
    return game


def _each_player(game: Game) -> dict[str, Any]:
    return {colour: f"value of {colour}" for colour in game.players}


def test_each_value_is_shown_as_the_pack_declares(base_pack: Pack) -> None:
    game = _game_at(base_pack, "move")
    memory = game.rules.memory
    assert {name for name, m in memory.items() if m.visible == "owner"} == {"known_invasions"}
    # every value of each player holds something of every player: what a view shows is what it may
    for name, spec in memory.items():
        if spec.per_player:
            game.state["memory"][name] = _each_player(game)
    for colour in game.players:
        shown = game.view(colour).to_json()["memory"]
        for name, spec in memory.items():
            if spec.visible == "none":
                assert name not in shown
            elif spec.visible == "owner":
                assert shown[name] == {colour: f"value of {colour}"}
            else:
                assert shown[name] == game.state["memory"][name]


def test_a_movement_card_chosen_again_is_hidden_from_the_others_while_it_is_chosen(base_pack: Pack) -> None:
    """`hidden_while_asked: movement_card`: while a player answers it, the others do not see their card."""
    game = _game_at(base_pack, "movement_card")
    game.state["memory"]["movement"] = {colour: "church" for colour in game.players}
    asked = set(game.decision.options) if game.decision is not None else set()
    assert asked
    for colour in game.players:
        seen = game.view(colour).to_json()["memory"]["movement"]
        assert set(seen) == {colour} | (set(game.players) - asked)


def test_a_view_is_a_copy(base_pack: Pack) -> None:
    game = _game_at(base_pack, "move")
    colour = game.players[0]
    game.state["memory"]["known_invasions"] = {colour: ["first_wave"]}
    game.view(colour).to_json()["memory"]["known_invasions"][colour].append("changed")
    assert game.state["memory"]["known_invasions"] == {colour: ["first_wave"]}

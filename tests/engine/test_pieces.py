"""The pieces players own are of the kind the pack declares (`components: pieces`), and the players
out of the game are kept in the memory the pack gives that role: the engine reads neither by name."""

from __future__ import annotations

from pathlib import Path

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import Game, new_game
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack

COMPONENTS = "components.yaml"


def _played(pack: Pack, seed: int, players: int = 4, until: str | None = None) -> Game:
    """A game of random agents, to its end or to its first question of kind `until`."""
    game = new_game(pack, players=players, seed=seed)
    agents = {c: RandomAgent(seed * 1000 + i) for i, c in enumerate(game.players)}
    while game.decision is not None and game.decision.kind != until:
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    return game


def _edited(base_copy: Path, old: str, new: str) -> Pack:
    path = base_copy / COMPONENTS
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return load_pack_checked(base_copy)


def test_the_characters_dealt_are_pieces_of_the_declared_kind(base_pack: Pack) -> None:
    game = _played(base_pack, seed=5, until="movement_card")
    pieces = game.state["pieces"]
    assert list(pieces) == ["characters"]
    owners = [piece["owner"] for piece in pieces["characters"].values()]
    # the setup table deals 4 characters each at 4 players
    assert sorted(owners) == sorted(game.players * 4)
    view = game.view(game.players[0]).to_json()
    assert view["piece_roles"] == {"players": "characters"}
    assert view["pieces"] == pieces
    assert "characters" not in view


def test_a_kind_of_pieces_named_otherwise_plays_the_same_game(base_pack: Pack, base_copy: Path) -> None:
    renamed = _edited(base_copy, "    characters: {doc: the characters", "    people: {doc: the characters")
    original, twin = _played(base_pack, seed=7), _played(renamed, seed=7)
    assert list(twin.state["pieces"]) == ["people"]
    assert twin.state["pieces"]["people"] == original.state["pieces"]["characters"]
    assert (twin.history, twin.log, twin.state["result"]) == (
        original.history,
        original.log,
        original.state["result"],
    )


def _first_game_with_a_player_out(pack: Pack) -> tuple[int, Game]:
    for seed in range(1, 40):
        game = _played(pack, seed=seed)
        if game.out_of_game():
            return seed, game
    raise AssertionError("no game of seeds 1-39 sends a player out")


def test_players_with_no_living_piece_go_out_into_the_memory_of_that_role(base_pack: Pack) -> None:
    _, game = _first_game_with_a_player_out(base_pack)
    out = game.state["memory"]["eliminated"]
    assert out == game.out_of_game() and out
    for player in out:
        assert game.living(player) == []
        assert {"key": "player_eliminated", "player": player} in [
            {"key": e["key"], **e["params"]} for e in game.log if e["key"] == "player_eliminated"
        ]
    assert not set(out) & set(game.turn_order())


def test_without_a_memory_of_role_out_of_game_nobody_goes_out(base_pack: Pack, base_copy: Path) -> None:
    seed, _ = _first_game_with_a_player_out(base_pack)
    kept_by_nobody = _edited(base_copy, "      role: out_of_game\n", "")
    game = _played(kept_by_nobody, seed=seed)
    assert any(game.living(p) == [] for p in game.players)  # the same seed: someone still loses all
    assert game.out_of_game() == [] and game.state["memory"]["eliminated"] == []
    assert "player_eliminated" not in [e["key"] for e in game.log]

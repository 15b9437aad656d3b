"""What a player's view shows of the piles: the entries of those the pack lets them see (`sees`:
everyone's, their own, or nobody's), and of every pile only how many entries it holds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game
from coh_core.engine.game import SAVE_BLOCK, Game
from coh_core.engine.runtime import EngineError
from coh_core.packs.model import Pack


def _game_in_play(base_pack: Pack, seed: int) -> Game:
    """A 4-player game some twenty decisions in: hands dealt, the deck and the food tokens set."""
    game = new_game(base_pack, players=4, seed=seed)
    agent = RandomAgent(seed)
    for _ in range(20):
        decision = game.decision
        if decision is None:
            break
        colour = decision.waiting[0]
        game.submit(colour, ask(game, agent, colour))
    return game


def _may_see(sees: str, owner: str, me: str) -> bool:
    return sees == "everyone" or (sees == "owner" and owner == me)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_view_shows_the_entries_of_the_piles_the_player_may_see_and_the_sizes_of_all(
    base_pack: Pack, seed: int
) -> None:
    game = _game_in_play(base_pack, seed)
    piles = game.state["piles"]
    for me in game.state["players"]:
        view = game.view(me).to_json()
        for name, pile in game.rules.piles.items():
            shown = {o: h for o, h in piles[name].items() if _may_see(pile.sees, o, me)}
            assert view["piles"][name] == shown, (me, name)
            assert view["pile_sizes"][name] == {o: len(h) for o, h in piles[name].items()}, (me, name)


def test_the_base_pack_hides_hands_decks_and_food_from_others(base_pack: Pack) -> None:
    game = _game_in_play(base_pack, 1)
    red, blue = game.state["players"][:2]
    view = game.view(red).to_json()
    assert set(view["piles"]["hands"]) == {red}
    assert set(view["piles"]["food"]) == {red}
    assert view["piles"]["deck"] == {} and view["piles"]["invasion_deck"] == {}
    assert view["piles"]["food_face_down"] == {}
    assert view["piles"]["discard"] == {"": game.state["piles"]["discard"][""]}
    assert view["pile_sizes"]["hands"][blue] == len(game.state["piles"]["hands"][blue])


def test_no_hidden_entry_leaks_into_a_view(base_pack: Pack) -> None:
    """Entries only a pile's owner, or nobody, may see appear nowhere in another player's view."""
    game = _game_in_play(base_pack, 2)
    red, blue = game.state["players"][:2]
    secret: dict[str, Any] = {
        "hands": {blue: ["SECRET-HAND"]},
        "packets": {blue: ["SECRET-PACKET"]},
        "deck": {"": ["SECRET-DECK"]},
        "food_face_down": {"": [9001]},
        "food": {blue: [9002]},
        "invasion_deck": {"": ["SECRET-INVASION"]},
    }
    for name, held in secret.items():
        for owner, entries in held.items():
            game.state["piles"][name][owner].extend(entries)
    shown = json.dumps(game.view(red).to_json())
    for word in ("SECRET-HAND", "SECRET-PACKET", "SECRET-DECK", "SECRET-INVASION", "9001", "9002"):
        assert word not in shown, word
    assert "SECRET-HAND" in json.dumps(game.view(blue).to_json())  # the owner sees their own


@pytest.mark.parametrize("stranger", ["nobody", "", "RED", "purple"])
def test_a_view_is_refused_to_a_colour_not_seated(base_pack: Pack, stranger: str) -> None:
    game = new_game(base_pack, players=4, seed=1)
    assert stranger not in game.players
    with pytest.raises(EngineError) as refused:
        game.view(stranger)
    assert refused.value.code == "VIEW-SEAT"
    seats = ", ".join(game.players)
    assert f"`{stranger}` is not a seat of this game (its seats: {seats})" in refused.value.message


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_public_view_shows_what_every_seat_sees_and_no_more(base_pack: Pack, seed: int) -> None:
    """A spectator sees of the piles, the memory and the log exactly what all the seats see in
    common, and is asked nothing."""
    game = _game_in_play(base_pack, seed)
    public = game.public_view()
    shown = public.to_json()
    seats = [game.view(colour) for colour in game.players]
    views = [view.to_json() for view in seats]
    assert shown["me"] is None and shown["decision"] is None and public.decision is None
    for name in shown["piles"]:
        common = {
            o: h for o, h in views[0]["piles"][name].items() if all(o in v["piles"][name] for v in views)
        }
        assert shown["piles"][name] == common, name
    for name, value in shown["memory"].items():  # what the spectator sees of it, every seat sees
        for view in views:
            seen = view["memory"][name]
            assert {k: seen[k] for k in value} == value if isinstance(value, dict) else seen == value, name
    assert public.log() == [entry for entry in game.log if "to" not in entry]
    assert all(entry in seat.log() for seat in seats for entry in public.log())


def _reachable(start: Any) -> list[Any]:
    """Every object reachable from `start` through references (the garbage collector's), but
    through the ruleset and the code, shared by every game of it (`Rules`, its programs, modules,
    their globals and code objects)."""
    import gc
    import sys
    import types

    from coh_core.engine.machine import Program
    from coh_core.engine.rules import Rules

    shared = (Rules, Program, types.ModuleType, types.CodeType)
    modules = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}  # (functions' globals)
    seen: dict[int, Any] = {id(start): start}
    todo = [start]
    while todo:
        for found in gc.get_referents(todo.pop()):
            if id(found) not in seen and not isinstance(found, type):
                seen[id(found)] = found
                if not isinstance(found, shared) and id(found) not in modules:
                    todo.append(found)
    return list(seen.values())


def test_a_view_kept_past_its_decision_keeps_what_it_showed_and_no_part_of_the_game(base_pack: Pack) -> None:
    game = _game_in_play(base_pack, 4)
    colour = game.waiting[0]
    kept = game.view(colour)
    shown = (kept.to_json(), kept.log(), kept.observation(), kept.information_state(), kept.decision)
    agent = RandomAgent(9)
    for _ in range(30):  # the game goes on
        decision = game.decision
        assert decision is not None
        seat = decision.waiting[0]
        game.submit(seat, ask(game, agent, seat))
    now = game.view(colour)
    assert now.to_json() != shown[0]
    assert (kept.to_json(), kept.log(), kept.observation(), kept.information_state(), kept.decision) == shown
    reachable = {id(o) for o in _reachable(kept)}
    hidden = [held for held in game.state["piles"]["hands"].values()]
    assert id(game) not in reachable and id(game.state) not in reachable
    assert not any(id(h) in reachable for h in hidden) and id(game.log) not in reachable
    world = kept.sample_world(RandomAgent(1).rng)
    assert world.view(colour).to_json()["decision"] == shown[0]["decision"]


@pytest.mark.parametrize("seat", [0, 2, None])
def test_a_view_just_made_reaches_nothing_of_the_game(base_pack: Pack, seat: int | None) -> None:
    game = _game_in_play(base_pack, 6)
    view = game.view(game.players[seat]) if seat is not None else game.public_view()
    reachable = {id(o) for o in _reachable(view)}
    others = [held for owner, held in game.state["piles"]["hands"].items() if owner != view.colour]
    assert id(game) not in reachable and id(game.state) not in reachable and id(game.log) not in reachable
    assert others and not any(id(h) in reachable for h in others)


@pytest.mark.parametrize("saved", [False, True])
def test_a_sampled_world_holds_nothing_the_seat_did_not_see(base_pack: Pack, saved: bool) -> None:
    """Saved: the game was saved before, so that it keeps most of its answers dumped for saves."""
    from coh_core.engine.rng import Rng
    from coh_core.engine.worlds import sample_world

    game = _game_in_play(base_pack, 5)
    agent = RandomAgent(5)
    while len(game.history) <= SAVE_BLOCK:  # past a block of answers kept dumped once saved
        assert game.decision is not None
        colour = game.decision.waiting[0]
        game.submit(colour, ask(game, agent, colour))
    if saved:
        game.to_json()
    me = game.players[1]
    world = sample_world(game, me, Rng(3))
    assert world.state["seed"] != game.state["seed"] and world.initial == {}
    private = [e for e in game.log if "to" in e and me not in e["to"]]
    assert private and not any(e in world.log for e in private)
    assert len(world.log) == len(game.log)  # (the engine counts entries: each keeps its place)
    assert len(world.history) == len(game.history)
    assert any(set(answers) - {me} for answers in game.history)
    assert all(set(answers) <= {me} for answers in world.history)
    assert all(set(answers) <= {me} for answers in world.to_json()["history"])
    assert json.loads(world.to_json_text()) == world.to_json()
    other = game.players[2]  # a world drawn for another seat next, and for the first again
    assert all(set(answers) <= {other} for answers in sample_world(game, other, Rng(4)).history)
    assert sample_world(game, me, Rng(5)).history == world.history


def test_a_world_drawn_from_a_world_hides_the_answers_given_since(base_pack: Pack) -> None:
    """A world keeps which seat its answers were hidden for (a search draws many from one view's):
    drawn again for that seat after others answered in it, their new answers are hidden too; drawn
    for another seat, the first seat's are."""
    from coh_core.engine.rng import Rng
    from coh_core.engine.worlds import sample_world

    game = _game_in_play(base_pack, 6)
    me, other = game.players[0], game.players[1]
    world = sample_world(game, me, Rng(1))
    assert all(set(answers) <= {me} for answers in world.history)
    before = len(world.history)
    # (a world redeals what the frames may have picked already: a seat plays a card it no longer
    # holds; the first world that plays on to others' answers is kept)
    for seed in range(1, 20):
        world, agent = sample_world(game, me, Rng(seed)), RandomAgent(6)
        try:
            while len(world.history) < before + 12 or not any(set(a) - {me} for a in world.history[before:]):
                assert world.decision is not None
                colour = world.decision.waiting[0]
                world.submit(colour, ask(world, agent, colour))
            break
        except EngineError:
            continue
    again = sample_world(world, me, Rng(2))
    assert len(again.history) == len(world.history)
    assert all(set(answers) <= {me} for answers in again.history)
    assert again.history[:before] == sample_world(world, me, Rng(3)).history[:before]
    theirs = sample_world(again, other, Rng(4))
    assert all(set(answers) <= {other} for answers in theirs.history)
    assert not any(me in answers for answers in theirs.history)

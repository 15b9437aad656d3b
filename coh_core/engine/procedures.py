"""The turn structure's procedures still written in Python: movement, invasion, resolution, votes.

Setup and the end of the game are verbs of the base pack (content/base/procedures-setup.yaml).

They are the general mechanics of the game; the pack's `turn` section decides which run,
in what order and with which parameters (tie rules, sharing rules, placement order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from coh_core.engine.compiler import Impl
from coh_core.engine.flow import window_frame
from coh_core.engine.game import PASS, Game
from coh_core.engine.library import IMPLS, add_zombies_raw, move_leader_raw, move_zombies_raw
from coh_core.engine.machine import Frame
from coh_core.engine.runtime import Rt, Steps

F = TypeVar("F", bound=Callable[..., Any])


def _procedure(name: str) -> Callable[[F], F]:
    def register(fn: F) -> F:
        IMPLS[name] = Impl(fn, gen=True)
        return fn

    return register


# --- invasion cards (the base pack's `zombies_arrive` does the same for setup's card) -----------


def _location_by_number(game: Game, number: int) -> str:
    return str(game.state["order"][number - 1])


def _arrivals(rt: Rt, card: dict[str, Any]) -> None:
    for number, count in enumerate(card.get("zombies") or [], start=1):
        if count:
            location = _location_by_number(rt.game, number)
            added = add_zombies_raw(rt, int(count), location)
            rt.game.note("zombies_arrived", count=added, location=location)


# --- movement ------------------------------------------------------------------------------


@_procedure("choose_movement_cards")
def choose_movement_cards(rt: Rt) -> Steps:
    game = rt.game
    state = game.state
    state["movement"] = {}
    state["deferred"] = []
    yield from game.emit("movement_selection_start")
    cards = [("card", c) for c in game.rules.components["movement_cards"]]
    players = game.turn_order()
    deferred = [p for p in state["deferred"] if p in players]
    for group in ([p for p in players if p not in deferred], deferred):
        if not group:
            continue
        answers = yield from game.ask_all("movement_card", {p: cards for p in group})
        for player in group:
            state["movement"][player] = answers[player][1]
        game.note("movement_revealed", cards={p: state["movement"][p] for p in group})
    state["deferred"] = []


@_procedure("move_characters_in_turn_order")
def move_characters_in_turn_order(rt: Rt) -> Steps:
    game = rt.game
    for player in game.turn_order():
        if player in game.state["eliminated"]:
            continue
        # Before moving, the player may use anything playable now (the Granny, the Blonde).
        yield from game.window_loop(player, ("before_own_move", "anytime"), {})
        yield from _move_one(game, player)
    yield from game.emit("movement_phase_end")


def _movable(game: Game, player: str, destination: str) -> list[str]:
    chars = game.state["characters"]
    return [
        c
        for c in game.living(player)
        if chars[c]["at"] != destination
        and game.trait(c, "can_move")
        and not game.side(chars[c]["at"]).locked
    ]


def _move_one(game: Game, player: str) -> Steps:
    destination = game.state["movement"][player]
    movers = _movable(game, player, destination)
    if not movers:
        game.note("no_move", player=player, location=destination)
        return
    answer = yield from game.ask(player, "move", [("move", c) for c in movers], location=destination)
    mover = answer[1]
    origin = game.state["characters"][mover]["at"]
    before = dict(game.state["characters"][mover]["traits"])
    yield from game.window_loop(player, ("own_move",), {"mover": mover})
    given = {k: v for k, v in game.state["characters"][mover]["traits"].items() if before.get(k) is not v}
    game.leave(mover, kept=given)
    target = destination if game.has_room(mover, destination) else game.rules.setup["overflow_location"]
    game.place(mover, target)
    game.note("character_moved", character=mover, location=target, player=player)
    ident = game.open_pending({"kind": "move", "player": player, "character": mover, "location": target})
    cancelled = yield window_frame(game, "others", ("cancel_move",), {"pending": ident})
    if cancelled:
        # Undone: back where it was, as it was there (an extra place it had held is kept);
        # what it was given for this move belonged to the destination and ends.
        game.place(mover, origin)
        game.state["characters"][mover]["traits"] = before
        game.note("move_cancelled", character=mover, location=origin)
        return
    yield from game.emit("character_moved", target, mover=mover)
    yield from game.end_action()


# --- invasion --------------------------------------------------------------------------------


@_procedure("resolve_invasion")
def resolve_invasion(rt: Rt) -> Steps:
    game = rt.game
    state = game.state
    if not state["invasion_deck"]:
        return
    card_id = state["invasion_deck"].pop(0)
    card = game.rules.invasions[card_id]
    game.note("invasion_revealed", invasion=card_id)
    for move in card.get("moves") or []:
        source = _location_by_number(game, int(move["from"]))
        to = _location_by_number(game, int(move["to"]))
        count = int(move.get("count", state["locations"][source]["zombies"]))
        moved = move_zombies_raw(rt, count, source, to)
        game.note("zombies_moved", count=moved, origin=source, location=to)
    _arrivals(rt, card)
    for drop in card.get("airdrops") or []:
        _airdrop(game, _location_by_number(game, int(drop["at"])), drop)
    if card.get("leader"):
        move_leader_raw(rt, int(card["leader"]))
        game.note("leader_moved", steps=int(card["leader"]), colour=state["leader"])
    return
    yield


def _airdrop(game: Game, location: str, drop: dict[str, Any]) -> None:
    state = game.state
    place = state["locations"][location]
    antidotes = min(int(drop.get("antidotes", 0)), state["reserve"]["antidotes"])
    state["reserve"]["antidotes"] -= antidotes
    place["antidotes"] += antidotes
    cards = [state["deck"].pop() for _ in range(min(int(drop.get("cards", 0)), len(state["deck"])))]
    place["cards"].extend(cards)
    game.note("airdrop", location=location, antidotes=antidotes, cards=len(cards))


# --- location resolution ----------------------------------------------------------------------------


@_procedure("activate_location")
def activate_location(rt: Rt) -> Steps:
    game = rt.game
    here = rt.env["here"]
    activation = game.side(here).activation
    if activation is None:
        return
    for player in game.turn_order():
        if not any(game.state["characters"][c]["owner"] == player for c in game.at(here)):
            continue
        env = {"here": here, "me": player}
        if not game._could(activation, env, player):
            continue
        answer = yield from game.ask(player, "activate", [PASS, ("activate", here)], location=here)
        if answer == PASS:
            continue
        game.note("location_activated", player=player, location=here)
        yield from game._run(activation, env, player)
        yield from game.end_action()


def action_window(rt: Rt, gifts: int) -> Frame:
    """Every player in turn order may act, up to `gifts` gifts each, until all pass in a row."""
    here = rt.env.get("here")
    return window_frame(rt.game, "round", ("anytime",), {}, gifts=gifts, here=here, question="act")


IMPLS["action_window"] = Impl(action_window, frame=True)


# --- the end of the game ---------------------------------------------------------------------------

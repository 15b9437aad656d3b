"""The turn structure's procedures still written in Python: movement, invasion, resolution, votes.

Setup and the end of the game are verbs of the base pack (content/base/procedures-setup.yaml).

They are the general mechanics of the game; the pack's `turn` section decides which run,
in what order and with which parameters (tie rules, sharing rules, placement order).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from coh_core.engine.compiler import Impl
from coh_core.engine.flow import window_frame
from coh_core.engine.game import PASS, Game
from coh_core.engine.library import IMPLS, add_zombies_raw, move_leader_raw, move_zombies_raw
from coh_core.engine.machine import Frame
from coh_core.engine.runtime import Action, EngineError, Rt, Steps

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


def _selectable_at(game: Game, location: str, player: str | None = None) -> list[str]:
    chars = game.state["characters"]
    return [
        c for c in game.at(location) if game.selectable(c) and (player is None or chars[c]["owner"] == player)
    ]


def _candidates(game: Game, location: str) -> list[str]:
    chars = game.state["characters"]
    owners = {chars[c]["owner"] for c in _selectable_at(game, location)}
    return [p for p in game.turn_order() if p in owners]


def _weights(game: Game, location: str) -> dict[str, int]:
    chars = game.state["characters"]
    weights: Counter[str] = Counter()
    for character in _selectable_at(game, location):
        weights[chars[character]["owner"]] += int(game.trait(character, "votes"))
    # extra votes count whether or not their player has a character there that votes
    for player, votes, at, _ in game.state["vote_bonus"]:
        if at == location:
            weights[player] += votes
    active = set(game.turn_order())
    return {p: w for p, w in weights.items() if w > 0 and p in active}


def _casters(game: Game, location: str, weights: dict[str, int]) -> dict[str, str]:
    """Who casts each player's votes here: the player, or whoever votes in their place."""
    casts = {p: p for p in game.turn_order() if p in weights}
    active = set(game.turn_order())
    for voter, owner, at in game.state["vote_proxies"]:
        if at == location and owner in casts and voter in active:
            casts[owner] = voter
    return casts


def _ballots(
    game: Game, location: str, purpose: str, candidates: list[str], weights: dict[str, int]
) -> Steps:
    """Every ballot's answer, by whose votes it holds: together, then those cast for others."""
    options = [("vote", c) for c in candidates]
    casts = _casters(game, location, weights)
    own = {p: list(options) for p, caster in casts.items() if caster == p}
    answers: dict[str, Any] = yield from game.ask_all("vote", own, location=location, purpose=purpose)
    for owner, caster in casts.items():
        if caster != owner:
            answers[owner] = yield from game.ask(
                caster, "vote_for", list(options), location=location, purpose=purpose, player=owner
            )
            game.note("votes_cast_for", player=caster, victim=owner, location=location)
    return {p: answers[p] for p in casts}


def vote(game: Game, location: str, purpose: str, tie: str) -> Steps:
    """The players at the location vote for one of the players there; returns the winner or None."""
    candidates = _candidates(game, location)
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    weights = _weights(game, location)
    answers = yield from _ballots(game, location, purpose, candidates, weights)
    tally: Counter[str] = Counter({c: 0 for c in candidates})
    for voter, answer in answers.items():
        tally[answer[1]] += weights[voter]
    game.note(
        "votes_revealed", location=location, votes={v: a[1] for v, a in answers.items()}, tally=dict(tally)
    )
    top = max(tally.values())
    tied = [c for c in candidates if tally[c] == top]
    if len(tied) == 1:
        return tied[0]
    if tie == "nobody":
        game.note("vote_tied_nobody", location=location)
        return None
    chooser = game.next_with_characters(game.state["first"]) or game.state["first"]
    answer = yield from game.ask(chooser, "break_tie", [("winner", c) for c in tied], location=location)
    game.note("tie_broken", player=chooser, winner=answer[1], location=location)
    return answer[1]


@_procedure("zombie_attack")
def zombie_attack(rt: Rt, tie: str) -> Steps:
    game = rt.game
    here = rt.env["here"]
    side = game.side(here)
    if side.attack_if is None or not side.attack_if(Rt(game, {"here": here}, None)):
        game.note("no_attack", location=here)
        return
    game.note("attack", location=here)
    if side.leader_attack:
        yield from _leader_attack(game, here)
        return
    loser = yield from vote(game, here, "attack", tie)
    if loser is None:
        game.note("nobody_eaten", location=here)
        return
    yield from _lose_one(game, here, loser)


def _lose_one(game: Game, location: str, player: str) -> Steps:
    options = [("victim", c) for c in _selectable_at(game, location, player)]
    answer = yield from game.ask(player, "victim", options, location=location)
    yield from game.kill([answer[1]])


def _leader_attack(game: Game, location: str) -> Steps:
    state = game.state
    if not _selectable_at(game, location):
        game.note("nobody_eaten", location=location)
        return
    wheel = state["wheel"]
    start, size = wheel.index(state["leader"]), len(wheel)
    # Once round the wheel at most: a state whose wheel lacks the players at the location
    # (one read from a record) must stop with an error, not spin for ever.
    turns = [i % size for i in range(start, start + size) if _selectable_at(game, location, wheel[i % size])]
    if not turns:
        raise EngineError("GAME-STATE", "no colour on the leader's wheel has a character to lose here")
    index = turns[0]
    state["leader"] = wheel[index % len(wheel)]
    game.note("leader_strikes", colour=state["leader"], location=location)
    yield from _lose_one(game, location, state["leader"])
    state["leader"] = wheel[(index + 1) % len(wheel)]
    game.note("leader_moved", steps=1, colour=state["leader"])


@_procedure("sharing_vote")
def sharing_vote(rt: Rt, tie: str, winner: str) -> Steps:
    game = rt.game
    here = rt.env["here"]
    place = game.state["locations"][here]
    if not (place["antidotes"] or place["cards"]):
        return
    chosen = yield from vote(game, here, "sharing", tie)
    if chosen is None:
        game.note("items_stay", location=here)
        return
    game.note("sharing_won", player=chosen, location=here)
    if place["cards"]:
        game.note("cards_seen", to=[chosen], player=chosen, cards=list(place["cards"]))
    received: set[str] = set()
    if winner == "take_one_then_distribute":
        yield from _hand_out(game, here, chosen, [chosen], received)
    while _items(place) and (left := [p for p in game.turn_order() if p not in received]):
        yield from _hand_out(game, here, chosen, left, received)
    if _items(place):
        game.note("items_stay", location=here)


def _items(place: dict[str, Any]) -> list[Action]:
    found: list[Action] = [("antidote",)] if place["antidotes"] else []
    return found + [("card", kind) for kind in sorted(set(place["cards"]))]


def _hand_out(game: Game, location: str, giver: str, to: list[str], received: set[str]) -> Steps:
    place = game.state["locations"][location]
    options = [("share", p, *item) for item in _items(place) for p in to]
    answer = yield from game.ask(giver, "share", options, location=location)
    _, player, what, *rest = answer
    if what == "antidote":
        place["antidotes"] -= 1
        game.state["antidotes"][player] += 1
    else:
        place["cards"].remove(rest[0])
        game.state["hands"][player].append(rest[0])
        game.note("cards_seen", to=[player], player=player, cards=[rest[0]])
    received.add(player)
    game.note("item_shared", player=giver, recipient=player, item=what, location=location)


# --- the end of the game ---------------------------------------------------------------------------

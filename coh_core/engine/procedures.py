"""The turn structure's procedures: setup, movement, invasion, resolution, votes, scoring.

They are the general mechanics of the game; the pack's `turn` section decides which run,
in what order and with which parameters (tie rules, sharing rules, placement order).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from coh_core.engine.compiler import Impl
from coh_core.engine.flow import window_frame
from coh_core.engine.game import Game
from coh_core.engine.library import IMPLS
from coh_core.engine.machine import Frame
from coh_core.engine.runtime import Action, EngineError, Rt, Steps

F = TypeVar("F", bound=Callable[..., Any])


def _procedure(name: str) -> Callable[[F], F]:
    def register(fn: F) -> F:
        IMPLS[name] = Impl(fn, gen=True)
        return fn

    return register


# --- setup -------------------------------------------------------------------------------


def draft_action_cards(rt: Rt, size: int) -> Steps:
    """Each player takes a packet of cards from the deck, keeps one, passes the rest on, until
    every card is kept (engine code until the pack can ask several players at once)."""
    game = rt.game
    deck = game.state["deck"]
    seats = game.seat_order(game.state["first"])
    packets = {p: [deck.pop() for _ in range(size)] for p in seats}
    game.state["packets"] = packets  # in the state while the draft lasts: every card has a place
    for _ in range(size):
        options = {p: [("draft", k) for k in sorted(set(packets[p]))] for p in seats}
        answers = yield from game.ask_all("draft", options)
        for player in seats:
            packets[player].remove(answers[player][1])
            game.state["hands"][player].append(answers[player][1])
        packets = {seats[(i + 1) % len(seats)]: packets[p] for i, p in enumerate(seats)}
        game.state["packets"] = packets
    game.state["packets"] = {}


IMPLS["draft_action_cards"] = Impl(draft_action_cards, gen=True)


# --- location resolution ----------------------------------------------------------------------------


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


@_procedure("score_game")
def score_game(rt: Rt) -> Steps:
    game = rt.game
    for player in game.turn_order():
        yield from game.window_loop(player, ("scoring",), {})
    scores = {p: score_of(game, p) for p in game.state["players"]}
    living = {p: len(game.living(p)) for p in game.state["players"]}
    best = max((scores[p], living[p]) for p in game.state["players"])
    winners = [p for p in game.state["players"] if (scores[p], living[p]) == best]
    game.state["result"] = {"scores": scores, "living": living, "winners": winners}
    game.note("game_scored", scores=scores, living=living, winners=winners)


def score_of(game: Game, player: str) -> int:
    """Characters' shown values, antidotes, food and points scored; 0 with nobody left alive."""
    state = game.state
    living = game.living(player)
    if not living:
        return 0
    chars = state["characters"]
    values = sum(
        int(game.rules.characters[c]["exhausted" if chars[c]["exhausted"] else "rested"]) for c in living
    )
    return int(
        values + state["antidotes"][player] + sum(state["food"][player]) + state["bonus_points"][player]
    )

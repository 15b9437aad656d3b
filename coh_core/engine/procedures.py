"""The turn structure's procedures: setup, movement, invasion, resolution, votes, scoring.

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


def _table(game: Game) -> dict[str, Any]:
    count = len(game.state["players"])
    rows = game.rules.setup["per_player_count"]
    return next(row for row in rows if row["players"] == count)


# --- setup -------------------------------------------------------------------------------


@_procedure("build_city")
def build_city(rt: Rt) -> Steps:
    rt.game.note("city_built", locations=list(rt.game.state["order"]))
    return
    yield


@_procedure("choose_first_player")
def choose_first_player(rt: Rt) -> Steps:
    game = rt.game
    first = game.rng.choice(game.state["players"])
    game.state["first"] = first
    game.state["leader"] = first if first in game.state["wheel"] else game.state["wheel"][0]
    game.note("first_player", player=first)
    return
    yield


@_procedure("deal_characters")
def deal_characters(rt: Rt) -> Steps:
    game = rt.game
    pool = sorted(game.rules.characters)
    game.rng.shuffle(pool)
    per_player = int(_table(game)["characters"])
    for index, player in enumerate(game.seat_order(game.state["first"])):
        for character in pool[index * per_player : (index + 1) * per_player]:
            game.state["characters"][character] = _new_character(player)
        dealt = [c for c, ch in game.state["characters"].items() if ch["owner"] == player]
        game.note("characters_dealt", player=player, characters=dealt)
    return
    yield


def _new_character(owner: str) -> dict[str, Any]:
    return {"owner": owner, "at": None, "exhausted": False, "alive": True, "traits": {}}


@_procedure("place_characters")
def place_characters(rt: Rt, order: str) -> Steps:
    game = rt.game
    seats = game.seat_order(game.state["first"])
    # the player to the right of the first player begins, then the order's direction
    sequence = list(reversed(seats)) if order == "counter_clockwise" else seats[-1:] + seats[:-1]
    for player in sequence:
        mine = game.living(player)
        cards = list(game.rules.components["movement_cards"])
        game.rng.shuffle(cards)
        drawn = cards[: len(mine)]
        for character in mine:
            options = [("place", character, loc) for loc in drawn]
            answer = yield from game.ask(player, "place", options, character=character)
            drawn.remove(answer[2])
            _arrive(game, character, answer[2])


def _arrive(game: Game, character: str, location: str) -> None:
    if not game.has_room(character, location):
        location = game.rules.setup["overflow_location"]
    game.place(character, location)
    game.note("character_placed", character=character, location=location)


@_procedure("deal_action_cards")
def deal_action_cards(rt: Rt, draft: bool) -> Steps:
    game = rt.game
    deck = [kind for kind, count in sorted(game.rules.card_counts.items()) for _ in range(count)]
    game.rng.shuffle(deck)
    game.state["deck"] = deck
    size = int(_table(game)["action_cards"])
    seats = game.seat_order(game.state["first"])
    packets = {p: [deck.pop() for _ in range(size)] for p in seats}
    if not draft:
        for player in seats:
            game.state["hands"][player].extend(packets[player])
        return
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


def _by_hour(game: Game, hour: int) -> list[str]:
    return sorted(i for i, data in game.rules.invasions.items() if data["hour"] == hour)


@_procedure("reveal_setup_invasion")
def reveal_setup_invasion(rt: Rt) -> Steps:
    game = rt.game
    card = game.rng.choice(_by_hour(game, int(game.rules.setup["setup_hour"])))
    game.note("invasion_revealed", invasion=card)
    _arrivals(rt, game.rules.invasions[card])
    return
    yield


@_procedure("build_invasion_deck")
def build_invasion_deck(rt: Rt) -> Steps:
    game = rt.game
    deck: list[str] = []
    for hour in game.rules.setup["hours"]:
        # an hour played twice draws two different cards: without replacement
        deck.append(game.rng.choice([c for c in _by_hour(game, int(hour)) if c not in deck]))
    game.state["invasion_deck"] = deck
    return
    yield


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


@_procedure("pay_antidotes")
def pay_antidotes(rt: Rt) -> Steps:
    game = rt.game
    for player in game.turn_order():
        living = game.living(player)
        paid = min(len(living), game.state["antidotes"][player])
        game.state["antidotes"][player] -= paid
        game.state["reserve"]["antidotes"] += paid
        if paid:
            game.note("antidotes_paid", player=player, count=paid)
        doomed: list[str] = []
        for _ in range(len(living) - paid):
            options = [("dies", c) for c in living if c not in doomed]
            answer = yield from game.ask(player, "unvaccinated", options)
            doomed.append(answer[1])
        yield from game.kill(doomed)


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


@_procedure("first_player_to_last_loser")
def first_player_to_last_loser(rt: Rt, otherwise: str) -> Steps:
    game = rt.game
    last = game.state["last_loser"]
    if last is None or last[0] != game.state["turn"]:
        yield from pass_first_player(rt, otherwise)
        return
    game.state["first"] = game.next_with_characters(last[1]) or game.state["first"]
    game.note("first_player", player=game.state["first"])


@_procedure("pass_first_player")
def pass_first_player(rt: Rt, direction: str) -> Steps:
    game = rt.game
    seats = game.seat_order(game.state["first"])
    step = 1 if direction == "clockwise" else -1
    game.state["first"] = game.next_with_characters(seats[step % len(seats)]) or game.state["first"]
    game.note("first_player", player=game.state["first"])
    return
    yield

"""The turn structure's procedures: setup, movement, invasion, resolution, votes, scoring.

They are the general mechanics of the game; the pack's `turn` section decides which run,
in what order and with which parameters (tie rules, sharing rules, placement order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from coh_core.engine.compiler import Impl
from coh_core.engine.flow import window_frame
from coh_core.engine.game import Game
from coh_core.engine.library import IMPLS
from coh_core.engine.machine import Frame
from coh_core.engine.runtime import Rt, Steps

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

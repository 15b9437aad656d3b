"""A round window passes over a player without asking `window_options` (flow's `_WindowAsk`) when
they hold no card the window takes, no rested character whose power it takes, and, with a gift
left, no card and no item to give: at every decision of played games, such a player would be
offered nothing but a pass, with a gift left or without."""

from __future__ import annotations

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game
from coh_core.engine.game import PASS, Game
from coh_core.engine.machine import Frame
from coh_core.packs.model import Pack


def _passed_over(game: Game, player: str, windows: tuple[str, ...], giving: bool) -> bool:
    """The round window's test, as `_WindowAsk` makes it (`giving`: the player has a gift left)."""
    kinds, characters = game.rules.usable_in(windows)
    pile = game.rules.hand_pile
    hand = game.state["piles"][pile][player] if pile is not None else []
    if kinds & set(hand) or characters & set(game._rested_by_player().get(player, ())):
        return False
    if not giving:
        return True
    held = game.state["counts"][player]
    return not hand and not any(held[kind] for _, kind in game._items)


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_a_player_passed_over_is_offered_only_a_pass(base_pack: Pack, players: int, seed: int) -> None:
    game = new_game(base_pack, players=players, seed=seed)
    agents = {c: RandomAgent(seed=seed * 100 + i) for i, c in enumerate(game.players)}
    checked = offered = 0
    while not game.over:
        assert game.decision is not None
        top = game.frames[-1]
        if isinstance(top, Frame) and top.env.get("mode") == "round":
            windows = tuple(top.env["windows"])
            seated = game._seated()
            for player in seated:
                for giving in (True, False):
                    options = game.window_options(
                        player, windows, top.env["names"], seated if giving else None
                    )
                    if _passed_over(game, player, windows, giving):
                        assert options == [PASS], (player, giving, options)
                        checked += 1
                    offered += len(options) > 1
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    assert checked > 10 and offered > 10  # both kinds of player were met


WINDOW_ANSWERS = frozenset({"pass", "play", "power", "give"})


def _first_or_pass(legal: list[tuple[object, ...]]) -> tuple[object, ...]:
    """A window's pass; elsewhere the last answer (a fixed choice, the same in both games)."""
    if legal[0] == PASS and all(action[0] in WINDOW_ANSWERS for action in legal):
        return PASS
    return legal[-1]


@pytest.mark.parametrize(("players", "seed"), [(3, 5), (4, 6), (6, 7)])
def test_a_seat_its_window_passer_passes_goes_on_as_after_its_pass(
    base_pack: Pack, players: int, seed: int
) -> None:
    """A search's `window_passer`: the window does not ask the seats it says pass, and the game goes
    on exactly as if each had been asked and had passed (same state, same log), only without those
    decisions; forks leave it unset (a look-ahead in the world sees every decision)."""
    asked = new_game(base_pack, players=players, seed=seed)
    unasked = asked.fork()
    unasked.window_passer = lambda seat, cards, characters, question, values: True
    assert unasked.fork().window_passer is None
    skipped = compared = 0
    while not asked.over:
        decision = asked.decision
        assert decision is not None
        waiting = decision.waiting
        legal = decision.legal(waiting[0])
        if _first_or_pass(legal) == PASS and legal[0] == PASS and len(waiting) == 1:
            asked.submit(waiting[0], PASS)
            skipped += 1
            continue
        # a decision that is no window's: the other game, which asked no window, is here too
        assert unasked.decision is not None
        assert unasked.decision.kind == decision.kind and unasked.waiting == waiting
        assert unasked.state == asked.state and unasked.log == asked.log
        compared += 1
        for colour in waiting:
            answer = _first_or_pass(decision.legal(colour))
            asked.submit(colour, answer)
            unasked.submit(colour, answer)
    assert unasked.over and unasked.state == asked.state and unasked.log == asked.log
    assert skipped > 10 and compared > 10
    assert len(unasked.history) == len(asked.history) - skipped


def test_a_window_passer_that_passes_nobody_asks_every_decision(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=8)
    told = game.fork()
    seen: list[str] = []
    told.window_passer = lambda seat, cards, characters, question, values: seen.append(seat) is not None
    agents = {c: RandomAgent(seed=80 + i) for i, c in enumerate(game.players)}
    twin = {c: RandomAgent(seed=80 + i) for i, c in enumerate(game.players)}
    while not game.over:
        assert told.decision is not None and game.decision is not None
        assert told.decision.options == game.decision.options
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
            told.submit(colour, ask(told, twin[colour], colour))
    assert told.over and told.state == game.state and seen  # it was asked about, and said no

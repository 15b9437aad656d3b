"""The windows' quick checks say what the full lists they stand for would say.

`Game.could_try` answers "would `candidates` find anything?" and `Game.can_give` "would
`gifts` offer anything?" without listing them (an action window that nobody could act in is
not opened, a play nobody could cancel asks nobody). Compared at every question of seeded
random games, for every player and for windows with cards only, powers only, both and none.
"""

from __future__ import annotations

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game, rules_for
from coh_core.packs.model import Pack


def test_could_try_and_can_give_agree_with_the_lists(base_pack: Pack) -> None:
    rules = rules_for(base_pack)
    card_windows = {card.window for card in rules.cards.values()}
    power_windows = {power.window for power in rules.powers.values()}
    windows = [(window,) for window in sorted(card_windows | power_windows | {"no_such_window"})] + [
        tuple(sorted(card_windows | power_windows))
    ]
    seen = {"try": 0, "no_try": 0, "give": 0, "no_give": 0}
    for seed in range(6):
        game = new_game(base_pack, players=4, seed=seed)
        agents = {c: RandomAgent(seed=seed * 1000 + i) for i, c in enumerate(game.players)}
        while not game.over:
            for player in game.players:
                for opened in windows:
                    found = game.candidates(player, opened) != ([], [])
                    assert game.could_try(player, opened) is found, (seed, player, opened)
                    seen["try" if found else "no_try"] += 1
                gives = bool(game.gifts(player))
                assert game.can_give(player) is gives, (seed, player)
                seen["give" if gives else "no_give"] += 1
            decision = game.decision
            assert decision is not None
            for colour in decision.waiting:
                game.submit(colour, ask(game, agents[colour], colour))
    assert min(seen.values()) > 50, seen  # both answers came up often: the comparison is not idle

"""`end_game()`: the pack decides when the game ends.

Once an effect calls it, the step being played finishes, no further step, phase or turn is
played, and the end steps run (the base pack's: antidotes, then the scores). The request is part
of the state (`ending`), so a game saved or forked between the call and the end ends the same.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from coh_core.engine import Game, new_game, rules_for
from coh_core.engine.state_check import state_problems
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack

CHOOSE = "          do: choose_movement_cards()\n"


def _ending(base_copy: Path, effect: str) -> Pack:
    """The base pack whose first step of each turn runs `effect` (in which `choose_movement_cards()`
    stands for the step's own work)."""
    turn = base_copy / "turn.yaml"
    text = turn.read_text(encoding="utf-8")
    assert CHOOSE in text
    lines = "".join(f"            {line}\n" for line in effect.splitlines())
    turn.write_text(text.replace(CHOOSE, "          do: |\n" + lines, 1), encoding="utf-8")
    return load_pack_checked(base_copy)


def _play(game: Game, seed: int) -> Game:
    rng = random.Random(seed)
    while not game.over:
        decision = game.decision
        assert decision is not None
        for colour in list(decision.waiting):
            game.submit(colour, rng.choice(decision.legal(colour)))
    return game


def test_the_game_ends_after_the_step_that_asks_for_it(base_copy: Path) -> None:
    pack = _ending(base_copy, "choose_movement_cards()\nend_game()")
    game = _play(new_game(pack, players=3, seed=4), 4)
    assert game.state["turn"] == 1 and game.state["phase"] == "end"
    assert game.state["ending"] is True
    assert game.state["result"]["winners"]  # the end steps ran: the scores are set
    keys = [entry["key"] for entry in game.log]
    assert keys[-1] == "game_over"
    # the first turn began, and nothing of it after its first step happened: no invasion card
    # was revealed, no zombie arrived (the cards and powers of the end steps' windows may act)
    after = keys[keys.index("turn_start") :]
    assert after.count("turn_start") == 1
    assert "invasion_revealed" not in after and "zombies_arrived" not in after


def test_a_game_saved_between_the_request_and_the_end_ends_the_same(base_copy: Path) -> None:
    """`end_game()` before the step's question: the game asks it, then ends."""
    pack = _ending(base_copy, "end_game()\nchoose_movement_cards()")
    original = new_game(pack, players=4, seed=9)
    while "ending" not in original.state:
        _answer_one(original, 9)
    assert not original.over and not state_problems(rules_for(pack), original.state)
    saved = Game.from_json(rules_for(pack), original.to_json())
    forked = original.fork()
    finished = [_play(game, 5).digest() for game in (original, saved, forked)]
    assert finished[0] == finished[1] == finished[2]
    assert original.state["turn"] == 1


def _answer_one(game: Game, seed: int) -> None:
    decision = game.decision
    assert decision is not None
    colour = decision.waiting[0]
    game.submit(colour, random.Random(seed).choice(decision.legal(colour)))


@pytest.mark.parametrize("value", [False, 1, "yes"])
def test_a_state_whose_ending_is_not_true_is_refused(base_pack: Pack, value: object) -> None:
    game = new_game(base_pack, players=3, seed=1)
    state = game.to_json()["state"]
    state["ending"] = value
    [problem] = state_problems(rules_for(base_pack), state)
    assert problem.path == ("ending",)


def test_a_pack_that_never_ends_early_keeps_its_flow(base_pack: Pack, base_copy: Path) -> None:
    """Its saved games' frames point where they did: the flow gains nothing."""
    ending = _ending(base_copy, "choose_movement_cards()\nend_game()")
    plain, early = rules_for(base_pack).flow, rules_for(ending).flow
    assert plain is not None and early is not None
    steps = sum(1 for _ in plain.step_at)
    assert len(early.program.ops) == len(plain.program.ops) + steps - len(base_pack_end_steps(base_pack))


def base_pack_end_steps(pack: Pack) -> list[str]:
    return [step.id for step in rules_for(pack).end_steps]

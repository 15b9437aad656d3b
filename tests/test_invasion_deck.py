"""The invasion deck: one card per hour played, drawn without replacement when an hour repeats."""

from __future__ import annotations

from pathlib import Path

import pytest
from long_runs import spread

from coh_core.agents import RandomAgent
from coh_core.agents.runner import play_out
from coh_core.engine import new_game
from coh_core.packs import load_pack_checked


def _revealed(pack_dir: Path, seed: int) -> list[str]:
    """The invasion cards revealed during the turns of one game of random players."""
    game = new_game(load_pack_checked(pack_dir), players=4, seed=seed)
    play_out(game, {colour: RandomAgent(seed) for colour in game.players})
    return [e["params"]["invasion"] for e in game.log if e["key"] == "invasion_revealed" and e["turn"] >= 1]


@pytest.mark.parametrize("first", spread(range(1, 5), every=4))
def test_an_hour_played_every_turn_reveals_a_different_card_each_time(base_copy: Path, first: int) -> None:
    setup = base_copy / "setup.yaml"
    setup.write_text(setup.read_text(encoding="utf-8").replace("hours: [1, 2, 3, 4]", "hours: [1, 1, 1, 1]"))
    for seed in range(first, 21, 4):  # seeds 1 to 20, a quarter each
        revealed = _revealed(base_copy, seed)
        assert len(revealed) == 4 and len(set(revealed)) == 4, (seed, revealed)

#!/usr/bin/env python3
"""How many of a human's answers at the terminal are "pass", over seeded games.

One seat is a human at the terminal (`TerminalAgent`, its output thrown away) whose answers a
heuristic bot picks, as a player who knows what they want would; the other seats are heuristic
bots. Each game is played twice from the same seed:

- `plain`: where the bot passes, the human types the pass of the menu;
- `passing on`: where the bot passes, the human types `>>>` (pass until the phase ends) when the
  menu offers it, and is asked nothing that offers to pass again until the phase ends.

Printed per way: the questions the human was asked, how many they answered with a pass (`>`,
`>>` and `>>>` count as passes), and the share. The issue's mark: at most one pass for every three answers.

    python tools/bench_passes.py --games 5 --players 4
"""

from __future__ import annotations

import argparse
import contextlib
import io
from typing import Any

from coh_core import load_ruleset
from coh_core.agents import make_bot
from coh_core.agents.menu import Entry
from coh_core.agents.runner import ask
from coh_core.agents.terminal import PASS, PASS_PHASE, TerminalAgent
from coh_core.engine import new_game
from coh_core.narrative import Narrator


class _Scripted(TerminalAgent):
    """A terminal whose answers a bot picks (counting what the human was asked)."""

    def __init__(self, narrator: Narrator, bot: Any, passing_on: bool):
        super().__init__(narrator)
        self.bot, self.passing_on = bot, passing_on
        self.asked = self.passes = 0
        self._view: Any = None
        self._legal: list[Any] = []

    def act(self, view: Any, legal: list[Any]) -> Any:
        self._view, self._legal = view, legal
        return super().act(view, legal)

    def choose(self, question: str, top: list[Entry], state: Any) -> Any:
        self.asked += 1
        wanted = tuple(self.bot.act(self._view, self._legal))
        if wanted != PASS:
            return wanted
        self.passes += 1
        standing = next((e for e in top if e.key == PASS_PHASE), None)
        return standing.action if self.passing_on and standing is not None else PASS


def _play(seed: int, players: int, passing_on: bool) -> tuple[int, int]:
    pack = load_ruleset()
    game = new_game(pack, players=players, seed=seed)
    human = game.players[0]
    bots = {c: make_bot("heuristic", seed * 100 + i, pack) for i, c in enumerate(game.players)}
    terminal = _Scripted(Narrator(pack), bots[human], passing_on)
    agents: dict[str, Any] = {**bots, human: terminal}
    with contextlib.redirect_stdout(io.StringIO()):
        while not game.over:
            for colour in game.waiting:
                game.submit(colour, ask(game, agents[colour], colour))
    return terminal.asked, terminal.passes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    for name, passing_on in (("plain", False), ("passing on", True)):
        asked = passes = 0
        for seed in range(1, args.games + 1):
            a, p = _play(seed, args.players, passing_on)
            asked, passes = asked + a, passes + p
        print(f"{name:11} {asked:5} questions, {passes:5} passes: {passes / asked:.0%} of the answers")


if __name__ == "__main__":
    main()

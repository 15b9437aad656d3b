"""A bot that searches: at a decision with several answers it plays each answer out in many
samples of what it cannot see, and keeps the answer that did best.

This is determinized Monte-Carlo search over engine forks, the root level of information-set
MCTS (Cowling, Powley and Whitehouse, 2012; OpenSpiel's `ismcts.py`): each iteration samples a
world consistent with the bot's own view (the entries of the piles it may not see dealt again
at random, the others' secret memory and pending answers forgotten, a new random generator),
then answers with each legal action in that world and plays on with heuristic bots for every
seat until the end of the turn (or of the game), where the position is scored. Every answer is
tried in the same worlds with the same rollout seeds (common random numbers), so the answers are
compared on equal luck. Window answers (plays, powers, gifts, passes) and single-answer
decisions are left to the heuristic bot, which costs nothing.
"""

from __future__ import annotations

from typing import Any

from coh_core.agents.heuristic import HeuristicAgent, _counters_of_role
from coh_core.engine.game import Game
from coh_core.engine.rng import Rng
from coh_core.packs.model import Pack

Action = tuple[Any, ...]
PASS: Action = ("pass",)
DEFAULT_ITERATIONS = 8  # sampled worlds per searched decision; each plays out every legal answer
MAX_SEARCHED = 8  # decisions with more answers are left to the heuristic (too costly to compare)
WINDOW_ANSWERS = frozenset({"pass", "play", "power", "give"})  # the engine's window actions
HORIZON_TURNS = 1  # rollouts stop once the turn has advanced this many times (or the game ends)
WIN_BONUS = 10.0  # a won game is worth this many points more than its score margin


class ExpertAgent:
    """Searches decisions with several non-window answers; the heuristic answers the rest."""

    def __init__(self, seed: int = 0, pack: Pack | None = None, iterations: int = DEFAULT_ITERATIONS):
        self.rng = Rng(seed)
        self.iterations = max(1, iterations)
        self.fallback = HeuristicAgent(seed, pack)
        self.rollout_agent = HeuristicAgent(0, pack)
        self.prizes = _counters_of_role(pack, "prize")
        self.values = self.fallback.values

    def act(self, view: Any, legal: list[Action]) -> Action:
        if not self._searched(legal):
            self.fallback.rng = self.rng  # one generator: a save keeps the expert's whole state
            return self.fallback.act(view, legal)
        game: Game = view._game  # read only through `_world`, which deals again what is hidden
        return self._search(game, view.colour, legal)

    def _searched(self, legal: list[Action]) -> bool:
        if not 2 <= len(legal) <= MAX_SEARCHED:
            return False
        return not any(action[0] in WINDOW_ANSWERS for action in legal)

    def _search(self, game: Game, me: str, legal: list[Action]) -> Action:
        """The answer with the best total over the sampled worlds (the first on a tie)."""
        totals = [0.0] * len(legal)
        for _ in range(self.iterations):
            world = _world(game, me, self.rng)
            rollout_seed = self.rng.next64()
            for index, action in enumerate(legal):
                totals[index] += self._rollout(world.fork(), me, action, rollout_seed)
        best = max(range(len(legal)), key=lambda i: totals[i])
        return legal[best]

    def _rollout(self, game: Game, me: str, action: Action, seed: int) -> float:
        """Answer `action`, play on with heuristic bots to the horizon, and score the position."""
        agent = self.rollout_agent
        agent.rng = Rng(seed)
        agent._view = None  # no log in rollouts: gifts are not remembered there
        start_turn = game.state["turn"]
        game.submit(me, action)
        while not game.over and game.state["turn"] - start_turn < HORIZON_TURNS:
            decision = game.decision
            assert decision is not None
            for colour in decision.waiting:
                legal = decision.legal(colour)
                quick = self._quick_pass(legal)
                if quick is None:
                    quick = agent.decide(_light_view(game, colour), legal)
                game.submit(colour, quick)
        return self._score(game, me)

    def _quick_pass(self, legal: list[Action]) -> Action | None:
        """In a rollout, a pass where the heuristic would only consider a relief: a window whose
        plays and powers relieve nothing (it skips the heuristic's gifts, for speed)."""
        if legal[0] != PASS or any(a[0] not in WINDOW_ANSWERS for a in legal):
            return None
        useful = any(a[0] in ("play", "power") and self.fallback._relieves(a[1]) for a in legal)
        return None if useful else PASS

    def _score(self, game: Game, me: str) -> float:
        """The game's margin for `me` over the best other player: the final scores (and a win
        bonus) once it is over, or else what each could still score (living pieces' values and
        prizes held)."""
        result = game.state["result"]
        if game.over and result:
            scores = {p: float(v) for p, v in result.get("scores", {}).items()}
            bonus = WIN_BONUS / len(result["winners"]) if me in result.get("winners", []) else 0.0
            return _margin(scores, me) + bonus
        worth = {p: 0.0 for p in game.players}
        for ident, piece in game.pieces.items():
            if piece["alive"] and piece["owner"] in worth:
                worth[piece["owner"]] += self.values.get(ident, 1)
        for player in worth:
            worth[player] += sum(game.state["counts"][player][kind] for kind in self.prizes)
        return _margin(worth, me)


def _margin(scores: dict[str, float], me: str) -> float:
    others = [v for p, v in scores.items() if p != me]
    return scores.get(me, 0.0) - (max(others) if others else 0.0)


def _light_view(game: Game, colour: str) -> dict[str, Any]:
    """What the heuristic reads of a view, sharing the game's own data instead of copying it
    (rollouts run in a sampled world, where nothing is the real game's secret)."""
    state = game.state
    decision = game.decision
    return {
        "me": colour,
        "players": state["players"],
        "turn": state["turn"],
        "eliminated": game.out_of_game(),
        "locations": state["locations"],
        "pieces": state["pieces"],
        "piece_roles": game.rules.piece_roles,
        "counts": state["counts"],
        "decision": None if decision is None else decision.to_json(colour),
    }


def _world(game: Game, me: str, rng: Rng) -> Game:
    """A fork of the game in which everything `me` cannot see is drawn again from `rng`.

    The entries of the piles hidden from `me` (by the pack's `sees`) are pooled by type, put in
    a fixed order (so the pool does not tell where each was) and dealt back at random into piles
    of the same sizes; the others' entries of memory seen by its owner only are forgotten, as are
    the answers others have already given to the decision; the game's generator is replaced.
    What the engine's frames hold is kept as it is.
    """
    world = game.fork()
    rules = world.rules
    pools: dict[str, list[Any]] = {}
    slots: list[tuple[str, str, int]] = []  # (pile, owner, size) to deal back, in a fixed order
    for name in sorted(world.state["piles"]):
        pile = rules.piles[name]
        if pile.sees == "everyone":
            continue
        for owner in sorted(world.state["piles"][name]):
            if pile.sees == "owner" and owner == me:
                continue
            held = world.state["piles"][name][owner]
            pools.setdefault(pile.of, []).extend(held)
            slots.append((name, owner, len(held)))
    for pool in pools.values():
        pool.sort(key=repr)
        rng.shuffle(pool)
    for name, owner, size in slots:
        pool = pools[rules.piles[name].of]
        dealt, pools[rules.piles[name].of] = pool[:size], pool[size:]
        world.state["piles"][name][owner][:] = dealt
    for name, spec in rules.memory.items():
        value = world.state["memory"][name]
        if spec.visible == "owner" and spec.per_player and isinstance(value, dict):
            for player in [p for p in value if p != me]:
                del value[player]
    decision = world.decision
    if decision is not None:
        decision.answers = {c: a for c, a in decision.answers.items() if c == me}
    world.rng = Rng(rng.next64())
    return world

"""A bot that searches: at a decision with several answers it builds a tree of its own
decisions over many samples of what it cannot see, and answers with the most visited move.

This is single-observer information-set Monte-Carlo tree search (SO-ISMCTS; Cowling, Powley and
Whitehouse, 2012) over engine forks. Each iteration samples a world consistent with the bot's
own view (the entries of the piles it may not see dealt again at random, the others' secret
memory and pending answers forgotten, a new random generator) and plays it on a fork of the
game. At each of the bot's own searched decisions on the way, it descends the tree: a node is
one of its information sets (the answers it chose so far, then the decision's kind and legal
answers, which it sees), and it picks among the answers legal in this world with UCB1, counting
for each answer the iterations in which it was available (so an answer legal in few worlds is
not judged by the visits of the others). The first answer never tried is expanded instead, and
from there heuristic bots play every seat to the end of the turn (or of the game), where the
position is scored by the pack's evaluation (`bots: evaluation`, coh_core.agents.evaluation)
weighed as its declared result: a ranking's margin over the best other player, a team's value
for every seat alike, or what the finished game's result is worth; that score is added to every
answer on the path. The others' decisions are played by the heuristic bot, as a model of the
opponents, inside the tree as in the rollouts: a tree of their information sets would need a
world sampled from each one's view, and their decisions could not be told apart by the bot. The
answer chosen is the root's most visited (then best scoring, then first).

The budget is a number of iterations per searched decision (deterministic given the seed) or a
number of seconds (not deterministic: how far it gets depends on the machine), or both (the
first reached stops it). Window answers (plays, powers, gifts, passes), decisions with one answer
or more than `MAX_SEARCHED`, are left to the heuristic bot, which costs nothing. `search="flat"`
keeps the former search, every answer played out in each sampled world (for comparisons).

Where the pack names its own tactic verb for a question (`bots: tactics`, its strategy written
in its language), the expert improves on that strategy instead of searching from nothing (a
rollout policy improvement): every answer is played out in the same sampled worlds, and the
tactic's answer is kept unless another's lead over it, world by world, is more than twice its
standard error. (A search from nothing, scored at the end of the turn by an evaluation, can
play worse than a good strategy it was not told of; docs/bots.md gives the figures for the second
game.)
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field
from typing import Any

from coh_core.agents.evaluation import margin as _margin
from coh_core.agents.evaluation import result_worth
from coh_core.agents.heuristic import HeuristicAgent, World
from coh_core.agents.worlds import light_view as _light_view
from coh_core.engine.game import Game, WindowPasser
from coh_core.engine.rng import Rng
from coh_core.limits import MAX_EXPERT_ITERATIONS, MAX_EXPERT_SECONDS
from coh_core.packs.bot_hints import DEFAULT_WIN
from coh_core.packs.model import Pack

__all__ = ["WIN_BONUS", "ExpertAgent", "Node", "_margin", "budget_fault", "result_worth"]

Action = tuple[Any, ...]
PASS: Action = ("pass",)
DEFAULT_ITERATIONS = 32  # tree iterations per searched decision (each one playout)
MAX_ITERATIONS = 1_000_000  # the bound of a budget in seconds only
MAX_SEARCHED = 8  # decisions with more answers are left to the heuristic (too costly to compare)
WINDOW_ANSWERS = frozenset({"pass", "play", "power", "give"})  # the engine's window actions
ROLLOUT_FORKS = 8  # the forks of a rollout's look-ahead (a pack's question without a tactic)
HORIZON_TURNS = 1  # rollouts stop once the turn has advanced this many times (or the game ends)
WIN_BONUS = float(DEFAULT_WIN)  # a won game's worth where the pack says nothing (`bots: win`)
EXPLORATION = 0.7  # UCB1's constant, for scores scaled to the spread seen at the root
# A node below the root is grown only once the answer leading to it has been visited this often
# (before, the heuristic answers there as in a rollout), and its first answer tried is the
# heuristic's: with a few dozen iterations, answers tried at random below the root would mostly
# score the root's answers by play worse than the rollouts'.
EXPAND_AFTER = 4
SEARCHES = ("tree", "flat")


def budget_fault(iterations: Any, seconds: Any) -> tuple[str, str] | None:
    """What is wrong with an expert's budget (None: nothing), as (`iterations` or `seconds`, what
    to give instead): the command line's options and a save's budget obey the same bounds."""
    number = (int, float)
    if iterations is not None and not (
        type(iterations) is int and 1 <= iterations <= MAX_EXPERT_ITERATIONS  # (not a bool)
    ):
        return "iterations", f"a whole number from 1 to {MAX_EXPERT_ITERATIONS:,}"
    if seconds is not None and not (
        type(seconds) in number and 0 < seconds <= MAX_EXPERT_SECONDS  # (not a bool, nor NaN)
    ):
        return "seconds", f"a number of seconds above 0 and at most {MAX_EXPERT_SECONDS:g}"
    return None


def clearly_better(scores: list[float], base: list[float]) -> bool:
    """Whether `scores` beat `base`, paired world by world, by more than twice the standard
    error of their mean difference."""
    diffs = [a - b for a, b in zip(scores, base, strict=True)]
    if len(diffs) < 2:
        return False
    mean = sum(diffs) / len(diffs)
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
    return mean > 2 * spread / math.sqrt(len(diffs))


@dataclass
class Edge:
    """An answer at a node: how often it was chosen, its total score, how often it was legal."""

    visits: int = 0
    total: float = 0.0
    available: int = 0
    after: dict[tuple[Any, ...], Node] = field(default_factory=dict)  # the next node, by decision


@dataclass
class Node:
    """One of the searcher's information sets: its answers so far, then this decision."""

    edges: dict[Action, Edge] = field(default_factory=dict)


@dataclass
class Spread:
    """The lowest and highest scores seen in a search: UCB1's exploration is scaled to them."""

    low: float = math.inf
    high: float = -math.inf

    def add(self, score: float) -> None:
        self.low, self.high = min(self.low, score), max(self.high, score)

    def width(self) -> float:
        return max(1.0, self.high - self.low)


class ExpertAgent:
    """Searches decisions with several non-window answers; the heuristic answers the rest."""

    def __init__(
        self,
        seed: int = 0,
        pack: Pack | None = None,
        iterations: int | None = DEFAULT_ITERATIONS,
        seconds: float | None = None,
        search: str = "tree",
        expand_after: int = EXPAND_AFTER,
        guided: bool = True,
    ):
        if search not in SEARCHES:
            raise ValueError(f"unknown search {search!r}: {', '.join(SEARCHES)}")
        self.rng = Rng(seed)
        if iterations is None:
            iterations = MAX_ITERATIONS if seconds is not None else DEFAULT_ITERATIONS
        self.iterations = max(1, iterations)
        self.seconds = seconds
        self.search = search
        self.expand_after = max(1, expand_after)
        self.guided = guided  # below the root, the heuristic's answer is expanded first
        self.fallback = HeuristicAgent(seed, pack)
        self.rollout_agent = HeuristicAgent(0, pack)
        # in rollouts, a look-ahead of one answer, within a few forks: it runs at every decision
        self.rollout_agent.depth, self.rollout_agent.forks = 1, ROLLOUT_FORKS
        self.evaluator = self.fallback.evaluator
        # the cards and characters whose use relieves a threat (`_quick_pass`, `_passer`)
        fallback = self.fallback
        self._relieving = frozenset(owner for owner in fallback.verbs if fallback._relieves(owner))
        self.last_iterations = 0  # how many iterations the last search ran (for tests, reports)
        self.last_tree: Node | None = None  # the last tree search's root

    def act(self, view: Any, legal: list[Action]) -> Action:
        if not self._searched(legal):
            self.fallback.rng = self.rng  # one generator: a save keeps the expert's whole state
            return self.fallback.act(view, legal)
        # the search plays in worlds the view draws (everything hidden from the seat dealt
        # again), never in the game
        worlds: World = functools.partial(view.sample_world, self.rng)
        decision = view.decision
        if decision is not None and self._follows_pack_tactic(decision["kind"], decision["prompt"]):
            return self._improve(worlds, view, legal)
        if self.search == "flat":
            return self._flat(worlds, view.colour, legal)
        return self._tree(worlds, view.colour, legal)

    def _searched(self, legal: list[Action]) -> bool:
        if not 2 <= len(legal) <= MAX_SEARCHED:
            return False
        return not any(action[0] in WINDOW_ANSWERS for action in legal)

    def _more(self, done: int, deadline: float | None) -> bool:
        """Whether the budget allows another iteration (always a first one)."""
        if done == 0:
            return True
        if done >= self.iterations:
            return False
        return deadline is None or time.perf_counter() < deadline

    def _deadline(self) -> float | None:
        return None if self.seconds is None else time.perf_counter() + self.seconds

    # --- the tree -------------------------------------------------------------------------------

    def _tree(self, worlds: World, me: str, legal: list[Action]) -> Action:
        """The root's most visited answer after the budget's iterations (best mean, then first)."""
        root, spread = Node(), Spread()
        deadline = self._deadline()
        done = 0
        while self._more(done, deadline):
            self._iterate(worlds, me, root, spread)
            done += 1
        self.last_iterations, self.last_tree = done, root

        def rank(index: int) -> tuple[int, float, int]:
            edge = root.edges.get(legal[index], Edge())
            return edge.visits, edge.total / edge.visits if edge.visits else -math.inf, -index

        return legal[max(range(len(legal)), key=rank)]

    def _iterate(self, worlds: World, me: str, root: Node, spread: Spread) -> None:
        """One iteration: a sampled world, a descent of the tree, one expansion, a rollout."""
        world = worlds()
        world.window_passer = self._passer(world)
        agent = self.rollout_agent
        agent.rng = Rng(self.rng.next64())
        agent._view = None  # no log in rollouts: gifts are not remembered there
        start_turn = world.state["turn"]
        path: list[Edge] = []
        node: Node | None = root
        while not world.over and world.state["turn"] - start_turn < HORIZON_TURNS:
            decision = world.decision
            assert decision is not None
            # the searcher answers first where it is asked, as at the root
            waiting = sorted(decision.waiting, key=lambda colour: colour != me)
            for colour in waiting:
                legal = decision.legal(colour)
                if path and node is not None and path[-1].visits < self.expand_after:
                    node = None  # not visited enough to grow below: the rest is a rollout
                if colour == me and node is not None and self._searched(legal):
                    prior = None
                    if path:  # below the root: the node of this decision after the last answer
                        node = path[-1].after.setdefault((decision.kind, *legal), Node())
                        if self.guided:
                            prior = agent.decide(_light_view(world, colour), legal, world)
                    action, expanded = self._select(node, legal, spread, prior)
                    path.append(node.edges[action])
                    if expanded:
                        node = None  # one node added per iteration; the rest is a rollout
                else:
                    action = self._quick_pass(legal) or agent.decide(_light_view(world, colour), legal, world)
                world.submit(colour, action)
        score = self._score(world, me)
        spread.add(score)
        for edge in path:
            edge.visits += 1
            edge.total += score

    def _follows_pack_tactic(self, kind: str, prompt: dict[str, Any] | None) -> bool:
        """Whether the pack names its own tactic verb for the question: its strategy, which the
        expert improves on (`_improve`) rather than searching from nothing."""
        hints = self.rollout_agent.hints
        return hints.is_verb(hints.tactic(kind, (prompt or {}).get("purpose")))

    def _select(
        self, node: Node, legal: list[Action], spread: Spread, prior: Action | None = None
    ) -> tuple[Action, bool]:
        """UCB1 among the answers legal in this world, or an untried one (then True): `prior`
        if it is untried, else one at random."""
        edges = [node.edges.setdefault(action, Edge()) for action in legal]
        for edge in edges:
            edge.available += 1
        untried = [i for i, edge in enumerate(edges) if edge.visits == 0]
        if prior is not None and prior in legal and edges[legal.index(prior)].visits == 0:
            return prior, True
        if untried:
            return legal[untried[self.rng.randbelow(len(untried))]], True
        scale = EXPLORATION * spread.width()

        def ucb(index: int) -> float:
            edge = edges[index]
            return edge.total / edge.visits + scale * math.sqrt(math.log(edge.available) / edge.visits)

        return legal[max(range(len(legal)), key=ucb)], False

    # --- the flat search (for comparisons) ------------------------------------------------------

    def _flat(self, worlds: World, me: str, legal: list[Action]) -> Action:
        """The answer with the best total over the sampled worlds (the first on a tie): every
        answer played out in each world, with the same rollout seeds (common random numbers)."""
        totals = [0.0] * len(legal)
        deadline = self._deadline()
        done = 0
        while self._more(done, deadline):
            world = worlds()
            rollout_seed = self.rng.next64()
            for index, action in enumerate(legal):
                totals[index] += self._rollout(world.fork(), me, action, rollout_seed)
            done += 1
        self.last_iterations = done
        best = max(range(len(legal)), key=lambda i: totals[i])
        return legal[best]

    # --- improving on the pack's own tactic -----------------------------------------------------

    def _improve(self, worlds: World, view: Any, legal: list[Action]) -> Action:
        """The answer the pack's tactic verb picks, unless another does clearly better: every
        answer is played out in the same sampled worlds (common random numbers; the budget's
        iterations shared among the answers), and the best is taken only where its mean lead
        over the tactic's answer is more than twice that lead's standard error."""
        me = view.colour
        prior = self.rollout_agent.decide(view.to_json(), legal, worlds)
        scores: list[list[float]] = [[] for _ in legal]
        count = max(2, self.iterations // len(legal))
        deadline = self._deadline()
        done = 0
        while done < count and (done < 2 or deadline is None or time.perf_counter() < deadline):
            world = worlds()
            rollout_seed = self.rng.next64()
            for index, action in enumerate(legal):
                scores[index].append(self._rollout(world.fork(), me, action, rollout_seed))
            done += 1
        self.last_iterations = done * len(legal)
        best = max(range(len(legal)), key=lambda i: (sum(scores[i]), -i))
        base = legal.index(prior)
        return legal[best] if clearly_better(scores[best], scores[base]) else prior

    def _rollout(self, game: Game, me: str, action: Action, seed: int) -> float:
        """Answer `action`, play on with heuristic bots to the horizon, and score the position."""
        agent = self.rollout_agent
        agent.rng = Rng(seed)
        agent._view = None  # no log in rollouts: gifts are not remembered there
        start_turn = game.state["turn"]
        game.window_passer = self._passer(game)
        game.submit(me, action)
        while not game.over and game.state["turn"] - start_turn < HORIZON_TURNS:
            decision = game.decision
            assert decision is not None
            for colour in decision.waiting:
                legal = decision.legal(colour)
                quick = self._quick_pass(legal)
                if quick is None:
                    quick = agent.decide(_light_view(game, colour), legal, game)
                game.submit(colour, quick)
        return self._score(game, me)

    def _quick_pass(self, legal: list[Action]) -> Action | None:
        """In a rollout, a pass where the heuristic would only consider a relief: a window whose
        plays and powers relieve nothing (it skips the heuristic's gifts, for speed)."""
        if legal[0] != PASS or any(a[0] not in WINDOW_ANSWERS for a in legal):
            return None
        relieving = self._relieving
        useful = any(a[0] in ("play", "power") and a[1] in relieving for a in legal)
        return None if useful else PASS

    def _passer(self, world: Game) -> WindowPasser:
        """`_quick_pass`, then the rollouts' heuristic, before a window of `world` asks a seat (its
        `window_passer`): a pass where none of the cards and characters the seat could use
        relieves anything, or where the heuristic would pass whatever it were offered."""
        relieving = self._relieving
        agent = self.rollout_agent

        def passes(
            colour: str, cards: list[str], characters: list[str], question: str, values: dict[str, Any]
        ) -> bool:
            if relieving.isdisjoint(cards) and relieving.isdisjoint(characters):
                return True
            return agent.passes_anyway(_light_view(world, colour), question, values)

        return passes

    def _score(self, game: Game, me: str) -> float:
        """What the position is worth to `me`: once the game is over, what its result is worth
        (`result_worth`); before, the players' values by the pack's evaluation, weighed as its
        result is (a ranking: the margin over the best other; a team: the team's)."""
        return self.evaluator.worth(game, me)

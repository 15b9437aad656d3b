"""A bot that plays sensibly on any pack, from what the pack tells bots (`bots:`,
coh_core.packs.bot_hints) and nothing else.

At each decision it answers with the tactic the pack names for the question. Where it names
none, it looks ahead: each answer is played on a fork of a world consistent with its view (what
it cannot see dealt again), on through its own next answers while it alone is asked (the one it
looks ahead from; the others asked at once answer at random), and the answer whose outcome the
pack's evaluation prefers for its seat is taken, ties drawn at random (a little noise besides).
The tactics read the table through the pack's other hints: counters marked `bots: threat` or
`prize`, verbs marked `bots: relief`, and a piece's worth (`bots: piece_value`). It knows cards
and powers only through their effects (which verbs they call), never by id.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from coh_core.agents.evaluation import Evaluator, counters_of_role, evaluator
from coh_core.effects import ast
from coh_core.engine.compile.trees import walk_calls
from coh_core.engine.game import Game
from coh_core.engine.rng import Rng
from coh_core.engine.runtime import EngineError
from coh_core.packs.bot_hints import LOOKAHEAD, BotHints
from coh_core.packs.model import Pack

Action = tuple[Any, ...]
PASS: Action = ("pass",)
LOOKAHEAD_DEPTH = 3  # the bot's own answers in a row a look-ahead plays through
LOOKAHEAD_FORKS = 48  # the most forks one look-ahead makes (beyond, it answers from one step)
NOISE = 20  # a look-ahead answers at random instead once in this many times
World = Callable[[], Game]  # makes the world a look-ahead forks (made only when one is needed)


def _verbs_by_owner(pack: Pack | None) -> dict[str, set[str]]:
    """Which verbs each card or character's effects call (a card's id -> the verbs of its effect)."""
    found: dict[str, set[str]] = {}
    for compiled in pack.effects if pack is not None else []:
        tree = compiled.tree
        if isinstance(tree, ast.Block | ast.Call):
            found.setdefault(compiled.slot.owner, set()).update(walk_calls(tree))
    return found


def _verbs_of_role(pack: Pack | None, role: str) -> frozenset[str]:
    """The pack's verbs it marks for bots with this role (`relief`: removes a threat counter)."""
    verbs = pack.entities_of("verb") if pack is not None else []
    return frozenset(verb.id for verb in verbs if verb.data.get("bots") == role)


def _items_of(pack: Pack | None, kinds: list[str]) -> frozenset[str]:
    """The names these kinds of counters have as items players give and share (`item:`)."""
    counters = pack.section("components").get("counters", {}) if pack is not None else {}
    return frozenset(str(counters[kind]["item"]) for kind in kinds if counters[kind].get("item"))


def _pack_facts(pack: Pack | None) -> dict[str, Any]:
    """What a bot reads of the pack, worked out once per pack (a simulation seats thousands of
    bots on one pack; reading its effects again for each was about a seventh of a game)."""
    if pack is not None:
        cached = _FACTS.get(id(pack))
        if cached is not None and cached[0] is pack:
            return cached[1]
    judge = evaluator(pack)
    facts = {
        "verbs": _verbs_by_owner(pack),
        "threats": counters_of_role(pack, "threat"),
        "prizes": judge.prizes,
        "reliefs": _verbs_of_role(pack, "relief"),
        "prize_items": _items_of(pack, judge.prizes),
        "values": judge.values,
        "evaluator": judge,
    }
    if pack is not None:
        if len(_FACTS) >= _FACTS_KEPT:  # the packs of long ago (each kept alive while it is here)
            _FACTS.clear()
        _FACTS[id(pack)] = (pack, facts)
    return facts


_FACTS: dict[int, tuple[Pack, dict[str, Any]]] = {}
_FACTS_KEPT = 8


class HeuristicAgent:
    def __init__(self, seed: int = 0, pack: Pack | None = None):
        # seeded from the first output of the seed's generator: the first outputs of
        # neighbouring seeds (7919 * game + seat) are close, and would make the bots draw alike
        self.rng = Rng(Rng(seed).next64())
        facts = _pack_facts(pack)
        self.verbs: dict[str, set[str]] = facts["verbs"]
        self.threats: list[str] = facts["threats"]
        self.prizes: list[str] = facts["prizes"]
        self.reliefs: frozenset[str] = facts["reliefs"]
        self.prize_items: frozenset[str] = facts["prize_items"]
        self.values: dict[str, int] = facts["values"]
        self.evaluator: Evaluator = facts["evaluator"]
        self.hints: BotHints = self.evaluator.hints
        self.depth = LOOKAHEAD_DEPTH  # how deep and wide it looks ahead (less in a search's rollouts)
        self.forks = LOOKAHEAD_FORKS
        self._view: Any = None

    def act(self, view: Any, legal: list[Action]) -> Action:
        self._view = view  # the log is read from it only when a decision needs it
        # a look-ahead plays in a world consistent with the view, never in the game itself
        sampler = getattr(view, "sample_world", None)
        world = None if sampler is None else (lambda: sampler(self.rng))
        try:
            return self.decide(view.to_json(), legal, world)
        finally:
            self._view = None  # (not kept past its decision: the game would have to freeze it)

    def decide(self, state: dict[str, Any], legal: list[Action], world: World | Game | None = None) -> Action:
        """The answer from a view's JSON (read only: a search may pass the game's own data), by
        the tactic the pack names for the question; a look-ahead forks `world` (a game whose
        every part the bot may know: a sampled world), or the game `world()` makes."""
        decision = state["decision"] or {}
        prompt = decision.get("prompt", {})
        tactic = self.hints.tactic(decision.get("kind"), prompt.get("purpose"))
        choice: Action | None
        if tactic == LOOKAHEAD:
            choice = self._lookahead(state["me"], legal, world) if len(legal) > 1 else legal[0]
        elif self.hints.is_verb(tactic):
            key = self.hints.key(decision.get("kind"), prompt.get("purpose"))
            choice = self._pack_tactic(key, state["me"], prompt, legal, world)
        else:
            handler: Callable[..., Action | None] | None = getattr(self, f"_tactic_{tactic}", None)
            choice = handler(state, prompt, legal) if handler is not None else None
        return choice if choice in legal else legal[self.rng.randbelow(len(legal))]

    def _pack_tactic(
        self, key: str, me: str, prompt: dict[str, Any], legal: list[Action], world: World | Game | None
    ) -> Action | None:
        """The answer the pack's own tactic verb picks, read in a world consistent with the view
        (None, an answer at random, without one, or where the answers are not values to pick)."""
        if len(legal) == 1:
            return legal[0]
        if world is None or any(len(action) != 2 for action in legal):
            return None
        game = world if isinstance(world, Game) else world()
        options = [action[1] for action in legal]
        return legal[options.index(self.evaluator.pick(game, key, me, prompt, options))]

    # --- looking ahead ---------------------------------------------------------------------------

    def _lookahead(self, me: str, legal: list[Action], world: World | Game | None) -> Action | None:
        """The answer whose outcome the evaluation prefers for `me` (ties at random); None (an
        answer at random) without a world to look in, or now and then for noise."""
        if world is None or self.rng.randbelow(NOISE) == 0:
            return None
        game = world if isinstance(world, Game) else world()
        budget = [self.forks]
        try:
            values = [self._after(game, me, action, self.depth, budget) for action in legal]
        except EngineError:
            # a sampled world deals again what the engine's frames may already have picked from
            # (an item chosen at a place, then dealt elsewhere): where it cannot be played on,
            # the answer is drawn at random
            return None
        best = max(values)
        top = [action for action, value in zip(legal, values, strict=True) if value >= best - 1e-9]
        return top[self.rng.randbelow(len(top))]

    def _after(self, game: Game, me: str, action: Action, depth: int, budget: list[int]) -> float:
        """What answering `action` comes to for `me`: the evaluation once the game has moved on
        (the others asked with it answering at random), or the best of its own next answers
        while it alone is asked next, `depth` answers deep and within the forks `budget` left."""
        budget[0] -= 1
        fork = game.fork()
        fork.submit(me, action)
        decision = fork.decision
        if decision is not None and decision.answers:  # asked at once: the others answer too
            for colour in decision.waiting:
                if colour not in decision.answers:
                    options = decision.legal(colour)
                    fork.submit(colour, options[self.rng.randbelow(len(options))])
            decision = fork.decision
        if decision is not None and depth > 1 and list(decision.waiting) == [me]:
            options = decision.legal(me)
            if 1 < len(options) <= budget[0]:
                return max(self._after(fork, me, option, depth - 1, budget) for option in options)
            if len(options) == 1 and budget[0] > 0:
                return self._after(fork, me, options[0], depth, budget)
        return self.evaluator.worth(fork, me)

    # --- reading the table -------------------------------------------------------------------

    def _mine(self, state: dict[str, Any]) -> list[str]:
        me = state["me"]
        return [c for c, ch in _pieces(state).items() if ch["alive"] and ch["owner"] == me]

    def _where(self, state: dict[str, Any], character: str) -> str:
        return str(_pieces(state)[character]["at"])

    def _danger(self, state: dict[str, Any], location: str) -> int:
        return self._threat(state, location) - self._people(state, location)

    def _people(self, state: dict[str, Any], location: str) -> int:
        return sum(1 for ch in _pieces(state).values() if ch["alive"] and ch["at"] == location)

    def _threat(self, state: dict[str, Any], location: str) -> int:
        return sum(int(state["counts"][location][kind]) for kind in self.threats)

    def _prize(self, state: dict[str, Any], location: str) -> int:
        return sum(int(state["counts"][location][kind]) for kind in self.prizes)

    def _my_places(self, state: dict[str, Any]) -> set[str]:
        return {self._where(state, c) for c in self._mine(state)}

    def _relieves(self, owner: str) -> bool:
        """Whether the effects of this card or character call a verb that removes a threat."""
        return not self.reliefs.isdisjoint(self.verbs.get(owner, set()))

    # --- decisions -----------------------------------------------------------------------------

    def _tactic_weighted_by_appeal(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        """A mixed choice: each card drawn with a weight that grows with how good its place looks
        once the others' likely choices are counted (a crowd shares the prizes and the danger)."""
        places = [action[1] for action in legal]
        crowd = self._expected_crowd(state, places)
        scores = [self._appeal(state, place, crowd[place]) for place in places]
        return legal[self._drawn(scores)]

    def _appeal(self, state: dict[str, Any], place: str, crowd: float) -> float:
        """How good a place looks for one more character when `crowd` others are expected there:
        its prizes shared with the crowd, less the risk of being the one lost where the threats
        match the people there (more people: a smaller chance it is this bot's character)."""
        people = self._people(state, place) + crowd + 1
        prize = self._prize(state, place) * 2 / (1 + crowd)
        risk = max(0.0, self._threat(state, place) - people + 1) * 3 / people
        return prize - risk

    def _expected_crowd(self, state: dict[str, Any], places: list[str]) -> dict[str, float]:
        """How many of the others' characters are expected to go to each place: each other player
        is taken to draw its card as this bot would, from how the places look with nobody else."""
        alone = [self._appeal(state, place, 0.0) for place in places]
        chances = _weights(alone)
        others = sum(1 for p in state["players"] if p != state["me"] and p not in state["eliminated"])
        total = sum(chances)
        return {place: others * chance / total for place, chance in zip(places, chances, strict=True)}

    def _drawn(self, scores: list[float]) -> int:
        """An index drawn with weights growing with the scores (the best the most often)."""
        weights = _weights(scores)
        point = (self.rng.next64() >> 11) / (1 << 53) * sum(weights)
        for index, weight in enumerate(weights):
            point -= weight
            if point < 0:
                return index
        return len(weights) - 1

    def _tactic_least_threatened(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        return min(legal, key=lambda a: self._threat(state, a[2]))

    def _tactic_most_endangered(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        return max(legal, key=lambda a: self._danger(state, self._where(state, a[1])))

    def _tactic_relieve_at_risk(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        here = prompt.get("location")
        at_risk = here in self._my_places(state) and self._danger(state, here) >= 0
        if at_risk:
            for action in legal:
                if action[0] in ("play", "power") and self._relieves(action[1]):
                    return action
            return self._gift_before_vote(state, here, legal)
        return PASS

    def passes_anyway(self, state: dict[str, Any], kind: str, prompt: dict[str, Any]) -> bool:
        """Whether its answer to this question is a pass whatever it is offered: a window whose
        tactic relieves a place at risk, at a place where none of its characters is at risk."""
        if self.hints.tactic(kind, prompt.get("purpose")) != "relieve_at_risk":
            return False
        here = prompt.get("location")
        return not (here in self._my_places(state) and self._danger(state, here) >= 0)

    def _gift_before_vote(self, state: dict[str, Any], here: Any, legal: list[Action]) -> Action:
        """Once a turn, where its character is at risk: a card it does not need to the other
        player with the most characters there, whose bot then spares the giver's in the vote."""
        present = [ch["owner"] for ch in _pieces(state).values() if ch["alive"] and ch["at"] == here]
        others = sorted({p for p in present if p != state["me"]}, key=lambda p: (-present.count(p), p))
        if not others or state["me"] in self._givers(state):
            return PASS
        spare = [a for a in legal if a[0] == "give" and a[1] == others[0] and a[2] == "card"]
        spare = [a for a in spare if not self._relieves(a[3])]
        return spare[0] if spare else PASS

    def _givers(self, state: dict[str, Any], to: str | None = None) -> set[str]:
        """The players who gave a gift this turn (to `to` only, if given), from the log it sees."""
        return {
            str(entry["params"]["player"])
            for entry in self._log()
            if entry["key"] == "gift"
            and entry["turn"] == state["turn"]
            and (to is None or entry["params"]["recipient"] == to)
        }

    def _log(self) -> list[dict[str, Any]]:
        return self._view.log() if self._view is not None else []

    def _tactic_aim(self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]) -> Action:
        purpose = str(prompt.get("purpose", ""))
        values = [a[1] for a in legal]
        locations = [v for v in values if v in state["locations"]]
        if locations and len(locations) == len(values):
            mine = self._my_places(state)
            if purpose.startswith(("target", *self.reliefs)):  # a threat to remove there
                return (
                    "choose",
                    max(locations, key=lambda loc: (loc in mine, self._threat(state, loc))),
                )
            return (
                "choose",
                min(locations, key=lambda loc: (loc in mine, -self._threat(state, loc))),
            )
        players = [v for v in values if v in state["players"]]
        if players and len(players) == len(values):
            others = [p for p in players if p != state["me"]]
            return ("choose", (others or players)[0])
        return legal[0]

    def _tactic_for_self(self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]) -> Action:
        mine = [a for a in legal if a[1] == state["me"]]
        return mine[0] if mine else legal[0]

    def _tactic_against_others(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        others = [a for a in legal if a[1] != state["me"]]
        # spare those who gave it a gift this turn, as long as someone else may be picked
        givers = self._givers(state, to=state["me"]) if others else set()
        others = [a for a in others if a[1] not in givers] or others
        return others[self.rng.randbelow(len(others))] if others else legal[0]

    def _tactic_another_player(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        others = [a for a in legal if a[1] != state["me"]]
        return (others or legal)[0]

    def _cheapest(self, legal: list[Action]) -> Action:
        return min(legal, key=lambda a: self.values.get(a[1], 0))

    def _tactic_cheapest_piece(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        return self._cheapest(legal)

    def _tactic_keep_prize(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        for action in legal:
            if action[1] == state["me"] and action[2] in self.prize_items:
                return action
        return legal[0]

    def _tactic_random(self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]) -> None:
        return None  # (`decide` draws one)

    def _tactic_take(self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]) -> Action:
        return next((a for a in legal if a != PASS), PASS)

    def _tactic_keep_relief(
        self, state: dict[str, Any], prompt: dict[str, Any], legal: list[Action]
    ) -> Action:
        keep = [a for a in legal if not self._relieves(a[1])]
        return (keep or legal)[0]


def _weights(scores: list[float]) -> list[float]:
    """Softmax weights of scores (temperature 1): one point better is about 2.7 times as likely."""
    top = max(scores)
    return [math.exp(score - top) for score in scores]


def _pieces(view: dict[str, Any]) -> dict[str, Any]:
    """The players' pieces in a view: those of the kind of pieces of role `players`."""
    pieces: dict[str, Any] = view["pieces"][view["piece_roles"]["players"]]
    return pieces

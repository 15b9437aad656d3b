"""What a position is worth to a seat, as the pack tells bots (`bots:`) and declares its result.

A finished game is worth what its result is (`result_worth`); before the end, each seat's value
is the pack's evaluation (`bots: evaluation`, a selector of one player), or where it declares
none, the worth of the seat's living pieces (`bots: piece_value`, else 1 each) and the prize
counters it holds. A ranking's seat weighs its value less the best other's; a team's seat the
values of every seat added up; a seat of both the two added.
"""

from __future__ import annotations

from typing import Any

from coh_core.engine import compiler_for
from coh_core.engine.game import Game
from coh_core.engine.runtime import EngineError, NoOptions, Rt
from coh_core.limits import MAX_WORK
from coh_core.packs.bot_hints import (
    TACTIC_OPTIONS,
    TACTIC_PLAYER,
    BotHints,
    bot_hints,
    players_piece_kind,
    tactic_location,
)
from coh_core.packs.model import Pack
from coh_core.packs.results import ResultSpec, result_of


class Evaluator:
    """The worth of positions to a seat, for one pack (made once per pack: see `evaluator`)."""

    def __init__(self, pack: Pack | None):
        self.hints: BotHints = bot_hints(pack)
        self.result: ResultSpec | None = result_of(pack) if pack is not None else None
        self.win = float(self.hints.win)
        self.prizes = counters_of_role(pack, "prize")
        self.values = _piece_values(pack, self.hints.piece_value)
        self.pack = pack
        self._call: Any = None  # the evaluation verb, compiled once it is first read
        self._tactics: dict[str, tuple[Any, list[str]]] = {}  # tactic verbs, compiled when first used

    def worth(self, game: Game, me: str) -> float:
        """What the position is worth to `me`: its result once the game is over, else its
        players' values weighed as the result is (`position_worth`)."""
        result = game.state["result"]
        if game.over and result:
            return result_worth(result, self.result, me, self.win)
        return position_worth(self.standings(game), self.result, me)

    def standings(self, game: Game) -> dict[str, float]:
        """Each player's value in this position (the pack's evaluation, or pieces and prizes)."""
        verb = self.hints.evaluation
        if verb is not None and self.pack is not None:
            if self._call is None:
                self._call = compiler_for(self.pack).selector_call(verb)
            call = self._call
            game.work_left = MAX_WORK  # (read between answers: a budget of its own)
            return {player: float(call(Rt(game, {}, None), player)) for player in game.players}
        worth = {player: 0.0 for player in game.players}
        for ident, piece in game.pieces.items():
            if piece["alive"] and piece["owner"] in worth:
                worth[piece["owner"]] += self.values.get(ident, 1)
        counts = game.state["counts"]
        for player in worth:
            held = counts.get(player, {})
            worth[player] += sum(held.get(kind, 0) for kind in self.prizes)
        return worth

    def pick(self, game: Game, key: str, player: str, prompt: dict[str, Any], options: list[Any]) -> Any:
        """The answer the pack's tactic verb for the question `key` picks for `player` among
        `options` (the answers' values), its other parameters the question's own (`prompt`);
        `BOTS-TACTIC-ANSWER` where it picks nothing offered."""
        assert self.pack is not None
        verb = self.hints.tactics[key]
        found = self._tactics.get(verb)
        if found is None:
            compiler = compiler_for(self.pack)
            names = [param.name for param in compiler.verbs[verb].signature.params]
            found = self._tactics[verb] = (compiler.selector_call(verb), names)
        call, names = found
        given = {**prompt, TACTIC_PLAYER: player, TACTIC_OPTIONS: options}
        missing = [name for name in names if name not in given]
        if missing:
            raise EngineError(
                "BOTS-TACTIC-VERB",
                f"the bots' tactic `{verb}` takes `{missing[0]}`, which this question does not give"
                f" (it gives {', '.join(given)})",
                tactic_location(self.pack, key),
            )
        game.work_left = MAX_WORK  # (read between answers: a budget of its own)
        try:
            picked = call(Rt(game, {}, None), *[given[name] for name in names])
        except NoOptions as exc:
            raise EngineError(
                "BOTS-TACTIC-ANSWER",
                f"the bots' tactic `{verb}` found nothing to pick from ({exc})",
                tactic_location(self.pack, key),
            ) from exc
        if picked not in options:
            raise EngineError(
                "BOTS-TACTIC-ANSWER",
                f"the bots' tactic `{verb}` picked {picked!r}, which is not one of the answers offered"
                f" ({', '.join(map(repr, options))})",
                tactic_location(self.pack, key),
            )
        return picked


def position_worth(values: dict[str, float], declared: ResultSpec | None, me: str) -> float:
    """What players' values are worth to `me` before the end: of a ranking, its margin over the
    best other; of a team, the team's (every seat's added); of both, the two added."""
    worth = 0.0
    if declared is None or declared.ranked:
        worth += margin(values, me)
    if declared is not None and declared.team:
        worth += sum(values.values())
    return worth


def result_worth(result: dict[str, Any], declared: ResultSpec | None, me: str, win: float = 10.0) -> float:
    """What a finished game is worth to `me`, as its pack declares its result: of a ranking, the
    margin of the final scores and a win bonus (`win`, shared among the winners); of a team's
    result, the team's outcome, every seat's alike (`win`, or as much lost); of both, the two."""
    worth = 0.0
    if declared is None or declared.ranked:
        scores = {p: float(v) for p, v in result.get("scores", {}).items()}
        winners = result.get("winners", [])
        worth += margin(scores, me) + (win / len(winners) if me in winners else 0.0)
    if declared is not None and declared.team:
        worth += win if result.get("won") else -win
    return worth


def margin(scores: dict[str, float], me: str) -> float:
    """`me`'s score less the best other's (its own score where it plays alone)."""
    others = [v for p, v in scores.items() if p != me]
    return scores.get(me, 0.0) - (max(others) if others else 0.0)


def evaluator(pack: Pack | None) -> Evaluator:
    """The evaluator of a pack, made once per pack (a simulation seats thousands of bots on one)."""
    if pack is None:
        return Evaluator(None)
    found = _EVALUATORS.get(id(pack))
    if found is not None and found[0] is pack:
        return found[1]
    if len(_EVALUATORS) >= _KEPT:  # the packs of long ago (each kept alive while it is here)
        _EVALUATORS.clear()
    made = Evaluator(pack)
    _EVALUATORS[id(pack)] = (pack, made)
    return made


_EVALUATORS: dict[int, tuple[Pack, Evaluator]] = {}
_KEPT = 8


def counters_of_role(pack: Pack | None, role: str) -> list[str]:
    """The kinds of counters the pack marks for bots as a `threat` or a `prize`."""
    counters = pack.section("components").get("counters", {}) if pack is not None else {}
    return [
        str(kind) for kind, entry in counters.items() if isinstance(entry, dict) and entry.get("bots") == role
    ]


def _piece_values(pack: Pack | None, field: str | None) -> dict[str, int]:
    """Each piece's worth by id, from the field `bots: piece_value` names (none: no values)."""
    if pack is None or field is None:
        return {}
    kind = players_piece_kind(pack)
    entities = pack.entities_of(kind) if kind else []
    return {e.id: e.data[field] for e in entities if type(e.data.get(field)) is int}

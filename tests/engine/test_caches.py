"""Every cache a game keeps over its state answers what the state says, whatever primitives ran.

A game keeps, between decisions, its living and its rested pieces per player, its seat order
and the gifts each player could make. Random sequences of the primitives that change what those
read (deal, deal again a piece that died or belongs to another, kill, exhaust, rest, move, hand
the turn-order pointer on) run on a game in play; after each one, every cached answer is compared
with the same question asked of a copy of the game made from its JSON (whose caches are empty)
and with the answer worked out from the raw state.
"""

from __future__ import annotations

import ast
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import coh_core
from coh_core.engine import Game, new_game
from coh_core.engine.library import deal_character, exhaust, place_character, rest
from coh_core.engine.runtime import NoOptions, Rt
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack

_PACK: list[Pack] = []
_NO_WINDOW = "no window of the pack"


def _pack() -> Pack:
    if not _PACK:
        _PACK.append(load_pack_checked())
    return _PACK[0]


def _living(game: Game) -> dict[str, list[str]]:
    """Living pieces per player, from the raw state, in the order the pieces were dealt."""
    found: dict[str, list[str]] = {}
    for piece, ch in game.pieces.items():
        if ch["alive"]:
            found.setdefault(ch["owner"], []).append(piece)
    return found


def _rested(game: Game) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for piece, ch in game.pieces.items():
        if ch["alive"] and not ch["exhausted"]:
            found.setdefault(ch["owner"], []).append(piece)
    return found


def _answers(game: Game) -> dict[str, Any]:
    """What a game answers from its caches: who lives, who is rested, who is where, in what order,
    what each player could give or try."""
    places = list(game.state["order"])
    seated = game._seated()
    return {
        "living_by_player": game._living_by_player(),
        "rested_by_player": game._rested_by_player(),
        "living": {p: game.living(p) for p in game.players},
        "all_living": game.living(),
        "at": {place: game.at(place) for place in places},
        "turn_order": game.turn_order(),
        # (a window no card or power is played in: its options are a pass and the gifts)
        "gifts": {p: game.window_options(p, (_NO_WINDOW,), {}, seated) for p in game.players},
        "candidates": {p: game.candidates(p, ("anytime",)) for p in game.players},
        "could_try": {p: game.could_try(p, ("anytime",)) for p in game.players},
    }


class CachedGame(RuleBasedStateMachine):
    """A game in play, changed by primitives one at a time."""

    game: Game

    @initialize(seed=st.integers(1, 50), players=st.integers(3, 6))
    def start(self, seed: int, players: int) -> None:
        self.game = new_game(_pack(), players=players, seed=seed)  # the setup has dealt and placed
        rules = self.game.rules
        self.everyone = sorted(rules.ids[rules.piece_kinds[rules.piece_roles["players"]].of])
        _answers(self.game)  # every cache filled before the first change

    def _rt(self) -> Rt:
        return Rt(self.game, {}, None)

    @rule(data=st.data())
    def deal(self, data: st.DataObject) -> None:
        """Dealt for the first time, or again: a dead piece comes back, a living one changes hands."""
        piece = data.draw(st.sampled_from(self.everyone))
        deal_character(self._rt(), piece, data.draw(st.sampled_from(self.game.players)))

    @rule(data=st.data())
    def kill(self, data: st.DataObject) -> None:
        dealt = sorted(self.game.pieces)
        self.game.kill(data.draw(st.lists(st.sampled_from(dealt), max_size=3)))

    @rule(data=st.data(), exhausting=st.booleans())
    def flip(self, data: st.DataObject, exhausting: bool) -> None:
        piece = data.draw(st.sampled_from(sorted(self.game.pieces)))
        with suppress(NoOptions):  # exhausting an exhausted or dead piece: nothing happens
            (exhaust if exhausting else rest)(self._rt(), piece)

    @rule(data=st.data())
    def move(self, data: st.DataObject) -> None:
        piece = data.draw(st.sampled_from(sorted(self.game.pieces)))
        place_character(self._rt(), piece, data.draw(st.sampled_from(list(self.game.state["order"]))))

    @rule(data=st.data())
    def hand_on_the_turn(self, data: st.DataObject) -> None:
        pointer = self.game.rules.turn_pointer
        if pointer is not None:
            self.game.state["pointers"][pointer] = data.draw(st.sampled_from(self.game.players))

    @invariant()
    def caches_answer_what_the_state_says(self) -> None:
        game = self.game
        cached = _answers(game)
        fresh = _answers(Game.from_json(game.rules, game.to_json()))
        assert cached == fresh
        assert cached["living_by_player"] == _living(game)
        assert cached["rested_by_player"] == _rested(game)


CachedGame.TestCase.settings = settings(
    max_examples=25, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
test_caches_follow_every_primitive = CachedGame.TestCase


@pytest.mark.soak
def test_caches_follow_every_primitive_at_length() -> None:
    """The same, many more and longer sequences."""
    longer = settings(max_examples=400, stateful_step_count=60, deadline=None)
    run = type("LongerRuns", (CachedGame.TestCase,), {"settings": longer})
    run("runTest").runTest()


def test_a_piece_dealt_again_after_dying_is_living_again(base_pack: Pack) -> None:
    """The case that went stale: an overlay's power deals a dead character again."""
    game = new_game(base_pack, players=3, seed=1)
    colour = game.players[0]
    piece = game.living(colour)[0]
    game.kill([piece])
    assert piece not in game.living(colour)
    deal_character(Rt(game, {}, None), piece, colour)
    place_character(Rt(game, {}, None), piece, game.state["order"][0])
    assert piece in game.living(colour)
    assert piece in game.at(game.state["order"][0])


# What the caches read of a piece, and the only functions that may write it (a starting state,
# built before its game exists, has no caches yet).
_CACHED_FIELDS = {"alive", "exhausted", "owner"}
_WRITERS = {("engine/game.py", "deal"), ("engine/game.py", "set_exhausted"), ("engine/game.py", "kill")}
_BEFORE_ANY_GAME = {("engine/scenario.py", "_characters")}


def _field_writes(path: Path) -> list[tuple[str, int]]:
    """(function, line) of every assignment to `x["alive"]`, `x["exhausted"]`, `x["owner"]` or to a
    piece of `game.pieces`."""
    found: list[tuple[str, int]] = []
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(function, ast.FunctionDef):
            continue
        for node in ast.walk(function):
            targets = node.targets if isinstance(node, ast.Assign) else []
            targets += [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
            for target in targets:
                if not isinstance(target, ast.Subscript):
                    continue
                key, of = target.slice, target.value
                a_field = isinstance(key, ast.Constant) and key.value in _CACHED_FIELDS
                a_piece = isinstance(of, ast.Attribute) and of.attr == "pieces"  # `game.pieces[id] = ...`
                if a_field or a_piece:
                    found.append((function.name, node.lineno))
    return found


def test_only_the_games_own_methods_change_what_its_caches_read() -> None:
    root = Path(coh_core.__file__).parent
    writes = {
        (str(path.relative_to(root)), function, line)
        for path in root.rglob("*.py")
        for function, line in _field_writes(path)
    }
    stray = {w for w in writes if (w[0], w[1]) not in _WRITERS | _BEFORE_ANY_GAME}
    assert not stray, f"pieces changed behind the caches' back: {sorted(stray)}"
    assert {(w[0], w[1]) for w in writes} >= {("engine/game.py", "kill"), ("engine/game.py", "set_exhausted")}

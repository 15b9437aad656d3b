"""A game in play: plain-data state, the flow read from the pack, decisions and answers.

The game runs on the machine of `machine.py`: the flow, the engine's procedures and every
effect and verb of the pack are programs whose frames say where each one stands, so the
game's position at any decision is data: `to_json`, `from_json` and `fork` copy it without
replaying the game (docs/design/rules-as-data.md).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import pickle
from collections.abc import Callable, Sequence
from typing import Any

from coh_core.engine.compile.model import COLOUR_TYPE, CompiledBlock
from coh_core.engine.flow import event_frame
from coh_core.engine.journal import Journal
from coh_core.engine.machine import (
    Frame,
    execute,
    frames_data,
    frames_from_json,
    run_sync,
)
from coh_core.engine.rng import Rng
from coh_core.engine.rules import Playable, Rules, Side, Trigger
from coh_core.engine.runtime import Action, Decision, EngineError, IllegalAction, NoOptions, Rt
from coh_core.engine.space import ActionSpace, action_space
from coh_core.engine.state import STATE_VERSION
from coh_core.engine.views import PlayerView
from coh_core.limits import CASCADE_LIMIT, MAX_DECISIONS, MAX_LOOP_STEPS, MAX_WORK

PASS: Action = ("pass",)
_NO_CARDS: list[str] = []  # the hand of a pack without hands (only ever read)
GAME_FORMAT = "coh-game/1"  # the layout of `Game.to_json`
DRY_RUN_LIMIT = 256  # answers tried when checking whether a card or power could do anything
RETURN_BOUNDS = (-1.0, 1.0)  # what `Game.returns` gives a seat: a loss, a win
SAVE_BLOCK = 32  # entries of the log, its places and the answers dumped together once (`_Dumped`)
# (seat, the cards and the characters it could use in a window, the question it would be asked and
# its values) -> whether it passes there anyway
WindowPasser = Callable[[str, list[str], list[str], str, dict[str, Any]], bool]


def as_action(value: Any) -> Action:
    """An answer as the engine compares it: lists (from JSON) become tuples."""
    if isinstance(value, list | tuple):
        return tuple(as_action(v) if isinstance(v, list) else v for v in value)
    raise IllegalAction("ACTION-SHAPE", f'an action is a list such as ["pass"], got {value!r}')


class Game:
    """One game. `decision` says who must answer; `submit` answers; `over` ends it."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Game:
        # Written out so that the compiled build (mypyc) can make a game without `__init__`
        # (`from_json`, `fork`); mypyc's classes have no inherited `__new__` to call.
        return super().__new__(cls)

    def __init__(
        self,
        rules: Rules,
        state: dict[str, Any],
        start: dict[str, Any] | None = None,
        remake: Callable[[], dict[str, Any]] | None = None,
        shuffled: Sequence[tuple[str, int]] = (),
    ):
        """`remake`, if given, makes the starting state again, equal to `state` as given: the copy
        kept as `initial` is then made only when something reads it (most games never do).
        `shuffled`: the piles the state was made with shuffled, and how many entries each holds
        (the log's first chance events)."""
        self._setup(rules, state, start)
        self.log: list[dict[str, Any]] = []
        # answered decisions, in order: each decision's own answers (tuples; lists once loaded), as
        # `history` shows them; those of the first blocks of SAVE_BLOCK are in `_answered_dumps`
        self._answered: list[dict[str, Any]] = []
        self._answered_dumps: list[bytes] = []  # (see `_dump_answered`)
        self._answers_seen: dict[str | None, list[dict[str, Any]]] = {}  # (see `hide_answers`)
        # Where each log entry was written, [phase, location or None], for the narrative's
        # headings: kept beside the log, not in it, so that the record and digest stay as they were.
        self.places: list[list[Any] | None] = []
        for pile, count in shuffled:
            self.note("chance.shuffle", count=count, pile=pile)
        self._remake = remake
        self._initial: dict[str, Any] | None = None if remake is not None else json.loads(json.dumps(state))
        self._initial_dump: bytes | None = None  # `initial`, dumped (`marshal`): what saves copy
        self.after: list[list[Any]] = []  # [trigger, names]: triggers waiting for the action's end
        self.fired: list[str] = []  # the triggers fired in the current action: the cascade bound
        self.depth = 0  # actions running inside actions: triggers wait for the outermost
        self.pending: dict[str, dict[str, Any]] = {}  # plays and moves that may yet be cancelled, by id
        self._pending_count = 0
        self.decision: Decision | None = None
        assert rules.flow is not None
        self.frames: list[Any] = [rules.flow.frame(self, start)]  # the machine's: see machine.py
        self._resume(None)

    def _setup(self, rules: Rules, state: dict[str, Any], start: dict[str, Any] | None) -> None:
        """What a game keeps besides its position: the rules, the state and what is read from them."""
        self.rules = rules
        self.state = state
        self.start = start
        # which sections of the state change (`coh_core.engine.journal`): every primitive below
        # that writes one moves its count
        self.journal = Journal()
        # the pieces players own, that move, vote and die: of the kind the pack gives that role
        kind = rules.piece_roles.get("players")
        self.pieces: dict[str, dict[str, Any]] = state["pieces"][kind] if kind is not None else {}
        self.rng = Rng.from_state(int(state["rng"]))
        # pack verbs it may still run before its next decision (`limits.MAX_WORK`): set again each
        # time the machine runs towards one, counted down by each verb's run
        self.work_left = MAX_WORK
        self._living_cache: dict[str, list[str]] = {}
        self._living_key = -1  # number of characters the cache was built from; -1: stale
        # the living, rested ones per player (what windows look through for powers), likewise;
        # stale (-1) after a death, an exhaust or a rest too
        self._rested_cache: dict[str, list[str]] = {}
        self._rested_key = -1
        self._order: list[str] = []
        self._seats: list[str] = []  # every player, from the first player clockwise
        self._rank: dict[str, int] = {}
        self._order_first: str | None = None  # the first player _order was worked out from
        self._order_out: list[str] = []  # (a copy of) the players out it was worked out from
        # set by a round window's answer that was a pass or a gift carried out at once (neither
        # changes the seats): its next ask reads `_order` as the last `_seated` left it, and clears it
        self._seats_kept = False
        # the question values of the round window last asked (`_WindowAsk`), for the names it was asked with
        self._prompt_env: dict[str, Any] | None = None
        self._window_prompt: dict[str, Any] = {}
        self._turn_pointer = rules.turn_pointer  # where the turn order starts (None: the first seat)
        self._out_memory = rules.memory_roles.get("out_of_game")  # the players out, if the pack keeps them
        self._loser_memory = rules.memory_roles.get("last_to_lose")  # who last lost a piece, if kept
        self._items = tuple(rules.items.items())  # (a counter's name as an item, its kind): `gifts`
        # the traits that play the engine's roles (`TRAIT_ROLES`), if the pack has them
        self._unselectable = rules.trait_roles.get("unselectable")
        self._extra_place = rules.trait_roles.get("extra_place")
        self._side_locked = rules.trait_roles.get("side_locked")
        self._pays_by_exhausting = rules.trait_roles.get("pays_by_exhausting")
        # `window_options`' gifts, per giver: per card, per item, the actions (for `_gifts_seated`)
        self._gifts: dict[str, tuple[dict[str, list[Action]], dict[str, list[Action]]]] = {}
        self._gifts_seated: list[str] | None = None
        # the windows and names checked (`check_window_names`)
        self._checked: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
        self._checked_events: set[tuple[str, tuple[str, ...]]] = set()  # likewise, events and names
        self._saver: _Saver | None = None  # what `to_json` keeps from one save to the next
        # the seat whose answers alone the first answers kept are, and how many (`hide_answers`)
        self._hidden: tuple[str | None, int] | None = None
        # a search's own: which seats pass in windows whatever they are offered (`passes_unasked`);
        # not the position's: forks and loads leave it unset
        self.window_passer: WindowPasser | None = None
        self._index_triggers()

    @property
    def initial(self) -> dict[str, Any]:
        """The state the game started from, as JSON (a copy: it shares nothing with the game)."""
        found = self._initial
        if found is None:
            dumped = self._initial_dump  # (a loaded game's: loaded when read)
            if dumped is not None:
                found = self._initial = marshal.loads(dumped)
            else:
                assert self._remake is not None
                found = self._initial = json.loads(json.dumps(self._remake()))
        return found

    @initial.setter
    def initial(self, value: dict[str, Any]) -> None:
        self._initial, self._remake, self._initial_dump = value, None, None

    # --- the public decision API ---------------------------------------------------

    @property
    def over(self) -> bool:
        return self.decision is None

    @property
    def players(self) -> list[str]:
        return list(self.state["players"])

    @property
    def history(self) -> list[dict[str, Any]]:
        """The answered decisions, in order, as JSON: per decision, each player's answer (a copy)."""
        found: list[dict[str, Any]] = []
        for dumped in self._answered_dumps:
            found += marshal.loads(dumped)
        found += [_answers_json(answers) for answers in self._answered]
        return found

    def hide_answers(self, seat: str | None) -> None:
        """Of each decision answered so far, the game keeps `seat`'s answer alone, if any (a world
        drawn for that seat, which holds nothing the seat does not know: `engine.worlds`)."""
        dumps, seen = self._answered_dumps, self._answers_seen
        shown = seen.get(seat)
        if shown is None:  # (made once for the answers dumped, shared by the worlds drawn from them)
            loaded: list[dict[str, Any]] = []
            for dumped in dumps:
                loaded += marshal.loads(dumped)
            shown = seen[seat] = [{seat: answers[seat]} if seat in answers else {} for answers in loaded]
        answered = self._answered
        hidden = self._hidden
        # (the answers hidden for this seat before, none dumped since: kept as they are, shared)
        done = hidden[1] if hidden is not None and hidden[0] == seat and not dumps else 0
        recent = [{seat: answers[seat]} if seat in answers else {} for answers in answered[done:]]
        self._answered = [*shown, *answered[:done], *recent]
        self._answered_dumps, self._answers_seen = [], {}
        self._hidden = (seat, len(self._answered))

    def _dump_answered(self) -> None:
        """The answered decisions of each full block dumped, as JSON: the game never reads them
        again (`history` and saves load them), and a fork shares the dumps."""
        answered = self._answered
        full = len(answered) - len(answered) % SAVE_BLOCK
        if full:
            blocks = [answered[start : start + SAVE_BLOCK] for start in range(0, full, SAVE_BLOCK)]
            dumps = [marshal.dumps([_answers_json(answers) for answers in block]) for block in blocks]
            self._answered_dumps = [*self._answered_dumps, *dumps]  # (a new list: forks share the old)
            self._answers_seen = {}
            self._answered = answered[full:]

    def submit(self, colour: str, action: Any) -> None:
        """Answer for one player; raises IllegalAction (state unchanged) for anything not offered."""
        decision = self.decision
        if decision is None:
            raise IllegalAction("ACTION-GAME-OVER", "the game is over; nothing is waiting for an answer")
        legal = decision.options.get(colour)
        if legal is None:
            raise IllegalAction("ACTION-NOT-ASKED", f"{colour} is not asked anything now")
        answers = decision.answers
        if colour in answers:
            raise IllegalAction("ACTION-ANSWERED", f"{colour} has already answered this decision")
        chosen = action if type(action) is tuple else as_action(action)
        if chosen not in legal:
            raise IllegalAction(
                "ACTION-ILLEGAL",
                f"{list(chosen)} is not one of the {len(legal)} legal actions for {colour}",
            )
        if (
            len(answers) + 1 == len(decision.options)
            and SAVE_BLOCK * len(self._answered_dumps) + len(self._answered) >= MAX_DECISIONS
        ):
            raise EngineError(
                "ENGINE-LIMIT",
                f"more than {MAX_DECISIONS:,} decisions and the game goes on: the turn structure never ends",
                self.rules.turn_location(),
            )
        answers[colour] = chosen
        if len(answers) == len(decision.options):  # (answers are only ever of those asked)
            # (`_resume`, written out; the answers are kept as given: a decision answered is not
            # answered again, and `history` copies them as JSON)
            self._answered.append(answers)
            frames = self.frames
            top: Frame = frames[-1]  # (typed: the compiled build reads its slots directly)
            top.program.ops[top.pc - 1].resume(top, answers)
            self.work_left = MAX_WORK
            self.decision = execute(frames)
            self.journal.decisions += 1

    @property
    def waiting(self) -> list[str]:
        """The seats that must answer now: several at once for a simultaneous decision (votes,
        movement), in seat order; none once the game is over."""
        decision = self.decision
        return [] if decision is None else decision.waiting

    def legal(self, colour: str) -> list[Action]:
        """The answers `colour` may give now (none for a seat not asked, or that has answered)."""
        decision = self.decision
        if decision is None or colour in decision.answers:
            return []
        return decision.legal(colour)

    @property
    def space(self) -> ActionSpace:
        """The ruleset's action space: every answer its games can be given, with a stable id."""
        return action_space(self.rules)

    def legal_ids(self, colour: str) -> list[int]:
        """The ids of `legal(colour)` in the action space, in the same order."""
        return self.space.ids(self.legal(colour))

    def submit_id(self, colour: str, ident: Any) -> None:
        """`submit` the answer of an id of the action space: `IllegalAction` for one not offered,
        code `SPACE-ID` for anything that is no id (the game unchanged either way)."""
        try:
            action = self.space.action(ident)
        except EngineError as exc:
            raise IllegalAction(exc.code, exc.message) from None
        self.submit(colour, action)

    def returns(self) -> dict[str, float]:
        """Per seat, what the game came to, within `RETURN_BOUNDS`: 1 for a winner (of a ranking:
        each of the players ranked first; of a team result: everyone if the team won), -1 for the
        others; 0 for everyone while the game goes on, or if the pack declares no result. Of a
        result of both kinds, a team that lost gives everyone -1, one that won ranks as above."""
        seats = self.players
        result = self.state["result"]
        declared = self.rules.result
        if self.decision is not None or declared is None or not isinstance(result, dict):
            return dict.fromkeys(seats, 0.0)
        if declared.team and not result.get("won"):
            return dict.fromkeys(seats, -1.0)
        if not declared.ranked:
            return dict.fromkeys(seats, 1.0)
        winners = set(result.get("winners") or ())
        return {seat: 1.0 if seat in winners else -1.0 for seat in seats}

    def view(self, colour: str) -> PlayerView:
        """What the seat `colour` may know, as it stands now (`VIEW-SEAT` for a colour not seated in
        this game); the view holds no reference to the game."""
        if colour not in self.players:
            raise EngineError(
                "VIEW-SEAT",
                f"`{colour}` is not a seat of this game (its seats: {', '.join(self.players)});"
                " what everyone may know is `public_view()`",
            )
        return PlayerView(self, colour)

    def public_view(self) -> PlayerView:
        """What everyone may know, a spectator's: the public log, the piles everyone sees, the
        memory everyone sees; no decision and no seat (`me` is None)."""
        return PlayerView(self, None)

    def digest(self) -> str:
        """A hash of the full state and log: equal digests mean identical games.

        The hash of `json.dumps([state, log], sort_keys=True, separators=(",", ":"))`, the text of
        each full block of the log made once (`_Dumped`): a game saved after every decision, with
        its digest, does not write its whole log again each time."""
        self.state["rng"] = self.rng.state
        saver = self._saver
        if saver is None:
            saver = self._saver = _Saver()
        blob = f"[{_text(self.state, sort_keys=True)},{saver.log.text(self.log, sort_keys=True)}]"
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def _resume(self, answers: dict[str, Action] | None) -> None:
        """Hand the answers to whatever asked, and run until the next question or the end."""
        frames = self.frames
        if answers is not None:  # (`machine.resume`, written out)
            top: Frame = frames[-1]
            top.program.ops[top.pc - 1].resume(top, answers)
        self.work_left = MAX_WORK
        self.decision = execute(frames)
        self.journal.decisions += 1

    # --- the position as data ---------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole game at this decision as JSON: `Game.from_json` goes on from it exactly.

        The document is the game's data as `json.loads` would give it back (lists, not tuples)
        and shares nothing with the game. It is copied with `marshal`, not through JSON text:
        the engine keeps no tuple, and no value in two places, in its state, log or pending
        plays (the tests check both), and the frames' names and the decision, which hold tuples,
        are made JSON apart. The log, its places and the answers only ever grow: each full block
        of them is dumped once (`_Dumped`).
        """
        self.state["rng"] = self.rng.state
        saver = self._saver
        if saver is None:
            saver = self._saver = _Saver()
        decision = self.decision
        log, log_tail = saver.log.blocks(self.log)
        places, places_tail = saver.places.blocks(self.places)
        self._dump_answered()
        initial = self._initial_dumped()
        changing = (self.state, self.after, self.fired, self.pending, self.start)
        state, after, fired, pending, start, log_tail, places_tail = marshal.loads(
            marshal.dumps((*changing, log_tail, places_tail))
        )
        log += log_tail
        places += places_tail
        return {
            "format": GAME_FORMAT,
            "state": state,
            "frames": _json_copy(frames_data(self.frames)),
            "decision": None if decision is None else saver.decision_json(decision),
            "after": after,
            "fired": fired,
            "depth": self.depth,
            "pending": pending,
            "pending_count": self._pending_count,
            "log": log,
            "history": self.history,
            "places": places,
            "initial": marshal.loads(initial),
            "start": start,
        }

    def to_json_text(self) -> str:
        """`to_json` as JSON text, as `json.dumps(game.to_json(), separators=(",", ":"))` writes
        it, but the text of each full block of the log, its places and the answers made once:
        a table that saves its game after every decision writes only what is new."""
        self.state["rng"] = self.rng.state
        saver = self._saver
        if saver is None:
            saver = self._saver = _Saver()
        decision = self.decision
        head = _text(
            {
                "format": GAME_FORMAT,
                "state": self.state,
                "frames": frames_data(self.frames),
                "decision": None
                if decision is None
                else {
                    "kind": decision.kind,
                    "options": decision.options,
                    "prompt": decision.prompt,
                    "answers": decision.answers,
                },
                "after": self.after,
                "fired": self.fired,
                "depth": self.depth,
                "pending": self.pending,
                "pending_count": self._pending_count,
            }
        )
        self._dump_answered()
        log = saver.log.text(self.log)
        history = saver.answers_text(self._answered_dumps, self._answered)
        places = saver.places.text(self.places)
        initial, start = saver.initial_text(self._initial_dumped()), _text(self.start)
        grown = f'"log":{log},"history":{history},"places":{places},"initial":{initial},"start":{start}'
        return f"{head[:-1]},{grown}}}"

    def _initial_dumped(self) -> bytes:
        """`initial`, dumped (once: it never changes)."""
        dumped = self._initial_dump
        if dumped is None:
            dumped = self._initial_dump = marshal.dumps(self.initial)
        return dumped

    @classmethod
    def from_json(cls, rules: Rules, doc: dict[str, Any], *, copy: bool = True) -> Game:
        """A game saved by `to_json` (JSON data, as `json.loads` gives it), for the same rules;
        nothing runs until it is answered. The game shares nothing with the document, unless
        `copy` is False: then the document is handed over, and the game takes its lists and
        mappings as its own (what `json.loads` or `to_json` just gave, which nobody else holds:
        a load without copying it all again; the document must not be used after)."""
        state = doc.get("state")
        version = state.get("version") if isinstance(state, dict) else None
        if version != STATE_VERSION:
            raise EngineError(
                "GAME-VERSION",
                f"a position of state layout version {version!r}; this engine reads {STATE_VERSION}",
            )
        # a deep copy, as a JSON round trip but faster; the answers and the starting state, which
        # the game never reads, only dumped (`_dump_answered`, `initial`)
        given = dict(doc)
        history, initial = given.pop("history"), given.pop("initial")
        doc = marshal.loads(marshal.dumps(given)) if copy else given
        game = cls.__new__(cls)
        game._setup(rules, doc["state"], doc["start"])
        game._initial, game._remake, game._initial_dump = None, None, marshal.dumps(initial)
        full = len(history) - len(history) % SAVE_BLOCK
        blocks = range(0, full, SAVE_BLOCK)
        game._answered_dumps = [marshal.dumps(history[start : start + SAVE_BLOCK]) for start in blocks]
        game._answers_seen = {}
        game._answered = marshal.loads(marshal.dumps(history[full:])) if copy else history[full:]
        game.log = doc["log"]
        game.places = doc.get("places") or [None] * len(game.log)  # an older save: no headings for its log
        game.after, game.fired, game.depth = doc["after"], doc["fired"], doc["depth"]
        game.pending, game._pending_count = doc["pending"], doc["pending_count"]
        game.frames = frames_from_json(doc["frames"], rules.programs, game)
        saved = doc["decision"]
        if saved is None:
            game.decision = None
        else:
            options = {c: [as_action(a) for a in acts] for c, acts in saved["options"].items()}
            game.decision = Decision(saved["kind"], options, saved["prompt"])
            game.decision.answers = {c: as_action(a) for c, a in saved["answers"].items()}
        return game

    def fork(self) -> Game:
        """An independent copy at this decision: answering one changes nothing in the other.

        As `from_json(to_json())`, but faster: the state and the frames are copied as data, and
        the log, the answers and the starting state, which only ever grow or never change, are
        shared entry by entry.
        """
        self.state["rng"] = self.rng.state
        frames = frames_data(self.frames)
        game = Game.__new__(Game)
        state, frames, pending, after = _copied((self.state, frames, self.pending, self.after))
        game._setup(self.rules, state, self.start)
        game._initial, game._remake, game._initial_dump = self._initial, self._remake, self._initial_dump
        game.log, game._answered = list(self.log), list(self._answered)
        # (never changed in place: shared, and what worlds drawn from them show of them with them)
        game._answered_dumps, game._answers_seen = self._answered_dumps, self._answers_seen
        game._hidden = self._hidden
        game.places = list(self.places)
        game.after, game.fired, game.depth = after, list(self.fired), self.depth
        game.pending, game._pending_count = pending, self._pending_count
        game.frames = frames_from_json(frames, self.rules.programs, game)
        decision = self.decision
        if decision is None:
            game.decision = None
        else:
            game.decision = Decision(decision.kind, decision.options, decision.prompt)
            game.decision.answers = dict(decision.answers)
        return game

    # --- log -------------------------------------------------------------------------

    def note(self, key: str, to: list[str] | None = None, **params: Any) -> None:
        """Add a narrative entry (message key + parameters); `to` limits who may see it."""
        state = self.state  # (`note_params`, written out: the log grows at almost every action)
        if to is None:
            self.log.append({"key": key, "turn": state["turn"], "params": params})
        else:
            self.log.append({"key": key, "turn": state["turn"], "params": params, "to": to})
        self.places.append([state.get("phase"), state.get("at")])

    def note_params(self, key: str, to: list[str] | None, params: dict[str, Any]) -> None:
        """`note`, its parameters given as one mapping (which the entry keeps)."""
        state = self.state
        if to is None:
            self.log.append({"key": key, "turn": state["turn"], "params": params})
        else:
            self.log.append({"key": key, "turn": state["turn"], "params": params, "to": to})
        self.places.append([state.get("phase"), state.get("at")])

    # --- reading the state --------------------------------------------------------------

    def turn_order(self) -> list[str]:
        """Players still in the game, from the first player clockwise."""
        return list(self._seated())

    def _seated(self) -> list[str]:
        """`turn_order` itself, to read and not to change; refreshes the seat ranks too."""
        state = self.state
        pointer = self._turn_pointer
        # (typed locals: the compiled build then compares and indexes them directly)
        first: str = state["pointers"][pointer] if pointer is not None else state["players"][0]
        name = self._out_memory
        out: list[str] = state["memory"][name] if name is not None else []
        if first != self._order_first or out != self._order_out:
            seats = self._seats = self.seat_order(first)
            self._order = [p for p in seats if p not in out]
            self._rank = {p: i for i, p in enumerate(seats)}
            self._order_first, self._order_out = first, list(out)
        return self._order

    def out_of_game(self) -> list[str]:
        """The players out of the game, in the order they went out (the memory of role `out_of_game`)."""
        name = self._out_memory
        return [] if name is None else list(self.state["memory"][name])

    def first_player(self) -> str:
        """Where the turn order starts: the pack's turn-order pointer, or the first seat."""
        pointer = self._turn_pointer
        return str(self.state["pointers"][pointer] if pointer is not None else self.state["players"][0])

    def seat_order(self, first: str) -> list[str]:
        players: list[str] = self.state["players"]
        start = players.index(first)
        return players[start:] + players[:start]

    def living(self, colour: str | None = None) -> list[str]:
        if colour is not None:
            chars = self.pieces
            by_player = self._living_cache if self._living_key == len(chars) else self._living_by_player()
            return list(by_player.get(colour, ()))
        chars = self.pieces
        return self.in_turn_order([c for c, ch in chars.items() if ch["alive"]])

    def _living_by_player(self) -> dict[str, list[str]]:
        """Living characters per player, kept until a death or a new character changes it."""
        chars = self.pieces
        key = len(chars)
        if self._living_key != key:
            found: dict[str, list[str]] = {}
            for character, ch in chars.items():
                if ch["alive"]:
                    found.setdefault(ch["owner"], []).append(character)
            self._living_cache, self._living_key = found, key
        return self._living_cache

    def _rested_by_player(self) -> dict[str, list[str]]:
        """Living, rested characters per player, kept until a death, an exhaust, a rest or a new
        character changes it (in the order of `_living_by_player`)."""
        chars = self.pieces
        key = len(chars)
        if self._rested_key != key:
            found: dict[str, list[str]] = {}
            for character, ch in chars.items():
                if ch["alive"] and not ch["exhausted"]:
                    found.setdefault(ch["owner"], []).append(character)
            self._rested_cache, self._rested_key = found, key
        return self._rested_cache

    def in_turn_order(self, ids: list[str]) -> list[str]:
        self._seated()  # refreshes the seat ranks when the first player has changed
        rank = self._rank
        chars = self.pieces
        return sorted(ids, key=lambda c: rank[chars[c]["owner"]])

    def at(self, location: str) -> list[str]:
        """The living characters at a location, in turn order (as `in_turn_order` sorts them)."""
        chars = self.pieces
        living = self._living_cache if self._living_key == len(chars) else self._living_by_player()
        self._seated()  # refreshes the seats when the first player has changed
        found: list[str] = []
        for player in self._seats:  # (loops, not a comprehension: asked at every move and attack)
            mine = living.get(player)
            if mine is not None:
                for c in mine:
                    if chars[c]["at"] == location:
                        found.append(c)
        return found

    def owner(self, character: str) -> str:
        return str(self.pieces[character]["owner"])

    def in_play(self, type_name: str, ident: str) -> bool:
        """Whether a piece a pack names by `@id` (of this type) is in this game: one of a kind of
        pieces dealt, a colour seated."""
        pieces = self.rules.pieces_of_type.get(type_name)
        if pieces is not None:
            return ident in self.state["pieces"][pieces]
        if type_name == COLOUR_TYPE:
            return ident in self.state["players"]
        return True

    def has_items(self, location: str) -> bool:
        """Whether anything players share lies there: counters that are items, or cards."""
        counts = self.state["counts"][location]
        return any(counts[kind] for kind in self.rules.items.values()) or bool(
            self.role_pile("items", location)
        )

    def role_pile(self, role: str, owner: str = "") -> list[Any]:
        """The pile of this role (`components: piles`): a player's `hand`, the `played` cards,
        a location's `items`; none declared, an empty list."""
        pile = self.rules.roles.get(role)
        return [] if pile is None else self.state["piles"][pile][owner]

    def trait(self, character: str, name: str) -> Any:
        traits: dict[str, list[Any]] = self.pieces[character]["traits"]
        own = traits.get(name)
        if own is not None:
            return own[0]
        # (the defaults `trait_default` worked out before, read without calling it: traits are read often)
        found = self.rules._trait_defaults.get((character, name), self)
        return found if found is not self else self.rules.trait_default(character, name)

    def side(self, location: str) -> Side:
        """The side a location shows (of a place without sides, one that holds nothing)."""
        places: dict[str, dict[str, Any]] = self.state["locations"]
        side: str | None = places[location]["side"]
        if side is None:
            return self.rules.side(location, None)
        return self.rules.sides[(location, side)]  # (`Rules.side`)

    def selectable(self, character: str) -> bool:
        ch = self.pieces[character]
        hidden = self._unselectable
        return bool(ch["alive"]) and not (hidden is not None and self.trait(character, hidden))

    def has_room(self, character: str, location: str) -> bool:
        side = self.side(location)
        if side.closed:
            return False
        if side.capacity is None or self.holds_extra_place(character):
            return True
        # an extra place belongs to its holder: only characters in ordinary places fill the capacity
        ordinary = [c for c in self.at(location) if not self.holds_extra_place(c)]
        return len(ordinary) < int(side.capacity)

    def holds_extra_place(self, character: str) -> bool:
        """Whether the piece has (or would take) a place of its own, beside the place's capacity:
        the trait of role `extra_place`."""
        extra = self._extra_place
        return extra is not None and bool(self.trait(character, extra))

    # --- changing the state ----------------------------------------------------------------

    def leave(self, character: str, kept: dict[str, Any] | None = None) -> None:
        """The character leaves its location: what lasted while it stayed there ends.

        `kept` are traits given as it moves (before it arrives): they belong to the new place.
        """
        ch = self.pieces[character]
        ch["traits"] = {
            k: v for k, v in ch["traits"].items() if v[1] != "leaves_location" or (kept and kept.get(k) is v)
        }
        self.journal.pieces += 1

    def place(self, character: str, location: str) -> None:
        self.pieces[character]["at"] = location
        self.journal.pieces += 1

    def relocate(self, character: str, location: str) -> None:
        if self.pieces[character]["at"] != location:
            self.leave(character)
        self.place(character, location)

    # Every change to what `_living_by_player` and `_rested_by_player` read (which pieces there
    # are, their owner, alive, exhausted) goes through these methods and `kill`, which mark both
    # stale: a cache that a primitive forgot would go on answering from an older game.

    def deal(self, piece: str, owner: str) -> None:
        """The piece is dealt to the owner, alive, rested, nowhere yet and with no traits (dealt
        again, a piece that had died comes back, and may change hands)."""
        self.pieces[piece] = {"owner": owner, "at": None, "exhausted": False, "alive": True, "traits": {}}
        self._living_key = self._rested_key = -1
        self.journal.pieces += 1

    def set_exhausted(self, piece: str, exhausted: bool) -> None:
        self.pieces[piece]["exhausted"] = exhausted
        self._rested_key = -1
        self.journal.pieces += 1

    def kill(self, victims: list[str]) -> Frame | None:
        """The living ones among the victims die at once; the frame of the triggers their death fires."""
        victims = self.in_turn_order([v for v in victims if self.pieces[v]["alive"]])
        if not victims:
            return None
        self._living_key = self._rested_key = -1
        self.journal.pieces += 1
        if self._loser_memory is not None:
            # of several lost at once, the first in turn order counts as the last loser
            self.state["memory"][self._loser_memory] = [self.owner(victims[0])]
            self.journal.remembered(self._loser_memory)
        for victim in victims:
            ch = self.pieces[victim]
            ch["alive"] = False
            self.note("character_died", character=victim, player=ch["owner"], location=ch["at"])
        self._eliminate()
        return event_frame(self, "characters_died", None, {"victims": victims})

    def _eliminate(self) -> None:
        """Players left with no living piece go out of the game, if the pack keeps who is out."""
        name = self._out_memory
        if name is None:
            return
        memory = self.state["memory"]
        for player in self.state["players"]:
            if player not in memory[name] and not self.living(player):
                memory[name] = [*memory[name], player]
                self.journal.remembered(name)
                self.note("player_eliminated", player=player)

    # --- events and triggers --------------------------------------------------------------

    def _index_triggers(self) -> None:
        """The pack's triggers as this game looks them up: the pack's index, shared (read only)."""
        index = self.rules.trigger_index()
        self.rule_triggers: dict[str, list[Trigger]] = index.rules_by_event
        self._listening: dict[str, list[str]] = index.listening  # event -> characters with a trigger on it
        self._triggers_by_id = index.by_id
        # events some side of a location has a trigger on: for the others no side is looked at
        self._side_events = index.side_events

    def trigger(self, ident: str) -> Trigger:
        """A trigger by the id of its effect's program (the queues of triggers hold ids)."""
        found = self._triggers_by_id.get(ident)
        if found is None:
            raise EngineError("GAME-PROGRAM", f"no trigger `{ident}` in this pack")
        return found

    def trigger_queue(self, event: str, at: str | None, names: dict[str, Any]) -> list[list[Any]]:
        """The triggers an event may fire, in order, as [trigger, names, player] entries."""
        checked = (event, tuple(names))
        if checked not in self._checked_events:  # what it says depends on nothing else
            self.rules.check_names("events", event, names)
            self._checked_events.add(checked)
        rule_triggers = self.rule_triggers.get(event)
        listening = self._listening.get(event)
        if not rule_triggers and not listening and event not in self._side_events:
            return []  # (most events: nothing of the pack listens to them)
        spec = self.rules.declared.events.get(event)
        located = spec is not None and spec.located  # an event no pack declares has no triggers
        queue: list[list[Any]] = []
        for t in rule_triggers or ():  # (loops, not comprehensions: events are many)
            queue.append([t.effect.program.id, dict(names), None])
        for location in self.state["order"] if event in self._side_events else ():
            if located and location != at:
                continue
            for trigger in self.side(location).triggers:
                if trigger.event == event:
                    queue.append([trigger.effect.program.id, {**names, "here": location}, None])
        chars = self.pieces
        living: list[str] = []
        for c in listening or ():
            if c in chars and chars[c]["alive"]:
                living.append(c)
        for character in self.in_turn_order(living) if living else ():
            ch = chars[character]
            if located and ch["at"] != at:
                continue
            for trigger in self.rules.character_triggers[character]:
                if trigger.event == event:
                    env = {**names, "self": character, "here": ch["at"], "me": ch["owner"]}
                    queue.append([trigger.effect.program.id, env, ch["owner"]])
        return queue

    def count_fired(self, trigger: Trigger) -> None:
        """One more trigger fired in this action; past the bound, the cascade stops the game."""
        self.fired.append(f"{trigger.owner} on {trigger.event}")
        if len(self.fired) > CASCADE_LIMIT:
            chain = ", ".join(dict.fromkeys(self.fired))
            raise EngineError(
                "ENGINE-CASCADE",
                f"the trigger of {trigger.owner} on `{trigger.event}` would be trigger number"
                f" {len(self.fired)} of one action (at most {CASCADE_LIMIT});"
                f" the triggers that fired: {chain}",
                trigger.effect.location(),
            )

    def fizzled(self, source: str) -> None:
        """An effect stopped for want of options (a choice among nothing, a cost not payable)."""
        self.note("effect_fizzled", source=source)

    def still_in_force(self, trigger: Trigger) -> bool:
        """A location side's trigger is gone once the board has turned that location over."""
        owner_location, _, owner_side = trigger.owner.partition("/")
        return not owner_side or self.state["locations"][owner_location]["side"] == owner_side

    # --- playing cards and powers -----------------------------------------------------------

    def offers(self, colour: str, windows: str | tuple[str, ...], names: dict[str, Any]) -> list[Action]:
        """What the player could play or use now in these windows (cards, then powers)."""
        if isinstance(windows, str):
            windows = (windows,)
        playable, mine = self.candidates(colour, windows)
        if not (playable or mine):
            return []
        return self._offers(colour, windows, names, playable, mine)

    def _offers(
        self,
        colour: str,
        windows: tuple[str, ...],
        names: dict[str, Any],
        playable: Sequence[str],
        mine: Sequence[str],
    ) -> list[Action]:
        """`offers`, given its `candidates`."""
        found: list[Action] = []
        checked = (windows, tuple(names))  # (`check_window_names`, written out)
        if checked not in self._checked:
            self.check_window_names(windows, names)
        rules = self.rules
        rt = Rt(self, {}, colour, True)  # (`_dry_rt`, written out)
        if playable:
            cards = rules.cards
            env = {**names, "me": colour}
            for kind in playable:
                if self._could(cards[kind], env, colour, rt):
                    found.append(("play", kind))
        if mine:
            powers = rules.powers
            chars = self.pieces
            for character in mine:
                ch = chars[character]
                # (`_can_flip(character, exhaust=True)`, written out)
                if not ch["alive"] or ch["exhausted"] or self.side_locked(character):
                    continue
                env = {**names, "self": character, "here": ch["at"], "me": colour}
                if self._could(powers[character], env, colour, rt):
                    found.append(("power", character))
        return found

    def _dry_rt(self, actor: str) -> Rt:
        """A run for dry runs of this player's cards, powers or activations (`_could` resets it)."""
        return Rt(self, {}, actor, True)

    def check_window_names(self, windows: tuple[str, ...], names: dict[str, Any]) -> None:
        """The names the pack declares for these windows are among those given (`Rules.check_names`;
        what it says depends on nothing else, so each pair is checked once per game)."""
        checked = (windows, tuple(names))
        if checked not in self._checked:
            for window in windows:
                self.rules.check_names("windows", window, names)
            self._checked.add(checked)

    def candidates(self, colour: str, windows: tuple[str, ...]) -> tuple[list[str], list[str]]:
        """The cards in the player's hand that may be played in these windows (sorted), and their
        rested characters whose power may be used in them: what `offers` tries. Both empty (often:
        an empty hand, every such character exhausted), nothing could be offered."""
        rules = self.rules
        kinds, characters = rules.usable_in(windows)
        pile = rules.hand_pile  # (not `role_pile`: offers are asked for again and again)
        hand = self.state["piles"][pile][colour] if pile is not None and kinds else ()
        # (most hands hold nothing these windows take: `isdisjoint` finds it without a new set)
        playable = sorted(kinds.intersection(hand)) if hand and not kinds.isdisjoint(hand) else []
        if not characters:
            return playable, []
        chars = self.pieces
        by_player = self._rested_cache if self._rested_key == len(chars) else self._rested_by_player()
        mine = by_player.get(colour)
        if not mine:
            return playable, []
        rested: list[str] = []
        for c in mine:  # (a loop, not a comprehension: most players have one or two)
            if c in characters:
                rested.append(c)
        return playable, rested

    def window_options(
        self, colour: str, windows: tuple[str, ...], names: dict[str, Any], seated: list[str] | None
    ) -> list[Action]:
        """What a window offers the player, in one pass: a pass, `offers`, then, given the players
        seated (`_seated`), `gifts` (the question as it is put: only a pass, nothing to offer).
        `offers` runs only when `could_try` holds (most players, most of the time, hold nothing
        these windows take: then it would find nothing)."""
        rules = self.rules
        state = self.state
        pile = rules.hand_pile
        # (typed locals: the compiled build then reads them directly)
        hand: list[str] = state["piles"][pile][colour] if pile is not None else _NO_CARDS
        kinds, characters = rules._usable.get(windows) or rules.usable_in(windows)  # (read often)
        found: list[Action] = [PASS]
        # (`candidates`, written out, in loops: most players, most of the time, have none)
        playable: Sequence[str] = ()
        if kinds and hand and not kinds.isdisjoint(hand):
            playable = sorted(kinds.intersection(hand))
        rested: list[str] | None = None
        if characters:
            chars = self.pieces
            by_player = self._rested_cache if self._rested_key == len(chars) else self._rested_by_player()
            own = by_player.get(colour)
            if own is not None:
                for c in own:
                    if c in characters:
                        if rested is None:
                            rested = [c]
                        else:
                            rested.append(c)
        if playable or rested:
            found += self._offers(colour, windows, names, playable, rested or ())
        if seated is None:
            return found
        # `gifts`, written out: the gifts of a card or an item to the others, made once per seating
        if seated is not self._gifts_seated:
            self._gifts_seated, self._gifts = seated, {}
        mine = self._gifts.get(colour)
        if mine is None:
            mine = self._gifts[colour] = ({}, {})
        cards, items = mine
        if hand:
            for card in sorted(set(hand)) if len(hand) > 1 else hand:
                gifts = cards.get(card)
                if gifts is None:
                    gifts = cards[card] = [("give", to, "card", card) for to in seated if to != colour]
                found += gifts
        held: dict[str, int] = state["counts"][colour]
        for item, kind in self._items:
            if held[kind]:
                gifts = items.get(item)
                if gifts is None:
                    gifts = items[item] = [("give", to, item) for to in seated if to != colour]
                found += gifts
        return found

    def passes_unasked(
        self, colour: str, windows: tuple[str, ...], question: str, values: dict[str, Any]
    ) -> bool:
        """Whether `window_passer` says the player passes in these windows, given the cards and
        characters they could use there (`candidates`) and the question they would be asked with
        its values: then a window passes over them without asking, and the game goes on as after
        their pass (no decision of theirs is recorded). A search's worlds set it where its
        players would pass whatever they were offered: the window's options, dry runs and all,
        are not worked out for nothing."""
        passer = self.window_passer
        if passer is None:
            return False
        playable, rested = self.candidates(colour, windows)
        return passer(colour, playable, rested, question, values)

    def could_try(self, colour: str, windows: tuple[str, ...]) -> bool:
        """Whether `candidates` would find anything (without listing it)."""
        rules = self.rules
        kinds, characters = rules._usable.get(windows) or rules.usable_in(windows)  # (read often)
        pile = rules.hand_pile
        if kinds and pile is not None:
            hand: list[str] = self.state["piles"][pile][colour]
            if hand and not kinds.isdisjoint(hand):
                return True
        if characters:
            chars = self.pieces
            by_player = self._rested_cache if self._rested_key == len(chars) else self._rested_by_player()
            mine = by_player.get(colour)
            if mine is not None:
                for c in mine:
                    if c in characters:
                        return True
        return False

    def _could(self, playable: Playable, env: dict[str, Any], actor: str, rt: Rt | None = None) -> bool:
        """Whether its condition holds and some answers to its choices let its cost and effect happen.

        Dry runs change nothing and ask nobody; each choice is explored option by option. The cost
        and the effect are explored each on its own when the effect reads no name the cost binds:
        a dry run changes nothing, so then whether the effect could happen does not depend on the
        answers the cost was given (exploring them together tried every effect path again for
        every cost path). One `Rt` serves the condition and every dry run, each run starting from
        the names given (`rt`: one that served others before, set back here as new).
        """
        cost, effect = playable.cost, playable.effect
        if playable.condition is None and (cost is None or cost.sure) and (effect is None or effect.sure):
            return True  # nothing could stop a dry run of it (`CompiledBlock.sure`, once explored)
        if rt is None:
            rt = self._dry_rt(actor)
        rt.env = env
        rt.loops = MAX_LOOP_STEPS
        rt.paying = False
        rt.source = None
        if playable.condition is not None:
            rt.dry = False  # (as the condition is read in play)
            if not playable.condition(rt):
                return False
            rt.loops = MAX_LOOP_STEPS  # the dry runs share one loop bound, the condition's apart
        rt.dry = True
        if (
            cost is not None
            and effect is not None
            and not cost.binds.isdisjoint(effect.reads)  # (no new set, as `&` would make)
            and effect.dry_program()
        ):
            return self._explore_together(cost, effect, rt, env)  # the effect may read what the cost bound
        # (`_explore`, written out twice: dry runs are many)
        if cost is not None:
            rt.paying = True
            found = _explored(cost, rt, env)
            cost.failed = not found
            if not found:
                return False
        if effect is not None:
            rt.paying = False
            found = _explored(effect, rt, env)
            effect.failed = not found
            return found
        return True

    def _explore_together(
        self, cost: CompiledBlock, effect: CompiledBlock, rt: Rt, env: dict[str, Any]
    ) -> bool:
        """As `_explore`, for a cost and an effect run one after the other in one table of names
        (the effect reads a name the cost may bind: its paths depend on the cost's). An effect
        no dry run of could stop is not explored here (`CompiledBlock.sure`)."""
        dry = effect.dry_program() or effect.program  # (the program itself would do as well)
        path, counts = rt.path, rt.counts
        path.clear()
        counts.clear()
        for _ in range(DRY_RUN_LIMIT):
            names = rt.env = dict(env)
            rt.step = 0
            try:
                rt.paying = True
                run_sync(cost.program, rt, names)
                rt.paying = False
                run_sync(dry, rt, names)  # (after the cost's whole program: it binds names)
                return True
            except NoOptions:
                pass
            if not _next_path(path, counts):
                return False
        return False

    def _can_flip(self, character: str, exhaust: bool) -> bool:
        ch = self.pieces[character]
        return ch["alive"] and ch["exhausted"] != exhaust and not self.side_locked(character)

    def side_locked(self, character: str) -> bool:
        """Whether the piece's side may never change (the trait of role `side_locked`)."""
        locked = self._side_locked
        return locked is not None and bool(self.trait(character, locked))

    def pays_by_exhausting(self, character: str) -> bool:
        """Whether exhausting the piece may pay a price (the trait of role `pays_by_exhausting`)."""
        pays = self._pays_by_exhausting
        return pays is None or bool(self.trait(character, pays))

    def card_played(self, colour: str, kind: str) -> str:
        """A card leaves the hand for the discard pile; its play is pending until no one cancels it."""
        self.role_pile("hand", colour).remove(kind)
        self.role_pile("played").append(kind)
        self.journal.pile(self.rules.roles.get("hand"), self.rules.roles.get("played"))
        self.note("card_played", player=colour, card=kind)
        return self.open_pending({"kind": "card", "player": colour, "card": kind})

    def power_used(
        self, colour: str, character: str, names: dict[str, Any]
    ) -> tuple[Playable, dict[str, Any]]:
        """The character is exhausted for its power: the power and the names it runs with."""
        ch = self.pieces[character]
        self.set_exhausted(character, True)
        self.note("power_used", player=colour, character=character)
        return self.rules.powers[character], {**names, "self": character, "here": ch["at"], "me": colour}

    def open_pending(self, what: dict[str, Any]) -> str:
        """A play or a move others may cancel before any of it happens; effects name it by its id."""
        self._pending_count += 1
        ident = str(self._pending_count)
        self.pending[ident] = {**what, "cancelled": False}
        return ident

    def give(self, colour: str, action: Action) -> None:
        to: str = action[1]
        what: str = action[2]
        if what == "card":
            # (`role_pile`, written out: gifts are many; typed, as the compiled build reads them)
            hands: dict[str, list[str]] = self.state["piles"][self.rules.hand_pile]
            card: str = action[3]
            hands[colour].remove(card)
            hands[to].append(card)
            self.journal.pile(self.rules.hand_pile)
        else:
            counts: dict[str, dict[str, int]] = self.state["counts"]
            kind = self.rules.items[what]
            counts[colour][kind] -= 1
            counts[to][kind] += 1
            self.journal.counts += 1
        # (not `note`: a call with keywords builds more, and gifts are most answers)
        self.note_params("gift", None, {"player": colour, "recipient": to, "item": what})

    def can_give(self, colour: str, seated: list[str] | None = None) -> bool:
        """Whether `gifts` would offer anything (without listing it); `seated`: `_seated()`, if the
        caller has it."""
        if seated is None:
            seated = self._seated()
        if len(seated) - (colour in seated) == 0:  # nobody to give to
            return False
        pile = self.rules.hand_pile
        if pile is not None:
            hand: list[str] = self.state["piles"][pile][colour]
            if hand:
                return True
        held: dict[str, int] = self.state["counts"][colour]
        for _, kind in self._items:  # noqa: SIM110 (a loop, not `any`: asked at every window)
            if held[kind]:
                return True
        return False

    def gifts(self, colour: str) -> list[Action]:
        others = [p for p in self._seated() if p != colour]
        if not others:
            return []
        state = self.state
        pile = self.rules.hand_pile
        hand = state["piles"][pile][colour] if pile is not None else ()
        found: list[Action] = (
            [
                ("give", to, "card", kind)
                for kind in (sorted(set(hand)) if len(hand) > 1 else hand)
                for to in others
            ]
            if hand
            else []
        )
        held = state["counts"][colour]
        for item, kind in self._items:
            if held[kind]:
                found += [("give", to, item) for to in others]
        return found

    # --- the flow -----------------------------------------------------------------------------

    def turn_over(self) -> None:
        """What lasted until the end of the turn ends."""
        self._expire("end_of_turn")
        memory = self.state["memory"]
        for name in self.rules.turn_memory:
            memory[name] = [] if isinstance(self.rules.memory[name].empty, list) else {}
        self.journal.remembered(*self.rules.turn_memory)

    def _expire(self, duration: str) -> None:
        for ch in self.pieces.values():
            if any(v[1] == duration for v in ch["traits"].values()):
                ch["traits"] = {k: v for k, v in ch["traits"].items() if v[1] != duration}
                self.journal.pieces += 1


def _explore(block: CompiledBlock, rt: Rt, env: dict[str, Any]) -> bool:
    """Whether some answers to a block's choices let it run to its end, in dry runs (`rt.dry`).

    A block none of whose dry runs could stop (`CompiledBlock.sure`) needs none; the others run
    `CompiledBlock.check`, the block without what could not stop them (`Compiler.dry_program`,
    compiled when first needed).
    Its precondition, if it has one, decides when it fails: then no path could succeed
    (`Compiler.precondition`) and none is tried. Anything else the precondition raises leaves
    the question to the dry runs. Most blocks that can happen happen on their first path (the
    first option of every choice), so that path runs before the precondition, unless the block
    found no path the last time (`CompiledBlock.failed`). The outcome is the same in either
    order: where the first path raises an error, a precondition that fails still makes the
    block fail.
    """
    found = _explored(block, rt, env)
    block.failed = not found
    return found


def _explored(block: CompiledBlock, rt: Rt, env: dict[str, Any]) -> bool:
    if block.sure:
        return True
    program = block.check
    if program is None:  # (the first time)
        program = block.dry_program()
        if program is None:
            return True
    pre_tried = block.pre is not None and block.failed
    if pre_tried and _pre_fails(block, rt, env):
        return False
    path, counts = rt.path, rt.counts
    path.clear()
    counts.clear()
    rt.step = 0
    direct = program.direct
    try:
        if direct is not None:  # (as `run_sync` runs it)
            rt.env = dict(env)
            direct(rt)
        else:
            run_sync(program, rt, dict(env))
        return True
    except NoOptions:
        if not pre_tried and _pre_fails(block, rt, env):
            return False
    except Exception:
        if not pre_tried and _pre_fails(block, rt, env):
            return False
        raise
    tried = 1
    while tried < DRY_RUN_LIMIT and _next_path(path, counts):
        tried += 1
        rt.step = 0
        try:
            run_sync(program, rt, dict(env))
            return True
        except NoOptions:
            pass
    return False


def _pre_fails(block: CompiledBlock, rt: Rt, env: dict[str, Any]) -> bool:
    """Whether the block's precondition fails (NoOptions): then no path of it could succeed."""
    pre = block.pre
    if pre is None:
        return False
    loops, names = rt.loops, rt.env
    rt.env = dict(env)
    try:
        pre(rt)
    except NoOptions:
        return True
    except Exception:  # not for the precondition to judge: the dry runs will
        pass
    finally:
        rt.loops, rt.env = loops, names
    return False


def _next_path(path: list[int], counts: list[int]) -> bool:
    """The next path of answers to try, depth first: the deepest choice with an untried option
    takes its next one. False once every path has been tried."""
    while path and path[-1] + 1 >= counts[-1]:
        path.pop()
        counts.pop()
    if not path:
        return False
    path[-1] += 1
    del counts[len(path) :]
    return True


def _json_copy(data: Any) -> Any:
    """A deep copy of data as JSON would give it back: tuples become lists."""
    kind = type(data)
    if kind is dict:
        return {key: _json_copy(value) for key, value in data.items()}
    if kind is list or kind is tuple:
        return [_json_copy(value) for value in data]
    return data


def _answers_json(answers: dict[str, Any]) -> dict[str, Any]:
    """A decision's answers as JSON (an entry of `history`)."""
    return {colour: _json_copy(action) for colour, action in answers.items()}


class _Dumped:
    """The entries of a list that only ever grows (the log, its places), dumped (`marshal`) a
    block of SAVE_BLOCK at a time once the block is full, and written as JSON text once asked:
    each save loads them again, fresh, or joins their text, without dumping them again."""

    __slots__ = ("dumps", "entries", "sorted_texts", "texts")

    def __init__(self) -> None:
        self.entries: list[Any] | None = None  # the list dumped (another one: start again)
        self.dumps: list[bytes] = []
        self.texts: list[str] = []  # the text of the first blocks dumped
        self.sorted_texts: list[str] = []  # likewise, keys sorted (`Game.digest`)

    def _full(self, entries: list[Any]) -> int:
        """The full blocks dumped; how many entries they hold."""
        dumps = self.dumps
        done = len(dumps) * SAVE_BLOCK
        if self.entries is not entries or len(entries) < done:  # (a list replaced: a world's log)
            self.entries, self.dumps, self.texts, self.sorted_texts = entries, [], [], []
            dumps, done = self.dumps, 0
        while done + SAVE_BLOCK <= len(entries):
            dumps.append(marshal.dumps(entries[done : done + SAVE_BLOCK]))
            done += SAVE_BLOCK
        return done

    def blocks(self, entries: list[Any]) -> tuple[list[Any], list[Any]]:
        """A fresh copy of the entries of the full blocks, and the others (not copies)."""
        done = self._full(entries)
        copied: list[Any] = []
        for dumped in self.dumps:
            copied += marshal.loads(dumped)
        return copied, entries[done:]

    def text(self, entries: list[Any], sort_keys: bool = False) -> str:
        """The entries as JSON text (`_text`)."""
        done = self._full(entries)
        texts = self.sorted_texts if sort_keys else self.texts
        for start in range(len(texts) * SAVE_BLOCK, done, SAVE_BLOCK):
            texts.append(_text(entries[start : start + SAVE_BLOCK], sort_keys)[1:-1])
        return _joined(texts, entries[done:], sort_keys)


class _Saver:
    """What `Game.to_json` and `Game.to_json_text` keep from one save of a game to the next."""

    __slots__ = (
        "answers_of",
        "answers_texts",
        "decision_of",
        "initial",
        "initial_of",
        "log",
        "options",
        "places",
    )

    def __init__(self) -> None:
        self.log = _Dumped()
        self.places = _Dumped()
        self.decision_of: Decision | None = None  # the decision whose options are dumped, and the dump
        self.options = b""
        self.answers_of: list[bytes] = []  # the blocks of answers written as text, and their text
        self.answers_texts: list[str] = []
        self.initial_of: bytes | None = None  # the starting state written as text, and its text
        self.initial = ""

    def decision_json(self, decision: Decision) -> dict[str, Any]:
        """The decision as JSON (its options, which may be many, dumped once)."""
        if self.decision_of is not decision:
            self.decision_of, self.options = decision, marshal.dumps(_json_copy(decision.options))
        return {
            "kind": decision.kind,
            "options": marshal.loads(self.options),
            "prompt": _json_copy(decision.prompt),
            "answers": _answers_json(decision.answers),
        }

    def answers_text(self, dumps: list[bytes], answered: list[dict[str, Any]]) -> str:
        """The answered decisions as JSON text: those dumped (`Game._dump_answered`) written once."""
        of, texts = self.answers_of, self.answers_texts
        kept = 0
        while kept < len(of) and kept < len(dumps) and of[kept] is dumps[kept]:
            kept += 1
        del texts[kept:]  # (the blocks that are no longer the game's: a world's answers, say)
        texts += [_text(marshal.loads(dumped))[1:-1] for dumped in dumps[kept:]]
        self.answers_of = dumps
        return _joined(texts, answered)

    def initial_text(self, dumped: bytes) -> str:
        if self.initial_of is not dumped:
            self.initial_of, self.initial = dumped, _text(marshal.loads(dumped))
        return self.initial


def _text(data: Any, sort_keys: bool = False) -> str:
    """JSON text, as the saves write it (tuples as lists)."""
    return json.dumps(data, separators=(",", ":"), sort_keys=sort_keys)


def _joined(texts: list[str], entries: list[Any], sort_keys: bool = False) -> str:
    """A list's JSON text, from the text of its first entries (without brackets) and the others."""
    if entries:
        return "[" + ",".join([*texts, _text(entries, sort_keys)[1:-1]]) + "]"
    return "[" + ",".join(texts) + "]"


def _copied(data: Any) -> Any:
    """A deep copy of plain data (pickle is the fastest deep copy Python has for it)."""
    return pickle.loads(pickle.dumps(data, pickle.HIGHEST_PROTOCOL))

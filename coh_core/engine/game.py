"""A game in play: plain-data state, the flow read from the pack, decisions and answers.

The game runs on the machine of `machine.py`: effects are programs whose frames say where
each one stands; the flow and the procedures still written in Python (`_program` and
`procedures.py`) run on it as native frames that yield a `Decision` whenever a player must
answer and call programs by yielding a `Call`. A save is still the starting state plus the
answers given, and loading replays them, until the flow and the procedures are programs too
(docs/design/rules-as-data.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from coh_core.engine.machine import NativeFrame, execute, run_sync
from coh_core.engine.rng import Rng
from coh_core.engine.rules import Playable, Rules, Step, Trigger
from coh_core.engine.runtime import Action, Decision, EngineError, IllegalAction, NoOptions, Rt, Steps
from coh_core.engine.views import PlayerView
from coh_core.limits import CASCADE_LIMIT, MAX_LOOP_STEPS, MAX_OPTIONS, MAX_WINDOW_ACTIONS

PASS: Action = ("pass",)
DRY_RUN_LIMIT = 256  # answers tried when checking whether a card or power could do anything


def as_action(value: Any) -> Action:
    """An answer as the engine compares it: lists (from JSON) become tuples."""
    if isinstance(value, list | tuple):
        return tuple(as_action(v) if isinstance(v, list) else v for v in value)
    raise IllegalAction("ACTION-SHAPE", f'an action is a list such as ["pass"], got {value!r}')


class Game:
    """One game. `decision` says who must answer; `submit` answers; `over` ends it."""

    def __init__(self, rules: Rules, state: dict[str, Any], start: dict[str, Any] | None = None):
        self.rules = rules
        self.state = state
        self.start = start
        self.rng = Rng.from_state(int(state["rng"]))
        self.log: list[dict[str, Any]] = []
        self.history: list[dict[str, Any]] = []  # answered decisions, in order
        self.initial = json.loads(json.dumps(state))
        self.after: list[tuple[Trigger, dict[str, Any]]] = []
        self.fired: list[str] = []
        self.depth = 0
        self.decision: Decision | None = None
        self._living_cache: dict[str, list[str]] = {}
        self._living_key = -1  # number of characters the cache was built from; -1: stale
        self._order: list[str] = []
        self._seats: list[str] = []  # every player, from the first player clockwise
        self._rank: dict[str, int] = {}
        self._order_key: tuple[str, int] | None = None  # (first player, eliminated count) of _order
        self._index_triggers()
        self.frames: list[Any] = [NativeFrame(self._program(start))]  # the machine's: see machine.py
        self._resume(None)

    # --- the public decision API ---------------------------------------------------

    @property
    def over(self) -> bool:
        return self.decision is None

    @property
    def players(self) -> list[str]:
        return list(self.state["players"])

    def submit(self, colour: str, action: Any) -> None:
        """Answer for one player; raises IllegalAction (state unchanged) for anything not offered."""
        decision = self.decision
        if decision is None:
            raise IllegalAction("ACTION-GAME-OVER", "the game is over; nothing is waiting for an answer")
        if colour not in decision.options:
            raise IllegalAction("ACTION-NOT-ASKED", f"{colour} is not asked anything now")
        if colour in decision.answers:
            raise IllegalAction("ACTION-ANSWERED", f"{colour} has already answered this decision")
        chosen = action if type(action) is tuple else as_action(action)
        if chosen not in decision.options[colour]:
            raise IllegalAction(
                "ACTION-ILLEGAL",
                f"{list(chosen)} is not one of the {len(decision.options[colour])} legal actions"
                f" for {colour}",
            )
        decision.answers[colour] = chosen
        if not decision.waiting:
            self.history.append({c: list(a) for c, a in decision.answers.items()})
            self._resume(decision.answers)

    def view(self, colour: str) -> PlayerView:
        return PlayerView(self, colour)

    def digest(self) -> str:
        """A hash of the full state and log: equal digests mean identical games."""
        self.state["rng"] = self.rng.state
        blob = json.dumps([self.state, self.log], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def _resume(self, answers: dict[str, Action] | None) -> None:
        """Hand the answers to whatever asked, and run until the next question or the end."""
        frames = self.frames
        if answers is not None:
            top = frames[-1]
            if top.native:
                top.send = answers
            else:
                top.program.ops[top.pc - 1].resume(top, answers)
        self.decision = execute(frames)

    # --- asking ---------------------------------------------------------------------

    def ask(self, colour: str, kind: str, options: list[Action], **prompt: Any) -> Steps:
        """One player's answer; a lone option is taken without asking."""
        if not options:
            raise NoOptions(kind)
        _bounded(options)
        if len(options) == 1:
            return options[0]
        answers = yield Decision(kind, {colour: options}, prompt)
        return answers[colour]

    def ask_all(self, kind: str, options: dict[str, list[Action]], **prompt: Any) -> Steps:
        """Several players answer at once, unseen by each other (movement cards, votes)."""
        for acts in options.values():
            _bounded(acts)
        chosen = {c: acts[0] for c, acts in options.items() if len(acts) == 1}
        open_ = {c: acts for c, acts in options.items() if len(acts) > 1}
        if open_:
            answers = yield Decision(kind, open_, prompt)
            chosen.update(answers)
        return chosen

    # --- log -------------------------------------------------------------------------

    def note(self, key: str, to: list[str] | None = None, **params: Any) -> None:
        """Add a narrative entry (message key + parameters); `to` limits who may see it."""
        entry: dict[str, Any] = {"key": key, "turn": self.state["turn"], "params": params}
        if to is not None:
            entry["to"] = to
        self.log.append(entry)

    # --- reading the state --------------------------------------------------------------

    def turn_order(self) -> list[str]:
        """Players still in the game, from the first player clockwise."""
        return list(self._seated())

    def _seated(self) -> list[str]:
        """`turn_order` itself, to read and not to change; refreshes the seat ranks too."""
        state = self.state
        key = (state["first"], len(state["eliminated"]))
        if self._order_key != key:
            out = state["eliminated"]
            seats = self._seats = self.seat_order(key[0])
            self._order = [p for p in seats if p not in out]
            self._rank = {p: i for i, p in enumerate(seats)}
            self._order_key = key
        return self._order

    def seat_order(self, first: str) -> list[str]:
        players: list[str] = self.state["players"]
        start = players.index(first)
        return players[start:] + players[:start]

    def living(self, colour: str | None = None) -> list[str]:
        if colour is not None:
            return list(self._living_by_player().get(colour, ()))
        chars = self.state["characters"]
        return self.in_turn_order([c for c, ch in chars.items() if ch["alive"]])

    def _living_by_player(self) -> dict[str, list[str]]:
        """Living characters per player, kept until a death or a new character changes it."""
        chars = self.state["characters"]
        key = len(chars)
        if self._living_key != key:
            found: dict[str, list[str]] = {}
            for character, ch in chars.items():
                if ch["alive"]:
                    found.setdefault(ch["owner"], []).append(character)
            self._living_cache, self._living_key = found, key
        return self._living_cache

    def in_turn_order(self, ids: list[str]) -> list[str]:
        self._seated()  # refreshes the seat ranks when the first player has changed
        rank = self._rank
        chars = self.state["characters"]
        return sorted(ids, key=lambda c: rank[chars[c]["owner"]])

    def at(self, location: str) -> list[str]:
        """The living characters at a location, in turn order (as `in_turn_order` sorts them)."""
        chars = self.state["characters"]
        living = self._living_by_player()
        self._seated()  # refreshes the seats when the first player has changed
        return [c for player in self._seats for c in living.get(player, ()) if chars[c]["at"] == location]

    def owner(self, character: str) -> str:
        return str(self.state["characters"][character]["owner"])

    def in_play(self, kind: str, ident: str) -> bool:
        """Whether a piece a pack names by `@id` is in this game: a character dealt, a colour seated."""
        if kind == "character":
            return ident in self.state["characters"]
        if kind == "colour":
            return ident in self.state["wheel"]
        return True

    def has_items(self, location: str) -> bool:
        place = self.state["locations"][location]
        return bool(place["antidotes"] or place["cards"])

    def trait(self, character: str, name: str) -> Any:
        own = self.state["characters"][character]["traits"].get(name)
        return own[0] if own is not None else self.rules.trait_default(character, name)

    def side(self, location: str) -> Any:
        return self.rules.side(location, self.state["locations"][location]["side"])

    def selectable(self, character: str) -> bool:
        ch = self.state["characters"][character]
        return bool(ch["alive"]) and not self.trait(character, "hidden")

    def has_room(self, character: str, location: str) -> bool:
        side = self.side(location)
        if side.closed:
            return False
        if side.capacity is None or self.trait(character, "ignores_capacity"):
            return True
        # an extra place belongs to its holder: only characters in ordinary places fill the capacity
        ordinary = [c for c in self.at(location) if not self.trait(c, "ignores_capacity")]
        return len(ordinary) < int(side.capacity)

    def next_with_characters(self, colour: str) -> str | None:
        """The player itself, or the next clockwise, who still has a living character."""
        for player in self.seat_order(colour):
            if self.living(player):
                return player
        return None

    # --- changing the state ----------------------------------------------------------------

    def leave(self, character: str, kept: dict[str, Any] | None = None) -> None:
        """The character leaves its location: what lasted while it stayed there ends.

        `kept` are traits given as it moves (before it arrives): they belong to the new place.
        """
        ch = self.state["characters"][character]
        ch["traits"] = {
            k: v for k, v in ch["traits"].items() if v[1] != "leaves_location" or (kept and kept.get(k) is v)
        }

    def place(self, character: str, location: str) -> None:
        self.state["characters"][character]["at"] = location

    def relocate(self, character: str, location: str) -> None:
        if self.state["characters"][character]["at"] != location:
            self.leave(character)
        self.place(character, location)

    def kill(self, victims: list[str]) -> Steps:
        victims = self.in_turn_order([v for v in victims if self.state["characters"][v]["alive"]])
        if not victims:
            return
        self._living_key = -1
        # of several lost at once, the first in turn order counts as the last loser
        self.state["last_loser"] = [self.state["turn"], self.owner(victims[0])]
        for victim in victims:
            ch = self.state["characters"][victim]
            ch["alive"] = False
            self.note("character_died", character=victim, player=ch["owner"], location=ch["at"])
        self._eliminate()
        yield from self.emit("characters_died", None, victims=victims)

    def _eliminate(self) -> None:
        for player in self.state["players"]:
            if player not in self.state["eliminated"] and not self.living(player):
                self.state["eliminated"].append(player)
                self.note("player_eliminated", player=player)

    # --- events and triggers --------------------------------------------------------------

    def _index_triggers(self) -> None:
        self.rule_triggers: dict[str, list[Trigger]] = {}
        for trigger in self.rules.rule_triggers:
            self.rule_triggers.setdefault(trigger.event, []).append(trigger)
        self._listening: dict[str, list[str]] = {}  # event -> characters with a trigger on it
        for character, triggers in self.rules.character_triggers.items():
            for event in dict.fromkeys(t.event for t in triggers):
                self._listening.setdefault(event, []).append(character)
        # events some side of a location has a trigger on: for the others no side is looked at
        self._side_events = {t.event for side in self.rules.sides.values() for t in side.triggers}

    def _triggers(self, event: str, at: str | None, names: dict[str, Any]) -> Iterator[tuple[Trigger, Rt]]:
        spec = self.rules.declared.events.get(event)
        located = spec is not None and spec.located  # an event no pack declares has no triggers
        for trigger in self.rule_triggers.get(event, ()):
            yield trigger, Rt(self, dict(names), None)
        for location in self.state["order"] if event in self._side_events else ():
            if located and location != at:
                continue
            for trigger in self.side(location).triggers:
                if trigger.event == event:
                    yield trigger, Rt(self, {**names, "here": location}, None)
        chars = self.state["characters"]
        listening = [c for c in self._listening.get(event, ()) if c in chars and chars[c]["alive"]]
        for character in self.in_turn_order(listening):
            ch = chars[character]
            if located and ch["at"] != at:
                continue
            for trigger in self.rules.character_triggers[character]:
                if trigger.event == event:
                    env = {**names, "self": character, "here": ch["at"], "me": ch["owner"]}
                    yield trigger, Rt(self, env, ch["owner"])

    def emit(self, event: str, at: str | None = None, **names: Any) -> Steps:
        """Announce an event: matching triggers run now, or once the current action ends."""
        self.rules.check_names("events", event, names)
        for trigger, rt in list(self._triggers(event, at, names)):
            if trigger.condition is not None and not trigger.condition(rt):
                continue
            if trigger.after_action:
                self.after.append((trigger, rt.env))
            else:
                yield from self._fire(trigger, rt)

    def _fire(self, trigger: Trigger, rt: Rt) -> Steps:
        rt.source = trigger.owner
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
        try:
            yield from trigger.effect.run(rt)
        except NoOptions:
            self.note("effect_fizzled", source=trigger.owner)

    def end_action(self) -> Steps:
        """The current action is over: run the triggers that waited for it (explosions)."""
        if self.depth:
            return
        while self.after:
            trigger, env = self.after.pop(0)
            owner_location, _, owner_side = trigger.owner.partition("/")
            if owner_side and self.state["locations"][owner_location]["side"] != owner_side:
                continue  # the board has turned over since: that side's rule is gone
            rt = Rt(self, env, None)
            if trigger.condition is None or trigger.condition(rt):
                yield from self._fire(trigger, rt)
        self.fired.clear()

    # --- playing cards and powers -----------------------------------------------------------

    def offers(self, colour: str, windows: str | tuple[str, ...], names: dict[str, Any]) -> list[Action]:
        """What the player could play or use now in these windows (cards, then powers)."""
        if type(windows) is str:
            windows = (windows,)
        cards, powers = self.rules.cards, self.rules.powers
        hand = self.state["hands"][colour]
        living = self._living_by_player().get(colour)
        # (an empty hand, no living character: often; no comprehension runs for them)
        playable = [kind for kind in hand if cards[kind].window in windows] if hand else []
        mine = [c for c in living if c in powers and powers[c].window in windows] if living else []
        found: list[Action] = []
        if not (playable or mine):
            return found
        for window in windows:
            self.rules.check_names("windows", window, names)
        if playable:
            env = {**names, "me": colour}
            for kind in sorted(set(playable)):
                if self._could(cards[kind], env, colour):
                    found.append(("play", kind))
        chars = self.state["characters"]
        for character in mine:
            ch = chars[character]
            if ch["exhausted"] or not self._can_flip(character, exhaust=True):  # most are exhausted
                continue
            env = {**names, "self": character, "here": ch["at"], "me": colour}
            if self._could(powers[character], env, colour):
                found.append(("power", character))
        return found

    def _could(self, playable: Playable, env: dict[str, Any], actor: str) -> bool:
        """Whether its condition holds and some answers to its choices let its cost and effect happen.

        Dry runs change nothing and ask nobody; each choice is explored option by option. One
        `Rt` serves the condition and every dry run, each run starting from the names given.
        """
        rt = Rt(self, env, actor)
        if playable.condition is not None:
            if not playable.condition(rt):
                return False
            rt.loops = MAX_LOOP_STEPS  # the dry runs share one loop bound, the condition's apart
        rt.dry = True
        path, counts = rt.path, rt.counts
        for _ in range(DRY_RUN_LIMIT):
            rt.env = dict(env)
            rt.step = 0
            try:
                self._dry_run(playable, rt)
                return True
            except NoOptions:
                pass
            # depth first: the deepest choice with an untried option takes its next one
            while path and path[-1] + 1 >= counts[-1]:
                path.pop()
                counts.pop()
            if not path:
                return False
            path[-1] += 1
            del counts[len(path) :]
        return False

    def _dry_run(self, playable: Playable, rt: Rt) -> None:
        env = rt.env
        if playable.cost is not None:
            rt.paying = True
            run_sync(playable.cost.program, rt, env)
        if playable.effect is not None:
            rt.paying = False
            run_sync(playable.effect.program, rt, env)

    def _can_flip(self, character: str, exhaust: bool) -> bool:
        ch = self.state["characters"][character]
        return ch["alive"] and ch["exhausted"] != exhaust and not self.trait(character, "flip_locked")

    def perform(self, colour: str, action: Action, names: dict[str, Any]) -> Steps:
        """Carry out a play, a power or a gift chosen in a window."""
        if action[0] == "play":
            yield from self.play_card(colour, action[1], names)
        elif action[0] == "power":
            yield from self.use_power(colour, action[1], names)
        elif action[0] == "give":
            self.give(colour, action)
        yield from self.end_action()

    def play_card(self, colour: str, kind: str, names: dict[str, Any]) -> Steps:
        self.state["hands"][colour].remove(kind)
        self.state["discard"].append(kind)
        self.note("card_played", player=colour, card=kind)
        pending = {"kind": "card", "player": colour, "card": kind, "cancelled": False}
        yield from self.cancel_window("cancel_card", pending)
        if pending["cancelled"]:
            self.note("card_cancelled", player=colour, card=kind)
            return
        yield from self._run(self.rules.cards[kind], Rt(self, {**names, "me": colour}, colour))
        yield from self.emit("card_played", None, player=colour)

    def use_power(self, colour: str, character: str, names: dict[str, Any]) -> Steps:
        ch = self.state["characters"][character]
        ch["exhausted"] = True
        self.note("power_used", player=colour, character=character)
        env = {**names, "self": character, "here": ch["at"], "me": colour}
        yield from self._run(self.rules.powers[character], Rt(self, env, colour))

    def _run(self, playable: Playable, rt: Rt) -> Steps:
        rt.source = playable.owner
        self.depth += 1
        try:
            if playable.cost is not None:
                rt.paying = True
                yield from playable.cost.run(rt)
                rt.paying = False
            if playable.effect is not None:
                yield from playable.effect.run(rt)
        except NoOptions:
            self.note("effect_fizzled", source=playable.owner)
        finally:
            self.depth -= 1

    def give(self, colour: str, action: Action) -> None:
        _, to, what, *rest = action
        if what == "card":
            self.state["hands"][colour].remove(rest[0])
            self.state["hands"][to].append(rest[0])
        else:
            self.state["antidotes"][colour] -= 1
            self.state["antidotes"][to] += 1
        self.note("gift", player=colour, recipient=to, item=what)

    def gifts(self, colour: str) -> list[Action]:
        others = [p for p in self._seated() if p != colour]
        hand = self.state["hands"][colour]
        found: list[Action] = (
            [("give", to, "card", kind) for kind in sorted(set(hand)) for to in others] if hand else []
        )
        if self.state["antidotes"][colour]:
            found += [("give", to, "antidote") for to in others]
        return found

    def cancel_window(self, window: str, pending: dict[str, Any]) -> Steps:
        """Each other player in turn may cancel the pending play or move before any of it happens."""
        names = {"pending": pending}
        for colour in self.turn_order():
            if colour == pending["player"] or pending["cancelled"]:
                continue
            options = self.offers(colour, window, names)
            if not options:
                continue
            prompt = {k: v for k, v in pending.items() if k not in ("kind", "cancelled")}
            answer = yield from self.ask(colour, window, [PASS, *options], **prompt)
            if answer != PASS:
                yield from self.perform_nested(colour, answer, names)

    def perform_nested(self, colour: str, action: Action, names: dict[str, Any]) -> Steps:
        self.depth += 1
        try:
            if action[0] == "play":
                yield from self.play_card(colour, action[1], names)
            else:
                yield from self.use_power(colour, action[1], names)
        finally:
            self.depth -= 1

    def window_loop(self, colour: str, windows: tuple[str, ...], names: dict[str, Any]) -> Steps:
        """The player may use cards and powers of these windows, one at a time, until they pass."""
        for _ in range(MAX_WINDOW_ACTIONS + 1):
            options = self.offers(colour, windows, names)
            if not options:
                return
            answer = yield from self.ask(colour, windows[0], [PASS, *options], **_public(names))
            if answer == PASS:
                return
            yield from self.perform(colour, answer, names)
        raise window_runaway(windows[0], answer)

    # --- the flow -----------------------------------------------------------------------------

    def _program(self, start: dict[str, Any] | None) -> Steps:
        state = self.state
        if start is None:
            state["phase"] = "setup"
            for step in self.rules.setup_steps:
                yield from self._step(step, None)
            yield from self.emit("setup_end")
            yield from self.end_action()
        if start is None or start.get("phase") != "end":
            first_turn = int(start["turn"]) if start else 1
            for turn in range(first_turn, self.rules.turns + 1):
                yield from self._turn(turn, start if turn == first_turn else None)
        state["phase"] = "end"
        for step in self.rules.end_steps:
            yield from self._step(step, None)
        self.note("game_over")

    def _turn(self, turn: int, start: dict[str, Any] | None) -> Steps:
        state = self.state
        skipping = start is not None and start.get("phase") is not None
        if not skipping:
            state["turn"] = turn
            self.note("turn_start", turn=turn)
            yield from self.emit("turn_start", turn=turn)
            yield from self.end_action()
        for phase in self.rules.phases:
            if skipping and start is not None and phase.id != start["phase"]:
                continue
            state["phase"] = phase.id
            locations = state["order"] if phase.per_location else [None]
            for location in locations:
                if skipping and start is not None and start.get("at") and location != start["at"]:
                    continue
                for step in phase.steps:
                    if skipping and start is not None and start.get("step") and step.id != start["step"]:
                        continue
                    skipping = False
                    yield from self._step(step, location)
        yield from self.emit("turn_end")
        yield from self.end_action()
        self._expire("end_of_turn")
        state["vote_bonus"] = [b for b in state["vote_bonus"] if b[3] != "end_of_turn"]
        state["vote_proxies"] = []

    def _step(self, step: Step, location: str | None) -> Steps:
        self.state["step"] = step.id
        self.state["at"] = location
        rt = Rt(self, {"here": location} if location else {}, None)
        try:
            yield from step.run.run(rt)
        except NoOptions:  # as a card's effect does, a step that chose from nothing stops there
            self.note("effect_fizzled", source=step.id)
        yield from self.end_action()

    def _expire(self, duration: str) -> None:
        for ch in self.state["characters"].values():
            if any(v[1] == duration for v in ch["traits"].values()):
                ch["traits"] = {k: v for k, v in ch["traits"].items() if v[1] != duration}


def _bounded(options: list[Action]) -> None:
    """No decision offers more than MAX_OPTIONS answers."""
    if len(options) > MAX_OPTIONS:
        raise EngineError(
            "ENGINE-LIMIT",
            f"a decision with {len(options):,} answers; a decision offers at most {MAX_OPTIONS:,}",
        )


def window_runaway(window: str, last: Action) -> EngineError:
    """A window that did not close: someone could act again and again."""
    return EngineError(
        "ENGINE-LIMIT",
        f"more than {MAX_WINDOW_ACTIONS:,} plays, powers and gifts in one `{window}` window"
        f" (the last: {' '.join(map(str, last))}): something can be used again and again",
    )


def _public(names: dict[str, Any]) -> dict[str, Any]:
    """Prompt parameters: plain values only."""
    return {k: v for k, v in names.items() if isinstance(v, str | int | bool | dict)}

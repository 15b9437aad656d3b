"""The engine's own programs: the flow of a game built from the pack's `turn`, the cascade of
triggers an event starts, the triggers that wait for the end of an action, and the run of a
card's or power's cost and effect.

They are instruction lists like any effect's, so the place of a game in its flow is frames
of data (`machine.py`): a game started at a step of a scenario is a flow frame whose
position and loops are set to that step, and a game saved between steps is the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from coh_core.effects.ast import Span
from coh_core.engine.compile.ops import _ForNext, _ForStart, _Jump
from coh_core.engine.compile.trees import walk_calls
from coh_core.engine.compile.where import _Where
from coh_core.engine.machine import SWITCH, Frame, Op, Program, finish_frame, run_sync
from coh_core.engine.runtime import Decision, EngineError, NoOptions, Rt
from coh_core.limits import MAX_WINDOW_ACTIONS
from coh_core.packs.model import RESULT_SECTION

if TYPE_CHECKING:
    from coh_core.engine.game import Game
    from coh_core.engine.rules import Playable, Rules, Step, Trigger

SETUP = "setup"  # the phase of the setup steps
END = "end"  # the phase of the steps that end the game
CASCADE_ID = "engine:cascade"
AFTER_ID = "engine:after"
RUN_ID = "engine:run"
FLOW_ID = "engine:flow"
WINDOW_ID = "engine:window"
PERFORM_ID = "engine:perform"


class _Done(Op):
    __slots__ = ()

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        return finish_frame(frames, None)


def _program(ident: str, ops: list[Op]) -> Program:
    program = Program(ident, ident)
    program.ops = ops
    program.asks = True
    return program


# --- triggers ------------------------------------------------------------------------------


def fire(game: Game, frames: list[Any], caller: Frame, trigger: Trigger, rt: Rt) -> bool:
    """Run a trigger's effect; True when it runs in a frame of its own (the caller then waits).

    Its caller goes on at its current pc either way: after the effect, or after it fizzled.
    """
    rt.source = trigger.owner
    game.count_fired(trigger)
    program = trigger.effect.program
    if not program.asks:
        try:
            run_sync(program, rt, rt.env)
        except NoOptions:
            game.fizzled(trigger.owner)
        return False
    frames.append(Frame(program, rt, rt.env, None, [trigger.owner, caller.pc]))
    return True


class _FireNext(Op):
    """The next trigger of an event whose condition holds: now, or queued for the action's end.

    The frame's `queue` holds [trigger, names, player] entries, in the order they run.
    """

    __slots__ = ()
    asks = True

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        game = rt.game
        queue = frame.env["queue"]
        while queue:
            ident, names, actor = queue.pop(0)
            trigger = game.trigger(ident)
            run = Rt(game, names, actor)
            if trigger.condition is not None and not trigger.condition(run):
                continue
            if trigger.after_action:
                game.after.append([ident, names])
                continue
            frame.pc -= 1  # this instruction again, for the next trigger, once this one is done
            if fire(game, frames, frame, trigger, run):
                return SWITCH
            frame.pc += 1
        return finish_frame(frames, None)


class _EndAction(Op):
    """The current action is over: the triggers that waited for it run (`after_action` ones)."""

    __slots__ = ()
    asks = True

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        game = rt.game
        if game.depth:
            return None
        while game.after:
            ident, names = game.after.pop(0)
            trigger = game.trigger(ident)
            if not game.still_in_force(trigger):
                continue
            run = Rt(game, names, None)
            if trigger.condition is not None and not trigger.condition(run):
                continue
            frame.pc -= 1
            if fire(game, frames, frame, trigger, run):
                return SWITCH
            frame.pc += 1
        game.fired.clear()
        return None


CASCADE = _program(CASCADE_ID, [_FireNext()])
AFTER = _program(AFTER_ID, [_EndAction(), _Done()])


def event_frame(game: Game, event: str, at: str | None, names: dict[str, Any]) -> Frame | None:
    """The frame that runs the triggers of an event, or None when none may fire."""
    queue = game.trigger_queue(event, at, names)
    if not queue:
        return None
    env = {"queue": queue}
    return Frame(CASCADE, Rt(game, env, None), env, None)


def action_end_frame(game: Game) -> Frame | None:
    """The frame that runs the triggers waiting for the end of the action, or None."""
    if game.depth:
        return None
    if not game.after:
        game.fired.clear()
        return None
    env: dict[str, Any] = {}
    return Frame(AFTER, Rt(game, env, None), env, None)


class _Emit(Op):
    """Announce an event of the flow (the names it binds come from the flow's frame)."""

    __slots__ = ("event", "names")
    asks = True

    def __init__(self, event: str, names: Callable[[dict[str, Any]], dict[str, Any]]):
        self.event = event
        self.names = names

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        return _push(frames, event_frame(rt.game, self.event, None, self.names(frame.env)))


def _push(frames: list[Any], found: Frame | None) -> Any:
    """Run a frame of the engine's next, if there is one to run."""
    if found is None:
        return None
    frames.append(found)
    return SWITCH


# --- a card's or a power's run -------------------------------------------------------------


class _Depth(Op):
    """Into (+1) or out of (-1) an action: triggers waiting for its end wait while inside."""

    __slots__ = ("change",)

    def __init__(self, change: int):
        self.change = change

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        rt.game.depth += self.change


class _Block(Op):
    """Run the cost or the effect named in the frame; if it fizzles, go on at `skip`."""

    __slots__ = ("key", "paying", "skip")
    asks = True

    def __init__(self, key: str, paying: bool, skip: int):
        self.key = key
        self.paying = paying
        self.skip = skip

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        ident = frame.env[self.key]
        if ident is None:
            return None
        program = rt.game.rules.programs[ident]
        names = frame.env["names"]
        rt.paying = self.paying
        if not program.asks:
            try:
                run_sync(program, rt, names)
            except NoOptions:
                rt.game.fizzled(str(rt.source))
                frame.pc = self.skip
            return None
        frames.append(Frame(program, rt, names, None, [rt.source, self.skip]))
        return SWITCH


RUN = _program(RUN_ID, [_Depth(1), _Block("cost", True, 3), _Block("effect", False, 3), _Depth(-1), _Done()])


# --- windows: players use cards, powers and gifts -------------------------------------------------


class _WindowAsk(Op):
    """The next player of the window who could act is asked what to do (or the window closes).

    The frame holds the window: `mode` (`one`: one player until they pass; `round`: every
    player in turn order until all pass in a row; `others`: each player but the one whose play
    or move is pending, once, until it is cancelled), the window names, and where it stands.
    """

    __slots__ = ()
    asks = True

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        game, env = rt.game, frame.env
        mode: str = env["mode"]  # (typed locals: the compiled build then works on them directly)
        if mode != "round":
            found = _next_in_window(game, env)
            if found is None:
                if mode == "others":  # it ends with whether the play or move was cancelled
                    return finish_frame(frames, game.pending.pop(env["names"]["pending"])["cancelled"])
                return finish_frame(frames, None)
            player, options, prompt = found
            env["asking"] = player
            return Decision(env["question"], {player: options}, prompt)
        # round (most windows): asking changes nothing (dry runs), so the players stay the same
        # while nobody acts
        windows, names = tuple(env["windows"]), env["names"]
        # only a pass or a gift since the last ask, and `_order` worked out in this game (not one
        # loaded after that ask): the seats are as `_seated` last left them
        kept = game._seats_kept and game._order_first is not None
        players = game._order if kept else game._seated()  # (read, not changed)
        game._seats_kept = False
        count = len(players)
        given: dict[str, int] = env["given"]
        gifts: int = env["gifts"]
        index: int = env["index"]  # (kept in locals while players are passed over)
        passes: int = env["passes"]
        # A player with no card these windows take, no rested character whose power they take and,
        # with a gift left, no card and no item to give could be offered nothing but a pass
        # (`window_options`' answer): passed over without the call (most passed over are).
        state = game.state
        pile = game.rules.hand_pile
        hands: dict[str, list[str]] | None = state["piles"][pile] if pile is not None else None
        counts: dict[str, dict[str, int]] = state["counts"]
        rested = game._rested_cache if game._rested_key == len(game.pieces) else game._rested_by_player()
        kinds, characters = game.rules._usable.get(windows) or game.rules.usable_in(windows)
        passer = game.window_passer
        while passes < count:
            player = players[index % count]
            index += 1
            giving = given.get(player, 0) < gifts
            hand = hands[player] if hands is not None else None
            if not (hand and kinds and not kinds.isdisjoint(hand)):
                own = rested.get(player) if characters else None
                if not (own and not characters.isdisjoint(own)):
                    if not giving:
                        passes += 1
                        continue
                    if not hand:
                        held = counts[player]
                        for _, kind in game._items:
                            if held[kind]:
                                break
                        else:
                            passes += 1
                            continue
            if passer is not None and game.passes_unasked(
                player, windows, env["question"], _round_prompt(game, env)
            ):
                passes += 1  # (as after their pass)
                continue
            options = game.window_options(player, windows, names, players if giving else None)
            if len(options) > 1:
                env["index"], env["passes"] = index, passes
                env["asking"] = player
                return Decision(env["question"], {player: options}, _round_prompt(game, env))
            passes += 1
        env["index"], env["passes"] = index, passes
        return finish_frame(frames, None)

    def resume(self, frame: Frame, answers: dict[str, Any]) -> None:
        # (as offered, a tuple: `_WindowAct` takes it at once, so no saved game ever holds it)
        frame.env["answer"] = answers[frame.env["asking"]]


def _round_prompt(game: Game, env: dict[str, Any]) -> dict[str, Any]:
    """The question values of a round window's asks: its purpose is its first window, at its
    location if it has one (one mapping per window, which its asks share)."""
    prompt = game._window_prompt
    if game._prompt_env is not env:
        here = env["here"]
        prompt = {"purpose": env["windows"][0]}
        if here is not None:
            prompt["location"] = here
        game._prompt_env, game._window_prompt = env, prompt
    return prompt


def _next_in_window(game: Game, env: dict[str, Any]) -> tuple[str, list[Any], dict[str, Any]] | None:
    """Who is asked next in a window of mode `one` or `others`, what they may do (a pass first)
    and the question's values; None: it closes."""
    windows, names = tuple(env["windows"]), env["names"]
    if env["mode"] == "one":
        if env["done"]:
            return None
        prompt = _public(names)
        if game.window_passer is not None and game.passes_unasked(
            env["player"], windows, env["question"], prompt
        ):
            return None  # (as after their pass)
        options = game.window_options(env["player"], windows, names, None)
        return (env["player"], options, prompt) if len(options) > 1 else None
    pending = game.pending[names["pending"]]
    while env["index"] < len(env["players"]) and not pending["cancelled"]:
        player = env["players"][env["index"]]
        env["index"] += 1
        if player == pending["player"]:
            continue
        values: dict[str, Any] | None = None
        if game.window_passer is not None:
            values = _pending_values(pending)
            if game.passes_unasked(player, windows, env["question"], values):
                continue
        options = game.window_options(player, windows, names, None)
        if len(options) > 1:
            return player, options, values if values is not None else _pending_values(pending)
    return None


class _WindowAct(Op):
    """The answer: a pass, or a play, a power or a gift carried out before the next question."""

    __slots__ = ()
    asks = True

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        env = frame.env
        answer: tuple[Any, ...] = env.pop("answer")  # (typed locals: see `_WindowAsk.run`)
        player: str = env.pop("asking")
        frame.pc = 0  # the window goes on after this answer
        mode: str = env["mode"]
        act: str = answer[0]
        if act == "pass":
            if mode == "one":
                env["done"] = True
            elif mode == "round":
                passes: int = env["passes"]
                env["passes"] = passes + 1
                rt.game._seats_kept = True
            return None
        actions: int = env["actions"]
        actions += 1
        env["actions"] = actions
        if mode != "others" and actions > MAX_WINDOW_ACTIONS:
            raise window_runaway(env["windows"][0], answer)  # something can be used again and again
        game = rt.game
        if mode == "round":
            env["passes"] = 0
            if act == "give":
                given: dict[str, int] = env["given"]
                given[player] = given.get(player, 0) + 1
                if not game.after:
                    # a gift runs nothing of the pack's and starts no trigger: it is carried out here,
                    # as `PERFORM` would (no frame of its own), and the action ends with nothing
                    # waiting for it
                    game.give(player, answer)
                    if not game.depth:
                        game.fired.clear()
                    game._seats_kept = True
                    return None
        elif act == "give" and mode == "one" and not game.after:
            game.give(player, answer)  # (as above)
            if not game.depth:
                game.fired.clear()
            return None
        perform = {
            "player": player,
            "action": list(answer),
            "names": env["names"],
            "nested": mode == "others",
        }
        frames.append(Frame(PERFORM, Rt(game, perform, player), perform, None))
        return SWITCH


WINDOW = _program(WINDOW_ID, [_WindowAsk(), _WindowAct()])


def window_frame(
    game: Game,
    mode: str,
    windows: tuple[str, ...],
    names: dict[str, Any],
    *,
    question: str | None = None,
    gifts: int = 0,
    here: str | None = None,
    player: str | None = None,
    ret: str | None = None,
) -> Frame:
    """The frame of a window (see `_WindowAsk` for the modes): the decision put to each player
    (`question`, by default its first window), a round's gifts per player and location, the
    player a window of mode `one` asks, and the name its caller binds to its result."""
    if (windows, tuple(names)) not in game._checked:  # (checked once per game)
        game.check_window_names(windows, names)
    env: dict[str, Any] = {
        "mode": mode,
        "windows": windows,  # (a list once saved and loaded: `tuple` of it is then a copy, else itself)
        "names": names,
        "actions": 0,
        "question": windows[0] if question is None else question,  # the decision put to each player
    }
    if mode == "round":
        env["index"], env["passes"], env["gifts"], env["given"] = 0, 0, gifts, {}
        env["here"] = here
    elif mode == "one":
        env["player"], env["done"] = player, False
    else:
        env["players"], env["index"] = game.turn_order(), 0
    return Frame(WINDOW, Rt(game, env, None), env, ret)


def action_window(rt: Rt, windows: list[str], gifts: int) -> Frame | None:
    """The built-in `action_window`: every player in turn order may act in these windows, up to
    `gifts` gifts each, until all pass in a row (at the step's location, if it is run at one).
    None when nobody could do anything in it: it would ask nobody and close."""
    game, opened = rt.game, tuple(windows)
    seated = game._seated()
    for player in seated:  # (a gift first: it is the cheaper to find, and the likelier)
        if (gifts > 0 and game.can_give(player, seated)) or game.could_try(player, opened):
            break
    else:
        game.check_window_names(opened, {})  # (`window_frame` checks them when there is a window)
        return None
    here = rt.env.get("here")
    return window_frame(game, "round", opened, {}, gifts=gifts, here=here, question="act")


def idle(game: Game, players: list[str], windows: tuple[str, ...]) -> bool:
    """Whether none of these players has a card or power `offers` would try in these windows (so a
    window that asks them would close at once, asking nobody and changing nothing)."""
    for player in players:  # noqa: SIM110 (a loop, not `all`: asked at every play)
        if game.could_try(player, windows):
            return False
    return True


def in_window(frames: list[Any]) -> bool:
    """Whether the decision the frames wait for is put by a window (play, use, give or pass)."""
    return bool(frames) and getattr(frames[-1], "program", None) is WINDOW


_CANCEL_CARD = ("cancel_card",)


class _PerformStart(Op):
    """Carry out the play, power or gift chosen in a window; a card's play may be cancelled."""

    __slots__ = ()
    asks = True

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        game, env = rt.game, frame.env
        player, action = env["player"], env["action"]
        if env["nested"]:
            game.depth += 1
        if action[0] == "play":
            pending = game.card_played(player, action[1])
            others = [p for p in game._seated() if p != player]
            if idle(game, others, _CANCEL_CARD):  # nobody could cancel it: the window would ask nobody
                game.check_window_names(_CANCEL_CARD, {"pending": pending})
                env["cancelled"] = game.pending.pop(pending)["cancelled"]
                return None
            frames.append(window_frame(game, "others", _CANCEL_CARD, {"pending": pending}, ret="cancelled"))
            return SWITCH
        frame.pc = _PERFORM_END
        if action[0] == "power":
            frames.append(run_frame(game, *game.power_used(player, action[1], env["names"]), player))
            return SWITCH
        game.give(player, tuple(action))
        return None


class _PerformCard(Op):
    """The card was not cancelled: its cost and effect run."""

    __slots__ = ()
    asks = True

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        game, env = rt.game, frame.env
        player, kind = env["player"], env["action"][1]
        if env["cancelled"]:
            game.note("card_cancelled", player=player, card=kind)
            frame.pc = _PERFORM_END
            return None
        names = {**env["names"], "me": player}
        frames.append(run_frame(game, game.rules.cards[kind], names, player))
        return SWITCH


class _PerformEmit(Op):
    __slots__ = ()
    asks = True

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        return _push(frames, event_frame(rt.game, "card_played", None, {"player": frame.env["player"]}))


class _PerformEnd(Op):
    """A play inside a play (a cancel) ends with it; the outermost action's end runs its triggers."""

    __slots__ = ()

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        if frame.env["nested"]:
            rt.game.depth -= 1
            return finish_frame(frames, None)
        return None


_PERFORM_END = 3
PERFORM = _program(
    PERFORM_ID, [_PerformStart(), _PerformCard(), _PerformEmit(), _PerformEnd(), _EndAction(), _Done()]
)


def run_frame(game: Game, playable: Playable, names: dict[str, Any], actor: str | None) -> Frame:
    """The frame that pays a card's or power's cost, then runs its effect."""
    rt = Rt(game, names, actor)
    rt.source = playable.owner
    env = {
        "cost": None if playable.cost is None else playable.cost.program.id,
        "effect": None if playable.effect is None else playable.effect.program.id,
        "names": names,
    }
    rt.env = env
    return Frame(RUN, rt, env, None)


def _pending_values(pending: dict[str, Any]) -> dict[str, Any]:
    """The values of the question put about a pending play or move: what it is, not its state."""
    return {k: v for k, v in pending.items() if k not in ("kind", "cancelled")}


def _public(names: dict[str, Any]) -> dict[str, Any]:
    """Question values: plain values only."""
    return {k: v for k, v in names.items() if isinstance(v, str | int | bool | dict)}


def window_runaway(window: str, last: Any) -> EngineError:
    """A window that did not close: someone could act again and again."""
    return EngineError(
        "ENGINE-LIMIT",
        f"more than {MAX_WINDOW_ACTIONS:,} plays, powers and gifts in one `{window}` window"
        f" (the last: {' '.join(map(str, last))}): something can be used again and again",
    )


# --- the flow ----------------------------------------------------------------------------------


class _Phase(Op):
    __slots__ = ("phase",)

    def __init__(self, phase: str):
        self.phase = phase

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        game = rt.game
        game.state["phase"] = self.phase
        game.journal.phase += 1


class _RunStep(Op):
    """A step of the turn structure, at the flow's location in a per-location phase."""

    __slots__ = ("located", "step")
    asks = True

    def __init__(self, step: Step, located: bool):
        self.step = step
        self.located = located

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        game = rt.game
        here = frame.env["here"] if self.located else None
        game.state["step"] = self.step.id
        game.state["at"] = here
        run = Rt(game, {"here": here} if here else {}, None)
        program = self.step.run.program
        if not program.asks:
            try:
                run_sync(program, run, run.env)
            except (
                NoOptions
            ) as stopped:  # as a card's effect does, a step that chose from nothing stops there
                if self.step.required:
                    raise self._stopped(stopped) from stopped
                game.fizzled(self.step.id)
            return None
        catch = None if self.step.required else [self.step.id, frame.pc]  # (required: see `report`)
        frames.append(Frame(program, run, run.env, None, catch))
        return SWITCH

    def report(self, exc: Exception) -> Exception:
        """A required step that stopped for want of options, as the error it is."""
        return self._stopped(exc) if isinstance(exc, NoOptions) and self.step.required else exc

    def _stopped(self, stopped: NoOptions) -> EngineError:
        slot = self.step.run.slot
        where = None if slot is None else slot.doc.location(slot.path)
        return EngineError(
            "ENGINE-STEP",
            f"the step `{self.step.id}` must act (`required: true`) and found nothing to act on"
            f" ({stopped}); the game cannot go on without it",
            where,
        )


_END_GAME = "end_game"  # the verb that asks the game to end (registry, library)


class _EndIfAsked(Op):
    """After a step: once an effect has asked the game to end (`end_game`), the flow goes on at
    the end steps, out of every turn and location loop."""

    __slots__ = ("end",)

    def __init__(self) -> None:
        self.end = -1  # the pc of the end phase (known once the flow is built)

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        if rt.game.state.get("ending"):
            frame.loops = []
            frame.pc = self.end
        return None


class _Call(Op):
    """Engine bookkeeping of the flow that reads or changes the game (a turn begins or ends)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Game, dict[str, Any]], None]):
        self.fn = fn

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        self.fn(rt.game, frame.env)


class Flow:
    """The flow program of a pack, and where each phase and step of it begins."""

    def __init__(self, rules: Rules):
        self.ops: list[Op] = []
        self.phase_at: dict[str, int] = {}  # phase id -> pc of its start
        self.step_at: dict[tuple[str, str], int] = {}  # (phase id, step id) -> pc of the step
        self.turn_loop = -1  # pc of the turn loop's next-turn instruction
        self.location_loop: dict[str, int] = {}  # per-location phase -> pc of its next-location instruction
        self.end_checks: list[_EndIfAsked] = []  # after each step but the end's (`end_game`)
        # Only a pack that calls `end_game` has them: the flow of another is as it was, so that the
        # frames of its saved games point where they did.
        self.ends_early = any(_END_GAME in walk_calls(effect.tree) for effect in rules.pack.effects)
        self._build(rules)
        self.program = _program(FLOW_ID, self.ops)

    def _emit(self, op: Op) -> int:
        self.ops.append(op)
        return len(self.ops) - 1

    def _steps(self, phase: str, steps: tuple[Step, ...], located: bool) -> None:
        for step in steps:
            self.step_at[(phase, step.id)] = self._emit(_RunStep(step, located))
            self._emit(_EndAction())
            if phase != END and self.ends_early:
                self.end_checks.append(_EndIfAsked())
                self._emit(self.end_checks[-1])

    def _build(self, rules: Rules) -> None:
        self.phase_at[SETUP] = self._emit(_Phase(SETUP))
        self._steps(SETUP, rules.setup_steps, False)
        self._emit(_Emit("setup_end", _no_names))
        self._emit(_EndAction())
        self._emit(_ForStart(lambda rt: range(1, rt.game.rules.turns + 1)))
        turns = _ForNext("turn", _FLOW)
        self.turn_loop = self._emit(turns)
        self._emit(_Call(_turn_starts))
        self._emit(_Emit("turn_start", lambda env: {"turn": env["turn"]}))
        self._emit(_EndAction())
        for phase in rules.phases:
            self.phase_at[phase.id] = self._emit(_Phase(phase.id))
            if not phase.per_location:
                self._steps(phase.id, phase.steps, False)
                continue
            self._emit(_ForStart(lambda rt: rt.game.state["order"]))
            places = _ForNext("here", _FLOW)
            self.location_loop[phase.id] = self._emit(places)
            self._steps(phase.id, phase.steps, True)
            self._emit(_Jump(self.location_loop[phase.id]))
            places.exit = len(self.ops)
        self._emit(_Emit("turn_end", _no_names))
        self._emit(_EndAction())
        self._emit(_Call(_turn_ends))
        self._emit(_Jump(self.turn_loop))
        turns.exit = len(self.ops)
        self.phase_at[END] = self._emit(_Phase(END))
        for check in self.end_checks:
            check.end = self.phase_at[END]
        self._steps(END, rules.end_steps, False)
        self._emit(_Call(_game_over))
        self._emit(_Done())

    def frame(self, game: Game, start: dict[str, Any] | None) -> Frame:
        """The flow's frame, at the beginning or at a scenario's start position.

        `start` has `phase` (None: the start of turn `turn`; `setup`; `end`; a phase of the turn),
        and optionally `step` and, in a per-location phase, `at`.
        """
        env: dict[str, Any] = {}
        run = Rt(game, env, None)
        run.loops = _FLOW_LOOPS  # turns times locations: bounded by the pack, not by an effect's bound
        frame = Frame(self.program, run, env, None)
        if start is None:
            return frame
        phase, step = start.get("phase"), start.get("step")
        if phase == SETUP:
            frame.pc = self.step_at[(SETUP, step)] if step else self.phase_at[SETUP]
            return frame
        turn = int(start.get("turn", 1))
        turns = list(range(1, game.rules.turns + 1))
        if phase is None:
            frame.loops, frame.pc = [[turns, turn - 1]], self.turn_loop
            return frame
        if phase == END:
            frame.loops = []
            frame.pc = self.step_at[(END, step)] if step else self.phase_at[END]
            game.state["phase"] = END
            game.journal.phase += 1
            return frame
        frame.loops = [[turns, turn]]
        env["turn"] = turn
        game.state["phase"] = phase
        game.journal.phase += 1
        frame.pc = self.step_at[(phase, step)] if step else self.phase_at[phase]
        at = start.get("at")
        if phase in self.location_loop and (step or at):
            order = list(game.state["order"])
            at = at or order[0]
            frame.loops.append([order, order.index(at) + 1])
            env["here"] = at
            if not step:
                frame.pc = self.location_loop[phase] + 1
        return frame


_FLOW = _Where(Span(1, 1, 0, 0), None)  # the flow's loops are the engine's: no place in a pack
_FLOW_LOOPS = 2**62


def _no_names(env: dict[str, Any]) -> dict[str, Any]:
    return {}


def _turn_starts(game: Game, env: dict[str, Any]) -> None:
    game.state["turn"] = env["turn"]
    game.journal.turn += 1
    game.note("turn_start", turn=env["turn"])


def _turn_ends(game: Game, env: dict[str, Any]) -> None:
    game.turn_over()


def _game_over(game: Game, env: dict[str, Any]) -> None:
    """The last entry of every game, once its result is whole (RESULT-UNSET if the end steps left
    out a part the pack declares: the game would end in a result nothing can read)."""
    declared = game.rules.result
    missing = declared.missing(game.state["result"]) if declared is not None else []
    if declared is not None and missing:
        section = game.rules.pack.sections[RESULT_SECTION]
        raise EngineError(
            "RESULT-UNSET",
            f"the game is over without the whole `{declared.kind}` result its pack declares: no"
            f" effect called {' or '.join(f'`{verb}`' for verb in missing)}",
            section.doc.location((*section.path, "kind")),
        )
    game.note("game_over")


def engine_programs() -> dict[str, Program]:
    """The engine's programs that every pack has (a saved frame names them by id)."""
    return {program.id: program for program in (CASCADE, AFTER, RUN, WINDOW, PERFORM)}


__all__ = [
    "AFTER",
    "CASCADE",
    "END",
    "RUN",
    "SETUP",
    "EngineError",
    "Flow",
    "engine_programs",
    "fire",
    "in_window",
]

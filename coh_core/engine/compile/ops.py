"""The instructions of a program (`machine.Op`): bindings, jumps, the steps of loops, calls of
pack verbs, built-ins that run an engine program, choices and questions. Each runs alone
(`run`); `blocks.py` writes most of them into the source of a block instead."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coh_core.engine.compile.model import Filter, Fn, Impl
from coh_core.engine.compile.where import _count_iteration, _too_many, _verbs_too_deep, _Where, over_budget
from coh_core.engine.machine import SWITCH, Frame, Op, Program, finish_frame, run_sync
from coh_core.engine.runtime import Action, Decision, EngineError, NoOptions, Rt
from coh_core.limits import MAX_FRAMES, MAX_OPTIONS


class _Exec(Op):
    __slots__ = ("fn",)

    def __init__(self, fn: Fn):
        self.fn = fn

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        self.fn(rt)


class _Let(Op):
    __slots__ = ("fn", "name")

    def __init__(self, name: str, fn: Fn):
        self.name = name
        self.fn = fn

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        frame.env[self.name] = self.fn(rt)


class _Jump(Op):
    __slots__ = ("target",)

    def __init__(self, target: int = -1):
        self.target = target

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        frame.pc = self.target


class _JumpUnless(Op):
    __slots__ = ("skip", "target", "test")

    def __init__(self, test: Fn):
        self.test = test
        self.target = -1
        self.skip = -1  # of an `if` with an `else`: the pc of the jump over the `else` (see `_Structured`)

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        if not self.test(rt):
            frame.pc = self.target


class _ForStart(Op):
    __slots__ = ("items",)

    def __init__(self, items: Fn):
        self.items = items

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        if frame.loops is None:
            frame.loops = []
        frame.loops.append([list(self.items(rt)), 0])


class _ForNext(Op):
    """The next item of the innermost loop, or out of the loop after its last."""

    __slots__ = ("exit", "name", "where")

    def __init__(self, name: str, where: _Where):
        self.name = name
        self.where = where
        self.exit = -1

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        assert frame.loops is not None
        loop = frame.loops[-1]
        items, index = loop
        if index >= len(items):
            frame.loops.pop()
            frame.pc = self.exit
            return
        _count_iteration(rt, self.where)
        loop[1] = index + 1
        frame.env[self.name] = items[index]


class _WhileTest(Op):
    __slots__ = ("exit", "test", "where")

    def __init__(self, test: Fn, where: _Where):
        self.test = test
        self.where = where
        self.exit = -1

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        if not self.test(rt):
            frame.pc = self.exit
        elif not rt.dry:
            _count_iteration(rt, self.where)


class _WhileBack(Op):
    """Back to the test; a dry run changes nothing, so the test would hold for ever: one pass tells."""

    __slots__ = ("exit", "head")

    def __init__(self, head: int):
        self.head = head
        self.exit = -1

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        frame.pc = self.exit if rt.dry else self.head


class _Return(Op):
    __slots__ = ("value",)

    def __init__(self, value: Fn | None):
        self.value = value

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        return finish_frame(frames, None if self.value is None else self.value(rt))


class _FallOff(Op):
    """The end of a program: a verb is done; a selector that returned nothing stops the effect."""

    __slots__ = ("selector",)

    def __init__(self, selector: bool):
        self.selector = selector

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        if self.selector:
            raise NoOptions(f"{frame.program.name} returned nothing")  # as the first of nothing
        return finish_frame(frames, None)


class _CallVerb(Op):
    """Run a verb the pack defines, in a frame of its own: its parameters are its only names.

    Of a selector that asks, the caller's name `ret` receives the value it returns. A verb that
    cannot ask runs at once instead, to its end, without a frame of the caller's machine (no
    question can find it running), when the frames it would push could not reach MAX_FRAMES."""

    __slots__ = ("args", "asks", "names", "program", "ret", "where")

    def __init__(
        self, program: Program, names: list[str], args: list[Fn], where: _Where, ret: str | None = None
    ):
        self.program = program
        self.asks = program.asks
        self.names = names
        self.args = args
        self.where = where
        self.ret = ret

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        env = dict(zip(self.names, [arg(rt) for arg in self.args], strict=True))
        game = rt.game
        game.work_left -= 1
        if game.work_left < 0:
            raise self.over_budget()
        if len(frames) >= MAX_FRAMES:
            _verbs_too_deep()
        program = self.program
        if not program.asks and len(frames) + program.nesting < MAX_FRAMES:
            value = run_sync(program, rt, env)
            rt.env = frame.env
            if self.ret is not None:  # a selector declared to ask whose body does not: its value
                frame.env[self.ret] = value
            return None
        frames.append(Frame(program, rt, env, self.ret))
        return SWITCH

    def over_budget(self) -> EngineError:
        return self.where.error("ENGINE-LIMIT", over_budget(self.program.name.removeprefix("verb ")))


class _Push(Op):
    """A built-in that runs as an engine program (an event's triggers, a window): its frame is
    pushed; a selector's value is what the program ends with."""

    __slots__ = ("args", "check", "dest", "fn", "where")
    asks = True

    def __init__(self, impl: Impl, args: list[Fn], dest: str | None, where: _Where):
        self.fn = impl.fn
        self.check = impl.check
        self.args = args
        self.dest = dest
        self.where = where

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        try:
            values: list[Any] = []
            for arg in self.args:  # (a loop, not a comprehension: most have one or two)
                values.append(arg(rt))
            if rt.dry:  # a dry run only checks that it could happen
                self._check(rt, values)
                return None
            pushed = self.fn(rt, *values)
        except NoOptions:
            raise
        except Exception as exc:
            raise self.where.located(exc) from exc
        if pushed is None:
            if self.dest is not None:
                frame.env[self.dest] = None
            return None
        if len(frames) >= MAX_FRAMES:
            raise self.too_deep()
        pushed.ret = self.dest
        frames.append(pushed)
        return SWITCH

    def too_deep(self) -> EngineError:
        return self.where.error(
            "ENGINE-LIMIT", f"more than {MAX_FRAMES:,} programs running inside each other"
        )

    def _check(self, rt: Rt, values: list[Any]) -> None:
        """In a dry run: whether it could happen; a selector's value is none."""
        if self.check is not None:
            self.check(rt, *values)
        if self.dest is not None:
            rt.env[self.dest] = None

    def report(self, exc: Exception) -> Exception:
        return self.where.located(exc)

    def direct(self, program: str) -> Fn:
        """Only a dry run runs a program that pushes frames without them (`run_sync`)."""

        def check(rt: Rt) -> None:
            if not rt.dry:
                raise EngineError("ENGINE-INTERNAL", f"{program} started an engine program outside a dry run")
            try:
                self._check(rt, [arg(rt) for arg in self.args])
            except NoOptions:
                raise
            except Exception as exc:
                raise self.where.located(exc) from exc

        return check


class _Choose(Op):
    """The acting player picks one of the options (a lone option is taken without asking)."""

    __slots__ = ("dest", "keep", "options", "purpose", "where")
    asks = True

    def __init__(self, options: Fn, keep: Filter | None, purpose: str, dest: str, where: _Where):
        self.options = options
        self.keep = keep
        self.purpose = purpose
        self.dest = dest
        self.where = where

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        options = self._options(rt)
        if rt.dry:
            frame.env[self.dest] = options[rt.dry_choice(len(options))]
            return None
        if len(options) == 1:
            frame.env[self.dest] = options[0]
            return None
        return self.decision(rt, options)

    def decision(self, rt: Rt, options: Any) -> Decision:
        """The question of more than one option, to the acting player."""
        prompt: dict[str, Any] = {"purpose": self.purpose}
        if rt.source is not None:
            prompt["source"] = rt.source
        return Decision("choose", {rt.chooser(): [("choose", o) for o in options]}, prompt)

    def resume(self, frame: Frame, answers: dict[str, Any]) -> None:
        (answer,) = answers.values()
        frame.env[self.dest] = answer[1]

    def _options(self, rt: Rt) -> Any:
        keep = self.keep
        try:
            options = self.options(rt)
            if keep is not None:
                options = [value for value in options if keep(rt, value)]
        except NoOptions:
            raise
        except Exception as exc:
            raise self.where.located(exc) from exc
        if not options:
            raise NoOptions(self.purpose)
        if len(options) > MAX_OPTIONS:
            raise self.where.error("ENGINE-LIMIT", _too_many(len(options)))
        return options


class _Ask(Op):
    """A player picks one of the options, answering `[answer, option]` to a question of the pack's."""

    __slots__ = ("answer", "dest", "options", "player", "prompt", "question", "where")
    asks = True

    def __init__(
        self,
        player: Fn,
        options: Fn,
        question: str,
        answer: str,
        prompt: list[tuple[str, Fn]],
        dest: str,
        where: _Where,
    ):
        self.player = player
        self.options = options
        self.question = question
        self.answer = answer
        self.prompt = prompt
        self.dest = dest
        self.where = where

    def _options(self, rt: Rt) -> list[Any]:
        """The options to choose among: none stops the effect; too many is the pack's error."""
        options: list[Any] = self.options(rt)
        if not options:
            raise NoOptions(self.question)
        if len(options) > MAX_OPTIONS:
            raise self.where.error("ENGINE-LIMIT", _too_many(len(options)))
        return options

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        options = self._options(rt)
        if rt.dry:
            frame.env[self.dest] = options[rt.dry_choice(len(options))]
            return None
        if len(options) == 1:
            frame.env[self.dest] = options[0]
            return None
        return self.question_of(frame, rt, options)

    def question_of(self, frame: Frame, rt: Rt, options: list[Any]) -> Decision:
        """The question of more than one option, to the player asked."""
        player = self.player(rt)
        prompt = {name: read(rt) for name, read in self.prompt}
        answer = self.answer
        actions = [(answer, *o) if isinstance(o, list) else (answer, o) for o in options]
        # what the answer's values are read back as: an option that is a list, or one value
        frame.env[self.dest] = isinstance(options[0], list)
        return Decision(self.question, {player: actions}, prompt)

    def resume(self, frame: Frame, answers: dict[str, Any]) -> None:
        (answer,) = answers.values()
        frame.env[self.dest] = list(answer[1:]) if frame.env[self.dest] else answer[1]

    def direct(self, program: str) -> Callable[[Rt, dict[str, Any]], None]:
        """What `run` does where nothing may stop (`_direct`): a dry run explores the options, a lone
        option is taken; anything else is the engine's mistake."""

        def ask(rt: Rt, env: dict[str, Any]) -> None:
            options = self._options(rt)
            if rt.dry:
                env[self.dest] = options[rt.dry_choice(len(options))]
            elif len(options) == 1:
                env[self.dest] = options[0]
            else:
                self.asked(rt, program)
                env[self.dest] = isinstance(options[0], list)  # (as `run` leaves it)
                raise EngineError("ENGINE-INTERNAL", f"{program} asked a question where none may be asked")

        return ask

    def asked(self, rt: Rt, program: str) -> None:
        """Before a question where none may be asked: what it would show, worked out as `run` does."""
        self.player(rt)
        for _name, read in self.prompt:
            read(rt)


_PASS = ("pass",)


class _May(_Ask):
    """A player takes one option or passes, answering `[answer, option]` or `[pass]`: true if taken."""

    __slots__ = ()

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        option = self.options(rt)
        if rt.dry:
            frame.env[self.dest] = rt.dry_choice(2) == 1
            return None
        player = self.player(rt)
        prompt = {name: read(rt) for name, read in self.prompt}
        taken = (self.answer, *option) if isinstance(option, list) else (self.answer, option)
        return Decision(self.question, {player: [_PASS, taken]}, prompt)

    def resume(self, frame: Frame, answers: dict[str, Any]) -> None:
        (answer,) = answers.values()
        frame.env[self.dest] = tuple(answer) != _PASS

    def direct(self, program: str) -> Callable[[Rt, dict[str, Any]], None]:
        def may(rt: Rt, env: dict[str, Any]) -> None:
            self.options(rt)
            if not rt.dry:
                self.asked(rt, program)
                raise EngineError("ENGINE-INTERNAL", f"{program} asked a question where none may be asked")
            env[self.dest] = rt.dry_choice(2) == 1

        return may


class _AskEach(_Ask):
    """Several players answer at once, each among their own options, unseen by the others."""

    __slots__ = ()

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        by_player: dict[str, list[Any]] = self.options(rt)
        answer = self.answer
        picked: dict[str, Any] = {}
        asked: dict[str, list[Action]] = {}
        spread = False
        for player, options in by_player.items():
            if len(options) > MAX_OPTIONS:
                raise self.where.error("ENGINE-LIMIT", _too_many(len(options)))
            if rt.dry and options:
                picked[player] = options[rt.dry_choice(len(options))]
            elif len(options) == 1:
                picked[player] = options[0]
            elif options:
                spread = isinstance(options[0], list)
                asked[player] = [(answer, *o) if isinstance(o, list) else (answer, o) for o in options]
        if not asked:
            frame.env[self.dest] = picked
            return None
        prompt = {name: read(rt) for name, read in self.prompt}
        # what is known before the answers: the lone options, where each answer goes, how it reads
        frame.env[self.dest] = {"picked": picked, "order": list(by_player), "spread": spread}
        return Decision(self.question, asked, prompt)

    def resume(self, frame: Frame, answers: dict[str, Any]) -> None:
        known = frame.env[self.dest]
        picked = dict(known["picked"])
        for player, action in answers.items():
            picked[player] = list(action[1:]) if known["spread"] else action[1]
        frame.env[self.dest] = {player: picked[player] for player in known["order"] if player in picked}


class _Fail(Op):
    __slots__ = ("error",)

    def __init__(self, error: EngineError):
        self.error = error

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        raise self.error

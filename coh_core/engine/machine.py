"""The machine that runs compiled effects: instruction lists, frames and a loop.

Each effect, pack verb and step compiles once into a `Program`: a list of instructions
(`Op`). Expressions that cannot ask stay Python functions; statements become instructions
that move a frame's program counter, bind names, push the frame of a pack verb, or stop
the machine with the question a player must answer. A `Frame` holds what a running program
needs to go on (its program, its position, its names, the loops in progress), so the place
of an effect in play is data, not a Python generator's hidden state. A compiled program also
carries Python functions that run its instructions a block at a time (`Program.blocks`,
`Program.direct`): they only make it faster, and a frame's pc still counts instructions.

The engine's own procedures (the flow, event cascades, windows: `flow.py`) are programs too, and
so is every procedure a pack writes: nothing runs as a Python generator, so the frames of a game
stopped at any question are data (`frames_to_json`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from coh_core.engine.runtime import EngineError, NoOptions, Rt

if TYPE_CHECKING:
    from coh_core.engine.game import Game

Fn = Callable[..., Any]


class Program:
    """One compiled block: its instructions, and what falling off its end means."""

    __slots__ = ("asks", "blocks", "direct", "id", "name", "nesting", "ops")

    def __init__(self, name: str, ident: str = ""):
        self.name = name  # who the code belongs to, for messages
        self.id = ident  # the same for the same pack on every load: where a saved frame points
        self.ops: list[Op] = []
        self.asks = True  # whether running it may stop for a question (known once compiled)
        self.nesting = 0  # the most frames of pack verbs its calls may push inside each other
        # A program of statements one after the other, as one Python function that `run_sync` calls
        # without frames: nothing in it jumps, and nothing may stop there (most effects and costs,
        # and in dry runs those that choose; selectors that return what they work out). It returns
        # what the program returns.
        self.direct: Callable[[Rt], Any] | None = None
        # Per pc, a Python function that runs the instructions from there on as one (up to a jump,
        # an instruction that may stop or switch frames, or the next place another jump lands),
        # leaves the frame's pc where they left it, and returns what `Op.run` returns. None: the
        # instructions run one by one. (The instructions stay what a saved frame's pc counts.)
        self.blocks: list[Callable[[list[Any], Frame, Rt], Any]] | None = None


class Op(ABC):
    """One instruction. `run` returns None to go on, `SWITCH` when the frames changed, or a
    question (anything else) that stops the machine until answered."""

    __slots__ = ()
    asks = False  # whether this instruction may stop the machine (a question, engine code, a verb that asks)

    @abstractmethod
    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any: ...

    def resume(self, frame: Frame, answers: dict[str, Any]) -> None:
        """The answers to the question this instruction asked; only instructions that ask get any."""
        raise EngineError("ENGINE-INTERNAL", f"answers arrived for {type(self).__name__}, which asks nothing")

    def report(self, exc: Exception) -> Exception:
        """A failure inside the frame this instruction pushed, as reported where it was pushed (by
        default as it is: the frame's own instructions locate what fails in them)."""
        return exc


SWITCH = object()  # an instruction pushed or popped a frame: the loop looks at the top again


class Frame:
    """A program in progress: where it is, its names, the `for` loops it is inside."""

    __slots__ = ("catch", "env", "loops", "pc", "program", "ret", "rt")

    def __init__(
        self,
        program: Program,
        rt: Rt,
        env: dict[str, Any],
        ret: str | None,
        catch: list[Any] | None = None,
    ):
        self.program = program
        self.rt = rt  # the run this frame belongs to: its player, its loop bound, its dry-run path
        self.env = env
        self.pc = 0
        self.loops: list[list[Any]] | None = None  # [items, next index] per `for` in progress, innermost last
        self.ret = ret  # the name the caller's frame binds to this program's result
        # [source, caller's pc]: an effect that stops for want of options (NoOptions) ends here,
        # logged as fizzled for its source, and its caller goes on at that pc
        self.catch = catch


def execute(frames: list[Any]) -> Any:
    """Run until a question must be answered (returned) or the frames are done (None).

    A failure no frame catches is raised to the caller, the frames unwound.
    """
    while frames:
        frame: Frame = frames[-1]  # (typed: the compiled build reads its slots directly)
        rt = frame.rt
        rt.env = frame.env
        program = frame.program
        blocks = program.blocks
        try:  # `_run_ops`, written out: the frames switch several times per decision
            if blocks is not None:
                while True:
                    signal = blocks[frame.pc](frames, frame, rt)
                    if signal is not None:
                        break
            else:
                ops = program.ops
                while True:
                    op = ops[frame.pc]
                    frame.pc += 1
                    signal = op.run(frames, frame, rt)
                    if signal is not None:
                        break
        except Exception as exc:
            _fail(frames, exc)  # from this frame on
            continue
        if signal is not SWITCH:
            return signal
    return None


def _run_ops(frames: list[Any], frame: Frame) -> Any:
    """Run the top frame's instructions until one changes the frames or asks a question."""
    rt = frame.rt
    rt.env = frame.env
    program = frame.program
    blocks = program.blocks
    if blocks is not None:
        while True:
            signal = blocks[frame.pc](frames, frame, rt)
            if signal is not None:
                return signal
    ops = program.ops
    while True:
        op = ops[frame.pc]
        frame.pc += 1
        signal = op.run(frames, frame, rt)
        if signal is not None:
            return signal


def _caused(reported: Exception, cause: Exception) -> Exception:
    if reported is not cause:
        reported.__cause__ = cause
    return reported


def _finish(frames: list[Any], ret: str | None, value: Any) -> None:
    """The top frame is done with `value`: its caller receives it."""
    frames.pop()
    if not frames:
        return
    caller = frames[-1]
    if isinstance(caller, Frame):
        if ret is not None:
            caller.env[ret] = value
    elif isinstance(caller, _Sink):
        caller.send = value


def _fail(frames: list[Any], exc: Exception) -> None:
    """Unwind to the nearest frame that catches it (an effect that fizzled); none left: raise it."""
    while frames:
        frame: Frame = frames.pop()
        if frame.catch is not None and isinstance(exc, NoOptions):
            source, resume = frame.catch
            frame.rt.game.fizzled(source)
            below: Frame = frames[-1]
            below.pc = resume
            return
        if frames:  # the instruction that pushed the frame locates it
            caller: Frame = frames[-1]
            exc = _caused(caller.program.ops[caller.pc - 1].report(exc), exc)
    raise exc


def run_sync(program: Program, rt: Rt, env: dict[str, Any]) -> Any:
    """Run a program that cannot ask to its end and return its result (dry runs, selectors).

    Its frames are its own: a failure leaves them behind as it is raised to the caller.
    """
    direct = program.direct
    if direct is not None:
        rt.env = env
        return direct(rt)
    sink = _Sink()
    frames: list[Any] = [sink, Frame(program, rt, env, None)]
    while True:
        frame = frames[-1]
        if frame is sink:
            return sink.send
        if _run_ops(frames, frame) is not SWITCH:
            raise EngineError("ENGINE-INTERNAL", f"{program.name} asked a question where none may be asked")


class _Sink:
    """The bottom of a synchronous run: it receives the result."""

    __slots__ = ("send",)

    def __init__(self) -> None:
        self.send: Any = None


def frames_to_json(frames: list[Any]) -> dict[str, Any]:
    """The place of a machine stopped at a question, as JSON (see `frames_data`)."""
    copy: dict[str, Any] = json.loads(json.dumps(frames_data(frames)))
    return copy  # it shares nothing with the frames


def frames_data(frames: list[Any]) -> dict[str, Any]:
    """The place of a machine stopped at a question, as JSON data: each frame's program, position,
    names, loops and catch, the runs they belong to (frames of one run share their player,
    source and loop bound) and the tables of names they read (frames that share one table, as
    a cost and the effect after it do, share it again once loaded). The top frame's pc is just
    past the instruction that asked: loaded, it takes the answers with that instruction's
    `resume` (the question itself is saved by whoever keeps it: `Game.to_json`)."""
    runs: list[dict[str, Any]] = []
    envs: list[dict[str, Any]] = []
    run_index: dict[int, int] = {}
    env_index: dict[int, int] = {}
    saved: list[dict[str, Any]] = []
    for frame in frames:
        rt = frame.rt
        if id(rt) not in run_index:
            run_index[id(rt)] = len(runs)
            runs.append({"actor": rt.actor, "source": rt.source, "paying": rt.paying, "loops": rt.loops})
        if id(frame.env) not in env_index:
            env_index[id(frame.env)] = len(envs)
            envs.append(frame.env)
        saved.append(
            {
                "program": frame.program.id,
                "pc": frame.pc,
                "env": env_index[id(frame.env)],
                "loops": frame.loops,
                "ret": frame.ret,
                "catch": frame.catch,
                "run": run_index[id(rt)],
            }
        )
    return {"runs": runs, "envs": envs, "frames": saved}  # it shares the names and loops of the frames


def frames_from_json(doc: dict[str, Any], programs: dict[str, Program], game: Game) -> list[Any]:
    """Frames saved by `frames_to_json`, for a game of the same pack."""
    runs = []
    for saved in doc["runs"]:
        rt = Rt(game, {}, saved["actor"])
        rt.source, rt.paying, rt.loops = saved["source"], saved["paying"], saved["loops"]
        runs.append(rt)
    envs: list[dict[str, Any]] = doc["envs"]
    frames: list[Any] = []
    for saved in doc["frames"]:
        program = programs.get(saved["program"])
        if program is None:
            raise EngineError("GAME-PROGRAM", f"no program `{saved['program']}` in this pack")
        frame = Frame(program, runs[saved["run"]], envs[saved["env"]], saved["ret"], saved["catch"])
        frame.pc, frame.loops = saved["pc"], saved["loops"]
        frames.append(frame)
    return frames


def resume(frames: list[Any], answers: dict[str, Any]) -> None:
    """Hand the answers to the instruction that asked; `execute` then goes on."""
    top: Frame = frames[-1]
    top.program.ops[top.pc - 1].resume(top, answers)


def finish_frame(frames: list[Any], value: Any) -> Any:
    """An instruction ends its frame with a value (as `_finish`, written out: frames end often)."""
    top: Frame = frames.pop()  # (typed: the compiled build reads its slots directly)
    ret = top.ret
    if frames:
        caller = frames[-1]
        if isinstance(caller, Frame):
            if ret is not None:
                caller.env[ret] = value
        elif isinstance(caller, _Sink):
            caller.send = value
    return SWITCH


__all__ = ["SWITCH", "Frame", "NoOptions", "Op", "Program", "execute", "run_sync"]

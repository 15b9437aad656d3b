"""A program's instructions written as Python source: one function per place a frame may stand
(`_blocks`), and a program where nothing may stop as one function (`_direct`, `_Structured`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coh_core.engine.codegen import Fragment, define
from coh_core.engine.compile.model import Fn
from coh_core.engine.compile.ops import (
    _Ask,
    _CallVerb,
    _Choose,
    _Exec,
    _FallOff,
    _ForNext,
    _ForStart,
    _Jump,
    _JumpUnless,
    _Let,
    _May,
    _Push,
    _Return,
    _WhileBack,
    _WhileTest,
)
from coh_core.engine.compile.where import _loop_limit, _too_many, _verbs_too_deep
from coh_core.engine.machine import SWITCH, Frame, Op, Program, finish_frame, run_sync
from coh_core.engine.runtime import EngineError, NoOptions, Rt
from coh_core.limits import MAX_FRAMES, MAX_OPTIONS


def _direct(program: Program, fragments: dict[int, Fragment]) -> Fn | None:
    """A program as one function of `rt` for `run_sync`, where nothing may stop (a dry run explores
    its choices and only checks its asking verbs): it returns what the program returns. Its `if`s,
    `for`s and `while`s are written as Python's (`_Structured`). None for a program with an
    instruction that cannot run so (`_AskEach`, a call of a verb whose frames could reach
    MAX_FRAMES), or nested deeper than Python compiles."""
    ops = program.ops
    end = ops[-1]
    if not isinstance(end, _FallOff) or not all(
        _straight(op) or isinstance(op, _STRUCTURED) for op in ops[:-1]
    ):
        return None
    names: dict[str, Any] = {
        "NoOptions": NoOptions,
        "EngineError": EngineError,
        "run_sync": run_sync,
        "_loop_limit": _loop_limit,
    }
    lines = ["def _d(rt):", "    env = rt.env"]
    try:
        lines += [f"    {line}" for line in _Structured(program, fragments, names).lines(0, len(ops) - 1)]
        if end.selector:  # a selector that returned nothing stops the effect, as the first of nothing
            lines.append(f"    raise NoOptions({f'{program.name} returned nothing'!r})")
        direct: Fn = define("\n".join(lines) + "\n", names)["_d"]
    except (_Unstructured, SyntaxError, RecursionError):  # (too deep for one Python function, say)
        return None
    return direct


class _Structured:
    """Writes the instructions of a program as the statements of one Python function (`_direct`):
    the jumps of an `if`, a `for` and a `while` (`_Emitter`) as Python's, each instruction as
    `_BlockWriter` writes it where nothing may stop (a choice, a question and a verb that runs a
    program of the engine's only in a dry run, or with one option)."""

    def __init__(self, program: Program, fragments: dict[int, Fragment], names: dict[str, Any]):
        self.program = program
        self.names = names
        self.writer = _BlockWriter(program, set(), fragments, names)
        self.loops = 0  # `for`s written so far (their items' locals)

    def lines(self, start: int, stop: int) -> list[str]:
        """The statements of the instructions from `start` up to (not including) `stop`."""
        ops, writer = self.program.ops, self.writer
        found: list[str] = []
        pc = start
        while pc < stop:
            op, k = ops[pc], f"_o{pc}"
            self.names[k] = op
            if isinstance(op, _JumpUnless):
                test = writer.value(op.test, found, f"{k}.test(rt)")
                found.append(f"if {test}:")
                if op.skip < 0:
                    found += self.indented(pc + 1, op.target)
                    pc = op.target
                    continue
                skip = ops[op.skip]
                assert isinstance(skip, _Jump)
                found += self.indented(pc + 1, op.skip)
                found.append("else:")
                found += self.indented(op.target, skip.target)
                pc = skip.target
            elif isinstance(op, _ForStart):
                step = ops[pc + 1]
                assert isinstance(step, _ForNext)
                self.names[f"_o{pc + 1}"] = step
                items = writer.value(op.items, found, f"{k}.items(rt)")
                self.loops += 1
                item = f"_i{self.loops}"
                found.append(f"for {item} in list({items}):")
                found += [
                    "    rt.loops -= 1",
                    "    if rt.loops < 0:",
                    f"        _loop_limit(_o{pc + 1}.where)",
                    f"    env[{step.name!r}] = {item}",
                ]
                found += self.indented(pc + 2, step.exit - 1)  # (the last is the jump back)
                pc = step.exit
            elif isinstance(op, _WhileTest):
                found.append("while True:")
                reads: list[str] = []
                holds = writer.value(op.test, reads, f"{k}.test(rt)")
                found += [f"    {line}" for line in reads]
                found += [f"    if not {holds}:", "        break"]
                found += ["    if not rt.dry:", "        rt.loops -= 1", "        if rt.loops < 0:"]
                found.append(f"            _loop_limit({k}.where)")
                found += self.indented(pc + 1, op.exit - 1)  # (the last goes back, or out in a dry run)
                found += ["    if rt.dry:", "        break"]
                pc = op.exit
            else:
                found += self.one(op, k, pc)
                pc += 1
        return found

    def indented(self, start: int, stop: int) -> list[str]:
        return [f"    {line}" for line in self.lines(start, stop) or ["pass"]]

    def one(self, op: Op, k: str, pc: int) -> list[str]:
        """An instruction that does not jump."""
        writer = self.writer
        if isinstance(op, _Choose):
            return writer.choose_direct(op, k)
        if isinstance(op, _CallVerb):
            return writer.call_verb_direct(op, k)
        if isinstance(op, _Push):  # its own way of running where nothing may stop
            self.names[f"_d{pc}"] = op.direct(self.program.name)
            return [f"_d{pc}(rt)"]
        if isinstance(op, _Ask):
            self.names[f"_d{pc}"] = op.direct(self.program.name)
            return [f"_d{pc}(rt, env)"]
        if isinstance(op, _Return):
            found: list[str] = []
            value = writer.value(op.value, found, f"{k}.value(rt)")
            return [*found, f"return {value}"]
        if isinstance(op, _STRUCTURED):  # (a jump not where `_Emitter` puts it: its blocks will do)
            raise _Unstructured(pc)
        return writer.inline(op, k)


class _Unstructured(Exception):
    """A program whose jumps `_Structured` does not know."""


_STRAIGHT = (_Exec, _Let, _Choose, _Push, _Ask, _May, _Return)
# What `_Structured` writes besides: the jumps of `if`, `for` and `while`.
_STRUCTURED = (_JumpUnless, _Jump, _ForStart, _ForNext, _WhileTest, _WhileBack)


def _straight(op: Op) -> bool:
    """An instruction a program run by `_direct` may hold: one of _STRAIGHT, or the call of a pack
    verb whose frames in `run_sync` (the run's own, the program's, its own and those it would
    push) could not reach MAX_FRAMES. (A verb that asks too: `run_sync` runs a program that may
    ask only in a dry run, where nothing stops.)"""
    if isinstance(op, _CallVerb):
        return 3 + op.program.nesting < MAX_FRAMES
    return type(op) in _STRAIGHT


def _blocks(program: Program, fragments: dict[int, Fragment]) -> list[Callable[..., Any]]:
    """Per pc, the function that runs a program's instructions from there on (`Program.blocks`).

    A block begins where a jump lands or an instruction that may stop has just run (where a
    frame may stand between two runs); it runs the instructions that only compute and jump one
    after the other, written into one function, up to a jump, the next beginning, or an
    instruction that may stop, switch frames or end the frame, which it runs last. Any other pc
    (no frame stops there, but nothing forbids it) runs one instruction at a time. The value an
    instruction works out is written in too, from its fragment, where it has one.
    """
    ops = program.ops
    starts = _block_starts(ops)
    names: dict[str, Any] = {
        "NoOptions": NoOptions,
        "finish_frame": finish_frame,
        "_loop_limit": _loop_limit,
        "_verbs_too_deep": _verbs_too_deep,
        "run_sync": run_sync,
        "Frame": Frame,
        "SWITCH": SWITCH,
    }
    writer = _BlockWriter(program, starts, fragments, names)
    text = "".join(writer.source(pc) for pc in sorted(starts))
    defined = define(text, names)
    return [defined[f"_b{pc}"] if pc in starts else _one_op(op, pc) for pc, op in enumerate(ops)]


def _end_of(ops: list[Op], op: Op, pc: int) -> int | None:
    """The pc after the `if`, `for` or `while` that begins at `pc` with `op`; None for another."""
    if isinstance(op, _ForStart):
        step = ops[pc + 1]
        return step.exit if isinstance(step, _ForNext) else None
    if isinstance(op, _WhileTest):
        return op.exit
    if isinstance(op, _JumpUnless):
        if op.skip < 0:
            return op.target
        skip = ops[op.skip]
        return skip.target if isinstance(skip, _Jump) else None
    return None


def _quiet(op: Op) -> bool:
    """An instruction inside an `if`, a `for` or a `while` that a block runs as Python's
    (`_BlockWriter.quiet`): one that cannot stop or switch frames, or the call of a pack verb that
    cannot ask."""
    if isinstance(op, _CallVerb):
        return not op.program.asks and op.ret is None
    return isinstance(op, _QUIET)


def _block_starts(ops: list[Op]) -> set[int]:
    """The first pc, every pc a jump lands on, and every pc after an instruction that may stop."""
    starts = {0}
    for pc, op in enumerate(ops):
        if isinstance(op, _Jump | _JumpUnless):
            starts.add(op.target)
        elif isinstance(op, _ForNext | _WhileTest):
            starts.add(op.exit)
        elif isinstance(op, _WhileBack):
            starts.update((op.head, op.exit))
        if not isinstance(op, _INLINE) or isinstance(op, _ENDS):
            starts.add(pc + 1)
    return {pc for pc in starts if pc < len(ops)}


def _one_op(op: Op, pc: int) -> Callable[..., Any]:
    def step(frames: list[Any], frame: Frame, rt: Rt) -> Any:
        frame.pc = pc + 1
        return op.run(frames, frame, rt)

    return step


class _BlockWriter:
    """Writes the source of the blocks of one program (see `_blocks`)."""

    def __init__(
        self, program: Program, starts: set[int], fragments: dict[int, Fragment], names: dict[str, Any]
    ):
        self.program = program
        self.starts = starts
        self.fragments = fragments
        self.names = names  # the globals of the blocks: each instruction, and what its fragments read

    def source(self, start: int) -> str:
        """The source of the block that begins at `start`."""
        lines = [f"def _b{start}(frames, frame, rt):", "    env = frame.env"]
        ops, pc = self.program.ops, start
        while True:
            op, k = ops[pc], f"_o{pc}"
            self.names[k] = op
            if isinstance(op, _CallVerb):  # it may switch frames: the block ends with it
                lines += [f"    {line}" for line in self.call_verb(op, k, pc)]
                break
            if isinstance(op, _Push):  # likewise
                lines += [f"    {line}" for line in self.push(op, k, pc)]
                break
            if isinstance(op, _Choose):  # it may ask: the block ends with it
                lines += [f"    {line}" for line in self.choose(op, k, pc)]
                break
            if type(op) is _Ask:  # likewise
                lines += [f"    {line}" for line in self.ask(op, k, pc)]
                break
            quiet = self.quiet(op, k, pc)
            if quiet is not None:  # the whole `if`, `for` or `while` runs here; the block goes on after it
                lines += [f"    {line}" for line in quiet[0]]
                pc = quiet[1]
                continue
            if not isinstance(op, _INLINE):  # it may stop or switch frames: the block ends with it
                lines += [f"    frame.pc = {pc + 1}", f"    return {k}.run(frames, frame, rt)"]
                break
            lines += [f"    {line}" for line in self.inline(op, k)]
            if isinstance(op, _ENDS):
                break
            pc += 1
            if pc in self.starts:
                lines += [f"    frame.pc = {pc}", "    return None"]
                break
        return "\n".join(lines) + "\n\n"

    def quiet(self, op: Op, k: str, pc: int) -> tuple[list[str], int] | None:
        """An `if`, a `for` or a `while` whose instructions cannot stop or switch frames (`_quiet`)
        as Python's, lines of the block, and the pc after it: one block call, not one per branch
        or item. One that calls pack verbs runs so only where their frames could not reach
        MAX_FRAMES (as `call_verb` runs them at once); elsewhere its blocks run it. None for another."""
        end = _end_of(self.program.ops, op, pc)
        if end is None:
            return None
        body = self.program.ops[pc + 1 : end]
        if not all(_quiet(inner) for inner in body):
            return None
        self.names["EngineError"] = EngineError
        try:
            lines = _Structured(self.program, self.fragments, self.names).lines(pc, end)
        except _Unstructured:
            return None
        nesting = [inner.program.nesting for inner in body if isinstance(inner, _CallVerb)]
        if not nesting:
            return lines, end
        return [
            f"if len(frames) < {MAX_FRAMES - max(nesting)}:",
            *[f"    {line}" for line in lines],
            "else:",
            *[f"    {line}" for line in self.inline(op, k)],
            f"    frame.pc = {pc + 1}",
            "    return None",
        ], end

    def value(self, fn: Fn | None, lines: list[str], call: str) -> str:
        """What holds the value of an instruction's function: its fragment's lines are added to
        `lines` and its result returned; without a fragment, the call of the function (`call`)."""
        if fn is None:
            return "None"
        fragment = self.fragments.get(id(fn))
        if fragment is None or fragment.result is None:
            return call
        for name, value in fragment.names.items():
            if self.names.setdefault(name, value) is not value:  # two fragments of one prefix: a bug here
                raise EngineError("ENGINE-INTERNAL", f"{self.program.name}: `{name}` written twice")
        lines += fragment.lines
        return fragment.result

    def choose(self, op: _Choose, k: str, pc: int) -> list[str]:
        """What `_Choose.run` does, as lines of the block (its options written in)."""
        lines = [f"frame.pc = {pc + 1}", *self.options(op, k)]
        return [*lines, *_picked_alone(op.dest), f"return {k}.decision(rt, options)"]

    def ask(self, op: _Ask, k: str, pc: int) -> list[str]:
        """What `_Ask.run` does, as lines of the block (its options written in)."""
        lines = [f"frame.pc = {pc + 1}"]
        options = self.value(op.options, lines, f"{k}.options(rt)")
        self.names["_too_many"] = _too_many
        return [
            *lines,
            f"options = {options}",
            "if not options:",
            f"    raise NoOptions({op.question!r})",
            f"if len(options) > {MAX_OPTIONS}:",
            f"    raise {k}.where.error('ENGINE-LIMIT', _too_many(len(options)))",
            *_picked_alone(op.dest),
            f"return {k}.question_of(frame, rt, options)",
        ]

    def choose_direct(self, op: _Choose, k: str) -> list[str]:
        """What `_Choose.run` does where nothing may stop (`_direct`), as lines."""
        asked = f"{self.program.name} asked a question where none may be asked"
        return [
            *self.options(op, k),
            "if rt.dry:",
            f"    env[{op.dest!r}] = options[rt.dry_choice(len(options))]",
            "elif len(options) == 1:",
            f"    env[{op.dest!r}] = options[0]",
            "else:",
            f"    raise EngineError('ENGINE-INTERNAL', {asked!r})",
        ]

    def options(self, op: _Choose, k: str) -> list[str]:
        """Lines that leave a choice's options in `options`, as `_Choose._options` works them out."""
        inner: list[str] = []
        options = self.value(op.options, inner, f"{k}.options(rt)")
        inner.append(f"options = {options}")
        if op.keep is not None:
            inner.append(f"options = [value for value in options if {k}.keep(rt, value)]")
        lines = _located(inner, k)
        lines += ["if not options:", f"    raise NoOptions({op.purpose!r})"]
        lines += [
            f"if len(options) > {MAX_OPTIONS}:",
            f"    raise {k}.where.error('ENGINE-LIMIT', _too_many(len(options)))",
        ]
        self.names["_too_many"] = _too_many
        return lines

    def call_verb_direct(self, op: _CallVerb, k: str) -> list[str]:
        """A call of a pack verb in a run without frames (`run_sync`), as lines, its arguments written
        in; of a selector that asks, `ret` receives its value."""
        lines: list[str] = []
        values = [self.value(arg, lines, f"{k}.args[{index}](rt)") for index, arg in enumerate(op.args)]
        entries = ", ".join(f"{name!r}: {value}" for name, value in zip(op.names, values, strict=True))
        lines += [f"names = {{{entries}}}", *_spend(k)]
        if op.program.direct is None:
            lines.append(f"value = run_sync({k}.program, rt, names)")
        else:  # (as run_sync runs it)
            self.names[f"{k}_direct"] = op.program.direct
            lines += ["rt.env = names", f"value = {k}_direct(rt)"]
        lines.append("rt.env = env")
        if op.ret is not None:  # a selector that asks: its value
            lines.append(f"env[{op.ret!r}] = value")
        return lines

    def call_verb(self, op: _CallVerb, k: str, pc: int) -> list[str]:
        """What `_CallVerb.run` does, as lines of the block, its arguments written in."""
        lines: list[str] = []
        values = [self.value(arg, lines, f"{k}.args[{index}](rt)") for index, arg in enumerate(op.args)]
        entries = ", ".join(f"{name!r}: {value}" for name, value in zip(op.names, values, strict=True))
        lines += [
            f"names = {{{entries}}}",
            *_spend(k),
            f"if len(frames) >= {MAX_FRAMES}:",
            "    _verbs_too_deep()",
            f"frame.pc = {pc + 1}",
        ]
        callee = op.program
        if not callee.asks:  # it runs at once, when its frames could not reach the bound
            lines.append(f"if len(frames) < {MAX_FRAMES - callee.nesting}:")
            if callee.direct is None:
                lines.append(f"    value = run_sync({k}.program, rt, names)")
            else:  # (as run_sync runs it)
                self.names[f"{k}_direct"] = callee.direct
                lines += ["    rt.env = names", f"    value = {k}_direct(rt)"]
            lines.append("    rt.env = env")
            if op.ret is not None:  # a selector declared to ask whose body does not: its value
                lines.append(f"    env[{op.ret!r}] = value")
            lines.append("    return None")
        lines += [f"frames.append(Frame({k}.program, rt, names, {op.ret!r}))", "return SWITCH"]
        return lines

    def push(self, op: _Push, k: str, pc: int) -> list[str]:
        """What `_Push.run` does, as lines of the block, its arguments written in."""
        inner: list[str] = []
        values = [self.value(arg, inner, f"{k}.args[{index}](rt)") for index, arg in enumerate(op.args)]
        self.names[f"{k}_fn"] = op.fn
        inner += [
            "if rt.dry:",
            f"    {k}._check(rt, [{', '.join(values)}])",
            "    return None",
            f"pushed = {k}_fn({', '.join(['rt', *values])})",
        ]
        lines = [f"frame.pc = {pc + 1}", *_located(inner, k)]
        lines += ["if pushed is None:"]
        if op.dest is not None:
            lines.append(f"    env[{op.dest!r}] = None")
        lines += ["    return None", f"if len(frames) >= {MAX_FRAMES}:", f"    raise {k}.too_deep()"]
        lines += [f"pushed.ret = {op.dest!r}", "frames.append(pushed)", "return SWITCH"]
        return lines

    def inline(self, op: Op, k: str) -> list[str]:
        """What one instruction does (its `run`), as lines of the block (`k`: the instruction's name)."""
        lines: list[str] = []
        if isinstance(op, _Let):
            lines.append(f"env[{op.name!r}] = {self.value(op.fn, lines, f'{k}.fn(rt)')}")
        elif isinstance(op, _Exec):
            lines.append(self.value(op.fn, lines, f"{k}.fn(rt)"))
        elif isinstance(op, _Jump):
            lines += [f"frame.pc = {op.target}", "return None"]
        elif isinstance(op, _JumpUnless):
            test = self.value(op.test, lines, f"{k}.test(rt)")
            lines += [f"if not {test}:", f"    frame.pc = {op.target}", "    return None"]
        elif isinstance(op, _ForStart):
            items = self.value(op.items, lines, f"{k}.items(rt)")
            lines += [
                "if frame.loops is None:",
                "    frame.loops = []",
                f"frame.loops.append([list({items}), 0])",
            ]
        elif isinstance(op, _ForNext):
            lines += [
                "loop = frame.loops[-1]",
                "items, index = loop",
                "if index >= len(items):",
                "    frame.loops.pop()",
                f"    frame.pc = {op.exit}",
                "    return None",
                "rt.loops -= 1",
                "if rt.loops < 0:",
                f"    _loop_limit({k}.where)",
                "loop[1] = index + 1",
                f"env[{op.name!r}] = items[index]",
            ]
        elif isinstance(op, _WhileTest):
            test = self.value(op.test, lines, f"{k}.test(rt)")
            lines += [f"if not {test}:", f"    frame.pc = {op.exit}", "    return None"]
            lines += [
                "if not rt.dry:",
                "    rt.loops -= 1",
                "    if rt.loops < 0:",
                f"        _loop_limit({k}.where)",
            ]
        elif isinstance(op, _WhileBack):
            lines += [f"frame.pc = {op.exit} if rt.dry else {op.head}", "return None"]
        elif isinstance(op, _Return):
            lines.append(f"return finish_frame(frames, {self.value(op.value, lines, f'{k}.value(rt)')})")
        else:
            assert isinstance(op, _FallOff)
            if op.selector:  # a selector that returned nothing stops the effect, as the first of nothing
                lines.append(f"raise NoOptions({f'{self.program.name} returned nothing'!r})")
            else:
                lines.append("return finish_frame(frames, None)")
        return lines


# Instructions a block writes out; after those of _ENDS, nothing more of the block runs.
_INLINE = (_Let, _Exec, _Jump, _JumpUnless, _ForStart, _ForNext, _WhileTest, _WhileBack, _Return, _FallOff)
_ENDS = (_Jump, _WhileBack, _Return, _FallOff)
_QUIET = (_Let, _Exec, _JumpUnless, _Jump, _ForStart, _ForNext, _WhileTest, _WhileBack)


def _picked_alone(dest: str) -> list[str]:
    """Lines that bind `dest` without asking where no one is asked: in a dry run the option the
    path explores, else a lone option (then the block goes on)."""
    return [
        "if rt.dry:",
        f"    env[{dest!r}] = options[rt.dry_choice(len(options))]",
        "    return None",
        "if len(options) == 1:",
        f"    env[{dest!r}] = options[0]",
        "    return None",
    ]


def _located(inner: list[str], k: str) -> list[str]:
    """Lines run so that what fails in them, but a want of options, is located at the
    instruction `k`'s place in the pack (as its `run` locates it)."""
    return [
        "try:",
        *(f"    {line}" for line in inner),
        "except NoOptions:",
        "    raise",
        "except Exception as _e:",
        f"    raise {k}.where.located(_e) from _e",
    ]


def _spend(k: str) -> list[str]:
    """Lines that count the run of a pack verb (instruction `k`, a `_CallVerb`) against the work
    left before the next decision, as `_CallVerb.run` does."""
    return [
        "_game = rt.game",
        "_game.work_left -= 1",
        "if _game.work_left < 0:",
        f"    raise {k}.over_budget()",
    ]

"""Effect trees lowered to programs for the machine: `Compiler`, over the engine's
implementations, and `_Emitter`, which writes the instructions of one program statement by
statement (an argument that asks is worked out into a name first)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import PurePath
from typing import Any, TypeVar

from coh_core.effects import ast
from coh_core.effects.calls import Reach, callees_first, calls_of, chain, reach
from coh_core.effects.registry import NAME_TYPES, Kind, Signature, signature
from coh_core.engine.codegen import Fragment, Source
from coh_core.engine.compile.blocks import _blocks, _direct
from coh_core.engine.compile.dry import DryRuns
from coh_core.engine.compile.model import (
    COLOUR_TYPE,
    COMPILED,
    CompiledBlock,
    Filter,
    Fn,
    Impl,
    PackVerb,
    _constant,
)
from coh_core.engine.compile.ops import (
    _Ask,
    _AskEach,
    _CallVerb,
    _Choose,
    _Exec,
    _Fail,
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
from coh_core.engine.compile.trees import _CHOICES, _bind, _binds, _choices, _default, _reads
from coh_core.engine.compile.where import _too_many, _Where, over_budget
from coh_core.engine.compile.writer import _HELPERS, _Writer
from coh_core.engine.machine import Op, Program, run_sync
from coh_core.engine.runtime import EngineError, Rt
from coh_core.limits import MAX_OPTIONS, MAX_VERB_NESTING
from coh_core.packs.model import EffectSlot

_O = TypeVar("_O", bound=Op)


class Compiler:
    """Turns the ASTs of one pack into programs for the machine, over the engine's implementations.

    `refs` gives the type of each `@id` of the pack; an id of a type whose pieces may be out
    of the game (one of `piece_types`, the types of the kinds of pieces: a piece never dealt; a
    colour nobody plays) is checked as it is used.
    """

    def __init__(
        self,
        impls: dict[str, Impl],
        refs: Mapping[str, str] | None = None,
        verbs: Mapping[str, PackVerb] | None = None,
        piece_types: frozenset[str] = frozenset(),
    ):
        self.impls = impls
        self.refs = dict(refs or {})
        # the types of `@id` that may be out of the game: the pack's pieces', and colours
        self.in_play_types = piece_types | {COLOUR_TYPE}
        self.verbs = dict(verbs or {})  # verbs the pack defines, compiled on first use
        self._bodies: dict[str, Program] = {}
        self._calls = {name: calls_of([verb.tree], self.verbs) for name, verb in self.verbs.items()}
        self._reach = reach(self._calls)  # how deep each verb's calls nest (the checks bound it too)
        # calls that ask a question, worked out into a name first: the built-in choices and the
        # selectors of the pack that ask (`asks: true`)
        self.asking = _CHOICES | {name for name, verb in self.verbs.items() if verb.signature.asks}
        self.programs: dict[str, Program] = {}  # every program compiled, by its id
        self.fragments: dict[int, Fragment] = {}  # by id of the function: see `_function`
        self._selectors: dict[str, Fn] = {}  # the pack's selectors as functions (see `selector_call`)
        self._asked: dict[int, str] = {}  # choices already asked into a name, while lowering a statement
        self.dry = DryRuns(self)  # what dry runs run, and check first
        self._counting: dict[str, bool] = {}  # pack verbs whose runs may count loop iterations

    def block(self, tree: ast.Block, slot: EffectSlot | None, names: frozenset[str]) -> CompiledBlock:
        ident = _program_id(slot)
        program = self.program(tree, set(names), slot, _owner(slot), ident)
        pre = self.precondition(tree, slot, names)
        binds, reads = frozenset(_binds(tree)), frozenset(_reads(tree))
        dry = partial(self.dry_program, tree, set(names), slot, program)  # (compiled when first needed)
        return CompiledBlock(program, slot, pre, binds, reads, dry)

    # --- dry programs and preconditions (`dry.py`) --------------------------------------------

    def dry_program(
        self, tree: ast.Block, scope: set[str], slot: EffectSlot | None, program: Program
    ) -> Program | None:
        """What dry runs of a block run instead of its program (`DryRuns.dry_program`)."""
        return self.dry.dry_program(tree, scope, slot, program)

    def dry_body(self, name: str) -> Program:
        """A pack verb's dry program (`DryRuns.dry_body`)."""
        return self.dry.dry_body(name)

    def precondition(self, tree: ast.Block, slot: EffectSlot | None, names: frozenset[str]) -> Fn | None:
        """A test every dry run of the block that reaches its end passes, or None (`DryRuns.precondition`)."""
        return self.dry.precondition(tree, slot, names)

    def condition(self, tree: ast.Expr, slot: EffectSlot | None, names: frozenset[str]) -> Fn:
        """A test; false when what it reads is not there (the first of nothing, a piece out of play)."""
        writer = _Writer(self, set(names), slot)
        src = writer.src
        with src.block("try:"):
            src.line(f"return bool({writer.pure(tree, 'a condition')})")
        with src.block("except NoOptions:"):
            src.line("return False")
        return src.function(None)

    def program(
        self,
        tree: ast.Block,
        scope: set[str],
        slot: EffectSlot | None,
        name: str,
        ident: str,
        selector: bool = False,
        dry: bool = False,
    ) -> Program:
        """(`dry`: the program of dry runs only, its calls of pack verbs calling their dry programs.)"""
        program = Program(name, ident)
        if ident in self.programs:
            raise EngineError("ENGINE-INTERNAL", f"two programs named `{ident}`")
        self.programs[ident] = program
        _Emitter(self, program.ops, slot, dry).block(tree, scope)
        program.ops.append(_FallOff(selector))
        program.asks = any(op.asks for op in program.ops)
        program.nesting = max(
            (1 + op.program.nesting for op in program.ops if isinstance(op, _CallVerb)), default=0
        )
        program.direct = _direct(program, self.fragments)
        program.blocks = _blocks(program, self.fragments)
        return program

    # --- expressions ------------------------------------------------------------

    def _pure(
        self, node: ast.Expr, scope: set[str], slot: EffectSlot | None, what: str, prefix: str = ""
    ) -> Fn:
        """An expression that may not ask, reporting a failure at itself (see `_Writer.located`).
        (`prefix`: see `_function`.)"""
        writer = _Writer(self, scope, slot, prefix)
        return self._function(writer.src.fragment(writer.pure(node, what)), prefix)

    def _expr(
        self,
        node: ast.Expr,
        scope: set[str],
        slot: EffectSlot | None,
        at: ast.Span | None = None,
        prefix: str = "",
    ) -> Fn:
        """An expression's value (its choices already asked), reporting a failure at `at` if given."""
        writer = _Writer(self, scope, slot, prefix)
        value = writer.expr(node) if at is None else writer.located(node, at)
        return self._function(writer.src.fragment(value), prefix)

    def _function(self, fragment: Fragment, prefix: str) -> Fn:
        """The function of a fragment. With a prefix (one no other instruction of the program has), the
        fragment is kept: an instruction that calls the function is written into a block of its
        program with the fragment instead (`_blocks`)."""
        fn = fragment.function()
        if prefix:
            self.fragments[id(fn)] = fragment
        return fn

    def builtin(self, node: ast.Call, where: _Where) -> tuple[Signature, Impl]:
        sig = signature(node.name)
        impl = self.impls.get(node.name)
        if sig is None or impl is None:
            raise where.error("ENGINE-UNIMPLEMENTED", f"`{node.name}` has no implementation in the engine")
        return sig, impl

    def _pack_selector(self, name: str, args: list[Fn]) -> Fn:
        """A selector the pack defines, called for nothing but what it checks (its value unread)."""
        call = self.selector_call(name)
        return lambda rt: call(rt, *[fn(rt) for fn in args])

    def selector_call(self, name: str) -> Fn:
        """A selector the pack defines, as a function of `rt` and its arguments' values: read at once
        (its body neither asks nor changes anything), in a table of names of its own."""
        found = self._selectors.get(name)
        if found is not None:
            return found
        names = [param.name for param in self.verbs[name].signature.params]
        body = self.body(name)

        def call(rt: Rt, *values: Any) -> Any:
            game = rt.game
            game.work_left -= 1
            if game.work_left < 0:
                raise EngineError("ENGINE-LIMIT", over_budget(name))
            caller = rt.env
            try:
                return run_sync(body, rt, dict(zip(names, values, strict=True)))
            finally:
                rt.env = caller

        self._selectors[name] = call
        return call

    def counts_loops(self, nodes: list[ast.Node]) -> bool:
        """Whether running the trees may count loop iterations: a loop in them, or a call of a pack
        verb whose body may (unsure while that body is being judged: a call of itself)."""
        stack = list(nodes)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.ListComp | ast.MapComp | ast.For | ast.While):
                return True
            if isinstance(node, ast.Call) and node.name in self.verbs:
                found = self._counting.get(node.name)
                if found is None:
                    self._counting[node.name] = True
                    found = self._counting[node.name] = self.counts_loops([self.verbs[node.name].tree])
                if found:
                    return True
            stack.extend(ast.children(node))
        return False

    def body(self, name: str) -> Program:
        """A pack verb's program, compiled once, after those of the verbs it calls (so compiling a
        long chain nests no Python calls). The checks refuse verbs that call themselves, and chains of
        calls deeper than MAX_VERB_NESTING (`EFF-LIMIT`; at play such a verb fails, `ENGINE-LIMIT`)."""
        found = self._bodies.get(name)
        if found is None:
            for inner in callees_first(self._calls, [name]):
                if inner not in self._bodies:
                    self._bodies[inner] = self._compile_body(inner)
            found = self._bodies[name]
        return found

    def _compile_body(self, name: str) -> Program:
        verb = self.verbs[name]
        own = self._reach.get(name)
        if own is not None and own.depth > MAX_VERB_NESTING:
            return _too_deep(name, verb, self._reach)
        self._bodies[name] = _unfinished(name)  # a call back into it while compiling is a cycle
        params = {param.name for param in verb.signature.params}
        selector = verb.signature.kind is Kind.SELECTOR
        return self.program(verb.tree, params, verb.slot, f"verb {name}", f"verb:{name}", selector)

    def arguments(
        self, node: ast.Call, scope: set[str], slot: EffectSlot | None, sig: Signature, prefix: str = ""
    ) -> list[Fn]:
        """The call's arguments in declaration order, defaults filled in (none of them asks), each a
        function of its own (`prefix`: see `_function`)."""
        writer = _Writer(self, scope, slot)
        found: list[Fn] = []
        for index, argument in enumerate(writer.arguments(node, sig)):
            inner = f"{prefix}a{index}_" if prefix else ""
            writer.src = Source(_HELPERS, inner)
            found.append(self._function(writer.src.fragment(argument()), inner))
        return found


# How `_Emitter.asked_arguments` writes the read of an argument, given the writer of the call.
def _write_expr(node: ast.Expr, writer: _Writer) -> str:
    return writer.expr(node)


def _write_literal(value: Any, writer: _Writer) -> str:
    return repr(value)


def _write_name(name: str, writer: _Writer) -> str:
    return f"env[{name!r}]"


def _write_count(read: Callable[[_Writer], str], writer: _Writer) -> str:
    return writer.let(f"max(0, {read(writer)})")


class _Emitter:
    """Writes the instructions of one program, statement by statement."""

    def __init__(self, compiler: Compiler, ops: list[Op], slot: EffectSlot | None, dry: bool = False):
        self.c = compiler
        self.ops = ops
        self.slot = slot
        self.temps = 0
        self.dry = dry  # a dry program: pack verbs called run their own (`Compiler.dry_program`)

    def prefix(self) -> str:
        """A prefix for the names of the source of the instruction emitted next (see `_blocks`)."""
        return f"{len(self.ops)}_"

    def emit(self, op: _O) -> _O:
        self.ops.append(op)
        return op

    def block(self, block: ast.Block, scope: set[str]) -> None:
        inner = set(scope)
        for statement in block.statements:
            self.statement(statement, inner)

    def statement(self, node: ast.Statement, scope: set[str]) -> None:
        if isinstance(node, ast.Let):
            self.let(node, scope)
        elif isinstance(node, ast.If):
            self.if_(node, scope)
        elif isinstance(node, ast.For):
            self.for_(node, scope)
        elif isinstance(node, ast.While):
            self.while_(node, scope)
        elif isinstance(node, ast.Return):
            value = (
                None
                if node.value is None
                else self.c._pure(node.value, scope, self.slot, "a returned value", self.prefix())
            )
            self.emit(_Return(value))
        else:
            self.call(node, scope)

    def let(self, node: ast.Let, scope: set[str]) -> None:
        value = node.value
        if isinstance(value, ast.Call) and value.name in self.c.asking:
            self.choose(value, None, scope, node.name, node.name)
        else:
            self.emit(_Let(node.name, self.read(value, scope, node.span)))
        scope.add(node.name)

    def if_(self, node: ast.If, scope: set[str]) -> None:
        test = self.c._pure(node.test, scope, self.slot, "an if test", self.prefix())
        branch = self.emit(_JumpUnless(test))
        self.block(node.then, scope)
        if node.otherwise is None:
            branch.target = len(self.ops)
            return
        branch.skip = len(self.ops)
        skip = self.emit(_Jump())
        branch.target = len(self.ops)
        self.block(node.otherwise, scope)
        skip.target = len(self.ops)

    def for_(self, node: ast.For, scope: set[str]) -> None:
        self.emit(_ForStart(self.c._pure(node.iterable, scope, self.slot, "a for list", self.prefix())))
        head = len(self.ops)
        step = self.emit(_ForNext(node.name, _Where(node.span, self.slot)))
        self.block(node.body, scope | {node.name})
        self.emit(_Jump(head))
        step.exit = len(self.ops)

    def while_(self, node: ast.While, scope: set[str]) -> None:
        head = len(self.ops)
        test = self.emit(
            _WhileTest(
                self.c._pure(node.test, scope, self.slot, "a while test", self.prefix()),
                _Where(node.span, self.slot),
            )
        )
        self.block(node.body, scope)
        back = self.emit(_WhileBack(head))
        test.exit = back.exit = len(self.ops)

    def call(self, node: ast.Call, scope: set[str]) -> None:
        c, where = self.c, _Where(node.span, self.slot)
        if node.name in c.asking:  # a choice whose answer nobody reads: still asked
            self.choose(node, None, scope, node.name, self.temp())
            return
        pack_verb = c.verbs.get(node.name)
        if pack_verb is not None:
            sig, impl = pack_verb.signature, _NO_IMPL
        else:
            sig, impl = c.builtin(node, where)
            given = _bind(node, [p.name for p in sig.params]).values()
            if not (impl.frame or any(_choices(expr, c.asking) for expr in given)):
                self.emit(_Exec(c._expr(node, scope, self.slot, None, self.prefix())))  # with its arguments
                return
            if not impl.frame:  # its arguments worked out into names, then the call
                reads = self.asked_arguments(node, scope, sig, impl)
                writer = _Writer(c, scope, self.slot, self.prefix())  # (the prefix of the call's instruction)
                value = writer.invoke(sig, impl, where, [partial(read, writer) for read in reads])
                self.emit(_Exec(c._function(writer.src.fragment(value), writer.src.prefix)))
                return
        args = self.arguments(node, scope, sig, impl)
        if pack_verb is not None and sig.kind is not Kind.SELECTOR:
            names = [param.name for param in sig.params]
            body = c.dry_body(node.name) if self.dry else c.body(node.name)
            self.emit(_CallVerb(body, names, args, where))
        elif pack_verb is not None:
            self.emit(_Exec(c._pack_selector(node.name, args)))
        else:
            assert impl.frame  # (a built-in that runs no program was written as source above)
            self.emit(_Push(impl, args, None, where))

    def arguments(self, node: ast.Call, scope: set[str], sig: Signature, impl: Impl) -> list[Fn]:
        """Arguments in declaration order. When one asks a question, each is worked out into a
        name first, in the order written, so that questions and reads keep their order."""
        given = _bind(node, [p.name for p in sig.params])
        if not any(_choices(expr, self.c.asking) for expr in given.values()):
            return self.c.arguments(node, scope, self.slot, sig, self.prefix())
        found: list[Fn] = []
        for index, read in enumerate(self.asked_arguments(node, scope, sig, impl)):
            writer = _Writer(self.c, scope, self.slot, f"{self.prefix()}a{index}_")
            found.append(self.c._function(writer.src.fragment(read(writer)), writer.src.prefix))
        return found

    def asked_arguments(
        self, node: ast.Call, scope: set[str], sig: Signature, impl: Impl
    ) -> list[Callable[[_Writer], str]]:
        """Arguments of which one asks: each worked out into a name now, in the order written (an
        instruction each), so that questions and reads keep their order; returned is how to
        write each one's read (a default and a bare name are read where they are used)."""
        given = _bind(node, [p.name for p in sig.params])
        found: list[Callable[[_Writer], str]] = []
        for param in sig.params:
            expr = given.get(param.name)
            if expr is None:
                read = partial(_write_expr, _default(param.default or ""))
            elif param.type in NAME_TYPES and isinstance(expr, ast.Name):
                read = partial(_write_literal, expr.name)  # a bare name, never a variable's value
            else:
                temp = self.temp()
                if isinstance(expr, ast.Call) and expr.name in self.c.asking:
                    keep = impl.filters.get(param.name) if expr.name == "choose" else None
                    self.choose(expr, keep, scope, f"{node.name}.{param.name}", temp)
                else:
                    self.emit(_Let(temp, self.read(expr, scope, expr.span)))
                read = partial(_write_name, temp)
            if param.type == "count":  # a computed count below zero counts as zero
                read = partial(_write_count, read)
            found.append(read)
        return found

    def read(self, expr: ast.Expr, scope: set[str], at: ast.Span | None = None) -> Fn:
        """An expression's value, its choices (if any) asked first into names, innermost first; a
        failure in working it out is reported at `at`, if given."""
        for call in _choices(expr, self.c.asking):
            if id(call) not in self.c._asked:
                self.choose(call, None, scope, call.name, self.temp())
        return self.c._expr(expr, scope, self.slot, at, self.prefix())

    def choose(self, node: ast.Call, keep: Filter | None, scope: set[str], purpose: str, dest: str) -> None:
        """Ask the acting player to choose; the answer is bound to `dest`. (`_Choose` reports a
        failure in working out the options at the choice.)"""
        c, where = self.c, _Where(node.span, self.slot)
        verb = c.verbs.get(node.name)
        if verb is not None:  # a selector of the pack that asks: its frame returns the value
            params = verb.signature.params
            args = self.arguments(node, scope, verb.signature, _NO_IMPL)
            self.emit(_CallVerb(c.body(node.name), [p.name for p in params], args, where, dest))
            c._asked[id(node)] = dest
            return
        if node.name in ("ask", "ask_each", "may"):
            self.emit(self.ask(node, scope, dest, where))
            c._asked[id(node)] = dest
            return
        sig, impl = c.builtin(node, where) if node.name not in COMPILED else (signature(node.name), _NO_IMPL)
        assert sig is not None
        if node.name not in COMPILED:  # engine code that runs as a program of its own
            self.emit(_Push(impl, c.arguments(node, scope, self.slot, sig), dest, where))
            c._asked[id(node)] = dest
            return
        given = _bind(node, [p.name for p in sig.params])
        if node.name == "choose":
            options = self.read(given["options"], scope)
        else:
            options = _number_range(self.read(given["low"], scope), self.read(given["high"], scope))
        self.emit(_Choose(options, keep, purpose, dest, where))
        c._asked[id(node)] = dest

    def ask(self, node: ast.Call, scope: set[str], dest: str, where: _Where) -> _Ask:
        """`ask(player, options, question=q, answer=a, name=value...)`, `ask_each(options, ...)` and
        `may(player, option, ...)` (their values never ask)."""
        firsts = [arg.value for arg in node.args if arg.keyword is None]
        named = {arg.keyword: arg.value for arg in node.args if arg.keyword is not None}
        question, answer = named.pop("question"), named.pop("answer")
        assert isinstance(question, ast.Name) and isinstance(answer, ast.Name)
        pure = self.c._pure
        prompt = [(name, pure(value, scope, self.slot, "a value of `ask`")) for name, value in named.items()]
        options = pure(firsts[-1], scope, self.slot, "the options of `ask`")
        if node.name == "ask_each":
            return _AskEach(_constant(None), options, question.name, answer.name, prompt, dest, where)
        player = pure(firsts[0], scope, self.slot, "the player of `ask`")
        kind = _May if node.name == "may" else _Ask
        return kind(player, options, question.name, answer.name, prompt, dest, where)

    def temp(self) -> str:
        """A name no effect can write (`.0`, `.1`...): where a worked-out value waits."""
        self.temps += 1
        return f".{self.temps}"


def _number_range(low: Fn, high: Fn) -> Fn:
    def options(rt: Rt) -> list[int]:
        first, last = low(rt), high(rt)
        if last - first + 1 > MAX_OPTIONS:  # refused before the range becomes a list
            raise EngineError("ENGINE-LIMIT", _too_many(last - first + 1))
        return list(range(first, last + 1))

    return options


def _program_id(slot: EffectSlot | None) -> str:
    """Where a block is written, as the same text on every load of the pack: file and path."""
    if slot is None:
        return f"effect:{next(_ANONYMOUS)}"
    return f"{slot.doc.owner}/{PurePath(slot.doc.path).name}:" + "/".join(map(str, slot.path))


_ANONYMOUS = itertools.count(1)


def _owner(slot: EffectSlot | None) -> str:
    """Whose program it is, for messages."""
    return "an effect" if slot is None else slot.owner


_NO_IMPL = Impl(lambda rt: None)  # a pack verb has no engine implementation (nor choice filters)


def _too_deep(name: str, verb: PackVerb, reaches: Mapping[str, Reach]) -> Program:
    """The program of a verb whose calls nest deeper than play allows: it fails when called."""
    program = Program(f"verb {name}")
    found = chain(name, reaches)
    at = [call.span for call in ast.calls(verb.tree) if call.name == found[1]]
    where = _Where(min(at, key=lambda span: span.start) if at else verb.tree.span, verb.slot)
    shown = found[: MAX_VERB_NESTING + 1] + (["..."] if len(found) > MAX_VERB_NESTING + 1 else [])
    message = f"more than {MAX_VERB_NESTING} pack verbs would run inside each other: {' -> '.join(shown)}"
    program.ops.append(_Fail(where.error("ENGINE-LIMIT", message)))
    return program


def _unfinished(name: str) -> Program:
    """The program of a verb being compiled: a call of it from inside itself is a cycle."""
    program = Program(f"verb {name}")
    program.ops.append(_Fail(EngineError("VERB-RECURSION", f"`{name}` calls itself")))
    return program

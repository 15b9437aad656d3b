"""Compile effect ASTs to Python closures once per pack load; play never walks a tree.

An expression compiles to a `Code`: a function of the runtime and whether that function
is a generator (it may ask a player a question, so callers `yield from` it). Statements
compile to generator functions. Runtime errors name the entity and the source position,
and the bounds of `coh_core.limits` hold: numbers stay within MAX_NUMBER, counts are never
negative, a run of one effect takes at most MAX_LOOP_STEPS loop iterations.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NoReturn

from coh_core.effects import ast
from coh_core.effects.parser import parse_condition
from coh_core.effects.registry import Kind, Signature, signature
from coh_core.engine.runtime import EngineError, NoOptions, Rt, Steps
from coh_core.errors import Location
from coh_core.limits import MAX_LOOP_STEPS, MAX_NUMBER
from coh_core.packs.model import EffectSlot

Fn = Callable[..., Any]
Filter = Callable[[Rt, Any], bool]


@dataclass(frozen=True)
class Impl:
    """How the engine runs one verb or selector of the registry."""

    fn: Fn  # called as fn(rt, *arguments in declaration order)
    gen: bool = False  # fn returns a generator (it asks a question)
    filters: dict[str, Filter] = field(default_factory=dict)  # narrows a direct `choose` argument
    check: Fn | None = None  # in a dry run: raise NoOptions when the verb could not happen


@dataclass(frozen=True)
class Code:
    fn: Fn
    gen: bool


_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
}
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class CompiledBlock:
    """An effect ready to run: `yield from block.run(rt)`."""

    __slots__ = ("run", "slot")

    def __init__(self, run: Callable[[Rt], Steps], slot: EffectSlot | None):
        self.run = run
        self.slot = slot

    def location(self) -> Location | None:
        """Where the effect's text begins in its pack."""
        return None if self.slot is None else self.slot.doc.offset_in_scalar(self.slot.path, 0)


class Compiler:
    """Turns the ASTs of one pack into closures over the engine's implementations.

    `refs` gives the type of each `@id` of the pack; an id of a type whose pieces may be out
    of the game (a character never dealt, a colour nobody plays) is checked as it is used.
    """

    def __init__(
        self,
        impls: dict[str, Impl],
        refs: Mapping[str, str] | None = None,
        verbs: Mapping[str, PackVerb] | None = None,
    ):
        self.impls = impls
        self.refs = dict(refs or {})
        self.verbs = dict(verbs or {})  # verbs the pack defines, compiled on first use
        self._bodies: dict[str, Fn] = {}

    def block(self, tree: ast.Block, slot: EffectSlot | None, names: frozenset[str]) -> CompiledBlock:
        return CompiledBlock(self._block(tree, set(names), slot), slot)

    def condition(self, tree: ast.Expr, slot: EffectSlot | None, names: frozenset[str]) -> Fn:
        """A test; false when what it reads is not there (the first of nothing, a piece out of play)."""
        test = self._pure(tree, set(names), slot, "a condition")

        def holds(rt: Rt) -> bool:
            try:
                return bool(test(rt))
            except NoOptions:
                return False

        return holds

    # --- statements -------------------------------------------------------------

    def _block(self, block: ast.Block, scope: set[str], slot: EffectSlot | None) -> Callable[[Rt], Steps]:
        inner = set(scope)
        steps = [self._statement(s, inner, slot) for s in block.statements]

        def run(rt: Rt) -> Steps:
            for gen, fn in steps:
                if gen:
                    yield from fn(rt)
                else:
                    fn(rt)

        return run

    def _statement(self, node: ast.Statement, scope: set[str], slot: EffectSlot | None) -> tuple[bool, Fn]:
        if isinstance(node, ast.Let):
            return self._let(node, scope, slot)
        if isinstance(node, ast.If):
            return True, self._if(node, scope, slot)
        if isinstance(node, ast.For):
            return True, self._for(node, scope, slot)
        if isinstance(node, ast.While):
            return True, self._while(node, scope, slot)
        if isinstance(node, ast.Return):
            return False, self._return(node, scope, slot)
        code = self._expr(node, scope, slot)  # a call: it reports its own failures, located
        return code.gen, code.fn

    def _let(self, node: ast.Let, scope: set[str], slot: EffectSlot | None) -> tuple[bool, Fn]:
        if isinstance(node.value, ast.Call) and node.value.name == "choose":
            value = self._call(node.value, scope, slot, node.name)
        else:
            value = self._expr(node.value, scope, slot)
        scope.add(node.name)
        name, fn = node.name, value.fn
        if not value.gen:

            def bind(rt: Rt) -> None:
                rt.env[name] = fn(rt)

            return False, _located(bind, node.span, slot)

        def bind_asked(rt: Rt) -> Steps:
            rt.env[name] = yield from fn(rt)

        return True, bind_asked

    def _if(self, node: ast.If, scope: set[str], slot: EffectSlot | None) -> Fn:
        test = self._pure(node.test, scope, slot, "an if test")
        then = self._block(node.then, scope, slot)
        otherwise = self._block(node.otherwise, scope, slot) if node.otherwise else None

        def run(rt: Rt) -> Steps:
            if test(rt):
                yield from then(rt)
            elif otherwise is not None:
                yield from otherwise(rt)

        return run

    def _for(self, node: ast.For, scope: set[str], slot: EffectSlot | None) -> Fn:
        items = self._pure(node.iterable, scope, slot, "a for list")
        name = node.name
        body = self._block(node.body, scope | {name}, slot)
        where = _Where(node.span, slot)

        def run(rt: Rt) -> Steps:
            for item in list(items(rt)):
                _count_iteration(rt, where)
                rt.env[name] = item
                yield from body(rt)

        return run

    def _return(self, node: ast.Return, scope: set[str], slot: EffectSlot | None) -> Fn:
        value = None if node.value is None else self._pure(node.value, scope, slot, "a returned value")

        def leave(rt: Rt) -> None:
            raise _Return(None if value is None else value(rt))

        return leave

    def _while(self, node: ast.While, scope: set[str], slot: EffectSlot | None) -> Fn:
        test = self._pure(node.test, scope, slot, "a while test")
        body = self._block(node.body, scope, slot)
        where = _Where(node.span, slot)

        def run(rt: Rt) -> Steps:
            if rt.dry:  # a dry run changes nothing, so the test would hold for ever: one pass tells
                if test(rt):
                    yield from body(rt)
                return
            while test(rt):
                _count_iteration(rt, where)
                yield from body(rt)

        return run

    # --- expressions ------------------------------------------------------------

    def _pure(self, node: ast.Expr, scope: set[str], slot: EffectSlot | None, what: str) -> Fn:
        code = self._expr(node, scope, slot)
        if code.gen:
            raise _Where(node.span, slot).error("EFF-CHOICE-IN-CONDITION", f"{what} cannot ask a question")
        return _located(code.fn, node.span, slot)

    def _expr(self, node: ast.Expr, scope: set[str], slot: EffectSlot | None) -> Code:
        if isinstance(node, ast.IntLit | ast.BoolLit | ast.StrLit):
            return _constant(node.value)
        if isinstance(node, ast.Ref):
            return self._ref(node)
        if isinstance(node, ast.Name):
            return _name(node.name) if node.name in scope else _constant(node.name)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node, scope, slot)
        if isinstance(node, ast.ListLit):
            items = [self._pure(item, scope, slot, "an item of a list") for item in node.items]
            return Code(lambda rt: [item(rt) for item in items], False)
        if isinstance(node, ast.Index):
            return self._index(node, scope, slot)
        if isinstance(node, ast.BinOp):
            return self._binary(node, scope, slot)
        return self._call(node, scope, slot)

    def _ref(self, node: ast.Ref) -> Code:
        """`@id`; of a piece that may be out of play, the effect stops where it is used without it."""
        kind, ident = self.refs.get(node.id), node.id
        if kind is None or kind not in _IN_PLAY_TYPES:
            return _constant(ident)

        def read(rt: Rt) -> str:
            if not rt.game.in_play(kind, ident):
                raise NoOptions(ident)
            return ident

        return Code(read, False)

    def _unary(self, node: ast.UnaryOp, scope: set[str], slot: EffectSlot | None) -> Code:
        operand = self._pure(node.operand, scope, slot, "an operand")
        if node.op == "not":
            return Code(lambda rt: not operand(rt), False)
        return Code(lambda rt: -operand(rt), False)

    def _index(self, node: ast.Index, scope: set[str], slot: EffectSlot | None) -> Code:
        """`items[n]`; past either end there is nothing: the effect stops, as with the first of none."""
        target = self._pure(node.target, scope, slot, "an indexed list")
        index = self._pure(node.index, scope, slot, "an index")

        def read(rt: Rt) -> Any:
            items, at = target(rt), index(rt)
            if not 0 <= at < len(items):
                raise NoOptions(f"index {at}")
            return items[at]

        return Code(read, False)

    def _binary(self, node: ast.BinOp, scope: set[str], slot: EffectSlot | None) -> Code:
        left = self._pure(node.left, scope, slot, "an operand")
        right = self._pure(node.right, scope, slot, "an operand")
        if node.op == "and":
            return Code(lambda rt: left(rt) and right(rt), False)
        if node.op == "or":
            return Code(lambda rt: left(rt) or right(rt), False)
        if node.op in _ARITHMETIC:
            return _arithmetic(_ARITHMETIC[node.op], left, right, _Where(node.span, slot))
        op = _BINARY[node.op]
        return Code(lambda rt: op(left(rt), right(rt)), False)

    def _call(
        self, node: ast.Call, scope: set[str], slot: EffectSlot | None, purpose: str | None = None
    ) -> Code:
        if node.name in self.verbs:
            return self._pack_verb(node, scope, slot)
        sig = signature(node.name)
        impl = self.impls.get(node.name)
        if sig is None or impl is None:
            raise EngineError("ENGINE-UNIMPLEMENTED", f"`{node.name}` has no implementation in the engine")
        if node.name == "log":
            args = self._log_arguments(node, scope, slot)
        else:
            args = self._arguments(node, impl, scope, slot)
        if node.name in ("choose", "choose_number"):
            args.append(_constant(purpose or node.name))
        return _apply(impl, args, sig.kind != Kind.SELECTOR, _Where(node.span, slot))

    def _pack_verb(self, node: ast.Call, scope: set[str], slot: EffectSlot | None) -> Code:
        """A call of a verb the pack defines: its body runs with only its parameters as names."""
        verb = self.verbs[node.name]
        args = self._arguments(node, _NO_IMPL, scope, slot, verb.signature)
        names = [param.name for param in verb.signature.params]
        body = self._body(node.name)
        if verb.signature.kind is Kind.SELECTOR:
            return self._pack_selector(node.name, args, names, body, _Where(node.span, slot))

        def run(rt: Rt) -> Steps:
            values = []
            for arg in args:
                values.append((yield from arg.fn(rt)) if arg.gen else arg.fn(rt))
            caller = rt.env
            rt.env = dict(zip(names, values, strict=True))
            try:
                yield from body(rt)
            except _Return:
                return
            finally:
                rt.env = caller

        return Code(run, True)

    def _pack_selector(self, name: str, args: list[Code], names: list[str], body: Fn, where: _Where) -> Code:
        """A selector the pack defines: read at once (its body neither asks nor changes anything)."""
        if any(arg.gen for arg in args):
            raise where.error("EFF-CHOICE-IN-CONDITION", f"the arguments of `{name}` cannot ask a question")
        plain = [arg.fn for arg in args]

        def read(rt: Rt) -> Any:
            caller = rt.env
            rt.env = dict(zip(names, [fn(rt) for fn in plain], strict=True))
            try:
                for _ in body(rt):
                    raise where.error("ENGINE-INTERNAL", f"`{name}` asked a question")
            except _Return as returned:
                return returned.value
            finally:
                rt.env = caller
            raise NoOptions(f"{name} returned nothing")  # as the first of nothing: the effect stops

        return Code(read, False)

    def _body(self, name: str) -> Fn:
        """A pack verb's body, compiled once; the checks refuse verbs that call themselves."""
        if name not in self._bodies:
            verb = self.verbs[name]
            self._bodies[name] = _unfinished(name)  # a call back into it while compiling is a cycle
            params = {param.name for param in verb.signature.params}
            self._bodies[name] = self._block(verb.tree, params, verb.slot)
        return self._bodies[name]

    def _arguments(
        self,
        node: ast.Call,
        impl: Impl,
        scope: set[str],
        slot: EffectSlot | None,
        sig: Signature | None = None,
    ) -> list[Code]:
        sig = sig or signature(node.name)
        assert sig is not None
        given = _bind(node, [p.name for p in sig.params])
        codes: list[Code] = []
        for param in sig.params:
            expr = given.get(param.name)
            if expr is None:
                codes.append(self._expr(_default(param.default or ""), scope, slot))
            elif isinstance(expr, ast.Call) and expr.name == "choose":
                keep = impl.filters.get(param.name)
                codes.append(self._choose(expr, keep, scope, slot, f"{node.name}.{param.name}"))
            else:
                codes.append(self._expr(expr, scope, slot))
            if param.type == "count":
                codes[-1] = _not_below_zero(codes[-1])
        return codes

    def _log_arguments(self, node: ast.Call, scope: set[str], slot: EffectSlot | None) -> list[Code]:
        """`log(message, name=value, ..., to=players)` as the message, who sees the entry (None:
        everyone) and the placeholders' values by name (the checker made sure none of them asks)."""
        head, *rest = node.args
        assert isinstance(head.value, ast.Name)
        named = {
            arg.keyword: self._pure(arg.value, scope, slot, "a value of `log`")
            for arg in rest
            if arg.keyword is not None
        }
        audience = named.pop("to", None)
        values = list(named.items())
        return [
            _constant(head.value.name),
            _constant(None) if audience is None else Code(audience, False),
            Code(lambda rt: {name: read(rt) for name, read in values}, False),
        ]

    def _choose(
        self, node: ast.Call, keep: Filter | None, scope: set[str], slot: EffectSlot | None, purpose: str
    ) -> Code:
        """`choose(options)` that names what it is for, narrowed by the verb that takes the answer."""
        if keep is None:
            return self._call(node, scope, slot, purpose)
        options = self._pure(node.args[0].value, scope, slot, "a choice's options")
        choose = self.impls["choose"].fn
        where = _Where(node.span, slot)

        def run(rt: Rt) -> Steps:
            try:
                kept = [value for value in options(rt) if keep(rt, value)]
                return (yield from choose(rt, kept, purpose))
            except NoOptions:
                raise
            except Exception as exc:
                where.fail(exc)

        return Code(run, True)


def _bind(node: ast.Call, names: list[str]) -> dict[str, ast.Expr]:
    bound: dict[str, ast.Expr] = {}
    for index, arg in enumerate(node.args):
        bound[arg.keyword or names[index]] = arg.value
    return bound


@cache
def _default(source: str) -> ast.Expr:
    return parse_condition(source)


@dataclass(frozen=True)
class PackVerb:
    """A verb the pack defines: its signature, its parsed body, and where the body is written."""

    signature: Signature
    tree: ast.Block
    slot: EffectSlot


_NO_IMPL = Impl(lambda rt: None)  # a pack verb has no engine implementation (nor choice filters)


def _unfinished(name: str) -> Fn:
    def run(rt: Rt) -> Steps:
        raise EngineError("VERB-RECURSION", f"`{name}` calls itself")
        yield

    return run


class _Return(Exception):
    """`return` in a pack verb or selector: leaves its body, with the value of a selector."""

    def __init__(self, value: Any):
        super().__init__("return")
        self.value = value


def _count_iteration(rt: Rt, where: _Where) -> None:
    """Nested loops multiply: every iteration of every loop of one run counts against the bound."""
    rt.loops -= 1
    if rt.loops < 0:
        raise where.error(
            "ENGINE-LIMIT", f"more than {MAX_LOOP_STEPS:,} loop iterations in one run of an effect"
        )


def _constant(value: Any) -> Code:
    return Code(lambda rt: value, False)


# Types of `@id` whose pieces may be out of the game: `Game.in_play` says which are in it.
_IN_PLAY_TYPES = frozenset({"character", "colour"})


def _not_below_zero(code: Code) -> Code:
    """A count argument: a computed count below zero counts as zero (negative literals are
    reported by the checker)."""
    fn = code.fn
    if not code.gen:
        return Code(lambda rt: max(0, fn(rt)), False)

    def run(rt: Rt) -> Steps:
        return max(0, (yield from fn(rt)))

    return Code(run, True)


def _arithmetic(op: Callable[[int, int], int], left: Fn, right: Fn, where: _Where) -> Code:
    """`+ - * //` on numbers that stay within MAX_NUMBER, so that no loop can grow one without end."""

    def run(rt: Rt) -> int:
        a, b = left(rt), right(rt)
        if op is operator.floordiv and b == 0:
            raise where.error("EFF-RUNTIME", "division by zero")
        value = op(a, b)
        if not -MAX_NUMBER <= value <= MAX_NUMBER:
            raise where.error("ENGINE-LIMIT", f"a number beyond {MAX_NUMBER:,} in magnitude")
        return value

    return Code(run, False)


def _name(name: str) -> Code:
    return Code(lambda rt: rt.env[name], False)


def _apply(impl: Impl, args: list[Code], changes_game: bool, where: _Where) -> Code:
    """Call an implementation; a generator when it or any argument may ask a question.

    In a dry run a verb or procedure only checks that it could happen; selectors still read.
    A failure inside is reported at the call (the innermost call that knew nothing of it).
    """
    fn, check, gen = impl.fn, impl.check, impl.gen
    if not gen and not any(a.gen for a in args):
        plain = [a.fn for a in args]

        def call(rt: Rt) -> Any:
            try:
                values = [p(rt) for p in plain]
                return _verb(rt, fn, check, values) if changes_game else fn(rt, *values)
            except NoOptions:
                raise
            except Exception as exc:
                where.fail(exc)

        return Code(call, False)

    def run(rt: Rt) -> Steps:
        try:
            values = []
            for arg in args:
                values.append((yield from arg.fn(rt)) if arg.gen else arg.fn(rt))
            if not changes_game:
                return (yield from fn(rt, *values)) if gen else fn(rt, *values)
            if gen:
                return (yield from _asking_verb(rt, fn, check, values))
            return _verb(rt, fn, check, values)
        except NoOptions:
            raise
        except Exception as exc:
            where.fail(exc)

    return Code(run, True)


def _verb(rt: Rt, fn: Fn, check: Fn | None, values: list[Any]) -> Any:
    if rt.dry:
        if check is not None:
            check(rt, *values)
        return None
    return fn(rt, *values)


def _asking_verb(rt: Rt, fn: Fn, check: Fn | None, values: list[Any]) -> Steps:
    if rt.dry:
        if check is not None:
            check(rt, *values)
        return None
    return (yield from fn(rt, *values))


def _located(fn: Fn, span: ast.Span, slot: EffectSlot | None) -> Fn:
    """Wrap a plain expression so a failure names the entity and the source position."""
    where = _Where(span, slot)

    def run(rt: Rt) -> Any:
        try:
            return fn(rt)
        except NoOptions:
            raise
        except Exception as exc:
            where.fail(exc)

    return run


class _Where:
    """A place in a pack's effect: where its errors point, and how they name it."""

    __slots__ = ("slot", "span")

    def __init__(self, span: ast.Span, slot: EffectSlot | None):
        self.span = span
        self.slot = slot

    def location(self) -> Location | None:
        return None if self.slot is None else self.slot.doc.offset_in_scalar(self.slot.path, self.span.start)

    def error(self, code: str, message: str) -> EngineError:
        """An error at this place: `in OWNER, `SNIPPET`: message`."""
        if self.slot is None:
            return EngineError(code, message)
        return EngineError(code, f"in {self.slot.owner}, `{self.snippet()}`: {message}", self.location())

    def fail(self, exc: Exception) -> NoReturn:
        """Report a failure inside this place: an engine error keeps its code and, once located,
        its place (the innermost effect that failed); anything else becomes EFF-RUNTIME."""
        if isinstance(exc, EngineError):
            if exc.location is not None:
                raise exc
            raise self.error(exc.code, exc.message) from exc
        # out of stack (triggers nested deeper than the interpreter goes) or of memory: a bound
        code = "ENGINE-LIMIT" if isinstance(exc, RecursionError | MemoryError) else "EFF-RUNTIME"
        raise self.error(code, runtime_message(exc)) from exc

    def snippet(self) -> str:
        """The source of the place, its first line, shortened."""
        assert self.slot is not None
        text = self.slot.source[self.span.start : self.span.end].strip().splitlines()
        first = text[0] if text else ""
        return first if len(first) <= _SNIPPET_CHARS else first[: _SNIPPET_CHARS - 3] + "..."


_SNIPPET_CHARS = 60
# An object's default repr (`<pkg.Class object at 0x7f...>`) says nothing to a pack's author.
_REPR = re.compile(r"<([\w.]+?)(?: object)? at 0x[0-9a-fA-F]+>")


def runtime_message(exc: BaseException) -> str:
    """A failure the engine did not foresee, in words a pack's author can act on."""
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, RecursionError):
        return "effects nested too deeply (triggers firing triggers that fire triggers...)"
    if isinstance(exc, MemoryError):
        return "out of memory"
    detail = _REPR.sub(lambda m: m.group(1).rsplit(".", 1)[-1], str(exc))
    return f"the engine failed ({type(exc).__name__}: {detail})"


def walk_calls(tree: ast.Block | ast.Expr) -> Iterator[str]:
    """Every call name in a tree (for the engine's coverage check of the registry)."""
    return (call.name for call in ast.calls(tree))

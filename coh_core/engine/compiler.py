"""Compile effect ASTs to Python closures once per pack load; play never walks a tree.

An expression compiles to a `Code`: a function of the runtime and whether that function
is a generator (it may ask a player a question, so callers `yield from` it). Statements
compile to generator functions. Runtime errors name the entity and the source position.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from coh_core.effects import ast
from coh_core.effects.parser import parse_condition
from coh_core.effects.registry import Kind, signature
from coh_core.engine.runtime import EngineError, NoOptions, Rt, Steps
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


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
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


class Compiler:
    """Turns the ASTs of one pack into closures over the engine's implementations."""

    def __init__(self, impls: dict[str, Impl]):
        self.impls = impls

    def block(self, tree: ast.Block, slot: EffectSlot | None, names: frozenset[str]) -> CompiledBlock:
        return CompiledBlock(self._block(tree, set(names), slot), slot)

    def condition(self, tree: ast.Expr, slot: EffectSlot | None, names: frozenset[str]) -> Fn:
        code = self._expr(tree, set(names), slot)
        if code.gen:
            raise EngineError("EFF-CHOICE-IN-CONDITION", f"a condition cannot ask a question ({slot})")
        return _located(code.fn, tree.span, slot)

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
        code = self._expr(node, scope, slot)
        return code.gen, _located(code.fn, node.span, slot)

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

        def run(rt: Rt) -> Steps:
            for item in list(items(rt)):
                rt.env[name] = item
                yield from body(rt)

        return run

    # --- expressions ------------------------------------------------------------

    def _pure(self, node: ast.Expr, scope: set[str], slot: EffectSlot | None, what: str) -> Fn:
        code = self._expr(node, scope, slot)
        if code.gen:
            raise EngineError("EFF-CHOICE-IN-CONDITION", f"{what} cannot ask a question ({slot})")
        return _located(code.fn, node.span, slot)

    def _expr(self, node: ast.Expr, scope: set[str], slot: EffectSlot | None) -> Code:
        if isinstance(node, ast.IntLit | ast.BoolLit | ast.StrLit):
            return _constant(node.value)
        if isinstance(node, ast.Ref):
            return _constant(node.id)
        if isinstance(node, ast.Name):
            return _name(node.name) if node.name in scope else _constant(node.name)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node, scope, slot)
        if isinstance(node, ast.BinOp):
            return self._binary(node, scope, slot)
        return self._call(node, scope, slot)

    def _unary(self, node: ast.UnaryOp, scope: set[str], slot: EffectSlot | None) -> Code:
        operand = self._pure(node.operand, scope, slot, "an operand")
        if node.op == "not":
            return Code(lambda rt: not operand(rt), False)
        return Code(lambda rt: -operand(rt), False)

    def _binary(self, node: ast.BinOp, scope: set[str], slot: EffectSlot | None) -> Code:
        left = self._pure(node.left, scope, slot, "an operand")
        right = self._pure(node.right, scope, slot, "an operand")
        if node.op == "and":
            return Code(lambda rt: left(rt) and right(rt), False)
        if node.op == "or":
            return Code(lambda rt: left(rt) or right(rt), False)
        op = _BINARY[node.op]
        return Code(lambda rt: op(left(rt), right(rt)), False)

    def _call(
        self, node: ast.Call, scope: set[str], slot: EffectSlot | None, purpose: str | None = None
    ) -> Code:
        sig = signature(node.name)
        impl = self.impls.get(node.name)
        if sig is None or impl is None:
            raise EngineError("ENGINE-UNIMPLEMENTED", f"`{node.name}` has no implementation in the engine")
        args = self._arguments(node, impl, scope, slot)
        if node.name in ("choose", "choose_number"):
            args.append(_constant(purpose or node.name))
        return _apply(impl, args, changes_game=sig.kind != Kind.SELECTOR)

    def _arguments(self, node: ast.Call, impl: Impl, scope: set[str], slot: EffectSlot | None) -> list[Code]:
        sig = signature(node.name)
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
        return codes

    def _choose(
        self, node: ast.Call, keep: Filter | None, scope: set[str], slot: EffectSlot | None, purpose: str
    ) -> Code:
        """`choose(options)` that names what it is for, narrowed by the verb that takes the answer."""
        if keep is None:
            return self._call(node, scope, slot, purpose)
        options = self._pure(node.args[0].value, scope, slot, "a choice's options")
        choose = self.impls["choose"].fn

        def run(rt: Rt) -> Steps:
            kept = [value for value in options(rt) if keep(rt, value)]
            return (yield from choose(rt, kept, purpose))

        return Code(run, True)


def _bind(node: ast.Call, names: list[str]) -> dict[str, ast.Expr]:
    bound: dict[str, ast.Expr] = {}
    for index, arg in enumerate(node.args):
        bound[arg.keyword or names[index]] = arg.value
    return bound


@cache
def _default(source: str) -> ast.Expr:
    return parse_condition(source)


def _constant(value: Any) -> Code:
    return Code(lambda rt: value, False)


def _name(name: str) -> Code:
    return Code(lambda rt: rt.env[name], False)


def _apply(impl: Impl, args: list[Code], changes_game: bool) -> Code:
    """Call an implementation; a generator when it or any argument may ask a question.

    In a dry run a verb or procedure only checks that it could happen; selectors still read.
    """
    fn, check, gen = impl.fn, impl.check, impl.gen
    if not any(a.gen for a in args):
        plain = [a.fn for a in args]
        if not changes_game:
            if gen:
                return Code(lambda rt: fn(rt, *[p(rt) for p in plain]), True)
            return Code(lambda rt: fn(rt, *[p(rt) for p in plain]), False)
        if gen:
            return Code(lambda rt: _asking_verb(rt, fn, check, [p(rt) for p in plain]), True)
        return Code(lambda rt: _verb(rt, fn, check, [p(rt) for p in plain]), False)

    def run(rt: Rt) -> Steps:
        values = []
        for arg in args:
            values.append((yield from arg.fn(rt)) if arg.gen else arg.fn(rt))
        if not changes_game:
            return (yield from fn(rt, *values)) if gen else fn(rt, *values)
        if gen:
            return (yield from _asking_verb(rt, fn, check, values))
        return _verb(rt, fn, check, values)

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
    """Wrap a statement so an unexpected failure names the entity and the source position."""

    def run(rt: Rt) -> Any:
        try:
            return fn(rt)
        except (NoOptions, EngineError):
            raise
        except Exception as exc:
            raise _runtime_error(exc, span, slot) from exc

    return run


def _runtime_error(exc: Exception, span: ast.Span, slot: EffectSlot | None) -> EngineError:
    if slot is None:
        return EngineError("EFF-RUNTIME", f"{type(exc).__name__}: {exc}")
    location = slot.doc.offset_in_scalar(slot.path, span.start)
    snippet = slot.source[span.start : span.end]
    return EngineError("EFF-RUNTIME", f"in {slot.owner}, `{snippet}`: {type(exc).__name__}: {exc}", location)


def walk_calls(tree: ast.Block | ast.Expr) -> Iterator[str]:
    """Every call name in a tree (for the engine's coverage check of the registry)."""
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            yield node.name
            stack.extend(a.value for a in node.args)
        elif isinstance(node, ast.Block):
            stack.extend(node.statements)
        elif isinstance(node, ast.Let):
            stack.append(node.value)
        elif isinstance(node, ast.If):
            stack.extend([node.test, node.then, *([node.otherwise] if node.otherwise else [])])
        elif isinstance(node, ast.For):
            stack.extend([node.iterable, node.body])
        elif isinstance(node, ast.BinOp):
            stack.extend([node.left, node.right])
        elif isinstance(node, ast.UnaryOp):
            stack.append(node.operand)

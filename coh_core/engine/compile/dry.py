"""Dry runs: what could never stop one (`_Sure`), the program a dry run of a block runs (the
block without its sure end), and preconditions, the checks every dry run would meet first."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from typing import TYPE_CHECKING

from coh_core.effects import ast
from coh_core.effects.registry import NAME_TYPES, Kind, Signature, signature
from coh_core.engine.compile.model import Fn, PackVerb, _constant
from coh_core.engine.compile.trees import _bind, _binds, _choices, _default, _reads
from coh_core.engine.compile.where import _Where
from coh_core.engine.machine import Program
from coh_core.engine.runtime import EngineError, Rt
from coh_core.packs.model import EffectSlot

if TYPE_CHECKING:
    from coh_core.engine.compile.lowering import Compiler


class DryRuns:
    """What dry runs of a compiler's blocks run (`dry_program`: the program without what could not
    stop them) and what they check first (`precondition`)."""

    def __init__(self, compiler: Compiler):
        self.c = compiler
        self._bodies: dict[str, Program] = {}  # the pack verbs' dry programs (`dry_body`)
        self.sureness = _Sure(compiler)  # what could never stop a dry run

    # --- dry programs: what a dry run must run to say whether a path runs to its end ---------------

    def dry_program(
        self, tree: ast.Block, scope: set[str], slot: EffectSlot | None, program: Program
    ) -> Program | None:
        """What dry runs of a block run instead of its program (`program`, when nothing can be left
        out), or None when no dry run of it could stop: none needs to run.

        A dry run changes nothing, and stops (NoOptions) only where something could not happen: a
        choice among nothing, a check that fails, a selector with nothing to give (`_Sure`). The
        statements at the block's end that can do none of that, and ask no choice, are left out:
        a path runs to the end of what is left exactly when it runs to the end of the block, and
        the choices, hence the paths, are the same. The calls of pack verbs run their own dry
        programs. (An engine error in what is left out is then met when the block is played, not
        when it is offered.)"""
        keep = self.sureness.kept(tree.statements)
        if keep == 0:
            return None
        if keep == len(tree.statements) and not self._trims_inside(tree):
            return program
        dry = ast.Block(tree.statements[:keep], tree.span)
        return self.c.program(dry, scope, slot, program.name, f"{program.id}?dry", dry=True)

    def dry_body(self, name: str) -> Program:
        """A pack verb's dry program (`dry_program`; its body when nothing can be left out)."""
        found = self._bodies.get(name)
        if found is None:
            verb = self.c.verbs[name]
            body = self._bodies[name] = self.c.body(name)  # (a call back into it: the body will do)
            params = {param.name for param in verb.signature.params}
            kept = self.dry_program(verb.tree, params, verb.slot, body)
            if kept is None:  # nothing in it could stop a dry run: it has nothing to run
                kept = self.c.program(
                    ast.Block((), verb.tree.span), params, verb.slot, body.name, f"{body.id}?dry"
                )
            found = self._bodies[name] = kept
        return found

    def _trims_inside(self, tree: ast.Block) -> bool:
        """Whether a pack verb the block calls has a dry program other than its body."""
        for call in ast.calls(tree):
            verb = self.c.verbs.get(call.name)
            if verb is None or verb.signature.kind is Kind.SELECTOR or call.name in self.c.asking:
                continue
            if self.dry_body(call.name) is not self.c.body(call.name):
                return True
        return False

    # --- preconditions: what a dry run would check first, without exploring its choices ----------

    def precondition(self, tree: ast.Block, slot: EffectSlot | None, names: frozenset[str]) -> Fn | None:
        """A test every dry run of the block that reaches its end passes, or None.

        Its leading statements run in every run of the block, and the checks of the verbs they
        call (`needs`, `require`, ...; a pack verb's own leading checks, its parameters bound to the
        call's arguments) read the same values in every run when what they read asks no choice and
        no `let` before them binds: a dry run changes nothing. So a check that fails before any
        choice is explored fails on every path (a verb that moves counters from a place that has
        none, to a place chosen in its call, tried each destination in turn). Only checks that a
        choice may come before are kept: for the others a failing dry run stops there before
        exploring anything. The function raises NoOptions when a check fails; it changes nothing.
        Anything else it raises means the dry runs must tell.
        """
        guards = self._guards(tree, set(names), slot, set(), _PRE_DEPTH, False)
        if not guards:
            return None

        def pre(rt: Rt) -> None:
            for guard in guards:
                guard(rt)

        return pre

    def _guards(
        self,
        tree: ast.Block,
        scope: set[str],
        slot: EffectSlot | None,
        unknown: set[str],
        depth: int,
        chosen: bool,
    ) -> list[Fn]:
        """The checks of the block's leading statements that read no name in `unknown` and that a
        choice may come before (`chosen`: one may have come before the block) (see `precondition`);
        a `let` makes its name unknown, the first statement that is no call stops."""
        unknown = set(unknown)
        found: list[Fn] = []
        for statement in tree.statements:
            if isinstance(statement, ast.Let):
                unknown.add(statement.name)
                scope = scope | {statement.name}
                chosen = chosen or self._may_choose(statement.value)
                continue
            if not isinstance(statement, ast.Call):
                break
            with suppress(EngineError):  # a check not written as the engine expects: the dry runs tell
                found += self._call_guards(statement, scope, slot, unknown, depth, chosen)
            chosen = chosen or self._may_choose(statement) or statement.name in self.c.verbs
        return found

    def _may_choose(self, expr: ast.Expr) -> bool:
        """Whether working out an expression asks a choice (a dry run explores its options)."""
        return bool(_choices(expr, self.c.asking))

    def _call_guards(
        self,
        node: ast.Call,
        scope: set[str],
        slot: EffectSlot | None,
        unknown: set[str],
        depth: int,
        chosen: bool,
    ) -> list[Fn]:
        if node.name in self.c.asking:
            return []
        verb = self.c.verbs.get(node.name)
        if verb is None:
            sig, impl = self.c.builtin(node, _Where(node.span, slot))
            if not chosen or impl.check is None or impl.frame or sig.kind is Kind.SELECTOR:
                return []
            if self._may_choose(node) or _reads(node) & unknown:
                return []  # (what it checks differs from path to path)
            return [self.c._expr(node, scope, slot)]  # in a dry run the call is its check
        if verb.signature.kind is Kind.SELECTOR or depth <= 0:
            return []
        return self._verb_guards(node, verb, scope, slot, unknown, depth, chosen or self._may_choose(node))

    def _verb_guards(
        self,
        node: ast.Call,
        verb: PackVerb,
        scope: set[str],
        slot: EffectSlot | None,
        unknown: set[str],
        depth: int,
        chosen: bool,
    ) -> list[Fn]:
        """A pack verb's leading checks, its parameters worked out from the call's arguments as the
        call works them out (those that ask or read an unknown name stay unknown)."""
        given = _bind(node, [p.name for p in verb.signature.params])
        known: list[tuple[str, Fn]] = []
        inner_unknown: set[str] = set()
        for param in verb.signature.params:
            expr = given.get(param.name)
            if expr is None:
                expr = _default(param.default or "")
            if param.type in NAME_TYPES and isinstance(expr, ast.Name):
                known.append((param.name, _constant(expr.name)))  # a bare name, never a variable's value
            elif self._may_choose(expr) or _reads(expr) & unknown:
                inner_unknown.add(param.name)
            else:
                value = self.c._pure(expr, scope, slot, "an argument")
                known.append((param.name, _at_least_zero(value) if param.type == "count" else value))
        params = {p.name for p in verb.signature.params}
        inner = self._guards(verb.tree, params, verb.slot, inner_unknown, depth - 1, chosen)
        if not inner:
            return []

        def guard(rt: Rt) -> None:
            caller = rt.env
            rt.env = {name: value(rt) for name, value in known}
            try:
                for check in inner:
                    check(rt)
            finally:
                rt.env = caller

        return [guard]


class _Sure:
    """Which statements and expressions could never stop a dry run (raise NoOptions), on any path.

    Such a one asks no choice, calls no built-in verb with a check (`Impl.check`), reads no
    selector that may have nothing to give (`_TOTAL` lists the built-in ones that always give
    something), no `items[n]` (past the end there is nothing) and no `@id` of a piece that may
    be out of play; a pack verb's body, or a pack selector's that ends with `return`, likewise.
    When unsure, it says no: `Compiler.dry_program` then keeps the statement.
    """

    def __init__(self, compiler: Compiler):
        self.c = compiler
        self._verbs: dict[str, bool] = {}  # pack verbs and selectors already judged

    def kept(self, statements: tuple[ast.Statement, ...]) -> int:
        """How many of the statements a dry run must run: those up to the last one that could stop it.

        (A choice among options that cannot be none may be left out with what follows it: a path
        of what is kept that runs to its end goes on through its first option, and one that stops
        does so before the choice, which it never reaches: the paths tried are the same.)"""
        sure = self.statements(statements)
        keep = len(statements)
        while keep > 0 and sure[keep - 1]:
            keep -= 1
        return keep

    def statements(self, statements: tuple[ast.Statement, ...]) -> list[bool]:
        """Of each statement of a block, whether it could never stop a dry run: a choice among a
        list is sure where a statement before it ended the block when that list was empty
        (`_empty_guard`) and nothing between bound its name again."""
        found: list[bool] = []
        some: set[str] = set()  # names of lists that cannot be empty here
        for statement in statements:
            found.append(self.statement(statement, some))
            some -= _binds(statement)
            guarded = _empty_guard(statement)
            if guarded is not None:
                some.add(guarded)
        return found

    def block(self, tree: ast.Block) -> bool:
        return all(self.statements(tree.statements))

    def statement(self, node: ast.Statement, some: set[str] | None = None) -> bool:
        """(`some`: the names of lists that cannot be empty before it.)"""
        if isinstance(node, ast.Let):
            if some and isinstance(node.value, ast.Call) and node.value.name in ("choose", "ask"):
                options = _options_of(node.value)
                return isinstance(options, ast.Name) and options.name in some
            return self.expr(node.value)
        if isinstance(node, ast.If):
            return (
                self.expr(node.test)
                and self.block(node.then)
                and (node.otherwise is None or self.block(node.otherwise))
            )
        if isinstance(node, ast.For):
            return self.expr(node.iterable) and self.block(node.body)
        if isinstance(node, ast.While):
            return self.expr(node.test) and self.block(node.body)
        if isinstance(node, ast.Return):
            return node.value is None or self.expr(node.value)
        return self.call(node, statement=True)

    def expr(self, node: ast.Expr) -> bool:
        if isinstance(node, ast.IntLit | ast.BoolLit | ast.StrLit | ast.Name):
            return True
        if isinstance(node, ast.Ref):
            return self.c.refs.get(node.id) not in self.c.in_play_types
        if isinstance(node, ast.Call):
            return self.call(node, statement=False)
        if isinstance(node, ast.BinOp | ast.UnaryOp | ast.ListLit | ast.ListComp | ast.MapLit | ast.MapComp):
            return all(self.expr(child) for child in _sub_exprs(node))
        return False  # `items[n]`: past either end there is nothing

    def call(self, node: ast.Call, statement: bool) -> bool:
        c = self.c
        if node.name in c.asking:
            return False
        verb = c.verbs.get(node.name)
        if verb is not None:
            selector = verb.signature.kind is Kind.SELECTOR
            if not (statement or selector):
                return False
            return self._arguments(node, verb.signature) and self._verb(node.name, selector)
        sig, impl = signature(node.name), c.impls.get(node.name)
        if sig is None or impl is None or (impl.frame and not statement):
            return False
        if sig.kind is Kind.SELECTOR:
            total = node.name in _TOTAL or (node.name in _OF_SOME and _some_items(node))
            return total and self._arguments(node, sig)
        return statement and impl.check is None and self._arguments(node, sig)

    def _arguments(self, node: ast.Call, sig: Signature) -> bool:
        """The arguments given and the defaults of those not given."""
        given = _bind(node, [p.name for p in sig.params])
        if not all(self.expr(value) for value in given.values()):
            return False
        missing = [p.default for p in sig.params if p.name not in given]
        return all(default is not None and self.expr(_default(default)) for default in missing)

    def _verb(self, name: str, selector: bool) -> bool:
        """A pack verb's body could never stop a dry run (a selector's ends with `return`: falling off
        its end gives nothing)."""
        found = self._verbs.get(name)
        if found is None:
            self._verbs[name] = False  # (a call back into it: unsure)
            statements = self.c.verbs[name].tree.statements
            ends = not selector or (bool(statements) and isinstance(statements[-1], ast.Return))
            found = self._verbs[name] = ends and all(self.statements(statements))
        return found


# The built-in selectors that always give a value when their arguments are there (their engine code
# raises no NoOptions: tests/engine/test_exact_preconditions.py reads it), and those that do when
# given a list written out with at least one item.
_TOTAL = frozenset(
    {
        "all_characters", "attacks", "can_activate", "characters", "characters_at", "colour_of",
        "count", "count_of", "cycle", "cycle_from", "distinct", "exhausted", "first_steps", "get",
        "has_entity_data", "has_items", "has_room", "in_sight", "is_exhausted", "is_rested", "is_side",
        "items_at", "keys", "location_of", "locations", "locked", "log_length", "memory",
        "my_characters", "my_characters_at", "nearest", "neighbours", "other_locations",
        "other_players", "owner", "pack_ids", "param", "pile", "pile_room", "pile_size", "players",
        "players_at", "pointer", "range", "rested", "reversed", "seats", "seats_from", "shuffle",
        "side_has", "side_is", "size", "sorted", "sum", "trait", "traits", "traits_set_since", "values",
        "within",
    }
)  # fmt: skip
_OF_SOME = frozenset({"min", "max", "first", "random_item"})


def _sub_exprs(node: ast.Expr) -> Iterator[ast.Expr]:
    """The expressions directly inside an expression."""
    for child in ast.children(node):
        assert not isinstance(
            child, ast.Block | ast.Arg | ast.Let | ast.If | ast.For | ast.While | ast.Return
        )
        yield child


def _empty_guard(node: ast.Statement) -> str | None:
    """`if count(xs) == 0 { ... return }`: the name of the list that is not empty after it."""
    if not isinstance(node, ast.If) or node.otherwise is not None:
        return None
    then, test = node.then.statements, node.test
    if not (then and isinstance(then[-1], ast.Return)) or not isinstance(test, ast.BinOp):
        return None
    counted, zero = test.left, test.right
    if test.op != "==" or not (isinstance(zero, ast.IntLit) and zero.value == 0):
        return None
    if not (isinstance(counted, ast.Call) and counted.name == "count" and len(counted.args) == 1):
        return None
    listed = counted.args[0].value
    return listed.name if isinstance(listed, ast.Name) and counted.args[0].keyword is None else None


def _options_of(node: ast.Call) -> ast.Expr | None:
    """The options of `choose(options)` or `ask(player, options, ...)`: what a dry run reads of it."""
    firsts = [arg.value for arg in node.args if arg.keyword is None]
    named = {arg.keyword: arg.value for arg in node.args if arg.keyword is not None}
    if node.name == "choose":
        return named.get("options", firsts[0] if firsts else None)
    return firsts[-1] if len(firsts) == 2 else None


def _some_items(node: ast.Call) -> bool:
    """Whether the call's one argument is a list written out with at least one item."""
    return (
        len(node.args) == 1 and isinstance(node.args[0].value, ast.ListLit) and bool(node.args[0].value.items)
    )


_PRE_DEPTH = 4  # pack verbs inside pack verbs a precondition looks into


def _at_least_zero(value: Fn) -> Fn:
    """A count argument's value: below zero it counts as zero."""
    return lambda rt: max(0, value(rt))

"""Compile effect ASTs into programs for the machine (`machine.py`), once per pack load.

Expressions that cannot ask compile to Python functions of the runtime, written as source
(`_Writer`, `codegen.py`). Statements compile to instructions: a binding, a jump, a step of a
loop, a call of a pack verb (a frame of its own), a built-in verb that asks (engine code in
Python, a native frame), or a choice, which stops the machine until the player answers. An
argument that asks is worked out into a name first, so a question never hides inside an
expression. The instructions of a program are then written as source too, one function per
place a frame may stand (`_blocks`), and a straight program as one function (`_direct`).
Runtime errors name the entity and the source position, and the bounds of `coh_core.limits`
hold: numbers stay within MAX_NUMBER, counts are never negative, a run of one effect takes at
most MAX_LOOP_STEPS loop iterations.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache, partial
from operator import length_hint
from pathlib import PurePath
from typing import Any, NoReturn, TypeVar

from coh_core.effects import ast
from coh_core.effects.calls import Reach, callees_first, calls_of, chain, reach
from coh_core.effects.parser import parse_condition
from coh_core.effects.registry import (
    NAME_TYPES,
    TYPE_VARS,
    Kind,
    Signature,
    asking_selectors,
    element_type,
    signature,
    type_parts,
)
from coh_core.engine.codegen import Fragment, Source, define
from coh_core.engine.machine import SWITCH, Frame, Op, Program, finish_frame, run_sync
from coh_core.engine.runtime import Action, Decision, EngineError, NoOptions, Rt
from coh_core.errors import Location
from coh_core.limits import (
    MAX_FRAMES,
    MAX_LIST_ITEMS,
    MAX_LOOP_STEPS,
    MAX_NUMBER,
    MAX_OPTIONS,
    MAX_VERB_NESTING,
    MAX_WORK,
)
from coh_core.packs.model import EffectSlot

Fn = Callable[..., Any]
Filter = Callable[[Rt, Any], bool]
_CHOICES = asking_selectors()  # selectors that ask a player: worked out into a name first
# instructions of their own
COMPILED = frozenset({"choose", "choose_number", "ask", "ask_each", "may"})
_NAMED_VALUES = frozenset({"emit", "window", "offer_cancel"})  # their last values are given by name
_O = TypeVar("_O", bound=Op)


@dataclass(frozen=True)
class Impl:
    """How the engine runs one verb or selector of the registry."""

    fn: Fn  # called as fn(rt, *arguments in declaration order)
    filters: dict[str, Filter] = field(default_factory=dict)  # narrows a direct `choose` argument
    check: Fn | None = None  # in a dry run: raise NoOptions when the verb could not happen
    frame: bool = False  # fn returns a frame of an engine program to run (or None: nothing to run)
    # a selector's body as a Python expression over `rt` and its arguments `{0}`, `{1}`...: written
    # in place of the call of `fn` (the hottest small selectors; it must do exactly what `fn` does)
    inline: str | None = None
    # a verb's check as a Python condition over its arguments `{0}`...: a dry run raises NoOptions
    # when it is false, written in place of the call of `check` (which must test exactly that)
    need: str | None = None


class CompiledBlock:
    """An effect ready to run: its program, and where its text is in the pack, its precondition
    (`Compiler.precondition`: None when none could be derived), the names it binds and reads
    (a cost and the effect after it share their table of names), and what its dry runs run
    (`dry_program`)."""

    __slots__ = ("_dry", "binds", "check", "failed", "pre", "program", "reads", "slot", "sure")

    def __init__(
        self,
        program: Program,
        slot: EffectSlot | None,
        pre: Fn | None = None,
        binds: frozenset[str] = frozenset(),
        reads: frozenset[str] = frozenset(),
        dry: Callable[[], Program | None] | None = None,
    ):
        self.program = program
        self.slot = slot
        self.pre = pre
        self.binds = binds
        self.reads = reads
        # whether its last dry runs found no path (`game._explore` then tries its precondition
        # first: only the order of the work changes, never what it finds)
        self.failed = False
        # What a dry run runs (`dry_program`, worked out when first asked): the program, or the same
        # without what could not stop a dry run; a path of `check` runs to its end exactly when the
        # same path of `program` does. None until then.
        self.check: Program | None = None
        self.sure = False  # no dry run of it could stop: none is needed (once `dry_program` said so)
        self._dry = dry  # what works out the dry program (`Compiler.dry_program`); None: the program

    def dry_program(self) -> Program | None:
        """The program its dry runs run (compiled the first time), or None when none is needed."""
        if self.check is None:
            found = self.program if self._dry is None else self._dry()
            self.sure = found is None
            self.check = self.program if found is None else found
        return None if self.sure else self.check

    def location(self) -> Location | None:
        """Where the effect's text begins in its pack."""
        return None if self.slot is None else self.slot.doc.offset_in_scalar(self.slot.path, 0)


class Compiler:
    """Turns the ASTs of one pack into programs for the machine, over the engine's implementations.

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
        self._dry_bodies: dict[str, Program] = {}  # the pack verbs' dry programs (`dry_body`)
        self.sureness = _Sure(self)  # what could never stop a dry run
        self._counting: dict[str, bool] = {}  # pack verbs whose runs may count loop iterations

    def block(self, tree: ast.Block, slot: EffectSlot | None, names: frozenset[str]) -> CompiledBlock:
        ident = _program_id(slot)
        program = self.program(tree, set(names), slot, _owner(slot), ident)
        pre = self.precondition(tree, slot, names)
        binds, reads = frozenset(_binds(tree)), frozenset(_reads(tree))
        dry = partial(self.dry_program, tree, set(names), slot, program)  # (compiled when first needed)
        return CompiledBlock(program, slot, pre, binds, reads, dry)

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
        return self.program(dry, scope, slot, program.name, f"{program.id}?dry", dry=True)

    def dry_body(self, name: str) -> Program:
        """A pack verb's dry program (`dry_program`; its body when nothing can be left out)."""
        found = self._dry_bodies.get(name)
        if found is None:
            verb = self.verbs[name]
            body = self._dry_bodies[name] = self.body(name)  # (a call back into it: the body will do)
            params = {param.name for param in verb.signature.params}
            kept = self.dry_program(verb.tree, params, verb.slot, body)
            if kept is None:  # nothing in it could stop a dry run: it has nothing to run
                kept = self.program(
                    ast.Block((), verb.tree.span), params, verb.slot, body.name, f"{body.id}?dry"
                )
            found = self._dry_bodies[name] = kept
        return found

    def _trims_inside(self, tree: ast.Block) -> bool:
        """Whether a pack verb the block calls has a dry program other than its body."""
        for call in ast.calls(tree):
            verb = self.verbs.get(call.name)
            if verb is None or verb.signature.kind is Kind.SELECTOR or call.name in self.asking:
                continue
            if self.dry_body(call.name) is not self.body(call.name):
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
            chosen = chosen or self._may_choose(statement) or statement.name in self.verbs
        return found

    def _may_choose(self, expr: ast.Expr) -> bool:
        """Whether working out an expression asks a choice (a dry run explores its options)."""
        return bool(_choices(expr, self.asking))

    def _call_guards(
        self,
        node: ast.Call,
        scope: set[str],
        slot: EffectSlot | None,
        unknown: set[str],
        depth: int,
        chosen: bool,
    ) -> list[Fn]:
        if node.name in self.asking:
            return []
        verb = self.verbs.get(node.name)
        if verb is None:
            sig, impl = self.builtin(node, _Where(node.span, slot))
            if not chosen or impl.check is None or impl.frame or sig.kind is Kind.SELECTOR:
                return []
            if self._may_choose(node) or _reads(node) & unknown:
                return []  # (what it checks differs from path to path)
            return [self._expr(node, scope, slot)]  # in a dry run the call is its check
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
                value = self._pure(expr, scope, slot, "an argument")
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
            return self.c.refs.get(node.id) not in _IN_PLAY_TYPES
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
        "all_characters", "arrives_at", "attacks", "can_activate", "characters", "characters_at",
        "colour_of", "count", "count_of", "cycle", "cycle_from", "distinct", "exhausted", "get",
        "has_entity_data", "has_items", "is_exhausted", "is_rested", "is_side", "items_at", "keys",
        "location_of", "locations", "locked", "log_length", "memory", "my_characters",
        "my_characters_at", "other_locations", "other_players", "owner", "pack_ids", "param", "pile",
        "pile_size", "players", "players_at", "pointer", "random_movement_card", "range", "rested",
        "reversed", "seats", "seats_from", "shuffle", "side_has", "side_is", "size", "sorted", "sum",
        "trait", "traits", "traits_set_since", "values",
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


class _Writer:
    """Writes one expression as the Python source of a function of `rt` (see `codegen.py`).

    Each method writes the lines that work out a node, in the order the language evaluates it,
    and returns what holds its value: a literal, a name read, or a local that nothing changes
    afterwards. A failure is reported at the innermost place that locates it, as the `try`
    blocks nest: the call of a built-in, or an expression checked on its own (`pure`).
    """

    def __init__(self, compiler: Compiler, scope: set[str], slot: EffectSlot | None, prefix: str = ""):
        self.c = compiler
        self.scope = scope  # names of the effect that may be read
        self.slot = slot
        self.src = Source(_HELPERS, prefix)
        # names bound by a `for` inside the expression, or parameters of a selector written in
        # place (`inline`) -> the locals (or values) that hold them
        self.loop_names: dict[str, str] = {}
        self.inlined = 0  # selectors being written in place, inside each other
        self.outlined = 0  # parts written as functions of their own (`outline`)
        self.budget = [_MAX_INLINED_CALLS]  # selectors it may still write in place (shared with `outline`)
        self.flat_items: set[str] = set()  # the locals of `for`s over lists that hold no list or map

    def where(self, span: ast.Span) -> str:
        return self.src.constant(_Where(span, self.slot))

    def pure(self, node: ast.Expr, what: str) -> str:
        """An expression that cannot ask, reporting a failure at itself."""
        unasked = [call for call in _choices(node, self.c.asking) if id(call) not in self.c._asked]
        if unasked:
            raise _Where(unasked[0].span, self.slot).error(
                "EFF-CHOICE-IN-CONDITION", f"{what} cannot ask a question"
            )
        return self.located(node, node.span)

    def located(self, node: ast.Expr, span: ast.Span) -> str:
        """`node`, reporting a failure at `span`. A call of a built-in already reports its failures at
        itself, the innermost place (see `call`); a literal, `@id` or name read fails only by
        NoOptions, never located: neither needs a `try` of its own."""
        if isinstance(node, ast.Call) and id(node) not in self.c._asked and node.name not in self.c.verbs:
            return self.expr(node)
        if isinstance(node, _PLAIN) or (isinstance(node, ast.Call) and id(node) in self.c._asked):
            return self.expr(node)
        src = self.src
        before = src.temps()
        with src.block("try:"):
            value = self.expr(node)
            if not src.since(value, before):  # (a temporary made here needs no copy: it holds the value)
                value, read = src.temp(), value
                src.line(f"{value} = {read}")
        self._report_at(self.where(span))
        return value

    def _report_at(self, where: str) -> None:
        """The `except` clauses of a `try`: NoOptions passes; anything else is reported at `where`."""
        with self.src.block("except NoOptions:"):
            self.src.line("raise")
        with self.src.block("except Exception as _e:"):
            self.src.line(f"{where}.fail(_e)")

    def let(self, text: str) -> str:
        """A local that holds the value of `text`, worked out now."""
        value = self.src.temp()
        self.src.line(f"{value} = {text}")
        return value

    def expr(self, node: ast.Expr) -> str:
        if self.src.crowded():
            return self.outline(node)
        if isinstance(node, ast.IntLit | ast.BoolLit | ast.StrLit):
            return repr(node.value)
        if isinstance(node, ast.Ref):
            return self.ref(node)
        if isinstance(node, ast.Name):
            return self.name(node.name)
        if isinstance(node, ast.UnaryOp):
            operand = self.pure(node.operand, "an operand")
            return self.let(f"not {operand}" if node.op == "not" else f"-{operand}")
        if isinstance(node, ast.ListLit):
            items = [self.pure(item, "an item of a list") for item in node.items]
            return self.bounded(
                self.let(f"[{', '.join(items)}]"), list(zip(items, node.items, strict=True)), node
            )
        if isinstance(node, ast.Index):
            return self.index(node)
        if isinstance(node, ast.ListComp):
            return self.list_comp(node)
        if isinstance(node, ast.MapLit):
            return self.map(node)
        if isinstance(node, ast.MapComp):
            return self.map_comp(node)
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        return self.call(node)

    def outline(self, node: ast.Expr) -> str:
        """`node` written as a function of its own, called here with the locals it may read (the
        names bound by the loops it is inside): deep expressions nest no deeper than Python allows.
        It is worked out at the same point, and its failures pass through the same `try` blocks."""
        self.outlined += 1
        inner = _Writer(self.c, self.scope, self.slot, f"{self.src.prefix}o{self.outlined}_")
        inner.loop_names, inner.inlined, inner.budget = dict(self.loop_names), self.inlined, self.budget
        params = tuple(sorted({value for value in self.loop_names.values() if value.startswith("_t")}))
        function = inner.src.fragment(inner.expr(node)).function(params)
        return self.let(f"{self.src.constant(function)}({', '.join(('rt', *params))})")

    def name(self, name: str) -> str:
        """A name bound by a `for` of the expression, one of the effect's, or a bare name (a value)."""
        if name in self.loop_names:
            return self.loop_names[name]
        return f"env[{name!r}]" if name in self.scope else repr(name)

    def ref(self, node: ast.Ref) -> str:
        """`@id`; of a piece that may be out of play, the effect stops where it is used without it."""
        kind, ident = self.c.refs.get(node.id), node.id
        if kind is not None and kind in _IN_PLAY_TYPES:
            with self.src.block(f"if not rt.game.in_play({kind!r}, {ident!r}):"):
                self.src.line(f"raise NoOptions({ident!r})")
        return repr(ident)

    def index(self, node: ast.Index) -> str:
        """`items[n]`; past either end there is nothing: the effect stops, as with the first of none.
        `m[key]` of a map; a key it does not hold is nothing too."""
        items = self.pure(node.target, "an indexed list")
        at = self.pure(node.index, "an index")
        src, value = self.src, self.src.temp()
        with src.block(f"if type({items}) is dict:"):
            src.line(f"{value} = _lookup({items}, {at})")
        with src.block(f"elif not 0 <= {at} < len({items}):"):
            src.line(f'raise NoOptions("index " + str({at}))')  # (`at` may be a literal text: no f-string)
        with src.block("else:"):
            src.line(f"{value} = {items}[{at}]")
        return value

    @contextmanager
    def loop(self, node: ast.ListComp | ast.MapComp, what: str) -> Iterator[None]:
        """The loop of a list or map built with `for`: each item counts against the loop bound, and
        the name is bound only inside (a name of the same name outside keeps its value)."""
        items = self.pure(node.iterable, what)
        src, item = self.src, self.src.temp()
        if _flat_items(node.iterable, self.flat_names(), self.c):
            self.flat_items.add(item)
        if _counts_loops(node, self.c):
            with src.block(f"for {item} in {items}:"):
                src.line("rt.loops -= 1")
                with src.block("if rt.loops < 0:"):
                    src.line(f"_loop_limit({self.where(node.span)})")
                with self.body(node, item, what):
                    yield
            return
        # Nothing inside counts loops: its items are counted before it when the bound has room for
        # them all (the bound is then not reached in it), and the items not reached are given back
        # if it stops early; otherwise each one is counted as it comes (`_counted`), as above.
        ahead, size = src.temp(), src.temp()
        if isinstance(node.iterable, ast.ListLit | ast.ListComp) or _returns_list(node.iterable, self.c):
            src.line(f"{size} = len({items})")
        else:  # (of what is no list, what it counts as it goes says what is wrong with it)
            src.line(f"{size} = len({items}) if type({items}) is list else {MAX_LOOP_STEPS + 1}")
        with src.block(f"if {size} <= rt.loops:"):
            src.line(f"rt.loops -= {size}")
            src.line(f"{ahead} = iter({items})")
        with src.block("else:"):
            src.line(f"{ahead} = _counted(rt, {items}, {self.where(node.span)})")
        with src.block("try:"), src.block(f"for {item} in {ahead}:"), self.body(node, item, what):
            yield
        with src.block("except BaseException:"):
            src.line(f"rt.loops += _length_hint({ahead})")
            src.line("raise")

    @contextmanager
    def body(self, node: ast.ListComp | ast.MapComp, item: str, what: str) -> Iterator[None]:
        """Inside the loop of `loop`: its name bound to the item (`item` holds it), its test if any."""
        outer = self.loop_names.get(node.name)
        self.loop_names[node.name] = item
        try:
            if node.test is None:
                yield
            else:
                with self.src.block(f"if {self.pure(node.test, what)}:"):
                    yield
        finally:
            if outer is None:
                del self.loop_names[node.name]
            else:
                self.loop_names[node.name] = outer

    def list_comp(self, node: ast.ListComp) -> str:
        """`[item for name in items if test]`."""
        what = "a list built with `for`"
        flat = _flat_items(node, self.flat_names(), self.c)
        found, deep = self.let("[]"), None if flat else self.let("False")
        with self.loop(node, what):
            item = self.pure(node.item, what)
            if deep is not None:
                self.deep(deep, item, node.item)
            self.src.line(f"{found}.append({item})")
        return self.bounded(found, [], node, deep, grown=True)

    def map(self, node: ast.MapLit) -> str:
        """`{key: value, ...}`: a new map (a key written twice keeps its last value)."""
        entries, values = [], []
        for key, value in node.entries:
            written = self.map_key(self.pure(key, "a key of a map"), key)
            values.append((self.pure(value, "a value of a map"), value))
            entries.append(f"{written}: {values[-1][0]}")
        return self.bounded(self.let(f"{{{', '.join(entries)}}}"), values, node)

    def map_comp(self, node: ast.MapComp) -> str:
        """`{key: value for name in items if test}`, bound and counted as a list built with `for` is
        (the value is worked out before the key)."""
        what = "a map built with `for`"
        names = self.flat_names()
        inner = names | {node.name} if _flat_items(node.iterable, names, self.c) else names - {node.name}
        flat = _flat(node.value, inner, self.c)
        found, deep = self.let("{}"), None if flat else self.let("False")
        with self.loop(node, what):
            value = self.pure(node.value, what)
            key = self.map_key(self.pure(node.key, what), node.key)
            if deep is not None:
                self.deep(deep, value, node.value)
            self.src.line(f"{found}[{key}] = {value}")
        return self.bounded(found, [], node, deep, grown=True)

    def deep(self, flag: str, item: str, node: ast.Expr) -> None:
        """`flag` becomes true if the item is a list or a map (see `bounded`)."""
        if not self.flat(node):
            with self.src.block(f"if type({item}) is list or type({item}) is dict:"):
                self.src.line(f"{flag} = True")

    def flat_names(self) -> frozenset[str]:
        """The names bound here to values that are no list or map (see `flat`)."""
        return frozenset(name for name, held in self.loop_names.items() if held in self.flat_items)

    def flat(self, node: ast.Expr) -> bool:
        """Whether the value of `node` is known to be no list or map (see `_flat`); a bare name (no
        loop's or effect's: `name` writes it as a text) is one."""
        if isinstance(node, ast.Name) and node.name not in self.loop_names and node.name not in self.scope:
            return True
        return _flat(node, self.flat_names(), self.c)

    def bounded(
        self,
        value: str,
        items: list[tuple[str, ast.Expr]],
        node: ast.Expr,
        deep: str | None = None,
        grown: bool = False,
    ) -> str:
        """`value`, a list or map just built, checked against the size bound (`_bounded`) where that
        could find something: when it holds a list or a map (the items written in it that are not
        plain values, or `deep`, set while it was built), or more items than the bound (`grown`:
        built by a loop, as many as it took). The check is skipped where it would return at once
        (most lists and maps are short and flat)."""
        tests = [f"type({item}) is list or type({item}) is dict" for item, at in items if not self.flat(at)]
        if deep is not None:
            tests.append(deep)
        if len(items) <= MAX_LIST_ITEMS and not tests and not grown:
            return value
        tests.append(f"len({value}) > {MAX_LIST_ITEMS}")
        with self.src.block(f"if {' or '.join(tests)}:"):
            self.src.line(f"_bounded({value}, {self.where(node.span)})")
        return value

    def map_key(self, key: str, node: ast.Expr) -> str:
        """A key checked to be a name (`_map_key`), unless it is written as one."""
        if isinstance(node, ast.StrLit) or (isinstance(node, ast.Name) and key == repr(node.name)):
            return key
        self.src.line(f"_map_key({key}, {self.where(node.span)})")
        return key

    def binary(self, node: ast.BinOp) -> str:
        src = self.src
        left = self.pure(node.left, "an operand")
        if node.op in ("and", "or"):
            value = self.let(left)
            with src.block(f"if {value}:" if node.op == "and" else f"if not {value}:"):
                src.line(f"{value} = {self.pure(node.right, 'an operand')}")
            return value
        right = self.pure(node.right, "an operand")
        if node.op == "in":
            return self.let(f"{left} in {right}")
        if node.op == "not_in":
            return self.let(f"{left} not in {right}")
        if node.op in _COMPARISONS:
            return self.let(f"{left} {node.op} {right}")
        where = self.where(node.span)
        if node.op == "+":  # numbers; lists put end to end; maps merged, the right one's values winning
            value = src.temp()
            with src.block(f"if isinstance({left}, dict):"):
                src.line(f"{value} = _bounded({{**{left}, **{right}}}, {where})")
            with src.block(f"elif isinstance({left}, list):"):
                src.line(f"{value} = _bounded({left} + {right}, {where})")
            with src.block("else:"):
                self.number(value, f"{left} + {right}", where)
            return value
        if node.op not in ("-", "*", "//"):  # (the parser makes no other: nothing else is written as code)
            raise _Where(node.span, self.slot).error("ENGINE-INTERNAL", f"no operator `{node.op}`")
        if node.op == "//":
            with src.block(f"if {right} == 0:"):
                src.line(f'raise {where}.error("EFF-RUNTIME", "division by zero")')
        value = src.temp()
        self.number(value, f"{left} {node.op} {right}", where)
        return value

    def number(self, value: str, text: str, where: str) -> None:
        """`value = text`, a number that stays within MAX_NUMBER, so that no loop can grow one without end."""
        self.src.line(f"{value} = {text}")
        with self.src.block(f"if not {-MAX_NUMBER} <= {value} <= {MAX_NUMBER}:"):
            self.src.line(f"_too_large({where})")

    def call(self, node: ast.Call) -> str:
        """A call read for its value: a selector (a choice already asked is read from its name)."""
        asked = self.c._asked.get(id(node))
        if asked is not None:
            return f"env[{asked!r}]"
        where = _Where(node.span, self.slot)
        src = self.src
        if node.name in self.c.verbs:
            verb = self.c.verbs[node.name]
            if verb.signature.kind is not Kind.SELECTOR:
                raise where.error("ENGINE-INTERNAL", f"the verb `{node.name}` has no value to read")
            values = [argument() for argument in self.arguments(node, verb.signature)]
            call = self.c.selector_call(node.name)  # (compiles the body: a call of itself is refused there)
            inlined = self.inline(verb, values)
            return (
                inlined if inlined is not None else self.let(f"{src.constant(call)}(rt, {', '.join(values)})")
            )
        sig, impl = self.c.builtin(node, where)
        if impl.frame:
            raise where.error("ENGINE-INTERNAL", f"`{node.name}` runs a program and has no value to read")
        return self.invoke(sig, impl, where, self.arguments(node, sig))

    def invoke(self, sig: Signature, impl: Impl, where: _Where, arguments: list[Callable[[], str]]) -> str:
        """A call of a built-in that asks nothing, its arguments written by `arguments` in order."""
        src = self.src
        value = src.temp()
        with src.block("try:"):  # a failure in the arguments or the call is reported at the call
            values = [argument() for argument in arguments]
            args = ", ".join(["rt", *values])
            if sig.kind is Kind.SELECTOR and impl.inline is not None:
                src.line(f"{value} = {impl.inline.format(*(f'({v})' for v in values))}")
            elif sig.kind is Kind.SELECTOR:
                src.line(f"{value} = {src.constant(impl.fn)}({args})")
            else:  # in a dry run a verb only checks that it could happen
                with src.block("if rt.dry:"):
                    if impl.need is not None:
                        with src.block(f"if not ({impl.need.format(*(f'({v})' for v in values))}):"):
                            src.line("raise NoOptions")
                    elif impl.check is not None:
                        src.line(f"{src.constant(impl.check)}({args})")
                    src.line(f"{value} = None")
                with src.block("else:"):
                    src.line(f"{value} = {src.constant(impl.fn)}({args})")
        self._report_at(src.constant(where))
        return value

    def inline(self, verb: PackVerb, values: list[str]) -> str | None:
        """A selector of the pack whose body is `return value`, written in place of its call: its value
        worked out here, its parameters read from the arguments' values, its failures reported
        where they are in its body, as when it runs on its own. None for any other selector."""
        statements = verb.tree.statements
        if len(statements) != 1 or self.inlined >= _MAX_INLINED or self.budget[0] <= 0:
            return None
        body = statements[0]
        if not isinstance(body, ast.Return) or body.value is None or _size_of(body.value) > _MAX_INLINED_SIZE:
            return None
        self.budget[0] -= 1  # (small bodies, so many times each: the source of one expression stays small)
        params = [param.name for param in verb.signature.params]
        outer = (self.scope, self.loop_names, self.slot)
        self.scope, self.loop_names, self.slot = (
            set(params),
            dict(zip(params, values, strict=True)),
            verb.slot,
        )
        self.inlined += 1
        try:
            return self.pure(body.value, "a returned value")
        finally:
            self.scope, self.loop_names, self.slot = outer
            self.inlined -= 1

    def arguments(self, node: ast.Call, sig: Signature) -> list[Callable[[], str]]:
        """How to write each argument of a call, in declaration order, defaults filled in (none of
        them asks): each writes its lines when called and returns what holds its value."""
        if node.name == "log" and node.name not in self.c.verbs:
            return self._log_arguments(node)
        if node.name in _NAMED_VALUES and node.name not in self.c.verbs:
            return self._named_arguments(node, sig)
        given = _bind(node, [p.name for p in sig.params])
        found: list[Callable[[], str]] = []
        for param in sig.params:
            expr = given.get(param.name)
            if expr is None:
                expr = _default(param.default or "")
            if param.type in NAME_TYPES and isinstance(expr, ast.Name):
                found.append(_literal(expr.name))  # a bare name, never a variable's value
            elif param.type == "count" and isinstance(expr, ast.IntLit):
                found.append(_literal(max(0, expr.value)))  # worked out once
            elif param.type == "count":  # a computed count below zero counts as zero
                found.append(lambda expr=expr: self.let(f"max(0, {self.expr(expr)})"))  # type: ignore[misc]
            else:
                found.append(lambda expr=expr: self.expr(expr))  # type: ignore[misc]
        if node.name in _CHOICES:
            found.append(_literal(node.name))  # what a choice is for: here, nothing more is known
        return found

    def _log_arguments(self, node: ast.Call) -> list[Callable[[], str]]:
        """`log(message, name=value, ..., to=players)` as the message, who sees the entry (None:
        everyone) and the placeholders' values by name (the checker made sure none of them asks)."""
        head, *rest = node.args
        assert isinstance(head.value, ast.Name)
        named = {arg.keyword: arg.value for arg in rest if arg.keyword is not None}
        audience = named.pop("to", None)
        return [
            _literal(head.value.name),
            _literal(None) if audience is None else lambda: self.pure(audience, "a value of `log`"),
            lambda: self._values([(name, value) for name, value in named.items()], "a value of `log`"),
        ]

    def _named_arguments(self, node: ast.Call, sig: Signature) -> list[Callable[[], str]]:
        """The parameters of `emit`, `window` or `offer_cancel` in order, then the values given by
        name as one mapping (the checker made sure none of them asks)."""
        what = f"a value of `{node.name}`"
        found: list[Callable[[], str]] = [
            lambda value=arg.value: self.pure(value, what)  # type: ignore[misc]
            for arg in node.args[: len(sig.params)]
        ]
        named = [(str(arg.keyword), arg.value) for arg in node.args[len(sig.params) :]]
        found.append(lambda: self._values(named, what))
        return found

    def _values(self, named: list[tuple[str, ast.Expr]], what: str) -> str:
        """A new mapping of names to values, worked out in the order written."""
        entries = [f"{name!r}: {self.pure(value, what)}" for name, value in named]
        return self.let(f"{{{', '.join(entries)}}}")


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


# --- instructions -------------------------------------------------------------------


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
            run_sync(program, rt, env)
            rt.env = frame.env
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
                lines.append(f"    run_sync({k}.program, rt, names)")
            else:  # (as run_sync runs it)
                self.names[f"{k}_direct"] = callee.direct
                lines += ["    rt.env = names", f"    {k}_direct(rt)"]
            lines += ["    rt.env = env", "    return None"]
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


def _too_many(count: int) -> str:
    return f"a choice among {count:,} options; a choice offers at most {MAX_OPTIONS:,}"


def _number_range(low: Fn, high: Fn) -> Fn:
    def options(rt: Rt) -> list[int]:
        first, last = low(rt), high(rt)
        if last - first + 1 > MAX_OPTIONS:  # refused before the range becomes a list
            raise EngineError("ENGINE-LIMIT", _too_many(last - first + 1))
        return list(range(first, last + 1))

    return options


def _choices(expr: ast.Expr, asking: frozenset[str]) -> list[ast.Call]:
    """The choices inside an expression, innermost first, in the order they are asked."""
    found: list[ast.Call] = []

    def visit(node: ast.Node) -> None:
        for child in ast.children(node):
            visit(child)
        if isinstance(node, ast.Call) and node.name in asking:
            found.append(node)

    visit(expr)
    return found


_PRE_DEPTH = 4  # pack verbs inside pack verbs a precondition looks into


def _reads(expr: ast.Node) -> set[str]:
    """Every name an expression or block mentions (a comprehension's own name too: more is only safer)."""
    found: set[str] = set()

    def visit(node: ast.Node) -> None:
        if isinstance(node, ast.Name | ast.ListComp | ast.MapComp):
            found.add(node.name)
        for child in ast.children(node):
            visit(child)

    visit(expr)
    return found


def _binds(tree: ast.Node) -> set[str]:
    """Every name a block binds (`let`, `for`; a comprehension's own name too: more is only safer)."""
    found: set[str] = set()

    def visit(node: ast.Node) -> None:
        if isinstance(node, ast.Let | ast.For | ast.ListComp | ast.MapComp):
            found.add(node.name)
        for child in ast.children(node):
            visit(child)

    visit(tree)
    return found


def _at_least_zero(value: Fn) -> Fn:
    """A count argument's value: below zero it counts as zero."""
    return lambda rt: max(0, value(rt))


def _program_id(slot: EffectSlot | None) -> str:
    """Where a block is written, as the same text on every load of the pack: file and path."""
    if slot is None:
        return f"effect:{next(_ANONYMOUS)}"
    return f"{slot.doc.owner}/{PurePath(slot.doc.path).name}:" + "/".join(map(str, slot.path))


_ANONYMOUS = itertools.count(1)


def _owner(slot: EffectSlot | None) -> str:
    """Whose program it is, for messages."""
    return "an effect" if slot is None else slot.owner


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


def over_budget(name: str) -> str:
    """Why a pack verb called when the game has no work left before its next decision fails."""
    return f"more than {MAX_WORK:,} pack verbs run between two decisions (`{name}` one too many)"


def _unfinished(name: str) -> Program:
    """The program of a verb being compiled: a call of it from inside itself is a cycle."""
    program = Program(f"verb {name}")
    program.ops.append(_Fail(EngineError("VERB-RECURSION", f"`{name}` calls itself")))
    return program


class _Fail(Op):
    __slots__ = ("error",)

    def __init__(self, error: EngineError):
        self.error = error

    def run(self, frames: list[Any], frame: Frame, rt: Rt) -> Any:
        raise self.error


def _count_iteration(rt: Rt, where: _Where) -> None:
    """Nested loops multiply: every iteration of every loop of one run counts against the bound."""
    rt.loops -= 1
    if rt.loops < 0:
        raise where.error(
            "ENGINE-LIMIT", f"more than {MAX_LOOP_STEPS:,} loop iterations in one run of an effect"
        )


def _constant(value: Any) -> Fn:
    return lambda rt: value


# Types of `@id` whose pieces may be out of the game: `Game.in_play` says which are in it.
_IN_PLAY_TYPES = frozenset({"character", "colour"})


_C = TypeVar("_C", list[Any], dict[str, Any])


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


def _bounded(value: _C, where: _Where) -> _C:
    """A list or map an effect builds holds at most MAX_LIST_ITEMS items, those of the lists and
    maps inside it included, each time it appears there: without the inner ones, a value put
    twice into the next one (`let xs = [xs, xs]` in a loop) doubles unseen at each step."""
    if not value:
        return value
    if len(value) <= MAX_LIST_ITEMS:
        kinds = set(map(type, value.values() if type(value) is dict else value))  # (in C: most are flat)
        if list not in kinds and dict not in kinds:
            return value
    if _size(value, MAX_LIST_ITEMS) > MAX_LIST_ITEMS:
        kind, items = ("map", "entries") if type(value) is dict else ("list", "items")
        inside = "" if len(value) > MAX_LIST_ITEMS else ", counting those of the lists and maps inside it"
        raise where.error("ENGINE-LIMIT", f"a {kind} of more than {MAX_LIST_ITEMS:,} {items}{inside}")
    return value


def _size(value: list[Any] | dict[str, Any], limit: int) -> int:
    """The items of a list or map and of every list and map inside it (one held twice counts
    twice); the count stops soon after `limit`, so this costs at most about `limit` steps."""
    total = 0
    stack = [value]
    while stack and total <= limit:
        top = stack.pop()
        items = top.values() if type(top) is dict else top
        total += len(items)
        for item in items:  # (a loop, not a generator: most items are no list or map)
            if type(item) is list or type(item) is dict:
                stack.append(item)
    return total


def _map_key(value: Any, where: _Where) -> str:
    """A key of a map is a name, so that the map saves as a JSON object and loads back equal (the
    checker refuses other keys where it sees them: this guards what it could not see)."""
    if type(value) is not str:
        if isinstance(value, bool):
            what = ", not true" if value else ", not false"
        elif isinstance(value, int):
            what = f", not the number {value}"
        elif isinstance(value, list | dict):
            what = ", not a list" if isinstance(value, list) else ", not a map"
        else:
            what = ""
        raise where.error("EFF-MAP-KEY", f"the key of a map must be a name{what}")
    return value


def _lookup(items: dict[str, Any], key: Any) -> Any:
    """`m[key]`: a key the map does not hold is nothing, and the effect stops there."""
    try:
        return items[key]
    except (KeyError, TypeError):
        raise NoOptions(f"key {key}") from None


def _spend(k: str) -> list[str]:
    """Lines that count the run of a pack verb (instruction `k`, a `_CallVerb`) against the work
    left before the next decision, as `_CallVerb.run` does."""
    return [
        "_game = rt.game",
        "_game.work_left -= 1",
        "if _game.work_left < 0:",
        f"    raise {k}.over_budget()",
    ]


def _verbs_too_deep() -> NoReturn:
    raise EngineError("ENGINE-LIMIT", f"more than {MAX_FRAMES:,} verbs running inside each other")


def _loop_limit(where: _Where) -> NoReturn:
    """Nested loops multiply: every iteration of every loop of one run counts against the bound."""
    raise where.error("ENGINE-LIMIT", f"more than {MAX_LOOP_STEPS:,} loop iterations in one run of an effect")


def _too_large(where: _Where) -> NoReturn:
    raise where.error("ENGINE-LIMIT", f"a number beyond {MAX_NUMBER:,} in magnitude")


def _literal(value: Any) -> Callable[[], str]:
    """How to write a value known at compile time (a name, a number, None) into the source."""
    return lambda: repr(value)


_MAX_INLINED = 8  # selectors written in place inside each other (deeper ones are called)
_MAX_INLINED_CALLS = 32  # selectors written in place in one expression (the others are called)
_MAX_INLINED_SIZE = 16  # nodes of a selector's `return` value written in place (larger ones are called)


def _size_of(node: ast.Node) -> int:
    """The nodes of a tree."""
    return 1 + sum(_size_of(child) for child in ast.children(node))


_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})


def _counted(rt: Rt, items: Any, where: _Where) -> Iterator[Any]:
    """The items, each counted against the loop bound as it comes (see `_Writer.loop`)."""
    for item in items:
        rt.loops -= 1
        if rt.loops < 0:
            _loop_limit(where)
        yield item


# What the source of an expression may read besides its constants (see `_Writer`).
_HELPERS: dict[str, Any] = {
    "NoOptions": NoOptions,
    "_bounded": _bounded,
    "_lookup": _lookup,
    "_map_key": _map_key,
    "_loop_limit": _loop_limit,
    "_too_large": _too_large,
    "_counted": _counted,
    "_length_hint": length_hint,
}

# Expressions whose reading cannot fail but by NoOptions (names are bound wherever the checker
# lets them be read; an `@id` out of play stops the effect).
_PLAIN = (ast.IntLit, ast.BoolLit, ast.StrLit, ast.Ref, ast.Name)
_SCALARS = (ast.IntLit, ast.BoolLit, ast.StrLit, ast.Ref)  # values that are never a list or a map


def _counts_loops(node: ast.ListComp | ast.MapComp, compiler: Compiler) -> bool:
    """Whether working out an item of a list or map built with `for` (its test, item, key, value)
    may count loop iterations: a loop inside it, or a call of a pack verb whose body has one."""
    inside = (node.item,) if isinstance(node, ast.ListComp) else (node.key, node.value)
    return compiler.counts_loops([*inside, *([] if node.test is None else [node.test])])


def _flat(node: ast.Expr, names: frozenset[str], compiler: Compiler) -> bool:
    """Whether the value of an expression is never a list or a map, from what it is written as:
    a literal, `@id`, `not`/`-`, a comparison, `-`/`*`/`//` (numbers), `+`/`and`/`or` of such
    values, a name in `names`, or a built-in selector that returns one value of a plain type. Where
    unsure, false (the value is then tested as it is built into a list: see `_Writer.bounded`)."""
    if isinstance(node, (*_SCALARS, ast.UnaryOp)):
        return True
    if isinstance(node, ast.Name):
        return node.name in names
    if isinstance(node, ast.BinOp):
        if node.op in ("+", "and", "or"):
            return _flat(node.left, names, compiler) and _flat(node.right, names, compiler)
        return True
    returns = _returns(node, compiler)
    return returns is not None and _plain_type(returns)


def _flat_items(node: ast.Expr, names: frozenset[str], compiler: Compiler) -> bool:
    """Whether an expression is a list whose items are never a list or a map (see `_flat`)."""
    if isinstance(node, ast.ListLit):
        return all(_flat(item, names, compiler) for item in node.items)
    if isinstance(node, ast.ListComp):
        inner = names | {node.name} if _flat_items(node.iterable, names, compiler) else names - {node.name}
        return _flat(node.item, inner, compiler)
    returns = _returns(node, compiler)
    item = None if returns is None else element_type(returns)
    return item is not None and _plain_type(item)


def _returns(node: ast.Expr, compiler: Compiler) -> str | None:
    """The type a call of a built-in selector declares it returns (the engine's own code keeps to it);
    None for anything else (a choice's answer, a pack's selector: the pack's declarations and what
    its checks let through are not trusted here)."""
    if not isinstance(node, ast.Call) or id(node) in compiler._asked or node.name in compiler.verbs:
        return None
    sig = signature(node.name)
    return None if sig is None or sig.kind is not Kind.SELECTOR else sig.returns


def _returns_list(node: ast.Expr, compiler: Compiler) -> bool:
    """Whether an expression is a call of a built-in selector that returns a list."""
    returns = _returns(node, compiler)
    return returns is not None and element_type(returns) is not None


def _plain_type(type_name: str) -> bool:
    """A type whose values are one number, truth value or name: no list, map, record or type variable."""
    head, parts = type_parts(type_name)
    return not parts and head not in _VAGUE_TYPES and "." not in head


_VAGUE_TYPES = TYPE_VARS | {"any", "event"}


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
        """Raise a failure inside this place, located (see `located`)."""
        found = self.located(exc)
        if found is exc:
            raise exc
        raise found from exc

    def located(self, exc: Exception) -> Exception:
        """A failure inside this place as reported: a choice among nothing stays as it is; an
        engine error keeps its code and, once located, its place (the innermost effect that
        failed); anything else becomes EFF-RUNTIME."""
        if isinstance(exc, NoOptions):
            return exc
        if isinstance(exc, EngineError):
            return exc if exc.location is not None else self.error(exc.code, exc.message)
        # out of stack (triggers nested deeper than the interpreter goes) or of memory: a bound
        code = "ENGINE-LIMIT" if isinstance(exc, RecursionError | MemoryError) else "EFF-RUNTIME"
        return self.error(code, runtime_message(exc))

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

"""An expression that cannot ask written as the Python source of a function of `rt` (`_Writer`),
and the helpers that source calls: the bounds of sizes and numbers, map keys, counted loops."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from operator import length_hint
from typing import TYPE_CHECKING, Any, TypeVar

from coh_core.effects import ast
from coh_core.effects.registry import (
    NAME_TYPES,
    TYPE_VARS,
    Kind,
    Signature,
    element_type,
    signature,
    type_parts,
)
from coh_core.engine.codegen import Source
from coh_core.engine.compile.model import Impl, PackVerb
from coh_core.engine.compile.trees import _CHOICES, _bind, _choices, _default
from coh_core.engine.compile.where import _loop_limit, _too_large, _Where
from coh_core.engine.runtime import NoOptions, Rt
from coh_core.limits import MAX_LIST_ITEMS, MAX_LOOP_STEPS, MAX_NUMBER
from coh_core.packs.model import EffectSlot

if TYPE_CHECKING:
    from coh_core.engine.compile.lowering import Compiler


_NAMED_VALUES = frozenset({"emit", "window", "offer_cancel"})  # their last values are given by name


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
        if kind is not None and kind in self.c.in_play_types:
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


_C = TypeVar("_C", list[Any], dict[str, Any])


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

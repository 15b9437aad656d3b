"""Type-check effect ASTs against the registry and the pack's symbols.

The checker never stops at the first problem: it returns every finding with the
span of the offending node, a stable code and a "did you mean" hint where one fits.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from coh_core.effects import ast
from coh_core.effects.parser import EffectSyntaxError, parse_condition
from coh_core.effects.registry import (
    CONTEXTS,
    NAME_TYPES,
    PLACE_TYPE,
    PLACE_VALUE_TYPES,
    TYPE_VARS,
    TYPES,
    Declarations,
    Kind,
    Param,
    PileSpec,
    Signature,
    asking_selectors,
    context_spec,
    element_type,
    is_key_type,
    map_of,
    map_types,
    signature,
    signatures,
    type_parts,
)
from coh_core.limits import MAX_DEFAULT_NESTING, MAX_LIST_ITEMS, MAX_OPTIONS

_ARITHMETIC = {"+", "-", "*", "//"}
_ORDERING = {"<", "<=", ">", ">="}
_EQUALITY = {"==", "!="}
_LOGIC = {"and", "or"}
_MEMBERSHIP = {"in", "not_in"}
_SHOWN_OP = {"in": "in", "not_in": "not in"}
_CHOICES = asking_selectors()  # selectors that ask a player
_NAMED_VALUES = frozenset({"emit", "window", "offer_cancel"})  # calls whose names are given by name
# typed by the pack's data
_PACK_READS = frozenset({"pack_data", "entity_data", "has_entity_data", "pack_ids"})
_EXAMPLES = {
    "pack_data": "pack_data(setup, hours)",
    "entity_data": "entity_data(card, count)",
    "has_entity_data": "has_entity_data(card, window)",
    "pack_ids": "pack_ids(location)",
}
_READABLE = "a number, true or false, an id of the pack, or a list of one of those"


def _is_record(type_name: str) -> bool:
    """A type of records inside the pack's entries (`location.sides`: see coh_core.packs.pack_data)."""
    return "." in type_name


_R = TypeVar("_R")
# A default worked out in a check: (verb, parameter, defaults around it, names bound and their
# types); what it found: (names read unbound, defaults met again inside it, too deep).
_DefaultKey = tuple[str, str, int, tuple[tuple[str, str], ...]]
_DefaultFound = tuple[list[str], list[tuple[str, str]], bool]


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    span: ast.Span


@dataclass(frozen=True)
class Symbols:
    """What the pack defines, for `@id` references and side names."""

    refs: Mapping[str, str] = field(default_factory=dict)  # id -> type (location, colour, ...)
    sides: frozenset[str] = frozenset()
    params: Mapping[str, str] = field(default_factory=dict)  # rule parameter -> its declared type
    verbs: Mapping[str, Signature] = field(default_factory=dict)  # verbs the pack defines
    messages: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # log message -> placeholders
    declared: Declarations = field(default_factory=Declarations)  # enumerations, traits, events...
    questions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # decision -> placeholders
    answers: frozenset[str] = frozenset()  # what an answer may begin with (`ask(..., answer=...)`)
    carried: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # log message -> unshown values
    # `pack_data`: per readable section, each key's type ("" for a value effects cannot read)
    sections: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # `entity_data`: per type of entity, each field's type ("" for a value effects cannot read)
    fields: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # False when part of the pack failed to load: unknown ids may live in the missing part.
    complete: bool = True
    # False when the pack has no `messages` section (reported once as such): no message is known.
    messages_declared: bool = True


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to `word` (case is ignored), if one is close and is not `word` itself."""
    by_lower = {c.lower(): c for c in candidates}
    match = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[match[0]] if match and by_lower[match[0]] != word else None


def suggest(word: str, candidates: Iterable[str]) -> str:
    """A '; did you mean `x`?' suffix, or '' when nothing is close (case is ignored)."""
    match = closest(word, candidates)
    return f"; did you mean `{match}`?" if match else ""


def list_of(type_name: str) -> str:
    return f"list[{type_name}]"


def describe(type_name: str) -> str:
    inner = element_type(type_name)
    if inner:
        return f"a list of {inner}s"
    keyed = map_types(type_name)
    if keyed:
        return f"a map from {_plural(keyed[0])} to {_plural(keyed[1])}"
    return "a number" if type_name in _NUMBERS else f"a {type_name}"


def _plural(type_name: str) -> str:
    """Values of a type, in a map's description: `players`, `numbers`, `lists of characters`."""
    if type_name in _NUMBERS:
        return "numbers"
    if type_name == "bool":
        return "truth values"
    if type_name in ("any", "V", "T"):
        return "values"
    if type_name == "K":
        return "names"
    inner = element_type(type_name)
    if inner:
        return f"lists of {_plural(inner)}"
    return "maps" if map_types(type_name) else f"{type_name}s"


def _not_a_list(what: str, found: str) -> str:
    """`for` over what is no list; over a map, how to go over its keys."""
    hint = "; `keys(m)` lists the keys of a map, `values(m)` its values" if map_types(found) else ""
    return f"{what} needs a list, got {describe(found)}{hint}"


def _vague(type_name: str) -> bool:
    """Whether a type is partly unknown (`map[any, any]`, the type of `{}`)."""
    return type_name == "any" or any(_vague(part) for part in type_parts(type_name)[1])


def _has_type_var(type_name: str) -> bool:
    head, args = type_parts(type_name)
    return head in TYPE_VARS or any(_has_type_var(arg) for arg in args)


# A count is a number that must not be negative: any number expression may be given for one.
_NUMBERS = frozenset({"int", "count"})


def constant(expr: ast.Expr) -> int | None:
    """The value of a number written with literals only (`3`, `-3`, `2 * 500`), else None."""
    if isinstance(expr, ast.IntLit):
        return expr.value
    if isinstance(expr, ast.UnaryOp) and expr.op == "-":
        inner = constant(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, ast.BinOp) and expr.op in _ARITHMETIC:
        left, right = constant(expr.left), constant(expr.right)
        if left is None or right is None:
            return None
        if expr.op == "+":
            return left + right
        if expr.op == "-":
            return left - right
        if expr.op == "*":
            return left * right
        return left // right if right else None
    return None


class Checker:
    """Checks one effect (or condition) in one context."""

    def __init__(
        self,
        symbols: Symbols,
        context: str,
        extra: Mapping[str, str] | None = None,
        lenient: bool = False,
        returns: str | None = None,
    ):
        spec = context_spec(context, symbols.declared)
        if spec is None:  # (a field's unknown context is KIND-FIELD: its effects are not checked)
            raise ValueError(f"no context {context!r}")
        self.returns = returns  # in a selector the pack defines: the type its `return` gives
        self.symbols = symbols
        self.lenient = lenient  # names of an unknown window or event are not reported
        self.context = spec
        self.scopes: list[dict[str, str]] = [{**spec.bindings, **(extra or {})}]
        self.findings: list[Finding] = []
        # Inside an expression that is evaluated without asking anyone (a condition, a test,
        # a `for` list, an operand): what it is, for the message; None elsewhere.
        self.pure: str | None = None
        # The names read here that are not bound, in order: written (EFF-UNKNOWN-NAME), or read
        # by the default of an argument left out (EFF-UNBOUND-NAME).
        self.unbound: list[str] = []
        # The defaults being worked out around this check, as (verb, parameter): one met again
        # is a default that needs itself (reported where it is declared, `check_default`).
        self.expanding: frozenset[tuple[str, str]] = frozenset()
        self.cycles: list[tuple[str, str]] = []
        self.too_deep = False  # a default needed more than MAX_DEFAULT_NESTING others inside it
        # What the defaults worked out in this check found, by default, depth and names bound:
        # the same default met again is not followed again (a default that calls one with a
        # default many times, inside others that do, would otherwise take exponential time).
        self.seen_defaults: dict[_DefaultKey, _DefaultFound] = {}

    # -- entry points ---------------------------------------------------------------

    def check_effect(self, block: ast.Block) -> list[Finding]:
        if self.context.name == "selector":  # it only reads: no question, no change
            self._pure_expr("the body of a selector", lambda: self._block(block))
        else:
            self._block(block)
        return self.findings

    def check_default(self, expr: ast.Expr, verb: str, param: Param) -> list[Finding]:
        """A parameter's default, read where a call leaves the parameter out: of its type, asking
        nothing, and not needing itself to be worked out. Names it reads that are not bound here
        are not reported (see `_defaults`)."""
        self.expanding = frozenset({(verb, param.name)})
        self._pure_expr(f"the default of `{param.name}`", lambda: self._expect_default(expr, param))
        found = [f for f in self.findings if f.code not in ("EFF-UNKNOWN-NAME", "EFF-UNBOUND-NAME")]
        if (verb, param.name) in self.cycles:
            message = (
                f"the default of `{param.name}` calls `{verb}` (directly or through other defaults)"
                f" leaving `{param.name}` out: working it out would never end"
            )
            found.append(Finding("VERB-RECURSION", message, expr.span))
        elif self.too_deep:
            message = (
                f"the default of `{param.name}` is worked out through defaults inside each other too"
                f" deep to follow (at most {MAX_DEFAULT_NESTING}, fewer when they are long"
                " expressions): a default that calls a verb leaving out an argument with a default,"
                " and so on; give an argument at one of those calls"
            )
            found.append(Finding("EFF-LIMIT", message, expr.span))
        return found

    def _expect_default(self, expr: ast.Expr, param: Param) -> None:
        if not _has_type_var(param.type):
            self._expect(expr, param.type, f"the default of `{param.name}`")

    def check_condition(self, expr: ast.Expr) -> list[Finding]:
        found = self._pure_expr("a condition", lambda: self._expr(expr, "bool"))
        if found is not None and found != "bool":
            self._report("EFF-TYPE", f"a condition must be true or false, not {describe(found)}", expr.span)
        return self.findings

    # -- statements -----------------------------------------------------------------

    def _report(self, code: str, message: str, span: ast.Span) -> None:
        self.findings.append(Finding(code, message, span))

    def _lookup(self, name: str) -> str | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def _visible_names(self) -> set[str]:
        return {name for scope in self.scopes for name in scope}

    def _block(self, block: ast.Block) -> None:
        self.scopes.append({})
        for statement in block.statements:
            self._statement(statement)
        self.scopes.pop()

    def _statement(self, node: ast.Statement) -> None:
        if isinstance(node, ast.Call):
            self._call(node, statement=True)
        elif isinstance(node, ast.Let):
            found = self._expr(node.value, None)
            self.scopes[-1][node.name] = found or "any"
        elif isinstance(node, ast.If):
            self._pure_expr("the test of `if`", lambda: self._expect(node.test, "bool", "the test of `if`"))
            self._block(node.then)
            if node.otherwise is not None:
                self._block(node.otherwise)
        elif isinstance(node, ast.Return):
            self._return(node)
        elif isinstance(node, ast.While):
            self._pure_expr(
                "the test of `while`", lambda: self._expect(node.test, "bool", "the test of `while`")
            )
            self._block(node.body)
        else:
            self._for(node)

    def _return(self, node: ast.Return) -> None:
        """`return` leaves a pack verb; `return value` gives a pack selector its value."""
        context = self.context.name
        if context not in ("verb", "selector", "asking_selector"):
            self._report("EFF-RETURN", "`return` belongs in a verb or selector the pack defines", node.span)
        elif context == "verb" and node.value is not None:
            self._report(
                "EFF-RETURN", "a verb gives no value; declare `returns:` to make it a selector", node.span
            )
        elif context != "verb" and node.value is None:
            self._report("EFF-RETURN", "a selector must return a value: `return ...`", node.span)
        elif node.value is not None:
            self._expect(node.value, self.returns or "any", "`return`")

    def _for(self, node: ast.For) -> None:
        found = self._pure_expr("the list of `for`", lambda: self._expr(node.iterable, None))
        inner = element_type(found) if found else None
        if found is not None and found != "any" and inner is None:
            self._report("EFF-TYPE", _not_a_list("`for`", found), node.iterable.span)
        self.scopes.append({node.name: inner or "any"})
        self._block(node.body)
        self.scopes.pop()

    def _pure_expr(self, what: str, check: Callable[[], _R]) -> _R:
        """Check an expression that must not ask a question (the outermost one names it)."""
        outer = self.pure
        self.pure = outer or what
        try:
            return check()
        finally:
            self.pure = outer

    def _expect(self, expr: ast.Expr, wanted: str, what: str) -> None:
        found = self._expr(expr, wanted)
        if found is not None and not _compatible(wanted, found, {}):
            self._report("EFF-TYPE", f"{what} expects {describe(wanted)}, got {describe(found)}", expr.span)

    # -- expressions ----------------------------------------------------------------

    def _expr(self, expr: ast.Expr, expected: str | None) -> str | None:
        """The type of an expression, or None when it could not be known (already reported)."""
        if isinstance(expr, ast.IntLit):  # the parser refuses numbers past MAX_NUMBER
            return "int"
        if isinstance(expr, ast.BoolLit):
            return "bool"
        if isinstance(expr, ast.StrLit):
            return "string"
        if isinstance(expr, ast.Name):
            return self._name(expr, expected)
        if isinstance(expr, ast.Ref):
            return self._ref(expr, expected)
        if isinstance(expr, ast.Call):
            return self._call(expr, statement=False)
        if isinstance(expr, ast.UnaryOp):
            return self._unary(expr)
        if isinstance(expr, ast.ListLit):
            return self._pure_expr("an item of a list", lambda: self._list(expr, expected))
        if isinstance(expr, ast.Index):
            return self._pure_expr("an indexed list or map", lambda: self._index(expr))
        if isinstance(expr, ast.ListComp):
            return self._pure_expr("a list built with `for`", lambda: self._list_comp(expr))
        if isinstance(expr, ast.MapLit):
            return self._pure_expr("an entry of a map", lambda: self._map(expr, expected))
        if isinstance(expr, ast.MapComp):
            return self._pure_expr("a map built with `for`", lambda: self._map_comp(expr))
        return self._binary(expr)

    def _map(self, node: ast.MapLit, expected: str | None) -> str | None:
        """`{key: value, ...}`: keys of one type of names, values of one type (those of the first
        entry, or of the map expected); `{}` is a map of the type expected."""
        wanted = map_types(expected) if expected else None
        key_type, value_type = wanted or (None, None)
        if not node.entries:
            return map_of(key_type or "any", value_type or "any")
        first_key, first_value = node.entries[0]
        found_key = self._key(first_key, key_type, None)
        found_value = self._expr(first_value, value_type)
        written: set[str] = set()
        for index, (key, value) in enumerate(node.entries):
            if index:
                self._key(key, found_key or key_type, found_key)
                if found_value is not None and found_value != "any":
                    what = "a map whose first value is " + describe(found_value) + ","
                    self._expect(value, found_value, what)
                else:
                    self._expr(value, value_type)
            if isinstance(key, ast.Name | ast.Ref | ast.StrLit):  # the same key written twice
                shown = ast.dump(key)
                if shown in written:
                    self._report("EFF-DUPLICATE-KEY", f"`{shown}` is a key of this map twice", key.span)
                written.add(shown)
        if found_key is None or found_value is None:
            return None
        return map_of(found_key, found_value)

    def _map_comp(self, node: ast.MapComp) -> str | None:
        """`{key: value for name in items if test}`: a map of the key's and the value's types."""
        key, value = self._for_each(
            node.iterable,
            node.name,
            node.test,
            lambda: (self._key(node.key, None, None), self._expr(node.value, None)),
        )
        return map_of(key, value) if key is not None and value is not None else None

    def _key(self, expr: ast.Expr, hint: str | None, wanted: str | None) -> str | None:
        """A key of a map: a name (a player, a location, a value of an enumeration...), never a
        number, a truth value, a list or a map; of the type `wanted` when one is (`hint`: the
        type expected, which names an enumeration's values)."""
        found = self._expr(expr, hint)
        if found is None:
            return None
        if not is_key_type(found):
            self._report(
                "EFF-MAP-KEY",
                f"the keys of a map are names (players, locations, characters, values of an"
                f" enumeration...), not {_plural(found)}",
                expr.span,
            )
            return None
        if wanted is not None and not _compatible(wanted, found, {}):
            self._report(
                "EFF-TYPE", f"the keys of this map are {_plural(wanted)}, not {_plural(found)}", expr.span
            )
        return found

    def _list_comp(self, node: ast.ListComp) -> str | None:
        """`[item for name in items if test]`: a list of the item's type."""
        item = self._for_each(node.iterable, node.name, node.test, lambda: self._expr(node.item, None))
        return list_of(item) if item is not None else None

    def _for_each(self, items: ast.Expr, name: str, test: ast.Expr | None, body: Callable[[], _R]) -> _R:
        """A list or map built with `for`: `name` bound to each item of `items`, inside only."""
        found = self._expr(items, None)
        inner = element_type(found) if found else None
        if found is not None and found != "any" and inner is None:
            self._report("EFF-TYPE", _not_a_list("`for`", found), items.span)
        self.scopes.append({name: inner or "any"})
        try:
            if test is not None:
                self._expect(test, "bool", "the test of `if`")
            return body()
        finally:
            self.scopes.pop()

    def _list(self, node: ast.ListLit, expected: str | None) -> str | None:
        """`[a, b]`: every item of the type of the first (or of the list expected)."""
        wanted = element_type(expected) if expected else None
        if not node.items:
            return list_of(wanted or "any")
        first = self._expr(node.items[0], wanted)
        for item in node.items[1:]:
            if first is not None and first != "any":
                self._expect(item, first, "a list whose first item is " + describe(first) + ",")
            else:
                self._expr(item, wanted)
        return list_of(first) if first is not None else None

    def _index(self, node: ast.Index) -> str | None:
        """`items[n]`: the element type of a list, at a whole number; `m[key]`: the value type of a
        map, at a key of its key type."""
        found = self._expr(node.target, None)
        keyed = map_types(found) if found else None
        if keyed is not None:
            self._key(node.index, keyed[0], keyed[0])
            return keyed[1]
        self._expect(node.index, "int", "an index")
        if found is None or found == "any":
            return found
        inner = element_type(found)
        if inner is None:
            self._report(
                "EFF-TYPE",
                f"only a list or a map can be indexed; this is {describe(found)}",
                node.target.span,
            )
        return inner

    def _name(self, node: ast.Name, expected: str | None) -> str | None:
        if expected is not None and self._is_enum(expected) and self._lookup(node.name) is None:
            return self._member(node, expected)
        if expected == "side" and self._lookup(node.name) is None:
            if node.name in self.symbols.sides:
                return "side"
            self._report(
                "EFF-ENUM",
                f"`{node.name}` is not a side or state of any location"
                + suggest(node.name, self.symbols.sides),
                node.span,
            )
            return None
        found = self._lookup(node.name)
        if found is not None:
            return found
        if self.lenient:
            return "any"
        holders = self.symbols.declared.enums_with(node.name)
        if len(holders) == 1:  # a value of one enumeration, wherever it is written
            return holders[0]
        if holders:
            self._report(
                "EFF-AMBIGUOUS-NAME",
                f"`{node.name}` is a value of several enumerations ({', '.join(f'`{h}`' for h in holders)});"
                " write it where one of them is expected (an argument, or compared with a value of one)",
                node.span,
            )
            return None
        if node.name in self.symbols.declared.rejected:
            return None  # declared by an entry the schema rejected: reported there
        sig = signature(node.name)
        if sig is not None and sig.kind is Kind.SELECTOR:
            hint = f"; `{node.name}` is a selector: write `{node.name}(...)`"
        else:
            visible = sorted(self._visible_names())
            hint = suggest(node.name, visible) or (
                f"; names here: {', '.join(f'`{n}`' for n in visible)}" if visible else ""
            )
        self.unbound.append(node.name)
        self._report("EFF-UNKNOWN-NAME", f"unknown name `{node.name}`{hint}", node.span)
        return None

    def _ambiguous(self, node: ast.Expr) -> bool:
        """A bare name bound to nothing that is a value of several enumerations."""
        return (
            isinstance(node, ast.Name)
            and self._lookup(node.name) is None
            and len(self.symbols.declared.enums_with(node.name)) > 1
        )

    def _is_enum(self, type_name: str) -> bool:
        """An enumeration: declared by the pack, or a type that is neither built in nor declared
        (its values are reported as such, not as unknown names)."""
        return self.symbols.declared.is_enum(type_name) or (
            type_name not in TYPES
            and type_name not in self.symbols.declared.entity_types
            and type_name not in TYPE_VARS
            and type_name != "string"
            and not type_parts(type_name)[1]
        )

    def _member(self, node: ast.Name, expected: str) -> str | None:
        """A plain name where an enumeration is expected: one of its values."""
        members = self.symbols.declared.members(expected)
        if members is not None and node.name in members:
            return expected
        if not self.symbols.declared.complete:
            return None  # the type or the value may be declared in the part that failed to load
        if {node.name, expected} & self.symbols.declared.rejected:
            return None  # declared by an entry the schema rejected: reported there
        if members is None:
            enumerations = ", ".join(self.symbols.declared.enum_names())
            why = f": the pack declares no type `{expected}` (its enumerations: {enumerations})"
        elif not members:
            why = f": the pack declares no {expected}"
        else:
            why = f"; one of: {', '.join(sorted(members))}" + suggest(node.name, members)
        self._report("EFF-ENUM", f"`{node.name}` is not a {expected}{why}", node.span)
        return None

    def _ref(self, node: ast.Ref, expected: str | None) -> str | None:
        found = self.symbols.refs.get(node.id)
        if found is None and (not self.symbols.complete or node.id in self.symbols.declared.rejected):
            return None  # it may be defined in the part of the pack that failed to load
        if found is None:
            pool = [i for i, t in self.symbols.refs.items() if expected in (None, t)]
            self._report("REF-UNDEF", f"unknown id `@{node.id}`" + suggest(node.id, pool), node.span)
            return None
        if expected is not None and expected != "any" and not self._is_enum(expected) and found != expected:
            self._report(
                "REF-KIND",
                f"`@{node.id}` is a {found}, but {describe(expected)} is needed",
                node.span,
            )
            return None
        return found

    def _unary(self, node: ast.UnaryOp) -> str | None:
        wanted = "bool" if node.op == "not" else "int"
        self._pure_expr(
            f"an operand of `{node.op}`", lambda: self._expect(node.operand, wanted, f"`{node.op}`")
        )
        return wanted

    def _binary(self, node: ast.BinOp) -> str | None:
        return self._pure_expr(f"an operand of `{node.op}`", lambda: self._operands(node))

    def _operands(self, node: ast.BinOp) -> str | None:
        if node.op in _MEMBERSHIP:
            return self._membership(node)
        if node.op == "+":
            left = self._expr(node.left, None)
            if left is not None and element_type(left) is not None:  # lists put end to end
                self._expect(node.right, left, "`+` after " + describe(left) + ",")
                return left
            if left is not None and map_types(left) is not None:  # maps merged, the right one's values win
                right = self._expr(node.right, left)
                if right is not None and not _compatible(left, right, {}):
                    self._report(
                        "EFF-TYPE",
                        f"`+` after {describe(left)}, expects {describe(left)}, got {describe(right)}",
                        node.right.span,
                    )
                return right if right is not None and _vague(left) else left
            if left is not None and left not in _NUMBERS and left != "any":
                self._report(
                    "EFF-TYPE", f"`+` expects a number, a list or a map, got {describe(left)}", node.left.span
                )
            self._expect(node.right, "int", "`+`")
            return "int"
        if node.op in _LOGIC:
            self._expect(node.left, "bool", f"`{node.op}`")
            self._expect(node.right, "bool", f"`{node.op}`")
            return "bool"
        if node.op in _ARITHMETIC or node.op in _ORDERING:
            self._expect(node.left, "int", f"`{node.op}`")
            self._expect(node.right, "int", f"`{node.op}`")
            if node.op == "//" and constant(node.right) == 0:
                self._report("EFF-RANGE", "division by zero", node.right.span)
            return "int" if node.op in _ARITHMETIC else "bool"
        if self._ambiguous(node.left):  # `clear == weather`: the right side types the left
            right = self._expr(node.right, None)
            left = self._expr(node.left, right)
        else:
            left = self._expr(node.left, None)
            right = self._expr(node.right, left)
        # a value of type `any` (an answer of `ask` among lists, say) compares with anything
        if left is not None and right is not None and not _compatible(left, right, {}):
            self._report(
                "EFF-TYPE",
                f"`{node.op}` compares {describe(left)} with {describe(right)}",
                node.span,
            )
        return "bool"

    def _membership(self, node: ast.BinOp) -> str:
        """`x in items`, `x not in items`: whether a list holds a value of its item type, or a map
        a key of its key type."""
        items = self._expr(node.right, None)
        keyed = map_types(items) if items else None
        if keyed is not None:
            self._key(node.left, keyed[0], keyed[0])
            return "bool"
        inner = element_type(items) if items else None
        if items is not None and items != "any" and inner is None:
            self._report(
                "EFF-TYPE",
                f"`{_SHOWN_OP[node.op]}` needs a list or a map on its right, got {describe(items)}",
                node.right.span,
            )
        self._expect(
            node.left, inner or "any", f"`{_SHOWN_OP[node.op]}` on " + describe(items or "any") + ","
        )
        return "bool"

    # -- calls ----------------------------------------------------------------------

    def _call(self, node: ast.Call, statement: bool) -> str | None:
        sig = self.symbols.verbs.get(node.name) or signature(node.name)
        if sig is None:
            self._unknown_call(node, statement)
            return None
        self._check_call_position(node, sig, statement)
        if self.context.name == "selector" and sig.kind is not Kind.SELECTOR:
            self._report(
                "EFF-IN-SELECTOR", f"a selector only reads the game; `{sig.name}` changes it", node.name_span
            )
        if sig.name == "param":
            return self._param(node)
        if sig.name in _PACK_READS:
            return self._pack_read(node, sig)
        if sig.name == "log":
            self._log(node)
            return None
        if self.pure is not None and (sig.asks or sig.name in _CHOICES):
            asked_first = self.pure != "a condition" and not self.pure.startswith("the default")
            hint = " (ask it first: `let x = ...`)" if asked_first else ""
            self._report(
                "EFF-CHOICE-IN-CONDITION",
                f"{self.pure} cannot ask a question; `{sig.name}` asks one{hint}",
                node.name_span,
            )
        if sig.name in ("ask", "ask_each", "may"):
            return self._ask(node)
        if sig.name in _NAMED_VALUES:
            return self._named_values(node, sig)
        bound = self._bind_arguments(node, sig)
        type_vars: dict[str, str] = {}
        for param, arg in bound:
            self._argument(node, sig, param, arg, bound, type_vars)
        if len(bound) == len(node.args):  # (an argument refused: what is left out may be a typo)
            self._defaults(node, sig, {param.name for param, _ in bound})
        if sig.name == "action_window" and node.name not in self.symbols.verbs:
            self._windows_opened_without_names(node, sig, bound)
        if sig.name in _PILE_PRIMITIVES:
            self._pile_owners(node, sig, bound)
            if sig.name == "pile":
                return self._pile_type("entries", bound) or "list[any]"
            if sig.name == "pile_room":
                self._pile_sized(bound)
        if sig.name == "choose_number":
            self._number_range(node, bound)
        elif sig.name == "range":
            self._list_range(node, bound)
        if sig.returns is None:
            return None
        if sig.value_type_from and sig.returns in ("any", "list[any]"):
            fixed = self._dependent_type(sig, bound)
            if fixed is not None:
                return fixed if sig.returns == "any" else list_of(fixed)
        return _substitute(sig.returns, type_vars, unbound="any")

    def _param(self, node: ast.Call) -> str | None:
        """`param(name)`: a parameter the pack declares, typed as declared."""
        arg = node.args[0] if len(node.args) == 1 and node.args[0].keyword in (None, "name") else None
        if arg is None or not isinstance(arg.value, ast.Name):
            self._report("EFF-ARITY", "`param` takes the name of one rule parameter", node.span)
            return None
        name = arg.value.name
        declared = self.symbols.params.get(name)
        if declared is None:
            if self.symbols.complete:
                hint = suggest(name, self.symbols.params) or (
                    f"; declared: {', '.join(sorted(self.symbols.params))}" if self.symbols.params else ""
                )
                self._report("EFF-UNKNOWN-PARAM", f"no rule parameter `{name}`{hint}", arg.value.span)
            return None
        return declared

    def _pack_read(self, node: ast.Call, sig: Signature) -> str | None:
        """`pack_data(section, key)`, `entity_data(entity, key)`, `pack_ids(type)`: the pack's own
        data, typed as it is written there; sections, keys and types are bare names."""
        bound = {param.name: arg.value for param, arg in self._bind_arguments(node, sig)}
        names: dict[str, ast.Name] = {}
        for param in sig.params:
            value = bound.get(param.name)
            if param.type not in NAME_TYPES or value is None:
                continue
            if isinstance(value, ast.Name):
                names[param.name] = value
            else:
                self._report(
                    "EFF-TYPE",
                    f"`{param.name}` of `{sig.name}` is a bare name, as in `{_EXAMPLES[sig.name]}`",
                    value.span,
                )
        if sig.name == "pack_ids":
            kind = names.get("type")
            entries = {name: table for name, table in self.symbols.fields.items() if not _is_record(name)}
            if kind is None or not self._known("type", kind, entries, "type of the pack's entries"):
                return None
            return list_of(kind.name)
        key = names.get("key")
        if sig.name == "pack_data":
            section = names.get("section")
            if section is None or not self._known(
                "section", section, self.symbols.sections, "readable section"
            ):
                return None
            return (
                None
                if key is None
                else self._data_type(
                    key, self.symbols.sections[section.name], f"the `{section.name}` section"
                )
            )
        entity = bound.get("entity")
        found = None if entity is None else self._expr(entity, None)
        testing = sig.name == "has_entity_data"  # whether the entry has the field: a truth value
        if found is None or key is None:
            return "bool" if testing else None
        fields = self.symbols.fields.get(found)
        if fields is None and self.symbols.declared.is_rejected_type(found):
            return "bool" if testing else "any"  # its kind's declaration is broken: reported there
        if fields is None:
            if found != "any":
                kinds = ", ".join(f"`{k}`" for k in self.symbols.fields if not _is_record(k))
                assert entity is not None
                self._report(
                    "EFF-TYPE",
                    f"`{sig.name}` reads an entry of the pack ({kinds}) or a record inside one,"
                    f" not {describe(found)}",
                    entity.span,
                )
                return "bool" if testing else None
            if any(key.name in table for table in self.symbols.fields.values()) or not self.symbols.complete:
                return "bool" if testing else "any"
            fields = {name: kind for table in self.symbols.fields.values() for name, kind in table.items()}
        if testing:
            if key.name in fields:
                return "bool"
            self._data_type(key, fields, f"an entry of `{found}`")  # reports it
            return "bool"
        return self._data_type(key, fields, f"an entry of `{found}`")

    def _known(self, what: str, name: ast.Name, table: Mapping[str, object], group: str) -> bool:
        if name.name in table:
            return True
        if self.symbols.complete:
            shown = ", ".join(f"`{k}`" for k in table) or "none"
            self._report(
                "EFF-ENUM",
                f"`{name.name}` is no {group}" + (suggest(name.name, table) or f"; one of: {shown}"),
                name.span,
            )
        return False

    def _data_type(self, key: ast.Name, types: Mapping[str, str], owner: str) -> str | None:
        """The type of a key of the pack's data, reported when it is missing or cannot be read (not
        when the data itself is missing: a section the pack lacks is reported as such)."""
        found = types.get(key.name)
        if not types:
            return "any"  # the data did not load: its type cannot be known
        if found is None:
            if self.symbols.complete:
                readable = [k for k, t in types.items() if t]
                self._report(
                    "EFF-ENUM",
                    f"{owner} has no `{key.name}`"
                    + (
                        suggest(key.name, readable)
                        or f"; what effects may read: {', '.join(readable) or 'nothing'}"
                    ),
                    key.span,
                )
            return None
        if not found:
            self._report(
                "EFF-TYPE",
                f"`{key.name}` of {owner} cannot be read by effects: only {_READABLE} can",
                key.span,
            )
            return None
        return found

    def _log(self, node: ast.Call) -> None:
        """`log(message, name=value, ..., to=players)`: a log message the pack declares, each of its
        placeholders given by name; `to` shows the entry to those players only."""
        head = node.args[0] if node.args and node.args[0].keyword in (None, "message") else None
        if head is None or not isinstance(head.value, ast.Name):
            self._report(
                "EFF-ARITY",
                "`log` takes the name of a log message first: `log(message, name=value)`",
                node.span,
            )
            return
        name = head.value.name
        wanted = self._log_message(head.value)
        given: set[str] = set()
        for arg in node.args[1:]:
            if arg.keyword is None:
                self._report(
                    "EFF-ARITY", f"the values of `log({name})` are given by name: `name=value`", arg.span
                )
            elif arg.keyword in given:
                self._report("EFF-DUPLICATE-ARG", f"`{arg.keyword}` is given twice", arg.span)
            else:
                given.add(arg.keyword)
                self._log_value(name, wanted, arg)
        missing = [p for p in wanted or () if p not in given]
        if missing:
            self._report(
                "EFF-ARITY",
                f"`log({name})` is missing {', '.join(f'`{m}`' for m in missing)}: give every placeholder",
                node.span,
            )

    def _log_message(self, node: ast.Name) -> tuple[str, ...] | None:
        """The placeholders of a log message, or None if the pack declares none of that name."""
        declared = self.symbols.messages.get(node.name)
        if declared is None and self.symbols.complete and self.symbols.messages_declared:
            self._report(
                "EFF-UNKNOWN-MESSAGE",
                f"no log message `{node.name}` (the `log` messages of the pack's `messages` section)"
                + suggest(node.name, self.symbols.messages),
                node.span,
            )
        return declared

    def _log_value(self, name: str, wanted: tuple[str, ...] | None, arg: ast.Arg) -> None:
        """`to=players`, or the value of a placeholder: read as it is, never asked."""
        if arg.keyword == "to":
            self._pure_expr(
                "`to` of `log`", lambda: self._expect(arg.value, list_of("player"), "`to` of `log`")
            )
            return
        carried = self.symbols.carried.get(name, ())
        if wanted is not None and arg.keyword not in wanted and arg.keyword not in carried:
            shown = ", ".join(f"`{p}`" for p in wanted) or "none"
            self._report(
                "EFF-UNKNOWN-ARG",
                f"the log message `{name}` has no placeholder `{arg.keyword}`"
                + (suggest(str(arg.keyword), [*wanted, *carried]) or f"; its placeholders: {shown}"),
                arg.span,
            )
        self._pure_expr("a value of `log`", lambda: self._expr(arg.value, None))

    def _ask(self, node: ast.Call) -> str | None:
        """`ask(player, options, question=q, answer=a, name=value...)`: the player picks one of the
        options; `q` is a decision the pack declares, each of its placeholders given by name, and
        `a` an answer it declares: the player answers `[a, option]` (an option that is a list is
        spread: `[a, *option]`). Its value is the option picked. The player and the options come
        first, unnamed, so that any other name is free for a placeholder.

        `ask_each(options, question=q, answer=a, ...)`: each player of the map answers at once,
        among their own options; its value maps each of them to the option they picked.

        `may(player, option, question=q, answer=a, ...)`: the question of `ask` with one option and
        a pass (`[pass]`); its value is whether the option was taken."""
        each, one = node.name == "ask_each", node.name == "may"
        firsts = ("the options",) if each else ("the player", "the option" if one else "the options")
        positional, named = self._ask_arguments(node, firsts)
        fits = len(positional) == len(firsts)  # else reported: the values are not read as these
        player = positional[0] if fits and not each else None
        options_expr = positional[-1] if fits else None
        if player is not None:
            self._pure_expect(player, "player", f"the player of `{node.name}`")
        options = None
        if options_expr is not None:
            what = f"the option{'' if one else 's'} of `{node.name}`"
            found = self._pure_expr(what, lambda: self._expr(options_expr, None))
            options = None if one else self._ask_options(found, each, options_expr)
        question = named.pop("question", None)
        wanted = self._asked_message(question, "question", self.symbols.questions, "decisions")
        answer = named.pop("answer", None)
        self._asked_message(answer, "answer", dict.fromkeys(self.symbols.answers, ()), "answers")
        for name, value in named.items():
            if wanted is not None and name not in wanted:
                assert isinstance(question, ast.Name)
                shown = ", ".join(f"`{p}`" for p in wanted) or "none"
                self._report(
                    "EFF-UNKNOWN-ARG",
                    f"the question `{question.name}` has no placeholder `{name}`"
                    + (suggest(name, wanted) or f"; its placeholders: {shown}"),
                    value.span,
                )
            self._ask_value(value)
        lacking = ", ".join(f"`{p}`" for p in wanted or () if p not in named)
        if lacking:
            self._report(
                "EFF-ARITY", f"`{node.name}` is missing {lacking}: give every placeholder", node.span
            )
        if one:
            return "bool"
        picked = options or "any"
        return map_of("player", picked) if each else picked

    def _ask_options(self, found: str | None, each: bool, expr: ast.Expr) -> str | None:
        """The type of one option: of a list (`ask`), of the lists a map gives each player (`ask_each`)."""
        if found is None or found == "any":
            return None
        if each:
            pair = map_types(found)
            inner = element_type(pair[1]) if pair is not None and pair[0] in ("player", "any") else None
            if inner is None:
                self._report(
                    "EFF-TYPE",
                    f"the options of `ask_each` are a map from players to lists, got {describe(found)}",
                    expr.span,
                )
            return inner
        inner = element_type(found)
        if inner is None:
            self._report("EFF-TYPE", f"the options of `ask` are a list, got {describe(found)}", expr.span)
        return inner

    def _named_values(self, node: ast.Call, sig: Signature) -> str | None:
        """`emit`, `window` and `offer_cancel`: their parameters first, unnamed, then the names of
        the event or windows (or the values of the cancel's question), by name and typed."""
        positional = [arg for arg in node.args if arg.keyword is None]
        for param, arg in zip(sig.params, positional, strict=False):
            self._pure_expect(arg.value, param.type, f"`{param.name}` of `{sig.name}`")
        misplaced = any(arg.keyword is None for arg in node.args[len(positional) :])
        if len(positional) != len(sig.params) or misplaced:
            shown = ", ".join(p.name for p in sig.params)
            self._report(
                "EFF-ARITY", f"`{sig.name}` takes {shown} first, unnamed, then values by name", node.span
            )
            return sig.returns
        wanted = self._wanted_names(sig.name, [arg.value for arg in positional])
        given: dict[str, ast.Arg] = {}
        for arg in node.args[len(positional) :]:
            assert arg.keyword is not None
            if arg.keyword in given:
                self._report("EFF-DUPLICATE-ARG", f"`{arg.keyword}` is given twice", arg.span)
            given[arg.keyword] = arg
            kind = None if wanted is None else wanted.get(arg.keyword)
            if wanted is not None and kind is None:
                shown = ", ".join(f"`{n}`" for n in wanted) or "none"
                self._report(
                    "EFF-UNKNOWN-ARG",
                    f"`{sig.name}` gives no name `{arg.keyword}` here"
                    + (suggest(arg.keyword, wanted) or f"; it gives: {shown}"),
                    arg.span,
                )
            self._pure_expect(arg.value, kind or "any", f"`{arg.keyword}` of `{sig.name}`")
        lacking = ", ".join(f"`{n}`" for n in wanted or () if n not in given)
        if lacking:
            self._report("EFF-ARITY", f"`{sig.name}` is missing {lacking}", node.span)
        return sig.returns

    def _wanted_names(self, call: str, firsts: list[ast.Expr]) -> dict[str, str] | None:
        """The names `emit`, `window` or `offer_cancel` must give, with their types; None if unknown."""
        declared = self.symbols.declared
        if call == "emit":
            head = firsts[0]
            event = declared.events.get(head.name) if isinstance(head, ast.Name) else None
            if event is None:
                return None
            return {**event.bindings, **({"at": "location"} if event.located else {})}
        if call == "window":
            listed = firsts[1]
            if not isinstance(listed, ast.ListLit) or not all(isinstance(i, ast.Name) for i in listed.items):
                return None
            found: dict[str, str] = {}
            for item in listed.items:
                spec = declared.windows.get(item.name) if isinstance(item, ast.Name) else None
                if spec is None:
                    return None
                found.update(spec.bindings)
            return found
        head = firsts[0]  # offer_cancel: the values of the window's question, less the player's
        if not isinstance(head, ast.Name):
            return None
        question = self.symbols.questions.get(head.name)
        window = declared.windows.get(head.name)
        if window is not None and "pending" not in window.bindings:
            self._report(
                "EFF-TYPE", f"the window `{head.name}` binds no `pending`: nothing to cancel in it", head.span
            )
        elif window is not None and len(window.bindings) > 1:
            others = ", ".join(f"`{n}`" for n in window.bindings if n != "pending")
            self._report(
                "EFF-UNBOUND-NAME",
                f"`offer_cancel` gives the window it opens `pending` only, but `{head.name}` binds {others}"
                " too: its cards and powers would read them unbound; declare it with `pending` alone",
                head.span,
            )
        if question is None:
            return None
        return {name: "any" for name in question if name != "player"}

    def _pure_expect(self, value: ast.Expr, wanted: str, what: str) -> None:
        """A value that is read as it is, never asked, of the type wanted."""
        self._pure_expr(what, lambda: self._expect(value, wanted, what))

    def _ask_value(self, value: ast.Expr) -> None:
        self._pure_expr("a value of `ask`", lambda: self._expr(value, None))

    def _ask_arguments(
        self, node: ast.Call, firsts: tuple[str, ...]
    ) -> tuple[list[ast.Expr], dict[str, ast.Expr]]:
        """The values that come first, unnamed, then the values by name."""
        positional = [arg.value for arg in node.args if arg.keyword is None]
        named: dict[str, ast.Expr] = {}
        for arg in node.args:
            if arg.keyword is None:
                continue
            if arg.keyword in named:
                self._report("EFF-DUPLICATE-ARG", f"`{arg.keyword}` is given twice", arg.span)
            named[arg.keyword] = arg.value
        missing = list(firsts[len(positional) :])
        missing += [f"`{p}`" for p in ("question", "answer") if p not in named]
        misplaced = any(arg.keyword is None for arg in node.args[len(positional) :])  # unnamed after named
        if missing or len(positional) > len(firsts) or misplaced:
            self._report(
                "EFF-ARITY",
                f"`{node.name}` takes {' and '.join(firsts)} first, then `question=`, `answer=` and the"
                " question's placeholders by name" + (f" (missing: {', '.join(missing)})" if missing else ""),
                node.span,
            )
        return positional, named

    def _asked_message(
        self, value: ast.Expr | None, what: str, declared: Mapping[str, tuple[str, ...]], group: str
    ) -> tuple[str, ...] | None:
        """The placeholders of the decision or answer `ask` names (None if it names none known)."""
        if value is None:
            return None
        if not isinstance(value, ast.Name):
            self._report(
                "EFF-ARITY", f"the {what} of `ask` is the name of one of the pack's {group}", value.span
            )
            return None
        found = declared.get(value.name)
        if found is None and self.symbols.complete and self.symbols.messages_declared:
            self._report(
                "EFF-UNKNOWN-MESSAGE",
                f"no {what} `{value.name}` (the `{group}` of the pack's `messages` section)"
                + suggest(value.name, declared),
                value.span,
            )
        return found

    def _unknown_call(self, node: ast.Call, statement: bool) -> None:
        """An unknown call; only names of the kind its place needs are offered (a verb where an
        action is written, a selector where a value is read), so the suggestion is never an error."""
        if node.name in self.symbols.declared.rejected:
            return  # a verb the schema rejected: reported there
        wanted = {Kind.VERB, Kind.PROCEDURE} if statement else {Kind.SELECTOR}
        if not self.context.procedures_allowed:
            wanted.discard(Kind.PROCEDURE)
        known = {**signatures(), **self.symbols.verbs}
        pool = [n for n, s in known.items() if s.kind in wanted]
        what = "verb" if statement else "selector"
        hint = suggest(node.name, pool) + self._other_kind(node.name, known, pool, statement)
        self._report("EFF-UNKNOWN-VERB", f"unknown {what} `{node.name}`{hint}", node.name_span)

    def _other_kind(self, name: str, known: Mapping[str, Signature], pool: list[str], statement: bool) -> str:
        """Why the closest name, when it is of the wrong kind, is not offered ('' otherwise)."""
        close = closest(name, known)
        if close is None or close in pool:
            return ""
        found = known[close]
        if found.kind is Kind.SELECTOR:
            why = "a selector: it reads a value and does nothing on its own"
        elif found.kind is Kind.PROCEDURE and statement:
            why = f"a step of the turn structure, not usable in {self.context.doc}"
        else:
            why = "an action: it has no value to read"
        return f" (`{found.name}` is {why})"

    def _check_call_position(self, node: ast.Call, sig: Signature, statement: bool) -> None:
        if statement and sig.kind is Kind.SELECTOR:
            self._report(
                "EFF-NOT-STATEMENT",
                f"`{sig.name}` only reads a value; on its own it does nothing",
                node.name_span,
            )
        elif not statement and sig.kind is not Kind.SELECTOR:
            self._report("EFF-NOT-EXPRESSION", f"`{sig.name}` is an action and has no value", node.name_span)
        elif sig.kind is Kind.PROCEDURE and not self.context.procedures_allowed:
            self._report(
                "EFF-CONTEXT",
                f"`{sig.name}` is a step of the turn structure and cannot be used in {self.context.doc}",
                node.name_span,
            )

    def _bind_arguments(self, node: ast.Call, sig: Signature) -> list[tuple[Param, ast.Arg]]:
        bound: list[tuple[Param, ast.Arg]] = []
        seen: set[str] = set()
        positional = [a for a in node.args if a.keyword is None]
        for index, arg in enumerate(node.args):
            if arg.keyword is not None:
                param = sig.param(arg.keyword)
                if param is None:
                    names = [p.name for p in sig.params]
                    self._report(
                        "EFF-UNKNOWN-ARG",
                        f"`{sig.name}` has no parameter `{arg.keyword}`" + suggest(arg.keyword, names),
                        arg.span,
                    )
                    continue
            elif index < len(sig.params) and index < len(positional) and arg is positional[index]:
                param = sig.params[index]
            else:
                self._report(
                    "EFF-ARITY",
                    f"`{sig.name}` takes at most {len(sig.params)} argument(s): {sig.render()}",
                    arg.span,
                )
                continue
            if param.name in seen:
                self._report("EFF-DUPLICATE-ARG", f"`{param.name}` is given twice", arg.span)
                continue
            seen.add(param.name)
            bound.append((param, arg))
        missing = [p.name for p in sig.params if not p.optional and p.name not in seen]
        if missing:
            self._report(
                "EFF-ARITY",
                f"`{sig.name}` is missing {', '.join(f'`{m}`' for m in missing)}: {sig.render()}",
                node.span,
            )
        return bound

    def _argument(
        self,
        node: ast.Call,
        sig: Signature,
        param: Param,
        arg: ast.Arg,
        bound: list[tuple[Param, ast.Arg]],
        type_vars: dict[str, str],
    ) -> None:
        wanted = param.type
        if wanted == "any" and sig.value_type_from:
            wanted = self._dependent_type(sig, bound) or "any"
        elif wanted == "list[any]" and sig.value_type_from:
            fixed = self._dependent_type(sig, bound)
            wanted = "list[any]" if fixed is None else list_of(fixed)
        elif wanted == "any" and sig.name in _PILE_PRIMITIVES and param.name in _PILE_PARAMS:
            wanted = self._pile_type(param.name, bound) or "any"
        expected = _substitute(wanted, type_vars) if _has_type_var(wanted) else wanted
        found = self._expr(arg.value, None if _has_type_var(expected) else expected)
        if expected == "count":
            self._count(sig, param, arg.value)
        if found is None or expected == "any":
            return
        if not _compatible(expected, found, type_vars):
            self._report(
                "EFF-TYPE",
                f"`{param.name}` of `{sig.name}` expects {describe(expected)}, got {describe(found)}",
                arg.value.span,
            )

    def _defaults(self, node: ast.Call, sig: Signature, given: set[str]) -> None:
        """The default of an argument left out is worked out where the call is written, in the
        names bound there (as the engine does: a verb's body has its parameters only), so each
        name it reads must be bound here: of `f(player: player = me)`, `f()` reads `me`, which a
        step does not bind."""
        if self.lenient:
            return  # the names of an unknown window or event are unknown too (reported as such)
        for param in sig.params:
            if param.name in given or param.default is None:
                continue
            if (sig.name, param.name) in self.expanding:
                self.cycles.append((sig.name, param.name))
                continue
            if len(self.expanding) >= MAX_DEFAULT_NESTING:
                self.too_deep = True  # (not followed further: reported where it is declared)
                continue
            for name in dict.fromkeys(self._unbound_in_default(sig, param)):
                self.unbound.append(name)
                self._report(
                    "EFF-UNBOUND-NAME",
                    f"`{sig.name}` is called without `{param.name}`, whose default `{shown(param.default)}`"
                    f" reads `{name}` where the call is written (not inside `{sig.name}`), and"
                    f" {self._not_bound_here(name)}; pass it: `{sig.name}(..., {param.name}=...)`",
                    node.name_span,
                )

    def _unbound_in_default(self, sig: Signature, param: Param) -> list[str]:
        """The names a parameter's default reads that are not bound here (checked as if it were
        written here, which is how the engine compiles it)."""
        bound = tuple(sorted((n, t) for scope in self.scopes for n, t in scope.items()))
        key = (sig.name, param.name, len(self.expanding), bound)
        found = self.seen_defaults.get(key)
        if found is None:
            found = self.seen_defaults[key] = self._default_found(sig, param)
        unbound, cycles, too_deep = found
        self.cycles.extend(cycles)
        self.too_deep = self.too_deep or too_deep
        return unbound

    def _default_found(self, sig: Signature, param: Param) -> _DefaultFound:
        """What checking a default here finds: the names it reads unbound, the defaults met again
        inside it, and whether it went past MAX_DEFAULT_NESTING."""
        tree = _default_of(sig, param.name)
        if tree is None:
            return [], [], False  # (no expression: reported where the verb declares it, VERB-PARAM)
        here = Checker(self.symbols, self.context.name, lenient=self.lenient, returns=self.returns)
        here.scopes = [dict(scope) for scope in self.scopes]
        here.pure = "a default"
        here.expanding = self.expanding | {(sig.name, param.name)}
        here.seen_defaults = self.seen_defaults
        try:
            here._expr(tree, None if _has_type_var(param.type) else param.type)
        except RecursionError:  # long expressions in defaults inside each other: too deep to follow
            return [], [], True
        return here.unbound, here.cycles, here.too_deep

    def _not_bound_here(self, name: str) -> str:
        """Why a name is not bound at this place: the context, and the names that are."""
        where = self.context.doc.split(": ")[0]
        if self.context.name in ("verb", "selector", "asking_selector"):
            where += ", whose only names are its parameters"
        visible = sorted(self._visible_names())
        names = f" (names here: {', '.join(f'`{n}`' for n in visible)})" if visible else ""
        return f"`{name}` is not bound in {where}{names}"

    def _windows_opened_without_names(
        self, node: ast.Call, sig: Signature, bound: list[tuple[Param, ast.Arg]]
    ) -> None:
        """`action_window` gives the windows it opens no names: a window that binds some would
        leave them unbound in its cards and powers (the engine stops the game there)."""
        given = next((arg.value for param, arg in bound if param.name == "windows"), None)
        listed = given if given is not None else _default_of(sig, "windows")
        if not isinstance(listed, ast.ListLit):
            return
        for item in listed.items:
            spec = self.symbols.declared.windows.get(item.name) if isinstance(item, ast.Name) else None
            if spec is None or not spec.bindings:
                continue
            names = ", ".join(f"`{n}`" for n in spec.bindings)
            given_by_name = ", ".join(f"{n}=..." for n in spec.bindings)
            self._report(
                "EFF-UNBOUND-NAME",
                f"`action_window` gives the windows it opens no names, but `{spec.name}` binds {names}:"
                f" its cards and powers would read them unbound; open it with `window(player,"
                f" [{spec.name}], {given_by_name})`",
                item.span if given is not None else node.name_span,  # (a default: at the call)
            )

    def _pile_of(self, param: str, bound: list[tuple[Param, ast.Arg]]) -> PileSpec | None:
        """The pile a pile primitive's argument names (by its parameter), if it is a declared one."""
        arg = next((a for p, a in bound if p.name == param), None)
        if arg is None or not isinstance(arg.value, ast.Name):
            return None
        return self.symbols.declared.piles.get(arg.value.name)

    def _pile_type(self, param: str, bound: list[tuple[Param, ast.Arg]]) -> str | None:
        """The type of a pile primitive's owner, entry or entries, from the pile it names."""
        spec = self._pile_of(_PILE_PARAMS[param], bound)
        if spec is None:
            return None
        if param.endswith("owner"):
            return spec.owner or None
        return list_of(spec.of) if param == "entries" else spec.of

    def _pile_sized(self, bound: list[tuple[Param, ast.Arg]]) -> None:
        """`pile_room` counts the free places of a pile with a size; of another there are none to count."""
        spec = self._pile_of("pile", bound)
        if spec is not None and not spec.sized:
            named = next(a for p, a in bound if p.name == "pile")
            self._report(
                "EFF-PILE-SIZE",
                f"`{spec.name}` declares no `size`: it holds any number of entries, so it has no room"
                " to count",
                named.value.span,
            )

    def _pile_owners(self, node: ast.Call, sig: Signature, bound: list[tuple[Param, ast.Arg]]) -> None:
        """A pile kept per player or per location is named with its owner; a pile of the game without."""
        given = {p.name: a for p, a in bound}
        for owner, pile in (("owner", "pile"), ("from_owner", "from"), ("to_owner", "to")):
            spec = self._pile_of(pile, bound) if sig.param(owner) is not None else None
            if spec is None:
                continue
            if spec.per == "game" and owner in given:
                self._report(
                    "EFF-PILE-OWNER",
                    f"`{spec.name}` is one pile for the game: `{owner}` names no one's",
                    given[owner].value.span,
                )
            elif spec.per != "game" and owner not in given:
                self._report(
                    "EFF-PILE-OWNER",
                    f"`{spec.name}` is kept per {spec.per}: `{sig.name}` needs `{owner}`, whose pile",
                    node.span,
                )

    def _count(self, sig: Signature, param: Param, value: ast.Expr) -> None:
        """A count written as a negative number is a mistake (a computed one only counts as zero)."""
        found = constant(value)
        if found is not None and found < 0:
            self._report(
                "EFF-RANGE",
                f"`{param.name}` of `{sig.name}` is a count and cannot be negative, got {found}",
                value.span,
            )

    def _number_range(self, node: ast.Call, bound: list[tuple[Param, ast.Arg]]) -> None:
        """A range of literal bounds must hold at least one number and at most MAX_OPTIONS."""
        values = {param.name: constant(arg.value) for param, arg in bound}
        low, high = values.get("low"), values.get("high")
        if low is None or high is None:
            return
        if low > high:
            self._report("EFF-RANGE", f"`{node.name}` from {low} to {high} offers no number", node.span)
        elif high - low + 1 > MAX_OPTIONS:
            self._report(
                "EFF-RANGE",
                f"`{node.name}` from {low} to {high} offers {high - low + 1:,} numbers;"
                f" a choice offers at most {MAX_OPTIONS:,}",
                node.span,
            )

    def _list_range(self, node: ast.Call, bound: list[tuple[Param, ast.Arg]]) -> None:
        """`range` between literal bounds holds at most MAX_LIST_ITEMS numbers (none is no mistake:
        a loop over it runs no time)."""
        values = {param.name: constant(arg.value) for param, arg in bound}
        low, high = values.get("low"), values.get("high")
        if low is not None and high is not None and high - low + 1 > MAX_LIST_ITEMS:
            self._report(
                "EFF-RANGE",
                f"`range` from {low} to {high} holds {high - low + 1:,} numbers;"
                f" a list holds at most {MAX_LIST_ITEMS:,}",
                node.span,
            )

    def _dependent_type(self, sig: Signature, bound: list[tuple[Param, ast.Arg]]) -> str | None:
        for param, arg in bound:
            if param.name == sig.value_type_from and isinstance(arg.value, ast.Name):
                declared = self.symbols.declared
                graph = declared.graphs.get(arg.value.name)
                if graph is not None and sig.param("graph") is param:
                    return graph.of
                pointer = declared.pointers.get(arg.value.name)
                if pointer is not None and sig.param("name") is param:
                    return pointer[1]
                memory = declared.memory.get(arg.value.name)
                if memory is not None and sig.param("name") is param:
                    return _memory_part(sig.name, memory[1])
                trait = declared.traits.get(arg.value.name)
                return None if trait is None else trait.type
        return None


# The primitives on the pack's piles, and per parameter that depends on a pile, the parameter that
# names the pile: its owner, an entry and entries are of the types the pile declares.
_PILE_PRIMITIVES = frozenset(
    {"pile", "pile_size", "pile_room", "set_pile", "move_entry", "move_at", "move_top"}
)
_PILE_PARAMS = {"owner": "pile", "entries": "pile", "entry": "from", "from_owner": "from", "to_owner": "to"}


def _memory_part(verb: str, whole: str) -> str | None:
    """The type a memory primitive reads or writes: the whole value, one player's, one item of a list."""
    if verb == "remember_for":
        keyed = map_types(whole)
        return None if keyed is None else keyed[1]
    if verb == "add_to_memory":
        return element_type(whole)
    return whole


def _substitute(type_name: str, type_vars: Mapping[str, str], unbound: str | None = None) -> str:
    """Replace the type variables by their bindings; `unbound` stands in for one that has none
    (by default it stays)."""
    if type_name in TYPE_VARS:
        return type_vars.get(type_name, unbound or type_name)
    inner = element_type(type_name)
    if inner is not None:
        return list_of(_substitute(inner, type_vars, unbound))
    keyed = map_types(type_name)
    if keyed is not None:
        return map_of(_substitute(keyed[0], type_vars, unbound), _substitute(keyed[1], type_vars, unbound))
    return type_name


def _compatible(expected: str, found: str, type_vars: dict[str, str]) -> bool:
    """Whether a value of type `found` fits `expected`, binding the type variables (T, K, V)."""
    if expected == "any" or found == "any":
        return True
    if expected in _NUMBERS and found in _NUMBERS:
        return True
    if expected == PLACE_TYPE and found in PLACE_VALUE_TYPES:
        return True  # a location or a player is a place counters sit at
    if expected in TYPE_VARS:
        bound = type_vars.setdefault(expected, found)
        return bound == found or _compatible(bound, found, {})
    inner_expected, inner_found = element_type(expected), element_type(found)
    if inner_expected is not None and inner_found is not None:
        return _compatible(inner_expected, inner_found, type_vars)
    keyed_expected, keyed_found = map_types(expected), map_types(found)
    if keyed_expected is not None and keyed_found is not None:
        return _compatible(keyed_expected[0], keyed_found[0], type_vars) and _compatible(
            keyed_expected[1], keyed_found[1], type_vars
        )
    return expected == found


def shown(text: str, width: int = 60) -> str:
    """A text of the pack in a message: whole, or its start when it is long."""
    return text if len(text) <= width else f"{text[:width]}..."


def names_some_context_binds(declared: Declarations) -> dict[str, str]:
    """Every name a context, event or window binds, with its type (`any` where they differ): the
    names a default may read, typed as the places that call it give them."""
    found: dict[str, str] = {}
    bindings: list[Mapping[str, str]] = [spec.bindings for spec in CONTEXTS.values()]
    bindings += [spec.bindings for spec in declared.contexts.values()]
    bindings += [spec.bindings for spec in declared.events.values()]
    bindings += [spec.bindings for spec in declared.windows.values()]
    for names in bindings:
        for name, type_name in names.items():
            found[name] = type_name if found.get(name, type_name) == type_name else "any"
    return found


def _default_of(sig: Signature, name: str) -> ast.Expr | None:
    """The parsed default of a parameter of a signature (None: none, or not an expression)."""
    param = sig.param(name)
    if param is None or param.default is None:
        return None
    try:
        return parse_condition(param.default)
    except EffectSyntaxError:
        return None


def check_effect(
    block: ast.Block, symbols: Symbols, context: str, extra: Mapping[str, str] | None = None
) -> list[Finding]:
    return Checker(symbols, context, extra).check_effect(block)


def check_condition(
    expr: ast.Expr, symbols: Symbols, context: str, extra: Mapping[str, str] | None = None
) -> list[Finding]:
    return Checker(symbols, context, extra).check_condition(expr)

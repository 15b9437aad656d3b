"""AST of the effect language. Every node carries the span of its source text,
relative to the start of the effect string (line and column 1-based)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True)
class Span:
    line: int
    col: int
    start: int  # character offset in the effect text
    end: int


@dataclass(frozen=True)
class IntLit:
    value: int
    span: Span


@dataclass(frozen=True)
class BoolLit:
    value: bool
    span: Span


@dataclass(frozen=True)
class StrLit:
    value: str
    span: Span


@dataclass(frozen=True)
class Name:
    """A bare name: a variable, an implicit binding (self, here, me) or an enum member."""

    name: str
    span: Span


@dataclass(frozen=True)
class Ref:
    """A reference to a pack entity by id: `@<id>`."""

    id: str
    span: Span


@dataclass(frozen=True)
class Arg:
    keyword: str | None
    value: Expr
    span: Span


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Arg, ...]
    span: Span
    name_span: Span


@dataclass(frozen=True)
class BinOp:
    op: str  # one of + - * // == != < <= > >= in not_in and or
    left: Expr
    right: Expr
    span: Span


@dataclass(frozen=True)
class UnaryOp:
    op: str  # "not" or "-"
    operand: Expr
    span: Span


@dataclass(frozen=True)
class ListLit:
    """`[a, b, c]`: a list of values of one type."""

    items: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True)
class Index:
    """`items[n]`: the n-th value of a list, counted from 0."""

    target: Expr
    index: Expr
    span: Span


@dataclass(frozen=True)
class ListComp:
    """`[item for name in items if test]`: a new list, one item per item kept (the test is optional)."""

    item: Expr
    name: str
    iterable: Expr
    test: Expr | None
    span: Span


@dataclass(frozen=True)
class MapLit:
    """`{key: value, ...}`: a map from names to values of one type (`{}` is empty)."""

    entries: tuple[tuple[Expr, Expr], ...]  # (key, value) in the order written
    span: Span


@dataclass(frozen=True)
class MapComp:
    """`{key: value for name in items if test}`: a new map, one entry per item kept."""

    key: Expr
    value: Expr
    name: str
    iterable: Expr
    test: Expr | None
    span: Span


Expr: TypeAlias = (
    IntLit
    | BoolLit
    | StrLit
    | Name
    | Ref
    | Call
    | BinOp
    | UnaryOp
    | ListLit
    | Index
    | ListComp
    | MapLit
    | MapComp
)


@dataclass(frozen=True)
class Let:
    name: str
    value: Expr
    span: Span


@dataclass(frozen=True)
class If:
    test: Expr
    then: Block
    otherwise: Block | None
    span: Span


@dataclass(frozen=True)
class For:
    name: str
    iterable: Expr
    body: Block
    span: Span


@dataclass(frozen=True)
class While:
    """`while test { ... }`: the body again as long as the test holds (the loop bound applies)."""

    test: Expr
    body: Block
    span: Span


@dataclass(frozen=True)
class Return:
    """`return` (leave a verb) or `return value` (the value of a selector the pack defines)."""

    value: Expr | None
    span: Span


@dataclass(frozen=True)
class Block:
    statements: tuple[Statement, ...]
    span: Span


Statement: TypeAlias = Call | Let | If | For | While | Return

Node: TypeAlias = Expr | Statement | Block | Arg


def dump(node: Node) -> str:
    """A compact s-expression of a node, for golden tests: `(call draw_cards 2 (player me))`."""
    if isinstance(node, IntLit):
        return str(node.value)
    if isinstance(node, BoolLit):
        return "true" if node.value else "false"
    if isinstance(node, StrLit):
        return f'"{node.value}"'
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Ref):
        return f"@{node.id}"
    if isinstance(node, Arg):
        return f"({node.keyword} {dump(node.value)})" if node.keyword else dump(node.value)
    if isinstance(node, Call):
        return "(" + " ".join(["call", node.name, *(dump(a) for a in node.args)]) + ")"
    if isinstance(node, BinOp):
        return f"({node.op} {dump(node.left)} {dump(node.right)})"
    if isinstance(node, UnaryOp):
        return f"({node.op} {dump(node.operand)})"
    if isinstance(node, ListLit):
        return "(list" + "".join(" " + dump(item) for item in node.items) + ")"
    if isinstance(node, Index):
        return f"(index {dump(node.target)} {dump(node.index)})"
    if isinstance(node, ListComp):
        test = "" if node.test is None else f" (if {dump(node.test)})"
        return f"(list-for {dump(node.item)} {node.name} {dump(node.iterable)}{test})"
    if isinstance(node, MapLit):
        return "(map" + "".join(f" ({dump(key)} {dump(value)})" for key, value in node.entries) + ")"
    if isinstance(node, MapComp):
        test = "" if node.test is None else f" (if {dump(node.test)})"
        return f"(map-for {dump(node.key)} {dump(node.value)} {node.name} {dump(node.iterable)}{test})"
    if isinstance(node, Let):
        return f"(let {node.name} {dump(node.value)})"
    if isinstance(node, If):
        tail = f" {dump(node.otherwise)}" if node.otherwise is not None else ""
        return f"(if {dump(node.test)} {dump(node.then)}{tail})"
    if isinstance(node, For):
        return f"(for {node.name} {dump(node.iterable)} {dump(node.body)})"
    if isinstance(node, While):
        return f"(while {dump(node.test)} {dump(node.body)})"
    if isinstance(node, Return):
        return "(return)" if node.value is None else f"(return {dump(node.value)})"
    return "(block" + "".join(" " + dump(s) for s in node.statements) + ")"


def children(node: Node) -> tuple[Node, ...]:
    """The nodes directly inside a node, in source order (for walks over a whole tree)."""
    if isinstance(node, Call):
        return tuple(arg.value for arg in node.args)
    if isinstance(node, Arg):
        return (node.value,)
    if isinstance(node, BinOp):
        return (node.left, node.right)
    if isinstance(node, UnaryOp):
        return (node.operand,)
    if isinstance(node, ListLit):
        return node.items
    if isinstance(node, Index):
        return (node.target, node.index)
    if isinstance(node, ListComp):
        inside = (node.iterable, node.item)
        return inside if node.test is None else (*inside, node.test)
    if isinstance(node, MapLit):
        return tuple(part for entry in node.entries for part in entry)
    if isinstance(node, MapComp):
        parts: tuple[Expr, ...] = (node.iterable, node.key, node.value)
        return parts if node.test is None else (*parts, node.test)
    if isinstance(node, Let):
        return (node.value,)
    if isinstance(node, If):
        return (node.test, node.then) if node.otherwise is None else (node.test, node.then, node.otherwise)
    if isinstance(node, For):
        return (node.iterable, node.body)
    if isinstance(node, While):
        return (node.test, node.body)
    if isinstance(node, Return):
        return () if node.value is None else (node.value,)
    if isinstance(node, Block):
        return node.statements
    return ()


def calls(tree: Node) -> Iterator[Call]:
    """Every call in a tree (verbs, selectors, procedures), at any depth."""
    stack: list[Node] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Call):
            yield node
        stack.extend(children(node))

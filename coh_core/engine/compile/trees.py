"""What the compiler reads off effect trees: the choices inside an expression, the names a tree
reads and binds, a call's arguments by parameter, a parameter's default, the calls of a tree."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from coh_core.effects import ast
from coh_core.effects.parser import parse_condition
from coh_core.effects.registry import asking_selectors

_CHOICES = asking_selectors()  # selectors that ask a player: worked out into a name first


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


def _bind(node: ast.Call, names: list[str]) -> dict[str, ast.Expr]:
    bound: dict[str, ast.Expr] = {}
    for index, arg in enumerate(node.args):
        bound[arg.keyword or names[index]] = arg.value
    return bound


@cache
def _default(source: str) -> ast.Expr:
    return parse_condition(source)


def walk_calls(tree: ast.Block | ast.Expr) -> Iterator[str]:
    """Every call name in a tree (for the engine's coverage check of the registry)."""
    return (call.name for call in ast.calls(tree))

"""Pretty-print effect ASTs back to canonical effect-language source."""

from __future__ import annotations

from coh_core.effects import ast

_PRECEDENCE = {
    "or": 1,
    "and": 2,
    "not": 3,
    "==": 4,
    "!=": 4,
    "<": 4,
    "<=": 4,
    ">": 4,
    ">=": 4,
    "in": 4,
    "not_in": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "//": 6,
}
_INDENT = "  "


def format_effect(block: ast.Block, indent: int = 0) -> str:
    """One statement per line, blocks indented."""
    last = len(block.statements) - 1
    lines = [
        # a bare `return` before another statement: `;` ends it, or it would return the next one
        _statement(s, indent) + (";" if isinstance(s, ast.Return) and s.value is None and i < last else "")
        for i, s in enumerate(block.statements)
    ]
    return "\n".join(lines) or f"{_INDENT * indent}(nothing)"


def _block(block: ast.Block, indent: int) -> str:
    """A block after `if`, `else`, `for` or `while`, its statements one level further in."""
    if not block.statements:
        return "{}"
    return f"{{\n{format_effect(block, indent + 1)}\n{_INDENT * indent}}}"


def format_expr(expr: ast.Expr, parent: int = 0) -> str:
    if isinstance(expr, ast.IntLit):
        return str(expr.value)
    if isinstance(expr, ast.BoolLit):
        return "true" if expr.value else "false"
    if isinstance(expr, ast.StrLit):
        return f'"{expr.value}"'
    if isinstance(expr, ast.Name):
        return expr.name
    if isinstance(expr, ast.Ref):
        return f"@{expr.id}"
    if isinstance(expr, ast.Call):
        return _call(expr)
    if isinstance(expr, ast.ListLit):
        return "[" + ", ".join(format_expr(item) for item in expr.items) + "]"
    if isinstance(expr, ast.Index):
        return f"{format_expr(expr.target, 9)}[{format_expr(expr.index)}]"
    if isinstance(expr, ast.ListComp):
        test = "" if expr.test is None else f" if {format_expr(expr.test)}"
        return f"[{format_expr(expr.item)} for {expr.name} in {format_expr(expr.iterable)}{test}]"
    if isinstance(expr, ast.MapLit):
        entries = (f"{format_expr(key)}: {format_expr(value)}" for key, value in expr.entries)
        return "{" + ", ".join(entries) + "}"
    if isinstance(expr, ast.MapComp):
        test = "" if expr.test is None else f" if {format_expr(expr.test)}"
        entry = f"{format_expr(expr.key)}: {format_expr(expr.value)}"
        return f"{{{entry} for {expr.name} in {format_expr(expr.iterable)}{test}}}"
    if isinstance(expr, ast.UnaryOp):
        mine = _PRECEDENCE["not"] if expr.op == "not" else 7
        text = (
            f"not {format_expr(expr.operand, mine)}"
            if expr.op == "not"
            else f"-{format_expr(expr.operand, mine)}"
        )
        return f"({text})" if mine < parent else text
    mine = _PRECEDENCE[expr.op]
    op = "not in" if expr.op == "not_in" else expr.op
    # left-associative, except comparisons, which do not chain: a comparison inside one is bracketed
    left = mine + 1 if mine == _PRECEDENCE["=="] else mine
    text = f"{format_expr(expr.left, left)} {op} {format_expr(expr.right, mine + 1)}"
    return f"({text})" if mine < parent else text


def _call(call: ast.Call) -> str:
    args = ", ".join(
        f"{arg.keyword}={format_expr(arg.value)}" if arg.keyword else format_expr(arg.value)
        for arg in call.args
    )
    return f"{call.name}({args})"


def _statement(node: ast.Statement, indent: int) -> str:
    pad = _INDENT * indent
    if isinstance(node, ast.Call):
        return pad + _call(node)
    if isinstance(node, ast.Let):
        return f"{pad}let {node.name} = {format_expr(node.value)}"
    if isinstance(node, ast.Return):
        return f"{pad}return" if node.value is None else f"{pad}return {format_expr(node.value)}"
    if isinstance(node, ast.While):
        return f"{pad}while {format_expr(node.test)} {_block(node.body, indent)}"
    if isinstance(node, ast.For):
        return f"{pad}for {node.name} in {format_expr(node.iterable)} {_block(node.body, indent)}"
    text = f"{pad}if {format_expr(node.test)} {_block(node.then, indent)}"
    if node.otherwise is not None:
        text += f" else {_block(node.otherwise, indent)}"
    return text

"""Effect text to AST nodes with Lark's LALR parser: the part of coh_core.effects.parser that
needs lark, imported only when a text is not among the trees already in coh's cache."""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from lark import Lark, Token, Transformer, Tree, UnexpectedCharacters, UnexpectedInput, v_args
from lark.exceptions import UnexpectedEOF, UnexpectedToken, VisitError
from lark.tree import Meta

from coh_core.effects import ast
from coh_core.effects.parser import EffectSyntaxError, EntryPoint, _position
from coh_core.limits import MAX_EFFECT_NESTING, MAX_NUMBER
from coh_core.resources import grammar_path

_TOKEN_LABELS = {
    "LPAR": "'('",
    "RPAR": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "COLON": "':'",
    "SEMICOLON": "';'",
    "EQUAL": "'='",
    "NAME": "a name",
    "INT": "a number",
    "ESCAPED_STRING": "a string",
    "COMPARE": "a comparison",
    "$END": "the end of the effect",
    "AT": "'@'",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'//'",
}


def parse_tree(text: str, start: EntryPoint) -> Any:
    """The AST of a text whose brackets match; raises EffectSyntaxError."""
    try:
        tree = _lark().parse(text, start=start)
    except UnexpectedInput as exc:
        raise _syntax_error(text, exc) from None
    _check_nesting(tree)
    try:
        return _TRANSFORMER.transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, EffectSyntaxError):
            raise exc.orig_exc from None
        raise


@cache
def _lark() -> Lark:
    grammar = grammar_path("effects.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        start=["effect", "condition"],
        propagate_positions=True,
        maybe_placeholders=False,
        cache=_grammar_cache(grammar),
    )


def _grammar_cache(grammar: str) -> str | bool:
    """Where lark keeps the grammar's parse tables: in coh's cache (coh_core.cache_dir), named by
    the grammar's and lark's digest (lark also checks it on reading); False: build them each time."""
    from coh_core import cache_dir

    folder = cache_dir.created("grammar")
    if folder is None:
        return False
    digest = hashlib.sha256(f"{grammar}\0{cache_dir.library_stamp('lark')}".encode()).hexdigest()
    return str(folder / f"effects-{digest[:32]}.lark-cache")


def _span(meta: Meta | Token) -> ast.Span:
    return ast.Span(meta.line or 1, meta.column or 1, meta.start_pos or 0, meta.end_pos or 0)


@v_args(meta=True)
class _ToAst(Transformer[Token, Any]):
    def statements(self, meta: Meta, children: list[ast.Statement]) -> ast.Block:
        span = _span(meta) if not meta.empty else ast.Span(1, 1, 0, 0)
        return ast.Block(tuple(children), span)

    def block(self, meta: Meta, children: list[ast.Block]) -> ast.Block:
        return ast.Block(children[0].statements, _span(meta))

    def let_stmt(self, meta: Meta, children: list[Any]) -> ast.Let:
        return ast.Let(str(children[0]), children[1], _span(meta))

    def if_stmt(self, meta: Meta, children: list[Any]) -> ast.If:
        otherwise = children[2] if len(children) > 2 else None
        if isinstance(otherwise, ast.If):  # `else if` is an else block holding one if
            otherwise = ast.Block((otherwise,), otherwise.span)
        return ast.If(children[0], children[1], otherwise, _span(meta))

    def for_stmt(self, meta: Meta, children: list[Any]) -> ast.For:
        return ast.For(str(children[0]), children[1], children[2], _span(meta))

    def return_stmt(self, meta: Meta, children: list[Any]) -> ast.Return:
        return ast.Return(children[0] if children else None, _span(meta))

    def while_stmt(self, meta: Meta, children: list[Any]) -> ast.While:
        return ast.While(children[0], children[1], _span(meta))

    def call(self, meta: Meta, children: list[Any]) -> ast.Call:
        name: Token = children[0]
        args = tuple(children[1]) if len(children) > 1 else ()
        return ast.Call(str(name), args, _span(meta), _span(name))

    def arguments(self, meta: Meta, children: list[Any]) -> list[ast.Arg]:
        return [c if isinstance(c, ast.Arg) else ast.Arg(None, c, c.span) for c in children]

    def keyword_arg(self, meta: Meta, children: list[Any]) -> ast.Arg:
        return ast.Arg(str(children[0]), children[1], _span(meta))

    def _binary(self, op: str, meta: Meta, children: list[Any]) -> ast.BinOp:
        return ast.BinOp(op, children[0], children[-1], _span(meta))

    def or_op(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return self._binary("or", meta, children)

    def and_op(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return self._binary("and", meta, children)

    def compare(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return ast.BinOp(str(children[1]), children[0], children[2], _span(meta))

    def contains(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return self._binary("in", meta, children)

    def not_contains(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return self._binary("not_in", meta, children)

    def add(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return self._binary("+", meta, children)

    def subtract(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return self._binary("-", meta, children)

    def multiply(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return self._binary("*", meta, children)

    def floor_divide(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        return self._binary("//", meta, children)

    def not_op(self, meta: Meta, children: list[Any]) -> ast.UnaryOp:
        return ast.UnaryOp("not", children[0], _span(meta))

    def negate(self, meta: Meta, children: list[Any]) -> ast.UnaryOp:
        return ast.UnaryOp("-", children[0], _span(meta))

    def integer(self, meta: Meta, children: list[Token]) -> ast.IntLit:
        # checked before it is converted: Python refuses to convert very long numbers
        digits = str(children[0]).lstrip("0") or "0"
        if len(digits) > len(str(MAX_NUMBER)) or int(digits) > MAX_NUMBER:
            shown = digits if len(digits) <= 30 else f"{digits[:30]}... ({len(digits)} digits)"
            raise EffectSyntaxError(
                "EFF-RANGE",
                f"{shown} is beyond the largest number, {MAX_NUMBER:,}",
                meta.line,
                meta.column,
                meta.start_pos,
            )
        return ast.IntLit(int(digits), _span(meta))

    def list_lit(self, meta: Meta, children: list[Any]) -> ast.ListLit:
        return ast.ListLit(tuple(c for c in children if c is not None), _span(meta))

    def list_comp(self, meta: Meta, children: list[Any]) -> ast.ListComp:
        item, name, iterable, *test = children
        return ast.ListComp(item, str(name), iterable, test[0] if test else None, _span(meta))

    def map_entry(self, meta: Meta, children: list[Any]) -> tuple[ast.Expr, ast.Expr]:
        return (children[0], children[1])

    def map_lit(self, meta: Meta, children: list[Any]) -> ast.MapLit:
        return ast.MapLit(tuple(c for c in children if c is not None), _span(meta))

    def map_comp(self, meta: Meta, children: list[Any]) -> ast.MapComp:
        key, value, name, iterable, *test = children
        return ast.MapComp(key, value, str(name), iterable, test[0] if test else None, _span(meta))

    def index(self, meta: Meta, children: list[Any]) -> ast.Index:
        return ast.Index(children[0], children[1], _span(meta))

    def true(self, meta: Meta, children: list[Token]) -> ast.BoolLit:
        return ast.BoolLit(True, _span(meta))

    def false(self, meta: Meta, children: list[Token]) -> ast.BoolLit:
        return ast.BoolLit(False, _span(meta))

    def string(self, meta: Meta, children: list[Token]) -> ast.StrLit:
        return ast.StrLit(str(children[0])[1:-1], _span(meta))

    def reference(self, meta: Meta, children: list[Token]) -> ast.Ref:
        return ast.Ref(str(children[0]), _span(meta))

    def name(self, meta: Meta, children: list[Token]) -> ast.Name:
        return ast.Name(str(children[0]), _span(meta))


_TRANSFORMER = _ToAst()


def _check_nesting(tree: Tree[Token]) -> None:
    """Refuse a tree nested deeper than MAX_EFFECT_NESTING before anything walks it recursively."""
    stack: list[tuple[Tree[Token], int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_EFFECT_NESTING:
            meta = node.meta
            raise EffectSyntaxError(
                "EFF-LIMIT",
                f"nested more than {MAX_EFFECT_NESTING} levels deep; split it with `let`",
                meta.line if not meta.empty else 1,
                meta.column if not meta.empty else 1,
                meta.start_pos if not meta.empty else 0,
            )
        # leftmost first, so the place reported is where the too-deep part starts
        stack.extend((child, depth + 1) for child in reversed(node.children) if isinstance(child, Tree))


def _syntax_error(text: str, exc: UnexpectedInput) -> EffectSyntaxError:
    offset = exc.pos_in_stream if exc.pos_in_stream is not None else len(text)
    if isinstance(exc, UnexpectedCharacters):
        char = text[offset] if offset < len(text) else ""
        message = f"unexpected character {char!r}"
        if char == ":":
            message += "; keyword arguments are written name=value"
    elif isinstance(exc, UnexpectedEOF):
        offset = len(text)
        message = "the effect ends too early"
    elif isinstance(exc, UnexpectedToken):
        token = exc.token
        if token.type == "$END":
            offset = len(text.rstrip())
            found = "the end of the effect"
        else:
            found = repr(str(token))
        expected = sorted(_TOKEN_LABELS.get(name, name.lower()) for name in exc.expected)
        message = f"unexpected {found}; expected {', '.join(expected[:6])}"
        if token.type == "COLON" and "EQUAL" in exc.expected:  # `at: here` where `at=here` fits
            message += "; keyword arguments are written name=value"
    else:  # pragma: no cover - lark raises only the three kinds above
        message = str(exc)
    line, col = _position(text, offset)
    return EffectSyntaxError("EFF-SYNTAX", message, line, col, offset)

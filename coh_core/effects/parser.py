"""Parse effect text into AST nodes with Lark's LALR parser (grammar parsed once and cached; the
trees of texts parsed in earlier runs kept in coh's cache; lark itself imported only for a new
text: see coh_core.effects.lark_parse)."""

from __future__ import annotations

import hashlib
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from coh_core import cache_dir
from coh_core.effects import ast
from coh_core.resources import grammar_path

EntryPoint = Literal["effect", "condition"]

_OPENERS = {"(": ")", "{": "}", "[": "]"}
_CLOSERS = {")": "(", "}": "{", "]": "["}


class EffectSyntaxError(Exception):
    """A syntax error at a position inside the effect text."""

    def __init__(self, code: str, message: str, line: int, col: int, offset: int):
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.col = col
        self.offset = offset


def parse_effect(text: str) -> ast.Block:
    """Parse a statement sequence; raises EffectSyntaxError."""
    result = _parse(text, "effect")
    assert isinstance(result, ast.Block)
    return result


def parse_condition(text: str) -> ast.Expr:
    """Parse one boolean expression; raises EffectSyntaxError."""
    result: ast.Expr = _parse(text, "condition")
    return result


@lru_cache(maxsize=4096)
def _parse(text: str, start: EntryPoint) -> Any:
    """The AST of a text (cached: the same effect under several overlays is parsed once; and
    across runs, in coh's cache, when it parsed without error)."""
    known = _known_trees()
    if (text, start) in known:
        return known[text, start]
    result = _parse_now(text, start)
    known.learn((text, start), result)
    return result


def _parse_now(text: str, start: EntryPoint) -> Any:
    _check_brackets(text)
    from coh_core.effects import lark_parse  # lark is imported only for a text new to the cache

    result = lark_parse.parse_tree(text, start)
    if start == "effect" and not isinstance(result, ast.Block):
        # a single statement is inlined by the grammar; wrap it for a uniform result
        result = ast.Block((result,), result.span)
    return result


class _Trees(cache_dir.PickledDict[tuple[str, str], Any]):
    """The ASTs of texts parsed in earlier runs, kept in one file of coh's cache (cache_dir) whose
    name is a digest of the code that makes them (this module, the AST's, the limits, the grammar
    and lark)."""

    LIMIT = 50_000  # texts kept: past this, the file starts again (texts that are no longer used)


@cache
def _known_trees() -> _Trees:
    from coh_core import limits

    folder = cache_dir.created("effects")
    if folder is None:
        return _Trees(None)
    digest = hashlib.sha256()
    # this module and the one that makes the trees (found without importing it, nor lark)
    lark_part = Path(__file__).with_name("lark_parse.py")
    grammar = grammar_path("effects.lark")
    code = (Path(__file__), lark_part, Path(ast.__file__), Path(limits.__file__), grammar)
    for source in code:
        digest.update(hashlib.sha256(source.read_bytes()).digest())
    digest.update(cache_dir.library_stamp("lark").encode())
    return _Trees(folder / f"trees-{digest.hexdigest()[:32]}.pickle")


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def _check_brackets(text: str) -> None:
    """Report unbalanced brackets at the bracket itself, where a human looks for it."""
    stack: list[tuple[str, int]] = []
    in_string = in_comment = False
    for offset, char in enumerate(text):
        if in_comment:
            in_comment = char != "\n"
            continue
        if char == '"' and (offset == 0 or text[offset - 1] != "\\"):
            in_string = not in_string
        if in_string:
            continue
        if char == "#":
            in_comment = True
            continue
        if char in _OPENERS:
            stack.append((char, offset))
        elif char in _CLOSERS:
            if not stack or stack[-1][0] != _CLOSERS[char]:
                line, col = _position(text, offset)
                raise EffectSyntaxError("EFF-UNMATCHED", f"'{char}' closes nothing", line, col, offset)
            stack.pop()
    if stack:
        opener, offset = stack[-1]
        line, col = _position(text, offset)
        raise EffectSyntaxError(
            "EFF-UNCLOSED",
            f"'{opener}' is never closed (expected '{_OPENERS[opener]}')",
            line,
            col,
            offset,
        )

"""Python source written at pack load, compiled once into functions the machine calls.

The compiler writes each expression of an effect as the body of one Python function
(`Source`), instead of a tree of closures that call each other: a list built with `for` is a
Python loop, a read of a name is a lookup in the effect's names, a call of a built-in is a
call of its implementation, each inline. What the source refers to (the implementations,
the places errors point at, values worked out once) it names as constants, so that the
same effect compiles to the same text on every load of the pack: the text is compiled to
Python code once per process (`_CODE`), and each load only binds its own constants.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

_CODE: dict[str, Any] = {}  # source text -> its compiled code, shared by every load of every pack
_MAX_CODE = 20_000  # sources kept (a process that loads many different packs does not grow without end)
_MAX_NESTED = 12  # `try`/`for` blocks inside each other before the rest goes into a function of its own
_MAX_DEPTH = 24  # indents, likewise


class Source:
    """The body of one function of `rt` being written: its lines, its temporaries, its constants."""

    def __init__(self, helpers: dict[str, Any], prefix: str = ""):
        self.lines: list[str] = []
        self.depth = 0
        self.names: dict[str, Any] = dict(helpers)  # the globals the code reads
        self.prefix = prefix  # in the names of its temporaries and constants: see `Fragment`
        self.nested = 0  # `try` and `for` blocks open (Python compiles at most 20 in one function)
        self._constants: dict[int, str] = {}
        self._temps = 0

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        """`header:` and the lines written inside the `with` indented under it."""
        self.line(header)
        counts = header.startswith(("try", "except", "for ", "while "))
        self.depth += 1
        self.nested += counts
        try:
            yield
        finally:
            self.depth -= 1
            self.nested -= counts

    def crowded(self) -> bool:
        """Whether the lines are nested so deep that what comes next goes into a function of its own
        (Python refuses more than 20 blocks, or 100 indents, inside each other)."""
        return self.nested >= _MAX_NESTED or self.depth >= _MAX_DEPTH

    def temp(self) -> str:
        """A fresh local variable."""
        self._temps += 1
        return f"_t{self.prefix}{self._temps}"

    def temps(self) -> int:
        """How many temporaries there are so far (see `since`)."""
        return self._temps

    def since(self, text: str, count: int) -> bool:
        """Whether `text` is a temporary made after there were `count` of them."""
        head = f"_t{self.prefix}"
        number = text[len(head) :]
        return text.startswith(head) and number.isdigit() and int(number) > count

    def constant(self, value: Any) -> str:
        """A global that holds `value` (the same object always gets the same name)."""
        found = self._constants.get(id(value))
        if found is None:
            found = self._constants[id(value)] = f"_k{self.prefix}{len(self._constants)}"
            self.names[found] = value
        return found

    def function(self, result: str | None) -> Callable[..., Any]:
        """The function `(rt) -> result` of the lines written (None: the lines return)."""
        return self.fragment(result).function()

    def fragment(self, result: str | None) -> Fragment:
        return Fragment(self.lines, result, self.names)


@dataclass(frozen=True)
class Fragment:
    """Lines that work out a value, what holds it then, and the globals they read.

    Besides being the body of a function of its own, a fragment can be written into a longer
    function with others (`Program.blocks`): its temporaries and constants, named with the
    prefix of its `Source`, are its own there when no other fragment has the same prefix.
    """

    lines: list[str]  # from column 0; the names of the effect are `env`, the run `rt`
    result: str | None  # None: the lines return
    names: dict[str, Any]

    def function(self, params: tuple[str, ...] = ()) -> Callable[..., Any]:
        """The function `(rt, *params) -> result`."""
        text = f"def _f({', '.join(('rt', *params))}):\n    env = rt.env\n"
        text += "".join(f"    {line}\n" for line in self.lines)
        if self.result is not None:
            text += f"    return {self.result}\n"
        fn: Callable[..., Any] = define(text, self.names)["_f"]
        return fn


def define(text: str, names: dict[str, Any]) -> dict[str, Any]:
    """The globals after running `text` (definitions) over `names`, which it may read."""
    code = _CODE.get(text)
    if code is None:
        if len(_CODE) >= _MAX_CODE:
            _CODE.clear()
        code = _CODE[text] = compile(text, "<effect>", "exec")
    namespace = dict(names)
    exec(code, namespace)  # defines the functions over this load's constants
    return namespace

"""Where a runtime failure of an effect points and what it says (`_Where`, `runtime_message`),
and the errors of the bounds of `coh_core.limits` met at play."""

from __future__ import annotations

import re
from typing import NoReturn

from coh_core.effects import ast
from coh_core.engine.runtime import EngineError, NoOptions, Rt
from coh_core.errors import Location
from coh_core.limits import MAX_FRAMES, MAX_LOOP_STEPS, MAX_NUMBER, MAX_OPTIONS, MAX_WORK
from coh_core.packs.model import EffectSlot


def _too_many(count: int) -> str:
    return f"a choice among {count:,} options; a choice offers at most {MAX_OPTIONS:,}"


def over_budget(name: str) -> str:
    """Why a pack verb called when the game has no work left before its next decision fails."""
    return f"more than {MAX_WORK:,} pack verbs run between two decisions (`{name}` one too many)"


def _count_iteration(rt: Rt, where: _Where) -> None:
    """Nested loops multiply: every iteration of every loop of one run counts against the bound."""
    rt.loops -= 1
    if rt.loops < 0:
        raise where.error(
            "ENGINE-LIMIT", f"more than {MAX_LOOP_STEPS:,} loop iterations in one run of an effect"
        )


def _verbs_too_deep() -> NoReturn:
    raise EngineError("ENGINE-LIMIT", f"more than {MAX_FRAMES:,} verbs running inside each other")


def _loop_limit(where: _Where) -> NoReturn:
    """Nested loops multiply: every iteration of every loop of one run counts against the bound."""
    raise where.error("ENGINE-LIMIT", f"more than {MAX_LOOP_STEPS:,} loop iterations in one run of an effect")


def _too_large(where: _Where) -> NoReturn:
    raise where.error("ENGINE-LIMIT", f"a number beyond {MAX_NUMBER:,} in magnitude")


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

"""One error tree for coh: every problem has a stable code, a message and, when it
comes from content, a location (file, line, column; 1-based)."""

from __future__ import annotations

from typing import Any, NoReturn

# Written by hand rather than as dataclasses: the command line imports this module, and
# `coh --help` would pay for `dataclasses` and for generating their methods (tests/test_startup.py).


class _Frozen:
    """Values that never change once made: assigning an attribute is an error."""

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is immutable")


class Location(_Frozen):
    """A place in a content file; line and column are 1-based. Ordered by file, line, column."""

    file: str
    line: int
    col: int

    def __init__(self, file: str, line: int = 0, col: int = 0) -> None:
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "col", col)

    def _key(self) -> tuple[str, int, int]:
        return (self.file, self.line, self.col)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if type(other) is Location else NotImplemented

    def __lt__(self, other: Location) -> bool:
        return self._key() < other._key() if type(other) is Location else NotImplemented

    def __le__(self, other: Location) -> bool:
        return self._key() <= other._key() if type(other) is Location else NotImplemented

    def __gt__(self, other: Location) -> bool:
        return self._key() > other._key() if type(other) is Location else NotImplemented

    def __ge__(self, other: Location) -> bool:
        return self._key() >= other._key() if type(other) is Location else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Location(file={self.file!r}, line={self.line!r}, col={self.col!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Location, (self.file, self.line, self.col))  # (immutable: made again, not filled in)

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"


class Problem(_Frozen):
    """One located, coded finding of validation; equal when code, message and location are."""

    code: str
    message: str
    location: Location
    context: str  # source line + caret, for humans
    # A second place the problem shows (an overlay's problem: the value of the pack below it breaks)
    also: Location | None

    def __init__(
        self, code: str, message: str, location: Location, context: str = "", also: Location | None = None
    ) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "location", location)
        object.__setattr__(self, "context", context)
        object.__setattr__(self, "also", also)

    def _key(self) -> tuple[str, str, Location]:
        return (self.code, self.message, self.location)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if type(other) is Problem else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Problem(code={self.code!r}, message={self.message!r}, location={self.location!r},"
            f" context={self.context!r}, also={self.also!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (Problem, (self.code, self.message, self.location, self.context, self.also))

    def render(self) -> str:
        head = f"{self.location}: {self.code} {self.message}"
        return f"{head}\n{self.context}" if self.context else head

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "file": self.location.file,
            "line": self.location.line,
            "col": self.location.col,
            "code": self.code,
            "message": self.message,
        }
        if self.also is not None:
            found["also"] = {"file": self.also.file, "line": self.also.line, "col": self.also.col}
        return found


class CohError(Exception):
    """Base of every error coh raises on purpose; carries a stable code."""

    code = "COH-ERROR"

    def __init__(self, message: str, location: Location | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        if code is not None:
            self.code = code

    def as_problem(self) -> Problem:
        return Problem(self.code, self.message, self.location or Location("<coh>"))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled whole (code and place too), whatever the subclass's own arguments: an error
        raised in a worker process (`coh simulate --workers`) is reported as it was raised."""
        return (_restored, (type(self), self.message, self.location, self.code, self._extra()))

    def _extra(self) -> dict[str, Any]:
        """What a subclass keeps besides the message, the place and the code (see `__reduce__`)."""
        return {}


def _restored(
    cls: type[CohError], message: str, location: Location | None, code: str, extra: dict[str, Any]
) -> CohError:
    error = cls.__new__(cls)
    CohError.__init__(error, message, location, code)
    for name, value in extra.items():
        setattr(error, name, value)
    return error


class UsageError(CohError):
    """Bad command-line input or an unreadable path: exit code 2."""

    code = "USAGE"


class ContentError(CohError):
    """A content pack that cannot be used; carries every problem found."""

    code = "CONTENT"

    def __init__(self, problems: list[Problem]):
        first = problems[0].render() if problems else "invalid content"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(first + more)
        self.problems = problems

    def _extra(self) -> dict[str, Any]:
        return {"problems": self.problems}

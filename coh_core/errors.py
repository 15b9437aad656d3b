"""One error tree for coh: every problem has a stable code, a message and, when it
comes from content, a location (file, line, column; 1-based)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Location:
    """A place in a content file; line and column are 1-based."""

    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Problem:
    """One located, coded finding of validation."""

    code: str
    message: str
    location: Location
    context: str = field(default="", compare=False)  # source line + caret, for humans
    # A second place the problem shows (an overlay's problem: the value of the pack below it breaks)
    also: Location | None = field(default=None, compare=False)

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

"""What a running effect sees: the game, its bindings, who chooses, and the engine's exceptions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coh_core.errors import CohError, Location
from coh_core.limits import MAX_LOOP_STEPS

if TYPE_CHECKING:
    from coh_core.engine.game import Game

Action = tuple[Any, ...]


class Decision:
    """What the engine waits for: per player, the legal actions; answers arrive one by one."""

    __slots__ = ("answers", "kind", "options", "prompt")

    def __init__(self, kind: str, options: dict[str, list[Action]], prompt: dict[str, Any]):
        self.kind = kind
        self.options = options
        self.prompt = prompt
        self.answers: dict[str, Action] = {}

    @property
    def waiting(self) -> list[str]:
        answers = self.answers
        return [c for c in self.options if c not in answers] if answers else list(self.options)

    def legal(self, colour: str) -> list[Action]:
        return self.options.get(colour, [])

    def to_json(self, colour: str | None = None) -> dict[str, Any]:
        shown = self.options if colour is None else {colour: self.legal(colour)}
        return {
            "kind": self.kind,
            "prompt": dict(self.prompt),  # (a copy: the asks of one window share theirs)
            "asked": list(self.options),  # every seat it asks (several: they answer at once, in secret)
            "waiting": self.waiting,
            "legal": {c: [list(a) for a in acts] for c, acts in shown.items()},
        }


class Rt:
    """One execution of one effect: the game, the names it may use, and who makes its choices."""

    __slots__ = ("actor", "counts", "dry", "env", "game", "loops", "path", "paying", "source", "step")

    def __init__(self, game: Game, env: dict[str, Any], actor: str | None, dry: bool = False):
        self.game = game
        self.env = env
        self.actor = actor  # the player who answers `choose`; the first player when None
        self.dry = dry  # checking whether the effect could happen: no change, no question
        self.paying = False  # inside a cost: exhausting obeys `pays_by_exhausting`
        self.source: str | None = None  # the entity whose effect this is, named in its questions
        self.loops = MAX_LOOP_STEPS  # `for` iterations this run may still take
        if dry:  # (only a run that explores has them: most runs are the engine's own frames)
            self.path: list[int] = []  # in a dry run: the options taken at each choice so far
            self.counts: list[int] = []  # in a dry run: how many options each of those choices had
            self.step = 0

    def dry_choice(self, count: int) -> int:
        """In a dry run, the option to explore at this choice: the path's, or the first of a new one."""
        index = self.step
        self.step += 1
        if index < len(self.path):
            return self.path[index]
        self.path.append(0)
        self.counts.append(count)
        return 0

    def chooser(self) -> str:
        return self.actor if self.actor is not None else self.game.first_player()


class NoOptions(Exception):
    """A choice had nothing to choose from, or a cost cannot be paid: the effect stops there."""


class EngineError(CohError):
    """A rule or content problem found while playing, with a stable code."""

    def __init__(self, code: str, message: str, location: Location | None = None):
        super().__init__(message, location, code)

    def render(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.code} {self.message}"


class IllegalAction(EngineError):
    """An answer the engine did not offer; the game is unchanged."""

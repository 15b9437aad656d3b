"""What the compiler is given and gives back: the engine's implementation of a registry name
(`Impl`), a verb the pack defines (`PackVerb`), and an effect ready to run (`CompiledBlock`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from coh_core.effects import ast
from coh_core.effects.registry import Signature
from coh_core.engine.machine import Program
from coh_core.engine.runtime import Rt
from coh_core.errors import Location
from coh_core.packs.model import EffectSlot

Fn = Callable[..., Any]
Filter = Callable[[Rt, Any], bool]
# instructions of their own
COMPILED = frozenset({"choose", "choose_number", "ask", "ask_each", "may"})


@dataclass(frozen=True)
class Impl:
    """How the engine runs one verb or selector of the registry."""

    fn: Fn  # called as fn(rt, *arguments in declaration order)
    filters: dict[str, Filter] = field(default_factory=dict)  # narrows a direct `choose` argument
    check: Fn | None = None  # in a dry run: raise NoOptions when the verb could not happen
    frame: bool = False  # fn returns a frame of an engine program to run (or None: nothing to run)
    # a selector's body as a Python expression over `rt` and its arguments `{0}`, `{1}`...: written
    # in place of the call of `fn` (the hottest small selectors; it must do exactly what `fn` does)
    inline: str | None = None
    # a verb's check as a Python condition over its arguments `{0}`...: a dry run raises NoOptions
    # when it is false, written in place of the call of `check` (which must test exactly that)
    need: str | None = None


class CompiledBlock:
    """An effect ready to run: its program, and where its text is in the pack, its precondition
    (`Compiler.precondition`: None when none could be derived), the names it binds and reads
    (a cost and the effect after it share their table of names), and what its dry runs run
    (`dry_program`)."""

    __slots__ = ("_dry", "binds", "check", "failed", "pre", "program", "reads", "slot", "sure")

    def __init__(
        self,
        program: Program,
        slot: EffectSlot | None,
        pre: Fn | None = None,
        binds: frozenset[str] = frozenset(),
        reads: frozenset[str] = frozenset(),
        dry: Callable[[], Program | None] | None = None,
    ):
        self.program = program
        self.slot = slot
        self.pre = pre
        self.binds = binds
        self.reads = reads
        # whether its last dry runs found no path (`game._explore` then tries its precondition
        # first: only the order of the work changes, never what it finds)
        self.failed = False
        # What a dry run runs (`dry_program`, worked out when first asked): the program, or the same
        # without what could not stop a dry run; a path of `check` runs to its end exactly when the
        # same path of `program` does. None until then.
        self.check: Program | None = None
        self.sure = False  # no dry run of it could stop: none is needed (once `dry_program` said so)
        self._dry = dry  # what works out the dry program (`Compiler.dry_program`); None: the program

    def dry_program(self) -> Program | None:
        """The program its dry runs run (compiled the first time), or None when none is needed."""
        if self.check is None:
            found = self.program if self._dry is None else self._dry()
            self.sure = found is None
            self.check = self.program if found is None else found
        return None if self.sure else self.check

    def location(self) -> Location | None:
        """Where the effect's text begins in its pack."""
        return None if self.slot is None else self.slot.doc.offset_in_scalar(self.slot.path, 0)


@dataclass(frozen=True)
class PackVerb:
    """A verb the pack defines: its signature, its parsed body, and where the body is written."""

    signature: Signature
    tree: ast.Block
    slot: EffectSlot


def _constant(value: Any) -> Fn:
    return lambda rt: value


# The type of `@id` of players' colours, which may be out of the game (a colour nobody plays):
# with the types of the pack's kinds of pieces (a piece never dealt), `Game.in_play` says which
# are in it.
COLOUR_TYPE = "colour"

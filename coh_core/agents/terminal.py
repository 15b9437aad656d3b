"""A human at the terminal: sees only their own view, answers by number.

Several humans at one terminal play hotseat: one agent answers for them all, each prompt names
the player it is for, and before a human's question when another human answered last, a
hand-over screen clears the terminal (a separator line when it is not one) and waits for Enter,
so that no player's hand or secret choice stays on the screen for the next one. Every
word shown comes from the pack's text (`ui.table.*`, `ui.decision.*`, `ui.action.*`; an answer
reads as the pack's `messages` declare), so the terminal speaks the narrator's language. The
table shows those of the pack's pointers, counters and piles that the pack gives a `table`
text for (see `TerminalAgent.table`).

Whatever is typed is read safely: anything but a number of the list (an empty line, other
digits such as `²`, a number too long to convert, control characters, a line of any length)
is asked again. The end of the input raises EOFError and Ctrl-C KeyboardInterrupt, for the
command to end the game cleanly.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import IO, Any

import click

from coh_core.i18n import text_forms
from coh_core.limits import MAX_ANSWER_CHARS
from coh_core.messages import placeholders
from coh_core.narrative import Narrator, Verbatim

Action = tuple[Any, ...]
_ASCII_DIGITS = frozenset("0123456789")


def parse_answer(text: str, high: int) -> int | None:
    """The number from 1 to `high` that `text` is (surrounding blanks aside), else None.

    Only ASCII digits count (`"²".isdigit()` is true, yet `int("²")` fails), and a number is
    never converted when it has more digits than `high`, so any text is answered at once.
    """
    answer = text.strip()
    if not answer or not set(answer) <= _ASCII_DIGITS:
        return None
    digits = answer.lstrip("0")
    if len(digits) > len(str(high)):
        return None
    number = int(digits or "0")
    return number if 1 <= number <= high else None


def read_answer(stream: IO[Any] | None, limit: int = MAX_ANSWER_CHARS) -> str:
    """One line of the input, read at most `limit` bytes (or characters) at a time: a longer
    line is read to its end and answered with "" (no answer is that long), so memory stays
    bounded. Raises EOFError at the end of the input (or with no input at all).

    The bytes are read, not text, so that input that is not UTF-8 becomes U+FFFD instead of
    an error that would come back at every read.
    """
    if stream is None:
        raise EOFError
    source = getattr(stream, "buffer", stream)
    chunk = source.readline(limit + 1)
    if not chunk:
        raise EOFError
    if len(chunk) <= limit or chunk[-1:] in ("\n", b"\n"):
        return chunk.decode("utf-8", errors="replace") if isinstance(chunk, bytes) else str(chunk)
    while True:  # drop the rest of an overlong line
        rest = source.readline(limit)
        if not rest or rest[-1:] in ("\n", b"\n"):
            return ""


# Clears a terminal and puts the cursor at the top left (ECMA-48 ED 2 and CUP).
CLEAR_SCREEN = "\x1b[2J\x1b[H"
# What stands for a cleared screen in output that is no terminal (a pipe, a test).
HANDOVER_SEPARATOR = "=" * 60


class TerminalAgent:
    def __init__(self, narrator: Narrator, err: bool = False, hotseat: bool = False):
        self.narrator = narrator
        self.err = err  # everything on stderr: stdout carries a JSON document
        self.hotseat = hotseat  # several humans take turns at this terminal
        self.seen: dict[str, int] = {}  # per player: log entries already shown to them
        self.last: str | None = None  # the player who answered last

    def _say(self, text: str, nl: bool = True) -> None:
        click.echo(text, nl=nl, err=self.err)

    def act(self, view: Any, legal: list[Action]) -> Action:
        if self.hotseat and self.last != view.colour:
            self.hand_over(view.colour)
        self.last = view.colour
        self.show_news(view)
        state = view.to_json()
        self._say("\n".join(self.table(state)))
        player = self.narrator.name("colour", view.colour)
        self._say(click.style(f"[{player}] {self.question(state['decision'] or {})}", bold=True))
        for number, action in enumerate(legal, start=1):
            self._say(f"  {number:>2}. {self.label(action)}")
        return legal[self._number(len(legal)) - 1]

    def clear(self) -> None:
        """Wipe what the previous player saw: the screen of a terminal, else a separator."""
        tty = (sys.stderr if self.err else sys.stdout).isatty()
        self._say(CLEAR_SCREEN if tty else "\n" + HANDOVER_SEPARATOR, nl=not tty)

    def hand_over(self, colour: str) -> None:
        """The hand-over screen: clear, then wait for the next player to press Enter."""
        self.clear()
        self._say(self.narrator.ui("ui.play.hand_over", player=colour) + " ", nl=False)
        read_answer(sys.stdin)  # whatever is typed: only the Enter counts

    def _number(self, high: int) -> int:
        """A number from 1 to `high`, asked again (in the narrator's language) until it is one."""
        while True:
            self._say(f"{self.narrator.ui('ui.prompt')}: ", nl=False)
            number = parse_answer(read_answer(sys.stdin), high)
            if number is not None:
                return number
            self._say(self.narrator.ui("ui.prompt.range", low=1, high=high))

    def label(self, action: Action) -> str:
        """One legal answer in words."""
        key, params = self.narrator.declared.action_message(action)
        return self.narrator.text(key, params)

    def question(self, decision: Mapping[str, Any]) -> str:
        """What the decision asks, in words."""
        kind = str(decision.get("kind"))
        prompt = decision.get("prompt") or {}
        for key in (f"ui.decision.{kind}.{prompt.get('purpose')}", f"ui.decision.{kind}"):
            if self.narrator.has(key) and _fills(self.narrator.messages[key], prompt):
                return self.narrator.text(key, prompt)
        return self.narrator.text("ui.decision.other", {"kind": kind})

    def table(self, state: Mapping[str, Any]) -> list[str]:
        """The public board and the player's own cards, tokens and counters.

        Of the pack's components, the table shows those the pack has a text for: each pointer
        (`ui.table.pointer.<id>`) after the turn and phase; at each location, the counters
        (`ui.table.count.<kind>`) and the location's piles (`ui.table.pile.<id>`) that are not
        empty there; then the player's own piles (`ui.table.own.pile.<id>`, with their entries
        when the player sees them) and counters (`ui.table.own.count.<kind>`).
        """
        ui, me = self.narrator.ui, state["me"]
        piles = self.narrator.pack.section("components").get("piles") or {}
        header = ui("ui.table.header", turn=state["turn"], phase=state["phase"])
        pointers = [
            ui(key, value=value)
            for pointer, value in state["pointers"].items()
            if self.narrator.has(key := f"ui.table.pointer.{pointer}")
        ]
        rows = [" ".join([header, *pointers])]
        for location, place in state["locations"].items():
            people = [
                self._character(c, ch)
                for c, ch in state["pieces"][state["piece_roles"]["players"]].items()
                if ch["alive"] and ch["at"] == location
            ]
            here = {
                **self._texts("ui.table.count", state["counts"][location]),
                **self._texts("ui.table.pile", _sizes(state, piles, "location", location)),
            }
            shown = {
                "location": location,
                "side": place["side"],
                "characters": Verbatim(", ".join(people) or "-"),
            }
            if here:
                rows.append(
                    "  " + ui("ui.table.location.counted", counts=Verbatim(", ".join(here.values())), **shown)
                )
            else:
                rows.append("  " + ui("ui.table.location", **shown))
        for pile, size in _sizes(state, piles, "player", me, empty=True).items():
            key = f"ui.table.own.pile.{pile}"
            if self.narrator.has(key):
                entries = sorted(state["piles"].get(pile, {}).get(me, []), key=_in_order)
                rows.append(ui(key, entries=entries, count=size))
        own = self._texts("ui.table.own.count", state["counts"][me], empty=True)
        if own:
            rows.append(" ".join(own.values()))
        return rows

    def _texts(self, prefix: str, counts: Mapping[str, int], empty: bool = False) -> dict[str, str]:
        """`<prefix>.<name>` for each count the pack has that text for (non-zero, unless `empty`)."""
        ui, has = self.narrator.ui, self.narrator.has
        return {
            name: ui(f"{prefix}.{name}", count=count)
            for name, count in counts.items()
            if (count or empty) and has(f"{prefix}.{name}")
        }

    def _character(self, character: str, ch: Mapping[str, Any]) -> str:
        key = "ui.table.character.exhausted" if ch["exhausted"] else "ui.table.character"
        return self.narrator.ui(key, character=character, player=ch["owner"])

    def show_news(self, view: Any, public: bool = False) -> None:
        """What happened since this player last answered (what everyone saw only, with `public`)."""
        entries = view.log()
        start = self.seen.get(view.colour, 0)
        self.seen[view.colour] = len(entries)
        news = [e for e in entries[start:] if not public or "to" not in e]
        for line in self.narrator.lines(news):
            self._say(f"  {line}")


def _fills(text: Any, prompt: Mapping[str, Any]) -> bool:
    """Whether the prompt has a value for every placeholder of the message."""
    return all(name in prompt for form in text_forms(text) for name in placeholders(form))


def _sizes(
    state: Mapping[str, Any], piles: Mapping[str, Any], per: str, owner: str, empty: bool = False
) -> dict[str, int]:
    """How many entries each pile kept per `per` (`location`, `player`) holds for this owner."""
    sizes = state["pile_sizes"]
    found = {
        name: int(sizes.get(name, {}).get(owner, 0))
        for name, pile in piles.items()
        if isinstance(pile, Mapping) and pile.get("per") == per
    }
    return found if empty else {name: size for name, size in found.items() if size}


def _in_order(value: Any) -> tuple[bool, Any]:
    """A pile's entries in a stable order whatever their type (numbers before ids)."""
    return (isinstance(value, str), value)

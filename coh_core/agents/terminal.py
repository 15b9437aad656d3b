"""A human at the terminal: sees only their own view, answers in short menus by key.

Several humans at one terminal play hotseat: one agent answers for them all, each prompt names
the player it is for, and before a human's question when another human answered last, a
hand-over screen clears the terminal (a separator line when it is not one) and waits for Enter,
so that no player's hand or secret choice stays on the screen for the next one. Every
word shown comes from the pack's text (`ui.table.*`, `ui.decision.*`, `ui.action.*`; an answer
reads as the pack's `messages` declare), so the terminal speaks the narrator's language. The
table shows those of the pack's pointers, counters and piles that the pack gives a `table`
text for (see `TerminalAgent.table`); on a screen too small for it and the question, a shortened
table, with `?` showing it whole (`TerminalAgent.board`).

Answers come in menus (`coh_core.agents.menu`): grouped by what they do, each under a key that
stays with the card, player or place it stands for; `<` goes back from a sub-menu, `?` shows
how to answer and the hand with its texts, `? KEY` (or `? NAME`) what a card, character or
location says. The number of a line of the menu is taken too. Whatever is typed is read
safely: anything else (an empty line, other digits such as `²`, a number too long to convert,
control characters, a line of any length) is asked again: no answer is taken by default.
Colour comes through `rich`, imported only when a human plays; it leaves output that is no
terminal, or with NO_COLOR set, plain. The end of the input raises EOFError and Ctrl-C
KeyboardInterrupt, for the command to end the game cleanly.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

import click

from coh_core.agents.menu import ELLIPSIS, Entry, Keys, build_menu, find
from coh_core.i18n import text_forms
from coh_core.limits import MAX_ANSWER_CHARS
from coh_core.messages import placeholders
from coh_core.narrative import Narrator, Verbatim
from coh_core.packs.model import Pack
from coh_core.packs.roles import place_side, setup_role

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


# Clears a terminal, its scrollback too (so the next player cannot scroll up to the last one's
# hand: xterm's ED 3, which terminals without it ignore), and puts the cursor at the top left.
ERASE_SCROLLBACK = "\x1b[3J"
CLEAR_SCREEN = "\x1b[H\x1b[2J" + ERASE_SCROLLBACK
# What stands for a cleared screen in output that is no terminal (a pipe, a test).
HANDOVER_SEPARATOR = "=" * 60
NO_LIMIT = "∞"  # a capacity without a limit, in any language
OVERFLOW = "overflow"  # the role of the `setup` field naming where a piece goes instead of a full place
ORDER_SEP = " → "  # between the values a pointer takes in turn, in any language
SHORT_MENU = 3  # a menu this long or shorter is one column (longer ones take as many as fit)
DEFAULT_WIDTH = 80  # the width menus are laid out for when the output is no terminal


PASS: Action = ("pass",)
# The answers beside pass that pass on (keys kept for the program): until something happens to
# one of the player's pieces, until the place being resolved is done, until the phase ends.
PASS_CONCERNED, PASS_PLACE, PASS_PHASE = ">", ">>", ">>>"


@dataclass
class PassingOn:
    """A human's standing pass: every question that offers to pass is answered so for them
    until something happens to one of their pieces (a log entry names it: `scope` None), or
    while `scope` lasts (turn and phase, and the place being resolved for a place's). Questions
    that offer no pass are asked as usual meanwhile."""

    scope: tuple[Any, ...] | None
    seen: int  # the entries of their log it has read


class TerminalAgent:
    def __init__(self, narrator: Narrator, err: bool = False, hotseat: bool = False):
        self.narrator = narrator
        self.err = err  # everything on stderr: stdout carries a JSON document
        self.hotseat = hotseat  # several humans take turns at this terminal
        self.seen: dict[str, int] = {}  # per player: log entries already shown to them
        self.last: str | None = None  # the player who answered last
        self.keys: Keys | None = None  # the answers' keys, made at the first question
        self.hinted: set[str] = set()  # the players told how to answer
        self.whole: list[str] | None = None  # the whole table, while a shortened one is shown
        self.passing: dict[str, PassingOn] = {}  # per human: a standing pass (`>`, `>>`)
        self.seen_public: dict[str, int] = {}  # per player: log entries shown on screens all may see
        self.secrets_shown = False  # whether the screen holds what one player alone may see
        self.briefs: dict[str, str] = {}  # per entity: what its kind's `brief` says of it
        self.me: str | None = None  # the player whose table is being made
        self.places: list[str] | None = None  # the game's places in order, once a table is made

    def _say(self, text: str, nl: bool = True) -> None:
        """Print, each line wrapped at blanks to a terminal's width (output that is no terminal as is)."""
        if self._tty():
            text = wrapped(text, self._width())
        click.echo(text, nl=nl, err=self.err)

    def _tty(self) -> bool:
        return (sys.stderr if self.err else sys.stdout).isatty()

    def act(self, view: Any, legal: list[Action]) -> Action:
        state = view.to_json()
        log = view.log()
        if self._passes_on(view.colour, state, log, legal):
            return PASS
        # In hotseat, a question that needs no secret is asked on a screen all may see, with no
        # hand-over; the screen is wiped first if it holds the last player's secrets.
        public = self.hotseat and not self._private(state, log, legal)
        if self.hotseat and not public and self.last != view.colour:
            self.hand_over(view.colour)
        elif public and self.secrets_shown:
            self.clear()
        self.secrets_shown = not public
        self.last = view.colour
        self.show_news(view, public=public)
        drawn = made_public(log)
        player = self.narrator.player(view.colour)
        question = f"[{player}] {self.question(state['decision'] or {})}"
        menu = self.warn_full(build_menu(legal, self.narrator, self._keys()), state)
        menu += self._passing_entries(state, legal)
        self._say("\n".join(self.board(state, drawn, self._rows_below(question, menu), public)))
        chosen = self.choose(question, menu, state, public)
        if chosen in _PASSING_ON:
            self._pass_on(view.colour, state, len(view.log()), chosen)
            return PASS
        return chosen

    def _private(
        self, state: Mapping[str, Any], log: Sequence[Mapping[str, Any]], legal: list[Action]
    ) -> bool:
        """Whether the question is for the player's eyes alone: it asks several players at once
        (each answers in secret), or one of its answers names what the player alone knows."""
        decision = state.get("decision") or {}
        if len(decision.get("asked") or ()) > 1:
            return True
        known = self._known_alone(state, log)
        return any(_names_any(list(action[1:]), known) for action in legal)

    def _known_alone(self, state: Mapping[str, Any], log: Sequence[Mapping[str, Any]]) -> set[str]:
        """What the player knows that the others do not: the entries they see of piles not
        everyone sees, the values told to them alone (and not made public since) and what the
        game remembers for their eyes only; the ids of players, places and pieces, which everyone
        knows, left out."""
        components = self.narrator.pack.section("components")
        piles, memory, me = components.get("piles") or {}, components.get("memory") or {}, state["me"]
        known: set[str] = set()
        for name, held in state["piles"].items():
            if (piles.get(name) or {}).get("sees") != _EVERYONE:
                lists = [entries for entries in held.values() if isinstance(entries, list)]
                known.update(e for entries in lists for e in entries if isinstance(e, str))
        for entry in log:
            if "to" in entry:
                known.update(_values(entry.get("params") or {}))
        for name, value in state["memory"].items():
            if (memory.get(name) or {}).get("visible") == _OWNER_ONLY and isinstance(value, Mapping):
                known.update(_values({me: value.get(me)}))
        public = set(state["players"]) | set(state["locations"]) | _pieces_of(state, None)
        return known - public - made_public(log)

    def passing_json(self) -> dict[str, dict[str, Any]]:
        """The standing passes as a save keeps them."""
        return {
            colour: {"scope": None if p.scope is None else list(p.scope), "seen": p.seen}
            for colour, p in self.passing.items()
        }

    def restore_passing(self, saved: Mapping[str, Mapping[str, Any]]) -> None:
        """The standing passes a save kept (`passing_json`)."""
        for colour, p in saved.items():
            scope = p.get("scope")
            self.passing[colour] = PassingOn(None if scope is None else tuple(scope), int(p["seen"]))

    def warn_full(self, entries: list[Entry], state: Mapping[str, Any]) -> list[Entry]:
        """The menu with each answer that would move a piece to a place with no room for it (the
        pack's answers with `moves_to`, and the answers to a question with `moves_to`) saying so,
        and where the piece goes instead: the place the `setup` field of role `overflow` names
        (`ui.table.menu.full`). Only labels change: the keys stay those of the values."""
        instead = setup_role(self.narrator.pack, OVERFLOW)
        if instead is None or not self.narrator.has("ui.table.menu.full"):
            return entries
        declared, ui = self.narrator.declared, self.narrator.ui
        for entry in entries:
            if entry.action is None:
                self.warn_full(entry.children, state)
                continue
            to = declared.destination(entry.action, state.get("decision"))
            if to is not None and to != instead and no_room(self.narrator.pack, state, str(to)):
                entry.label = ui("ui.table.menu.full", answer=Verbatim(entry.label), location=instead)
        return entries

    def _passing_entries(self, state: Mapping[str, Any], legal: list[Action]) -> list[Entry]:
        """Beside pass, the answers that pass on: until the place being resolved is done (when
        one is), until the phase ends."""
        if PASS not in legal or state.get("decision") is None:
            return []
        entries = [Entry(PASS_CONCERNED, self.narrator.ui("ui.table.menu.pass_concerned"), _UNTIL_CONCERNED)]
        if state.get("at") is not None:
            entries.append(Entry(PASS_PLACE, self.narrator.ui("ui.table.menu.pass_place"), _UNTIL_PLACE))
        entries.append(Entry(PASS_PHASE, self.narrator.ui("ui.table.menu.pass_phase"), _UNTIL_PHASE))
        return entries

    def _pass_on(self, colour: str, state: Mapping[str, Any], seen: int, chosen: Action) -> None:
        scope = None
        if chosen != _UNTIL_CONCERNED:
            scope = (state["turn"], state["phase"]) + ((state["at"],) if chosen == _UNTIL_PLACE else ())
        self.passing[colour] = PassingOn(scope, seen)

    def _passes_on(
        self, colour: str, state: Mapping[str, Any], log: list[dict[str, Any]], legal: list[Action]
    ) -> bool:
        """Whether a standing pass answers this question (one that offers to pass). It ends with
        its scope, or, without one, when something since happened to one of the player's pieces."""
        standing = self.passing.get(colour)
        if standing is None:
            return False
        if standing.scope is None:
            mine = _pieces_of(state, colour)
            over = any(_names_any(entry.get("params"), mine) for entry in log[standing.seen :])
        else:
            over = (state["turn"], state["phase"], state["at"])[: len(standing.scope)] != standing.scope
        if over:
            del self.passing[colour]
            return False
        standing.seen = len(log)
        return PASS in legal

    def board(
        self, state: Mapping[str, Any], drawn: Collection[Any], below: int, public: bool = False
    ) -> list[str]:
        """The table as it fits the screen above `below` rows (the question and its menu): whole
        when it fits or the output is no terminal, else shortened (the others' characters
        counted, not named; then the lines that take the most rows cut to the width, one by one
        until it fits), with a note that `?` shows it whole. `self.whole` keeps the whole table
        for `?` meanwhile. With `public`, what the player alone may see is left out (`table`)."""
        rows = self.table(state, drawn, public=public)
        self.whole = None
        height, width = self._height(), self._width()
        if height is None or screen_rows(rows, width) + below <= height:
            return rows
        self.whole = rows
        rows = self.table(state, drawn, counted=True, public=public)
        note = self.narrator.ui("ui.table.menu.shortened")
        shown = [f"{rows[0]} {note}", *rows[1:]]
        # the rows that take the most screen rows are cut first, the first row last
        for i in sorted(range(len(rows)), key=lambda i: (i == 0, -screen_rows([shown[i]], width), -i)):
            if screen_rows(shown, width) + below <= height:
                break
            shown[i] = f"{cut(rows[0], width - len(note) - 1)} {note}" if i == 0 else cut(rows[i], width)
        return shown

    def _rows_below(self, question: str, menu: list[Entry]) -> int:
        """The rows the question and its menu take under the table (the hint too, when due)."""
        width = self._width()
        lines = [question, *self._menu_lines(menu, width), self.narrator.ui("ui.prompt")]
        if self.last not in self.hinted:
            lines.append(self.narrator.ui("ui.table.menu.hint"))
        return screen_rows(lines, width)

    def _menu_lines(self, entries: list[Entry], width: int) -> list[str]:
        """A menu's lines: each entry's key and label (a group's with `…`), in columns."""
        return columns(
            [
                (e.key, e.label if not e.is_group or ELLIPSIS in e.label else f"{e.label} {ELLIPSIS}")
                for e in entries
            ],
            width,
        )

    def _keys(self) -> Keys:
        if self.keys is None:
            self.keys = Keys(self.narrator)
        return self.keys

    def choose(
        self, question: str, top: list[Entry], state: Mapping[str, Any], public: bool = False
    ) -> Action:
        """The answer picked in the menu: a key opens a group or picks an answer, `<` goes back,
        `?` explains; anything else (a bare Enter too) is asked again."""
        path: list[Entry] = []
        if self.last not in self.hinted:
            self.hinted.add(str(self.last))
            self._say(self.narrator.ui("ui.table.menu.hint"))
        while True:
            entries = path[-1].children if path else top
            title = question if not path else f"{question} {path[-1].label}"
            self._styled(title, "bold")
            for line in self._menu_lines(entries, self._width()):
                self._say(line)
            hint = "ui.table.menu.prompt.back" if path else "ui.prompt"
            self._say(f"{self.narrator.ui(hint)}: ", nl=False)
            typed = read_answer(sys.stdin).strip()
            if typed.startswith("?"):
                self.explain(typed[1:].strip(), entries, state, public)
                continue
            if typed == "<" and path:
                path.pop()
                continue
            # a line's number, as before keys (the passes on, last, only by their keys)
            numbered = [e for e in entries if e.action not in _PASSING_ON]
            number = parse_answer(typed, len(numbered))
            found = numbered[number - 1] if number is not None else find(entries, typed)
            if found is None:
                self._say(
                    self.narrator.ui(
                        "ui.table.menu.unknown", keys=Verbatim(", ".join(e.key for e in entries))
                    )
                )
            elif found.action is not None:
                return found.action
            else:
                path.append(found)

    def explain(
        self, asked: str, entries: list[Entry], state: Mapping[str, Any], public: bool = False
    ) -> None:
        """`?`: how to answer and the player's hand with its texts (not on a `public` screen);
        `? KEY` (or a name): what that entry's card, character, location... says."""
        if not asked:
            if self.whole is not None:  # what the shortened table left out
                self._say("\n".join(self.whole))
            self._say(self.narrator.ui("ui.table.menu.help"))
            if public:
                return
            me = state["me"]
            for pile in self._hand_piles():
                for entry in sorted(set(state["piles"].get(pile, {}).get(me, [])), key=_in_order):
                    self._say(f"  {self._summary(str(entry))}")
            return
        found = find(entries, asked)
        if found is not None and found.about is not None:
            about = [found.about]
        else:  # a key of another menu (keys never change), or a name
            named = self._named(asked)
            about = self._keys().named_by(asked) or ([named] if named is not None else [])
        if not about:
            self._say(self.narrator.ui("ui.table.menu.no_such", asked=Verbatim(asked)))
            return
        for entity in about:
            self._say(self.page(entity))

    def _styled(self, text: str, style: str) -> None:
        """A line in a style (through `rich`, which leaves it plain on no terminal or with NO_COLOR)."""
        from rich.console import Console

        stream = sys.stderr if self.err else sys.stdout
        console = Console(file=stream, highlight=False, markup=False, emoji=False, soft_wrap=True)
        console.print(wrapped(text, self._width()) if self._tty() else text, style=style)

    def _width(self) -> int:
        """The terminal's width (80 when the output is no terminal)."""
        stream = sys.stderr if self.err else sys.stdout
        try:
            return os.get_terminal_size(stream.fileno()).columns if stream.isatty() else DEFAULT_WIDTH
        except (OSError, ValueError, AttributeError):
            return DEFAULT_WIDTH

    def _height(self) -> int | None:
        """The terminal's height in rows (None when the output is no terminal: nothing scrolls off)."""
        stream = sys.stderr if self.err else sys.stdout
        try:
            return os.get_terminal_size(stream.fileno()).lines if stream.isatty() else None
        except (OSError, ValueError, AttributeError):
            return None

    def _hand_piles(self) -> list[str]:
        """The piles of the pack's role `hand` (the player's own cards)."""
        roles = (self.narrator.pack.section("components").get("piles") or {}).items()
        return [name for name, pile in roles if isinstance(pile, Mapping) and pile.get("role") == "hand"]

    def _named(self, asked: str) -> str | None:
        """The id the pack names so (by its id or its name in the game's language, any case)."""
        wanted = asked.casefold()
        for key in self.narrator.messages:
            parts = key.split(".")
            named = len(parts) == 3 and parts[2] == "name" and parts[0] in self.narrator.kinds
            if named and wanted in (parts[1].casefold(), str(self.narrator.name(*parts[:2])).casefold()):
                return parts[1]
        return None

    def page(self, entity: str) -> str:
        """What the pack says of an entity, as `coh show` prints it in play (where its data come
        from left out, its numbered places named by the game's city), without its effects' code."""
        from coh_core.packs.listing import show_entity

        found = show_entity(self.narrator.pack, entity, self.narrator, self.places, play=True)
        if found is None:
            return self.narrator.entity(entity)
        text, record = found
        code = [
            line.strip() for pretty in record.get("effects", {}).values() for line in str(pretty).splitlines()
        ]
        lines = [self.narrator.entity(entity)]
        for line in text.splitlines()[1:]:
            bare = line.strip()
            if bare and not any(bare.endswith(c) for c in code if c) and not bare.endswith(":"):
                lines.append(line)
        return "\n".join(lines)

    def _summary(self, entity: str) -> str:
        """An entity's name and first line of text."""
        lines = [line.strip() for line in self.page(entity).splitlines() if line.strip()]
        return ": ".join(lines[:1] + lines[-1:]) if len(lines) > 1 else lines[0]

    def clear(self) -> None:
        """Wipe what the previous player saw: the screen of a terminal, else a separator."""
        tty = self._tty()
        self._say(CLEAR_SCREEN if tty else "\n" + HANDOVER_SEPARATOR, nl=not tty)

    def hand_over(self, colour: str) -> None:
        """The hand-over screen: clear, then wait for the next player to press Enter."""
        self.clear()
        self._say(self.narrator.ui("ui.play.hand_over", player=colour) + " ", nl=False)
        read_answer(sys.stdin)  # whatever is typed: only the Enter counts

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

    def table(
        self,
        state: Mapping[str, Any],
        drawn: Collection[Any] = (),
        counted: bool = False,
        public: bool = False,
    ) -> list[str]:
        """The public board and the player's own cards, tokens, counters and secrets.

        Of the pack's components, the table shows those the pack has a text for: each pointer
        (`ui.table.pointer.<id>`) after the turn and phase; at each location, its side with the
        characters there and its capacity (`ui.table.room`; a place without sides, its name
        alone: `ui.table.place`), the counters (`ui.table.count.<kind>`)
        and the location's piles (`ui.table.pile.<id>`) that are not empty there, and each
        character's traits (`ui.table.trait.<trait>`) and the piles kept for it that the player
        sees and are not empty (`ui.table.carried.<id>`); the game's own piles
        (`ui.table.total.<id>`); how many cards the others hold (`ui.table.others.pile.<id>`); then
        the player's own piles (`ui.table.own.pile.<id>`, with their entries when the player sees
        them), counters (`ui.table.own.count.<kind>`) and what the game remembers for them alone
        (`ui.table.own.memory.<name>`, its last entry and what that entity says) while that entry
        is not among the `drawn` values (`made_public`: a card seen in secret, drawn since).
        With `counted`, the other players' pieces at a location are counted, not named; with
        `public` (a screen all the players at a hotseat terminal may see), the player's own piles,
        counters and secrets are left out, and the piles carried that not everyone sees.
        """
        ui, me = self.narrator.ui, state["me"]
        piles = self.narrator.pack.section("components").get("piles") or {}
        header = ui("ui.table.header", turn=state["turn"], phase=state["phase"])
        pointers = [
            ui(key, value=value, order=pointer_order(self.narrator, state, pointer, value))
            for pointer, value in state["pointers"].items()
            if self.narrator.has(key := f"ui.table.pointer.{pointer}")
        ]
        rows = [" ".join([header, *pointers])]
        rows.extend("  " + line for line in self._edges(state))
        role = state["piece_roles"].get("players")  # a game may have no pieces on its places
        pieces = state["pieces"][role] if role is not None else {}
        self.me, self.places = me, list(state["locations"])
        rows.extend(self._unplaced(pieces, role, me))
        extra = state.get("extra_places", {})
        carried = self._carried(state, piles, role, public)
        for location, place in state["locations"].items():
            present = {c: ch for c, ch in pieces.items() if ch["alive"] and ch["at"] == location}
            people = self._people(present, me if counted else None, carried)
            compared = self._compared(state, location)
            counts = self._texts("ui.table.count", state["counts"][location], shown=compared)
            here = {
                **{
                    kind: text
                    + "".join(f" {t}" for t in threshold_texts(self.narrator, state, location, kind))
                    + self._holds(state, location, kind)
                    for kind, text in counts.items()
                },
                **self._texts("ui.table.pile", pile_sizes(state, piles, "location", location)),
            }
            shown: dict[str, Any] = {"location": location, "characters": Verbatim("; ".join(people) or "-")}
            line = "ui.table.place"  # a place without sides: its name alone
            if place["side"] is not None:
                shown["side"] = self._side(location, place["side"], len(present), extra.get(location, 0))
                line = "ui.table.location"
            if here:
                rows.append("  " + ui(f"{line}.counted", counts=Verbatim(", ".join(here.values())), **shown))
            else:
                rows.append("  " + ui(line, **shown))
        # The rest in as few lines as they take: the screen is 24 lines high for a new player.
        everyones = [*total_texts(self.narrator, state, piles), *self._others(state, piles)]
        if everyones:
            rows.append(" ".join(everyones))
        if public:
            return rows
        own = []
        for pile, size in pile_sizes(state, piles, "player", me, empty=True).items():
            key = f"ui.table.own.pile.{pile}"
            if self.narrator.has(key):
                entries = sorted(state["piles"].get(pile, {}).get(me, []), key=_in_order)
                own.append(ui(key, entries=entries, count=size))
        own.extend(self._texts("ui.table.own.count", state["counts"][me], empty=True).values())
        if own:
            rows.append(" ".join(own))
        rows.extend(self._secrets(state, drawn))
        return rows

    def _edges(self, state: Mapping[str, Any]) -> list[str]:
        """The edges of the pack's graphs whose state has a text (`ui.table.edge.<graph>.<state>`,
        its ends as `a` and `b`), one line each, in the order the pack declares them."""
        found = []
        for graph, states in (state.get("edges") or {}).items():
            for edge, value in states.items():
                key = f"ui.table.edge.{graph}.{value}"
                if self.narrator.has(key):
                    a, _, b = edge.partition("/")
                    found.append(self.narrator.ui(key, a=a, b=b))
        return found

    def _compared(self, state: Mapping[str, Any], location: str) -> set[str]:
        """The counters whose count a condition of the location's side compares (the view's
        `conditions`), where the pack says what happens when it holds: shown even at 0."""
        return {
            c["counter"]
            for c in state.get("conditions", {}).get(location, [])
            if self.narrator.has(f"ui.table.when.{c['context']}")
        }

    def _holds(self, state: Mapping[str, Any], location: str, counter: str) -> str:
        """When the condition of the location's side that compares that count holds, and what
        happens then (`ui.table.when.<context>`): " (at 3: ...)" for a number it reaches, else
        more than the pieces there (`ui.table.threshold.more_than_pieces`) or as many
        (`ui.table.threshold.as_many_as_pieces`); "" without those texts."""
        found = []
        for condition in state.get("conditions", {}).get(location, []):
            key = f"ui.table.when.{condition['context']}"
            if condition["counter"] != counter or not self.narrator.has(key):
                continue
            does = Verbatim(self.narrator.ui(key))
            if "at" in condition:
                found.append(self.narrator.ui("ui.table.threshold", at=condition["at"], does=does))
            elif (than := _THAN_PIECES.get(condition.get("pieces"))) and self.narrator.has(than):
                found.append(self.narrator.ui(than, does=does))
        return "".join(f" {text}" for text in found)

    def _side(self, location: str, side: str, present: int, extra: int = 0) -> Verbatim:
        """A location's side in words, with its characters and capacity (`ui.table.room`). Of the
        `present`, the `extra` that hold an extra place do not count against the capacity: they are
        shown apart (`ui.table.room.extra`), or left out where the pack has no text for them."""
        words = self.narrator.render("side", side, {"location": location})
        if not self.narrator.has("ui.table.room"):
            return Verbatim(words)
        written = place_side(self.narrator.pack, location, side)
        capacity = written.capacity if written is not None else None
        shown = Verbatim(str(capacity) if capacity is not None else NO_LIMIT)
        ordinary = present - extra
        if extra and self.narrator.has("ui.table.room.extra"):
            room = self.narrator.ui("ui.table.room.extra", present=ordinary, capacity=shown, extra=extra)
        else:
            room = self.narrator.ui("ui.table.room", present=ordinary, capacity=shown)
        return Verbatim(f"{words}, {room}")

    def _others(self, state: Mapping[str, Any], piles: Mapping[str, Any]) -> list[str]:
        """How many entries the other players hold in each pile with a `ui.table.others.pile.<id>` text."""
        rows = []
        for name, pile in piles.items():
            key = f"ui.table.others.pile.{name}"
            if not isinstance(pile, Mapping) or pile.get("per") != "player" or not self.narrator.has(key):
                continue
            sizes = state["pile_sizes"].get(name, {})
            shown = [
                f"{self.narrator.name('colour', p)} {sizes.get(p, 0)}"
                for p in state["players"]
                if p != state["me"] and p not in state["eliminated"]
            ]
            if shown:
                rows.append(self.narrator.ui(key, sizes=Verbatim(", ".join(shown))))
        return rows

    def _secrets(self, state: Mapping[str, Any], drawn: Collection[Any] = ()) -> list[str]:
        """What the game remembers for this player alone, with a `ui.table.own.memory.<name>`
        text: the last entry, and what that entity does (its kind's `brief`, else its page in play)
        unless everyone has seen it since."""
        rows = []
        for name, value in state["memory"].items():
            key = f"ui.table.own.memory.{name}"
            mine = value.get(state["me"]) if isinstance(value, Mapping) else None
            if not self.narrator.has(key) or not mine:
                continue
            last = mine[-1] if isinstance(mine, list) else mine
            if last in drawn:
                continue
            brief = self.brief(str(last))
            contents = [line.strip() for line in self.page(str(last)).splitlines()[1:] if line.strip()]
            rows.append(self.narrator.ui(key, card=last, contents=Verbatim(brief or "; ".join(contents))))
        return rows

    def _texts(
        self, prefix: str, counts: Mapping[str, int], empty: bool = False, shown: Collection[str] = ()
    ) -> dict[str, str]:
        """`<prefix>.<name>` for each count the pack has that text for (non-zero, unless `empty`
        or the count is among those always `shown`)."""
        ui, has = self.narrator.ui, self.narrator.has
        return {
            name: ui(f"{prefix}.{name}", count=count)
            for name, count in counts.items()
            if (count or empty or name in shown) and has(f"{prefix}.{name}")
        }

    def _carried(
        self, state: Mapping[str, Any], piles: Mapping[str, Any], role: str | None, public: bool = False
    ) -> dict[str, list[str]]:
        """Per piece of the players' kind, its piles the pack has a `ui.table.carried.<id>` text for
        that are not empty and whose entries the player sees (everyone sees, with `public`), each
        in words."""
        found: dict[str, list[str]] = {}
        for name, pile in piles.items():
            key = f"ui.table.carried.{name}"
            if (
                role is None
                or not isinstance(pile, Mapping)
                or pile.get("per") != role
                or not self.narrator.has(key)
                or (public and pile.get("sees") != _EVERYONE)
            ):
                continue
            for piece, entries in (state["piles"].get(name) or {}).items():
                if entries:
                    text = self.narrator.ui(key, entries=sorted(entries, key=_in_order), count=len(entries))
                    found.setdefault(piece, []).append(text)
        return found

    def _people(
        self,
        present: Mapping[str, Mapping[str, Any]],
        me: str | None = None,
        carried: Mapping[str, list[str]] | None = None,
    ) -> list[str]:
        """The pieces at a place, grouped by owner when the pack says how (`ui.table.owner`,
        `ui.table.piece[.exhausted]`), else each with its owner. Given `me`, the others' pieces
        are only counted (a table shortened to fit the screen)."""
        if not self.narrator.has("ui.table.owner"):
            return [
                self._character(c, ch, carried=carried, mine=ch["owner"] == self.me)
                for c, ch in present.items()
            ]
        owners: dict[str, list[str]] = {}
        for character, ch in present.items():
            shown = self._character(character, ch, "ui.table.piece", carried, mine=ch["owner"] == self.me)
            owners.setdefault(ch["owner"], []).append(shown)
        return [
            self.narrator.ui(
                "ui.table.owner",
                player=owner,
                characters=Verbatim(", ".join(pieces) if me is None or owner == me else str(len(pieces))),
            )
            for owner, pieces in owners.items()
        ]

    def _character(
        self,
        character: str,
        ch: Mapping[str, Any],
        prefix: str = "ui.table.character",
        carried: Mapping[str, list[str]] | None = None,
        mine: bool = False,
    ) -> str:
        """A piece in words: its name (and owner), then in brackets what its kind's `brief` says
        of it (the player's own pieces only), its traits, joined by commas, and the piles it
        carries, each after a semicolon (their entries are joined by commas)."""
        key = f"{prefix}.exhausted" if ch["exhausted"] else prefix
        shown = self.narrator.ui(key, character=character, player=ch["owner"])
        brief = self.brief(character) if mine else ""
        traits = ([brief] if brief else []) + [
            self.narrator.ui(f"ui.table.trait.{trait}", value=_trait_value(held))
            for trait, held in (ch.get("traits") or {}).items()
            if self.narrator.has(f"ui.table.trait.{trait}")
        ]
        parts = ([", ".join(traits)] if traits else []) + list((carried or {}).get(character, ()))
        return f"{shown} [{'; '.join(parts)}]" if parts else shown

    def brief(self, entity: str) -> str:
        """What the `brief` of the entity's kind says of it, in a few words ("" without one)."""
        if entity not in self.briefs:
            self.briefs[entity] = _brief(self.narrator, entity, self.places)
        return self.briefs[entity]

    def _unplaced(self, pieces: Mapping[str, Mapping[str, Any]], role: str | None, me: str) -> list[str]:
        """The player's own living pieces that stand nowhere yet, with their `brief`s, as the
        pack's `ui.table.own.unplaced.<piece kind>` says (a line; none without the text)."""
        key = f"ui.table.own.unplaced.{role}"
        mine = [
            self._character(c, ch, "ui.table.piece", mine=True)
            for c, ch in pieces.items()
            if ch["owner"] == me and ch["alive"] and ch["at"] is None
        ]
        return (
            [self.narrator.ui(key, pieces=Verbatim(", ".join(mine)))]
            if mine and self.narrator.has(key)
            else []
        )

    def show_news(self, view: Any, public: bool = False) -> None:
        """What happened since this player last answered (what everyone saw only, with `public`:
        the next screen of theirs alone tells them all since, their secrets too)."""
        entries, places = view.log(), view.places()
        start = self.seen.get(view.colour, 0)
        if public:
            start = max(start, self.seen_public.get(view.colour, 0))
        else:
            self.seen[view.colour] = len(entries)
        self.seen_public[view.colour] = len(entries)
        if public:  # the story of what everyone saw: its headings are placed among those entries
            kept = [i for i, entry in enumerate(entries) if "to" not in entry]
            start = sum(1 for i in kept if i < start)
            entries, places = [entries[i] for i in kept], [places[i] for i in kept if i < len(places)]
        for line in self.narrator.story(entries, places, start):
            self._say(f"  {line}")


def _brief(narrator: Narrator, entity: str, places: list[str] | None) -> str:
    """What the `brief` of the entity's kind says of it ("" without one, or of no entity)."""
    from coh_core.packs.display import NOTHING, Display
    from coh_core.packs.listing import entity_record

    found = narrator.pack.entity(entity)
    declared = narrator.pack.kind_declarations().get(found.kind, {}) if found is not None else {}
    spec = declared.get("brief")
    if found is None or not isinstance(spec, Mapping):
        return ""
    record = entity_record(narrator, found)
    display = Display(narrator, record.get("text") or {}, places, play=True)
    value = display.value(spec, record, declared.get("fields"))
    return "" if value is NOTHING else str(value)


def threshold_texts(narrator: Narrator, state: Mapping[str, Any], location: str, counter: str) -> list[str]:
    """What the location does once that count there reaches a threshold of its side (the view's
    `thresholds`), "(at 3: ...)", for each the count has not reached and the pack has a
    `ui.table.fires.<location>.<side>.<counter>` text for."""
    count = state["counts"][location].get(counter, 0)
    found = []
    for threshold in state.get("thresholds", {}).get(location, []):
        key = f"ui.table.fires.{location}.{threshold['side']}.{counter}"
        if threshold["counter"] == counter and threshold["at"] > count and narrator.has(key):
            does = Verbatim(narrator.ui(key))
            found.append(narrator.ui("ui.table.threshold", at=threshold["at"], does=does))
    return found


def total_texts(narrator: Narrator, state: Mapping[str, Any], piles: Mapping[str, Any]) -> list[str]:
    """The game's own piles that are not empty and that the pack has a `ui.table.total.<id>` text for."""
    found = []
    for name, pile in piles.items():
        key = f"ui.table.total.{name}"
        if not isinstance(pile, Mapping) or pile.get("per") or not narrator.has(key):
            continue
        entries = state["piles"].get(name, {}).get("", [])
        count = int(state["pile_sizes"].get(name, {}).get("", 0))
        if count:
            found.append(narrator.ui(key, count=count, entries=entries, top=entries[-1] if entries else "-"))
    return found


def pointer_order(narrator: Narrator, state: Mapping[str, Any], pointer: str, value: Any) -> Verbatim:
    """The values a pointer takes as it moves on round its cycle (the view's `cycles`), from
    the one it points at: "Red → Blue → Green", each shown as the pointer's declared `type`."""
    cycle = list(state.get("cycles", {}).get(pointer) or [value])
    start = cycle.index(value) if value in cycle else 0
    declared = (narrator.pack.section("components").get("pointers") or {}).get(pointer)
    kind = declared.get("type") if isinstance(declared, Mapping) else None
    names = [narrator.render(kind, v, {}) for v in cycle[start:] + cycle[:start]]
    return Verbatim(ORDER_SEP.join(names))


def no_room(pack: Pack, state: Mapping[str, Any], location: str) -> bool:
    """Whether a place has no room for one more piece, as a seat's view shows it (`has_room`): its
    side counts as full, or the living pieces there, less those holding an extra place, fill its
    capacity. A place without sides, or unknown, has room."""
    place = state["locations"].get(location)
    side = place_side(pack, location, place["side"]) if place and place["side"] is not None else None
    if side is None:
        return False
    if side.full:
        return True
    if side.capacity is None:
        return False
    role = state["piece_roles"].get("players")
    pieces = state["pieces"][role] if role is not None else {}
    present = sum(1 for ch in pieces.values() if ch["alive"] and ch["at"] == location)
    return present - int(state.get("extra_places", {}).get(location, 0)) >= side.capacity


def made_public(entries: Sequence[Mapping[str, Any]]) -> set[Any]:
    """The values of a player's log that were told to them alone, then in an entry told to
    everyone (a card seen in secret that has since been drawn): their secret is out."""
    secret: set[Any] = set()
    public: set[Any] = set()
    for entry in entries:
        values = set(_values(entry.get("params") or {}))
        if "to" in entry:
            secret |= values
            public -= values
        else:
            public |= values & secret
    return public


def _values(params: Mapping[str, Any]) -> list[str]:
    """The ids among an entry's parameters, those in lists too (numbers say too little alone)."""
    found: list[str] = []
    for value in params.values():
        found.extend(
            item for item in (value if isinstance(value, list) else [value]) if isinstance(item, str)
        )
    return found


def _fills(text: Any, prompt: Mapping[str, Any]) -> bool:
    """Whether the prompt has a value for every placeholder of the message."""
    return all(name in prompt for form in text_forms(text) for name in placeholders(form))


def pile_sizes(
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


def screen_rows(lines: Sequence[str], width: int) -> int:
    """How many rows the lines take on a screen this wide, wrapped as `wrapped` wraps them."""
    return sum(len(wrap_line(part, width)) for line in lines for part in line.split("\n"))


def wrapped(text: str, width: int) -> str:
    """The text with each line wrapped at blanks to the width (`wrap_line`)."""
    return "\n".join(row for line in text.split("\n") for row in wrap_line(line, width))


def wrap_line(line: str, width: int) -> list[str]:
    """One line in rows of less than the width (some terminals wrap at the last column), broken at
    blanks and never inside a word unless it is longer than a row; the rows after the first are
    indented two more than the line, so a wrapped line reads as one."""
    if len(line) < width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
    row = max(width - 1, len(indent) + 1)
    rows = textwrap.wrap(line, row, subsequent_indent=indent, break_on_hyphens=False)
    return rows or [line]


def cut(line: str, width: int) -> str:
    """The line in one row of the width (less one column, which some terminals wrap at), `…` at the cut."""
    return line if len(line) < width else line[: max(width - 2, 0)] + ELLIPSIS


def columns(entries: Sequence[tuple[str, str]], width: int) -> list[str]:
    """`key  label` entries in as many columns as fit the width (at most three), row by row,
    so that a long menu stays a few lines high."""
    cells = [f"  {key:>3}  {label}" for key, label in entries]
    widest = max((len(c) for c in cells), default=0) + 1
    count = max(1, min(3, width // max(widest, 1))) if len(cells) > SHORT_MENU else 1
    rows = -(-len(cells) // count)
    lines = []
    for row in range(rows):
        parts = [cells[i] for i in range(row, len(cells), rows)]
        lines.append("".join(p.ljust(widest) for p in parts[:-1]) + parts[-1])
    return lines


def _trait_value(held: Any) -> Any:
    """A trait's value (a trait given for a while is kept as [value, until])."""
    return held[0] if isinstance(held, list) and held else held


# The texts of a condition that compares a count with the pieces at its place, by comparison.
_THAN_PIECES = {">": "ui.table.threshold.more_than_pieces", ">=": "ui.table.threshold.as_many_as_pieces"}

_EVERYONE = "everyone"  # a pile whose entries every player sees (`sees`)
_OWNER_ONLY = "owner"  # what the game remembers for its owner's eyes alone (`visible`)

# (no answer of any pack: a pass has no value)
_UNTIL_CONCERNED: Action = ("pass", PASS_CONCERNED)
_UNTIL_PLACE: Action = ("pass", PASS_PLACE)
_UNTIL_PHASE: Action = ("pass", PASS_PHASE)
_PASSING_ON = (_UNTIL_CONCERNED, _UNTIL_PLACE, _UNTIL_PHASE)


def _pieces_of(state: Mapping[str, Any], colour: str | None) -> set[str]:
    """The ids of the player's pieces (of everyone's, for None), of every kind."""
    return {
        piece
        for held in (state.get("pieces") or {}).values()
        for piece, data in held.items()
        if isinstance(data, Mapping) and (colour is None or data.get("owner") == colour)
    }


def _names_any(value: Any, names: set[str]) -> bool:
    """Whether a log entry's parameters name any of these (in lists and mappings too)."""
    if isinstance(value, str):
        return value in names
    if isinstance(value, Mapping):
        return any(_names_any(v, names) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_names_any(v, names) for v in value)
    return False

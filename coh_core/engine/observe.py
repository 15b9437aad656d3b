"""What a seat observes, as numbers and as text: the observation vector and the information state.

Both are worked out from what the seat may see alone (`coh_core.engine.views`), so two games that
differ only in what the seat cannot see give it the same observation and the same string.

The vector's layout is generated from the pack's declarations for one table (its seats), in
fields, each a run of numbers (`Observer.layout`; `coh docs space` prints it):

- `seat`: 1 at the seat observing, among the seats in order;
- `turn`: the turn's number; `phase`: 1 at the phase the game is in (setup, the turn's phases in
  order, the end);
- `pointer.<name>`: 1 at the value of each pointer, among the values of its type;
- `out`: 1 for each seat out of the game;
- `side.<place>`: 1 at the side each place of several sides shows;
- `counts`: the counters at each place (the board's, then the seats', then the pack's others), kind
  by kind;
- `piece.<kind>`: per piece of the kind (the kind's ids, sorted): in play, alive, exhausted, 1 at
  its place, 1 at its owner, then its traits (a number, 0/1 for a flag, 1 at an enumeration's
  value);
- `pile.<name>`: per pile of the name (one, or one per place, seat or piece it is kept for): its
  size, then, where the seat may see it, how many of each value it holds (a pile of numbers: their
  sum);
- `memory.<name>`: what the game remembers, where the seat may see it, by its declared type: a
  number or flag as is, a value 1 at its place among its type's values, a list as how many of each
  value it holds, a map as its values key by key (a type that lists no values is left out);
- `edge.<graph>`: 1 at the state of each edge of the graph that has states;
- `decision`: 1 if the seat must answer now, then 1 at the question it is asked (or at `other`).

`OBSERVATION_VERSION` changes whenever this layout does.
"""

from __future__ import annotations

import copy
import json
import marshal
import operator
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from coh_core.packs.answers import type_values
from coh_core.packs.declarations import NUMBER_TYPES, SCALAR_TYPES, messages_of

if TYPE_CHECKING:
    from coh_core.engine.journal import Journal
    from coh_core.engine.rules import Pile, Rules

OBSERVATION_VERSION = 1
SETUP_PHASE, END_PHASE = "setup", "end"  # the phases outside the pack's turn (`state["phase"]`)
OTHER_QUESTION = "other"  # the decision field's slot for a question the pack does not declare
GAME_OWNER = ""  # the owner of a pile kept once for the whole game

Vector: TypeAlias = "array[float]"  # the observation's numbers, float32 (`array("f")`), written in place
Reader = Callable[[Mapping[str, Any]], Any]  # the part of the seat's view a field is worked out from
Writer = Callable[[Any, Vector, int], None]  # writes a field from that part, at its start
_Group: TypeAlias = "list[tuple[str, int, int, Writer]]"  # fields written as one: (key, start, size, write)
# fields whose parts are worked out from the same sections: (their counts, or None: read each
# time; public; per field: its index, its reader, its own counts, its writer if it writes entry by
# entry, its start)
_Counts: TypeAlias = "Callable[[Journal], Any]"  # counts of the journal (equal counts: nothing changed)
_InBlock: TypeAlias = "tuple[int, Reader, _Counts | None, Keyed | None, int]"
_Block: TypeAlias = "tuple[_Counts | None, bool, tuple[_InBlock, ...]]"


@dataclass(frozen=True)
class _Counted:
    """Where a field's part is worked out from in the game's journal (`coh_core.engine.journal`):
    the sections, and the field's own counts among them (of one pile, one entry of the memory).
    While they have not moved, the part has not changed."""

    sections: tuple[str, ...]
    stamp: Callable[[Journal], Any]


Changes: TypeAlias = "_Counted | None"  # (None: the part is read each time)


@dataclass(frozen=True)
class Field:
    """A run of the observation vector: its name, where it starts, its length and what it holds."""

    name: str
    start: int
    size: int
    what: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "start": self.start, "size": self.size, "what": self.what}


class Observer:
    """The observation vector of the seats of one ruleset at one table (`players`, in seat order)."""

    def __init__(self, rules: Rules, players: Sequence[str]):
        self.rules = rules
        self.players = tuple(players)
        self._declared = rules.declared
        self._fields: list[Field] = []
        # (start, size, read, write, public: the same for every seat, changes)
        self._writers: list[tuple[int, int, Reader, Writer, bool, Changes]] = []
        self.size = 0
        self._build()
        self._zeros = array("f", bytes(4 * self.size))
        self.layout: tuple[Field, ...] = tuple(self._fields)
        self._blocks = self._blocks_of_fields()
        # where the fields of each seat's own are (the rest of a seat's vector is the table's),
        # fields side by side as one run (one copy each)
        self._own_runs = _joined((at, size) for at, size, _r, _w, public, _c in self._writers if not public)

    def _blocks_of_fields(self) -> list[_Block]:
        """The fields by the sections they are worked out from and whether they are the table's:
        (the sections' counts, public, per field its index, reader and own counts); a block whose
        counts have not moved is skipped whole. Fields read each time are a block of their own each."""
        blocks: dict[Any, list[int]] = {}
        for n, (_at, _size, _read, _write, public, changes) in enumerate(self._writers):
            key = (n, public) if changes is None else (changes.sections, public)
            blocks.setdefault(key, []).append(n)
        return [
            (
                _guard(key[0]),
                key[1],
                tuple(self._in_block(n) for n in fields),
            )
            for key, fields in blocks.items()
        ]

    def _in_block(self, n: int) -> _InBlock:
        at, _size, read, write, _public, changes = self._writers[n]
        return n, read, _stamp_of(changes), write if type(write) is Keyed else None, at

    # -- the layout ---------------------------------------------------------------------------

    def _add(
        self,
        name: str,
        size: int,
        what: str,
        read: Reader,
        write: Writer,
        public: bool = True,
        changes: Changes = None,
    ) -> None:
        """A field; `public` when its part of the view is the same for every seat."""
        if size <= 0:
            return
        self._fields.append(Field(name, self.size, size, what))
        self._writers.append((self.size, size, read, write, public, changes))
        self.size += size

    def _add_entry(self, group: _Group, key: str, name: str, size: int, what: str, write: Writer) -> None:
        """A field written from one entry of a part of the view that several fields share (the
        sides of the places): the group is written as one (`_end_group`)."""
        if size <= 0:
            return
        self._fields.append(Field(name, self.size, size, what))
        group.append((key, self.size, size, write))
        self.size += size

    def _end_group(self, group: _Group, read: Reader, public: bool, changes: Changes) -> None:
        """One writer for a group of fields, entry by entry (`Keyed`): a memo compares the part
        they share once, and writes again only the entries that changed."""
        if not group:
            return
        start = group[0][1]
        runs = {key: (at - start, size) for key, at, size, _write in group}
        writers = {key: write for key, _at, _size, write in group}
        keyed = Keyed(runs, lambda key, entry, out, at: writers[key](entry, out, at))
        self._writers.append((start, self.size - start, read, keyed, public, changes))

    def _values(self, type_name: str) -> tuple[Any, ...] | None:
        if type_name in ("player", "colour"):
            return self.players if type_name == "player" else tuple(self.rules.pack.colours())
        return type_values(self.rules.pack, self._declared, type_name)

    def _build(self) -> None:
        rules, players = self.rules, self.players
        self._add(
            "seat", len(players), "1 at the seat observing", _part("me"), _one_hot(players), False, _NEVER
        )
        self._add("turn", 1, "the turn's number", _part("turn"), _put_at, changes=_changes("turn"))
        phases = (SETUP_PHASE, *(phase.id for phase in rules.phases), END_PHASE)
        self._add(
            "phase",
            len(phases),
            "1 at the phase: " + ", ".join(phases),
            _part("phase"),
            _one_hot(phases),
            changes=_changes("phase"),
        )
        for name, (_what, type_name) in self._declared.pointers.items():
            values = self._values(type_name) or ()
            self._add(
                f"pointer.{name}",
                len(values),
                f"1 at its value ({type_name})",
                _part_of("pointers", name),
                _one_hot(values),
                changes=_changes("pointers"),
            )
        self._add(
            "out",
            len(players),
            "1 for each seat out of the game",
            _part("eliminated"),
            _many_hot(players),
            changes=_remembered(rules.memory_roles.get("out_of_game")),
        )
        sides_group: _Group = []
        for place, sides in _sides_by_place(rules).items():
            if len(sides) > 1:
                what = "1 at its side: " + ", ".join(sides)
                self._add_entry(sides_group, place, f"side.{place}", len(sides), what, _side(sides))
        self._end_group(sides_group, _part("locations"), public=True, changes=_changes("locations"))
        self._add_counts()
        for kind, piece_kind in rules.piece_kinds.items():
            self._add_pieces(kind, piece_kind.of)
        for name, pile in rules.piles.items():
            self._add_pile(name, pile)
        for name, (_what, type_name) in self._declared.memory.items():
            size, writer = self._encoder(type_name)
            spec = rules.memory.get(name)
            if writer is not None:
                self._add(
                    f"memory.{name}",
                    size,
                    f"where seen, by its type {type_name}",
                    _part_of("memory", name),
                    writer,
                    public=spec is not None and spec.alike,
                    # (an entry hidden while its player is asked: the question asked too)
                    changes=None
                    if spec is None
                    else _remembered(name, asked=spec.hidden_while_asked is not None),
                )
        for name in rules.stateful_graphs:
            self._add_edges(name)
        questions = (
            *sorted({q.split(".")[0] for q in messages_of(rules.pack).questions()} - {OTHER_QUESTION}),
            OTHER_QUESTION,
        )
        self._add(
            "decision",
            1 + len(questions),
            "1 if asked, then 1 at the question",
            _asked,
            _decision(questions),
            public=False,
            changes=_changes("decisions"),
        )

    def _places(self) -> tuple[str, ...]:
        return tuple(self._values("location") or ())

    def _add_counts(self) -> None:
        places = (*self._places(), *self.players, *self.rules.places)
        kinds = tuple(self.rules.counters)
        self._add(
            "counts",
            len(places) * len(kinds),
            "per place (" + ", ".join(places) + "), its counters: " + ", ".join(kinds),
            _part("counts"),
            _counts(places, kinds),
            changes=_changes("counts"),
        )

    def _add_pieces(self, kind: str, entity_kind: str) -> None:
        type_name = self.rules.pack.ref_types().get(entity_kind, entity_kind)
        ids = tuple(sorted(self._values(type_name) or ()))
        places = self._places()
        traits: list[tuple[str, tuple[Any, ...] | None]] = []
        for trait, spec in self._declared.traits.items():
            if spec.type in SCALAR_TYPES:
                traits.append((trait, None))
            elif (values := self._values(spec.type)) is not None:
                traits.append((trait, values))
        per_piece = 3 + len(places) + len(self.players) + sum(1 if v is None else len(v) for _t, v in traits)
        what = "per piece: in play, alive, exhausted, place, owner, " + ", ".join(t for t, _v in traits)
        self._add(
            f"piece.{kind}",
            len(ids) * per_piece,
            what,
            _part_of("pieces", kind),
            _pieces(self, ids, places, traits, per_piece),
            changes=_changes("pieces"),
        )

    def _add_pile(self, name: str, pile: Pile) -> None:
        of, per = pile.of, pile.per
        if per == "game":
            owners: tuple[str, ...] = (GAME_OWNER,)
        elif per == "location":
            owners = self._places()
        elif per == "player":
            owners = self.players
        else:
            entity_kind = self.rules.piece_kinds[per].of if per in self.rules.piece_kinds else per
            owners = tuple(
                sorted(self._values(self.rules.pack.ref_types().get(entity_kind, entity_kind)) or ())
            )
        values = None if of in NUMBER_TYPES else self._values(of)
        per_owner = 1 + (len(values) if values is not None else 1 if of in NUMBER_TYPES else 0)
        held = (
            "how many of each value"
            if values is not None
            else "the sum of its numbers"
            if per_owner > 1
            else ""
        )
        self._add(
            f"pile.{name}",
            len(owners) * per_owner,
            f"per pile ({len(owners)}): its size" + (f", {held} where seen" if held else ""),
            _part_of("piles", name),
            _pile(owners, values, per_owner),
            public=pile.alike,
            # (who sees a pile kept per piece: its piece's owner)
            changes=_piled(name, by_pieces=pile.per_piece and not pile.alike),
        )

    def _add_edges(self, name: str) -> None:
        graph = self.rules.graphs[name]
        edges = [(graph.keys[i], tuple(graph.edges[i][2].states)) for i in graph.stateful]
        self._add(
            f"edge.{name}",
            sum(len(states) for _k, states in edges),
            "per edge with states, 1 at its state",
            _part_of("edges", name),
            _edges(edges),
            changes=_changes("edges"),
        )

    def _encoder(self, type_name: str) -> tuple[int, Writer | None]:
        """The size of a value of a declared type in the vector and how it is written (None: left out)."""
        written = type_name.replace(" ", "")
        if written in SCALAR_TYPES:
            return 1, lambda value, out, at: _put(out, at, value)
        if written.startswith("list[") and written.endswith("]"):
            inner = written[5:-1]
            while inner.startswith("list[") and inner.endswith("]"):
                inner = inner[5:-1]  # (a list of lists is counted value by value)
            values = self._values(inner)
            if values is None:
                return 0, None
            index = {v: i for i, v in enumerate(values)}
            return len(values), lambda value, out, at: _count_into(value, index, out, at)
        if written.startswith("map[") and written.endswith("]"):
            key_type, _, value_type = written[4:-1].partition(",")
            keys = self._values(key_type)
            size, inner_writer = self._encoder(value_type)
            if keys is None or inner_writer is None:
                return 0, None
            return len(keys) * size, _map_writer(keys, size, inner_writer)
        values = self._values(written)
        if values is None:
            return 0, None
        index = {v: i for i, v in enumerate(values)}
        return len(values), lambda value, out, at: _hot(out, at, index.get(value))

    # -- encoding ----------------------------------------------------------------------------------

    def observe(
        self, view: Mapping[str, Any], memo: Memo | None = None, journal: Journal | None = None
    ) -> array[float]:
        """The observation vector of what a seat may see (the parts of its view the fields read:
        `coh_core.engine.views.seen_parts`). With a `memo` of the table's last observations (kept
        by whoever observes its seats again and again), only the fields whose part changed since
        are written again, and a change on the table is written once for every seat: the same
        vector, for less. With the game's `journal` besides, a field whose sections of the state
        have not changed since is not even read."""
        if memo is None:
            out = array("f", self._zeros)  # (a copy of the zeros: one block copied, not a list converted)
            for at, _size, read, write, _public, _changes in self._writers:
                write(read(view), out, at)
            return out
        if memo.observer is not self:
            memo.reset(self)
        if memo.journal is not journal:
            memo.follow(journal)
        table, seat = memo.table, memo.seat(view["me"])
        for b, (guard, public, fields) in enumerate(self._blocks):
            written = table if public else seat
            if journal is None or guard is None:
                counted = None  # (read each time)
            else:
                counted = guard(journal)
                if counted == written.guards[b]:
                    continue  # (none of the sections of these fields changed since they were read)
            parts, stamps = written.parts, written.stamps
            for n, read, stamp_of, keyed, at in fields:
                # (the field's own counts: None, never equal to counts kept, reads it)
                stamp = None if stamp_of is None or counted is None or journal is None else stamp_of(journal)
                if stamp is None or stamp != stamps[n]:
                    part = read(view)
                    kept = parts[n]
                    if keyed is not None and type(part) is dict and type(kept) is dict:
                        # (entry by entry: only the entries that changed are written again)
                        keyed.update(part, kept, written.out, at, self._zeros)
                    elif part != kept:
                        self._write_changed(n, part, written.out, parts)
                    stamps[n] = stamp
            written.guards[b] = counted
        found = array("f", table.out)
        own = seat.out
        for at, size in self._own_runs:
            found[at : at + size] = own[at : at + size]
        return found

    def _write_changed(self, n: int, part: Any, out: Vector, parts: list[Any]) -> None:
        """Write field `n` again from `part`, which differs from the one last written (`parts[n]`)."""
        at, size, _read, write, _public, _changes = self._writers[n]
        out[at : at + size] = self._zeros[at : at + size]
        write(part, out, at)
        parts[n] = _kept(part)

    def describe(self) -> dict[str, Any]:
        """The layout as JSON data: the version, the size and the fields in order."""
        return {
            "version": OBSERVATION_VERSION,
            "size": self.size,
            "players": list(self.players),
            "fields": [field.to_json() for field in self.layout],
        }


def _joined(runs: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Runs of the vector (start, size), in order, with those that meet made one."""
    found: list[tuple[int, int]] = []
    for at, size in runs:
        if found and sum(found[-1]) == at:
            found[-1] = (found[-1][0], found[-1][1] + size)
        else:
            found.append((at, size))
    return tuple(found)


class Memo:
    """What the last observations of a table's seats were worked out from, field by field, and
    their vectors (`Observer.observe`): the table's fields (the same for every seat) once, each
    seat's own fields per seat, and the counts of the game's journal they were read at. A seat's
    vector is the table's with its own fields. One per game being observed again and again (a
    fork or the next game may share it: parts are compared by value, and another game's journal
    reads every part again)."""

    __slots__ = ("journal", "observer", "seats", "table")

    def __init__(self) -> None:
        self.observer: Observer | None = None
        self.journal: Journal | None = None  # the journal of the game last observed
        self.table = _Written(0, 0, 0)
        self.seats: dict[str | None, _Written] = {}

    def reset(self, observer: Observer) -> None:
        self.observer = observer
        self.table = self._written()
        self.seats = {}

    def _written(self) -> _Written:
        assert self.observer is not None
        return _Written(self.observer.size, len(self.observer._writers), len(self.observer._blocks))

    def follow(self, journal: Journal | None) -> None:
        """Observe a game of another journal: its counts say nothing of the parts kept."""
        self.journal = journal
        for written in (self.table, *self.seats.values()):
            written.stamps = [None] * len(written.stamps)
            written.guards = [None] * len(written.guards)

    def seat(self, colour: str | None) -> _Written:
        found = self.seats.get(colour)
        if found is None:
            found = self.seats[colour] = self._written()
        return found


class _Written:
    """A vector as last written (the table's fields, or a seat's own), the part each field was
    written from, and the journal's counts each field and each block of fields was read at."""

    __slots__ = ("guards", "out", "parts", "stamps")

    def __init__(self, size: int, fields: int, blocks: int):
        self.out: Vector = array("f", bytes(4 * size))
        self.parts: list[Any] = [_UNREAD] * fields
        self.stamps: list[Any] = [None] * fields
        self.guards: list[Any] = [None] * blocks


_UNREAD: Any = object()  # a memo's part not read yet (equal to nothing but itself)
_UNCHANGING = (str, int, float, bool, type(None))


def _kept(part: Any) -> Any:
    """A copy of a part of the view that the game's changes will not reach (the game changes its
    data in place), for the next observation to compare with."""
    if part is _MISSING or type(part) in _UNCHANGING:
        return part
    try:
        return marshal.loads(marshal.dumps(part))
    except ValueError:  # (a value marshal does not write: copied the long way)
        return copy.deepcopy(part)


def information_state(view: Mapping[str, Any], log: Sequence[Mapping[str, Any]]) -> str:
    """What a seat knows, as one string: its view (less who has answered a decision already) and
    the log it saw. Equal strings for equal knowledge; the string is canonical JSON."""
    return _canonical({"view": _unanswered(view), "log": list(log)})


def observation_string(view: Mapping[str, Any]) -> str:
    """What a seat sees now, as one string: its view (less who has answered a decision already),
    without the log; canonical JSON."""
    return _canonical(_unanswered(view))


def _unanswered(view: Mapping[str, Any]) -> dict[str, Any]:
    shown = dict(view)
    decision = shown.get("decision")
    if isinstance(decision, dict):
        shown["decision"] = {k: v for k, v in decision.items() if k != "waiting"}
    return shown


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Keyed:
    """A field written entry by entry from a part of the view that maps keys to entries (the
    counters of each place, the pieces of a kind): each key has its run of the field, so a memo
    rewrites only the entries that changed."""

    __slots__ = ("keep", "runs", "write_entry")

    def __init__(
        self,
        runs: Mapping[Any, tuple[int, int]],
        write_entry: Callable[[Any, Any, Vector, int], None],
        keep: Callable[[Any], Any] | None = None,
    ):
        self.runs = runs  # per key: (where its run starts in the field, its length)
        self.write_entry = write_entry  # (key, entry, out, where its run starts)
        self.keep = keep or _kept  # how an entry is copied for the memo (a flat one: `dict`)

    def __call__(self, part: Any, out: Vector, at: int) -> None:
        if not isinstance(part, Mapping):
            return
        for key, entry in part.items():
            run = self.runs.get(key)
            if run is not None:
                self.write_entry(key, entry, out, at + run[0])

    def update(self, part: dict[Any, Any], kept: dict[Any, Any], out: Vector, at: int, zeros: Vector) -> None:
        """Rewrite the runs of the entries that differ from `kept`, and bring `kept` up to date."""
        runs = self.runs
        for key, entry in part.items():
            if kept.get(key, _MISSING) == entry:
                continue
            run = runs.get(key)
            if run is not None:
                start = at + run[0]
                out[start : start + run[1]] = zeros[start : start + run[1]]
                self.write_entry(key, entry, out, start)
            kept[key] = self.keep(entry)
        if len(kept) != len(part):
            for key in [k for k in kept if k not in part]:
                run = runs.get(key)
                if run is not None:
                    start = at + run[0]
                    out[start : start + run[1]] = zeros[start : start + run[1]]
                del kept[key]


# -- readers and writers ---------------------------------------------------------------------------

_MISSING: Any = object()  # a part the view does not hold (a pointer not set, a kind of pieces not dealt)


def _part(key: str) -> Reader:
    return operator.itemgetter(key)


def _changes(*sections: str) -> Changes:
    """A field worked out from whole sections: its counts are theirs."""
    return _Counted(sections, operator.attrgetter(*sections))


def _unchanging(journal: Journal) -> int:
    return 0


# A field whose part never changes for a seat (which seat it is): read at a seat's first observation.
_NEVER = _Counted((), _unchanging)


def _guard(sections: Any) -> _Counts | None:
    """A block's counts: those of its sections (None: a field read each time)."""
    if type(sections) is int:
        return None
    return operator.attrgetter(*sections) if sections else _unchanging


def _stamp_of(changes: Changes) -> _Counts | None:
    return None if changes is None else changes.stamp


def _piled(name: str, by_pieces: bool) -> Changes:
    """A pile's counts in the journal: its own (and the pieces', whose owners see it)."""
    if by_pieces:
        return _Counted(
            ("piles", "pieces"), lambda journal: (journal.piles_changed.get(name, 0), journal.pieces)
        )
    return _Counted(("piles",), lambda journal: journal.piles_changed.get(name, 0))


def _remembered(name: str | None, asked: bool = False) -> Changes:
    """An entry of the memory's counts in the journal: its own (and the questions', if `asked`);
    of no entry, nothing that changes."""
    if name is None:
        return _Counted(("memory",), lambda journal: 0)
    if asked:
        return _Counted(
            ("memory", "decisions"), lambda journal: (journal.memory_changed.get(name, 0), journal.decisions)
        )
    return _Counted(("memory",), lambda journal: journal.memory_changed.get(name, 0))


def _part_of(key: str, name: str) -> Reader:
    return lambda view: view[key].get(name, _MISSING)


def _put(out: Vector, at: int, value: Any) -> None:
    if isinstance(value, bool | int | float):
        out[at] = float(value)


def _put_at(value: Any, out: Vector, at: int) -> None:
    _put(out, at, value)


def _hot(out: Vector, at: int, index: int | None) -> None:
    if index is not None:
        out[at + index] = 1.0


def _count_into(value: Any, index: Mapping[Any, int], out: Vector, at: int) -> None:
    for item in value if isinstance(value, list) else ():
        if isinstance(item, list):
            _count_into(item, index, out, at)
        elif (found := index.get(item)) is not None:
            out[at + found] += 1.0


def _one_hot(values: Sequence[Any]) -> Writer:
    index = {v: i for i, v in enumerate(values)}
    return lambda value, out, at: _hot(out, at, index.get(value) if value is not _MISSING else None)


def _many_hot(values: Sequence[Any]) -> Writer:
    index = {v: i for i, v in enumerate(values)}
    return lambda value, out, at: _count_into(value, index, out, at)


def _counts(places: Sequence[str], kinds: Sequence[str]) -> Keyed:
    width = len(kinds)

    def write(place: str, held: Mapping[str, int], out: Vector, start: int) -> None:
        if held:
            out[start : start + width] = array("f", [held.get(kind, 0) for kind in kinds])

    # (a place's counters are a flat mapping of numbers: a shallow copy keeps them)
    return Keyed({place: (p * width, width) for p, place in enumerate(places)}, write, dict)


def _pieces(
    observer: Observer,
    ids: Sequence[str],
    places: Sequence[str],
    traits: Sequence[tuple[str, tuple[Any, ...] | None]],
    per_piece: int,
) -> Keyed:
    place_index: dict[Any, int] = {p: i for i, p in enumerate(places)}
    owner_index: dict[Any, int] = {p: i for i, p in enumerate(observer.players)}
    rules = observer.rules
    # where each trait's run starts among a piece's traits, and its values (None: a number)
    runs: dict[str, tuple[int, tuple[Any, ...] | None]] = {}
    width = 0
    for trait, values in traits:
        runs[trait] = (width, values)
        width += 1 if values is None else len(values)

    def run_of(value: Any, values: tuple[Any, ...] | None) -> array[float]:
        if values is None:
            return array("f", [float(value) if isinstance(value, bool | int | float) else 0.0])
        return array("f", [1.0 if value == v else 0.0 for v in values])

    # each piece's traits at their values of the pack (the state keeps only those changed in play)
    defaults = {
        piece: array(
            "f", [x for trait, values in traits for x in run_of(rules.trait_default(piece, trait), values)]
        )
        for piece in ids
    }
    traits_at = 3 + len(places) + len(owner_index)

    def write(piece: str, data: Any, out: Vector, start: int) -> None:
        if isinstance(data, Mapping):
            out[start] = 1.0
            out[start + 1] = 1.0 if data.get("alive") else 0.0
            out[start + 2] = 1.0 if data.get("exhausted") else 0.0
            _hot(out, start + 3, place_index.get(data.get("at")))
            _hot(out, start + 3 + len(places), owner_index.get(data.get("owner")))
            start += traits_at
            out[start : start + width] = defaults[piece]
            for trait, given in (data.get("traits") or {}).items():
                run = runs.get(trait)
                if run is not None and isinstance(given, list):
                    values = run[1]
                    found = run_of(given[0], values)
                    out[start + run[0] : start + run[0] + len(found)] = found

    return Keyed({piece: (n * per_piece, per_piece) for n, piece in enumerate(ids)}, write)


def _pile(owners: Sequence[str], values: Sequence[Any] | None, per_owner: int) -> Keyed:
    """Per owner of the pile, in order: its size, then where the seat sees its entries, how many
    of each value it holds (or the sum of its numbers); an owner the seat does not see is given
    as its size alone."""
    index = {v: i for i, v in enumerate(values or ())}

    def write(owner: str, entries: list[Any] | int, out: Vector, start: int) -> None:
        if not isinstance(entries, list):  # (a pile the seat does not see: its size)
            _put(out, start, entries)
            return
        out[start] = float(len(entries))
        if per_owner == 1:
            return
        if values is None:
            out[start + 1] = float(sum(e for e in entries if isinstance(e, int | float)))
        else:
            _count_into(entries, index, out, start + 1)

    # (each owner's entries rewritten alone: a move between two piles leaves the others be)
    return Keyed({owner: (n * per_owner, per_owner) for n, owner in enumerate(owners)}, write)


def _side(sides: Sequence[str]) -> Writer:
    """1 at the side a place shows (from the place's data in the view)."""
    index = {v: i for i, v in enumerate(sides)}
    return lambda place, out, at: _hot(out, at, index.get(place.get("side")))


def _map_writer(keys: Sequence[Any], size: int, inner: Writer) -> Writer:
    def write(value: Any, out: Vector, at: int) -> None:
        if not isinstance(value, dict):
            return
        for n, key in enumerate(keys):
            if key in value:
                inner(value[key], out, at + n * size)

    return write


def _edges(edges: Sequence[tuple[str, tuple[str, ...]]]) -> Writer:
    def write(states: Any, out: Vector, at: int) -> None:
        if states is _MISSING:
            return
        for key, kinds in edges:
            state = states.get(key)
            if state in kinds:
                out[at + kinds.index(state)] = 1.0
            at += len(kinds)

    return write


def _asked(view: Mapping[str, Any]) -> str | None:
    """The question the seat is asked (None: none); all the decision field holds of the decision."""
    decision = view["decision"]
    return decision["kind"] if decision else None


def _decision(questions: Sequence[str]) -> Writer:
    index = {q: i for i, q in enumerate(questions)}

    def write(kind: str | None, out: Vector, at: int) -> None:
        if kind is None:
            return
        out[at] = 1.0
        out[at + 1 + index.get(kind, index[OTHER_QUESTION])] = 1.0

    return write


def _sides_by_place(rules: Rules) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for place, side in rules.sides:
        found.setdefault(place, []).append(side)
    return found


def observer_for(rules: Rules, players: Sequence[str]) -> Observer:
    """The observer of a ruleset's table, worked out once per seats."""
    # (looked up by the seats as they are: the adapters ask at every observation)
    observers: dict[tuple[str, ...], Observer] | None = rules.derived.get(_OBSERVERS)
    if observers is None:
        observers = rules.derived[_OBSERVERS] = {}
    seats = tuple(players)
    found = observers.get(seats)
    if found is None:
        found = observers[seats] = Observer(rules, seats)
    return found


_OBSERVERS = "observers"  # their name in `Rules.derived`: per seats, the observer

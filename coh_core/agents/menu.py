"""Short menus of a human's answers: grouped by what they do, each under a key of its own.

The legal answers of a decision are grouped by their verb (the first value of an answer); a
group of several answers becomes one entry that opens a sub-menu. In a sub-menu where answers
differ in more than one value (give *what* to *whom*), they are grouped again by all but the
value with the fewest choices, which is asked last.

An entry's key comes from the value it stands for, never from its place in the list: each kind
of value (a player, a card, a location... any kind the pack names, and the verbs of its answers)
gives every value the pack has of it a key of its own, from its name in the game's language. So
a card keeps its key when another card leaves the hand, and `gu` is the same card all game.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from coh_core.narrative import Narrator, Verbatim

Action = tuple[Any, ...]
VERBS = "verb"  # the kind of keys of the answers' verbs (no entity kind has this name plus a dot)
ELLIPSIS = "…"  # stands in a group's label for the values its sub-menu asks
_PLACEHOLDER = re.compile(r"\{[^}]*\}")


@dataclass
class Entry:
    """One line of a menu: an answer, or a group of answers that opens a sub-menu."""

    key: str
    label: str
    action: Action | None = None  # the answer, for an entry that is one
    children: list[Entry] = field(default_factory=list)  # the sub-menu, for a group
    about: str | None = None  # the id of the entity `? key` reads about

    @property
    def is_group(self) -> bool:
        return self.action is None


def _letters(name: str) -> str:
    """The name in lower-case ASCII letters and blanks (accents dropped), for keys."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z ]+", " ", plain).strip()


def _candidates(name: str) -> list[str]:
    """The keys a name may take, the shortest and most telling first."""
    letters = _letters(name)
    words = [w for w in letters.split() if w]
    if not words:
        return []
    first, joined = words[0], "".join(words)
    found = [first[0]]
    if len(words) > 1:
        found.append(first[0] + words[1][0])
    found.extend(first[0] + c for c in joined[1:])
    return list(dict.fromkeys(found))


def assign_keys(names: Sequence[tuple[Any, str]], taken: Iterable[str] = ()) -> dict[Any, str]:
    """A key for each (value, name), distinct and not among `taken`, given in order: each value
    takes the first of its candidates still free (a letter and a digit when none is)."""
    used = set(taken)
    keys: dict[Any, str] = {}
    for value, name in names:
        options = _candidates(name) or ["x"]
        key = next((k for k in options if k not in used), None)
        if key is None:
            key = next(f"{options[0][0]}{n}" for n in range(2, 10_000) if f"{options[0][0]}{n}" not in used)
        keys[value] = key
        used.add(key)
    return keys


def _without_articles(names: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The names without a first word that begins a quarter or more of them (an article, in
    most languages, so that names alike keep keys apart)."""
    firsts: dict[str, int] = {}
    for _, name in names:
        words = _letters(name).split()
        if len(words) > 1:
            firsts[words[0]] = firsts.get(words[0], 0) + 1
    common = {word for word, count in firsts.items() if count >= max(2, len(names) / 4)}
    kept = []
    for value, name in names:
        words = _letters(name).split()
        kept.append((value, " ".join(words[1:]) if len(words) > 1 and words[0] in common else name))
    return kept


class Keys:
    """The keys of every value the pack names, per kind, fixed for a pack and a language."""

    # Kept for the program: `?`, `<`, the passes on (`>`, `>>`) and the digits are never keys of
    # values.
    RESERVED = frozenset({"?", "<", ">", ">>"})

    def __init__(self, narrator: Narrator):
        self.narrator = narrator
        self.by_kind: dict[str, dict[str, str]] = {}
        self.kind_of: dict[str, str] = {}  # each id's kind (the first kind that names it)
        named: dict[str, list[tuple[str, str]]] = {}
        for key, text in narrator.messages.items():
            parts = key.split(".")
            if (
                len(parts) == 3
                and parts[2] == "name"
                and parts[0] in narrator.kinds
                and isinstance(text, str)
            ):
                named.setdefault(parts[0], []).append((parts[1], str(narrator.name(parts[0], parts[1]))))
        for kind, names in named.items():
            self.by_kind[kind] = assign_keys(_without_articles(names))
            for value, _ in names:
                self.kind_of.setdefault(value, kind)
        self.by_kind[VERBS] = assign_keys(self._verb_names())

    def _verb_names(self) -> list[tuple[str, str]]:
        """Each verb of the pack's answers with the words of its first answer (placeholders out)."""
        names = []
        for verb, answers in self.narrator.declared.answers.items():
            template = self.narrator.messages.get(f"ui.action.{answers[0].id}")
            words = _PLACEHOLDER.sub(" ", template) if isinstance(template, str) else verb
            names.append((verb, words))
        return names

    def of(self, value: Any) -> str | None:
        """The fixed key of a value the pack names, or None."""
        kind = self.kind_of.get(str(value))
        return None if kind is None else self.by_kind[kind][str(value)]

    def verb(self, verb: Any) -> str | None:
        return self.by_kind[VERBS].get(str(verb))

    def named_by(self, typed: str) -> list[str]:
        """The ids whose fixed key was typed (any case), of every kind: a key is the same in every
        menu, so it reads about its value wherever it is typed."""
        wanted = typed.strip().casefold()
        return [
            value
            for kind, keys in self.by_kind.items()
            if kind != VERBS
            for value, key in keys.items()
            if key == wanted
        ]


def build_menu(actions: Sequence[Action], narrator: Narrator, keys: Keys) -> list[Entry]:
    """The top menu of these answers: one entry per verb (a group when it has several)."""
    by_verb: dict[Any, list[Action]] = {}
    for action in actions:
        by_verb.setdefault(action[0], []).append(tuple(action))
    if len(by_verb) == 1:
        return _level(actions, narrator, keys, depth=1)
    entries: list[tuple[Entry, str | None]] = []
    for verb, group in by_verb.items():
        if len(group) == 1:
            entry = _leaf(group[0], narrator, keys, _distinct_positions(group, 1))
        else:
            entry = Entry("", _group_label(group, narrator, 1), children=_level(group, narrator, keys, 1))
        entries.append((entry, keys.verb(verb)))
    return _keyed(entries)


def _level(actions: Sequence[Action], narrator: Narrator, keys: Keys, depth: int) -> list[Entry]:
    """A menu of answers that share their first `depth` values."""
    varying = _distinct_positions(actions, depth)
    if len(varying) > 1:
        # Ask the widest question first: group by every varying value but the one with fewest choices.
        # The value asked last names an entity of the pack (a player, a character...).
        named = [p for p in varying if all(keys.of(_at(a, p)) is not None for a in actions)]
        last = min(named or varying, key=lambda p: (len({_at(a, p) for a in actions}), -p))
        groups: dict[Action, list[Action]] = {}
        for action in actions:
            rest = tuple(_at(action, p) for p in varying if p != last)
            groups.setdefault(rest, []).append(action)
        if len(groups) > 1:
            entries: list[tuple[Entry, str | None]] = []
            for group in groups.values():
                if len(group) == 1:
                    entries.append(
                        (_leaf(group[0], narrator, keys, varying), _key_of(group[0], varying, keys))
                    )
                    continue
                children = [
                    (_leaf(a, narrator, keys, [last]), keys.of(_at(a, last)) if last < len(a) else None)
                    for a in group
                ]
                label = _group_label(group, narrator, depth)
                about = _about(group[0], [p for p in varying if p != last], keys)
                entries.append(
                    (
                        Entry("", label, children=_keyed(children), about=about),
                        _key_of(group[0], [p for p in varying if p != last], keys),
                    )
                )
            return _keyed(entries)
    return _keyed([(_leaf(a, narrator, keys, varying), _key_of(a, varying, keys)) for a in actions])


def _at(action: Action, position: int) -> Any:
    return action[position] if position < len(action) else None


def _distinct_positions(actions: Sequence[Action], depth: int) -> list[int]:
    """The positions from `depth` on where the answers' values are not all the same."""
    width = max(len(a) for a in actions)
    return [p for p in range(depth, width) if len({_at(a, p) for a in actions}) > 1]


def _about(action: Action, positions: Sequence[int], keys: Keys) -> str | None:
    """The first value at these positions that the pack names (what `?` reads about)."""
    for position in positions:
        value = _at(action, position)
        if keys.of(value) is not None:
            return str(value)
    return None


def _key_of(action: Action, positions: Sequence[int], keys: Keys) -> str | None:
    about = _about(action, positions, keys)
    return None if about is None else keys.of(about)


def _leaf(action: Action, narrator: Narrator, keys: Keys, positions: Sequence[int]) -> Entry:
    """An answer as an entry; `?` reads about its first value at `positions` the pack names
    (else its first named value at all)."""
    key, params = narrator.declared.action_message(action)
    about = _about(action, positions, keys) or _about(action, range(1, len(action)), keys)
    return Entry("", narrator.text(key, params), action=action, about=about)


def _group_label(group: Sequence[Action], narrator: Narrator, depth: int) -> str:
    """The first answer's words with the values that differ in the group left as `…`."""
    varying = {_at(a, p) for a in group for p in _distinct_positions(group, depth)}
    key, params = narrator.declared.action_message(group[0])
    shown = {name: Verbatim(ELLIPSIS) if value in varying else value for name, value in params.items()}
    return narrator.text(key, shown)


def _keyed(entries: Sequence[tuple[Entry, str | None]]) -> list[Entry]:
    """The entries with their keys: the fixed key of their value when it is free in this menu,
    else one made from their words; a group's entries keep their order."""
    taken: set[str] = set()
    for entry, fixed in entries:
        if fixed is not None and fixed not in taken:
            entry.key = fixed
            taken.add(fixed)
    loose = [(index, entry.label) for index, (entry, _) in enumerate(entries) if not entry.key]
    made = assign_keys(loose, taken)
    for index, (entry, _) in enumerate(entries):
        if not entry.key:
            entry.key = made[index]
    return [entry for entry, _ in entries]


def find(entries: Sequence[Entry], typed: str) -> Entry | None:
    """The entry whose key was typed (any case, blanks around ignored)."""
    wanted = typed.strip().casefold()
    return next((e for e in entries if e.key == wanted), None)

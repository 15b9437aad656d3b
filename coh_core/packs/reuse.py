"""Results of checks reused within one validation run, never answering for anything changed.

`coh validate` checks every shipped overlay applied to the base pack: each composed pack is
mostly the base, unchanged. A check whose result depends only on what it read is run once;
another pack that gives every one of those reads the same answer gets the same result.

Type-checking an effect: the checker reads the pack's symbols (`coh_core.effects.checker.Symbols`)
through mappings that record each key asked for and the value found (or its absence), and each
mapping it went through whole. A later check of the same text, in the same context, against
symbols that answer every recorded read the same way, finds exactly what the first check found.
"Same" is strict: the same type, and mappings equal in the same order (an order can show in a
message), so nothing equal-but-different is ever reused.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any, TypeVar

from coh_core.effects.checker import Finding, Symbols

_MISSING = object()  # a key a mapping did not have
_K = TypeVar("_K")
_V = TypeVar("_V")


_PLAIN = frozenset({str, int, bool, float, type(None)})


def same(one: Any, other: Any) -> bool:
    """Whether two values are equal in every way a check could see: types, and the order of
    mappings and sets. Compared as the bytes pickle writes for each, without its memo (so that
    what is shared inside a value does not matter): bytes that name every type and follow every
    order. A value pickle cannot write is never the same as another."""
    if one is other:
        return True
    kind = type(one)
    if kind in _PLAIN:
        return kind is type(other) and bool(one == other)
    try:
        return written(one) == written(other)
    except Exception:  # not picklable, or nested past what it can write: not known to be the same
        return False


def written(value: Any) -> bytes:
    """The bytes pickle writes for a value, without its memo (raises what pickle raises)."""
    frozen = _frozen(value)
    if frozen:
        found = _WRITTEN.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
    stream = io.BytesIO()
    writer = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
    writer.fast = True  # no memo: equal values write equal bytes, whatever they share
    writer.dump(value)
    written = stream.getvalue()
    if frozen:
        if len(_WRITTEN) > 100_000:
            _WRITTEN.clear()
        _WRITTEN[id(value)] = (value, written)
    return written


def _frozen(value: Any) -> bool:
    """Whether a value can never change: hashable by its content (a tuple, a frozen dataclass of
    such values), not by its identity."""
    if getattr(type(value), "__hash__", None) is _IDENTITY_HASH:
        return False
    try:
        hash(value)
    except TypeError:
        return False
    return True


_IDENTITY_HASH = object.__hash__
# The bytes written for values that never change, by their identity (each kept alive by its entry).
_WRITTEN: dict[int, tuple[Any, bytes]] = {}


class Reads:
    """What one check read: (mapping, key) pairs, and the mappings it went through whole."""

    def __init__(self) -> None:
        self.keys: set[tuple[str, Any]] = set()
        self.wholes: set[str] = set()


class _Recording(Mapping[_K, _V]):
    """A mapping that notes in its recorder's current `Reads` every read made of it."""

    def __init__(self, name: str, inner: Mapping[_K, _V], recorder: _Recorder) -> None:
        self._name = name
        self._inner = inner
        self._recorder = recorder

    def _found(self, key: Any) -> Any:
        self._recorder.reads.keys.add((self._name, key))
        return self._inner.get(key, _MISSING)

    def __getitem__(self, key: _K) -> _V:
        value = self._found(key)
        if value is _MISSING:
            raise KeyError(key)
        return value  # type: ignore[no-any-return]

    def get(self, key: _K, default: Any = None) -> Any:
        value = self._found(key)
        return default if value is _MISSING else value

    def __contains__(self, key: object) -> bool:
        return self._found(key) is not _MISSING

    def _whole(self) -> Mapping[_K, _V]:
        self._recorder.reads.wholes.add(self._name)
        return self._inner

    def __iter__(self) -> Iterator[_K]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())


class _RecordingSet(frozenset[Any]):
    """A set that notes in its recorder's current `Reads` what is read of it: whether it holds a
    value (`in`), or all of it (iterating it, its size). The checker reads sets no other way."""

    _name: str
    _members: dict[Any, bool]
    _recorder: _Recorder

    def __contains__(self, key: object) -> bool:
        self._recorder.reads.keys.add((self._name, key))
        return key in self._members

    def __iter__(self) -> Iterator[Any]:
        self._recorder.reads.wholes.add(self._name)
        return iter(self._members)

    def __len__(self) -> int:
        self._recorder.reads.wholes.add(self._name)
        return len(self._members)


def _recording_set(name: str, members: dict[Any, bool], recorder: _Recorder) -> _RecordingSet:
    found = _RecordingSet(members)
    found._name, found._members, found._recorder = name, members, recorder
    return found


class _Recorder:
    """Symbols whose mappings record what is read of them, into `reads` (set before each check)."""

    def __init__(self, symbols: Symbols) -> None:
        self.reads = Reads()
        self.mappings: dict[str, Mapping[Any, Any]] = {}  # by name: the pack's own, to compare later
        self.scalars: list[Hashable] = []  # everything else, which a reused check must match
        self.reusable = True  # False if one of those cannot be a key: nothing is then reused
        self.symbols = self._wrapped(symbols, "")

    def _wrapped(self, holder: Any, prefix: str) -> Any:
        changes: dict[str, Any] = {}
        for field in dataclasses.fields(holder):
            value = getattr(holder, field.name)
            name = prefix + field.name
            if isinstance(value, Mapping):
                self.mappings[name] = value
                changes[field.name] = _Recording(name, value, self)
            elif isinstance(value, frozenset):  # its members in the order it gives them
                members = dict.fromkeys(value, True)
                self.mappings[name] = members
                changes[field.name] = _recording_set(name, members, self)
            elif dataclasses.is_dataclass(value) and not isinstance(value, type):
                changes[field.name] = self._wrapped(value, name + ".")
            else:
                self.reusable = self.reusable and isinstance(value, Hashable)
                self.scalars.append(value)
        return dataclasses.replace(holder, **changes)


class _Checked:
    """One check's result, what it read, and the mappings (by name) of the symbols it read them of."""

    def __init__(self, reads: Reads, findings: list[Finding], origin: dict[str, Mapping[Any, Any]]):
        self.keys = frozenset(reads.keys)
        self.wholes = frozenset(reads.wholes)
        self.findings = findings
        self.origin = origin


class _Changes:
    """What differs between the mappings of two packs' symbols: the keys whose values differ
    (or that one lacks), and the mappings that differ as a whole (a key, a value, or the order)."""

    def __init__(self, old: dict[str, Mapping[Any, Any]], new: dict[str, Mapping[Any, Any]]) -> None:
        self.keys: set[tuple[str, Any]] = set()
        self.wholes: set[str] = set()
        for name, before in old.items():
            after = new[name]
            if before is after:
                continue
            changed = [
                key
                for key in dict.fromkeys([*before, *after])
                if not same(before.get(key, _MISSING), after.get(key, _MISSING))
            ]
            self.keys.update((name, key) for key in changed)
            if changed or not same(tuple(before), tuple(after)):  # a value, or the order of the keys
                self.wholes.add(name)

    def keep(self, checked: _Checked) -> bool:
        """Whether none of what the check read changed."""
        return checked.keys.isdisjoint(self.keys) and checked.wholes.isdisjoint(self.wholes)


class EffectChecks:
    """Type-check results of effects within one validation run (`enabled=False`: none reused)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.done: dict[Hashable, list[_Checked]] = {}
        self.reused = 0  # how many checks were answered from an earlier one (for tests)

    def symbols(self, symbols: Symbols) -> SymbolsChecks:
        """The checks of one pack's effects, against its symbols."""
        return SymbolsChecks(self, symbols)


class SymbolsChecks:
    """Checks against one pack's symbols: reused when an earlier one holds, else run and kept."""

    def __init__(self, run: EffectChecks, symbols: Symbols) -> None:
        self.run = run
        self.plain = symbols
        recorder = _Recorder(symbols) if run.enabled else None
        self._recorder = recorder if recorder is not None and recorder.reusable else None
        self._changes: dict[int, _Changes] = {}  # since the symbols of each earlier check, by their id

    def _holds(self, checked: _Checked, mappings: dict[str, Mapping[Any, Any]]) -> bool:
        changes = self._changes.get(id(checked.origin))
        if changes is None:  # the origin is kept alive by the check
            changes = self._changes[id(checked.origin)] = _Changes(checked.origin, mappings)
        return changes.keep(checked)

    def findings(self, key: Hashable, check: Callable[[Symbols], list[Finding]]) -> list[Finding]:
        """What `check` finds against the symbols; `key`: everything else the check depends on."""
        recorder = self._recorder
        if recorder is None:
            return check(self.plain)
        key = (key, tuple(recorder.scalars))
        earlier = self.run.done.setdefault(key, [])
        for done in earlier:
            if self._holds(done, recorder.mappings):
                self.run.reused += 1
                return list(done.findings)
        recorder.reads = Reads()
        found = check(recorder.symbols)
        earlier.append(_Checked(recorder.reads, list(found), recorder.mappings))
        return found


class Reuse:
    """What one validation run reuses between the packs it checks (`enabled=False`: nothing,
    every pack is checked whole: the reference the reuse is tested against)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.effects = EffectChecks(enabled)

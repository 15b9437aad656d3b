"""The game log in words: each entry's message key and parameters rendered in one language.

The engine writes `{"key", "turn", "params", "to"?}` entries and no text (DESIGN.md,
principle 8). Parameters are rendered by the type their message declares for them (`types:` in
the pack's `messages`, `ENGINE_TYPES` for the engine's: players, characters, cards... become
their names in the pack's text, see `_BY_TYPE`) and put into the message `log.<key>`.
Rendering never fails: an unknown id shows as itself, a missing message as `[key] params`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from coh_core.i18n import SOURCE_LOCALE, Text, fallback_chain, pick_form
from coh_core.messages import (
    LOG_VARIANTS,
    Named,
    PlaceholderType,
    declared_messages,
    fill,
    log_key,
    parse_type,
)
from coh_core.packs.declarations import declarations_of
from coh_core.packs.model import Pack

Renderer = Callable[["Narrator", Any, Mapping[str, Any]], str]

_PLAYER_KIND = "colour"  # players are their colours, named by the texts `colour.<id>.name`
_SEPARATOR = ", "
_NOTHING = "-"  # an empty list is shown as this, never as an empty string


class Verbatim(str):
    """A parameter already in words (a list the caller rendered): shown as it is."""


class Narrator:
    """Renders log entries and UI strings from a pack's text (English fills any gaps)."""

    def __init__(self, pack: Pack, locale: str = SOURCE_LOCALE) -> None:
        self.pack = pack
        self.locale = locale
        self.declared = declared_messages(pack.section("messages"), declarations_of(pack))
        self.kinds = (_PLAYER_KIND, *pack.entity_kinds())  # what an id of no declared type may be
        self.by_type = {**_BY_TYPE, **{ref: _named(kind) for kind, ref in pack.ref_types().items()}}
        self.renderers: dict[PlaceholderType, Renderer] = {}
        self.messages: dict[str, Text] = {}
        self.forms: dict[str, dict[str, str]] = {}  # a name's grammatical forms, in its text's language
        for step in reversed(fallback_chain(locale)):  # English first, the most specific last
            texts = {k: v for k, v in pack.messages(step).items() if _usable(v)}
            self.messages.update(texts)
            forms = pack.forms(step)
            self.forms.update({k: forms.get(k, {}) for k in texts})

    def lines(self, entries: Iterable[Mapping[str, Any]]) -> list[str]:
        return [self.line(entry) for entry in entries]

    def line(self, entry: Mapping[str, Any]) -> str:
        """One log entry as text."""
        params = entry.get("params")
        params = params if isinstance(params, Mapping) else {}
        return self.text(self._variant(str(entry.get("key")), params), params)

    def _variant(self, key: str, params: Mapping[str, Any]) -> str:
        """The most specific message the pack has for this entry (see `LOG_VARIANTS`)."""
        by = LOG_VARIANTS.get(key)
        if by is None or by not in params:
            return log_key(key)
        specific = f"{key}.{params[by]}"
        value = params.get("value")
        candidates = [f"{specific}.{_raw(value)}"] if isinstance(value, bool) else []
        for candidate in [*candidates, specific]:
            if self.has(log_key(candidate)):
                return log_key(candidate)
        return log_key(key)

    def ui(self, key: str, **params: Any) -> str:
        """A `ui.` string of the play command."""
        return self.text(key, params)

    def has(self, key: str) -> bool:
        """Whether the pack has a text for this key (false means `text` falls back)."""
        return key in self.messages

    def text(self, key: str, params: Mapping[str, Any]) -> str:
        """The message `key` with its parameters rendered, or `[key] name=value ...`."""
        declared = self.declared.texts.get(key)
        types = declared.types if declared is not None else {}
        values = {
            str(name): self.render(types.get(str(name)), value, params) for name, value in params.items()
        }
        template = self.messages.get(key)
        if template is not None:
            return fill(pick_form(template, self.locale, params.get(self.declared.plural_param(key))), values)
        shown = " ".join(f"{name}={value}" for name, value in values.items())
        return f"[{key}] {shown}" if shown else f"[{key}]"

    def render(self, type_: str | None, value: Any, params: Mapping[str, Any]) -> str:
        """One parameter as text, by its declared type (`_plain` without one, or with one that
        does not parse); `params` are all the entry's (a board side is its location's)."""
        if isinstance(value, Verbatim):
            return str(value)
        found = parse_type(type_) if type_ is not None else None
        return (
            self._renderer(found)(self, value, params) if found is not None else _plain(self, value, params)
        )

    def _renderer(self, found: PlaceholderType) -> Renderer:
        renderer = self.renderers.get(found)
        if renderer is None:
            renderer = self.renderers[found] = _renderer(self.by_type, found)
        return renderer

    def name(self, kind: str, value: Any) -> str:
        """The name of an entity of `kind`, or the id itself when the pack has none."""
        key = f"{kind}.{value}.name"
        found = self.messages.get(key)
        return Named(found, self.forms.get(key)) if isinstance(found, str) and found else _raw(value)

    def entity(self, value: Any) -> str:
        """The name of an id of any kind, or of a `location/side` board side."""
        text = str(value)
        location, slash, side = text.partition("/")
        if slash:
            return self.part(
                "part.side", location=self.name("location", location), side=_side_name(self, location, side)
            )
        for kind in self.kinds:
            if isinstance(self.messages.get(f"{kind}.{text}.name"), str):
                return self.name(kind, text)
        return _raw(value)

    def part(self, key: str, **values: str) -> str:
        """A piece of a message (`log.part.*`, `log.item.*`); plain values when the pack lacks it."""
        template = self.messages.get(log_key(key))
        if template is not None:
            return fill(pick_form(template, self.locale, None), values)
        return " ".join(values.values()) or key


def _usable(text: Any) -> bool:
    """A text worth showing: a non-empty string, or plural forms with a non-empty `other`."""
    if isinstance(text, str):
        return bool(text)
    return isinstance(text, dict) and isinstance(text.get("other"), str) and bool(text["other"])


# -- renderers: (narrator, value, all params of the entry) -> text ------------------------------


def _raw(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # as written in the effect language
    text = str(value)
    return text if text else '""'


def _join(texts: Iterable[str]) -> str:
    return _SEPARATOR.join(texts) or _NOTHING


def _named(kind: str) -> Renderer:
    """Ids of one kind (or a list of them) by their names."""

    def render(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
        if isinstance(value, list | tuple):
            return _join(narrator.name(kind, item) for item in value)
        return narrator.name(kind, value)

    return render


def _pairs(part: str, keys: Renderer, values: Renderer) -> Renderer:
    """A mapping as `Red 5, Blue 3`: each entry through the message `log.<part>`."""

    def render(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
        if not isinstance(value, Mapping):
            return _plain(narrator, value, params)
        return _join(
            narrator.part(part, name=keys(narrator, k, params), value=values(narrator, v, params))
            for k, v in value.items()
        )

    return render


def _plain(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
    """A parameter without a renderer of its own: numbers as they are, ids by their names."""
    if isinstance(value, str):
        return narrator.entity(value)
    if isinstance(value, list | tuple):
        return _join(_plain(narrator, item, params) for item in value)
    if isinstance(value, Mapping):
        return _plain_pairs(narrator, value, params)
    return _raw(value)


def _source(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
    """An id of any kind: a location, a colour, or the owner of an effect."""
    return narrator.entity(value)


def _side(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
    """A side of the board named by the entry's `location`."""
    return _side_name(narrator, params.get("location"), value)


def _side_name(narrator: Narrator, location: Any, side: Any) -> str:
    found = narrator.messages.get(f"location.{location}.{side}.name")
    return found if isinstance(found, str) and found else _raw(side)


def _texted(type_name: str) -> Renderer:
    """A value of a type whose values the pack may give texts for, `log.<type>.<value>` (how long
    a trait lasts, an enumeration, the words for a face-down token); one without a text is shown
    as `_plain` shows it."""

    def render(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
        key = f"{type_name}.{_raw(value)}"
        if narrator.has(log_key(key)):
            return narrator.part(key)
        return _plain(narrator, value, params)

    return render


def _phase(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
    """A phase of the turn by its name; the setup and the end of the game by their `ui.` texts."""
    if narrator.has(f"ui.phase.{value}"):
        return narrator.ui(f"ui.phase.{value}")
    return narrator.name("phase", value)


def _number(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
    return _raw(value)


def _listed(each: Renderer) -> Renderer:
    """A list, each entry as `each` shows it (a single value as one entry)."""

    def render(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
        if isinstance(value, list | tuple):
            return _join(each(narrator, item, params) for item in value)
        return each(narrator, value, params)

    return render


_plain_pairs = _pairs("part.score", _plain, _plain)

# The engine's own types and how their values are shown; players, and the types of an `@id` of
# the pack's kinds of entities (`Pack.ref_types`, added per narrator), show names; any other type
# is `_texted`.
_BY_TYPE: dict[str, Renderer] = {
    "player": _named(_PLAYER_KIND),
    "id": _source,  # an id of any kind: the owner of an effect (a character, a card, a board side...)
    "side": _side,
    "phase": _phase,
    **dict.fromkeys(("int", "count", "bool", "text"), _number),
}


def _renderer(by_type: Mapping[str, Renderer], found: PlaceholderType) -> Renderer:
    """How a value of a declared type is shown."""
    if found.name == "list" and len(found.args) == 1:
        return _listed(_renderer(by_type, found.args[0]))
    if found.name == "map" and len(found.args) == 2:
        key, value = (_renderer(by_type, arg) for arg in found.args)
        return _pairs(found.via or "part.score", key, value)
    return by_type.get(found.name) or _texted(found.name)

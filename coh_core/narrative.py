"""The game log in words: each entry's message key and parameters rendered in one language.

The engine writes `{"key", "turn", "params", "to"?}` entries and no text (DESIGN.md,
principle 8). Parameters are rendered by the type their message declares for them (`types:` in
the pack's `messages`, `ENGINE_TYPES` for the engine's: players, characters, cards... become
their names in the pack's text, see `_BY_TYPE`) and put into the message `log.<key>`.
A key is looked up in the pack's texts along the locale's fallback chain, then in the engine's own
(`coh_core.packs.engine_texts`) along the same chain. Rendering never fails: an unknown id shows
as itself, a message neither has as `[key] params`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from coh_core.i18n import SOURCE_LOCALE, Text, fallback_chain, pick_form
from coh_core.messages import (
    LOG_VARIANTS,
    NONE_VARIANT,
    Named,
    PlaceholderType,
    declared_messages,
    fill,
    log_key,
    parse_type,
)
from coh_core.packs.declarations import declarations_of
from coh_core.packs.engine_texts import engine_chain
from coh_core.packs.model import Pack
from coh_core.packs.results import SCORE_PART_TEXTS, result_of, score_part_verbs

Renderer = Callable[["Narrator", Any, Mapping[str, Any]], str]

TURN_START = "turn_start"  # the engine's entry that begins a turn (`ENGINE_LOG`)
SETUP, END = "setup", "end"  # the phases outside the turn (coh_core.engine.flow)
# players are their colours, named by the texts of the kind whose ids are of this type
# (`<kind>.<colour>.name`; the kind `colour` where no kind is of it)
_PLAYER_TYPE = "colour"
_SEPARATOR = ", "
_NOTHING = "-"  # an empty list is shown as this, never as an empty string


class Verbatim(str):
    """A parameter already in words (a list the caller rendered): shown as it is."""


class Narrator:
    """Renders log entries and UI strings from a pack's text, then the engine's own (in the
    locale's fallback chain each: English fills any gaps)."""

    def __init__(self, pack: Pack, locale: str = SOURCE_LOCALE) -> None:
        self.pack = pack
        self.locale = locale
        declared = declarations_of(pack)
        self.declared = declared_messages(pack.section("messages"), declared)
        self.quiet_traits = frozenset(name for name, spec in declared.traits.items() if spec.quiet)
        types = pack.ref_types()
        self.player_kind = next((k for k, t in types.items() if t == _PLAYER_TYPE), _PLAYER_TYPE)
        self.kinds = (self.player_kind, *pack.entity_kinds())  # what an id of no declared type may be
        self.by_type = {
            **_BY_TYPE,
            "player": _named(self.player_kind),
            **{ref: _named(kind) for kind, ref in types.items()},
        }
        self._kind_of: dict[str, str] = {  # an entity's id -> its kind (the first, of ids two share)
            ident: kind for kind in reversed(pack.entity_kinds()) for ident in pack.entities.get(kind, {})
        }
        self.renderers: dict[PlaceholderType, Renderer] = {}
        # The engine's own texts underneath: a text of the pack, in any language of the chain, wins.
        self.messages: dict[str, Text] = {k: v for k, v in engine_chain(locale).items() if _usable(v)}
        self.forms: dict[str, dict[str, str]] = {}  # a name's grammatical forms, in its text's language
        for step in reversed(fallback_chain(locale)):  # English first, the most specific last
            texts = {k: v for k, v in pack.messages(step).items() if _usable(v)}
            self.messages.update(texts)
            forms = pack.forms(step)
            self.forms.update({k: forms.get(k, {}) for k in texts})

    def lines(self, entries: Iterable[Mapping[str, Any]]) -> list[str]:
        return [self.line(entry) for entry in entries]

    def line(self, entry: Mapping[str, Any], phase: str | None = None) -> str:
        """One log entry as text; `phase`, the phase it was written in, may pick a variant."""
        params = entry.get("params")
        params = params if isinstance(params, Mapping) else {}
        return self.text(self._variant(str(entry.get("key")), params, phase), params)

    def quiet(self, entry: Mapping[str, Any], phase: str | None) -> bool:
        """Whether the pack leaves this entry out of the narrative: in that phase (`quiet_in`), as
        the change of a trait it declares `quiet`, or as an entry of the engine's it does not tell
        (the chance events, unless it asks for them: `engine_log`)."""
        key = str(entry.get("key"))
        if key in self.declared.hushed:  # a chance event the pack does not tell, or one it quiets
            return True
        if key in LOG_VARIANTS:
            params = entry.get("params")
            by = params.get(LOG_VARIANTS[key]) if isinstance(params, Mapping) else None
            if by in self.quiet_traits:
                return True
        return phase in self.declared.quiet.get(key, ())

    def story(
        self, entries: Sequence[Mapping[str, Any]], places: Sequence[Any] = (), start: int = 0
    ) -> list[str]:
        """The entries as a narrative with headings: the setup, each phase of a turn, each
        location of a phase played location by location, the end. `places` holds, entry by
        entry, where it was written (`Game.places`, `View.places`: [phase, location or None]);
        entries beyond it (a game saved before it was kept) get no heading. Only the entries from
        `start` on are told (the news since a player last looked), with the headings they need
        after those before: the story told in pieces is the story told at once."""
        told: list[str] = []
        shown: tuple[Any, Any] = (None, None)  # the phase and location of the last heading
        for index, entry in enumerate(entries):
            phase, at = _place(places[index] if index < len(places) else None)
            if self.quiet(entry, phase):
                continue
            lines: list[str] = []
            if entry.get("key") == TURN_START:  # the turn's own heading: its phases follow
                shown = (phase, at)  # what happens as the turn begins, before its first phase
            elif phase is not None and (phase, at) != shown:
                lines.extend(self._headings(phase, at, shown))
                shown = (phase, at)
            lines.append(self.line(entry, phase))
            if index >= start:
                told.extend(lines)
        return told

    def _headings(self, phase: str, at: Any, shown: tuple[Any, Any]) -> list[str]:
        """The headings before an entry written in `phase` (at `at`) after the heading `shown`."""
        found = []
        if phase != shown[0]:
            if phase in (SETUP, END):
                found.append(self.part(f"heading.{phase}"))
            else:
                found.append(self.part("heading.phase", phase=_phase(self, phase, {})))
        if at is not None:
            found.append(self.part("heading.location", location=self.name(self.kind_of(at), at)))
        return found

    def _variant(self, key: str, params: Mapping[str, Any], phase: str | None = None) -> str:
        """The most specific message the pack has for this entry: its variant for the phase it
        was written in, for a plural number of 0 (`none`), then `LOG_VARIANTS`'s."""
        variants = self.declared.variants.get(key)
        if variants:
            if phase in variants:
                return log_key(f"{key}.{phase}")
            if NONE_VARIANT in variants and params.get(self.declared.plural_param(log_key(key))) == 0:
                return log_key(f"{key}.{NONE_VARIANT}")
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

    def player(self, colour: Any) -> str:
        """A player's name: their colour's."""
        return self.name(self.player_kind, colour)

    def kind_of(self, value: Any) -> str:
        """The kind of the pack's entity of that id ("" for none)."""
        return self._kind_of.get(str(value), "")

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
                "part.side",
                location=self.name(self.kind_of(location), location),
                side=_side_name(self, location, side),
            )
        for kind in self.kinds:
            if isinstance(self.messages.get(f"{kind}.{text}.name"), str):
                return self.name(kind, text)
        return _raw(value)

    def part(self, key: str, number: Any = None, **values: str) -> str:
        """A piece of a message (`log.part.*`, `log.item.*`), in its plural form for `number`;
        plain values when the pack lacks it."""
        template = self.messages.get(log_key(key))
        if template is not None:
            return fill(pick_form(template, self.locale, number), values)
        return " ".join(values.values()) or key


def _place(place: Any) -> tuple[str | None, Any]:
    """The phase and location of a `Game.places` entry; (None, None) for one not kept."""
    if isinstance(place, list | tuple) and len(place) == 2:
        return (str(place[0]) if place[0] is not None else None), place[1]
    return None, None


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


def _pairs(part: str, keys: Renderer, values: Renderer, by: str = "") -> Renderer:
    """A mapping as `Red 5, Blue 3`: each entry through the message `log.<part>`, whose `{count}`
    (which picks its plural form) is the entry's map `by` at the same key, else 1 (an entry
    counts once)."""

    def render(narrator: Narrator, value: Any, params: Mapping[str, Any]) -> str:
        if not isinstance(value, Mapping):
            return _plain(narrator, value, params)
        counts = params.get(by) if by else None
        counts = counts if isinstance(counts, Mapping) else {}
        return _join(
            narrator.part(
                part,
                counts.get(k, 1),
                name=keys(narrator, k, params),
                value=values(narrator, v, params),
                count=_raw(counts.get(k, 1)),
            )
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
    found = narrator.messages.get(f"{narrator.kind_of(location)}.{location}.{side}.name")
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
        return _pairs(found.via or "part.score", key, value, found.by)
    return by_type.get(found.name) or _texted(found.name)


# -- the scoreboard ------------------------------------------------------------------------------


def score_parts(pack: Pack) -> list[str]:
    """The ids of the pack's verbs that are parts of the score (`scoreboard: part`), in order."""
    return [verb.id for verb in score_part_verbs(pack)]


def breakdown(game: Any, pack: Pack) -> dict[str, dict[str, int]]:
    """Each player's score part by part, as the pack's part verbs count it on the game as it is."""
    from coh_core.engine import compiler_for
    from coh_core.engine.runtime import Rt
    from coh_core.limits import MAX_WORK

    parts = score_parts(pack)
    if not parts:
        return {}
    compiler = compiler_for(pack)
    calls = {part: compiler.selector_call(part) for part in parts}
    game.work_left = MAX_WORK  # (the parts read once the game is over: a budget of their own)
    return {
        player: {part: calls[part](Rt(game, {}, None), player) for part in parts} for player in game.players
    }


def standings(
    result: Mapping[str, Any], players: Sequence[str], tie_breaks: Sequence[str] = ()
) -> list[tuple[int, str]]:
    """(rank, player) from the best score down; of equal scores, ordered by the tie-breaks
    (`tie_breaks`: their ids, in the order the pack declares them), a higher value first; equal in
    all, the same rank."""
    scores = result.get("scores") or {}
    values = [(result.get("tie_breaks") or {}).get(name) or {} for name in tie_breaks]

    def key(player: str) -> tuple[int, ...]:
        return (-int(scores.get(player, 0)), *(-int(by.get(player, 0)) for by in values))

    order = sorted(players, key=key)
    ranked: list[tuple[int, str]] = []
    for index, player in enumerate(order):
        tied = index > 0 and key(order[index - 1]) == key(player)
        ranked.append((ranked[-1][0] if tied else index + 1, player))
    return ranked


def scoreboard(game: Any, narrator: Narrator) -> list[str]:
    """What a game came to, as its pack declares it: for a team, whether it won; for a ranking,
    the heading, a line per player from the best (with the parts of their score and their
    tie-break values), how a tie at the top was broken, and the winners. Nothing for a pack that
    declares no result."""
    declared = result_of(game.rules.pack)
    result = game.state.get("result") or {}
    lines: list[str] = []
    if declared is None:
        return lines
    if declared.team:
        lines.append(narrator.ui("ui.team.won" if result.get("won") else "ui.team.lost"))
    if declared.ranked:
        lines.extend(_ranking(game, narrator, result, [t.id for t in declared.tie_breaks]))
    return lines


def _ranking(
    game: Any, narrator: Narrator, result: Mapping[str, Any], tie_breaks: Sequence[str]
) -> list[str]:
    """The ranking's lines of the scoreboard."""
    scores, winners = result.get("scores") or {}, result.get("winners") or []
    values = result.get("tie_breaks") or {}
    names = {ident: narrator.name(TIE_BREAK, ident) for ident in tie_breaks}
    parts = breakdown(game, game.rules.pack)
    # a score without parts is shown without them (`.plain`); the tie-breaks' values after it
    row_key = "ui.scoreboard.row" + ("" if score_parts(game.rules.pack) else ".plain")
    row_key += ".tie_breaks" if tie_breaks else ""
    lines = [narrator.ui("ui.scoreboard.title")]
    for rank, player in standings(result, game.players, tie_breaks):
        row = {
            "rank": rank,
            "player": player,
            "score": scores.get(player, 0),
            "winner_mark": "*" if player in winners else " ",
        }
        if parts:
            row["parts"] = _parts(narrator, "part.score_part", parts.get(player, {}).items(), {})
        if tie_breaks:
            shown = [(ident, (values.get(ident) or {}).get(player, 0)) for ident in tie_breaks]
            row["tie_breaks"] = _parts(narrator, "part.tie_break", shown, names)
        lines.append(narrator.ui(row_key, **row))
    best = max(scores.values(), default=None)
    tied = [player for player in game.players if scores.get(player) == best]
    if len(winners) > 1:
        if tie_breaks:
            every = Verbatim(_join(names.values()))
            lines.append(
                narrator.ui(
                    "ui.scoreboard.tie.shared.tie_breaks", players=winners, score=best, tie_breaks=every
                )
            )
        else:
            lines.append(narrator.ui("ui.scoreboard.tie.shared", players=winners, score=best))
    elif len(tied) > 1:
        deciding = _deciding(values, tied, tie_breaks)
        if deciding is not None:
            lines.append(
                narrator.ui(
                    "ui.scoreboard.tie", players=tied, score=best, tie_break=Verbatim(names[deciding])
                )
            )
    lines.append(narrator.ui("ui.winners", players=winners))
    return lines


TIE_BREAK = "tie_break"  # a tie-break's name is its text `tie_break.<id>.name`


def _parts(
    narrator: Narrator, part: str, entries: Iterable[tuple[str, Any]], names: Mapping[str, str]
) -> Verbatim:
    """Named values through a log part (`{name} {value}`), joined; a score part is named by its
    text `log.scoring.<id>`, anything else by `names`."""
    return Verbatim(
        _join(
            narrator.part(
                part, name=names.get(ident) or narrator.part(f"{SCORE_PART_TEXTS}.{ident}"), value=str(value)
            )
            for ident, value in entries
        )
    )


def _deciding(values: Mapping[str, Any], tied: Sequence[str], tie_breaks: Sequence[str]) -> str | None:
    """The first tie-break on which the players tied on the best score differ (None: none does)."""
    for ident in tie_breaks:
        by = values.get(ident) or {}
        if len({by.get(player, 0) for player in tied}) > 1:
            return ident
    return None

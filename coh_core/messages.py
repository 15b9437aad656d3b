"""The messages a game shows: the pack declares those of its rules, coh_core only the engine's.

The game log holds message keys and parameters, never text (DESIGN.md, principle 8). A pack
declares in its `messages` section each log entry, piece of a log entry, question and answer
its rules use, with the placeholders of its text and notes for translators. Declared here are
only the messages of the engine itself, whatever the game: a turn begins, an effect finds
nothing to act on, a player leaves the game, the game is over, the `choose` primitive's
question and answer, the play command's table and scoreboard, and the CLI's own strings.

Each key has a text in every language pack, under `log.<key>` for the log and as is for `ui.`
keys, and that text uses exactly the declared placeholders: `coh validate` checks both
(TEXT-MISSING, TEXT-UNKNOWN, TEXT-PLACEHOLDER), `coh_core.narrative` renders them, and
`coh i18n template` writes each note above the entry it explains.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from coh_core.effects.registry import Declarations
from coh_core.i18n import DEFAULT_PLURAL_PARAM


@dataclass(frozen=True)
class Message:
    """A text a game shows: its key, the placeholders its text uses, and notes for translators."""

    key: str  # `log.<id>`, `ui.decision.<id>`, `ui.action.<id>`, `ui.<...>`
    params: tuple[str, ...] = ()
    note: str = ""  # where the message appears
    holds: Mapping[str, str] = field(default_factory=dict)  # placeholder -> what it holds
    plural: str = DEFAULT_PLURAL_PARAM  # the placeholder whose number picks a plural form
    carries: tuple[str, ...] = ()  # values a log entry also holds that its text does not show


@dataclass(frozen=True)
class Answer:
    """How one kind of answer reads (`ui.action.<id>`): its values fill the placeholders in order."""

    id: str
    params: tuple[str, ...] = ()
    key_at: int | None = None  # the position (from 1) of the value that is the id's last part

    @property
    def verb(self) -> str:
        """What the answer begins with: the id, less its last part when a value names it."""
        return self.id.rsplit(".", 1)[0] if self.key_at else self.id

    def read(self, values: Sequence[Any]) -> dict[str, Any] | None:
        """The placeholders' values of an answer of this kind, or None if it is of another."""
        rest = list(values)
        if self.key_at is not None:
            if len(rest) < self.key_at or f"{self.verb}.{rest[self.key_at - 1]}" != self.id:
                return None
            del rest[self.key_at - 1]
        if len(rest) < len(self.params):
            return None
        return dict(zip(self.params, rest, strict=False))  # values beyond the placeholders are not shown


@dataclass(frozen=True)
class DeclaredMessages:
    """Every message of a pack: the engine's and those its `messages` section declares."""

    texts: Mapping[str, Message]  # by text key
    log: Mapping[str, tuple[str, ...]]  # log entries by id (what `log(id, ...)` may write): placeholders
    answers: Mapping[str, tuple[Answer, ...]]  # by the verb an answer begins with, in declaration order
    carried: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # log entries by id: unshown values

    def questions(self) -> dict[str, tuple[str, ...]]:
        """The decisions by id (what `ask(..., question=id)` may put): their placeholders.

        A decision declared only in variants (`vote.attack`, `vote.sharing`) is put as `vote`,
        its `purpose` naming the variant (the terminal shows `ui.decision.vote.attack`): its
        placeholders are those of its variants, then `purpose`.
        """
        prefix = GROUPS["decisions"]
        found = {k[len(prefix) :]: m.params for k, m in self.texts.items() if k.startswith(prefix)}
        variants: dict[str, tuple[str, ...]] = {}
        for ident, params in found.items():
            base, dot, _ = ident.rpartition(".")
            if dot and base not in found:
                known = variants.get(base, ())
                variants[base] = (*known, *(p for p in params if p not in known))
        return {**found, **{base: (*params, PURPOSE) for base, params in variants.items()}}

    def plural_param(self, key: str) -> str:
        """The parameter whose number picks the plural form of the text `key`."""
        found = self.texts.get(key)
        return found.plural if found is not None else DEFAULT_PLURAL_PARAM

    def action_message(self, action: Sequence[Any]) -> tuple[str, dict[str, Any]]:
        """The text key of an answer and its parameters (`ui.action.other` for one not declared)."""
        verb, *values = action
        for answer in self.answers.get(str(verb), ()):
            params = answer.read(values)
            if params is not None:
                return f"ui.action.{answer.id}", params
        return "ui.action.other", {"value": " ".join(str(v) for v in action)}


# -- the engine's own messages -----------------------------------------------------------------

# Log entries the engine writes whatever the game: key -> placeholders.
ENGINE_LOG: dict[str, tuple[str, ...]] = {
    "effect_fizzled": ("source",),
    "game_over": (),
    "player_eliminated": ("player",),
    "turn_start": ("turn",),
    "trait_set": ("character", "trait", "value", "until"),  # by `set_trait`: see log_variant_messages
}


def log_variant_messages(declared: Declarations) -> dict[str, tuple[str, ...]]:
    """`trait_set.<trait>` for number traits, `trait_set.<trait>.<true|false>` for yes/no ones.

    The trait is in the key, and so is a yes/no value; a number stays a placeholder.
    """
    found: dict[str, tuple[str, ...]] = {}
    for name, spec in declared.traits.items():
        if spec.type == "bool":
            found[f"trait_set.{name}.true"] = found[f"trait_set.{name}.false"] = ("character", "until")
        else:
            found[f"trait_set.{name}"] = ("character", "value", "until")
    return found


# Log entries told differently by the value of one parameter: the narrator uses the most specific
# of `log.<key>.<value>` (and, for a yes/no `value`, `log.<key>.<value>.<true|false>`) it finds.
LOG_VARIANTS: dict[str, str] = {"trait_set": "trait"}


def log_parts(declared: Declarations) -> dict[str, tuple[str, ...]]:
    """Pieces the narrator puts inside the engine's log messages (texts under `log.<key>` too):
    `until.<duration>` for each value of the pack's `duration`, how long a trait lasts."""
    return {f"until.{value}": () for value in declared.members("duration") or {}}


# Strings of the play command outside the log.
UI_MESSAGES: dict[str, tuple[str, ...]] = {
    "ui.turn": ("turn",),
    "ui.scoreboard.title": (),
    "ui.scoreboard.row": ("rank", "player", "score", "living", "winner_mark"),
    "ui.winners": ("players",),
}

PURPOSE = "purpose"  # the value of a question's prompt that names which of its variants it is

# What the terminal asks: `ui.decision.<kind>`, or `ui.decision.<kind>.<purpose>` when the prompt
# has a purpose the pack has a text for; `ui.decision.other` for a kind without a text. The pack
# declares its own kinds; `choose` is the question of the `choose` primitive.
DECISION_MESSAGES: dict[str, tuple[str, ...]] = {
    "ui.decision.choose": ("source",),
    "ui.decision.other": ("kind",),
}

# How the engine's answers read (the pack declares its own); `ui.action.other` for any other.
ENGINE_ANSWERS: tuple[Answer, ...] = (Answer("choose", ("value",)),)
ACTION_MESSAGES: dict[str, tuple[str, ...]] = {
    **{f"ui.action.{a.id}": a.params for a in ENGINE_ANSWERS},
    "ui.action.other": ("value",),
}

# The terminal's table and prompt.
TABLE_MESSAGES: dict[str, tuple[str, ...]] = {
    "ui.table.header": ("turn", "phase", "first", "leader"),
    "ui.table.location": ("location", "side", "zombies", "characters"),
    "ui.table.items": ("antidotes", "cards"),
    "ui.table.character": ("character", "player"),
    "ui.table.character.exhausted": ("character", "player"),
    "ui.table.hand": ("cards",),
    "ui.table.tokens": ("antidotes", "food"),
    "ui.prompt": (),
    "ui.prompt.range": ("low", "high"),
    "ui.play.input_ended": (),  # the person at the terminal closed the input
    "ui.play.interrupted": (),  # ... or pressed Ctrl-C
    "ui.food.face_down": (),
    "ui.phase.setup": (),  # the phases outside the pack's turn: setup and the end of the game
    "ui.phase.end": (),  # a food token taken without seeing it
}

# `coh list`, `coh show` and the `coh validate` summary.
_COLUMNS = (
    "id", "name", "rested", "exhausted", "when", "disadvantage", "count", "symbols", "slot",
    "sides", "hour", "provenance",
)  # fmt: skip
CLI_MESSAGES: dict[str, tuple[str, ...]] = {
    **{f"ui.column.{name}": () for name in _COLUMNS},
    "ui.yes": (),
    "ui.list.footer.actions": ("kinds", "count"),
    "ui.list.footer.characters": ("count",),
    "ui.list.footer.locations": ("count",),
    **{f"ui.slot.{name}": () for name in ("tower", "corner", "centre")},
    **{f"ui.provenance.{name}": () for name in ("printed", "invented", "rulebook_example")},
    "ui.show.header": ("name", "kind", "id", "file"),
    "ui.show.value": ("rested", "exhausted"),
    "ui.show.power": ("window", "text"),
    "ui.show.disadvantage": ("text",),
    "ui.show.traits": ("traits",),
    "ui.show.cards": ("count", "window"),
    "ui.show.symbols": ("symbols",),
    "ui.show.slot": ("slot",),
    "ui.show.side": ("name", "side", "facts"),
    "ui.show.side.effect": ("text",),
    "ui.show.side.special": ("text",),
    "ui.show.side.attack": ("text",),
    "ui.show.hour": ("hour", "provenance"),
    "ui.show.moves": ("moves",),
    "ui.show.trigger": ("event",),
    "ui.show.trigger.after_action": ("event",),
    "ui.fact.capacity": ("count",),
    "ui.fact.no_limit": (),
    "ui.fact.closed": (),
    "ui.fact.locked": (),
    "ui.fact.state_of": ("sides",),
    "ui.side.state_of": ("sides",),
    "ui.hour": ("hour",),
    "ui.validate.read": ("where",),
    "ui.validate.ok": ("counts",),
    "ui.validate.problems": ("problems", "counts"),
    **{
        f"ui.validate.count.{name}": ("count",)
        for name in ("packs", "entities", "effects", "files", "problems", "warnings")
    },
}

# A placeholder is anything between single braces; the check reports odd ones like `{ x }`.
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def log_key(key: str) -> str:
    """The text key of a log entry's (or a log part's) message."""
    return f"log.{key}"


def cli_messages(declared: Declarations) -> dict[str, tuple[str, ...]]:
    """CLI_MESSAGES, and `ui.window.<window>` for each timing window of the pack."""
    return {**CLI_MESSAGES, **{f"ui.window.{name}": () for name in declared.windows}}


# What translators read above the engine's messages (the pack's carry their own notes):
# where the message appears, and what its placeholders hold.
_NOTES: dict[str, tuple[str, dict[str, str]]] = {
    "log.effect_fizzled": ("An effect had nothing to act on.", {"source": "whose effect it was"}),
    "log.game_over": ("The last entry of every game.", {}),
    "log.player_eliminated": ("A player leaves the game for good.", {"player": "the player"}),
    "log.turn_start": ("The first entry of each turn.", {"turn": "the turn's number"}),
    "log.trait_set": (
        "A trait changes, where the pack has no text `trait_set.<trait>` for it.",
        {"trait": "the trait's name as the pack writes it", "until": "how long, from `log.until.*`"},
    ),
    "ui.decision.choose": ("An effect asks the player to choose.", {"source": "whose effect it is"}),
    "ui.decision.other": (
        "A question the pack has no text for.",
        {"kind": "its kind, as the engine names it"},
    ),
    "ui.action.choose": ("One option of a choice.", {"value": "the option"}),
    "ui.action.other": (
        "An answer the pack has no text for.",
        {"value": "the answer, as the engine writes it"},
    ),
}


def engine_texts(declared: Declarations) -> dict[str, Message]:
    """The engine's messages by text key, for a pack with these declarations (the variants of its
    traits, its durations, its windows); a number trait's variant picks its form by its value."""
    variants = log_variant_messages(declared)
    keys: dict[str, tuple[str, ...]] = {
        **{log_key(k): v for k, v in ENGINE_LOG.items()},
        **{log_key(k): v for k, v in variants.items()},
        **{log_key(k): v for k, v in log_parts(declared).items()},
        **UI_MESSAGES,
        **DECISION_MESSAGES,
        **ACTION_MESSAGES,
        **TABLE_MESSAGES,
        **cli_messages(declared),
    }
    plural = {log_key(k): "value" for k, v in variants.items() if "value" in v}
    found = {}
    for key, params in keys.items():
        note, holds = _NOTES.get(key, ("", {}))
        found[key] = Message(key, params, note, holds, plural.get(key, DEFAULT_PLURAL_PARAM))
    return found


# -- the pack's messages -----------------------------------------------------------------------

# The groups of a pack's `messages` section, and the prefix each puts before an id for its text key.
GROUPS: dict[str, str] = {
    "log": "log.",
    "parts": "log.",
    "decisions": "ui.decision.",
    "answers": "ui.action.",
    "screens": "ui.",
}


def declarations(section: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Each message of a `messages` section as (group, id, declaration), skipping malformed ones."""
    for group in GROUPS:
        entries = section.get(group)
        for message_id, spec in (entries if isinstance(entries, dict) else {}).items():
            if isinstance(spec, dict):
                yield group, str(message_id), spec


def declared_message(group: str, message_id: str, spec: Mapping[str, Any]) -> Message:
    """One declaration of a `messages` section as a message."""
    holds = spec.get("params")
    holds = {str(k): str(v) for k, v in holds.items()} if isinstance(holds, dict) else {}
    plural = spec.get("plural")
    if not isinstance(plural, str) or plural not in holds:  # MSG-PLURAL reports one that is no placeholder
        plural = DEFAULT_PLURAL_PARAM
    carries = spec.get("carries")
    return Message(
        GROUPS[group] + message_id,
        tuple(holds),
        str(spec.get("note", "")),
        holds,
        str(plural),
        tuple(str(k) for k in carries) if isinstance(carries, dict) else (),
    )


def declared_messages(section: Mapping[str, Any], declared: Declarations) -> DeclaredMessages:
    """The engine's messages (for a pack with these declarations) and those of a pack's `messages`
    section (where both declare a key, the engine's stands: MSG-DUPLICATE reports it)."""
    engine = engine_texts(declared)
    texts: dict[str, Message] = {}
    log: dict[str, tuple[str, ...]] = {}
    carried: dict[str, tuple[str, ...]] = {}
    answers: dict[str, list[Answer]] = {a.verb: [a] for a in ENGINE_ANSWERS}
    for group, message_id, spec in declarations(section):
        message = declared_message(group, message_id, spec)
        if message.key in engine or message.key in texts:
            continue
        texts[message.key] = message
        if group == "log":
            log[message_id] = message.params
            if message.carries:
                carried[message_id] = message.carries
        elif group == "answers":
            key_at = spec.get("key_at")
            answer = Answer(message_id, message.params, key_at if isinstance(key_at, int) else None)
            answers.setdefault(answer.verb, []).append(answer)
    return DeclaredMessages(
        {**texts, **engine},
        {**log, **ENGINE_LOG},
        {verb: tuple(found) for verb, found in answers.items()},
        carried,
    )


def placeholders(text: str) -> list[str]:
    """The placeholder names a message text uses, in order, repeats included."""
    return _PLACEHOLDER.findall(text)


def fill(text: str, values: dict[str, str]) -> str:
    """Replace each `{name}` by its value; placeholders without a value stay as they are."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

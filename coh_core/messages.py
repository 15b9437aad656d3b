"""The messages a game shows: the pack declares those of its rules, coh_core only the engine's.

The game log holds message keys and parameters, never text (DESIGN.md, principle 8). A pack
declares in its `messages` section each log entry, piece of a log entry, question, answer and
table text its rules use, with the placeholders of its text, their types (`parse_type`: how a
value is shown) and notes for translators. Declared here are
only the messages of the engine itself, whatever the game: a turn begins, an effect finds
nothing to act on, a player leaves the game, the game is over, the `choose` primitive's
question and answer, the play command's table, menus and scoreboard, and the CLI's own strings.

A message's text is under `log.<key>` for the log and as is for `ui.` keys, and uses exactly
the declared placeholders (`coh validate`: TEXT-MISSING, TEXT-UNKNOWN, TEXT-PLACEHOLDER). The
pack writes those of its own messages; coh writes the engine's (`coh_core/text/<locale>.yaml`,
see `coh_core.packs.engine_texts`) but those named after the pack's declarations and the
scoreboard's, and a pack's text for an engine key rewords coh's. `coh_core.narrative` renders
them, and `coh i18n template` (and `tools/engine_texts.py`, for coh's own files) writes each
note above the entry it explains.
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
    types: Mapping[str, str] = field(default_factory=dict)  # placeholder -> its type (`parse_type`)


@dataclass(frozen=True)
class Answer:
    """How one kind of answer reads (`ui.action.<id>`): its values fill the placeholders in order."""

    id: str
    params: tuple[str, ...] = ()
    key_at: int | None = None  # the position (from 1) of the value that is the id's last part
    moves_to: str | None = None  # the placeholder naming the place the answer moves a piece to

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
    # log entries by id: their variants (`NONE_VARIANT`, or a phase they are told otherwise in)
    variants: Mapping[str, frozenset[str]] = field(default_factory=dict)
    quiet: Mapping[str, frozenset[str]] = field(default_factory=dict)  # log entries by id: phases untold
    # the engine's log entries the narrative never tells: those `UNTOLD` the pack does not ask for,
    # and any the pack says `told: false` of (`engine_log`)
    hushed: frozenset[str] = frozenset()
    # questions by id whose answers each move a piece to the place one of the question's values
    # names: that value's placeholder (`moves_to` of `decisions`)
    question_moves: Mapping[str, str] = field(default_factory=dict)

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

    def destination(self, action: Sequence[Any], question: Mapping[str, Any] | None = None) -> Any:
        """The place an answer moves a piece to, or None: its value of the answer's `moves_to`,
        else the asked `question`'s (a decision as a view shows it: its `kind` and `prompt`) of
        the question's `moves_to`."""
        verb, *values = action
        for answer in self.answers.get(str(verb), ()):
            params = answer.read(values)
            if params is not None and answer.moves_to is not None:
                return params.get(answer.moves_to)
        if question is None:
            return None
        placeholder = self.question_moves.get(str(question.get("kind")))
        prompt = question.get("prompt")
        return prompt.get(placeholder) if placeholder is not None and isinstance(prompt, Mapping) else None


# -- the engine's own messages -----------------------------------------------------------------

# The types of the placeholders of the engine's own messages, by name (a pack's messages declare
# theirs: `types:`); a placeholder of neither kind is shown as `coh_core.narrative` guesses.
ENGINE_TYPES: dict[str, str] = {
    "source": "id",
    "player": "player",
    "players": "list[player]",
    "character": "character",
    "location": "location",
    "side": "side",
    "phase": "phase",
    "turn": "int",
    "count": "int",
    "low": "int",
    "high": "int",
    "rank": "int",
    "score": "int",
    "until": "duration",
    "keys": "text",
    "asked": "text",
    "answer": "text",
    "card": "id",  # a card, by the name of its kind of entity
    "recipient": "player",
    "item": "item",  # what is given: a card, or a counter the pack names (`log.item.<value>`)
    "dice": "list[int]",
}

# Log entries the engine writes whatever the game: key -> placeholders. Some the engine writes
# whatever the pack (a turn begins, the game is over), others through the primitives a pack calls
# (`move_character`, `kill_character`, `rest`, `exhaust`, `flip_board`, a card played or
# cancelled, a piece's ability used, a gift in a window) and the chance events (`CHANCE`).
ENGINE_LOG: dict[str, tuple[str, ...]] = {
    "effect_fizzled": ("source",),
    "game_over": (),
    "player_eliminated": ("player",),
    "turn_start": ("turn",),
    "trait_set": ("character", "trait", "value", "until"),  # by `set_trait`: see log_variant_messages
    "character_moved": ("character", "location"),
    "character_died": ("character", "player", "location"),
    "character_rested": ("character",),
    "character_exhausted": ("character",),
    "board_flipped": ("location", "side"),
    "card_played": ("player", "card"),
    "card_cancelled": ("player", "card"),
    "power_used": ("player", "character"),
    "gift": ("player", "recipient", "item"),
    "chance.roll": ("player", "dice"),
    "chance.draw": ("count",),
    "chance.shuffle": ("count",),
}

# Values some of the engine's log entries also hold that their texts do not show: key -> names
# (`log(character_moved, ..., player=p)` may give them too).
ENGINE_CARRIES: dict[str, tuple[str, ...]] = {
    "character_moved": ("player",),
    "chance.roll": ("sides",),
    "chance.shuffle": ("pile",),
}

# The chance events (issue 28): each roll, random draw and shuffle is an entry of the engine's,
# shown to everyone, holding what it reveals: a roll its dice; a draw, how many it was among (the
# item drawn is revealed by what the pack then does with it: its own entries, its piles' `sees`);
# a shuffle, how many were shuffled (the order stays hidden). The narrative does not tell them
# unless the pack asks for it (`told: true` in its `engine_log`).
CHANCE = ("chance.roll", "chance.draw", "chance.shuffle")
UNTOLD: frozenset[str] = frozenset(CHANCE)  # the engine's entries told only where a pack asks


def log_variant_messages(declared: Declarations) -> dict[str, tuple[str, ...]]:
    """`trait_set.<trait>` for number traits, `trait_set.<trait>.<true|false>` for yes/no ones.

    The trait is in the key, and so is a yes/no value; a number stays a placeholder.
    """
    found: dict[str, tuple[str, ...]] = {}
    for name, spec in declared.traits.items():
        if spec.quiet:  # never told: no text of its own
            continue
        if spec.type == "bool":
            found[f"trait_set.{name}.true"] = found[f"trait_set.{name}.false"] = ("character", "until")
        else:
            found[f"trait_set.{name}"] = ("character", "value", "until")
    return found


# Log entries told differently by the value of one parameter: the narrator uses the most specific
# of `log.<key>.<value>` (and, for a yes/no `value`, `log.<key>.<value>.<true|false>`) it finds.
LOG_VARIANTS: dict[str, str] = {"trait_set": "trait"}


DURATION = "duration"  # the pack's enumeration of how long a trait change lasts (`set_trait`'s `until`)


def log_parts(declared: Declarations) -> dict[str, tuple[str, ...]]:
    """Pieces the narrator puts inside the engine's log messages (texts under `log.<key>` too):
    `duration.<value>` for each value of the pack's `duration`, how long a trait lasts; and the
    narrative's headings (`HEADINGS`)."""
    return {
        **{f"{DURATION}.{value}": () for value in declared.members(DURATION) or {}},
        **HEADINGS,
        **ENGINE_PARTS,
    }


# The narrative's headings between log entries (texts `log.<key>`): the setup, each phase of a
# turn (a turn begins with its `turn_start` entry), each location of a phase played location by
# location, the end of the game; and the part that tells one part of a player's score.
HEADINGS: dict[str, tuple[str, ...]] = {
    "heading.setup": (),
    "heading.phase": ("phase",),
    "heading.location": ("location",),
    "heading.end": (),
    "part.score_part": ("name", "value"),
    "part.tie_break": ("name", "value"),
}

# Pieces of the engine's log entries: what is given, when it is a card (`gift`'s `item`; the pack
# names its counters' items, `item.<counter item>`).
ENGINE_PARTS: dict[str, tuple[str, ...]] = {"item.card": ()}

# The variant of a log message told when its plural number is 0 (`variants: {none: ...}`); a
# message's other variants are named after the phases (or `setup`, `end`) they are told in.
NONE_VARIANT = "none"


# Strings of the play command outside the log.
UI_MESSAGES: dict[str, tuple[str, ...]] = {
    "ui.turn": ("turn",),
    # the result a pack declares (coh_core.packs.results): a ranking, a team's, or both
    "ui.scoreboard.title": (),
    "ui.scoreboard.row": ("rank", "player", "score", "winner_mark", "parts"),
    "ui.scoreboard.row.tie_breaks": ("rank", "player", "score", "winner_mark", "parts", "tie_breaks"),
    # of a game whose score has no parts (no verb marked `scoreboard: part`)
    "ui.scoreboard.row.plain": ("rank", "player", "score", "winner_mark"),
    "ui.scoreboard.row.plain.tie_breaks": ("rank", "player", "score", "winner_mark", "tie_breaks"),
    "ui.scoreboard.tie": ("players", "score", "tie_break"),
    "ui.scoreboard.tie.shared": ("players", "score"),
    "ui.scoreboard.tie.shared.tie_breaks": ("players", "score", "tie_breaks"),
    "ui.winners": ("players",),
    "ui.team.won": (),
    "ui.team.lost": (),
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

# The terminal's table and prompt. What the table shows of the pack's components (its pointers,
# counters and piles) the pack says by its own `table` messages: see `coh_core.agents.terminal`.
TABLE_MESSAGES: dict[str, tuple[str, ...]] = {
    "ui.table.header": ("turn", "phase"),
    "ui.table.location": ("location", "side", "characters"),
    "ui.table.location.counted": ("location", "side", "counts", "characters"),
    "ui.table.place": ("location", "characters"),
    "ui.table.place.counted": ("location", "counts", "characters"),
    "ui.table.character": ("character", "player"),
    "ui.table.character.exhausted": ("character", "player"),
    "ui.prompt": (),
    "ui.play.input_ended": (),  # the person at the terminal closed the input
    "ui.play.interrupted": (),  # ... or pressed Ctrl-C
    "ui.play.saved": ("path",),  # ... and the game is saved there
    "ui.play.hand_over": ("player",),  # hotseat: the screen between two humans' questions
    "ui.play.progress": ("turn", "count"),  # a game of bots alone, on a terminal
    "ui.play.seed": ("seed",),  # the seed drawn for a game given none
    "ui.phase.setup": (),  # the phases outside the pack's turn: setup and the end of the game
    "ui.phase.end": (),
    # the answers' menus (`coh_core.agents.terminal`)
    "ui.table.menu.hint": (),
    "ui.table.menu.prompt.back": (),
    "ui.table.menu.unknown": ("keys",),
    "ui.table.menu.help": (),
    "ui.table.menu.no_such": ("asked",),
    "ui.table.menu.shortened": (),
    "ui.table.menu.pass_concerned": (),
    "ui.table.menu.pass_place": (),
    "ui.table.menu.pass_phase": (),
    "ui.table.menu.full": ("answer", "location"),
    # the web table's page (`coh_core.web`)
    "ui.web.waiting": ("players",),
    "ui.web.spectator": (),
    "ui.web.back": (),
    "ui.web.over": (),
    "ui.web.thinking": ("player",),
    "ui.web.gone.title": (),
    "ui.web.gone": (),
}

# `coh list`, `coh show` and the `coh validate` summary: what every pack's pages print (a kind
# without a `list` or `show` of its own is listed and shown field by field); the words of a
# pack's own pages are its `messages: screens`.
CLI_MESSAGES: dict[str, tuple[str, ...]] = {
    **{f"ui.column.{name}": () for name in ("id", "name")},
    "ui.show.header": ("name", "kind", "id", "file"),
    "ui.show.trigger": ("event",),
    "ui.show.trigger.after_action": ("event",),
    "ui.validate.read": ("where",),
    "ui.validate.ok": ("counts",),
    "ui.validate.problems": ("problems", "counts"),
    **{
        f"ui.validate.count.{name}": ("count",)
        for name in ("packs", "entities", "effects", "files", "problems", "warnings")
    },
}

# A placeholder is anything between single braces; the check reports odd ones like `{ x }`.
# `{name:form}` asks for a grammatical form of the name put there (see `Named`).
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
FORM_SEPARATOR = ":"


def log_key(key: str) -> str:
    """The text key of a log entry's (or a log part's) message."""
    return f"log.{key}"


def cli_messages(declared: Declarations) -> dict[str, tuple[str, ...]]:
    """CLI_MESSAGES, and `ui.window.<window>` for each timing window of the pack."""
    return {**CLI_MESSAGES, **{window_key(name): () for name in declared.windows}}


def window_key(name: str) -> str:
    """The text key of the words for a timing window (`coh list`, `coh show`)."""
    return f"ui.window.{name}"


# What translators read above the engine's messages (the pack's carry their own notes):
# where the message appears, and what its placeholders hold.
_NOTES: dict[str, tuple[str, dict[str, str]]] = {
    "log.effect_fizzled": ("An effect had nothing to act on.", {"source": "whose effect it was"}),
    "log.game_over": ("The last entry of every game.", {}),
    "log.player_eliminated": ("A player leaves the game for good.", {"player": "the player"}),
    "log.turn_start": ("The first entry of each turn: its heading.", {"turn": "the turn's number"}),
    "log.character_moved": (
        "A piece goes to another place (`move_character`, `move_characters`).",
        {
            "character": "the piece",
            "location": "the place it goes to",
        },
    ),
    "log.character_died": (
        "A piece is lost for good (`kill_character`, `kill_characters`).",
        {"character": "the piece", "player": "the player who owned it", "location": "the place where it was"},
    ),
    "log.character_rested": ("A piece is turned to its rested side (`rest`).", {"character": "the piece"}),
    "log.character_exhausted": (
        "A piece is turned to its exhausted side (`exhaust`, or to use its ability).",
        {"character": "the piece"},
    ),
    "log.board_flipped": (
        "A place on the board turns to another of its sides (`flip_board`).",
        {"location": "the place", "side": "the name of the side it now shows"},
    ),
    "log.card_played": (
        "A player plays a card from their hand.",
        {"player": "the player", "card": "the card"},
    ),
    "log.card_cancelled": (
        "A card just played is cancelled before it does anything.",
        {"player": "the player who played it", "card": "the card"},
    ),
    "log.power_used": (
        "A player uses the ability of one of their pieces.",
        {"player": "the player", "character": "the piece"},
    ),
    "log.gift": (
        "In a window where players may act, a player gives another something of their own.",
        {
            "player": "the player who gives",
            "recipient": "the player who gets it",
            "item": 'what is given, from `log.item.*` ("a card")',
        },
    ),
    "log.item.card": ("What is given when it is a card, inside `log.gift`.", {}),
    "log.chance.roll": (
        "Chance: dice are rolled (`roll`); told only in a game that asks for it.",
        {"player": "the player who rolls", "dice": 'what each die shows, as "3, 5, 6"'},
    ),
    "log.chance.draw": (
        "Chance: one of several things is drawn at random (`random_item`); what it is, the game tells"
        " if it tells it. Told only in a game that asks for it.",
        {"count": "how many it was drawn among"},
    ),
    "log.chance.shuffle": (
        "Chance: things are shuffled (`shuffle`, or a pile that starts shuffled); told only in a game"
        " that asks for it.",
        {"count": "how many are shuffled"},
    ),
    "log.heading.setup": ("The heading of the narrative's first part, the setup.", {}),
    "log.heading.phase": (
        "The heading of a phase of the turn in the narrative (after the turn's heading).",
        {"phase": "the phase's name"},
    ),
    "log.heading.location": (
        "In a phase played location by location, the heading of what happens at one location.",
        {"location": "the location"},
    ),
    "log.heading.end": ("The heading of the narrative's last part, the end of the game.", {}),
    "log.part.score_part": (
        "One part of a player's score on the scoreboard: its name, then its points.",
        {"name": "the part, from `log.scoring.*`", "value": "its points"},
    ),
    "log.part.tie_break": (
        "One tie-break's value on a player's line of the scoreboard: its name, then the value.",
        {"name": "the tie-break's name, from `tie_break.*.name`", "value": "the player's value"},
    ),
    "log.trait_set": (
        "A trait changes, where the pack has no text `trait_set.<trait>` for it.",
        {
            "character": "the character",
            "trait": "the trait's name as the pack writes it",
            "value": "its new value",
            "until": "how long, from `log.duration.*`",
        },
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


# Notes of the play command's, the table's and the CLI's strings. What a placeholder holds is
# given by name, or (a tuple) by position, for placeholders named after what a pack counts.
Holds = dict[str, str] | tuple[str, ...]
_UI_NOTES: dict[str, tuple[str, Holds]] = {
    "ui.turn": ("A heading of the play command's table.", {"turn": "the turn's number"}),
    "ui.scoreboard.title": ("The heading of the scores after a game.", {}),
    "ui.scoreboard.row": (
        "One player's line of the scores after a game, in a game whose ranking has no tie-break.",
        {
            "winner_mark": "`*` for a winner, else a space",
            "rank": "the player's place, from 1",
            "player": "the player",
            "score": "the final score",
            "parts": "the parts of the score, from `log.part.score_part`, joined by commas",
        },
    ),
    "ui.scoreboard.row.tie_breaks": (
        "One player's line of the scores after a game, in a game whose ranking has tie-breaks"
        " (what orders players of equal scores).",
        {
            "winner_mark": "`*` for a winner, else a space",
            "rank": "the player's place, from 1",
            "player": "the player",
            "score": "the final score",
            "parts": "the parts of the score, from `log.part.score_part`, joined by commas",
            "tie_breaks": "the player's value of each tie-break, from `log.part.tie_break`, joined by commas",
        },
    ),
    "ui.scoreboard.row.plain": (
        "As `ui.scoreboard.row`, in a game whose score has no parts.",
        {
            "winner_mark": "`*` for a winner, else a space",
            "rank": "the player's place, from 1",
            "player": "the player",
            "score": "the final score",
        },
    ),
    "ui.scoreboard.row.plain.tie_breaks": (
        "As `ui.scoreboard.row.tie_breaks`, in a game whose score has no parts.",
        {
            "winner_mark": "`*` for a winner, else a space",
            "rank": "the player's place, from 1",
            "player": "the player",
            "score": "the final score",
            "tie_breaks": "the player's value of each tie-break, from `log.part.tie_break`, joined by commas",
        },
    ),
    "ui.scoreboard.tie": (
        "After the scores, when several players share the best score and a tie-break orders them.",
        {
            "players": 'the players with the best score, as "Red, Blue"',
            "score": "that score",
            "tie_break": "the name of the tie-break that orders them, from `tie_break.*.name`",
        },
    ),
    "ui.scoreboard.tie.shared": (
        "After the scores, when several players share the best score and all win (the game's"
        " ranking has no tie-break).",
        {"players": 'the winners, as "Red, Blue"', "score": "their score"},
    ),
    "ui.scoreboard.tie.shared.tie_breaks": (
        "After the scores, when several players share the best score and are still tied after"
        " every tie-break: they all win.",
        {
            "players": 'the winners, as "Red, Blue"',
            "score": "their score",
            "tie_breaks": "the names of the tie-breaks, from `tie_break.*.name`, joined by commas",
        },
    ),
    "ui.winners": ("After the scores: who won.", {"players": 'the winning players, as "Red, Blue"'}),
    "ui.team.won": ("After a game the players play as one team: the team won.", {}),
    "ui.team.lost": ("After a game the players play as one team: the team lost.", {}),
    "ui.prompt": ("What the terminal asks before a human player types the key of an answer.", {}),
    "ui.play.input_ended": ("The input of `coh play` ended before the game did.", {}),
    "ui.play.interrupted": ("A human player pressed Ctrl-C during `coh play`.", {}),
    "ui.play.saved": (
        "After `coh play` stopped unfinished (end of input, Ctrl-C): where the game is saved, and"
        " the command that goes on with it (keep `coh play --resume` as it is).",
        {"path": "the save file, as given to `--save`"},
    ),
    "ui.play.hand_over": (
        "Hotseat (several humans at one terminal): the screen is cleared and the terminal is"
        " passed to the next human, who presses Enter to see their question.",
        {"player": "the player whose turn it is"},
    ),
    "ui.play.progress": (
        "On a terminal's stderr while bots alone play a game (rewritten in place each turn, wiped at"
        " the end).",
        {"turn": "the turn being played", "count": "the decisions answered so far"},
    ),
    "ui.play.seed": (
        "The first line of `coh play` when no `--seed` was given: the seed drawn for this game, so"
        " that it can be played again.",
        {"seed": "the seed"},
    ),
    "ui.table.header": (
        "The first line of the table shown before a human player's question; the pack's"
        " `ui.table.pointer.*` follow.",
        {"turn": "the turn's number", "phase": "the phase's name"},
    ),
    "ui.table.location": (
        "One location's line of the table, where nothing is counted there.",
        {
            "location": "the location",
            "side": "the name of its side",
            "characters": "its characters, from `ui.table.character*`, or `-`",
        },
    ),
    "ui.table.location.counted": (
        "One location's line of the table, with what is counted or lies there.",
        {
            "location": "the location",
            "side": "the name of its side",
            "counts": "the pack's `ui.table.count.*` and `ui.table.pile.*` texts, joined by commas",
            "characters": "its characters, from `ui.table.character*`, or `-`",
        },
    ),
    "ui.table.place": (
        "One line of the table for a place without sides, where nothing is counted there.",
        {"location": "the place", "characters": "its characters, from `ui.table.character*`, or `-`"},
    ),
    "ui.table.place.counted": (
        "One line of the table for a place without sides, with what is counted or lies there.",
        {
            "location": "the place",
            "counts": "the pack's `ui.table.count.*` and `ui.table.pile.*` texts, joined by commas",
            "characters": "its characters, from `ui.table.character*`, or `-`",
        },
    ),
    "ui.table.character": (
        "A character in a location's line.",
        {"character": "the character", "player": "its player"},
    ),
    "ui.table.character.exhausted": (
        "An exhausted character in a location's line.",
        {"character": "the character", "player": "its player"},
    ),
    "ui.table.menu.hint": (
        "Shown once to each human, before their first question: how to answer and ask about things.",
        {},
    ),
    "ui.table.menu.prompt.back": ("As `ui.prompt`, in a sub-menu, where `<` goes back.", {}),
    "ui.table.menu.unknown": (
        "The typed text is none of the menu's keys.",
        {"keys": 'the menu\'s keys, as "p, pl, g"'},
    ),
    "ui.table.menu.help": ("After `?`: how to answer; the player's hand with its texts follows.", {}),
    "ui.table.menu.no_such": (
        "After `? something` that is no key and no name of the pack.",
        {"asked": "what was typed after the question mark"},
    ),
    "ui.table.menu.shortened": (
        "At the end of the table's first line when the table is shortened to leave the question on a"
        " small screen (the others' pieces counted, long lines cut): `?` shows it whole.",
        {},
    ),
    "ui.table.menu.pass_concerned": (
        "A menu's answer beside pass (key `>`): pass now and at every question that offers to pass"
        " until something happens to one of the player's pieces.",
        {},
    ),
    "ui.table.menu.pass_place": (
        "A menu's answer beside pass (key `>>`): pass now and at every question that offers to pass"
        " until the place being resolved is done.",
        {},
    ),
    "ui.table.menu.pass_phase": (
        "A menu's answer beside pass (key `>>>`): pass now and at every question that offers to pass"
        " until the phase ends.",
        {},
    ),
    "ui.table.menu.full": (
        "An answer that would move a piece to a place with no room for it (full, or counting as"
        " full): the piece goes to another place instead, which the pack names.",
        {"answer": "the answer, as the menu words it", "location": "the place the piece goes to instead"},
    ),
    "ui.web.waiting": (
        "The web table (`coh serve`): who the table waits for.",
        {"players": 'the players who must answer now, as "Red, Blue"'},
    ),
    "ui.web.spectator": ("The web table: in place of a seat's name, on a spectator's page.", {}),
    "ui.web.back": ("The web table: the button that goes back from a sub-menu (`<`).", {}),
    "ui.web.over": ("The web table: once the game is over, in place of who it waits for.", {}),
    "ui.web.thinking": (
        "The web table: in place of who it waits for, while a bot that takes its time answers.",
        {"player": "the bot's player"},
    ),
    "ui.web.gone.title": ("The web table: the title of the page a link that opens no table leads to.", {}),
    "ui.web.gone": (
        "The web table: the page a link that opens no table leads to (a wrong link, or a room"
        " cleared after its game ended or lay idle).",
        {},
    ),
    "ui.phase.setup": ("The phase shown in the table's header during the setup.", {}),
    "ui.phase.end": ("The phase shown in the table's header once the game is over.", {}),
    "ui.show.header": (
        "The first line of `coh show`.",
        {
            "name": "the entity's name",
            "kind": "its kind, from `ui.kind.*`",
            "id": "its id (not translated)",
            "file": "the file and line that define it",
        },
    ),
    "ui.show.trigger": ("`coh show`: an effect's trigger.", {"event": "the event's id (not translated)"}),
    "ui.show.trigger.after_action": (
        "`coh show`: an effect's trigger that waits for the current action to end.",
        {"event": "the event's id (not translated)"},
    ),
    "ui.validate.read": ("`coh validate`: what it read.", {"where": "the folders and files"}),
    "ui.validate.ok": ("`coh validate`: all is well.", {"counts": "from `ui.validate.count.*`, joined"}),
    "ui.validate.problems": (
        "`coh validate`: problems were found.",
        {"problems": "from `ui.validate.count.problems`", "counts": "from `ui.validate.count.*`, joined"},
    ),
}

# Notes shared by every key that begins with a prefix: (prefix, note, what placeholders hold).
_FAMILY_NOTES: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("ui.column.", "A column heading of `coh list`, written as the table prints it.", {}),
    (
        "ui.window.",
        "When a power or card may be used: in `coh list`'s column and after `coh show`'s \"played\".",
        {},
    ),
    ("ui.validate.count.", "One count of the `coh validate` summary.", {"count": "the number"}),
    ("log.duration.", "How long a trait change lasts: the end of `log.trait_set.*`.", {}),
    (
        "log.trait_set.",
        "A trait of a character changes (the key names the trait, and for a yes/no trait its new value).",
        {
            "character": "the character",
            "value": "the trait's new number",
            "until": "how long, from `log.duration.*`",
        },
    ),
)


def _note_of(key: str, params: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """The note of an engine message and what each of its placeholders holds."""
    if key in _NOTES:
        note, named = _NOTES[key]
        return note, {name: named[name] for name in params if name in named}
    note, holds = _UI_NOTES.get(key, ("", {}))
    if not note:
        found = next(((n, h) for prefix, n, h in _FAMILY_NOTES if key.startswith(prefix)), None)
        note, holds = found if found is not None else ("", {})
    if isinstance(holds, tuple):  # by position; none if the placeholders changed since
        return note, dict(zip(params, holds, strict=True)) if len(holds) == len(params) else {}
    return note, {name: holds[name] for name in params if name in holds}


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
        note, holds = _note_of(key, params)
        types = {name: ENGINE_TYPES[name] for name in params if name in ENGINE_TYPES}
        carries = ENGINE_CARRIES.get(key.removeprefix("log."), ()) if key.startswith("log.") else ()
        found[key] = Message(
            key, params, note, holds, plural.get(key, DEFAULT_PLURAL_PARAM), carries, types=types
        )
    return found


# -- the pack's messages -----------------------------------------------------------------------

# The groups of a pack's `messages` section, and the prefix each puts before an id for its text key.
GROUPS: dict[str, str] = {
    "log": "log.",
    "parts": "log.",
    "decisions": "ui.decision.",
    "answers": "ui.action.",
    "table": "ui.table.",
    "screens": "ui.",
}


# The part of a `messages` section that says how the game tells the engine's own log entries:
# `<id>: {variants, quiet_in, told}` (their texts are coh's, or the pack's rewording).
ENGINE_LOG_GROUP = "engine_log"


def engine_log_tellings(section: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each entry of a section's `engine_log` as (id, declaration), skipping malformed ones."""
    entries = section.get(ENGINE_LOG_GROUP)
    for message_id, spec in (entries if isinstance(entries, dict) else {}).items():
        if isinstance(spec, dict):
            yield str(message_id), spec


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
    types = spec.get("types")
    return Message(
        GROUPS[group] + message_id,
        tuple(holds),
        str(spec.get("note", "")),
        holds,
        str(plural),
        tuple(str(k) for k in carries) if isinstance(carries, dict) else (),
        {str(k): str(v) for k, v in types.items()} if isinstance(types, dict) else {},
    )


def declared_messages(section: Mapping[str, Any], declared: Declarations) -> DeclaredMessages:
    """The engine's messages (for a pack with these declarations) and those of a pack's `messages`
    section (where both declare a key, the engine's stands: MSG-DUPLICATE reports it)."""
    engine = engine_texts(declared)
    texts: dict[str, Message] = {}
    log: dict[str, tuple[str, ...]] = {}
    carried: dict[str, tuple[str, ...]] = {}
    variants: dict[str, frozenset[str]] = {}
    quiet: dict[str, frozenset[str]] = {}
    answers: dict[str, list[Answer]] = {a.verb: [a] for a in ENGINE_ANSWERS}
    question_moves: dict[str, str] = {}
    for group, message_id, spec in declarations(section):
        message = declared_message(group, message_id, spec)
        if message.key in engine or message.key in texts:
            continue
        texts[message.key] = message
        if group == "log":
            log[message_id] = message.params
            if message.carries:
                carried[message_id] = message.carries
            for variant in variant_messages(message, spec):
                texts.setdefault(variant.key, variant)
            variants[message_id] = frozenset(_names(spec.get("variants")))
            quiet[message_id] = frozenset(_names(spec.get("quiet_in")))
        elif group == "answers":
            key_at, moves_to = spec.get("key_at"), spec.get("moves_to")
            answer = Answer(
                message_id,
                message.params,
                key_at if isinstance(key_at, int) else None,
                moves_to if isinstance(moves_to, str) else None,
            )
            answers.setdefault(answer.verb, []).append(answer)
        elif group == "decisions" and isinstance(spec.get("moves_to"), str):
            question_moves[message_id] = spec["moves_to"]
    told: dict[str, bool] = {}
    for message_id, spec in engine_log_tellings(section):
        if message_id not in ENGINE_LOG:  # MSG-ENGINE-LOG reports it
            continue
        for variant in variant_messages(engine[log_key(message_id)], spec):
            texts.setdefault(variant.key, variant)
        variants[message_id] = frozenset(_names(spec.get("variants")))
        quiet[message_id] = frozenset(_names(spec.get("quiet_in")))
        if isinstance(spec.get("told"), bool):
            told[message_id] = spec["told"]
    return DeclaredMessages(
        {**texts, **engine},
        {**log, **ENGINE_LOG},
        {verb: tuple(found) for verb, found in answers.items()},
        {**carried, **ENGINE_CARRIES},
        {k: v for k, v in variants.items() if v},
        {k: v for k, v in quiet.items() if v},
        frozenset(k for k in ENGINE_LOG if not told.get(k, k not in UNTOLD)),
        question_moves,
    )


def _names(value: Any) -> list[str]:
    """The names of a `variants` mapping or a `quiet_in` list (nothing if it is neither)."""
    if isinstance(value, dict | list):
        return [str(name) for name in value]
    return []


def variant_messages(message: Message, spec: Mapping[str, Any]) -> list[Message]:
    """The variants a log message declares (`variants: {<name>: <note>}`), each a message
    `log.<id>.<name>` with the same placeholders, less the plural one for `NONE_VARIANT`."""
    found = spec.get("variants")
    if not isinstance(found, dict):
        return []
    variants = []
    for name, note in found.items():
        params = tuple(p for p in message.params if not (name == NONE_VARIANT and p == message.plural))
        holds = {k: v for k, v in message.holds.items() if k in params}
        types = {k: v for k, v in message.types.items() if k in params}
        variants.append(
            Message(f"{message.key}.{name}", params, str(note), holds, message.plural, types=types)
        )
    return variants


@dataclass(frozen=True)
class PlaceholderType:
    """What a placeholder holds, which says how it is shown: a type of the effect language or of
    the pack (`location`, `count`, an enumeration...), `list[T]`, or `map[K, V]`, whose entries
    are each told through the log part named after `via` (`map[player, int] via part.score`);
    `via <part> by <param>` gives the part, as `{count}`, the value at the same key of another map
    of the message (`map[player, player] via part.vote by weights`), which picks its plural form."""

    name: str  # `list`, `map`, or the name of a type
    args: tuple[PlaceholderType, ...] = ()
    via: str = ""  # of a `map`: the part (`log.<via>`) each entry goes through, as `{name} {value}`
    by: str = ""  # of a `map` via a part: the entry's map of numbers whose value at each key is `{count}`


_TYPE_TOKEN = re.compile(r"\s*([a-z_][a-z0-9_.]*|\[|\]|,)")


def parse_type(text: str) -> PlaceholderType | None:
    """A placeholder's declared type, or None if it is not written `T`, `list[T]` or `map[K, V]`
    (the last maybe followed by `via <part>`, and that by `by <param>`)."""
    tokens: list[str] = []
    position = 0
    while position < len(text.rstrip()):
        match = _TYPE_TOKEN.match(text, position)
        if match is None:
            return None
        tokens.append(match.group(1))
        position = match.end()
    via = by = ""
    if len(tokens) >= 4 and tokens[-2] == "by" and tokens[-4] == "via":
        by, tokens = tokens[-1], tokens[:-2]
    if len(tokens) >= 2 and tokens[-2] == "via":
        via, tokens = tokens[-1], tokens[:-2]
    found, rest = _parse_type(tokens)
    if found is None or rest or (via and found.name != "map"):
        return None
    return PlaceholderType(found.name, found.args, via, by) if via else found


def _parse_type(tokens: list[str]) -> tuple[PlaceholderType | None, list[str]]:
    if not tokens or tokens[0] in "[],":
        return None, tokens
    name, rest = tokens[0], tokens[1:]
    arity = {"list": 1, "map": 2}.get(name)
    if arity is None:
        return PlaceholderType(name), rest
    if not rest or rest[0] != "[":
        return None, rest
    args: list[PlaceholderType] = []
    rest = rest[1:]
    for index in range(arity):
        arg, rest = _parse_type(rest)
        if arg is None or not rest or rest[0] != ("," if index < arity - 1 else "]"):
            return None, rest
        args.append(arg)
        rest = rest[1:]
    return PlaceholderType(name, tuple(args)), rest


def placeholders(text: str) -> list[str]:
    """The placeholder names a message text uses, in order, repeats included (`{a:in}` is `a`)."""
    return [found.partition(FORM_SEPARATOR)[0] for found in _PLACEHOLDER.findall(text)]


def placeholder_forms(text: str) -> list[tuple[str, str]]:
    """The (placeholder, form) pairs of the `{name:form}` a message text asks for."""
    pairs = (found.partition(FORM_SEPARATOR) for found in _PLACEHOLDER.findall(text))
    return [(name, form) for name, colon, form in pairs if colon]


class Named(str):
    """A name put into a message, with the grammatical forms its language declares for it."""

    forms: Mapping[str, str]

    def __new__(cls, text: str, forms: Mapping[str, str] | None = None) -> Named:
        named = super().__new__(cls, text)
        named.forms = dict(forms or {})
        return named


def fill(text: str, values: Mapping[str, str]) -> str:
    """Replace each `{name}` by its value, and each `{name:form}` by that form of a `Named` value
    (its plain text when it has no such form); placeholders without a value stay as they are."""

    def value_of(match: re.Match[str]) -> str:
        name, _, form = match.group(1).partition(FORM_SEPARATOR)
        if name not in values:
            return match.group(0)
        value = values[name]
        if form and isinstance(value, Named):
            return value.forms.get(form) or str(value)
        return str(value)

    return _PLACEHOLDER.sub(value_of, text)

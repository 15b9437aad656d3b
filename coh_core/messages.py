"""Every message the engine and the play command show, declared once with its placeholders.

The game log holds message keys and parameters, never text (DESIGN.md, principle 8). Each
key below has a text in every language pack, under `log.<key>` for the log and as is for
`ui.` keys, and that text uses exactly the placeholders declared here: `coh validate` checks
both (TEXT-MISSING, TEXT-UNKNOWN, TEXT-PLACEHOLDER), and `coh_core.narrative` renders them.
"""

from __future__ import annotations

import re

from coh_core.effects.registry import Declarations
from coh_core.i18n import DEFAULT_PLURAL_PARAM

# Log entries written by the engine with `game.note(key, **params)`: key -> placeholders.
# A message may leave out a parameter the entry carries, never use one it lacks.
LOG_MESSAGES: dict[str, tuple[str, ...]] = {
    "airdrop": ("location", "antidotes", "cards"),
    "antidotes_paid": ("player", "count"),
    "antidotes_taken": ("player", "count"),
    "attack": ("location",),
    "board_flipped": ("location", "side"),
    "card_cancelled": ("player", "card"),
    "card_discarded": ("player", "card"),
    "card_played": ("player", "card"),
    "card_removed": ("card",),
    "card_stolen": ("player", "victim"),
    "card_taken_from_discard": ("player", "card"),
    "cards_drawn": ("player", "count"),
    "cards_seen": ("player", "cards"),
    "character_died": ("character", "player", "location"),
    "character_exhausted": ("character",),
    "character_moved": ("character", "location"),
    "character_placed": ("character", "location"),
    "character_rested": ("character",),
    "characters_dealt": ("player", "characters"),
    "city_built": ("locations",),
    "effect_fizzled": ("source",),
    "first_player": ("player",),
    "food_discarded": ("player", "value"),
    "food_seen": ("player", "value"),
    "food_taken": ("player",),
    "food_taken_face_up": ("player", "value"),
    "food_turned_up": ("value",),
    "game_over": (),
    "game_scored": ("scores", "living", "winners"),
    "gift": ("player", "recipient", "item"),
    "invasion_peeked": ("player",),
    "invasion_revealed": ("invasion",),
    "invasion_seen": ("player", "invasions"),
    "item_shared": ("player", "recipient", "item", "location"),
    "items_stay": ("location",),
    "leader_moved": ("colour",),
    "leader_set": ("colour",),
    "leader_strikes": ("colour", "location"),
    "location_activated": ("player", "location"),
    "marker_placed": ("player", "location"),
    "move_cancelled": ("character", "location"),
    "movement_card_changed": ("player", "location"),
    "movement_card_drawn": ("player", "location"),
    "movement_revealed": ("cards",),
    "no_attack": ("location",),
    "no_marker_target": (),
    "no_move": ("player", "location"),
    "nobody_eaten": ("location",),
    "player_eliminated": ("player",),
    "points_scored": ("player", "count"),
    "power_used": ("player", "character"),
    "sharing_won": ("player", "location"),
    "tie_broken": ("player", "winner", "location"),
    "trait_set": ("character", "trait", "value", "until"),
    "turn_start": ("turn",),
    "vote_tied_nobody": ("location",),
    "votes_added": ("player", "count", "location"),
    "vote_proxy_set": ("player", "victim", "location"),
    "votes_cast_for": ("player", "victim", "location"),
    "votes_revealed": ("location", "votes", "tally"),
    "zombies_added": ("count", "location"),
    "zombies_arrived": ("count", "location"),
    "zombies_killed": ("count", "location"),
    "zombies_moved": ("count", "origin", "location"),
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

# Pieces the narrator puts inside log messages (texts under `log.<key>` too).
LOG_PARTS: dict[str, tuple[str, ...]] = {
    "item.antidote": (),  # the `item` of gift and item_shared
    "item.card": (),
    "part.score": ("name", "value"),  # one entry of scores and tallies: "Red 5"
    "part.choice": ("name", "value"),  # one player's movement card: "Red: Church"
    "part.vote": ("name", "value"),  # one player's vote: "Red for Blue"
    "part.side": ("location", "side"),  # a location board's side, as the source of an effect
}


def log_parts(declared: Declarations) -> dict[str, tuple[str, ...]]:
    """LOG_PARTS, and `until.<duration>` for each value of the pack's `duration`: how long a trait lasts."""
    return {**LOG_PARTS, **{f"until.{value}": () for value in declared.members("duration") or {}}}


# Strings of the play command outside the log.
UI_MESSAGES: dict[str, tuple[str, ...]] = {
    "ui.turn": ("turn",),
    "ui.scoreboard.title": (),
    "ui.scoreboard.row": ("rank", "player", "score", "living", "winner_mark"),
    "ui.winners": ("players",),
}

# What the terminal asks: `ui.decision.<kind>`, or `ui.decision.<kind>.<purpose>` when the prompt
# has a purpose the pack has a text for; `ui.decision.other` for a kind without a text.
DECISION_MESSAGES: dict[str, tuple[str, ...]] = {
    "ui.decision.act": ("location",),
    "ui.decision.activate": ("location",),
    "ui.decision.before_own_move": (),
    "ui.decision.break_tie": ("location",),
    "ui.decision.cancel_card": ("player", "card"),
    "ui.decision.cancel_move": ("player", "character", "location"),
    "ui.decision.choose": ("source",),
    "ui.decision.discard": (),
    "ui.decision.discard_food": (),
    "ui.decision.draft": (),
    "ui.decision.marker": (),
    "ui.decision.move": ("location",),
    "ui.decision.movement_card": (),
    "ui.decision.own_move": ("mover",),
    "ui.decision.place": ("character",),
    "ui.decision.scoring": (),
    "ui.decision.share": ("location",),
    "ui.decision.take_food": (),
    "ui.decision.take_from_discard": (),
    "ui.decision.unvaccinated": (),
    "ui.decision.victim": ("location",),
    "ui.decision.vote.attack": ("location",),
    "ui.decision.vote.sharing": ("location",),
    "ui.decision.vote_for.attack": ("location", "player"),
    "ui.decision.vote_for.sharing": ("location", "player"),
    "ui.decision.other": ("kind",),
}

# How an answer reads: per verb, the name of each value after it; `#` puts the value into the key
# instead (`("give", "blue", "card", "gun")` -> `ui.action.give.card` with player=blue, card=gun).
ACTION_SHAPES: dict[str, tuple[str, ...]] = {
    "pass": (),
    "play": ("card",),
    "power": ("character",),
    "give": ("player", "#", "card"),
    "share": ("player", "#", "card"),
    "choose": ("value",),
    "discard": ("card",),
    "take": ("card",),
    "draft": ("card",),
    "food": ("food",),
    "card": ("location",),
    "marker": ("location",),
    "place": ("character", "location"),
    "move": ("character",),
    "activate": ("location",),
    "vote": ("player",),
    "winner": ("player",),
    "victim": ("character",),
    "dies": ("character",),
}


def action_message(action: tuple[object, ...]) -> tuple[str, dict[str, object]]:
    """The text key of an answer and its parameters (`ui.action.other` for an unknown verb)."""
    verb, *values = action
    shape = ACTION_SHAPES.get(str(verb))
    if shape is None or len(values) < len([n for n in shape if n != "#"]):
        return "ui.action.other", {"value": " ".join(str(v) for v in action)}
    key, params = f"ui.action.{verb}", {}
    for name, value in zip(shape, values, strict=False):
        if name == "#":
            key += f".{value}"
        else:
            params[name] = value
    return key, params


def _action_keys() -> dict[str, tuple[str, ...]]:
    keys: dict[str, tuple[str, ...]] = {"ui.action.other": ("value",)}
    for verb, shape in ACTION_SHAPES.items():
        names = tuple(n for n in shape if n != "#")
        if "#" in shape:  # gifts and shares: a card, or an antidote with no value of its own
            keys[f"ui.action.{verb}.card"] = names
            keys[f"ui.action.{verb}.antidote"] = tuple(n for n in names if n != "card")
        else:
            keys[f"ui.action.{verb}"] = names
    return keys


ACTION_MESSAGES: dict[str, tuple[str, ...]] = _action_keys()

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
    "sides", "hour", "zombies", "moves", "airdrops", "leader", "provenance",
)  # fmt: skip
CLI_MESSAGES: dict[str, tuple[str, ...]] = {
    **{f"ui.column.{name}": () for name in _COLUMNS},
    "ui.yes": (),
    "ui.list.footer.actions": ("kinds", "count"),
    "ui.list.footer.characters": ("count",),
    "ui.list.footer.locations": ("count",),
    "ui.list.footer.invasions": ("count",),
    **{f"ui.slot.{name}": () for name in ("tower", "corner", "centre")},
    "ui.symbol.explosion": (),
    **{f"ui.provenance.{name}": () for name in ("printed", "invented", "rulebook_example")},
    **{f"ui.kind.{name}": () for name in ("character", "action", "location", "invasion", "colour")},
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
    "ui.show.zombies": ("last", "zombies"),
    "ui.show.moves": ("moves",),
    "ui.show.airdrops": ("airdrops",),
    "ui.show.leader": ("count",),
    "ui.show.trigger": ("event",),
    "ui.show.trigger.after_action": ("event",),
    "ui.fact.capacity": ("count",),
    "ui.fact.no_limit": (),
    "ui.fact.explosion_target": (),
    "ui.fact.closed": (),
    "ui.fact.locked": (),
    "ui.fact.state_of": ("sides",),
    "ui.fact.leader_attack": (),
    "ui.side.state_of": ("sides",),
    "ui.airdrop": ("location", "items"),
    "ui.airdrop.antidotes": ("count",),
    "ui.airdrop.cards": ("count",),
    "ui.hour": ("hour",),
    "ui.validate.ok": ("counts",),
    "ui.validate.problems": ("problems", "counts"),
    **{
        f"ui.validate.count.{name}": ("count",)
        for name in ("packs", "entities", "effects", "files", "problems")
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


def text_keys(declared: Declarations) -> dict[str, tuple[str, ...]]:
    """Every text key declared above for a pack with these declarations, with its placeholders."""
    return {
        **{log_key(k): v for k, v in LOG_MESSAGES.items()},
        **{log_key(k): v for k, v in log_variant_messages(declared).items()},
        **{log_key(k): v for k, v in log_parts(declared).items()},
        **UI_MESSAGES,
        **DECISION_MESSAGES,
        **ACTION_MESSAGES,
        **TABLE_MESSAGES,
        **cli_messages(declared),
    }


# Plural texts pick their form by the number in `count`, or in the parameter named here.
PLURAL_PARAMS: dict[str, str] = {"log.trait_set.votes": "value"}


def plural_param(key: str) -> str:
    """The parameter whose number picks the plural form of the text `key`."""
    return PLURAL_PARAMS.get(key, DEFAULT_PLURAL_PARAM)


def placeholders(text: str) -> list[str]:
    """The placeholder names a message text uses, in order, repeats included."""
    return _PLACEHOLDER.findall(text)


def fill(text: str, values: dict[str, str]) -> str:
    """Replace each `{name}` by its value; placeholders without a value stay as they are."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

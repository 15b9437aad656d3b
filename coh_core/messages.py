"""Every message the engine and the play command show, declared once with its placeholders.

The game log holds message keys and parameters, never text (DESIGN.md, principle 8). Each
key below has a text in every language pack, under `log.<key>` for the log and as is for
`ui.` keys, and that text uses exactly the placeholders declared here: `coh validate` checks
both (TEXT-MISSING, TEXT-UNKNOWN, TEXT-PLACEHOLDER), and `coh_core.narrative` renders them.
"""

from __future__ import annotations

import re

from coh_core.effects.registry import ENUMS, TRAITS

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
    "votes_revealed": ("location", "votes", "tally"),
    "zombies_added": ("count", "location"),
    "zombies_arrived": ("count", "location"),
    "zombies_killed": ("count", "location"),
    "zombies_moved": ("count", "origin", "location"),
}


def _trait_variants() -> dict[str, tuple[str, ...]]:
    """`trait_set.<trait>` for number traits, `trait_set.<trait>.<true|false>` for yes/no ones.

    The trait is in the key, and so is a yes/no value; a number stays a placeholder.
    """
    found: dict[str, tuple[str, ...]] = {}
    for name, spec in TRAITS.items():
        if spec.type == "bool":
            found[f"trait_set.{name}.true"] = found[f"trait_set.{name}.false"] = ("character", "until")
        else:
            found[f"trait_set.{name}"] = ("character", "value", "until")
    return found


# Log entries told differently by the value of one parameter: the narrator uses the most specific
# of `log.<key>.<value>` (and, for a yes/no `value`, `log.<key>.<value>.<true|false>`) it finds.
LOG_VARIANTS: dict[str, str] = {"trait_set": "trait"}
LOG_VARIANT_MESSAGES: dict[str, tuple[str, ...]] = _trait_variants()

# Pieces the narrator puts inside log messages (texts under `log.<key>` too).
LOG_PARTS: dict[str, tuple[str, ...]] = {
    "item.antidote": (),  # the `item` of gift and item_shared
    "item.card": (),
    "part.score": ("name", "value"),  # one entry of scores and tallies: "Red 5"
    "part.choice": ("name", "value"),  # one player's movement card: "Red: Church"
    "part.vote": ("name", "value"),  # one player's vote: "Red for Blue"
    "part.side": ("location", "side"),  # a location board's side, as the source of an effect
    **{f"until.{duration}": () for duration in ENUMS["duration"]},  # how long a trait lasts
}

# Strings of the play command outside the log.
UI_MESSAGES: dict[str, tuple[str, ...]] = {
    "ui.turn": ("turn",),
    "ui.scoreboard.title": (),
    "ui.scoreboard.row": ("rank", "player", "score", "living", "winner_mark"),
    "ui.winners": ("players",),
}

# A placeholder is anything between single braces; the check reports odd ones like `{ x }`.
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def log_key(key: str) -> str:
    """The text key of a log entry's (or a log part's) message."""
    return f"log.{key}"


# Every text key declared above, with its placeholders.
TEXT_KEYS: dict[str, tuple[str, ...]] = {
    **{log_key(k): v for k, v in LOG_MESSAGES.items()},
    **{log_key(k): v for k, v in LOG_VARIANT_MESSAGES.items()},
    **{log_key(k): v for k, v in LOG_PARTS.items()},
    **UI_MESSAGES,
}


def placeholders(text: str) -> list[str]:
    """The placeholder names a message text uses, in order, repeats included."""
    return _PLACEHOLDER.findall(text)


def fill(text: str, values: dict[str, str]) -> str:
    """Replace each `{name}` by its value; placeholders without a value stay as they are."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

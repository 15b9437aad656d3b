"""The single source of the effect language's built-in vocabulary.

Every built-in verb (a statement that changes the game), selector (an expression that
reads or chooses), procedure (a step of the turn structure) and built-in type is declared
here once, with typed parameters and a one-line doc. The enumerations, traits, events and
timing windows of a game are declared by its pack (see `Declarations`). The checker, the
"did you mean" hints and `coh docs effects` are derived from both.

Nothing here names a card, character or location: these are the game's general
mechanics (counters, characters, votes, tokens), which content combines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    VERB = "verb"
    SELECTOR = "selector"
    PROCEDURE = "procedure"


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: str | None = None  # effect-language source of the default value

    @property
    def optional(self) -> bool:
        return self.default is not None


@dataclass(frozen=True)
class Signature:
    name: str
    kind: Kind
    params: tuple[Param, ...]
    returns: str | None
    doc: str
    value_type_from: str | None = None  # param whose enum member fixes the `value` type
    asks: bool = False  # a selector that may ask a question: worked out into a name first, never in a test

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def render(self) -> str:
        params = ", ".join(
            f"{p.name}: {p.type}" + (f" = {p.default}" if p.default else "") for p in self.params
        )
        tail = f" -> {self.returns}" if self.returns else ""
        return f"{self.name}({params}){tail}"


@dataclass(frozen=True)
class EnumSpec:
    """An enumeration a pack declares: a type whose values are plain names."""

    name: str
    doc: str
    values: Mapping[str, str]  # value -> what it means


@dataclass(frozen=True)
class EventSpec:
    name: str
    doc: str
    located: bool  # a location's trigger fires only for events at that location
    bindings: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class WindowSpec:
    name: str
    doc: str
    bindings: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TraitSpec:
    name: str
    type: str  # count, int, bool or an enumeration
    default: Any
    doc: str
    low: int | None = None  # the bounds of the values characters are given (numbers only)
    high: int | None = None
    quiet: bool = False  # its changes are logged but not told (no text of its own)
    role: str | None = None  # what the engine itself does with it (`TRAIT_ROLES`)

    @property
    def count(self) -> bool:
        """A number of things: never negative (see the `count` type)."""
        return self.type == "count"


@dataclass(frozen=True)
class PileSpec:
    """A pile a pack declares, as effects see it: what its entries are and whose piles they are."""

    name: str
    doc: str
    of: str  # the type of its entries
    per: str  # game, player, location, or a kind of pieces (see PILE_OWNER_TYPES)
    owner: str = ""  # the type of its owners: "" (the game's), player, location, a kind of pieces'
    sized: bool = False  # it declares a `size`: how many entries each of its piles holds at most


@dataclass(frozen=True)
class GraphSpec:
    """A graph a pack declares, as effects see it: what its places are and the states of its edges."""

    name: str
    doc: str
    of: str  # the type of its places (a type of the pack's entities)
    states: Mapping[str, str] = field(default_factory=dict)  # a state of some kind of edge -> its kind


@dataclass(frozen=True)
class ContextSpec:
    """Where an effect text sits in content, and the names it may use implicitly."""

    name: str
    doc: str
    bindings: dict[str, str]
    procedures_allowed: bool = False
    role: str = ""  # of a context a pack declares: the engine's role it plays ("": the engine's own)


# --- declarations -----------------------------------------------------------------

_SIG = re.compile(r"^(?P<name>[a-z_][a-z0-9_]*)\((?P<params>.*)\)\s*(?:->\s*(?P<ret>.+))?$")
_PARAM = re.compile(
    r"^(?P<name>[a-z_]+)\s*:\s*(?P<type>[A-Za-z_]+(?:\[[A-Za-z_\[\], ]*\])?)\s*(?:=\s*(?P<default>.+))?$"
)

_SIGNATURES: dict[str, Signature] = {}


def parse_param(name: str, spec: str) -> Param | None:
    """A parameter written `type` or `type = default` (as in a pack's verb), or None if malformed."""
    match = _PARAM.match(f"{name}: {spec.strip()}")
    return None if match is None else Param(match["name"], normalize_type(match["type"]), match["default"])


def _split_top(text: str) -> list[str]:
    """Split at the commas outside brackets: `a: list[T], b: map[K, V]` -> two parts."""
    parts: list[str] = []
    depth = start = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _declare(kind: Kind, spec: str, doc: str, value_type_from: str | None = None, asks: bool = False) -> None:
    match = _SIG.match(spec)
    if match is None:
        raise ValueError(f"bad registry signature {spec!r}")
    params: list[Param] = []
    if match["params"].strip():
        for part in _split_top(match["params"]):
            pm = _PARAM.match(part.strip())
            if pm is None:
                raise ValueError(f"bad registry parameter {part!r} in {spec!r}")
            params.append(Param(pm["name"], pm["type"], pm["default"]))
    name = match["name"]
    if name in _SIGNATURES:
        raise ValueError(f"{name} declared twice in the registry")
    _SIGNATURES[name] = Signature(
        name, kind, tuple(params), match["ret"], doc, value_type_from=value_type_from, asks=asks
    )


def _verb(spec: str, doc: str, value_type_from: str | None = None) -> None:
    _declare(Kind.VERB, spec, doc, value_type_from)


def _selector(spec: str, doc: str, asks: bool = False, value_type_from: str | None = None) -> None:
    _declare(Kind.SELECTOR, spec, doc, value_type_from, asks=asks)
    if asks:
        _ASKING.add(spec.split("(", 1)[0])


_ASKING: set[str] = set()


def asking_selectors() -> frozenset[str]:
    """The selectors that put a question to a player: never in a condition, worked out first."""
    return frozenset(_ASKING)


def _procedure(spec: str, doc: str) -> None:
    _declare(Kind.PROCEDURE, spec, doc)


# Verbs: statements that change the game.
_verb("no_effect()", "Does nothing; for a power whose only use is to exhaust the character.")
_verb(
    "emit(event: event_name)",
    "Announce an event the pack declares, each of its names given by name (`emit(character_moved,"
    " mover=c, at=here)`; `at` is where an event at a location happens). Triggers on it run now,"
    " or once the current action ends.",
)
_verb("end_action()", "The current action is over: the triggers that wait for the end of an action run.")
_verb(
    "window(player: player, windows: list[window_name])",
    "The player may use the cards and powers of these windows, one at a time, until they pass;"
    " the names the windows bind are given by name (`window(me, [own_move], mover=c)`).",
)
_verb(
    "log(message: message)",
    "Write an entry in the game log: a `log` message of the pack's `messages` section, each of its"
    " placeholders given by name (`log(points_given, player=me, count=2)`); `to=[players]` shows"
    " the entry to those players only.",
)
_verb(
    "move_counters(n: count, kind: counter, from: place, to: place)",
    "Move up to N counters of a kind from one place to another, as many as are there (from a"
    " supply that never runs out, all N; into it, they are gone).",
)
_verb(
    "needs(test: bool)",
    "What follows could do nothing unless the test holds: when the engine tries whether a card or"
    " power can be used now, the effect stops here if it does not; in play, it does nothing.",
)
_verb("kill_character(target: character)", "A character dies.")
_verb("kill_characters(targets: list[character])", "Several characters die at once, in turn order.")
_verb(
    "move_character(target: character, to: location, overflow: location)",
    "Move a character where it has room (`has_room`); where it has none, it goes to `overflow` instead.",
)
_verb(
    "move_characters(targets: list[character], to: location)",
    "Move several characters to one location, ignoring capacity (an evacuation).",
)
_verb("rest(target: character)", "Flip a character to its rested side (not if its flips are locked).")
_verb(
    "exhaust(target: character)",
    "Flip a rested character to its exhausted side; as a cost, only characters that may pay so.",
)
_selector(
    "pointer(name: pointer) -> any",
    "The entry a pointer the pack declares (`components: pointers`) points at.",
    value_type_from="name",
)
_verb(
    "set_pointer(name: pointer, to: any)",
    "Point a pointer at an entry (no log entry: the pack writes one).",
    value_type_from="name",
)
_verb(
    "move_pointer(name: pointer, steps: int)",
    "Move a pointer N entries on round its cycle (back, if N is negative).",
)
_selector(
    "memory(name: memory) -> any",
    "A value the game remembers (`components: memory`); of a value of each player, the map of the"
    " players' values (a player with none is not in it).",
    value_type_from="name",
)
_verb(
    "remember(name: memory, value: any)",
    "The game remembers this value (of a value of each player: the map of every player's).",
    value_type_from="name",
)
_verb(
    "remember_for(name: memory, player: player, value: any)",
    "The game remembers this value as the player's own (of a value of each player).",
    value_type_from="name",
)
_verb(
    "add_to_memory(name: memory, item: any)",
    "Add an item at the end of a list the game remembers (of the game, not of each player).",
    value_type_from="name",
)
_verb("forget(name: memory)", "The game forgets a value: it is empty again (of each player: nobody has one).")
_selector(
    "cycle(name: pointer) -> list[any]",
    "The entries a pointer moves round, in order: the seats clockwise, or the seated colours of a"
    " list of the pack's components.",
    value_type_from="name",
)
_selector(
    "cycle_from(name: pointer, start: any) -> list[any]",
    "The entries of a pointer's cycle, once round from this one.",
    value_type_from="name",
)
_verb(
    "set_trait(target: character, trait: trait, value: any, until: duration)",
    "Give a character a trait value until the duration ends.",
    value_type_from="trait",
)
_verb("cancel(what: event)", "Cancel the pending card play or movement before any of it happens.")
_verb(
    "flip_board(at: location, side: side)",
    "Turn a place to another of its states (sides); a place without states has none to turn to.",
)

# Selectors: expressions that read the game or ask a player to choose.
_selector("choose(options: list[T]) -> T", "The acting player chooses one of the options.", asks=True)
_selector(
    "choose_number(low: int, high: int) -> int", "The acting player chooses a number in the range.", asks=True
)
_selector(
    "offer_cancel(window: window_name, player: player) -> bool",
    "Each other player in turn order may cancel what the player is doing now, with the cards and"
    " powers of the window (which binds `pending`); the values of the window's question are given"
    " by name (`offer_cancel(cancel_move, me, character=c, location=here)`). True if one did.",
    asks=True,
)
_selector(
    "ask(player: player, options: list[T]) -> T",
    "The player picks one of the options: `ask(player, options, question=q, answer=a, name=value)`."
    " `q` is one of the pack's `decisions`, its placeholders given by name; the player answers"
    " `[a, option]` (`[a, *option]` for an option that is a list), `a` one of the pack's `answers`."
    " A lone option is taken without asking; no option stops the effect.",
    asks=True,
)
_selector(
    "ask_each(options: map[player, list[T]]) -> map[player, T]",
    "Several players answer at once, none seeing the others' answers: `ask_each(options,"
    " question=q, answer=a, name=value)`, `options` giving each player their own options. A"
    " player with one option takes it without being asked; one with none is left out. The value"
    " maps each player, in the order of `options`, to the option they picked.",
    asks=True,
)
_selector("locations() -> list[location]", "Every location in play.")
_selector("other_locations(than: location) -> list[location]", "Every location in play but one.")
_selector("location_of(target: character) -> location", "Where a character is.")
_selector("characters_at(at: location) -> list[character]", "The living characters at a location.")
_selector("all_characters() -> list[character]", "Every living character.")
_selector("my_characters(player: player = me) -> list[character]", "The player's living characters.")
_selector(
    "my_characters_at(at: location, player: player = me) -> list[character]",
    "The player's living characters at a location.",
)
_selector(
    "rested(among: list[character]) -> list[character]",
    "Those of the characters on their rested side.",
)
_selector("exhausted(among: list[character]) -> list[character]", "Those on their exhausted side.")
_selector(
    "players_at(at: location) -> list[player]",
    "The players with at least one character at a location.",
)
_selector("other_players(player: player = me) -> list[player]", "Every player still in the game but one.")
_selector("owner(target: character) -> player", "The player who controls a character.")
_selector(
    "param(name: param) -> any",
    "The value of a rule parameter the pack declares in its `params` section (`param(turns)`);"
    " its type is the one declared there.",
)
_selector("first(items: list[T]) -> T", "The first of the items (lists of characters are in turn order).")
_selector("count(items: list[T]) -> int", "How many items there are.")
_selector("keys(map: map[K, V]) -> list[K]", "The keys of a map, in the order they came into it.")
_selector("values(map: map[K, V]) -> list[V]", "The values of a map, in the order of its keys.")
_selector(
    "get(map: map[K, V], key: K, default: V) -> V",
    "The value of a key, or the default when the map does not hold the key (`map[key]` stops the"
    " effect there).",
)
_selector("size(map: map[K, V]) -> int", "How many keys a map holds (`count` counts a list's items).")
_selector("sum(items: list[int]) -> int", "The numbers added up (0 for none).")
_selector(
    "max(items: list[int]) -> int",
    "The largest of the numbers; of none there is nothing, and the effect stops (as with `first`).",
)
_selector(
    "min(items: list[int]) -> int",
    "The smallest of the numbers; of none there is nothing, and the effect stops (as with `first`).",
)
_selector(
    "range(low: int, high: int) -> list[int]",
    "The whole numbers from low to high, both included, as `choose_number` offers them:"
    " `range(1, 3)` is `[1, 2, 3]`; none when low is above high.",
)
_selector("reversed(items: list[T]) -> list[T]", "The items in the opposite order.")
_selector(
    "index_of(items: list[T], item: T) -> int",
    "Where the item first is in the list, counted from 0 as `items[n]` counts; if it is not there,"
    " the effect stops (test with `in` first).",
)
_selector(
    "count_of(kind: counter, at: place) -> count",
    "How many counters of a kind are at a place (of a supply that never runs out: 0).",
)
_selector(
    "characters(at: location) -> int",
    "The number of characters at a location, hidden ones included.",
)
_selector("is_rested(target: character) -> bool", "Whether a character shows its rested side.")
_selector("is_exhausted(target: character) -> bool", "Whether a character shows its exhausted side.")
_selector("has_items(at: location) -> bool", "Whether items (counters or cards) lie at a location.")
_selector(
    "is_side(at: location, side: side) -> bool",
    "Whether a location shows a given side or state (a place without states shows none).",
)

# Reading the pack's own data (setup and the end of the game, procedures-setup.yaml).
_selector(
    "pack_data(section: pack_section, key: data_key) -> any",
    "A value of the pack's `setup` or `components` section (`pack_data(setup, hours)`), typed as it is"
    " written there: a number, true or false, an id of the pack, or a list of one of those. A column"
    " of a table with a row per number of players (`pack_data(setup, characters)`) gives the value"
    " in the row for the number of seats at this game.",
)
_selector(
    "entity_data(entity: any, key: data_key) -> any",
    "A field of the pack's entry for an entity of one of its kinds (`entity_data(card, count)`),"
    " typed as its kind declares it (else as it is written in every entry of that kind), with the"
    " field's declared default where the entry leaves it out; an entry without a field of no"
    " default has nothing there, and the effect stops, as with the first of nothing. A"
    " field of records (`entity_data(place, sides)`) gives records whose fields it reads in turn"
    " (`entity_data(side, capacity)`).",
)
_selector(
    "has_entity_data(entity: any, key: data_key) -> bool",
    "Whether the pack's entry for an entity of one of its kinds, or a record inside one, has a field"
    " (`has_entity_data(card, window)`): a field an entry may leave out.",
)
_selector(
    "pack_ids(type: entity_type) -> list[any]",
    "Every id the pack defines of a type (`character`, `location`, `colour`, or the type of one of"
    " the pack's kinds of entities), sorted, whether or not the thing is in play.",
)

# Seats, the first player and random draws (the procedures of setup and the end, and of the votes).
_selector(
    "seats() -> list[player]",
    "Every seat at the table, clockwise from the first one, players out of the game included.",
)
_selector(
    "seats_from(player: player) -> list[player]",
    "Every seat at the table, clockwise from this player's, players out of the game included.",
)
_selector("players() -> list[player]", "The players still in the game, in turn order from the first player.")
_selector(
    "random_item(items: list[T]) -> T",
    "One of the items at random, from the game's random generator (of none, the effect stops). The"
    " log's chance event `chance.draw` shows every player how many it was drawn among, not which:"
    " the pack reveals the item to whom it says.",
)
_selector(
    "roll(n: count, sides: count = 6) -> list[int]",
    "N dice of so many sides rolled, from the game's random generator: n whole numbers from 1 to"
    " `sides`, in the order rolled (`roll(2)` may be `[5, 1]`), shown to every player by the log's"
    " chance event `chance.roll` (rolled by whoever chooses for the effect). A die of no sides has"
    " nothing to show: the effect stops, as a choice among nothing does. Checking whether an effect"
    " could happen rolls nothing: every die shows 1 there, and nothing is logged.",
)
_selector(
    "shuffle(items: list[T]) -> list[T]",
    "The items in a random order, from the game's random generator; the log's chance event"
    " `chance.shuffle` shows how many were shuffled, never their order.",
)
_selector("colour_of(player: player) -> colour", "The colour a player plays, as cycles of colours name it.")

# What the procedures of the attack, the votes and the sharing need (procedures-votes.yaml).
_selector(
    "trait(target: character, trait: trait) -> any",
    "The value of a trait of a character: the one an effect gave it, else its own, else the default.",
)
_verb(
    "refuse_state(reason: string)",
    "Stop the game with GAME-STATE: its state is one these rules cannot go on from (a state no game"
    " reaches, such as a record's state changed by hand); the reason says what is wrong.",
)
_selector(
    "attacks(at: location) -> bool",
    "Whether a location is attacked: the attack condition of the side it shows holds.",
)
_selector(
    "items_at(at: location) -> list[any]",
    "What lies at a location, one item of each kind, as the values of an answer: `[name]` for each"
    " kind of counter that is an item (its `item` name in the pack's components) with some there,"
    ' in the order the pack declares them, then `["card", kind]` for each kind of card in the pile'
    " of the location whose role is `items`, in alphabetical order.",
)
_verb(
    "take_item(item: any, from: location, player: player)",
    "The player takes one item lying at a location (a value of `items_at`): one counter of that kind,"
    " or a card into their pile whose role is `hand` (no log entry: the pack writes its own).",
)

# The game's pieces at setup and at the end (City of Horror's state until the pack declares its
# components: these move to the pack then).
_verb(
    "deal_character(target: character, player: player)",
    "A character of the pack (`pack_ids(character)`) comes into play, the player's, rested and at no"
    " location yet.",
)
_selector(
    "has_room(target: character, at: location) -> bool",
    "Whether a location has room for a character going there: the state it shows does not count as"
    " full (its field of role `full`) and holds fewer pieces than its capacity (its field of role"
    " `capacity`; those holding an extra place not counted), or the character takes an extra place."
    " A place without states, or a state without them, has room for any number.",
)
_verb(
    "place_character(target: character, at: location)",
    "Put a character at a location, nothing more: no capacity, no log entry, no event.",
)

_verb(
    "set_ranking(scores: map[player, int], winners: list[player], tie_breaks: list[map[player, int]] = [])",
    "The game's ranking, in a pack that declares one (`result: {kind: ranking}` or `both`): every"
    " player's score, the winners, and each player's value of every tie-break the pack declares, in"
    " their order (the game's `result`, which the scoreboard shows and a record keeps; no log"
    " entry: the pack writes one). In a pack of another result, or given other than one value per"
    " declared tie-break, it stops the game (`RESULT-KIND`, `RESULT-TIE-BREAKS`).",
)
_verb(
    "set_team_result(won: bool)",
    "Whether the players, all together, won, in a pack that declares a team result (`result:"
    " {kind: team}` or `both`): every seat wins or loses with the team. In a pack of another result"
    " it stops the game (`RESULT-KIND`).",
)

_verb(
    "end_game()",
    "Ends the game once the step being played is over: no further step, phase or turn is played"
    " (the turn's end does not happen), and the end steps (`turn: end`) run. In the end steps, or"
    " called again, it does nothing more.",
)

# Movement, the arrivals and the activation of locations (procedures-movement.yaml).
_selector("log_length() -> int", "How many entries the game's log holds: a point of the game's history.")
_selector(
    "may(player: player, option: T) -> bool",
    "The player takes the option or passes: `may(player, option, question=q, answer=a, name=value)`"
    " asks `q`, one of the pack's `decisions`, its placeholders given by name, answered `[pass]`"
    " or `[a, option]` (`[a, *option]` for an option that is a list); true if they took it.",
    asks=True,
)
_selector(
    "can_activate(at: location, player: player) -> bool",
    "Whether the player could use the activation of the side a location shows: they have a"
    " character there, the side has an activation, its condition holds, and its cost and effect"
    " could happen.",
)
_verb(
    "activate(at: location, player: player)",
    "The player uses the activation of the side a location shows: its cost, then its effect.",
)

# The characters' traits and places, the movement cards and the supplies
# (City of Horror's state until the pack declares its components: these move to the pack then).
_selector(
    "traits(target: character) -> any",
    "The traits effects have given a character, with how long each lasts (for `restore_traits`).",
)
_selector(
    "traits_set_since(target: character, since: int) -> list[trait]",
    "The traits an effect has set on a character since a point of the game's history"
    " (`log_length()`), that the character still holds.",
)
_verb(
    "restore_traits(target: character, traits: any)",
    "Give a character back the traits it had (read by `traits`), in place of those it has.",
)
_verb(
    "leave_location(target: character, keeping: list[trait])",
    "The character leaves its location: the traits given until it leaves end, but those in"
    " `keeping` (given for the move, they belong to where it goes). It stands where it was until"
    " `place_character`.",
)
_selector(
    "side_has(at: location, flag: string) -> bool",
    "Whether the side or state a location shows has this yes/no field set to true in the pack"
    ' (`side_has(at, "closed")`); a field it does not set, or a place without states, is false.',
)
_selector(
    "side_is(at: location, field: string, value: string) -> bool",
    "Whether the side or state a location shows has this field set to this text in the pack"
    ' (`side_is(at, "shape", "round")`); a field it does not set, or a place without states, has'
    " no value.",
)
_selector(
    "locked(at: location) -> bool",
    "Whether nobody may leave a location: the state it shows sets its field of role `locked` (a"
    " place without states, or a pack without that role, is never locked).",
)

# Checks and lists (procedures-items.yaml and others).
_verb(
    "require(test: bool)",
    "The effect stops here unless the test holds, as a choice among nothing stops it: in play (a"
    " cost not paid, an effect that fizzles) and when the engine tries whether a card or power"
    " could be used now (`needs` stops it only then).",
)
_selector(
    "sorted(items: list[T]) -> list[T]",
    "The items from the smallest to the largest (numbers by value, names alphabetically).",
)
_selector("distinct(items: list[T]) -> list[T]", "The items, each once, in the order they first come.")

# Piles the pack declares (`components: piles`): ordered entries, the last one on top. A pile kept
# per player or per location is named with its owner (`pile(hands, me)`); one of the game without.
_selector(
    'pile(pile: pile, owner: any = "") -> list[any]',
    "The entries of a pile, from the bottom to the top (typed as the pile declares them); `owner`"
    " says whose, for a pile kept per player or per location.",
)
_selector('pile_size(pile: pile, owner: any = "") -> count', "How many entries a pile holds.")
_selector(
    'pile_room(pile: pile, owner: any = "") -> count',
    "How many more entries a pile of a declared `size` can take (`pile_room(hands, survivor)`); a"
    " pile without a size has no room to count (`EFF-PILE-SIZE`). An effect that puts more in a pile"
    " than its size stops the game (`PILE-FULL`).",
)
_verb(
    'set_pile(pile: pile, entries: list[any], owner: any = "")',
    "The pile holds these entries, the last on top (what it held is gone).",
)
_verb(
    'move_entry(entry: any, from: pile, to: pile, from_owner: any = "", to_owner: any = "")',
    "The lowest entry of this value leaves a pile for the top of another (`move_entry(card, hands,"
    " discard, from_owner=me)`); if the pile holds none, nothing happens.",
)
_verb(
    'move_at(index: int, from: pile, to: pile, from_owner: any = "", to_owner: any = "")',
    "The entry at this place of a pile (0 the bottom, as `pile(...)[index]` counts) goes onto the top"
    " of another; a place the pile does not have stops the effect.",
)
_verb(
    'move_top(n: count, from: pile, to: pile, from_owner: any = "", to_owner: any = "")',
    "The top N entries of a pile (as many as it holds) go onto another one at a time, the top one"
    " first, as cards dealt from a deck.",
)

# Graphs the pack declares (`components: graphs`): places joined by undirected edges, each of a kind
# the graph declares; an edge of a kind with states is passable in some of them. The graph is named
# as counters are (`distance(board, here, there)`); its places are of the type the graph says.
_selector(
    "neighbours(graph: graph, place: any) -> list[any]",
    "The places joined to a place by a passable edge, in the order the graph declares its edges.",
    value_type_from="graph",
)
_selector(
    "joined(graph: graph, place: any) -> list[any]",
    "The places joined to a place by an edge, whatever its state (a closed door's other side"
    " too), in the order the graph declares its edges.",
    value_type_from="graph",
)
_selector(
    "distance(graph: graph, from: any, to: any) -> count",
    "How many steps across passable edges the nearest way from one place to another takes (0 to"
    " itself); a place that cannot be reached has no distance, and the effect stops (as with"
    " `first`): test with `to in within(graph, from, n)` first.",
    value_type_from="graph",
)
_selector(
    "first_steps(graph: graph, from: any, to: any) -> list[any]",
    "The neighbours of `from` on a shortest way to `to`, in the order of `neighbours`; none when"
    " `to` is `from` itself or cannot be reached.",
    value_type_from="graph",
)
_selector(
    "nearest(graph: graph, from: any, places: list[any]) -> list[any]",
    "Those of the places at the least distance from `from`, in their order in `places`; none when"
    " none of them can be reached.",
    value_type_from="graph",
)
_selector(
    "within(graph: graph, place: any, n: int) -> list[any]",
    "The places at most N steps away across passable edges, the place itself included; the nearer"
    " first, at one distance in the order the graph first names them in its edges.",
    value_type_from="graph",
)
_selector(
    "in_sight(graph: graph, place: any) -> list[any]",
    "The places seen from a place along the graph's lines: the place itself, and along each line"
    " through it, both ways, every place up to the first edge that is not passable (the place"
    " beyond it is not seen); in the order the graph first names them in its edges.",
    value_type_from="graph",
)
_selector(
    "edge_state(graph: graph, a: any, b: any) -> edge_state",
    "The state of the edge between two places (either way round); if no edge with states joins"
    " them, there is none, and the effect stops (as with `first`).",
    value_type_from="graph",
)
_verb(
    "set_edge_state(graph: graph, a: any, b: any, state: edge_state)",
    "Put the edge between two places in a state its kind declares (no log entry: the pack writes"
    " one); a state its kind does not declare, or two places no edge with states joins, stop the"
    " game with an error.",
    value_type_from="graph",
)

# Procedures: the steps of the turn structure, usable in turn.yaml and in the pack's own verbs.
_procedure(
    "action_window(windows: list[window_name] = [anytime], gifts: count = 1)",
    "Every player still in the game, in turn order and round again, may play the cards and use the"
    " powers of these windows and give away cards or items (at most `gifts` each), until all"
    " pass in a row. The question is `act`, its purpose the first window"
    " (`action_window([before_attack, anytime])`); in a per-location step, its location `here`.",
)


# The contexts of the bodies of the verbs a pack defines (their parameters are their names).
VERB_CONTEXTS = frozenset({"verb", "selector", "asking_selector"})

# What the engine itself does with a yes/no trait of a piece, by role, and the value it takes
# for every piece in a pack whose traits play no such role. A pack gives a role to one of its
# traits (`role:` in `traits`); the engine reads no trait by name.
TRAIT_ROLES: dict[str, tuple[bool, str]] = {
    "unselectable": (False, "a verb aimed at the piece alone, such as `kill_character`, leaves it be"),
    "extra_place": (False, "the piece may enter a full place, taking a place of its own beside the capacity"),
    "side_locked": (False, "the piece is never rested or exhausted again"),
    "pays_by_exhausting": (True, "exhausting the piece may pay a price"),
}

# What the engine itself reads of a state (a side) of a place, by role, with the field types
# that may play it. A place kind's fields hold its states as a list of records; a field of those
# records plays one of these roles by its `role:` (`kinds: <kind>: fields:`), and the engine reads
# no field of a state by name. A state without a field of a role takes the role's neutral value;
# a place without states has no side, room for any number of pieces, and is never full nor locked.
PLACE_STATE_ROLES: dict[str, tuple[tuple[str, ...], str]] = {
    "state_name": (
        ("name", "id"),
        "names the state: the side the board's `sides` start a place on, and that `flip_board`,"
        " `is_side` and the log give",
    ),
    "capacity": (
        ("count", "int"),
        "how many pieces fit (a word the field takes besides numbers, such as `unlimited`, and a"
        " state without it: no limit)",
    ),
    "full": (("bool",), "counts as full: nothing has room there (`has_room`), whatever its capacity"),
    "locked": (("bool",), "nobody leaves (`locked(at)`)"),
    "reached_from": (
        ("list[name]", "list[id]"),
        "the states it is reached from: never one a place starts on, only an effect turns it to it",
    ),
}

# What the engine reads of a field a pack adds to its `setup` (`section_fields: setup`), by role,
# with the field types that may play it: a field plays one by its `role:`, once in a pack.
SETUP_FIELD_ROLES: dict[str, tuple[tuple[str, ...], str]] = {
    "overflow": (
        ("location",),  # (the board's places' type, `LOCATION_TYPE`)
        "the place a piece goes to instead when the one it would enter has no room (`has_room`): the"
        " menus say so beside an answer that would move a piece to a full place (`moves_to`)",
    ),
}

# What the engine does with an effect written in an entity, by role: when it runs it and which
# names it binds. A pack names the contexts of its entities' fields (`contexts:` in its
# declarations, each with one of these roles), or uses a role's name as a context.
ROLES: dict[str, ContextSpec] = {
    spec.name: spec
    for spec in (
        ContextSpec(
            "piece_ability",
            "an ability of a piece, used by its owner in a window (using it exhausts the piece)",
            {"self": "character", "here": "location", "me": "player"},
        ),
        ContextSpec(
            "piece_trigger",
            "an automatic effect of a piece",
            {"self": "character", "here": "location", "me": "player"},
        ),
        ContextSpec("card", "a card's condition, cost or effect, played from a hand", {"me": "player"}),
        ContextSpec(
            "place_ability",
            "an ability of a place's side, used by a player who has a piece there",
            {"here": "location", "me": "player"},
        ),
        ContextSpec("place_trigger", "an automatic effect of a place's side", {"here": "location"}),
        ContextSpec(
            "place_condition", "a condition of a place's side (`attacks(at)` reads it)", {"here": "location"}
        ),
    )
}

# The engine's own contexts: the turn structure's and the bodies of the pack's verbs.
ENGINE_CONTEXTS: dict[str, ContextSpec] = {
    spec.name: spec
    for spec in (
        ContextSpec("step", "a step of the turn structure", {}, procedures_allowed=True),
        ContextSpec(
            "location_step",
            "a step run once per location, in resolution order",
            {"here": "location"},
            procedures_allowed=True,
        ),
        ContextSpec("rule_trigger", "a trigger of the turn structure", {}),
        ContextSpec(
            "verb",
            "a verb the pack defines: its parameters are its only names",
            {},
            procedures_allowed=True,
        ),
        ContextSpec(
            "selector",
            "a selector the pack defines (`returns:`): it reads the game and returns a value",
            {},
        ),
        ContextSpec(
            "asking_selector",
            "a selector the pack defines that asks (`returns:` with `asks: true`): it may ask"
            " questions and change the game, and returns a value",
            {},
        ),
    )
}

# Every context the engine knows by name: its own and the roles.
CONTEXTS: dict[str, ContextSpec] = {**ENGINE_CONTEXTS, **ROLES}


def context_spec(name: str, declared: Declarations) -> ContextSpec | None:
    """The context of that name: one the pack declares, else the engine's (None: neither)."""
    return declared.contexts.get(name) or CONTEXTS.get(name)


# Built-in types and what their values are. `list[T]` is a list of T, `map[K, V]` a map from
# keys of type K to values of type V; `T`, `K` and `V` are type variables of the signatures.
TYPES: dict[str, str] = {
    "int": "a whole number",
    "count": "a whole number of things, zero or more (a computed count below zero counts as zero)",
    "bool": "true or false",
    "location": "a location in play (`here`, `@id`, or a selector)",
    "character": "a living character",
    "player": "a player (`me`, or a selector)",
    "colour": "a player's colour (`@id`)",
    "side": "the name of a location side or state, such as `A` or a destroyed state",
    "event": "a pending card play or movement (`pending`)",
    "trait": "a trait the pack declares (its `traits` section)",
    "event_name": "an event the pack declares (its `events` section)",
    "window_name": "a window the pack declares (its `windows` section)",
    "counter": "a kind of counter the pack declares (`components: counters`)",
    "pointer": "a pointer the pack declares (`components: pointers`)",
    "memory": "a value the game remembers, as the pack declares it (`components: memory`)",
    "place": "where counters sit: a location, a player, or a place the pack declares (`components: places`)",
    "pile": "a pile of cards or tokens the pack declares (`components: piles`)",
    "graph": "a graph of places joined by edges the pack declares (`components: graphs`); the places"
    " its primitives take and give (`any` in their signatures) are of the type it says (`of`)",
    "edge_state": "a state of a kind of edge of the pack's graphs (`edge_kinds: ... states`)",
    "string": 'a text in double quotes (`"..."`)',
    "any": "a value whose type another parameter fixes",
}
# The built-in type of the board's places: a kind whose ids are of it has places with states.
LOCATION_TYPE = "location"
# Parameters whose argument is a bare name that is never read as a variable (`param(turns)`).
NAME_TYPES = frozenset({"param", "pack_section", "data_key", "entity_type"})
# The built-in types whose values are the traits, events and windows a pack declares.
TRAIT_TYPE = "trait"
EVENT_TYPE = "event_name"
WINDOW_TYPE = "window_name"
COUNTER_TYPE = "counter"
PLACE_TYPE = "place"
PILE_TYPE = "pile"
POINTER_TYPE = "pointer"
MEMORY_TYPE = "memory"
GRAPH_TYPE = "graph"
EDGE_STATE_TYPE = "edge_state"
_DECLARED_TYPES = frozenset(
    {
        TRAIT_TYPE,
        EVENT_TYPE,
        WINDOW_TYPE,
        COUNTER_TYPE,
        PLACE_TYPE,
        PILE_TYPE,
        POINTER_TYPE,
        MEMORY_TYPE,
        GRAPH_TYPE,
        EDGE_STATE_TYPE,
    }
)
# Whose piles they are (a pile's `per`) -> the type of their owners ("": one pile, no owner).
PILE_OWNER_TYPES = {"game": "", "player": "player", "location": "location"}
# The types whose values are places counters sit at, besides the places a pack names.
PLACE_VALUE_TYPES = frozenset({"location", "player", PLACE_TYPE})


def signature(name: str) -> Signature | None:
    return _SIGNATURES.get(name)


def signatures() -> dict[str, Signature]:
    return dict(_SIGNATURES)


def element_type(type_name: str) -> str | None:
    """The T of `list[T]`, or None for a type that is no list."""
    if type_name.startswith("list[") and type_name.endswith("]"):
        return type_name[5:-1]
    return None


# Type variables of the registry's signatures: `first(items: list[T]) -> T`, `keys(m: map[K, V])`.
TYPE_VARS = frozenset({"T", "K", "V"})
# Types whose values are no names, so no map has them as keys: numbers, truth values, a pending
# event (and lists and maps). A map's keys are text: a map saves as a JSON object and loads equal.
_NOT_KEYS = frozenset({"int", "count", "bool", "event"})


def type_parts(type_name: str) -> tuple[str, list[str]]:
    """`map[player, list[int]]` -> ("map", ["player", "list[int]"]); a plain type has no arguments."""
    head, bracket, rest = type_name.partition("[")
    if not bracket or not rest.endswith("]"):
        return type_name.strip(), []
    return head.strip(), [part.strip() for part in _split_top(rest[:-1])]


def normalize_type(type_name: str) -> str:
    """A type as the registry writes it: `map[player,int]` -> `map[player, int]`."""
    head, args = type_parts(type_name)
    return f"{head}[{', '.join(normalize_type(a) for a in args)}]" if args else head


def map_types(type_name: str) -> tuple[str, str] | None:
    """The K and V of `map[K, V]`, or None for a type that is no map."""
    head, args = type_parts(type_name)
    return (args[0], args[1]) if head == "map" and len(args) == 2 else None


def map_of(key: str, value: str) -> str:
    return f"map[{key}, {value}]"


def is_key_type(type_name: str) -> bool:
    """Whether values of a type can be the keys of a map: names (players, colours, characters,
    locations, values of an enumeration, ids), not numbers, truth values, lists or maps."""
    return type_name not in _NOT_KEYS and not type_parts(type_name)[1]


@dataclass(frozen=True)
class Declarations:
    """What a pack declares for its effects besides verbs: enumerations, traits, events, windows.

    The registry holds the built-in types and primitives; the words of a particular game
    (its enumerations' values, its traits, events and windows) come from its pack.
    """

    types: Mapping[str, EnumSpec] = field(default_factory=dict)
    traits: Mapping[str, TraitSpec] = field(default_factory=dict)
    events: Mapping[str, EventSpec] = field(default_factory=dict)
    windows: Mapping[str, WindowSpec] = field(default_factory=dict)
    counters: Mapping[str, str] = field(default_factory=dict)  # kind -> what they are
    places: Mapping[str, str] = field(default_factory=dict)  # a place's name -> what it is
    piles: Mapping[str, PileSpec] = field(default_factory=dict)  # a pile's name -> its declaration
    pointers: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # name -> (what it is, its type)
    # name -> (what it is, the type of its whole value: of a value of each player, a map by player)
    memory: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    graphs: Mapping[str, GraphSpec] = field(default_factory=dict)  # a graph's name -> its declaration
    contexts: Mapping[str, ContextSpec] = field(
        default_factory=dict
    )  # contexts of entities' effects, by name
    # The types of `@id`s the pack's kinds of entities make (beside the built-in ones) -> what they are.
    entity_types: Mapping[str, str] = field(default_factory=dict)
    # False when a section of them failed to load: a name not found may be declared there.
    complete: bool = True
    # The names declared by entries the schema rejected (reported there): a use of one is not
    # reported again, as unknown or of another kind.
    rejected: frozenset[str] = frozenset()

    def members(self, type_name: str) -> Mapping[str, str] | None:
        """The values of an enumeration with what each means (of `trait`, `event_name` and
        `window_name`: the traits, events and windows the pack declares), or None."""
        if type_name == TRAIT_TYPE:
            return {name: spec.doc for name, spec in self.traits.items()}
        if type_name == EVENT_TYPE:
            return {name: spec.doc for name, spec in self.events.items()}
        if type_name == WINDOW_TYPE:
            return {name: spec.doc for name, spec in self.windows.items()}
        if type_name == COUNTER_TYPE:
            return self.counters
        if type_name == PLACE_TYPE:
            return self.places
        if type_name == PILE_TYPE:
            return {name: spec.doc for name, spec in self.piles.items()}
        if type_name == POINTER_TYPE:
            return {name: doc for name, (doc, _) in self.pointers.items()}
        if type_name == MEMORY_TYPE:
            return {name: doc for name, (doc, _) in self.memory.items()}
        if type_name == GRAPH_TYPE:
            return {name: spec.doc for name, spec in self.graphs.items()}
        if type_name == EDGE_STATE_TYPE:
            return {
                state: f"a state of the `{kind}` edges of `{name}`"
                for name, spec in self.graphs.items()
                for state, kind in spec.states.items()
            }
        spec = self.types.get(type_name)
        return None if spec is None else spec.values

    def is_enum(self, type_name: str) -> bool:
        return type_name in _DECLARED_TYPES or type_name in self.types

    def enums_with(self, value: str) -> list[str]:
        """The enumerations the pack declares (`types`) that have `value` among their values, in
        alphabetical order: a value written where no type is expected is of the one that has it."""
        return sorted(name for name, spec in self.types.items() if value in spec.values)

    def enum_names(self) -> list[str]:
        """Every enumeration, `trait` included, in alphabetical order."""
        return sorted({TRAIT_TYPE, *self.types})

    def is_rejected_type(self, type_name: str) -> bool:
        """Whether a type is, or holds, one declared by an entry the schema rejected (an
        enumeration whose declaration is broken): reported there, not where it is used."""
        head, args = type_parts(type_name)
        return head in self.rejected or any(self.is_rejected_type(arg) for arg in args)

    def is_known_type(self, type_name: str) -> bool:
        """A type a parameter may have: a built-in type, an enumeration, a list of a known type,
        or a map from a known type of names to a known type."""
        head, args = type_parts(type_name)
        if head == "list" and len(args) == 1:
            return self.is_known_type(args[0])
        if head == "map" and len(args) == 2:
            return is_key_type(args[0]) and self.is_known_type(args[0]) and self.is_known_type(args[1])
        return (
            not args
            and type_name != "any"
            and (type_name in TYPES or type_name in self.entity_types or self.is_enum(type_name))
        )

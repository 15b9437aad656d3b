"""The engine's implementation of every verb and selector the registry declares.

Each function takes the runtime first and its arguments in declaration order. None asks a
question: verbs that ask are the pack's, and built-ins that run an engine program (an event's
triggers, a window) return its frame. Nothing here names a card, a character or a location.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from coh_core.engine.compile.model import Impl
from coh_core.engine.flow import (
    END,
    action_end_frame,
    action_window,
    event_frame,
    idle,
    run_frame,
    window_frame,
)
from coh_core.engine.machine import Frame
from coh_core.engine.runtime import EngineError, NoOptions, Rt
from coh_core.limits import MAX_LIST_ITEMS, MAX_NUMBER
from coh_core.packs.pack_data import section_value
from coh_core.packs.results import RANKING_VERB, TEAM_VERB, ResultSpec, result_kind_fault, tie_breaks_fault

IMPLS: dict[str, Impl] = {}
F = TypeVar("F", bound=Callable[..., Any])


def _impl(
    name: str,
    check: Any = None,
    frame: bool = False,
    inline: str | None = None,
    need: str | None = None,
    **filters: Any,
) -> Callable[[F], F]:
    def register(fn: F) -> F:
        IMPLS[name] = Impl(fn, filters, check, frame, inline, need)
        return fn

    return register


def _need(condition: bool) -> None:
    if not condition:
        raise NoOptions


# --- random draws ----------------------------------------------------------------------


# --- counters at places ---------------------------------------------------------------------


# (inline without `int()`: the counts are numbers, and `int(...)` is a slow call in the interpreter)
@_impl("count_of", inline='rt.game.state["counts"][{1}][{0}]')
def count_of(rt: Rt, kind: str, at: str) -> int:
    return int(rt.game.state["counts"][at][kind])


@_impl("move_counters")
def move_counters(rt: Rt, n: int, kind: str, source: str, to: str) -> None:
    """As many as are at `source` (a supply that never runs out has all N; N into it are gone)."""
    # (typed: the compiled build reads it directly)
    counts: dict[str, dict[str, int]] = rt.game.state["counts"]
    counter = rt.game.rules.counters[kind]
    endless = counter.supply_at if counter.supply is None else None
    moved = max(0, n if source == endless else min(n, counts[source][kind]))
    if source != endless:
        counts[source][kind] -= moved
    if to != endless:
        counts[to][kind] += moved
    rt.game.journal.counts += 1


def _needs(rt: Rt, test: bool) -> None:
    _need(test)


@_impl("needs", check=_needs, need="{0}")
def needs(rt: Rt, test: bool) -> None:
    """In play nothing: what it tests matters only when the engine tries a card or power (`_needs`)."""


@_impl("no_effect")
def no_effect(rt: Rt) -> None:
    return None


@_impl("param", inline="rt.game.rules.params[{0}]")
def param(rt: Rt, name: str) -> Any:
    return rt.game.rules.params[name]


@_impl("log")
def log(rt: Rt, message: str, to: list[str] | None, params: dict[str, Any]) -> None:
    """An entry of the pack's own (a list is copied: the entry keeps the value it had)."""
    values = params.copy()
    for name, value in params.items():
        if isinstance(value, list):
            values[name] = value.copy()
    game = rt.game
    state = game.state  # (`Game.note_params`, written out: the pack logs at almost every step)
    entry = {"key": message, "turn": state["turn"], "params": values}
    if to is not None:
        entry["to"] = list(to)
    game.log.append(entry)
    game.places.append([state.get("phase"), state.get("at")])


# --- events, windows, the end of an action: engine programs -------------------------------


@_impl("emit", frame=True)
def emit(rt: Rt, event: str, names: dict[str, Any]) -> Frame | None:
    """The triggers of the event (`at`, where it happens, is not one of its names)."""
    names = dict(names)
    at = names.pop("at", None)
    return event_frame(rt.game, event, at, names)


@_impl("end_action", frame=True)
def end_action(rt: Rt) -> Frame | None:
    return action_end_frame(rt.game)


@_impl("window", frame=True)
def window(rt: Rt, player: str, windows: list[str], names: dict[str, Any]) -> Frame | None:
    opened, given = tuple(windows), dict(names)
    if idle(rt.game, [player], opened):  # it would ask nobody
        rt.game.check_window_names(opened, given)
        return None
    return window_frame(rt.game, "one", opened, given, player=player)


IMPLS["action_window"] = Impl(action_window, frame=True)


@_impl("offer_cancel", frame=True)
def offer_cancel(rt: Rt, window: str, player: str, values: dict[str, Any]) -> Frame:
    """Each other player may cancel: the window ends with whether one did."""
    pending = rt.game.open_pending({"kind": window, "player": player, **values})
    return window_frame(rt.game, "others", (window,), {"pending": pending})


# --- characters --------------------------------------------------------------------------


def _alive(rt: Rt, character: Any) -> bool:
    return bool(rt.game.pieces[character]["alive"])


def _selectable(rt: Rt, character: Any) -> bool:
    return rt.game.selectable(character)


@_impl("kill_character", frame=True, target=_selectable)
def kill_character(rt: Rt, target: str) -> Frame | None:
    """The character dies; the frame that runs the triggers of its death (None: none fire)."""
    return rt.game.kill([target])


@_impl("kill_characters", frame=True)
def kill_characters(rt: Rt, targets: list[str]) -> Frame | None:
    return rt.game.kill(list(targets))


@_impl("move_character", frame=True, target=_alive)
def move_character(rt: Rt, target: str, to: str, overflow: str) -> Frame | None:
    """The character moves (to `overflow` where it has no room); the frame that runs the triggers
    of its move (None: none fire)."""
    game = rt.game
    if not game.has_room(target, to):
        to = overflow
    game.relocate(target, to)
    game.note("character_moved", character=target, location=to)
    return event_frame(game, "character_moved", to, {"mover": target})


@_impl("move_characters")
def move_characters(rt: Rt, targets: list[str], to: str) -> None:
    for target in list(targets):
        rt.game.relocate(target, to)
        rt.game.note("character_moved", character=target, location=to)


def _restable(rt: Rt, character: Any) -> bool:
    return rt.game._can_flip(character, exhaust=False)


def _exhaustible(rt: Rt, character: Any) -> bool:
    if rt.paying and not rt.game.pays_by_exhausting(character):
        return False
    return rt.game._can_flip(character, exhaust=True)


def _check_rest(rt: Rt, target: str) -> None:
    _need(_restable(rt, target))


def _check_exhaust(rt: Rt, target: str) -> None:
    _need(_exhaustible(rt, target))


@_impl("rest", check=_check_rest, target=_restable)
def rest(rt: Rt, target: str) -> None:
    if _restable(rt, target):
        rt.game.set_exhausted(target, False)
        rt.game.note("character_rested", character=target)


@_impl("exhaust", check=_check_exhaust, target=_exhaustible)
def exhaust(rt: Rt, target: str) -> None:
    _need(_exhaustible(rt, target))
    rt.game.set_exhausted(target, True)
    rt.game.note("character_exhausted", character=target)


@_impl("set_trait", target=_alive)
def set_trait(rt: Rt, target: str, trait: str, value: Any, until: str) -> None:
    if rt.game.rules.declared.traits[trait].count:
        value = max(0, value)
    rt.game.pieces[target]["traits"][trait] = [value, until]
    rt.game.journal.pieces += 1
    rt.game.note("trait_set", character=target, trait=trait, value=value, until=until)


# --- pointers round their cycles (components: pointers) ------------------------------------------


@_impl("pointer")
def pointer(rt: Rt, name: str) -> Any:
    return rt.game.state["pointers"][name]


@_impl("set_pointer")
def set_pointer(rt: Rt, name: str, to: Any) -> None:
    rt.game.state["pointers"][name] = to
    rt.game.journal.pointers += 1


@_impl("move_pointer")
def move_pointer(rt: Rt, name: str, steps: int) -> None:
    state = rt.game.state
    cycle = state["cycles"][name]
    state["pointers"][name] = cycle[(cycle.index(state["pointers"][name]) + steps) % len(cycle)]
    rt.game.journal.pointers += 1


@_impl("cycle")
def cycle(rt: Rt, name: str) -> list[Any]:
    return list(rt.game.state["cycles"][name])


@_impl("cycle_from")
def cycle_from(rt: Rt, name: str, start: Any) -> list[Any]:
    cycle: list[Any] = rt.game.state["cycles"][name]
    if start not in cycle:
        raise EngineError("GAME-STATE", f"{start} is not in the cycle of {name}")
    index = cycle.index(start)
    return cycle[index:] + cycle[:index]


# --- what the game remembers (components: memory) -------------------------------------------------


# A value remembered is never changed in place: writing one replaces it, so a value read earlier
# (shared, not copied) keeps what it held; the effect language changes no list or map in place.
@_impl("memory")
def memory(rt: Rt, name: str) -> Any:
    return rt.game.state["memory"][name]


@_impl("remember")
def remember(rt: Rt, name: str, value: Any) -> None:
    rt.game.state["memory"][name] = value
    rt.game.journal.remembered(name)


@_impl("remember_for")
def remember_for(rt: Rt, name: str, player: str, value: Any) -> None:
    if not rt.game.rules.memory[name].per_player:
        raise EngineError("GAME-STATE", f"`{name}` is remembered for the game, not for each player")
    memory = rt.game.state["memory"]
    memory[name] = {**memory[name], player: value}
    rt.game.journal.remembered(name)


@_impl("add_to_memory")
def add_to_memory(rt: Rt, name: str, item: Any) -> None:
    memory = rt.game.state["memory"]
    if not isinstance(memory[name], list):
        raise EngineError("GAME-STATE", f"`{name}` is no list to add to")
    memory[name] = [*memory[name], item]
    rt.game.journal.remembered(name)


@_impl("forget")
def forget(rt: Rt, name: str) -> None:
    rt.game.state["memory"][name] = [] if isinstance(rt.game.rules.memory[name].empty, list) else {}
    rt.game.journal.remembered(name)


# --- information -------------------------------------------------------------------------------


@_impl("cancel")
def cancel(rt: Rt, what: str) -> None:
    rt.game.pending[what]["cancelled"] = True


# --- tokens, boards, points ----------------------------------------------------------------------


@_impl("flip_board")
def flip_board(rt: Rt, at: str, side: str) -> None:
    if (at, side) not in rt.game.rules.sides:  # (a place without sides has none to turn to)
        raise EngineError("GAME-STATE", f"`{at}` has no side or state `{side}`")
    rt.game.state["locations"][at]["side"] = side
    rt.game.journal.locations += 1
    rt.game.note("board_flipped", location=at, side=side)


# --- selectors ------------------------------------------------------------------------------------


def _plain(name: str, fn: Any, inline: str | None = None) -> None:
    IMPLS[name] = Impl(fn, inline=inline)


_plain("locations", lambda rt: list(rt.game.state["order"]), 'list(rt.game.state["order"])')
_plain("other_locations", lambda rt, than: [loc for loc in rt.game.state["order"] if loc != than])
_plain("location_of", lambda rt, target: rt.game.pieces[target]["at"], 'rt.game.pieces[{0}]["at"]')
_plain("characters_at", lambda rt, at: rt.game.at(at), "rt.game.at({0})")
_plain("all_characters", lambda rt: rt.game.living())
_plain("my_characters", lambda rt, player: rt.game.living(player), "rt.game.living({0})")
_plain(
    "my_characters_at",
    lambda rt, at, player: [c for c in rt.game.living(player) if rt.game.pieces[c]["at"] == at],
)
_plain("rested", lambda rt, among: [c for c in among if not rt.game.pieces[c]["exhausted"]])
_plain("exhausted", lambda rt, among: [c for c in among if rt.game.pieces[c]["exhausted"]])
_plain(
    "players_at",
    lambda rt, at: list(dict.fromkeys(rt.game.pieces[c]["owner"] for c in rt.game.at(at))),
)
_plain(
    "other_players",
    lambda rt, player: [p for p in rt.game.turn_order() if p != player],
    "[_p_ for _p_ in rt.game.turn_order() if _p_ != {0}]",
)
_plain("owner", lambda rt, target: rt.game.pieces[target]["owner"], 'rt.game.pieces[{0}]["owner"]')
_plain("count", lambda rt, items: len(items), "len({0})")
_plain("keys", lambda rt, map: list(map), "list({0})")
_plain("values", lambda rt, map: list(map.values()), "list({0}.values())")
_plain("get", lambda rt, map, key, default: map.get(key, default), "{0}.get({1}, {2})")
_plain("size", lambda rt, map: len(map), "len({0})")
_plain("characters", lambda rt, at: len(rt.game.at(at)))
_plain(
    "is_rested",
    lambda rt, target: not rt.game.pieces[target]["exhausted"],
    '(not rt.game.pieces[{0}]["exhausted"])',
)
_plain(
    "is_exhausted",
    lambda rt, target: bool(rt.game.pieces[target]["exhausted"]),
    'bool(rt.game.pieces[{0}]["exhausted"])',
)
_plain("has_items", lambda rt, at: rt.game.has_items(at))
_plain(
    "is_side",
    lambda rt, at, side: rt.game.state["locations"][at]["side"] == side,
    '(rt.game.state["locations"][{0}]["side"] == {1})',
)


@_impl("first")
def first(rt: Rt, items: list[Any]) -> Any:
    if not items:
        raise NoOptions("first of nothing")
    return items[0]


# --- the pack's data; seats; random draws (the procedures of setup and the end of the game) ---


@_impl("pack_data")
def pack_data(rt: Rt, section: str, key: str) -> Any:
    try:
        return section_value(rt.game.rules.pack, section, key, len(rt.game.state["players"]))
    except KeyError:
        raise NoOptions(f"no {key} in {section}") from None


@_impl("entity_data")
def entity_data(rt: Rt, entity: Any, key: str) -> Any:
    """A field of an entity (by its id) or of a record read from one (a mapping)."""
    entry = entity if isinstance(entity, dict) else rt.game.rules.entries[entity]
    value = entry.get(key, _MISSING)
    if value is _MISSING:
        raise NoOptions(f"no {key} in {entity}")
    return list(value) if isinstance(value, list) else value


@_impl("has_entity_data")
def has_entity_data(rt: Rt, entity: Any, key: str) -> bool:
    entry = entity if isinstance(entity, dict) else rt.game.rules.entries[entity]
    return key in entry


_MISSING = object()


@_impl("pack_ids")
def pack_ids(rt: Rt, type_name: str) -> list[str]:
    return list(rt.game.rules.ids.get(type_name, ()))


_plain("seats", lambda rt: list(rt.game.state["players"]), 'list(rt.game.state["players"])')
_plain("seats_from", lambda rt, player: rt.game.seat_order(player))
_plain("players", lambda rt: rt.game.turn_order(), "rt.game.turn_order()")
_plain("colour_of", lambda rt, player: player)


# Each draw from the game's generator is a chance event in the log (`coh_core.messages.CHANCE`),
# shown to everyone with what it reveals; a dry run draws nothing and logs nothing.


@_impl("random_item")
def random_item(rt: Rt, items: list[Any]) -> Any:
    """`Rng.choice`; a dry run draws nothing (the first item stands for any). The entry tells how
    many the item was drawn among, not the item: the pack reveals it, to whom it says."""
    if not items:
        raise NoOptions("a random item of nothing")
    if rt.dry:
        return items[0]
    rt.game.note("chance.draw", count=len(items))
    return rt.game.rng.choice(items)


@_impl("roll")
def roll(rt: Rt, n: int, sides: int) -> list[int]:
    """N draws of `Rng.randbelow(sides) + 1`; a dry run draws nothing (every die shows 1). Dice
    are rolled on the table: the entry shows them to everyone, rolled by whoever chooses for the
    effect (`Rt.chooser`)."""
    if n > MAX_LIST_ITEMS:  # refused before anything is drawn
        raise EngineError("ENGINE-LIMIT", f"{n:,} dice; a list holds at most {MAX_LIST_ITEMS:,} items")
    if n > 0 and sides < 1:
        raise NoOptions("a die of no sides")
    if rt.dry:
        return [1] * n
    below = rt.game.rng.randbelow
    dice = [below(sides) + 1 for _ in range(n)]
    rt.game.note("chance.roll", player=rt.chooser(), dice=list(dice), sides=sides)
    return dice


@_impl("shuffle")
def shuffle(rt: Rt, items: list[Any]) -> list[Any]:
    """`Rng.shuffle` of a copy; a dry run draws nothing (the items stay in their order). The entry
    tells how many were shuffled; their order is revealed to nobody."""
    found = list(items)
    if not rt.dry:
        rt.game.rng.shuffle(found)
        rt.game.note("chance.shuffle", count=len(found))
    return found


# --- characters dealt and placed at setup ---------------------------------------------------


@_impl("deal_character")
def deal_character(rt: Rt, target: str, player: str) -> None:
    rt.game.deal(target, player)


@_impl("has_room")
def has_room(rt: Rt, target: str, at: str) -> bool:
    return rt.game.has_room(target, at)


@_impl("place_character")
def place_character(rt: Rt, target: str, at: str) -> None:
    rt.game.place(target, at)


# --- lists of numbers and lists in general -------------------------------------------------


@_impl("sum")
def sum_of(rt: Rt, items: list[int]) -> int:
    total = sum(items)
    if not -MAX_NUMBER <= total <= MAX_NUMBER:
        raise EngineError("ENGINE-LIMIT", f"a number beyond {MAX_NUMBER:,} in magnitude")
    return total


@_impl("max")
def max_of(rt: Rt, items: list[int]) -> int:
    if not items:
        raise NoOptions("max of nothing")
    return max(items)


@_impl("min")
def min_of(rt: Rt, items: list[int]) -> int:
    if not items:
        raise NoOptions("min of nothing")
    return min(items)


@_impl("range")
def range_of(rt: Rt, low: int, high: int) -> list[int]:
    if high - low + 1 > MAX_LIST_ITEMS:  # refused before the list is built
        raise EngineError(
            "ENGINE-LIMIT",
            f"a range of {high - low + 1:,} numbers; a list holds at most {MAX_LIST_ITEMS:,} items",
        )
    return list(range(low, high + 1))


@_impl("reversed")
def reversed_of(rt: Rt, items: list[Any]) -> list[Any]:
    return items[::-1]


@_impl("index_of")
def index_of(rt: Rt, items: list[Any], item: Any) -> int:
    try:
        return items.index(item)
    except ValueError:
        raise NoOptions("index of an item not there") from None


# --- what the procedures of movement, arrivals and activation need (procedures-movement.yaml) ---


_plain("log_length", lambda rt: len(rt.game.log), "len(rt.game.log)")
_plain("locked", lambda rt, at: rt.game.side(at).locked)
_plain(
    "side_has",
    lambda rt, at, flag: rt.game.side(at).data.get(flag) is True,
    "(rt.game.side({0}).data.get({1}) is True)",
)
_plain("side_is", lambda rt, at, field, value: rt.game.side(at).data.get(field) == value)


@_impl("traits")
def traits(rt: Rt, target: str) -> dict[str, Any]:
    """A copy: the character's traits may change while the copy waits to be given back."""
    return {name: list(given) for name, given in rt.game.pieces[target]["traits"].items()}


@_impl("traits_set_since")
def traits_set_since(rt: Rt, target: str, since: int) -> list[str]:
    """`set_trait` writes every trait it sets in the log: those of the character since `since`."""
    held = rt.game.pieces[target]["traits"]
    found: dict[str, None] = {}
    for entry in rt.game.log[max(0, since) :]:
        params = entry["params"]
        if entry["key"] == "trait_set" and params["character"] == target and params["trait"] in held:
            found[params["trait"]] = None
    return list(found)


@_impl("leave_location")
def leave_location(rt: Rt, target: str, keeping: list[str]) -> None:
    traits = rt.game.pieces[target]["traits"]
    rt.game.leave(target, kept={name: traits[name] for name in keeping if name in traits})


@_impl("restore_traits")
def restore_traits(rt: Rt, target: str, traits: dict[str, Any]) -> None:
    rt.game.pieces[target]["traits"] = {name: list(given) for name, given in traits.items()}
    rt.game.journal.pieces += 1


@_impl("can_activate")
def can_activate(rt: Rt, at: str, player: str) -> bool:
    game = rt.game
    activation = game.side(at).activation
    if activation is None:
        return False
    chars = game.pieces  # (a living character of the player's there: `at`, without listing them all)
    for c in game._living_by_player().get(player, ()):
        if chars[c]["at"] == at:
            return game._could(activation, {"here": at, "me": player}, player)
    return False


@_impl("activate", frame=True)
def activate(rt: Rt, at: str, player: str) -> Frame | None:
    activation = rt.game.side(at).activation
    return None if activation is None else run_frame(rt.game, activation, {"here": at, "me": player}, player)


# --- the attack, the votes and the sharing (procedures-votes.yaml) ----------------------------


# --- the score -----------------------------------------------------------------------------------


@_impl("end_game")
def end_game(rt: Rt) -> None:
    state = rt.game.state
    if state["phase"] != END:
        state["ending"] = True  # (only once it is asked for: other games' states keep their layout)


@_impl("set_ranking")
def set_ranking(rt: Rt, scores: dict[str, int], winners: list[str], tie_breaks: list[dict[str, int]]) -> None:
    """The ranking part of the result: the scores, the values of each declared tie-break (by its
    id, in the declared order) and the winners."""
    declared = _declared_result(rt, RANKING_VERB)
    if len(tie_breaks) != len(declared.tie_breaks):
        raise EngineError("RESULT-TIE-BREAKS", tie_breaks_fault(len(tie_breaks), declared))
    ranking = {
        "scores": dict(scores),
        "tie_breaks": {t.id: dict(values) for t, values in zip(declared.tie_breaks, tie_breaks, strict=True)},
        "winners": list(winners),
    }
    rt.game.state["result"] = {**(rt.game.state["result"] or {}), **ranking}
    rt.game.journal.result += 1


@_impl("set_team_result")
def set_team_result(rt: Rt, won: bool) -> None:
    """The team part of the result: whether the players, all together, won."""
    _declared_result(rt, TEAM_VERB)
    rt.game.state["result"] = {**(rt.game.state["result"] or {}), "won": bool(won)}
    rt.game.journal.result += 1


def _declared_result(rt: Rt, verb: str) -> ResultSpec:
    """The pack's result, if it has the part `verb` sets; else the game stops (RESULT-KIND)."""
    declared = rt.game.rules.result
    fault = result_kind_fault(verb, declared)
    if fault is not None or declared is None:
        raise EngineError("RESULT-KIND", fault or verb)
    return declared


# --- the attack, the votes and the sharing (procedures-votes.yaml) ----------------------------
# (players, seats_from, colour_of: above, with setup's)

_plain("trait", lambda rt, target, trait: rt.game.trait(target, trait), "rt.game.trait({0}, {1})")


@_impl("refuse_state")
def refuse_state(rt: Rt, reason: str) -> None:
    raise EngineError("GAME-STATE", reason)


def _attacks(rt: Rt, at: str) -> bool:
    side = rt.game.side(at)
    return side.attack_if is not None and bool(side.attack_if(Rt(rt.game, {"here": at}, None)))


_plain("attacks", _attacks)


@_impl("items_at")
def items_at(rt: Rt, at: str) -> list[list[str]]:
    counts = rt.game.state["counts"][at]
    found = [[item] for item, kind in rt.game.rules.items.items() if counts[kind]]
    return found + [["card", kind] for kind in sorted(set(rt.game.role_pile("items", at)))]


@_impl("take_item")
def take_item(rt: Rt, item: list[str], source: str, player: str) -> None:
    kind = rt.game.rules.items.get(item[0])
    if kind is not None:
        move_counters(rt, 1, kind, source, player)
    else:
        rt.game.role_pile("items", source).remove(item[1])
        rt.game.role_pile("hand", player).append(item[1])
        rt.game.journal.pile(rt.game.rules.roles.get("items"), rt.game.rules.roles.get("hand"))


# --- what the procedures of cards and tokens need (procedures-items.yaml) ----------------------


def _require(rt: Rt, test: bool) -> None:
    _need(test)


IMPLS["require"] = Impl(_require, check=_require, need="{0}")
_plain("sorted", lambda rt, items: sorted(items), "sorted({0})")
_plain("distinct", lambda rt, items: list(dict.fromkeys(items)), "list(dict.fromkeys({0}))")

# --- piles the pack declares: lists of entries, the last on top, per owner ("" for the game's) ---


def _pile(rt: Rt, pile: str, owner: str) -> list[Any]:
    return rt.game.state["piles"][pile][owner]  # type: ignore[no-any-return]


_plain(
    "pile",
    lambda rt, pile, owner: list(rt.game.state["piles"][pile][owner]),
    'list(rt.game.state["piles"][{0}][{1}])',
)
_plain(
    "pile_size",
    lambda rt, pile, owner: len(rt.game.state["piles"][pile][owner]),
    'len(rt.game.state["piles"][{0}][{1}])',
)


def _room(rt: Rt, pile: str, owner: str) -> int:
    """The free places of a pile of a declared size (none to count without one: the checker refuses
    `pile_room` of such a pile, so only a pack changed under a running game gets here)."""
    size = rt.game.rules.piles[pile].size
    return 0 if size is None else max(0, size - len(_pile(rt, pile, owner)))


_plain("pile_room", _room)


def _fits(rt: Rt, pile: str, owner: str) -> None:
    """A pile of a declared size holds no more than it: an effect that puts more in is the pack's fault."""
    size = rt.game.rules.piles[pile].size
    if size is None:
        return
    held = len(_pile(rt, pile, owner))
    if held > size:
        whose = f" of `{owner}`" if owner else ""
        raise EngineError("PILE-FULL", f"the pile `{pile}`{whose} holds at most {size}; it would hold {held}")


@_impl("set_pile")
def set_pile(rt: Rt, pile: str, entries: list[Any], owner: str) -> None:
    rt.game.state["piles"][pile][owner] = list(entries)
    rt.game.journal.pile(pile)
    _fits(rt, pile, owner)


@_impl("move_entry")
def move_entry(rt: Rt, entry: Any, source: str, to: str, from_owner: str, to_owner: str) -> None:
    held = _pile(rt, source, from_owner)
    if entry in held:
        held.remove(entry)
        _pile(rt, to, to_owner).append(entry)
        rt.game.journal.pile(source, to)
        _fits(rt, to, to_owner)


def _check_move_at(rt: Rt, index: int, source: str, to: str, from_owner: str, to_owner: str) -> None:
    _need(0 <= index < len(_pile(rt, source, from_owner)))


@_impl("move_at", check=_check_move_at)
def move_at(rt: Rt, index: int, source: str, to: str, from_owner: str, to_owner: str) -> None:
    _check_move_at(rt, index, source, to, from_owner, to_owner)
    _pile(rt, to, to_owner).append(_pile(rt, source, from_owner).pop(index))
    rt.game.journal.pile(source, to)
    _fits(rt, to, to_owner)


@_impl("move_top")
def move_top(rt: Rt, n: int, source: str, to: str, from_owner: str, to_owner: str) -> None:
    held, onto = _pile(rt, source, from_owner), _pile(rt, to, to_owner)
    onto.extend(held.pop() for _ in range(min(n, len(held))))
    rt.game.journal.pile(source, to)
    _fits(rt, to, to_owner)


# --- graphs the pack declares: places joined by edges, some with states (coh_core.engine.graphs) ---
# A graph without edges with states has none in the state: it reads the states of no edge.
_NO_STATES: dict[str, str] = {}


def _edge_states(rt: Rt, graph: str) -> dict[str, str]:
    edges = rt.game.state.get("edges")
    return _NO_STATES if edges is None else edges.get(graph, _NO_STATES)


@_impl("neighbours")
def neighbours(rt: Rt, graph: str, place: str) -> list[str]:
    return rt.game.rules.graphs[graph].neighbours(place, _edge_states(rt, graph))


@_impl("joined")
def joined(rt: Rt, graph: str, place: str) -> list[str]:
    return rt.game.rules.graphs[graph].joined(place)


@_impl("distance")
def distance(rt: Rt, graph: str, source: str, to: str) -> int:
    """Out of reach, there is no distance: the effect stops, as with the first of nothing."""
    found = rt.game.rules.graphs[graph].distances(source, _edge_states(rt, graph)).get(to)
    if found is None:
        raise NoOptions(f"{to} cannot be reached from {source}")
    return found


@_impl("first_steps")
def first_steps(rt: Rt, graph: str, source: str, to: str) -> list[str]:
    return rt.game.rules.graphs[graph].first_steps(source, to, _edge_states(rt, graph))


@_impl("nearest")
def nearest(rt: Rt, graph: str, source: str, places: list[str]) -> list[str]:
    return rt.game.rules.graphs[graph].nearest(source, places, _edge_states(rt, graph))


@_impl("within")
def within(rt: Rt, graph: str, place: str, n: int) -> list[str]:
    return rt.game.rules.graphs[graph].within(place, n, _edge_states(rt, graph))


@_impl("in_sight")
def in_sight(rt: Rt, graph: str, place: str) -> list[str]:
    return rt.game.rules.graphs[graph].in_sight(place, _edge_states(rt, graph))


@_impl("edge_state")
def edge_state(rt: Rt, graph: str, a: str, b: str) -> str:
    """Of two places no edge with states joins there is no state: the effect stops."""
    found = rt.game.rules.graphs[graph].edge(a, b)
    states = _edge_states(rt, graph)
    key = None if found is None else rt.game.rules.graphs[graph].keys[found]
    if key is None or key not in states:
        raise NoOptions(f"no edge with states joins {a} and {b}")
    return states[key]


@_impl("set_edge_state")
def set_edge_state(rt: Rt, graph: str, a: str, b: str, state: str) -> None:
    """No log entry, as `set_pointer` and `remember` write none: the pack logs what it means."""
    spec = rt.game.rules.graphs[graph]
    found = spec.edge(a, b)
    if found is None or not spec.edges[found][2].states:
        raise EngineError("GAME-STATE", f"no edge with states joins `{a}` and `{b}` in the graph `{graph}`")
    kind = spec.edges[found][2]
    if state not in kind.states:
        raise EngineError(
            "GAME-STATE",
            f"an edge of kind `{kind.name}` of `{graph}` has no state `{state}`"
            f" (its states: {', '.join(kind.states)})",
        )
    rt.game.state["edges"][graph][spec.keys[found]] = state
    rt.game.journal.edges += 1

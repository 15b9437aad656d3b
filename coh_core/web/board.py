"""What the web table's page shows of a seat's view, each label in the pack's words.

The page draws the pack's components with the texts the terminal's table uses for them
(`ui.table.pointer.<id>`, `ui.table.count.<counter>`, `ui.table.pile.<id>`, `ui.table.total.<id>`,
`ui.table.own.*`, `ui.table.others.pile.<id>`, `ui.table.fires.*`): a component the pack has no
text for is left out, as the terminal leaves it out, so that no id is ever shown as a label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coh_core.agents.terminal import pointer_order
from coh_core.narrative import Narrator, Verbatim


def board(state: Mapping[str, Any], narrator: Narrator) -> dict[str, Any]:
    """The page's labels for a view (`PlayerView.to_json()`): the pointers, each place's counts
    and piles, each seat's holdings, the game's own piles and the seat's own piles."""
    piles = narrator.pack.section("components").get("piles") or {}
    return {
        "pointers": pointers(state, narrator),
        "places": {place: place_labels(state, place, piles, narrator) for place in state["locations"]},
        "seats": {seat: seat_labels(state, seat, piles, narrator) for seat in state["players"]},
        "piles": totals(state, piles, narrator),
        "mine": own_piles(state, piles, narrator),
    }


def pointers(state: Mapping[str, Any], narrator: Narrator) -> list[str]:
    """Each pointer the pack has a `ui.table.pointer.<id>` text for, with the order it moves in."""
    return [
        narrator.ui(key, value=value, order=pointer_order(narrator, state, pointer, value))
        for pointer, value in state["pointers"].items()
        if narrator.has(key := f"ui.table.pointer.{pointer}")
    ]


def place_labels(
    state: Mapping[str, Any], location: str, piles: Mapping[str, Any], narrator: Narrator
) -> list[str]:
    """A place's counters (`ui.table.count.<counter>`: those there, and those with a threshold
    still to reach that the pack says what it does at, `ui.table.fires.*`) and its piles."""
    counts = state["counts"].get(location, {})
    found = []
    for counter, count in counts.items():
        fires = _fires(state, location, counter, count, narrator)
        if (count or fires) and narrator.has(key := f"ui.table.count.{counter}"):
            found.append(" ".join([narrator.ui(key, count=count), *fires]))
    for pile, size in _sizes(state, piles, "location", location).items():
        if narrator.has(key := f"ui.table.pile.{pile}"):
            found.append(narrator.ui(key, count=size))
    return found


def _fires(
    state: Mapping[str, Any], location: str, counter: str, count: int, narrator: Narrator
) -> list[str]:
    """What the place does once the count reaches each threshold it has not reached, where the pack
    says it (`ui.table.threshold` around `ui.table.fires.<location>.<side>.<counter>`)."""
    found = []
    for threshold in state.get("thresholds", {}).get(location, []):
        key = f"ui.table.fires.{location}.{threshold['side']}.{counter}"
        if threshold["counter"] == counter and threshold["at"] > count and narrator.has(key):
            does = Verbatim(narrator.ui(key))
            found.append(narrator.ui("ui.table.threshold", at=threshold["at"], does=does))
    return found


def seat_labels(
    state: Mapping[str, Any], seat: str, piles: Mapping[str, Any], narrator: Narrator
) -> list[str]:
    """What a seat holds: the seat's own counters (`ui.table.own.count.<counter>`); of another
    seat, how many entries it holds in each pile with a `ui.table.others.pile.<id>` text."""
    if seat == state["me"]:
        return [
            narrator.ui(key, count=count)
            for counter, count in state["counts"].get(seat, {}).items()
            if narrator.has(key := f"ui.table.own.count.{counter}")
        ]
    found = []
    for pile, size in _sizes(state, piles, "player", seat).items():
        if narrator.has(key := f"ui.table.others.pile.{pile}"):
            found.append(narrator.ui(key, sizes=Verbatim(f"{narrator.player(seat)} {size}")))
    return found


def totals(state: Mapping[str, Any], piles: Mapping[str, Any], narrator: Narrator) -> list[str]:
    """The game's own piles that are not empty and that the pack has a `ui.table.total.<id>` text for."""
    found = []
    for name, pile in piles.items():
        key = f"ui.table.total.{name}"
        if not isinstance(pile, Mapping) or pile.get("per") or not narrator.has(key):
            continue
        entries = state["piles"].get(name, {}).get("", [])
        count = int(state["pile_sizes"].get(name, {}).get("", 0))
        if count:
            found.append(narrator.ui(key, count=count, entries=entries, top=entries[-1] if entries else "-"))
    return found


def own_piles(state: Mapping[str, Any], piles: Mapping[str, Any], narrator: Narrator) -> list[dict[str, Any]]:
    """The seat's own piles that are not empty and have a `ui.table.own.pile.<id>` text: that text
    (which names the entries) and the entries, whose texts the page shows below it."""
    me = state["me"]
    if me is None:
        return []
    found = []
    for pile, size in _sizes(state, piles, "player", me).items():
        entries = state["piles"].get(pile, {}).get(me, [])
        if narrator.has(key := f"ui.table.own.pile.{pile}"):
            found.append({"title": narrator.ui(key, entries=entries, count=size), "entries": entries})
    return found


def _sizes(state: Mapping[str, Any], piles: Mapping[str, Any], per: str, owner: str) -> dict[str, int]:
    """How many entries each pile kept per `per` (`location`, `player`) holds for this owner, where any."""
    sizes = state["pile_sizes"]
    found = {
        name: int(sizes.get(name, {}).get(owner, 0))
        for name, pile in piles.items()
        if isinstance(pile, Mapping) and pile.get("per") == per
    }
    return {name: size for name, size in found.items() if size}

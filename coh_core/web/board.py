"""What the web table's page shows of a seat's view, each label in the pack's words.

The page draws the pack's components with the texts the terminal's table uses for them
(`ui.table.pointer.<id>`, `ui.table.count.<counter>`, `ui.table.pile.<id>`, `ui.table.total.<id>`,
`ui.table.own.*`, `ui.table.others.pile.<id>`, `ui.table.fires.*`): a component the pack has no
text for is left out, as the terminal leaves it out, so that no id is ever shown as a label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coh_core.agents.terminal import pile_sizes, pointer_order, threshold_texts, total_texts
from coh_core.narrative import Narrator, Verbatim


def board(state: Mapping[str, Any], narrator: Narrator) -> dict[str, Any]:
    """The page's labels for a view (`PlayerView.to_json()`): the pointers, each place's counts
    and piles, each seat's holdings, the game's own piles and the seat's own piles."""
    piles = narrator.pack.section("components").get("piles") or {}
    return {
        "pointers": pointers(state, narrator),
        "places": {place: place_labels(state, place, piles, narrator) for place in state["locations"]},
        "seats": {seat: seat_labels(state, seat, piles, narrator) for seat in state["players"]},
        "piles": total_texts(narrator, state, piles),
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
        fires = threshold_texts(narrator, state, location, counter)
        if (count or fires) and narrator.has(key := f"ui.table.count.{counter}"):
            found.append(" ".join([narrator.ui(key, count=count), *fires]))
    for pile, size in pile_sizes(state, piles, "location", location).items():
        if narrator.has(key := f"ui.table.pile.{pile}"):
            found.append(narrator.ui(key, count=size))
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
    for pile, size in pile_sizes(state, piles, "player", seat).items():
        if narrator.has(key := f"ui.table.others.pile.{pile}"):
            found.append(narrator.ui(key, sizes=Verbatim(f"{narrator.player(seat)} {size}")))
    return found


def own_piles(state: Mapping[str, Any], piles: Mapping[str, Any], narrator: Narrator) -> list[dict[str, Any]]:
    """The seat's own piles that are not empty and have a `ui.table.own.pile.<id>` text: that text
    (which names the entries) and the entries, whose texts the page shows below it."""
    me = state["me"]
    if me is None:
        return []
    found = []
    for pile, size in pile_sizes(state, piles, "player", me).items():
        entries = state["piles"].get(pile, {}).get(me, [])
        if narrator.has(key := f"ui.table.own.pile.{pile}"):
            found.append({"title": narrator.ui(key, entries=entries, count=size), "entries": entries})
    return found

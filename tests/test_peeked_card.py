"""A card a player saw in secret, on the table in play: what it will do, by the names of the
game's locations (never the numbers printed on it, which the table never shows), and without
where its values come from (a text the pack marks as provenance)."""

from __future__ import annotations

from typing import Any

import pytest

from coh_core.agents.terminal import TerminalAgent
from coh_core.engine import new_game
from coh_core.narrative import Narrator, Verbatim
from coh_core.packs.display import NOTHING, Display
from coh_core.packs.listing import show_entity
from coh_core.packs.model import Pack

CARD = "two_am_b"  # zombies 1 2 1 2 1 1, all zombies at 3 go to 2 first, airdrops at 2 and 5, leader 2


def _seen(pack: Pack, locale: str, city: list[str] | None = None) -> tuple[list[str], dict[str, Any]]:
    """The table of a player who has looked at the card (the next of the deck), in a city in
    that order."""
    game = new_game(pack, players=4, seed=1)
    me = game.players[0]
    if city is not None:
        game.state["locations"] = {at: game.state["locations"][at] for at in city}
    game.state["memory"]["known_invasions"][me] = [CARD]
    game.state["piles"]["invasion_deck"][""] = [CARD]
    state = game.view(me).to_json()
    return TerminalAgent(Narrator(pack, locale)).table(state), state


@pytest.mark.parametrize("locale", ["en", "es", "it", "fr", "de"])
def test_the_peeked_card_says_what_it_will_do_at_each_named_location(base_pack: Pack, locale: str) -> None:
    rows, state = _seen(base_pack, locale)
    narrator = Narrator(base_pack, locale)
    said = narrator.ui("ui.table.own.memory.known_invasions", card=CARD, contents=Verbatim(""))
    (row,) = [r for r in rows if r.startswith(said.strip())]
    city = list(state["locations"])
    data = base_pack.entity(CARD).data
    # Location n of the card is the n-th of the city (the invasion's procedure: `locations()[n - 1]`).
    arrivals = ", ".join(
        f"{narrator.name('location', at)} +{n}" for at, n in zip(city, data["zombies"], strict=True)
    )
    assert arrivals in row
    (move,) = data["moves"]
    origin, to = (narrator.name("location", city[move[end] - 1]) for end in ("from", "to"))
    assert f"{origin} → {to}" in row
    for drop in data["airdrops"]:
        at = Verbatim(narrator.name("location", city[drop["at"] - 1]))
        assert narrator.ui("ui.airdrop", location=at, items=Verbatim("")).strip() in row
    assert narrator.ui("ui.provenance.invented") not in row


def test_the_names_follow_the_city_the_game_is_played_in(base_pack: Pack) -> None:
    # Another order of the corners (an overlay's city): the card's numbers name other locations.
    city = ["water_tower", "bank", "armory", "hospital", "church", "crossroads"]
    rows, _ = _seen(base_pack, "en", city)
    row = next(r for r in rows if r.startswith("You saw"))
    assert "Water Tower +1, Bank +2, Armory +1, Hospital +2, Church +1, Crossroads +1" in row
    assert "Armory → Bank" in row  # 3 -> 2 in this city


def test_coh_show_keeps_the_provenance_the_table_leaves_out(base_pack: Pack) -> None:
    narrator = Narrator(base_pack)
    found = show_entity(base_pack, CARD, narrator)
    played = show_entity(base_pack, CARD, narrator, play=True)
    assert found is not None and played is not None
    assert "our own values" in found[0]
    assert "our own values" not in played[0]
    assert "locations 1 to 6" in found[0]  # the card as printed, for `coh show`


@pytest.mark.parametrize(
    ("spec", "data", "play", "expected"),
    [
        ({"field": "p", "provenance": True}, {"p": "printed"}, False, "printed"),
        ({"field": "p", "provenance": True}, {"p": "printed"}, True, NOTHING),
        ({"text": "ui.hour", "fill": {"hour": {"field": "h", "provenance": True}}}, {"h": 1}, True, NOTHING),
        ({"field": "at", "place": True}, {"at": 2}, True, "Church"),
        ({"field": "at", "place": True}, {"at": 2}, False, "Church"),  # the pack's own board
        ({"field": "at", "place": True}, {"at": 9}, True, 9),  # no such place: the number
        (
            {"field": "n", "numbered": True, "item": {"pattern": "{number}:{value}"}},
            {"n": [5, 7]},
            True,
            "1:5, 2:7",
        ),
    ],
)
def test_display_values_for_play(
    base_pack: Pack, spec: dict[str, Any], data: Any, play: bool, expected: Any
) -> None:
    assert Display(Narrator(base_pack), {}, play=play).value(spec, data) == expected

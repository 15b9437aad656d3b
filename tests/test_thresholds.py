"""The counts at which a location's side fires a trigger, worked out from the pack (issue 13):
a general fact of the views, which the terminal's table shows beside the count."""

from __future__ import annotations

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.terminal import TerminalAgent, made_public
from coh_core.effects.parser import parse_condition, parse_effect
from coh_core.engine import new_game
from coh_core.engine.views import _CountReader, find_thresholds
from coh_core.narrative import Narrator, Verbatim
from coh_core.packs.model import Pack


def test_the_base_sides_that_take_markers_fire_at_the_rulebooks_counts(base_pack: Pack) -> None:
    # The rules: the tower blows up at its 3rd marker (both sides), the Armory burns at its 3rd
    # (side A) and its door jams at its 2nd (side B); no other side reacts to a count.
    game = new_game(base_pack, players=4, seed=1)
    found = {
        where: [(t.counter, t.at, t.event) for t in held]
        for where, held in find_thresholds(game.rules).items()
    }
    assert found == {
        ("water_tower", "A"): [("markers", 3, "marker_placed")],
        ("water_tower", "B"): [("markers", 3, "marker_placed")],
        ("armory", "A"): [("markers", 3, "marker_placed")],
        ("armory", "B"): [("markers", 2, "marker_placed")],
    }


def test_the_view_gives_the_thresholds_of_each_locations_current_side(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=1)
    sides = {loc: place["side"] for loc, place in game.state["locations"].items()}
    shown = game.view(game.players[0]).to_json()["thresholds"]
    expected = {("water_tower", "A"): 3, ("water_tower", "B"): 3, ("armory", "A"): 3, ("armory", "B"): 2}
    for location, side in sides.items():
        at = expected.get((location, side))
        if at is None:
            assert location not in shown
        else:
            assert shown[location] == [
                {
                    "side": side,
                    "counter": "markers",
                    "at": at,
                    "event": "marker_placed",
                    "trigger": shown[location][0]["trigger"],
                }
            ]
    # A tower that has collapsed reacts to nothing any more.
    game.state["locations"]["water_tower"]["side"] = "collapsed"
    assert "water_tower" not in game.view(game.players[0]).to_json()["thresholds"]


# Selectors a pack could define: one counts markers where it is asked, one passes the kind on,
# one does more than return a count.
READER = _CountReader(
    {"markers", "zombies"},
    {"tokens": ["at"], "counted": ["kind", "at"], "busy": ["at"], "elsewhere": ["at"]},
    {
        "tokens": parse_effect("return count_of(markers, at)"),
        "counted": parse_effect("return count_of(kind, at)"),
        "busy": parse_effect("let n = count_of(markers, at)\nreturn n"),
        "elsewhere": parse_effect("return count_of(markers, @church)"),
    },
)


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("tokens(here) >= 3", ("markers", 3)),
        ("tokens(here) > 3", ("markers", 4)),
        ("tokens(here) == 2", ("markers", 2)),
        ("3 <= tokens(here)", ("markers", 3)),
        ("1 < tokens(at=here)", ("markers", 2)),
        ("count_of(zombies, here) >= 5", ("zombies", 5)),
        ("count_of(at=here, kind=zombies) >= 5", ("zombies", 5)),
        # Not a count reaching a number at the trigger's location:
        ("tokens(here) < 3", None),
        ("tokens(here) != 3", None),
        ("tokens(@church) >= 3", None),
        ("count_of(food, here) >= 1", None),  # no such counter
        ("elsewhere(here) >= 3", None),
        ("counted(markers, here) >= 3", None),  # the kind is a parameter: not followed
        ("busy(here) >= 3", None),
        ("tokens(here) >= 3 and tokens(here) < 5", None),
        ("tokens(here) >= count_of(zombies, here)", None),
        ("true", None),
    ],
)
def test_a_condition_is_a_threshold_only_when_a_count_here_reaches_a_number(
    condition: str, expected: tuple[str, int] | None
) -> None:
    assert READER.threshold(parse_condition(condition)) == expected


# What the table says after the count, per side of each location that reacts, in each language:
# our own few words for what the location does when the marker that reaches the number is laid.
SAYS = {
    "en": {("water_tower", "A"): "blows up", ("armory", "A"): "burns down", ("armory", "B"): "door jams"},
    "de": {("water_tower", "A"): "explodiert", ("armory", "A"): "brennt ab", ("armory", "B"): "Tür klemmt"},
    "es": {("water_tower", "A"): "explota", ("armory", "A"): "arde", ("armory", "B"): "la puerta se atasca"},
    "fr": {("water_tower", "A"): "explose", ("armory", "A"): "brûle", ("armory", "B"): "la porte se bloque"},
    "it": {
        ("water_tower", "A"): "esplode",
        ("armory", "A"): "va a fuoco",
        ("armory", "B"): "la porta si blocca",
    },
}
AT = {"en": "at {n}: ", "de": "bei {n}: ", "es": "con {n}: ", "fr": "à {n} : ", "it": "a {n}: "}


@pytest.mark.parametrize("locale", sorted(SAYS))
@pytest.mark.parametrize(
    ("location", "side", "markers", "at"),
    [
        ("water_tower", "A", 2, 3),
        ("armory", "A", 1, 3),
        ("armory", "B", 1, 2),
    ],
)
def test_the_table_says_what_the_marker_that_reaches_a_threshold_does(
    base_pack: Pack, locale: str, location: str, side: str, markers: int, at: int
) -> None:
    game = new_game(base_pack, players=4, seed=1)
    game.state["locations"][location]["side"] = side
    game.state["counts"][location]["markers"] = markers
    narrator = Narrator(base_pack, locale)
    rows = TerminalAgent(narrator).table(game.view(game.players[0]).to_json())
    line = next(r for r in rows if r.strip().startswith(str(narrator.name("location", location))))
    count = narrator.ui("ui.table.count.markers", count=markers)
    assert f"{count} ({AT[locale].format(n=at)}{SAYS[locale][(location, side)]})" in line


def test_the_table_says_nothing_of_a_threshold_once_the_count_has_reached_it(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=1)
    game.state["locations"]["armory"]["side"] = "B"
    game.state["counts"]["armory"]["markers"] = 2  # the door would have jammed: nothing more to say
    rows = TerminalAgent(Narrator(base_pack)).table(game.view(game.players[0]).to_json())
    line = next(r for r in rows if r.strip().startswith("Armory"))
    assert "explosion markers 2" in line and "door jams" not in line


@pytest.mark.parametrize("locale", ["en", "de"])
def test_the_peeked_card_is_shown_while_it_is_the_decks_next_card_only(base_pack: Pack, locale: str) -> None:
    # The rule: what a player saw in secret of the invasion deck is theirs while it is still to
    # come; once it is drawn, everyone has seen it and the line would mislead.
    narrator = Narrator(base_pack, locale)
    terminal = TerminalAgent(narrator)
    game = new_game(base_pack, players=4, seed=3)
    agents = {c: RandomAgent(seed=i) for i, c in enumerate(game.players)}
    shown = hidden = 0
    while game.decision is not None:
        colour = game.decision.waiting[0]
        view = game.view(colour)
        state = view.to_json()
        seen = state["memory"].get("known_invasions", {}).get(colour) or []
        if seen:
            card = seen[-1]
            deck = game.state["piles"]["invasion_deck"][""]
            said = narrator.ui("ui.table.own.memory.known_invasions", card=card, contents=Verbatim(""))
            rows = terminal.table(state, made_public(view.log()))
            is_next = bool(deck) and deck[0] == card
            assert any(r.startswith(said) for r in rows) == is_next
            shown, hidden = shown + is_next, hidden + (not is_next)
        game.submit(colour, agents[colour].act(None, game.decision.legal(colour)))
    assert shown and hidden  # the game went through both

"""The attack condition of each location's side, read from the pack as the thresholds are: a
general fact of the views (`conditions`), which the terminal's table shows beside the count."""

from __future__ import annotations

import pytest

from coh_core.agents.terminal import TerminalAgent
from coh_core.effects.parser import parse_condition, parse_effect
from coh_core.engine import new_game
from coh_core.engine.views import _CountReader, find_conditions
from coh_core.narrative import Narrator
from coh_core.packs.model import Pack

# The rulebook's attack conditions (each side's attack text): a number of zombies it takes, or
# more zombies than characters there (">").
RULEBOOK = {
    ("water_tower", "A"): 4,
    ("water_tower", "B"): 4,
    ("water_tower", "collapsed"): ">",
    ("church", "A"): 3,
    ("church", "B"): ">",
    ("hospital", "A"): ">",
    ("hospital", "B"): 2,
    ("armory", "A"): 3,
    ("armory", "burnt"): 3,
    ("armory", "B"): ">",
    ("armory", "blocked"): ">",
    ("bank", "A"): 3,
    ("bank", "B"): ">",
    ("crossroads", "A"): 1,
    ("crossroads", "B"): 1,
}


def test_every_base_side_attacks_as_its_rulebook_text_says(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=1)
    found = {
        where: (c.at if c.at is not None else c.pieces)
        for where, c in find_conditions(game.rules).items()
        if c.counter == "zombies" and c.context == "attack_condition"
    }
    assert found == RULEBOOK


def test_the_view_gives_the_condition_of_each_locations_current_side(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=1)
    game.state["locations"]["church"]["side"] = "B"
    shown = game.view(game.players[0]).to_json()["conditions"]
    for location, place in game.state["locations"].items():
        (condition,) = shown[location]
        expected = RULEBOOK[(location, place["side"])]
        assert condition["side"] == place["side"]
        assert condition.get("at" if isinstance(expected, int) else "pieces") == expected


# Selectors a pack could define: one counts tokens where it is asked, one the pieces there.
READER = _CountReader(
    {"markers", "zombies"},
    {"tokens": ["at"], "crowd": ["at"]},
    {"tokens": parse_effect("return count_of(zombies, at)"), "crowd": parse_effect("return characters(at)")},
)


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("tokens(here) > characters(here)", ("zombies", ">")),
        ("tokens(here) >= characters(here)", ("zombies", ">=")),
        ("characters(here) < tokens(here)", ("zombies", ">")),
        ("tokens(here) > crowd(here)", ("zombies", ">")),
        ("count_of(markers, here) >= characters(at=here)", ("markers", ">=")),
        # Not a count at the place compared with the pieces there:
        ("tokens(here) < characters(here)", None),
        ("tokens(here) > characters(@church)", None),
        ("tokens(@church) > characters(here)", None),
        ("tokens(here) > 3", None),
        ("tokens(here) == characters(here)", None),
    ],
)
def test_a_condition_compares_a_count_with_the_pieces_only_when_both_are_here(
    condition: str, expected: tuple[str, str] | None
) -> None:
    assert READER.beyond_pieces(parse_condition(condition)) == expected


# What the table says after the zombies, in each language: our own words for "at N: attack" and
# "more than the characters: attack".
SAYS = {
    "en": ("(at 3: attack)", "(more than the characters: attack)"),
    "de": ("(bei 3: Angriff)", "(bei mehr als den Figuren: Angriff)"),
    "es": ("(con 3: ataque)", "(con más que los personajes: ataque)"),
    "fr": ("(à 3 : attaque)", "(si plus que les personnages : attaque)"),
    "it": ("(a 3: attacco)", "(se più dei personaggi: attacco)"),
}


@pytest.mark.parametrize("locale", sorted(SAYS))
@pytest.mark.parametrize(("side", "zombies", "said"), [("A", 2, 0), ("B", 2, 1), ("A", 0, 0), ("B", 5, 1)])
def test_the_table_says_when_the_zombies_attack_even_with_none_there(
    base_pack: Pack, locale: str, side: str, zombies: int, said: int
) -> None:
    game = new_game(base_pack, players=4, seed=1)
    game.state["locations"]["bank"]["side"] = side
    game.state["counts"]["bank"]["zombies"] = zombies
    narrator = Narrator(base_pack, locale)
    rows = TerminalAgent(narrator).table(game.view(game.players[0]).to_json())
    line = next(r for r in rows if r.strip().startswith(str(narrator.name("location", "bank"))))
    count = narrator.ui("ui.table.count.zombies", count=zombies)
    assert f"{count} {SAYS[locale][said]}" in line


def test_a_pack_without_the_words_for_what_happens_shows_no_condition(base_pack: Pack) -> None:
    narrator = Narrator(base_pack)
    del narrator.messages["ui.table.when.attack_condition"]
    game = new_game(base_pack, players=4, seed=1)
    rows = TerminalAgent(narrator).table(game.view(game.players[0]).to_json())
    assert not any("attack" in row or "zombies 0" in row for row in rows)

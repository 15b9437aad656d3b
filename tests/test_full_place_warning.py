"""A menu's answer that would move a character to a location with no room for it says so, and
where the character goes instead: in City of Horror, a character whose location is full (or
closed, as the burnt Armory) goes to the Crossroads (rulebook: movement; the overflow location
of `setup`). The pack declares which answers move a character (`moves_to`: the movement card,
the starting place) and which `setup` field names the overflow location (role `overflow`); an
explosion marker names a location but moves nobody, and says nothing of its room."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from coh_core.agents import terminal
from coh_core.agents.menu import Entry, Keys, build_menu
from coh_core.agents.terminal import TerminalAgent
from coh_core.engine import new_game
from coh_core.engine.game import Game
from coh_core.narrative import Narrator
from coh_core.packs.model import Pack
from coh_core.packs.roles import setup_role

Action = tuple[Any, ...]


def _leaves(entries: list[Entry]) -> Iterator[Entry]:
    for entry in entries:
        yield from _leaves(entry.children) if entry.is_group else [entry]


def _labels(game: Game, narrator: Narrator, legal: Sequence[Action]) -> dict[Action, str]:
    """Each answer's label in the menu a human at the terminal sees."""
    state = game.view(game.waiting[0]).to_json()
    menu = TerminalAgent(narrator).warn_full(build_menu(legal, narrator, Keys(narrator)), state)
    return {entry.action: entry.label for entry in _leaves(menu) if entry.action is not None}


def _plain(narrator: Narrator, action: Action) -> str:
    """The answer in words, as a menu shows it when nothing is in the way."""
    key, params = narrator.declared.action_message(action)
    return narrator.text(key, params)


def _setup_game(base_pack: Pack) -> Game:
    """A 4-player game at its first question: a player places a character (`place` answers)."""
    game = new_game(base_pack, players=4, seed=1)
    assert game.legal(game.waiting[0])[0][0] == "place"
    return game


def _fill(game: Game, location: str) -> None:
    """As many living characters at `location` as it has room for, the others nowhere yet: that
    location is exactly full, every other one empty."""
    capacity = int(game.side(location).capacity or 0)
    living = [c for c, ch in game.pieces.items() if ch["alive"]]
    assert len(living) > capacity > 0
    for index, character in enumerate(living):
        game.pieces[character]["at"] = location if index < capacity else None


@pytest.fixture(scope="module")
def overflow(base_pack: Pack) -> str:
    """The Crossroads: the overflow location `setup` names, by the engine's role."""
    found = setup_role(base_pack, "overflow")
    assert found == base_pack.section("setup")["overflow_location"] == "crossroads"
    return str(found)


@pytest.mark.parametrize(
    ("locale", "says"), [("en", "(full: goes to {})"), ("de", "(voll; stattdessen: {})")]
)
def test_a_start_at_a_full_location_names_the_overflow_location(
    base_pack: Pack, overflow: str, locale: str, says: str
) -> None:
    narrator = Narrator(base_pack, locale)
    game = _setup_game(base_pack)
    legal = game.legal(game.waiting[0])
    full = next(a[2] for a in legal if a[2] != overflow and game.side(a[2]).capacity)
    _fill(game, full)
    labels = _labels(game, narrator, legal)
    for action, label in labels.items():
        plain = _plain(narrator, action)
        if action[2] == full:
            assert label == f"{plain} {says.format(narrator.name('location', overflow))}"
        else:
            assert label == plain, "a location with room says nothing more"


def test_a_movement_card_to_a_full_or_closed_location_says_so_and_one_with_room_does_not(
    base_pack: Pack, overflow: str
) -> None:
    narrator = Narrator(base_pack)
    game = _setup_game(base_pack)
    full, roomy = "church", "hospital"
    _fill(game, full)
    game.state["locations"]["armory"]["side"] = "burnt"  # closed: counts as full
    cards = [("card", full), ("card", "armory"), ("card", roomy), ("card", overflow)]
    labels = _labels(game, narrator, cards)
    warned = {action[1] for action, label in labels.items() if label != _plain(narrator, action)}
    assert warned == {full, "armory"}
    name = str(narrator.name("location", overflow))
    assert all(labels[("card", loc)].endswith(f"(full: goes to {name})") for loc in warned)


def _move_question(base_pack: Pack) -> Game:
    """A game at its first `move` question: which character goes where the player's card says."""
    from coh_core.agents import RandomAgent

    game = new_game(base_pack, players=4, seed=1)
    agents = {colour: RandomAgent(seed=i) for i, colour in enumerate(game.players)}
    while game.decision is not None and game.decision.kind != "move":
        for colour in game.waiting:
            game.submit(colour, agents[colour].act(None, game.legal(colour)))
    assert game.decision is not None
    return game


@pytest.mark.parametrize("full", [True, False])
def test_which_character_goes_to_a_full_location_says_where_each_goes_instead(
    base_pack: Pack, overflow: str, full: bool
) -> None:
    """The `move` question's answers name a character only: the place is the question's (its
    `location`, declared `moves_to`), and each answer says the character goes to the overflow
    location when that place is full, nothing when it has room."""
    narrator = Narrator(base_pack)
    game = _move_question(base_pack)
    assert game.decision is not None
    location = game.decision.prompt["location"]
    if full:
        _fill(game, location)
    else:
        for character in game.pieces.values():
            character["at"] = None
    legal = game.legal(game.waiting[0])
    labels = _labels(game, narrator, legal)
    name = str(narrator.name("location", overflow))
    assert len(labels) == len(legal) > 1
    for action, label in labels.items():
        plain = _plain(narrator, action)
        assert label == (f"{plain} (full: goes to {name})" if full else plain)


def test_a_character_holding_an_extra_place_leaves_room_for_another(base_pack: Pack) -> None:
    """Ruling 13: a character in an extra place (the Mama's power) does not count against the
    capacity, so a location holding it beside one fewer than its capacity still has room."""
    narrator = Narrator(base_pack)
    game = _setup_game(base_pack)
    full = "church"
    _fill(game, full)
    holder = next(c for c, ch in game.pieces.items() if ch["at"] == full)
    game.pieces[holder]["traits"]["ignores_capacity"] = [True, "leaves_location"]
    labels = _labels(game, narrator, [("card", full)])
    assert labels[("card", full)] == _plain(narrator, ("card", full))


def test_an_explosion_marker_on_a_full_location_says_nothing_of_its_room(base_pack: Pack) -> None:
    narrator = Narrator(base_pack, "fr")
    game = _setup_game(base_pack)
    full = "church"
    _fill(game, full)
    markers = [("marker", full), ("marker", "armory")]
    assert _labels(game, narrator, markers) == {a: _plain(narrator, a) for a in markers}


def test_a_pack_whose_setup_names_no_overflow_location_warns_of_nothing(
    base_pack: Pack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a full location sends a character is the pack's to say: without a `setup` field of
    role `overflow`, the menu cannot tell, and tells nothing."""
    narrator = Narrator(base_pack)
    game = _setup_game(base_pack)
    _fill(game, "church")
    monkeypatch.delitem(base_pack.section("section_fields")["setup"]["overflow_location"], "role")
    assert _labels(game, narrator, [("card", "church")]) == {
        ("card", "church"): _plain(narrator, ("card", "church"))
    }


def test_the_human_at_the_terminal_reads_the_warning_and_picks_the_answer_by_its_key(
    base_pack: Pack, overflow: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The key stays the location's: the warning changes the words, not what to type."""
    narrator = Narrator(base_pack)
    game = _setup_game(base_pack)
    colour = game.waiting[0]
    legal = game.legal(colour)
    full = next(a[2] for a in legal if a[2] != overflow and game.side(a[2]).capacity)
    _fill(game, full)
    agent = TerminalAgent(narrator)
    key = agent._keys().of(full)
    assert key is not None
    monkeypatch.setattr(terminal, "read_answer", lambda stream: key + "\n")
    chosen = agent.act(game.view(colour), legal)
    assert chosen[0] == "place" and chosen[2] == full
    name = narrator.name("location", overflow)
    assert f"{key}  {_plain(narrator, chosen)} (full: goes to {name})" in capsys.readouterr().out

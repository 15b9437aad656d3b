"""The terminal's table, the narrator's rendering by declared type, and the files of the play
side (narrative, terminal, bots, scenarios) naming no City of Horror thing (issue 11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.terminal import TerminalAgent
from coh_core.engine import new_game
from coh_core.messages import (
    PlaceholderType,
    declarations,
    parse_type,
    placeholders,
)
from coh_core.narrative import Narrator, Verbatim
from coh_core.packs.model import Pack

ROOT = Path(__file__).resolve().parent.parent


def _table(
    pack: Pack, narrator: Narrator | None = None, seed: int = 4, steps: int = 120
) -> tuple[dict[str, Any], list[str]]:
    """Some way into a random 4-player game: one player's view and the table it shows."""
    game = new_game(pack, players=4, seed=seed)
    agents = {c: RandomAgent(seed=seed * 10 + i) for i, c in enumerate(game.players)}
    for _ in range(steps):
        colour = game.decision.waiting[0]
        game.submit(colour, agents[colour].act(None, game.decision.legal(colour)))
    view = game.view(game.decision.waiting[0])
    terminal = TerminalAgent(narrator or Narrator(pack))
    return view.to_json(), terminal.table(view.to_json())


def test_the_table_shows_the_components_the_pack_gives_texts_for(base_pack: Pack) -> None:
    narrator = Narrator(base_pack)
    state, rows = _table(base_pack, narrator)
    name = narrator.name
    first, leader = state["pointers"]["first_player"], state["pointers"]["leader"]
    # The rules: play goes clockwise round the seats from the first player; the zombie leader
    # moves clockwise round the wheel, on the colours in play only.
    seats = (
        state["players"][state["players"].index(first) :] + state["players"][: state["players"].index(first)]
    )
    wheel = [c for c in base_pack.section("components")["leader_wheel"] if c in state["players"]]
    wheel = wheel[wheel.index(leader) :] + wheel[: wheel.index(leader)]
    turns = " → ".join(name("colour", c) for c in seats)
    moves = " → ".join(name("colour", c) for c in wheel)
    assert rows[0].endswith(f". First player: {turns}. Zombie leader: {moves}.")
    assert rows[0].startswith(f"Turn {state['turn']}, ")
    for location, row in zip(state["locations"], rows[1:7], strict=True):
        counts = state["counts"][location]
        assert row.startswith(f"  {name('location', location)} (")
        # the zombies are shown even at 0: the attack condition of every base side compares them
        assert f"zombies {counts['zombies']} (" in row, row
        assert (f"antidotes lying here {counts['antidotes']}" in row) == (counts["antidotes"] > 0), row
        cards = state["pile_sizes"]["cards_at"].get(location, 0)
        assert (f"action cards lying here {cards}" in row) == (cards > 0), row
    shown = " ".join(rows[1:7])
    assert "zombies " in shown and "antidotes lying here " in shown and "action cards lying here " in shown
    hand = sorted(state["piles"]["hands"][state["me"]])
    own = next(row for row in rows if row.startswith("Your hand: "))
    assert own.startswith("Your hand: " + (", ".join(name("action", card) for card in hand) or "-") + ". ")
    assert own.endswith(f" Your antidotes: {state['counts'][state['me']]['antidotes']}.")
    assert not any(placeholders(row) or "[ui." in row for row in rows)


def test_a_component_without_a_table_text_is_not_shown(base_pack: Pack) -> None:
    narrator = Narrator(base_pack)
    for key in ("ui.table.pointer.leader", "ui.table.count.zombies", "ui.table.own.count.antidotes"):
        del narrator.messages[key]
    _, rows = _table(base_pack, narrator)
    assert "leader" not in rows[0] and "First player: " in rows[0]
    assert not any("zombies" in row or "Your antidotes" in row for row in rows)


@pytest.mark.parametrize(
    ("written", "parsed"),
    [
        ("int", PlaceholderType("int")),
        ("list[player]", PlaceholderType("list", (PlaceholderType("player"),))),
        (
            "map[player, location] via part.choice",
            PlaceholderType("map", (PlaceholderType("player"), PlaceholderType("location")), "part.choice"),
        ),
        ("list[list[int]]", PlaceholderType("list", (PlaceholderType("list", (PlaceholderType("int"),)),))),
        ("map[player]", None),  # a map has two types
        ("list[int", None),
        ("int via part.score", None),  # only a map's entries go through a part
        ("Location", None),
        ("two words", None),
    ],
)
def test_placeholder_types_are_read_as_written(written: str, parsed: PlaceholderType | None) -> None:
    assert parse_type(written) == parsed


@pytest.mark.parametrize(
    ("type_", "value", "shown"),
    [
        ("list[player]", ["red", "blue"], "Red, Blue"),
        ("list[player]", [], "-"),
        ("map[player, int] via part.score", {"red": 5, "blue": 3}, "Red 5, Blue 3"),
        ("map[player, player] via part.vote", {"red": "blue"}, "Red for Blue"),
        ("card_kind", "shotgun", "Shotgun"),
        ("int", 7, "7"),
        ("food", "face_down", "a face-down one"),  # a value of a type the pack gives a text for
        ("food", 2, "2"),  # ... and one it gives none for
        ("duration", "end_of_turn", "until the end of the turn"),
        (None, "church", "Church"),  # no type: an id of any kind by its name
        ("list[", "church", "Church"),  # a type that does not parse: the same
        ("location", Verbatim("as is"), "as is"),
    ],
)
def test_a_value_is_shown_by_its_declared_type(
    base_pack: Pack, type_: str | None, value: Any, shown: str
) -> None:
    assert Narrator(base_pack).render(type_, value, {}) == shown


def test_the_pack_declares_a_type_for_each_placeholder_it_fills(base_pack: Pack) -> None:
    """Parts are filled by the narrator with words already; every other placeholder has a type
    (and a carried value a type where a placeholder's type counts by it)."""
    for group, message_id, spec in declarations(base_pack.section("messages")):
        if group != "parts":
            typed = set(spec.get("params") or {}) | {
                name for name in spec.get("carries") or {} if name in (spec.get("types") or {})
            }
            assert set(spec.get("types") or {}) == typed, (group, message_id)


# A character's points in each language's brief, and the grandpa's votes (his disadvantage).
BRIEF = {
    "en": ("{r}/{e} pts", "0 votes"),
    "de": ("{r}/{e} Pkt.", "0 Stimmen"),
    "es": ("{r}/{e} ptos.", "0 votos"),
    "fr": ("{r}/{e} pts", "0 voix"),
    "it": ("{r}/{e} pti", "0 voti"),
}


@pytest.mark.parametrize("locale", sorted(BRIEF))
def test_the_first_question_shows_the_players_own_characters_with_their_points(
    base_pack: Pack, locale: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At the first question (where a character starts) none of the player's characters stands
    # anywhere yet: they are listed apart, each with the points on its rested and exhausted sides,
    # and stay on an 80x24 screen whatever is shortened.
    game = new_game(base_pack, players=3, seed=10)  # the first to answer was dealt the grandpa
    me = game.decision.waiting[0]
    narrator = Narrator(base_pack, locale)
    terminal = TerminalAgent(narrator)
    monkeypatch.setattr(terminal, "_height", lambda: 24)
    monkeypatch.setattr(terminal, "_width", lambda: 80)
    state = game.view(me).to_json()
    rows = terminal.board(state, (), below=6)
    mine = [c for c, ch in state["pieces"]["characters"].items() if ch["owner"] == me]
    line = next(r for r in rows if str(narrator.name("character", mine[0])) in r)
    for character in mine:
        data = base_pack.entity(character).data
        points = BRIEF[locale][0].format(r=data["rested"], e=data["exhausted"])
        said = f"{narrator.name('character', character)} [{points}"
        assert said in line
        votes = (data.get("traits") or {}).get("votes")
        assert (f"{said}, {BRIEF[locale][1]}]" in line) == (votes == 0)
    assert "grandpa" in mine


def test_a_placed_character_of_ones_own_keeps_its_points_beside_it(base_pack: Pack) -> None:
    narrator = Narrator(base_pack)
    state, rows = _table(base_pack, narrator)
    pieces = state["pieces"]["characters"]
    for character, ch in pieces.items():
        if not ch["alive"] or ch["at"] is None:
            continue
        data = base_pack.entity(character).data
        name = narrator.name("character", character)
        row = next(r for r in rows if r.strip().startswith(str(narrator.name("location", ch["at"]))))
        assert (
            f"{name}{' (exhausted)' if ch['exhausted'] else ''} [{data['rested']}/{data['exhausted']} pts"
            in row
        ) == (ch["owner"] == state["me"]), row

"""The table's count of a location's characters against its capacity: a character that holds an
extra place there (the Mama's power, the Back Door: ruling 13) is not counted against it, and is
shown apart."""

from __future__ import annotations

import pytest

from coh_core.agents.terminal import TerminalAgent
from coh_core.engine import new_game
from coh_core.engine.game import Game
from coh_core.narrative import Narrator
from coh_core.packs.model import Pack


def _fill(game: Game, location: str, ordinary: int, extra: int) -> None:
    """Every living character elsewhere, then `ordinary` of them at `location` and `extra` more
    there that hold an extra place (as the Mama's power leaves her)."""
    elsewhere = next(loc for loc in game.state["locations"] if loc != location)
    living = [c for c, ch in game.pieces.items() if ch["alive"]]
    assert len(living) >= ordinary + extra
    for character in living:
        game.pieces[character]["at"] = elsewhere
    for character in living[:ordinary]:
        game.pieces[character]["at"] = location
    for character in living[ordinary : ordinary + extra]:
        game.pieces[character]["at"] = location
        game.pieces[character]["traits"]["ignores_capacity"] = [True, "leaves_location"]


def _room_of(game: Game, narrator: Narrator, location: str) -> str:
    rows = TerminalAgent(narrator).table(game.view(game.players[0]).to_json())
    line = next(r for r in rows if r.strip().startswith(str(narrator.name("location", location))))
    return line


@pytest.mark.parametrize(("ordinary", "extra", "shown"), [(3, 0, "3/3"), (2, 1, "2/3 +1"), (3, 1, "3/3 +1")])
def test_a_character_in_an_extra_place_is_shown_apart_from_the_capacity(
    base_pack: Pack, ordinary: int, extra: int, shown: str
) -> None:
    game = new_game(base_pack, players=4, seed=1)
    location = next(loc for loc in game.state["locations"] if game.side(loc).capacity == 3)
    _fill(game, location, ordinary, extra)
    assert game.view(game.players[0]).to_json()["extra_places"] == ({location: extra} if extra else {})
    line = _room_of(game, Narrator(base_pack), location)
    assert f", {shown}" in line
    assert f"{ordinary + extra}/3" not in line or extra == 0


def test_a_pack_without_the_extra_text_counts_the_ordinary_places_only(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=1)
    location = next(loc for loc in game.state["locations"] if game.side(loc).capacity == 3)
    _fill(game, location, 3, 1)
    narrator = Narrator(base_pack)
    narrator.has = lambda key: key != "ui.table.room.extra" and Narrator.has(narrator, key)  # type: ignore[method-assign]
    assert ", 3/3" in _room_of(game, narrator, location)

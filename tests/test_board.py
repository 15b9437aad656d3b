"""The board a pack lays out (`setup.board`): its locations in order, each one's starting side, and
the base game's own rule about that order (its `on_board` check, CITY-LAYOUT), under an overlay."""

from __future__ import annotations

from pathlib import Path

import pytest

from coh_core.engine import new_game
from coh_core.errors import ContentError
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack

SWAPPED = "[water_tower, bank, hospital, armory, church, crossroads]"


def _overlay(root: Path, patches: str) -> Path:
    """An overlay on the base pack holding these patches."""
    overlay = root / "layout"
    (overlay / "text").mkdir(parents=True)
    (overlay / "pack.yaml").write_text(
        "id: layout\nversion: '1.0.0'\nformat: 2\nkind: overlay\nsummary: A test.\n"
        "requires: [base]\nfiles: [patches.yaml]\n"
    )
    (overlay / "patches.yaml").write_text(f"patches:\n{patches}")
    (overlay / "text" / "en.yaml").write_text("locale: en\nmessages:\n  pack.layout.name: Layout\n")
    return overlay


def test_the_locations_are_in_the_boards_order_on_their_sides(base_pack: Pack) -> None:
    game = new_game(base_pack, 4, 1)
    board = base_pack.section("setup")["board"]
    assert game.state["order"] == board["locations"]
    assert game.state["locations"] == {location: {"side": side} for location, side in board["sides"].items()}


def test_another_order_of_the_corners_is_one_patch(tmp_path: Path) -> None:
    """The corners in another order: the locations are resolved and numbered in it."""
    overlay = _overlay(tmp_path, f"  - set: setup/board/locations\n    to: {SWAPPED}\n")
    game = new_game(load_pack_checked(rules=[str(overlay)]), 4, 1)
    assert game.state["order"] == SWAPPED.strip("[]").split(", ")


@pytest.mark.parametrize(
    ("patch", "says"),
    [
        (
            "  - set: setup/board/locations\n"
            "    to: [crossroads, church, hospital, armory, bank, water_tower]\n",
            "`crossroads` is at place 1 of the board",
        ),
        (
            "  - merge: setup/board/sides\n    with: {bank: burnt}\n",
            "`burnt` is not a side `bank` can start on",
        ),
    ],
)
def test_a_board_an_overlay_breaks_is_reported_in_the_overlay(tmp_path: Path, patch: str, says: str) -> None:
    overlay = _overlay(tmp_path, patch)
    with pytest.raises(ContentError) as raised:
        load_pack_checked(rules=[str(overlay)])
    found = [p for p in raised.value.problems if says in p.message]
    assert found and {Path(p.location.file).name for p in found if p.location} == {"patches.yaml"}

"""Piles kept per piece (`per: <a kind of pieces>`): a character's satchel, a survivor's inventory.

Every piece of the kind has its pile, dealt or not; effects name it by the piece (typed by the
kind's entities); a pile seen by its `owner` is seen by the player who owns the piece; the state
check, saves and scenarios know its owners; `coh validate` refuses a `per` that is no kind of
pieces.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.engine import Game, new_game, rules_for
from coh_core.engine.scenario import run_file
from coh_core.engine.state_check import state_problems
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.resources import content_root

SATCHELS = "    satchels: {doc: the cards a character carries, of: card_kind, per: characters, sees: owner}\n"
PILES = "  piles:\n"
STEP = "        build_invasion_deck()\n"
FILL = "        for c in all_characters() { move_top(1, deck, satchels, to_owner=c) }\n"


def _satchel_pack(root: Path, per: str = "characters") -> Path:
    shutil.copytree(content_root() / "base", root)
    components = root / "components.yaml"
    satchels = SATCHELS.replace("per: characters", f"per: {per}")
    components.write_text(components.read_text(encoding="utf-8").replace(PILES, PILES + satchels, 1))
    turn = root / "turn.yaml"
    turn.write_text(turn.read_text(encoding="utf-8").replace(STEP, STEP + FILL, 1), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def satchel_pack(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    return load_pack_checked(_satchel_pack(tmp_path_factory.mktemp("satchels") / "base"))


def _past_setup(pack: Pack) -> Game:
    game = new_game(pack, players=3, seed=3)
    rng = random.Random(3)
    while not game.over and game.state["phase"] == "setup":
        decision = game.decision
        assert decision is not None
        colour = decision.waiting[0]
        game.submit(colour, rng.choice(decision.legal(colour)))
    return game


def test_every_piece_of_the_kind_has_its_pile(satchel_pack: Pack) -> None:
    game = _past_setup(satchel_pack)
    satchels = game.state["piles"]["satchels"]
    assert sorted(satchels) == sorted(satchel_pack.entities["character"])
    dealt = [c for c, piece in game.pieces.items() if piece["alive"]]
    assert dealt and all(len(satchels[c]) == 1 for c in dealt)  # filled by the effect, one card each
    assert not state_problems(rules_for(satchel_pack), game.state)


def test_a_satchel_is_seen_by_the_owner_of_its_piece(satchel_pack: Pack) -> None:
    game = _past_setup(satchel_pack)
    for colour in game.players:
        seen = game.view(colour).to_json()["piles"]["satchels"]
        mine = {c for c, piece in game.pieces.items() if piece["owner"] == colour}
        assert mine and set(seen) == mine
        assert all(seen[c] == game.state["piles"]["satchels"][c] != [] for c in mine)


def test_a_save_keeps_the_satchels(satchel_pack: Pack) -> None:
    game = _past_setup(satchel_pack)
    again = Game.from_json(rules_for(satchel_pack), game.to_json())
    assert again.state["piles"]["satchels"] == game.state["piles"]["satchels"]


def test_a_pile_kept_per_no_kind_of_pieces_is_refused(tmp_path: Path) -> None:
    root = _satchel_pack(tmp_path / "base", per="charactres")
    result = CliRunner().invoke(main, ["validate", str(root), "--format", "json"])
    assert result.exit_code == 1
    problems = [p for p in json.loads(result.stdout)["problems"] if p["code"] == "COMPONENT-PILE"]
    assert len(problems) == 1 and "did you mean `characters`" in problems[0]["message"]


SCENARIO = """\
name: a satchel given to a character
players: [red, blue, green]
given:
  turn: 1
  phase: movement_selection
  characters:
    red: {geek: bank}
  satchels: {geek: [gun]}
then:
  satchels: {geek: [gun]}
"""


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [("", "", None), ("satchels: {geek: [gun]}\nthen", "satchels: {nobody: [gun]}\nthen", "SCENARIO-REF")],
    ids=["given and checked", "no such piece"],
)
def test_a_scenario_gives_a_piece_its_pile(
    satchel_pack: Pack, tmp_path: Path, old: str, new: str, code: str | None
) -> None:
    path = tmp_path / "satchel.yaml"
    path.write_text(SCENARIO.replace(old, new) if old else SCENARIO, encoding="utf-8")
    outcome = run_file(satchel_pack, path, "satchel.yaml")
    assert [p.code for p in outcome.problems] == ([] if code is None else [code]), outcome.problems

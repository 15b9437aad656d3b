"""Piles of a declared size (`size:` on a pile: a number, or a rule parameter that is one): a
survivor's two hands, a backpack of five.

`pile_room` counts the free places; an effect that puts more in a pile than its size stops the game
(`PILE-FULL`), whichever primitive does it; the state check (saves, scenarios) refuses a pile over
its size; `coh validate` refuses a size that names no number and `pile_room` of a pile without one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from run_effect import run_effect

from coh_core.cli import main
from coh_core.engine import new_game
from coh_core.engine.runtime import EngineError
from coh_core.engine.state_check import state_problems
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.resources import content_root

PILES = "  piles:\n"
SATCHELS = (
    "    satchels: {doc: what a character carries, of: card_kind, per: characters, sees: owner, size: SIZE}\n"
)
PARAMS = "params:\n"
SATCHEL_SIZE = "  satchel_size: {type: count, value: 2, doc: how many cards a satchel holds}\n"


def _sized_pack(root: Path, size: str = "2") -> Path:
    """The base pack with a satchel per character of this size (and a rule parameter `satchel_size`)."""
    shutil.copytree(content_root() / "base", root)
    components = root / "components.yaml"
    satchels = SATCHELS.replace("SIZE", size)
    components.write_text(components.read_text(encoding="utf-8").replace(PILES, PILES + satchels, 1))
    params = root / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace(PARAMS, PARAMS + SATCHEL_SIZE, 1))
    return root


@pytest.fixture(scope="module", params=["2", "satchel_size"], ids=["a number", "a rule parameter"])
def sized_pack(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Pack:
    return load_pack_checked(_sized_pack(tmp_path_factory.mktemp("sized") / "base", str(request.param)))


def test_pile_room_counts_the_free_places(sized_pack: Pack) -> None:
    game = new_game(sized_pack, 3, 1)
    found = run_effect(
        game,
        "let before = pile_room(satchels, @geek)\n"
        "set_pile(satchels, [gun], owner=@geek)\n"
        "let after = pile_room(satchels, @geek)\n"
        "set_pile(satchels, [gun, alarm], owner=@geek)\n"
        "let full = pile_room(satchels, @geek)",
    )
    assert (found["before"], found["after"], found["full"]) == (2, 1, 0)


FULL = "set_pile(satchels, [gun, alarm], owner=@geek)"


@pytest.mark.parametrize(
    "overfill",
    [
        "set_pile(satchels, [gun, alarm, kitten], owner=@geek)",
        f"{FULL}; set_pile(deck, [kitten]); move_top(1, deck, satchels, to_owner=@geek)",
        f"{FULL}; set_pile(deck, [kitten]); move_at(0, deck, satchels, to_owner=@geek)",
        f"{FULL}; set_pile(deck, [kitten]); move_entry(kitten, deck, satchels, to_owner=@geek)",
    ],
    ids=["set_pile", "move_top", "move_at", "move_entry"],
)
def test_an_effect_that_overfills_a_pile_stops_the_game(sized_pack: Pack, overfill: str) -> None:
    game = new_game(sized_pack, 3, 1)
    with pytest.raises(EngineError) as raised:
        run_effect(game, overfill)
    assert raised.value.code == "PILE-FULL"
    assert "`satchels` of `geek` holds at most 2; it would hold 3" in raised.value.message


def test_the_state_check_refuses_a_pile_over_its_size(sized_pack: Pack) -> None:
    game = new_game(sized_pack, 3, 1)
    assert not state_problems(game.rules, game.state)
    game.state["piles"]["satchels"]["geek"] = ["gun", "alarm", "kitten"]
    found = state_problems(game.rules, game.state)
    assert [(p.path, p.message) for p in found] == [
        (("piles", "satchels", "geek"), "3 entries; the pile holds at most 2")
    ]


def test_an_overlay_that_changes_the_parameter_changes_the_size(tmp_path: Path) -> None:
    root = _sized_pack(tmp_path / "base", "satchel_size")
    params = root / "params.yaml"
    params.write_text(
        params.read_text(encoding="utf-8").replace("value: 2,", "value: 3,", 1), encoding="utf-8"
    )
    game = new_game(load_pack_checked(root), 3, 1)
    assert run_effect(game, "let room = pile_room(satchels, @geek)")["room"] == 3


def _problems(root: Path) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["validate", str(root), "--format", "json"])
    assert result.exit_code == 1, result.output
    return list(json.loads(result.stdout)["problems"])


@pytest.mark.parametrize(
    ("size", "says"),
    [
        ("satchel_sise", "not a number nor a rule parameter that is one; did you mean `satchel_size`"),
        ("placement_order", "not a number nor a rule parameter that is one"),
    ],
    ids=["a misspelt parameter", "a parameter that is no number"],
)
def test_a_size_that_names_no_number_is_refused(tmp_path: Path, size: str, says: str) -> None:
    problems = _problems(_sized_pack(tmp_path / "base", size))
    assert [(p["code"], says in p["message"]) for p in problems] == [("COMPONENT-PILE", True)]
    assert problems[0]["file"].endswith("components.yaml")


def test_pile_room_of_a_pile_without_a_size_is_refused(tmp_path: Path) -> None:
    root = _sized_pack(tmp_path / "base")
    components = root / "components.yaml"
    components.write_text(
        components.read_text(encoding="utf-8").replace(", size: 2}", "}", 1), encoding="utf-8"
    )
    turn = root / "turn.yaml"
    step = "        build_invasion_deck()\n"
    counted = "        let room = pile_room(satchels, @geek)\n"
    turn.write_text(turn.read_text(encoding="utf-8").replace(step, step + counted, 1), encoding="utf-8")
    problems = _problems(root)
    assert [p["code"] for p in problems] == ["EFF-PILE-SIZE"]
    assert "`satchels` declares no `size`" in problems[0]["message"]

"""The engine plays a kind's fields by the roles of their contexts, not by the names the pack
gave them (`coh_core.packs.roles`): a piece's ability, a card, a place's sides with their
ability, condition and triggers."""

from __future__ import annotations

import re
import shutil

import pytest

from coh_core import load_ruleset
from coh_core.agents import RandomAgent
from coh_core.agents.runner import play_out
from coh_core.engine import new_game
from coh_core.packs.declarations import declarations_of
from coh_core.packs.model import Pack
from coh_core.packs.roles import KindRoles, Role, StateRoles, kind_roles, place_sides
from coh_core.resources import content_root

# The base pack's fields the engine plays, and new names for them.
NEW_NAMES = {
    "power": "gift",
    "sides": "faces",
    "activation": "use",
    "attack_if": "danger",
    "triggers": "reactions",
}
# The lines that hold them: the kinds' declarations (six and ten spaces in; not the contexts'
# names, two in, nor the setup's `city.sides`, eight in), the characters and the locations.
FIELD_LINES = {
    "declarations.yaml": re.compile(
        r"^(      |          )(power|sides|activation|attack_if|triggers):", re.M
    ),
    "characters.yaml": re.compile(r"^(    )(power|triggers):", re.M),
    "locations.yaml": re.compile(r"^(    |        )(sides|activation|attack_if|triggers):", re.M),
}


def _roles(pack: Pack, kind: str) -> KindRoles:
    return kind_roles(pack.kind_declarations()[kind]["fields"], declarations_of(pack))


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (
            "character",
            KindRoles(
                ability=Role("power", "power"),
                triggers=Role("triggers", "character_trigger"),
                traits="traits",
            ),
        ),
        ("action", KindRoles(playable="card")),
        (
            "location",
            KindRoles(
                states=StateRoles(
                    "sides",
                    "side",
                    ability=Role("activation", "activation"),
                    condition=Role("attack_if", "attack_condition"),
                    triggers=Role("triggers", "location_trigger"),
                )
            ),
        ),
        ("invasion", KindRoles()),
    ],
)
def test_the_base_pack_fields_the_engine_plays(base_pack: Pack, kind: str, expected: KindRoles) -> None:
    assert _roles(base_pack, kind) == expected


@pytest.fixture(scope="module")
def renamed_fields(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    """The base pack with the fields the engine plays renamed (`NEW_NAMES`)."""
    root = tmp_path_factory.mktemp("fields") / "base"
    shutil.copytree(content_root() / "base", root)
    for name, lines in FIELD_LINES.items():
        path = root / name
        text, count = lines.subn(lambda m: f"{m[1]}{NEW_NAMES[m[2]]}:", path.read_text(encoding="utf-8"))
        assert count > 0, name
        path.write_text(text, encoding="utf-8")
    return load_ruleset(root)


def test_renamed_fields_are_found_by_their_roles(renamed_fields: Pack) -> None:
    assert _roles(renamed_fields, "character").ability == Role("gift", "power")
    states = _roles(renamed_fields, "location").states
    assert states is not None and (states.field, states.ability, states.condition) == (
        "faces",
        Role("use", "activation"),
        Role("danger", "attack_condition"),
    )
    assert {side.name for side in place_sides(renamed_fields)} == {"A", "B", "collapsed", "burnt", "blocked"}


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_renamed_fields_play_the_same_games(
    renamed_fields: Pack, base_pack: Pack, players: int, seed: int
) -> None:
    """No field name is in a game's state or log: the same seed plays the very same game."""
    digests = []
    for pack in (base_pack, renamed_fields):
        game = new_game(pack, players=players, seed=seed)
        play_out(game, {c: RandomAgent(seed * 31 + i) for i, c in enumerate(game.players)})
        assert game.over
        digests.append(game.digest())
    assert digests[0] == digests[1]

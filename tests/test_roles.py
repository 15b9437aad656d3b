"""The engine plays a kind's fields by the roles of their contexts, not by the names the pack
gave them (`coh_core.packs.roles`): a piece's ability, a card, a place's sides with their
ability, condition and triggers."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from coh_core import load_ruleset
from coh_core.agents import RandomAgent
from coh_core.agents.runner import play_out
from coh_core.effects.registry import PLACE_STATE_ROLES, SETUP_FIELD_ROLES
from coh_core.engine import new_game
from coh_core.packs import load_pack_checked
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
                    capacity="capacity",
                    full="closed",
                    locked="locked",
                    reached_from="state_of",
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


# The base pack's traits the engine reads (by their roles), and new names for them.
TRAIT_NAMES = {
    "hidden": "cloaked",
    "ignores_capacity": "squeezes_in",
    "flip_locked": "stuck",
    "pays_by_exhausting": "tires",
}


@pytest.fixture(scope="module")
def renamed_traits(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    """The base pack with the traits of the engine's roles renamed, wherever their names are written."""
    root = tmp_path_factory.mktemp("traits") / "base"
    shutil.copytree(content_root() / "base", root)
    word = re.compile(r"(?<!role: )\b(" + "|".join(TRAIT_NAMES) + r")\b")  # (a role keeps its name)
    for path in root.rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        path.write_text(word.sub(lambda m: TRAIT_NAMES[m[1]], text), encoding="utf-8")
    return load_ruleset(root)


def test_the_engine_finds_its_traits_by_their_roles(renamed_traits: Pack) -> None:
    roles = {t.role: name for name, t in declarations_of(renamed_traits).traits.items() if t.role}
    assert roles == {
        "unselectable": "cloaked",
        "extra_place": "squeezes_in",
        "side_locked": "stuck",
        "pays_by_exhausting": "tires",
    }


@pytest.mark.parametrize(("players", "seed"), [(3, 5), (4, 6), (5, 7), (6, 8)])
def test_renamed_traits_play_the_same_games(
    renamed_traits: Pack, base_pack: Pack, players: int, seed: int
) -> None:
    """A trait's name is in the state (pieces' traits) and log: the games are the same, read
    with the old names."""
    games = []
    for pack in (base_pack, renamed_traits):
        game = new_game(pack, players=players, seed=seed)
        play_out(game, {c: RandomAgent(seed * 31 + i) for i, c in enumerate(game.players)})
        games.append(json.dumps([game.state, game.log], sort_keys=True))
    back = re.compile(r"\b(" + "|".join(TRAIT_NAMES.values()) + r")\b")
    names = {new: old for old, new in TRAIT_NAMES.items()}
    assert back.sub(lambda m: names[m[1]], games[1]) == games[0]


# The fields of a location's sides the engine reads by their roles (`PLACE_STATE_ROLES`), and new
# names for them.
STATE_NAMES = {
    "side": "face",
    "state_of": "comes_from",
    "capacity": "room",
    "closed": "shut",
    "locked": "barred",
}
# Their lines: the declarations of the sides' fields (ten spaces in), and each side of each
# location (`- side:`, and the fields below it, eight spaces in).
STATE_LINES = {
    "declarations.yaml": re.compile(r"^(          )(side|state_of|capacity|closed|locked):", re.M),
    "locations.yaml": re.compile(r"^(      - |        )(side|state_of|capacity|closed|locked):", re.M),
}


@pytest.fixture(scope="module")
def renamed_states(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    """The base pack with the fields of its locations' sides the engine reads renamed."""
    root = tmp_path_factory.mktemp("states") / "base"
    shutil.copytree(content_root() / "base", root)
    for name, lines in STATE_LINES.items():
        path = root / name
        text, count = lines.subn(lambda m: f"{m[1]}{STATE_NAMES[m[2]]}:", path.read_text(encoding="utf-8"))
        assert count > 0, name
        path.write_text(text, encoding="utf-8")
    return load_ruleset(root)


def test_renamed_state_fields_are_found_by_their_roles(renamed_states: Pack) -> None:
    states = _roles(renamed_states, "location").states
    assert states is not None
    assert (states.name, states.capacity, states.full, states.locked, states.reached_from) == (
        "face",
        "room",
        "shut",
        "barred",
        "comes_from",
    )
    sides = {(side.place.id, side.name): side for side in place_sides(renamed_states)}
    assert sides[("water_tower", "collapsed")].reached_from == ["A", "B"]
    assert sides[("water_tower", "collapsed")].capacity == 3
    assert sides[("crossroads", "A")].capacity is None  # unlimited


@pytest.mark.parametrize(("players", "seed"), [(3, 9), (4, 10), (5, 11), (6, 12)])
def test_renamed_state_fields_play_the_same_games(
    renamed_states: Pack, base_pack: Pack, players: int, seed: int
) -> None:
    """Capacities, full and locked sides are read by role: the same seed plays the very same game."""
    digests = []
    for pack in (base_pack, renamed_states):
        game = new_game(pack, players=players, seed=seed)
        play_out(game, {c: RandomAgent(seed * 31 + i) for i, c in enumerate(game.players)})
        assert game.over
        digests.append(game.digest())
    assert digests[0] == digests[1]


@pytest.mark.parametrize("overlay", ["rulebook-es", "rulebook-fr"])
def test_an_overlay_names_a_side_by_the_field_of_role_state_name(renamed_states: Pack, overlay: str) -> None:
    """`location/armory/sides/B/...` lands on the side whose `face` is B once `side` is renamed:
    a list's items are named in a patch path by their id or by the field that names a state."""
    old_names = {new: old for old, new in STATE_NAMES.items()}
    composed = []
    for pack in (renamed_states, load_ruleset()):
        loaded = load_pack_checked(pack.root, [str(content_root() / overlay)])
        composed.append(
            [{old_names.get(k, k): v for k, v in side.data.items()} for side in place_sides(loaded)]
        )
    unpatched = [dict(side.data) for side in place_sides(load_ruleset())]
    assert composed[0] == composed[1] != unpatched


def test_the_shared_schema_offers_the_roles_of_a_place_s_states_and_of_setup() -> None:
    schema = json.loads((Path(__file__).parents[1] / "schemas" / "content.schema.json").read_text())
    role = schema["definitions"]["field_declaration"]["properties"]["role"]
    assert role["enum"] == [*PLACE_STATE_ROLES, *SETUP_FIELD_ROLES]

"""A pack's schema is made from its declarations: each kind's section holds entities with the
kind's declared fields, typed as declared; the shipped base schema is the one its declarations
make, and every shipped content file names the schema it is checked against."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from coh_core.cli import main
from coh_core.packs.fields import FieldContext, field_problems, field_schema, parse_field_type
from coh_core.packs.loader import load_pack
from coh_core.packs.model import Pack
from coh_core.packs.overlays import shipped_overlays_of, shipped_packs
from coh_core.packs.pack_schema import schema_of
from coh_core.packs.schema import shared_definitions
from coh_core.resources import content_root

CONTEXT = FieldContext(
    enumerations={"duration": ["end_of_turn", "end_of_game"]}, references={"location": "location"}
)

# (the field's declaration, a value, whether the value is one of the field's)
FIELD_VALUES: list[tuple[dict[str, Any], Any, bool]] = [
    ({"type": "int"}, -3, True),
    ({"type": "int"}, "3", False),
    ({"type": "int"}, True, False),
    ({"type": "int", "min": 1, "max": 6}, 6, True),
    ({"type": "int", "min": 1, "max": 6}, 0, False),
    ({"type": "int", "min": 1, "max": 6}, 7, False),
    ({"type": "count"}, 0, True),
    ({"type": "count"}, -1, False),
    ({"type": "count", "min": 2}, 1, False),
    ({"type": "count", "min": -5}, -1, False),  # a count is never below 0
    ({"type": "count", "also": ["unlimited"]}, "unlimited", True),
    ({"type": "count", "also": ["unlimited"]}, "endless", False),
    ({"type": "bool"}, False, True),
    ({"type": "bool"}, "no", False),
    ({"type": "string"}, "anything at all", True),
    ({"type": "string", "values": ["tower", "corner"]}, "corner", True),
    ({"type": "string", "values": ["tower", "corner"]}, "street", False),
    ({"type": "id"}, "water_tower", True),
    ({"type": "id"}, "Water Tower", False),
    ({"type": "name"}, "A", True),
    ({"type": "name"}, "2nd", False),
    ({"type": "effect"}, "kill_zombies(1, at=here)", True),
    ({"type": "effect"}, "", False),
    ({"type": "condition"}, "zombies(here) > 2", True),
    ({"type": "window"}, "before_attack", True),
    ({"type": "window"}, "Before Attack", False),
    ({"type": "triggers"}, [{"id": "income", "event": "turn_start", "do": "gain_food(1)"}], True),
    ({"type": "triggers"}, [{"event": "turn_start"}], False),
    ({"type": "triggers"}, [{"event": "turn_start", "do": "gain_food(1)"}], False),  # no id
    ({"type": "trait_values"}, {"votes": 0, "can_move": False}, True),
    ({"type": "trait_values"}, {"Votes": 0}, False),
    ({"type": "duration"}, "end_of_turn", True),
    ({"type": "duration"}, "forever", False),
    ({"type": "location"}, "church", True),
    ({"type": "location"}, 3, False),
    ({"type": "list[count]"}, [1, 0, 2], True),
    ({"type": "list[count]"}, [1, -1], False),
    ({"type": "list[count]"}, 1, False),
    ({"type": "list[location]", "min_items": 1}, [], False),
    ({"type": "list[location]", "unique": True}, ["church", "church"], False),
    ({"type": "list[list[location]]"}, [["church"], []], True),
    ({"type": "list[list[location]]"}, ["church"], False),
    ({"type": "record", "fields": {"at": {"type": "int", "doc": "d", "required": True}}}, {"at": 2}, True),
    ({"type": "record", "fields": {"at": {"type": "int", "doc": "d", "required": True}}}, {}, False),
    ({"type": "record", "fields": {"at": {"type": "int", "doc": "d"}}}, {"at": 2, "to": 3}, False),
    ({"type": "list[record]", "fields": {"at": {"type": "count", "doc": "d"}}}, [{"at": 1}, {}], True),
    ({"type": "list[record]", "fields": {"at": {"type": "count", "doc": "d"}}}, [{"at": -1}], False),
    ({"type": "map[id, name]"}, {"church": "A", "bank": "B"}, True),
    ({"type": "map[id, name]"}, {"Church": "A"}, False),
    ({"type": "map[id, name]"}, {"church": "2nd"}, False),
    ({"type": "map[location, list[count]]"}, {"church": [1, 2]}, True),
    ({"type": "map[location, list[count]]"}, {"church": [-1]}, False),
    ({"type": "list[map[id, count]]", "min_items": 1}, [], False),
    ({"type": "no_such_type"}, "whatever", True),  # not understood: reported as KIND-FIELD, not here
]


@pytest.mark.parametrize(("declared", "value", "fits"), FIELD_VALUES)
def test_a_field_takes_the_values_of_its_type(declared: dict[str, Any], value: Any, fits: bool) -> None:
    schema = {**field_schema({**declared, "doc": "A field."}, CONTEXT), "definitions": shared_definitions()}
    assert Draft7Validator(schema).is_valid(value) is fits


@pytest.mark.parametrize(
    ("written", "base", "lists"),
    [
        ("count", "count", 0),
        ("list[location]", "location", 1),
        ("list[list[id]]", "id", 2),
        ("map[id, name]", "map", 0),
    ],
)
def test_a_field_type_is_read_as_its_base_inside_lists(written: str, base: str, lists: int) -> None:
    parsed = parse_field_type(written)
    assert parsed is not None and (parsed.base, parsed.lists, parsed.written) == (base, lists, written)


def test_a_map_type_is_read_as_its_keys_and_values() -> None:
    parsed = parse_field_type("list[map[location, list[count]]]")
    assert parsed is not None and (parsed.base, parsed.lists, parsed.key) == ("map", 1, "location")
    assert parsed.value is not None and (parsed.value.base, parsed.value.lists) == ("count", 1)
    assert parsed.written == "list[map[location, list[count]]]"


@pytest.mark.parametrize(
    "written",
    [
        "list[count",
        "List[count]",
        "list[]",
        "count]",
        "2d6",
        "map[id]",
        "map[, id]",
        "map[id, " * 5000 + "id",
    ],
    ids=["unclosed", "capital", "empty", "unopened", "digit", "map of nothing", "map without key", "deep"],
)
def test_a_malformed_field_type_is_none(written: str) -> None:
    assert parse_field_type(written) is None


def test_an_entity_holds_its_id_and_its_kinds_fields_only(base_pack: Pack) -> None:
    characters = schema_of(base_pack.docs, base_pack.id).data["properties"]["characters"]["items"]
    declared = base_pack.kind_declarations()["character"]["fields"]
    assert list(characters["properties"]) == ["id", *declared]
    assert characters["additionalProperties"] is False
    assert characters["required"] == ["id", *(n for n, f in declared.items() if f.get("required"))]


def test_every_declared_kind_with_a_section_has_one_in_the_schema(base_pack: Pack) -> None:
    properties = schema_of(base_pack.docs, base_pack.id).data["properties"]
    for entry in base_pack.kind_declarations().values():
        assert ("section" in entry) == (entry.get("section") in properties)


@pytest.mark.parametrize("game", shipped_packs(content_root(), "base"))
def test_each_shipped_games_schema_is_the_one_its_declarations_make(game: str) -> None:
    pack, _ = load_pack(content_root() / game)
    assert pack is not None
    shipped = (content_root() / game / "schema.json").read_text(encoding="utf-8")
    assert shipped == schema_of(pack.docs, pack.id).written(), (
        f"content/{game}/schema.json is out of date: run"
        f" `coh schema --pack content/{game} -o content/{game}/schema.json`"
    )


def test_coh_schema_writes_the_packs_schema(tmp_path: Path, base_pack: Pack) -> None:
    out = tmp_path / "schema.json"
    result = CliRunner().invoke(main, ["schema", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text(encoding="utf-8")) == schema_of(base_pack.docs, base_pack.id).data


def test_coh_schema_is_made_while_the_pack_has_problems(tmp_path: Path) -> None:
    pack = tmp_path / "base"
    _copy_base(pack)
    characters = pack / "characters.yaml"
    characters.write_text(characters.read_text(encoding="utf-8").replace("rested: 4", "rested: four", 1))
    result = CliRunner().invoke(main, ["schema", "--pack", str(pack)])
    assert result.exit_code == 0
    assert "characters" in json.loads(result.stdout)["properties"]
    assert "problem" in result.stderr and "coh validate" in result.stderr


def _copy_base(target: Path) -> None:
    import shutil

    shutil.copytree(content_root() / "base", target)


_MODELINE = re.compile(r"# yaml-language-server: \$schema=(\S+)\n")


def _shipped_yaml() -> list[Path]:
    return sorted(p for p in content_root().rglob("*.yaml") if p.is_file())


def _game_of(folder: str) -> str:
    """The game a shipped pack belongs to: itself if it is a game, else the one its overlay builds on."""
    games = shipped_packs(content_root(), "base")
    if folder in games:
        return folder
    (game,) = [game for game in games if folder in shipped_overlays_of(content_root(), game)]
    return game


@pytest.mark.parametrize("path", _shipped_yaml(), ids=lambda p: str(p.relative_to(content_root())))
def test_every_shipped_file_names_a_schema_that_exists(path: Path) -> None:
    found = _MODELINE.match(path.read_text(encoding="utf-8"))
    assert found is not None, f"{path} has no yaml-language-server modeline"
    named = (path.parent / found.group(1)).resolve()
    assert named.is_file(), named
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if path.name != "pack.yaml" and path.parent.name not in {"text", "scenarios"}:
        # a content file: its game's schema, made from the declarations it is checked against
        game = _game_of(path.relative_to(content_root()).parts[0])
        assert named == (content_root() / game / "schema.json").resolve(), path
        assert isinstance(data, dict)


# -- any declaration, however wrong, makes a schema and located problems, never a crash -----------

_TYPE_WORDS = ["int", "count", "bool", "string", "id", "name", "effect", "triggers", "record", "location",
               "duration", "nope", "list[", "map[", "]", ", ", "[", "Int", ""]  # fmt: skip
_ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def _declarations(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    attributes = {
        "type": st.lists(st.sampled_from(_TYPE_WORDS), min_size=1, max_size=5).map("".join),
        "doc": st.just("A field."),
        "required": st.booleans(),
        "default": _ANY_VALUE,
        "min": st.integers(-3, 3),
        "max": st.integers(-3, 3),
        "values": st.lists(st.text(min_size=1, max_size=3), max_size=3),
        "also": st.lists(st.text(min_size=1, max_size=3), max_size=2),
        "min_items": st.integers(0, 3),
        "unique": st.booleans(),
        "context": st.sampled_from(["power", "card", "pwer", "verb"]),
        "examples": st.lists(_ANY_VALUE, max_size=2),
    }
    if depth:
        attributes["fields"] = st.dictionaries(
            st.sampled_from(["a", "b", "id"]), st.deferred(lambda: _declarations(depth - 1)), max_size=2
        )
    return st.fixed_dictionaries(
        {"type": attributes.pop("type"), "doc": attributes.pop("doc")}, optional=attributes
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_declarations())
def test_any_field_declaration_makes_a_valid_schema_and_located_problems(declared: dict[str, Any]) -> None:
    schema = {**field_schema(declared, CONTEXT), "definitions": shared_definitions()}
    Draft7Validator.check_schema(schema)  # a schema jsonschema accepts, whatever was declared
    for problem in field_problems(declared, CONTEXT):
        assert problem.message and problem.path and all(isinstance(part, str) for part in problem.path)

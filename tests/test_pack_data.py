"""Effects read the pack's own data: `pack_data(section, key)`, `entity_data(entity, key)` (of an
entry, or of a record inside one), `has_entity_data(entity, key)` and `pack_ids(type)`, typed by the
values as the pack writes them and checked before play."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coh_core import load_ruleset
from coh_core.effects.checker import check_effect
from coh_core.effects.parser import parse_effect
from coh_core.engine import new_game
from coh_core.engine.compile.lowering import Compiler
from coh_core.engine.library import IMPLS
from coh_core.engine.machine import run_sync
from coh_core.engine.runtime import NoOptions, Rt
from coh_core.packs.effects_index import symbols_of
from coh_core.packs.model import Pack


def _codes(pack: Pack, source: str) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in check_effect(parse_effect(source), symbols_of(pack), "verb")]


def _read(pack: Pack, source: str, players: int = 4) -> Any:
    """The value of `x` once the effect has run in a new game."""
    assert _codes(pack, source) == []
    compiler = Compiler(IMPLS, symbols_of(pack).refs)
    program = compiler.block(parse_effect(source), None, frozenset()).program
    env: dict[str, Any] = {}
    run_sync(program, Rt(new_game(pack, players, 1), env, None), env)
    return env["x"]


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("let x = pack_data(setup, hours)", [1, 2, 3, 4]),
        ("let x = pack_data(setup, setup_hour) + 1", 1),
        ("let x = pack_data(setup, overflow_location)", "crossroads"),
        ("let x = pack_data(components, movement_cards)[1]", "church"),
        ("let x = entity_data(@midnight_b, zombies)", [2, 1, 2, 1, 2, 0]),
        (
            "let x = [c for c in pack_ids(invasion) if entity_data(c, hour) == 0]",
            ["midnight_a", "midnight_b", "midnight_c", "midnight_d"],
        ),
        ("let x = count(pack_ids(character))", 21),
        # a bare name is the key, never a variable of that name
        ("let hours = 7\nlet x = pack_data(setup, hours)[0]", 1),
        # records inside an entry: their fields are read in turn, typed as written
        ("let x = [entity_data(m, to) for m in entity_data(@two_am_a, moves)]", [6]),
        ("let x = [has_entity_data(d, cards) for d in entity_data(@one_am_a, airdrops)]", [False, True]),
        ("let x = [has_entity_data(c, leader) for c in [@midnight_a, @one_am_a]]", [False, True]),
        # a field is typed as its kind declares it: a text with its words too
        ("let x = entity_data(@midnight_a, provenance)", "invented"),
        ('let x = entity_data(@water_tower, slot) == "tower"', True),
        # a field an entry leaves out reads its declared default (the Bank's sides say nothing of locks)
        ("let x = [entity_data(s, locked) for s in entity_data(@bank, sides)]", [False, False]),
        ("let x = has_entity_data(first(entity_data(@bank, sides)), closed)", True),
    ],
)
def test_effects_read_the_pack_data_typed_as_written(base_pack: Pack, source: str, value: Any) -> None:
    assert _read(base_pack, source) == value


@pytest.mark.parametrize(("players", "characters", "cards"), [(3, 5, 7), (4, 4, 6), (5, 3, 5), (6, 3, 4)])
def test_a_column_of_the_player_table_is_the_row_of_the_seats_at_the_game(
    base_pack: Pack, players: int, characters: int, cards: int
) -> None:
    assert _read(base_pack, "let x = pack_data(setup, characters)", players) == characters
    assert _read(base_pack, "let x = pack_data(setup, action_cards)", players) == cards


def test_a_field_an_entry_lacks_stops_the_effect(base_pack: Pack) -> None:
    compiler = Compiler(IMPLS, symbols_of(base_pack).refs)
    program = compiler.block(
        parse_effect("let x = entity_data(@midnight_a, leader)"), None, frozenset()
    ).program
    with pytest.raises(NoOptions):
        run_sync(program, Rt(new_game(base_pack, 4, 1), {}, None), {})


@pytest.mark.parametrize(
    ("source", "code", "words"),
    [
        ("let x = pack_data(setup, hour)", "EFF-ENUM", "did you mean `hours`"),
        ("let x = pack_data(setpu, hours)", "EFF-ENUM", "did you mean `setup`"),
        ("let x = pack_data(params, turns)", "EFF-ENUM", "one of: `setup`, `components`"),
        ("let x = pack_data(setup, numbering)", "EFF-TYPE", "cannot be read by effects"),
        ('let x = pack_data("setup", hours)', "EFF-TYPE", "is a bare name"),
        ("let x = entity_data(@bank, zombies)", "EFF-ENUM", "an entry of `location` has no `zombies`"),
        ("let x = entity_data(@bank, slot) + 1", "EFF-TYPE", "string"),
        ("let x = has_entity_data(@one_am_a, leadr)", "EFF-ENUM", "did you mean `leader`"),
        (
            "let x = entity_data(first(entity_data(@two_am_a, moves)), count)",
            "EFF-ENUM",
            "an entry of `invasion.moves` has no `count`",
        ),
        (
            "let x = entity_data(first(entity_data(@two_am_a, moves)), to) + @bank",
            "REF-KIND",
            "a number is needed",
        ),
        ("let x = entity_data(3, hour)", "EFF-TYPE", "reads an entry of the pack"),
        ("let x = pack_ids(invasions)", "EFF-ENUM", "did you mean `invasion`"),
        ("add_zombies(1, at=pack_data(setup, hours))", "EFF-TYPE", "expects a location, got a list of ints"),
        ("let x = pack_ids(character) + pack_ids(location)", "EFF-TYPE", "list of characters"),
    ],
)
def test_the_checker_types_and_reports_reads_of_the_pack(
    base_pack: Pack, source: str, code: str, words: str
) -> None:
    found = _codes(base_pack, source)
    assert [c for c, _ in found] == [code], found
    assert words in found[0][1]


def test_a_declared_field_no_entry_writes_is_read_as_declared(base_copy: Path) -> None:
    """A field the kind declares is typed by its declaration, not by the entries that write it:
    with its default, an entry that leaves it out reads the default."""
    declarations = base_copy / "declarations.yaml"
    text = declarations.read_text(encoding="utf-8")
    anchor = "doc: Nobody can leave this location.}\n"
    assert anchor in text
    added = "          noise: {type: count, default: 2, doc: Zombies the side draws in.}\n"
    declarations.write_text(text.replace(anchor, anchor + added), encoding="utf-8")
    pack = load_ruleset(base_copy)
    assert _read(pack, "let x = [entity_data(s, noise) + 1 for s in entity_data(@bank, sides)]") == [3, 3]

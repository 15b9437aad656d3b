"""The pack declares its kinds of entities (its `kinds` section): what the loader collects, the
types `@id`s have, what `coh list` / `coh show` print, and the rules checked of each kind.
(That no word of the game is left in the engine: tests/test_vocabulary.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from coh_core.packs.model import Pack

ROOT = Path(__file__).resolve().parent.parent


def test_the_base_pack_declares_its_kinds_in_order(base_pack: Pack) -> None:
    assert base_pack.entity_kinds() == ["character", "action", "location", "invasion", "colour"]
    # the engine's verbs are entities too, but of no declared kind
    assert base_pack.entities_of("verb")
    assert "verb" not in base_pack.entity_kinds()


def test_every_declared_kind_has_entities_and_a_type(base_pack: Pack) -> None:
    counts = {kind: len(base_pack.entities_of(kind)) for kind in base_pack.entity_kinds()}
    assert counts == {"character": 21, "action": 18, "location": 6, "invasion": 20, "colour": 6}
    assert base_pack.ref_types() == {
        "character": "character",
        "action": "card_kind",
        "location": "location",
        "invasion": "invasion",
        "colour": "colour",
    }


def test_types_the_kinds_make_are_declared_by_the_pack_not_the_registry(base_pack: Pack) -> None:
    from coh_core.effects.registry import TYPES
    from coh_core.packs.declarations import declarations_of

    declared = declarations_of(base_pack)
    assert set(declared.entity_types) == {"card_kind", "invasion"}
    assert not {"card_kind", "invasion"} & set(TYPES)
    assert declared.is_known_type("list[invasion]")


@pytest.mark.parametrize(
    ("spec", "data", "shown"),
    [
        ({"field": "n", "sep": " "}, {"n": [1, 2, 3]}, "1 2 3"),
        ({"field": "n", "size": True}, {"n": [1, 2, 3]}, 3),
        ({"field": "n"}, {}, ""),  # a field the entity leaves out is shown empty
        ({"field": "n", "default": "-"}, {}, "-"),
        ({"field": "m", "item": {"pattern": "{a}->{b}"}}, {"m": [{"a": 1, "b": 2}, {"a": 3}]}, "1->2, 3->"),
        ({"present": ["x", "y", "z"], "item": {"pattern": "{name}={value}"}}, {"x": 1, "z": 2}, "x=1, z=2"),
        # only `{field}` is filled: a format spec or a lookup stays as written (a stranger's pack)
        ({"pattern": "{a:>99}{a.__class__}{a}"}, {"a": 5}, "{a:>99}{a.__class__}5"),
        ({"text": "ui.hour", "fill": {"hour": {"field": "h"}}}, {"h": 4}, "4:00"),
        ({"text": "ui.slot.{slot}"}, {"slot": "corner"}, "corner"),
    ],
)
def test_display_values_are_made_from_the_entity_data(
    base_pack: Pack, spec: dict[str, object], data: dict[str, object], shown: object
) -> None:
    from coh_core.narrative import Narrator
    from coh_core.packs.display import Display

    assert Display(Narrator(base_pack), {}).value(spec, data) == shown

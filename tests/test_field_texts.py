"""The texts an entity needs by its fields' `text` (`coh_core.packs.fields.field_texts`), keys
below `<kind>.<id>.`: by what the entity sets, once each, inside records and lists of records."""

from __future__ import annotations

from typing import Any

import pytest

from coh_core.packs.fields import field_texts

SIDES = {
    "type": "list[record]",
    "fields": {
        "side": {"type": "name", "text": "name"},
        "closed": {"type": "bool", "text": "special"},
        "state_of": {"type": "list[name]", "text": "special"},
        "attack_if": {"type": "condition", "text": "attack"},
    },
}
FIELDS: dict[str, Any] = {
    "power": {"type": "record", "text": True, "fields": {"effect": {"type": "effect", "text": "rules"}}},
    "traits": {"type": "trait_values", "text": "disadvantage"},
    "triggers": {"type": "triggers", "text": "disadvantage"},
    "votes": {"type": "count", "text": False},
    "sides": SIDES,
}


@pytest.mark.parametrize(
    ("data", "texts"),
    [
        ({}, []),
        ({"power": {"effect": "no_effect()"}}, ["power", "rules"]),
        # both set, one text: once
        ({"traits": {"votes": 0}, "triggers": [{"id": "t", "event": "e", "do": "x()"}]}, ["disadvantage"]),
        ({"traits": {}, "triggers": []}, []),  # empty: not set
        ({"votes": 3}, []),  # `text: false` asks for none
        (
            {
                "sides": [
                    {"side": "A", "attack_if": "true"},
                    {"side": "B", "closed": False, "state_of": ["A"]},
                ]
            },
            ["A.name", "A.attack", "B.name", "B.special"],  # false is not set
        ),
        ({"sides": [{"closed": True}]}, []),  # an item without its name has no texts of its own
    ],
)
def test_an_entity_needs_the_texts_of_the_fields_it_sets(data: dict[str, Any], texts: list[str]) -> None:
    assert list(field_texts(data, FIELDS)) == texts

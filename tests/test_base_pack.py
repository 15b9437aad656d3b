"""The shipped base pack is complete and every effect in it parses and type-checks."""

from __future__ import annotations

from coh_core.packs import check_pack
from coh_core.packs.effects_index import effect_slots
from coh_core.packs.model import Pack
from coh_core.resources import content_root


def test_base_pack_has_no_problems() -> None:
    pack, problems = check_pack(content_root() / "base")
    assert pack is not None
    assert [p.render() for p in problems] == []


def test_every_effect_slot_compiled(base_pack: Pack) -> None:
    slots = list(effect_slots(base_pack))
    assert len(base_pack.effects) == len(slots) > 0


def test_component_counts(base_pack: Pack) -> None:
    assert len(base_pack.entities_of("character")) == 21
    actions = base_pack.entities_of("action")
    assert len(actions) == 18
    assert sum(a.data["count"] for a in actions) == 40
    assert len(base_pack.entities_of("invasion")) == 20
    assert sorted(base_pack.section("components")["food_tokens"]) == [0] + [1] * 5 + [2] * 5 + [3]


def test_invasion_deck_has_every_hour(base_pack: Pack) -> None:
    hours = sorted({card.data["hour"] for card in base_pack.entities_of("invasion")})
    assert hours == [0, 1, 2, 3, 4]


def test_locations_have_both_sides_and_their_states(base_pack: Pack) -> None:
    sides = {
        location.id: {side["side"] for side in location.data["sides"]}
        for location in base_pack.entities_of("location")
    }
    assert sides["water_tower"] == {"A", "B", "collapsed"}
    assert sides["armory"] == {"A", "B", "burnt", "blocked"}
    for location_id in ("church", "hospital", "bank", "crossroads"):
        assert {"A", "B"} <= sides[location_id]


def test_leader_wheel_follows_the_rulebook_example(base_pack: Pack) -> None:
    wheel = base_pack.section("components")["leader_wheel"]
    assert wheel == ["green", "purple", "white", "blue", "red", "yellow"]


def test_every_content_file_declares_its_schema(base_pack: Pack) -> None:
    docs = [base_pack.manifest_doc, *base_pack.docs, *base_pack.text.values()]
    for doc in docs:
        assert doc.text.startswith("# yaml-language-server: $schema="), doc.path

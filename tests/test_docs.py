"""Generated files stay in sync with the registry and the base pack's declarations they come from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coh_core.effects.docs import generate_reference
from coh_core.packs.declarations import declarations_of
from coh_core.packs.effects_index import pack_verbs
from coh_core.packs.model import Pack
from coh_core.packs.pack_schema import schema_of

ROOT = Path(__file__).resolve().parent.parent


def _reference(pack: Pack) -> str:
    declared = declarations_of(pack)
    return generate_reference(declared, pack_verbs(pack, declared))


def test_effect_reference_is_up_to_date(base_pack: Pack) -> None:
    committed = (ROOT / "docs" / "effects.md").read_text(encoding="utf-8")
    assert committed == _reference(base_pack), "run `coh docs effects -o docs/effects.md`"


def test_reference_documents_every_verb_of_the_base_pack(base_pack: Pack) -> None:
    text = _reference(base_pack)
    verbs = pack_verbs(base_pack, declarations_of(base_pack))
    assert all(f"`{verb.render()}`" in text for verb in verbs.values())


def test_reference_documents_every_signature(base_pack: Pack) -> None:
    from coh_core.effects.registry import signatures

    text = generate_reference(declarations_of(base_pack))
    for name in signatures():
        assert f"`{name}(" in text


def test_reference_documents_every_declaration_of_the_base_pack(base_pack: Pack) -> None:
    declared = declarations_of(base_pack)
    text = generate_reference(declared)
    for names in (declared.types, declared.traits, declared.events, declared.windows):
        assert names and all(f"`{name}`" in text for name in names)
    assert all(f"- `{value}`: " in text for spec in declared.types.values() for value in spec.values)


def _schema(pack: Pack) -> dict[str, Any]:
    return schema_of(pack.docs, pack.id).data


# A pack's schema cannot list what the pack declares as the only values (an overlay may add
# more); it offers them as examples, which editors show as completions.
def test_schema_event_examples_are_the_pack_events(base_pack: Pack) -> None:
    assert _schema(base_pack)["definitions"]["event"]["examples"] == list(declarations_of(base_pack).events)


def test_schema_window_examples_are_the_pack_windows(base_pack: Pack) -> None:
    assert _schema(base_pack)["definitions"]["window"]["examples"] == list(declarations_of(base_pack).windows)


def test_schema_trait_examples_are_base_traits(base_pack: Pack) -> None:
    character = _schema(base_pack)["properties"]["characters"]["items"]
    examples = character["properties"]["traits"]["examples"]
    assert {name for example in examples for name in example} <= set(declarations_of(base_pack).traits)

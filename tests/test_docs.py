"""Generated files stay in sync with the registry they come from."""

from __future__ import annotations

import json
from pathlib import Path

from coh_core.effects.docs import generate_reference
from coh_core.effects.registry import EVENTS, TRAITS, WINDOWS
from coh_core.resources import schema_path

ROOT = Path(__file__).resolve().parent.parent


def test_effect_reference_is_up_to_date() -> None:
    committed = (ROOT / "docs" / "effects.md").read_text(encoding="utf-8")
    assert committed == generate_reference(), "run `coh docs effects -o docs/effects.md`"


def test_reference_documents_every_signature() -> None:
    from coh_core.effects.registry import signatures

    text = generate_reference()
    for name in signatures():
        assert f"`{name}(" in text


def _definitions() -> dict[str, dict[str, object]]:
    schema = json.loads(schema_path("content.schema.json").read_text(encoding="utf-8"))
    return schema["definitions"]  # type: ignore[no-any-return]


def test_schema_event_enum_matches_registry() -> None:
    assert _definitions()["event"]["enum"] == list(EVENTS)


def test_schema_window_enum_matches_registry() -> None:
    assert _definitions()["window"]["enum"] == list(WINDOWS)


def test_schema_traits_match_registry() -> None:
    schema = json.loads(schema_path("content.schema.json").read_text(encoding="utf-8"))
    character = schema["definitions"]["character"]
    traits = character["properties"]["traits"]["properties"]
    assert set(traits) == set(TRAITS)
    for name, spec in TRAITS.items():
        assert traits[name]["type"] == ("integer" if spec.type == "int" else "boolean")

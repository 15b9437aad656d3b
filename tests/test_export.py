"""Localized card data: `coh_core.cards` and `coh export`, checked against the published schema and
against the pack's own text files (where each text must come from)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from coh_core import load_cards
from coh_core.cards import CardSet, localize
from coh_core.cli import main
from coh_core.errors import UsageError
from coh_core.i18n import source_hash
from coh_core.narrative import Narrator
from coh_core.packs import load_pack_checked, yaml_traps
from coh_core.packs.model import Pack
from coh_core.resources import content_root, schema_path


def _schema() -> dict[str, Any]:
    return json.loads(schema_path("export.schema.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _messages(pack: str, locale: str) -> dict[str, Any]:
    """A shipped text file's entries, read straight from the YAML (not through coh)."""
    path = content_root() / pack / "text" / f"{locale}.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))["messages"]  # type: ignore[no-any-return]


def _export(runner: CliRunner, *args: str) -> dict[str, Any]:
    result = runner.invoke(main, ["export", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


@pytest.fixture()
def english_only(tmp_path: Path) -> Path:
    """An overlay in English only (`languages: [en]`): a new card, and a base card's text rewritten."""
    rule = tmp_path / "mower-en"
    shutil.copytree(content_root() / "promo-lawn-mower", rule)
    for path in (rule / "text").iterdir():
        if path.name != "en.yaml":
            path.unlink()
    manifest = (rule / "pack.yaml").read_text(encoding="utf-8")
    manifest = manifest.replace("id: promo-lawn-mower", "id: mower-en").replace(
        "requires: [base]", "requires: [base]\nlanguages: [en]"
    )
    (rule / "pack.yaml").write_text(manifest, encoding="utf-8")
    english = (
        (rule / "text" / "en.yaml")
        .read_text(encoding="utf-8")
        .replace("pack.promo-lawn-mower.", "pack.mower-en.")
    )
    english += '  action.gun.text: "Pick a location: one zombie there is shot."\n'
    (rule / "text" / "en.yaml").write_text(english, encoding="utf-8")
    return rule


def test_the_schema_is_draft_07_and_ships_with_the_others() -> None:
    schema = _schema()
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema["$id"].endswith("/export.schema.json")
    assert schema_path("export.schema.json").parent == schema_path("content.schema.json").parent


@pytest.mark.parametrize(
    "args",
    [
        ["--lang", "fr"],
        ["--lang", "en"],
        ["--lang", "es"],
        ["--lang", "it"],
        ["--lang", "fr-CA"],
        ["--lang", "fr", "--rules", "rulebook-fr"],
        ["--lang", "it", "--rules", "hunger", "--rules", "zombie-dogs", "--rules", "promo-lawn-mower"],
    ],
    ids=lambda args: " ".join(args),
)
def test_the_export_validates_against_its_schema(runner: CliRunner, args: list[str]) -> None:
    document = _export(runner, *args)
    jsonschema.Draft7Validator(_schema()).validate(document)
    assert document["lang"] == args[1]
    assert [overlay["id"] for overlay in document["rules"]] == args[3::2]


def test_an_english_only_overlay_validates_against_the_schema(runner: CliRunner, english_only: Path) -> None:
    document = _export(runner, "--lang", "fr", "--rules", str(english_only))
    jsonschema.Draft7Validator(_schema()).validate(document)


def test_every_entity_of_the_pack_is_exported(base_pack: Pack) -> None:
    cards = localize(base_pack, "en")
    assert cards.kinds() == list(base_pack.entities)
    assert len(cards.cards) == base_pack.entity_count
    for kind, by_id in base_pack.entities.items():
        assert cards.ids(kind) == list(by_id)


def test_french_texts_come_from_the_french_file(base_pack: Pack) -> None:
    french = _messages("base", "fr")
    cards = localize(base_pack, "fr")
    checked = 0
    for card in cards.cards:
        prefix = f"{card.kind}.{card.id}."
        for rest, text in [("name", card.name), *card.texts.items()]:
            if text is None:
                continue
            entry = french.get(prefix + rest)
            if entry is not None:
                assert (text.text, text.lang, text.pack) == (entry["text"], "fr", "base"), prefix + rest
                checked += 1
            else:
                assert text.lang == "en", prefix + rest
    assert checked > 100  # names and texts of the base game's cards


def test_a_text_missing_in_french_reports_english(base_copy: Path) -> None:
    french = base_copy / "text" / "fr.yaml"
    document = yaml.safe_load(french.read_text(encoding="utf-8"))
    del document["messages"]["action.gun.text"]
    written = yaml.dump(document, Dumper=yaml_traps.Dumper, allow_unicode=True, sort_keys=False)
    french.write_text(written, encoding="utf-8")
    gun = load_cards(base_copy, lang="fr").get("action", "gun")
    assert gun is not None and gun.name is not None and gun.texts["text"] is not None
    english = _messages("base", "en")
    assert (gun.texts["text"].text, gun.texts["text"].lang) == (english["action.gun.text"], "en")
    assert (gun.name.text, gun.name.lang) == (_messages("base", "fr")["action.gun.name"]["text"], "fr")


def test_a_regional_language_falls_back_to_its_language_then_english(base_copy: Path) -> None:
    source = source_hash(_messages("base", "en")["action.gun.name"])
    (base_copy / "text" / "fr-CA.yaml").write_text(
        f'locale: fr-CA\nmessages:\n  action.gun.name:\n    text: "Fusil de poche"\n    source: "{source}"\n',
        encoding="utf-8",
    )
    cards = load_cards(base_copy, lang="fr_ca")
    assert cards.lang == "fr-CA" and cards.fallback == ["fr-CA", "fr", "en"]
    gun = cards.get("action", "gun")
    assert gun is not None and gun.name is not None
    assert (gun.name.text, gun.name.lang) == ("Fusil de poche", "fr-CA")
    assert gun.texts["text"].lang == "fr"


def test_without_a_regional_file_the_language_answers(base_pack: Pack) -> None:
    cards = localize(base_pack, "fr-CA")
    langs = {t.lang for card in cards.cards for t in [card.name, *card.texts.values()] if t is not None}
    assert "fr-CA" not in langs and "fr" in langs


def test_an_english_only_overlay_shows_its_texts_in_english(english_only: Path) -> None:
    cards = load_cards(rules=[str(english_only)], lang="fr")
    mower = cards.get("action", "lawn_mower")
    gun = cards.get("action", "gun")
    assert mower is not None and mower.name is not None and gun is not None and gun.name is not None
    english = yaml.safe_load((english_only / "text" / "en.yaml").read_text(encoding="utf-8"))["messages"]
    assert (mower.name.text, mower.name.lang, mower.name.pack) == (
        english["action.lawn_mower.name"],
        "en",
        "mower-en",
    )
    assert (mower.texts["text"].lang, mower.texts["text"].pack) == ("en", "mower-en")
    assert mower.packs == ["mower-en"]
    # The rewritten text is the overlay's English, not the base game's French for the old text.
    assert (gun.texts["text"].text, gun.texts["text"].lang) == (english["action.gun.text"], "en")
    assert (gun.name.lang, gun.name.pack) == ("fr", "base")  # the name it did not touch
    assert [(p.id, p.texts["name"].lang) for p in cards.rules] == [("mower-en", "en")]


def test_an_overlay_translation_of_its_own_rewrite_is_used(base_pack: Pack) -> None:
    cards = load_cards(rules=["rulebook-fr"], lang="fr")
    replica = cards.get("action", "weapon_replica")
    assert replica is not None
    overlay_french = _messages("rulebook-fr", "fr")["action.weapon_replica.text"]["text"]
    assert overlay_french != _messages("base", "fr")["action.weapon_replica.text"]["text"]
    assert (replica.texts["text"].text, replica.texts["text"].pack) == (overlay_french, "rulebook-fr")
    assert replica.texts["text"].lang == "fr"


def test_data_is_the_overlays_result_and_names_who_wrote_it() -> None:
    patches = yaml.safe_load((content_root() / "rulebook-fr" / "patches.yaml").read_text(encoding="utf-8"))
    (patch,) = [p for p in patches["patches"] if p.get("set") == "action/weapon_replica/effect"]
    cards = load_cards(rules=["rulebook-fr"], lang="en")
    replica = cards.get("action", "weapon_replica")
    assert replica is not None
    assert replica.data["effect"] == patch["to"]
    assert replica.packs == ["base", "rulebook-fr"]
    assert [(e.at, e.source) for e in replica.effects if e.at == "effect"] == [("effect", patch["to"])]
    untouched = cards.get("action", "gun")
    assert untouched is not None and untouched.packs == ["base"]


def test_a_translation_of_an_older_english_is_marked_stale(base_copy: Path) -> None:
    english = base_copy / "text" / "en.yaml"
    old = _messages("base", "en")["action.gun.text"]
    english.write_text(
        english.read_text(encoding="utf-8").replace(old, "Choose a location, then 1 zombie there dies."),
        encoding="utf-8",
    )
    cards = load_cards(base_copy, lang="fr")
    gun = cards.get("action", "gun")
    assert gun is not None and gun.name is not None
    assert (gun.texts["text"].lang, gun.texts["text"].stale) == ("fr", True)
    assert gun.name.stale is False
    (exported,) = [e for e in cards.to_json()["entities"] if e["id"] == "gun"]
    assert exported["texts"]["text"]["stale"] is True and "stale" not in exported["name"]


@pytest.mark.parametrize("lang", ["nl", "xx-YY", "12", "français"])
def test_a_language_the_pack_lacks_is_refused(base_pack: Pack, runner: CliRunner, lang: str) -> None:
    with pytest.raises(UsageError) as raised:
        localize(base_pack, lang)
    assert raised.value.code == "I18N-LANG"
    result = runner.invoke(main, ["export", "--lang", lang])
    assert result.exit_code == 2
    assert result.output.startswith("I18N-LANG ")


def test_a_language_from_the_environment_falls_back_to_english(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COH_LANG", "nl")
    document = _export(runner)
    assert (document["lang"], document["fallback"]) == ("nl", ["nl", "en"])
    english = _messages("base", "en")
    for entity in document["entities"]:
        for rest, text in [("name", entity["name"]), *entity["texts"].items()]:
            if text is not None:
                key = f"{entity['kind']}.{entity['id']}.{rest}"
                assert (text["text"], text["lang"]) == (english[key], "en"), key


def test_regional_english_is_english(base_pack: Pack) -> None:
    cards: CardSet = localize(base_pack, "en-GB")
    assert cards.fallback == ["en-GB", "en"]
    assert {t.lang for c in cards.cards for t in c.texts.values()} == {"en"}


def test_output_file_is_written_whole(runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "cards.json"
    result = runner.invoke(main, ["export", "--lang", "es", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert result.output == ""
    assert json.loads(target.read_text(encoding="utf-8")) == _export(runner, "--lang", "es")
    assert [p.name for p in tmp_path.iterdir()] == ["cards.json"]


def test_a_broken_pack_leaves_the_output_file_as_it_was(
    runner: CliRunner, base_copy: Path, tmp_path: Path
) -> None:
    actions = base_copy / "actions.yaml"
    actions.write_text(actions.read_text(encoding="utf-8").replace("count: 2", "count: two", 1), "utf-8")
    target = tmp_path / "cards.json"
    target.write_text("previous\n", encoding="utf-8")
    result = runner.invoke(main, ["export", "--pack", str(base_copy), "-o", str(target)])
    assert result.exit_code == 1
    assert f"{actions}:" in result.output and "SCHEMA-" in result.output
    assert target.read_text(encoding="utf-8") == "previous\n"
    assert "Traceback" not in result.output


@pytest.mark.parametrize("where", ["missing/cards.json", "."])
def test_an_unwritable_output_is_a_usage_error(runner: CliRunner, tmp_path: Path, where: str) -> None:
    target = tmp_path / where
    result = runner.invoke(main, ["export", "-o", str(target)])
    assert result.exit_code == 2
    assert result.output.startswith("IO-WRITE cannot write ")
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_overlay_is_a_usage_error(runner: CliRunner) -> None:
    result = runner.invoke(main, ["export", "--rules", "no-such-rule"])
    assert result.exit_code == 2
    assert result.output.startswith("OVERLAY-UNKNOWN ")


def test_the_narrator_shows_an_english_only_rewrite_in_english(english_only: Path) -> None:
    """As the export does: the base game's French for the old rule is not the overlay's text."""
    pack = load_pack_checked(None, [str(english_only)])
    english = yaml.safe_load((english_only / "text" / "en.yaml").read_text(encoding="utf-8"))["messages"]
    french = Narrator(pack, "fr")
    assert french.text("action.gun.text", {}) == english["action.gun.text"]
    base_french = Narrator(load_pack_checked(None, []), "fr")
    assert french.text("action.gun.name", {}) == base_french.text("action.gun.name", {})  # not rewritten

"""Grammatical forms of names: declared in a text file, asked for as `{name:form}`, checked."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.messages import Named, fill, placeholders
from coh_core.narrative import Narrator
from coh_core.packs import check_pack
from coh_core.packs.model import Pack

# -- filling ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "value", "shown"),
    [
        ("{location:in}", Named("Kirche", {"in": "in der Kirche"}), "in der Kirche"),
        ("{location}", Named("Kirche", {"in": "in der Kirche"}), "Kirche"),
        ("{location:to}", Named("Kirche", {"in": "in der Kirche"}), "Kirche"),  # no such form: plain
        ("{location:in}", "Kirche", "Kirche"),  # a value without forms (a list, a number): plain
        ("{other:in}", Named("Kirche", {"in": "in der Kirche"}), "{other:in}"),  # no value: as written
    ],
)
def test_a_form_is_filled_or_falls_back_to_the_plain_name(template: str, value: str, shown: str) -> None:
    assert fill(template, {"location": value}) == shown


def test_a_placeholder_with_a_form_is_the_placeholder_for_the_checks() -> None:
    assert placeholders("{count} Zombies ziehen {origin:from} {location:to}.") == [
        "count",
        "origin",
        "location",
    ]


# -- German in the narrative -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "params", "line"),
    [
        # Where a character goes: `in` + accusative for buildings, `zu` + dative for the rest.
        ("character_moved", {"character": "granny", "location": "hospital"}, "Die Oma geht ins Krankenhaus."),
        (
            "character_moved",
            {"character": "granny", "location": "water_tower"},
            "Die Oma geht zum Wasserturm.",
        ),
        ("character_moved", {"character": "granny", "location": "crossroads"}, "Die Oma geht zur Kreuzung."),
        # Where something happens: `in` + dative, `an` + dative.
        (
            "character_placed",
            {"character": "priest", "location": "church"},
            "Der Priester beginnt in der Kirche.",
        ),
        (
            "character_placed",
            {"character": "priest", "location": "water_tower"},
            "Der Priester beginnt am Wasserturm.",
        ),
        # From where to where, both in one message.
        (
            "zombies_moved",
            {"count": 3, "origin": "armory", "location": "hospital"},
            "3 Zombies ziehen aus der Waffenkammer ins Krankenhaus.",
        ),
        # A character in the genitive.
        ("power_used", {"player": "red", "character": "punk"}, "Rot nutzt die Fähigkeit des Punks."),
        (
            "power_used",
            {"player": "red", "character": "little_girl"},
            "Rot nutzt die Fähigkeit des kleinen Mädchens.",
        ),
        # A location in the accusative and in the genitive.
        (
            "marker_placed",
            {"player": "blue", "location": "water_tower"},
            "Blau legt einen Explosionsmarker auf den Wasserturm.",
        ),
        (
            "board_flipped",
            {"location": "armory", "side": "burnt"},
            "Der Plan der Waffenkammer wird umgedreht: Abgebrannt.",
        ),
    ],
)
def test_german_names_take_their_forms_in_the_narrative(
    base_pack: Pack, key: str, params: dict[str, object], line: str
) -> None:
    assert Narrator(base_pack, "de").line({"key": key, "params": params}) == line


def test_a_regional_german_takes_the_forms_of_german(base_pack: Pack) -> None:
    entry = {"key": "character_moved", "params": {"character": "granny", "location": "hospital"}}
    assert Narrator(base_pack, "de-AT").line(entry) == "Die Oma geht ins Krankenhaus."


def test_english_is_untouched_by_the_german_forms(base_pack: Pack) -> None:
    entry = {"key": "character_moved", "params": {"character": "granny", "location": "hospital"}}
    assert Narrator(base_pack, "en").line(entry) == "The Granny moves to Hospital."


# -- declaring forms -------------------------------------------------------------------------------

_CHURCH_DE = '    forms: {nom: "die Kirche", acc: "die Kirche", dat: "der Kirche", gen: "der Kirche", in: "in der Kirche", to: "in die Kirche", from: "aus der Kirche"}\n'  # noqa: E501


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_name_lacking_a_form_shows_its_plain_text_and_is_reported(base_copy: Path) -> None:
    german = base_copy / "text" / "de.yaml"
    _edit(german, _CHURCH_DE, '    forms: {in: "in der Kirche"}\n')
    pack, problems = check_pack(base_copy)
    assert pack is not None
    narrator = Narrator(pack, "de")
    assert narrator.line(
        {"key": "character_moved", "params": {"character": "granny", "location": "church"}}
    ) == (
        "Die Oma geht Kirche."  # the plain name: readable, though not German
    )
    lacking = [p for p in problems if p.code == "I18N-FORM"]
    assert len(lacking) == 1
    assert "`location.church.name` has no form `acc`, `dat`, `from`, `gen`, `nom`, `to`" in lacking[0].message
    assert lacking[0].location.file.endswith("de.yaml")
    assert (
        lacking[0].location.line
        == german.read_text(encoding="utf-8").splitlines().index('    forms: {in: "in der Kirche"}') + 1
    )


@pytest.mark.parametrize(
    ("old", "new", "code", "words"),
    [
        (_CHURCH_DE, '    forms: {In: "in der Kirche"}\n', "SCHEMA-PATTERN", '"In" is not a valid name'),
        (_CHURCH_DE, '    forms: {in: ""}\n', "SCHEMA-RANGE", "should be non-empty"),
        (_CHURCH_DE, "    forms: [in der Kirche]\n", "SCHEMA-TYPE", "must be"),
        (
            '    text: "Wähle einen Ort und töte dort 2 Zombies."\n',
            '    text: "Wähle einen Ort und töte dort 2 Zombies."\n    forms: {dat: "der Schrotflinte"}\n',
            "I18N-FORM",
            "`action.shotgun.text` declares forms, but only names (`*.name`) take them",
        ),
        (
            '    text: "{character} geht {location:to}."\n',
            '    text: "{character} geht {location:tto}."\n',
            "I18N-FORM",
            "no name of this language declares the form `tto`; did you mean `to`?",
        ),
        (
            '    text: "{character} geht {location:to}."\n',
            '    text: "{character} geht {location:Zu}."\n',
            "I18N-FORM",
            "a form's name is lowercase letters",
        ),
        (
            '    text: "{character} geht {location:to}."\n',
            '    text: "{character} geht {place:to}."\n',
            "I18N-PLACEHOLDER",
            "uses {place}",
        ),
    ],
)
def test_bad_forms_are_located_errors(base_copy: Path, old: str, new: str, code: str, words: str) -> None:
    german = base_copy / "text" / "de.yaml"
    _edit(german, old, new)
    first = german.read_text(encoding="utf-8").splitlines().index(new.splitlines()[0]) + 1
    lines = range(first - 1, first + len(new.splitlines()))  # the entry's key, or a line of the change
    _, problems = check_pack(base_copy)
    found = [p for p in problems if p.code == code]
    assert found, [p.render() for p in problems]
    assert any(words in p.message for p in found), [p.message for p in found]
    assert all(p.location.file.endswith("de.yaml") for p in found)
    assert any(p.location.line in lines for p in found), [p.render() for p in found]


def test_bad_forms_fail_validate_and_check_without_a_traceback(runner: CliRunner, base_copy: Path) -> None:
    _edit(base_copy / "text" / "de.yaml", _CHURCH_DE, '    forms: {In: "in der Kirche"}\n')
    for args in (["validate", str(base_copy)], ["i18n", "check", "--lang", "de", "--pack", str(base_copy)]):
        result = runner.invoke(main, args)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output and "de.yaml:" in result.output


def test_english_names_may_declare_forms_too(base_copy: Path) -> None:
    """The English file may give a name forms; the text of the name stays what translations translate."""
    english = base_copy / "text" / "en.yaml"
    for location, name in (
        ("water_tower", "Water Tower"),
        ("church", "Church"),
        ("hospital", "Hospital"),
        ("armory", "Armory"),
        ("bank", "Bank"),
        ("crossroads", "Crossroads"),
    ):
        _edit(
            english,
            f"  location.{location}.name: {name}\n",
            f'  location.{location}.name: {{text: "{name}", forms: {{at: "at the {name}"}}}}\n',
        )
    _edit(
        english,
        '  log.attack: "The zombies attack at {location}."',
        '  log.attack: "The zombies attack {location:at}."',
    )
    pack, problems = check_pack(base_copy)
    assert pack is not None
    # Only the German of the changed message is stale: the names' texts are unchanged.
    assert [p.message.split("`")[1] for p in problems if p.code == "I18N-STALE"] == ["log.attack"] * 4
    assert not [p for p in problems if p.code not in {"I18N-STALE"}], [p.render() for p in problems]
    assert pack.messages("en")["location.church.name"] == "Church"
    attack = {"key": "attack", "params": {"location": "church"}}
    assert Narrator(pack, "en").line(attack) == "The zombies attack at the Church."


def test_the_template_of_a_finished_translation_keeps_every_entry_and_its_forms(
    runner: CliRunner, base_pack: Pack
) -> None:
    written = yaml.safe_load(runner.invoke(main, ["i18n", "template", "de"]).stdout)["messages"]
    assert written == base_pack.entries("de")
    assert written["location.hospital.name"]["forms"]["to"] == "ins Krankenhaus"

"""The drift lint (coh_core.packs.drift): a text must say the numbers and name the places of
what it describes, in every language the pack has it in; `coh validate` warns (TEXT-DRIFT) at
the text where they part, and fails on it only with `--strict`.

Each case is an overlay on the base game that patches the Gun's effect (a card whose text
describes its `effect`) and gives the card's text in English and in Spanish."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.i18n import source_hash
from coh_core.packs import validate_paths
from coh_core.packs.loader import PACK_FORMAT
from coh_core.packs.numerals import stated_numbers
from coh_core.resources import content_root

DRIFT = "TEXT-DRIFT"


def _overlay(root: Path, effect: str, english: str, spanish: str) -> Path:
    """An overlay giving the Gun `effect`, and its text in English and Spanish."""
    pack = root / "drifty"
    (pack / "text").mkdir(parents=True)
    manifest = {
        "id": "drifty",
        "version": "0.1.0",
        "format": PACK_FORMAT,
        "kind": "overlay",
        "summary": "A Gun of our own.",
        "requires": ["base"],
        "languages": ["en", "es"],
        "files": ["patches.yaml"],
    }
    (pack / "pack.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    patches = {"patches": [{"set": "action/gun/effect", "to": effect}]}
    (pack / "patches.yaml").write_text(yaml.safe_dump(patches), encoding="utf-8")
    texts = {"pack.drifty.name": "Drifty", "pack.drifty.summary": "A Gun of our own."}
    texts["action.gun.text"] = english
    (pack / "text" / "en.yaml").write_text(
        yaml.safe_dump({"locale": "en", "messages": texts}, allow_unicode=True), encoding="utf-8"
    )
    translated = {key: {"text": value, "source": source_hash(value)} for key, value in texts.items()}
    translated["action.gun.text"] = {"text": spanish, "source": source_hash(english)}
    (pack / "text" / "es.yaml").write_text(
        yaml.safe_dump({"locale": "es", "messages": translated}, allow_unicode=True), encoding="utf-8"
    )
    return pack


def _drift(pack: Path) -> list[tuple[str, int, str]]:
    """The drift warnings: file name, line, and message."""
    report = validate_paths([pack])
    assert report.problems == []
    drift = [w for w in report.warnings if w.code == DRIFT]
    return [(Path(w.location.file).name, w.location.line, w.message) for w in drift]


def _line_of(pack: Path, language: str, needle: str) -> int:
    lines = (pack / "text" / f"{language}.yaml").read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if needle in line)


KILL_3 = "kill_zombies(3, at=choose(locations_with_zombies()))"

# effect, English text, Spanish text, and the warnings expected: (language, what the message says)
CASES = {
    "the texts say the effect's number": (
        KILL_3,
        "Choose a location and kill 3 zombies there.",
        "Elige un escenario y mata a 3 zombis allí.",
        [],
    ),
    "a number in words": (
        KILL_3,
        "Choose a location and kill three zombies there.",
        "Elige un escenario y mata a tres zombis allí.",
        [],
    ),
    "both say 2 over an effect of 3": (
        KILL_3,
        "Choose a location and kill 2 zombies there.",
        "Elige un escenario y mata a 2 zombis allí.",
        [("en", "says 2,"), ("en", "never says 3,"), ("es", "says 2,"), ("es", "never says 3,")],
    ),
    "only the translation drifts": (
        KILL_3,
        "Choose a location and kill 3 zombies there.",
        "Elige un escenario y mata a dos zombis allí.",
        [("es", "says 2,"), ("es", "never says 3,")],
    ),
    "a text with no number over an effect of 3": (
        KILL_3,
        "Choose a location and kill zombies there.",
        "Elige un escenario y mata zombis allí.",
        [("en", "never says 3,"), ("es", "never says 3,")],
    ),
    "1 goes unsaid as an article": (
        "kill_zombies(1, at=choose(locations_with_zombies()))",
        "Choose a location and kill a zombie there.",
        "Elige un escenario y mata a un zombi allí.",
        [],
    ),
    "a rule parameter the effect reads, by its value": (
        "kill_zombies(param(zombie_cap), at=choose(locations_with_zombies()))",
        "Choose a location and kill 8 zombies there.",
        "Elige un escenario y mata a 8 zombis allí.",
        [],
    ),
    "a rule parameter the effect reads, not said": (
        "kill_zombies(param(zombie_cap), at=choose(locations_with_zombies()))",
        "Choose a location and kill 9 zombies there.",
        "Elige un escenario y mata a 8 zombis allí.",
        [("en", "says 9,"), ("en", "never says param(zombie_cap) = 8,")],
    ),
    "a rule parameter the verb reads may be said": (
        "add_zombies(3, at=choose(locations()))",
        "Choose a location: 3 zombies arrive there (never more than 8 in one place).",
        "Elige un escenario: llegan 3 zombis (nunca más de 8 en un sitio).",
        [],
    ),
    "a comparison, said as a bound next to it": (
        "let at = choose(locations())\nif zombies(at) > 2 { kill_zombies(1, at=at) }",
        "Choose a location: if it holds 3 or more zombies, kill a zombie anywhere.",
        "Elige un escenario: si hay más de 2 zombis, mata a un zombi en cualquier sitio.",
        [],
    ),
    "a place the effect names, named": (
        "kill_zombies(2, at=@crossroads)",
        "Kill 2 zombies at the Crossroads.",
        "Mata a 2 zombis en el Cruce.",
        [],
    ),
    "a place the effect names, not named": (
        "kill_zombies(2, at=@crossroads)",
        "Kill 2 zombies at the Bank.",
        "Mata a 2 zombis en el Cruce.",
        [("en", "never names `crossroads` (Crossroads)")],
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_drift(case: str, tmp_path: Path) -> None:
    effect, english, spanish, expected = CASES[case]
    pack = _overlay(tmp_path, effect, english, spanish)
    found = _drift(pack)
    lines = {"en": _line_of(pack, "en", "action.gun.text"), "es": _line_of(pack, "es", "text: ")}
    lines["es"] = _line_of(pack, "es", spanish[:20])
    assert len(found) == len(expected), found
    for (language, says), (file, line, message) in zip(sorted(expected), sorted(found), strict=True):
        assert (file, line) == (f"{language}.yaml", lines[language])
        assert f"`action.gun.text` ({language}) {says}" in message


def test_the_warning_says_where_the_effect_has_its_number(tmp_path: Path) -> None:
    pack = _overlay(tmp_path, KILL_3, "Kill zombies.", "Mata zombis.")
    (_, _, message), _ = _drift(pack)
    # at the 3 of `  to: kill_zombies(3, ...`; the overlay was validated alone, on the base game
    assert message.endswith(f"which what it describes has ({pack / 'patches.yaml'}:3:20) (under drifty)")


def test_a_number_said_in_words_is_pointed_at(tmp_path: Path) -> None:
    spanish = "Elige un escenario y mata a dos zombis allí."
    pack = _overlay(tmp_path, KILL_3, "Choose a location and kill 3 zombies there.", spanish)
    report = validate_paths([pack])
    (says,) = [w for w in report.warnings if w.code == DRIFT and "says 2" in w.message]
    text = (pack / "text" / "es.yaml").read_text(encoding="utf-8").splitlines()[says.location.line - 1]
    assert text[says.location.col - 1 :].startswith("dos zombis")


def test_validate_warns_and_strict_fails(tmp_path: Path) -> None:
    pack = _overlay(tmp_path, KILL_3, "Kill 2 zombies.", "Mata a 3 zombis.")
    runner = CliRunner()
    plain = runner.invoke(main, ["validate", str(pack), "--format", "json"])
    assert plain.exit_code == 0, plain.output
    warnings = [w for w in json.loads(plain.output)["warnings"] if w["code"] == DRIFT]
    line = _line_of(pack, "en", "action.gun.text")
    # a number said that the effect lacks: at that number ("Kill 2 zombies." starts at column 20);
    # the effect's number left unsaid: at the text
    assert sorted((w["line"], w["col"], w["message"].split(") ")[1][:7]) for w in warnings) == [
        (line, 20, "never s"),
        (line, 25, "says 2,"),
    ]
    strict = runner.invoke(main, ["validate", str(pack), "--strict"])
    assert strict.exit_code != 0
    assert "TEXT-DRIFT" in strict.output


def test_the_shipped_packs_and_overlays_do_not_drift() -> None:
    report = validate_paths([content_root()])
    assert [str(w) for w in report.warnings if w.code == DRIFT] == []
    assert len(report.packs) > 10  # every game, and every overlay on its game


@pytest.mark.parametrize(
    ("text", "locale", "firm", "loose"),
    [
        ("Kill 2 zombies, then 3 more.", "en", {2, 3}, set()),
        ("the 3rd marker, 4+ dice, range 0-1", "en", {3, 4, 0, 1}, set()),
        ("kill two, then a third", "en", {2, 3}, {1}),
        ("mata a dos zombis y a la mitad del resto, uno a uno", "es", {2}, {1}),
        ("uccidi tre zombie, sei salvo", "it", {3}, {6}),
        ("tuez deux zombies avec un neuf", "fr", {2}, {1, 9}),
        ("töte zwei Zombies beim dritten Mal", "de", {2, 3}, set()),
        ("Kill zwei zombies", "pt", set(), set()),  # a language with no table: digits only
    ],
)
def test_stated_numbers(text: str, locale: str, firm: set[int], loose: set[int]) -> None:
    assert stated_numbers(text, locale) == (frozenset(firm), frozenset(loose))

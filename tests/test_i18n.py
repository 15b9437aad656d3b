"""Languages: locale names, fallback, plural forms, translation checks and the translator's tools."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from long_runs import spread

from coh_core.cli import main
from coh_core.i18n import (
    default_locale,
    fallback_chain,
    normalize_locale,
    pick_form,
    plural_category,
    source_hash,
    text_forms,
)
from coh_core.messages import placeholders
from coh_core.narrative import Narrator
from coh_core.packs import check_pack, load_pack_checked
from coh_core.packs.engine_texts import engine_english
from coh_core.packs.model import Pack
from coh_core.packs.overlays import shipped_overlays_of
from coh_core.packs.yamlsrc import load_yaml
from coh_core.resources import content_root

TRANSLATIONS = ("es", "it", "fr", "de")


# -- locales -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "locale"),
    [
        ("fr", "fr"),
        ("FR", "fr"),
        ("fr_CA.UTF-8", "fr-CA"),
        ("pt-br", "pt-BR"),
        ("it_IT@euro", "it-IT"),
        ("C", None),
        ("POSIX", None),
        ("", None),
        (None, None),
        ("english", None),
    ],
)
def test_locale_names_are_normalised(raw: str | None, locale: str | None) -> None:
    assert normalize_locale(raw) == locale


def test_fallback_goes_from_region_to_language_to_english() -> None:
    assert fallback_chain("fr-CA") == ["fr-CA", "fr", "en"]
    assert fallback_chain("it") == ["it", "en"]
    assert fallback_chain("en") == ["en"]


@pytest.mark.parametrize(
    ("environ", "locale"),
    [
        ({"COH_LANG": "es", "LANG": "fr_FR.UTF-8"}, "es"),
        ({"LC_ALL": "it_IT.UTF-8", "LANG": "fr_FR.UTF-8"}, "it-IT"),
        ({"LANG": "fr_FR.UTF-8"}, "fr-FR"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_default_locale_reads_coh_lang_then_the_system(environ: dict[str, str], locale: str) -> None:
    assert default_locale(environ) == locale


# -- plurals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "number", "category"),
    [
        ("en", 0, "other"),
        ("en", 1, "one"),
        ("en", 2, "other"),
        ("fr", 0, "one"),  # French treats 0 like 1
        ("fr", 1, "one"),
        ("fr", 2, "other"),
        ("fr-CA", 0, "one"),
        ("es", 1, "one"),
        ("es", 5, "other"),
        ("it", 0, "other"),
        ("xx", 1, "one"),  # a language Babel does not know: English rules
    ],
)
def test_plural_categories_follow_cldr(locale: str, number: int, category: str) -> None:
    assert plural_category(locale, number) == category


def test_a_missing_plural_form_falls_back_to_other() -> None:
    text = {"one": "one zombie", "other": "{count} zombies"}
    assert pick_form(text, "en", 1) == "one zombie"
    assert pick_form(text, "en", 0) == "{count} zombies"
    assert pick_form({"other": "zombies"}, "fr", 1) == "zombies"
    assert pick_form("plain", "fr", 3) == "plain"


def test_source_hashes_are_short_stable_and_sensitive() -> None:
    assert source_hash("The Blonde") == source_hash("The Blonde")
    assert re.fullmatch(r"[0-9a-f]{8}", source_hash("The Blonde"))
    assert source_hash("The Blonde") != source_hash("The Blonde.")
    assert source_hash({"one": "a", "other": "b"}) == source_hash({"other": "b", "one": "a"})


def test_french_narration_uses_the_singular_for_zero(base_pack: Pack) -> None:
    french = Narrator(base_pack, "fr")
    english = Narrator(base_pack, "en")
    entry = {"key": "zombies_killed", "params": {"count": 0, "location": "bank"}}
    assert french.line(entry) == french.line({**entry, "params": {"count": 1, "location": "bank"}}).replace(
        "1", "0", 1
    )
    assert english.line(entry) == "0 zombies are killed at Bank."


# -- the shipped translations --------------------------------------------------------------------


def _check(runner: CliRunner, *args: str) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(main, ["i18n", "check", "--format", "json", *args])
    return result.exit_code, json.loads(result.output)


def test_every_shipped_language_is_complete_and_current(runner: CliRunner) -> None:
    code, report = _check(runner)
    assert code == 0, [p for loc in report["locales"] for p in loc["problems"]][:5]
    assert sorted(loc["locale"] for loc in report["locales"]) == sorted(TRANSLATIONS)
    assert all(loc["coverage"] == 100.0 and not loc["problems"] for loc in report["locales"])


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_no_translation_is_left_in_english_by_accident(base_pack: Pack, lang: str) -> None:
    english = base_pack.messages("en")
    same = [k for k, v in base_pack.entries(lang).items() if v.get("same")]
    assert all(base_pack.entries(lang)[k]["text"] == english[k] for k in same)
    assert len(same) < len(english) // 10  # a few proper names and symbols, not whole sections


def _entries_of(base_copy: Path, lang: str) -> str:
    return (base_copy / "text" / f"{lang}.yaml").read_text(encoding="utf-8")


def _change_english(base_copy: Path, key: str, addition: str) -> None:
    """Append words to one English text (its line only: other texts may share its words)."""
    english = base_copy / "text" / "en.yaml"
    lines = english.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith(f"  {key}: "))
    line = lines[index].rstrip("\n")
    lines[index] = (line[:-1] + addition + '"\n') if line.endswith('"') else f"{line}{addition}\n"
    english.write_text("".join(lines), encoding="utf-8")


def test_changing_an_english_text_makes_every_translation_stale(runner: CliRunner, base_copy: Path) -> None:
    _change_english(base_copy, "action.shotgun.text", " Loud, too.")
    code, report = _check(runner, "--pack", str(base_copy))
    assert code == 1
    for locale in report["locales"]:
        stale = [p for p in locale["problems"] if p["code"] == "I18N-STALE"]
        assert [("action.shotgun.text" in p["message"]) for p in stale] == [True], locale["locale"]
        assert stale[0]["file"].endswith(f"text/{locale['locale']}.yaml") and stale[0]["line"] > 3
        assert locale["coverage"] < 100.0


def test_stamping_a_revised_entry_makes_it_current(runner: CliRunner, base_copy: Path) -> None:
    _change_english(base_copy, "action.shotgun.text", " Loud, too.")
    before = _entries_of(base_copy, "it")
    result = runner.invoke(main, ["i18n", "stamp", "it", "action.shotgun.text", "--pack", str(base_copy)])
    assert result.exit_code == 0, result.output
    assert "1 entry stamped" in result.output
    after = _entries_of(base_copy, "it")
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert len(changed) == 1 and "source:" in changed[0][1]  # only that one hash moved
    assert _check(runner, "--pack", str(base_copy), "--lang", "it")[0] == 0
    assert _check(runner, "--pack", str(base_copy), "--lang", "es")[0] == 1


def test_a_deleted_entry_is_missing_with_file_and_line(runner: CliRunner, base_copy: Path) -> None:
    french = base_copy / "text" / "fr.yaml"
    lines = french.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("  action.gun.text:"))
    end = start + 1
    while lines[end].startswith("    "):
        end += 1
    french.write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")
    code, report = _check(runner, "--pack", str(base_copy), "--lang", "fr")
    assert code == 1
    (missing,) = report["locales"][0]["problems"]
    assert missing["code"] == "I18N-MISSING" and "`action.gun.text`" in missing["message"]
    assert missing["file"].endswith("text/fr.yaml") and missing["line"] == start + 1  # where it belongs
    text = runner.invoke(main, ["i18n", "check", "--pack", str(base_copy), "--lang", "fr"]).output
    assert f"text/fr.yaml:{start + 1}:3: I18N-MISSING" in text


def test_validate_warns_once_of_an_unfinished_language(runner: CliRunner, base_copy: Path) -> None:
    """The game shows what is missing in English: a warning (one line), an error only when strict."""
    french = base_copy / "text" / "fr.yaml"
    head = french.read_text(encoding="utf-8").split("  character.blonde.name:")[0]
    french.write_text(head, encoding="utf-8")
    result = runner.invoke(main, ["validate", str(base_copy), "--format", "json"])
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert report["problems"] == [] and [w["code"] for w in report["warnings"]] == ["I18N-MISSING"]
    assert "% translated" in report["warnings"][0]["message"]
    assert "coh i18n check --lang fr" in report["warnings"][0]["message"]
    strict = runner.invoke(main, ["validate", str(base_copy), "--format", "json", "--strict"])
    assert strict.exit_code == 1
    assert [p["code"] for p in json.loads(strict.output)["problems"]] == ["I18N-MISSING"]
    check = runner.invoke(main, ["i18n", "check", "--lang", "fr", "--pack", str(base_copy)])
    assert check.exit_code == 1


def test_many_stale_texts_are_one_warning(runner: CliRunner, base_copy: Path) -> None:
    english = base_copy / "text" / "en.yaml"
    text = english.read_text(encoding="utf-8")
    english.write_text(
        text.replace("Housewife", "Homemaker").replace("Shotgun", "Scattergun"), encoding="utf-8"
    )
    result = runner.invoke(main, ["validate", str(base_copy)])
    assert result.exit_code == 0, result.output
    stale = [line for line in result.output.splitlines() if "I18N-STALE" in line]
    assert len(stale) == len(TRANSLATIONS)  # one per language
    assert all("translate an older English" in line and "coh i18n check --lang" in line for line in stale)
    assert result.output.splitlines()[-1].endswith(f"; {len(TRANSLATIONS)} warnings")


def _one_parameter_rule(root: Path, name: str, param: str, value: int) -> Path:
    """A house rule in English only (`languages: [en]`) that changes one rule parameter."""
    rule = root / name
    (rule / "text").mkdir(parents=True)
    (rule / "pack.yaml").write_text(
        f'id: {name}\nversion: "1.0.0"\nformat: 2\nkind: overlay\nrequires: [base]\nlanguages: [en]\n'
        "files: [patches.yaml]\n",
        encoding="utf-8",
    )
    (rule / "patches.yaml").write_text(f"patches:\n  - set: params/{param}/value\n    to: {value}\n")
    (rule / "text" / "en.yaml").write_text(f'locale: en\nmessages:\n  pack.{name}.name: "{name}"\n')
    return rule


def test_an_english_only_house_rule_validates_and_plays_in_every_language(
    runner: CliRunner, tmp_path: Path
) -> None:
    # a parameter no card's text states (a bigger zombie cap would leave the Alarm saying 8: TEXT-DRIFT)
    rule = _one_parameter_rule(tmp_path, "two-gifts", "gifts_per_window", 2)
    result = runner.invoke(main, ["validate", str(rule), "--strict", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["warnings"] == []
    game = ["play", "--players", "3", "--seed", "1", "--rules", str(rule), "--rules", "rulebook-fr"]
    played = runner.invoke(main, [*game, "--lang", "fr"])
    assert played.exit_code == 0, played.output
    (rule / "pack.yaml").write_text(
        (rule / "pack.yaml").read_text(encoding="utf-8").replace("languages: [en]\n", "")
    )
    unlisted = runner.invoke(main, ["validate", str(rule), "--format", "json"])
    assert unlisted.exit_code == 0
    assert {w["code"] for w in json.loads(unlisted.output)["warnings"]} == {"I18N-MISSING"}


SHIPPED_OVERLAYS = shipped_overlays_of(content_root(), "base")


def _conflicts(overlay: str) -> set[str]:
    manifest = yaml.safe_load((content_root() / overlay / "pack.yaml").read_text(encoding="utf-8"))
    return set(manifest.get("conflicts") or [])


@pytest.mark.parametrize("overlay", spread(SHIPPED_OVERLAYS, every=4))
def test_an_english_only_house_rule_plays_with_each_shipped_overlay(
    runner: CliRunner, tmp_path: Path, overlay: str
) -> None:
    """With the overlay, and with `rulebook-fr` too where the overlay may be played with it."""
    rule = str(_one_parameter_rule(tmp_path, "two-gifts", "gifts_per_window", 2))  # no overlay sets it
    declared = {name: _conflicts(name) for name in (overlay, "rulebook-fr")}
    with_french = overlay != "rulebook-fr" and not (
        "rulebook-fr" in declared[overlay] or overlay in declared["rulebook-fr"]
    )
    stacks = [[overlay], ["rulebook-fr", overlay]] if with_french else [[overlay]]
    for stack in stacks:
        rules = [arg for name in [*stack, rule] for arg in ("--rules", name)]
        checked = runner.invoke(main, ["validate", *rules, "--format", "json"])
        assert checked.exit_code == 0, (stack, checked.output)
        played = runner.invoke(main, ["play", "--players", "3", "--seed", "3", "--lang", "fr", *rules])
        assert played.exit_code == 0, (stack, played.output)


def test_a_stale_translation_does_not_stop_a_game(runner: CliRunner, base_copy: Path) -> None:
    english = base_copy / "text" / "en.yaml"
    text = english.read_text(encoding="utf-8")
    english.write_text(text.replace("Final scores\n", "Final score table\n"), encoding="utf-8")
    result = runner.invoke(
        main, ["play", "--pack", str(base_copy), "--players", "3", "--seed", "1", "--lang", "es"]
    )
    assert result.exit_code == 0, result.output


def test_template_keeps_translations_and_adds_what_is_missing(runner: CliRunner, base_copy: Path) -> None:
    italian = base_copy / "text" / "it.yaml"
    kept = yaml.safe_load(italian.read_text(encoding="utf-8"))["messages"]
    italian.write_text(
        italian.read_text(encoding="utf-8").replace("  ui.prompt:\n", "  ui.promptx:\n"), "utf-8"
    )
    result = runner.invoke(main, ["i18n", "template", "it", "--pack", str(base_copy)])
    assert result.exit_code == 0, result.output
    written = yaml.safe_load(result.output)
    assert written["locale"] == "it"
    assert written["messages"]["ui.prompt"] == {"text": "Your choice", "source": source_hash("Your choice")}
    assert "ui.promptx" not in written["messages"]  # an entry English lacks is dropped
    assert {k: v for k, v in written["messages"].items() if k != "ui.prompt"} == {
        k: v for k, v in kept.items() if k != "ui.prompt"
    }


@pytest.mark.parametrize("locale", ["no", "on", "pt-BR"])
def test_a_template_is_read_back_as_its_language(runner: CliRunner, base_copy: Path, locale: str) -> None:
    """A language whose code YAML 1.1 reads as a boolean (Norwegian's `no`) is written quoted."""
    template = base_copy / "text" / f"{locale}.yaml"
    result = runner.invoke(main, ["i18n", "template", locale, "--pack", str(base_copy), "-o", str(template)])
    assert result.exit_code == 0, result.output
    doc, problems = load_yaml(template, template.name)
    assert problems == [] and doc is not None and doc.data["locale"] == locale


def test_template_writes_each_note_above_its_entry(runner: CliRunner, base_copy: Path) -> None:
    result = runner.invoke(main, ["i18n", "template", "it", "--pack", str(base_copy)])
    lines = result.output.splitlines()
    entry = lines.index("  log.votes_revealed:")
    assert lines[entry - 4 : entry] == [
        "  # The secret votes at a location are shown, with the count per candidate.",
        "  #   {location}: the location of the vote",
        '  #   {votes}: each player\'s vote, as "Red for Blue (2 votes), Green for Blue"',
        '  #   {tally}: the votes each candidate received, as "Blue 5, Red 2"',
    ]
    entry = lines.index("  log.game_over:")  # the engine's own messages have notes too
    assert lines[entry - 1] == "  # The last entry of every game."


def test_a_note_never_ends_its_comment(runner: CliRunner, base_copy: Path) -> None:
    """A line break inside a note (a Unicode one too, which YAML reads as one) is a space."""
    messages = base_copy / "messages.yaml"
    note = "      note: The secret votes at a location are shown, with the count per candidate.\n"
    broken = '      note: "The secret votes\u2028tally: [at a location]\u0085are shown."\n'
    original = messages.read_text(encoding="utf-8")
    assert note in original
    messages.write_text(original.replace(note, broken), encoding="utf-8")
    result = runner.invoke(main, ["i18n", "template", "it", "--pack", str(base_copy)])
    assert result.exit_code == 0, result.output
    assert "  # The secret votes tally: [at a location] are shown.\n  #   {location}:" in result.output
    assert yaml.safe_load(result.output)["messages"]["log.votes_revealed"]["source"]


def test_every_entry_of_a_template_says_where_it_appears_and_what_it_holds(
    runner: CliRunner, base_pack: Pack
) -> None:
    """Above each entry a note (a name's and a card text's too), and every placeholder explained."""
    lines = runner.invoke(main, ["i18n", "template", "nl"]).stdout.splitlines()
    # the game's own English, and coh's it does not reword (in Dutch, which coh lacks, the game's)
    english = {**engine_english(), **base_pack.own_messages("en")}
    entries, unexplained = 0, []
    for number, line in enumerate(lines):
        found = re.fullmatch(r"  ([A-Za-z0-9_.-]+):", line)
        if found is None:
            continue
        entries += 1
        key, above = found.group(1), []
        while lines[number - 1 - len(above)].startswith("  #"):
            above.append(lines[number - 1 - len(above)])
        notes = [n for n in above if not n.startswith("  # --")]  # not the file's section heads
        names = {name for form in text_forms(english[key]) for name in placeholders(form)}
        if not notes or any(f"{{{name}}}:" not in "\n".join(notes) for name in names):
            unexplained.append(key)
    assert entries == len(english)
    assert unexplained == []


def test_a_new_language_is_one_file(runner: CliRunner, base_copy: Path) -> None:
    (base_copy / "text" / "nl.yaml").write_text(
        runner.invoke(main, ["i18n", "template", "nl", "--pack", str(base_copy)]).output, encoding="utf-8"
    )
    pack, problems = check_pack(base_copy)
    assert pack is not None and "nl" in pack.locales()
    assert {p.code for p in problems} == {"I18N-UNTRANSLATED"}  # found, English for now
    listed = runner.invoke(main, ["list", "characters", "--pack", str(base_copy), "--lang", "nl"])
    assert listed.exit_code == 0 and "The Blonde" in listed.output


def test_the_summary_of_a_fresh_template_counts_its_problems_by_code_and_file(
    runner: CliRunner, base_copy: Path
) -> None:
    """`--summary` gives a few lines in place of one per problem, counted as the full check
    finds them, and exits as it does."""
    dutch = base_copy / "text" / "nl.yaml"
    template = ["i18n", "template", "nl", "--pack", str(base_copy), "-o", str(dutch)]
    assert runner.invoke(main, template).exit_code == 0
    _change_english(base_copy, "ui.prompt", " now")  # every other language: one stale entry
    check = ["i18n", "check", "--pack", str(base_copy), "--lang", "nl", "--lang", "fr"]
    full = runner.invoke(main, [*check, "--format", "json"])
    problems = [p for locale in json.loads(full.stdout)["locales"] for p in locale["problems"]]
    by_code = Counter(p["code"] for p in problems)
    by_file = Counter(p["file"] for p in problems)
    assert by_code.keys() == {"I18N-UNTRANSLATED", "I18N-STALE"} and len(by_file) == 2

    summary = runner.invoke(main, [*check, "--summary"])
    assert summary.exit_code == full.exit_code == 1
    lines = summary.output.splitlines()
    assert len(lines) == len(by_code) + len(by_file) + 2  # then each language's coverage
    assert [line.split() for line in lines[: len(by_code)]] == [
        [c, str(n)] for c, n in sorted(by_code.items())
    ]
    for file, count in by_file.items():
        codes = Counter(p["code"] for p in problems if p["file"] == file)
        shown = ", ".join(f"{n} {code}" for code, n in sorted(codes.items()))
        assert f"{file}: {count} ({shown})" in lines

    document = json.loads(runner.invoke(main, [*check, "--summary", "--format", "json"]).stdout)
    assert document["summary"]["codes"] == dict(by_code)
    assert {f: sum(c.values()) for f, c in document["summary"]["files"].items()} == dict(by_file)
    assert all("problems" not in locale for locale in document["locales"])


def test_the_summary_of_sound_translations_is_their_coverage(runner: CliRunner) -> None:
    summary = runner.invoke(main, ["i18n", "check", "--lang", "de", "--summary"])
    assert summary.exit_code == 0
    assert [line.split()[0] for line in summary.output.splitlines()[1:]] == ["de"]


def test_a_regional_file_overrides_only_what_it_has(base_copy: Path) -> None:
    french = yaml.safe_load(_entries_of(base_copy, "fr"))["messages"]
    name = "character.blonde.name"
    entry = f'{{text: "La Blonde du Québec", source: "{french[name]["source"]}"}}'
    (base_copy / "text" / "fr-CA.yaml").write_text(
        f"locale: fr-CA\nmessages:\n  {name}: {entry}\n", encoding="utf-8"
    )
    pack, problems = check_pack(base_copy)
    assert pack is not None and problems == []
    narrator = Narrator(pack, "fr-CA")
    assert narrator.name("character", "blonde") == "La Blonde du Québec"
    assert narrator.name("character", "granny") == french["character.granny.name"]["text"]


# -- --lang and the commands ---------------------------------------------------------------------


def test_unknown_or_malformed_languages_are_usage_errors(runner: CliRunner) -> None:
    for lang, words in (("nl", "has no text in `nl`"), ("english", "not a language code")):
        result = runner.invoke(main, ["list", "characters", "--lang", lang])
        assert result.exit_code == 2
        assert "I18N-LANG" in result.output and words in result.output


def test_coh_lang_chooses_the_language(
    runner: CliRunner, base_pack: Pack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COH_LANG", "it")
    result = runner.invoke(main, ["list", "characters"])
    assert Narrator(base_pack, "it").name("character", "granny") in result.output
    monkeypatch.setenv("COH_LANG", "nl_NL.UTF-8")  # no Dutch: English, without complaint
    assert "The Granny" in runner.invoke(main, ["list", "characters"]).output


LOCALIZED_COMMANDS = (
    ["show", "shotgun"],
    ["show", "water_tower"],
    ["show", "blonde"],
    ["show", "one_am_a"],
    ["list", "characters"],
    ["list", "locations"],
    ["list", "invasions"],
    ["validate"],
    ["play", "--players", "3", "--seed", "2"],
)


def _english_leaks(pack: Pack, lang: str, outputs: list[str]) -> list[str]:
    """English phrases (longer than a name) of the pack's texts that appear in the outputs."""
    english = Narrator(pack, "en")
    same = {k for layer in [pack, *pack.overlays] for k, v in layer.entries(lang).items() if v.get("same")}
    phrases = {
        text
        for key, value in english.messages.items()
        if key not in same
        for text in (value if isinstance(value, dict) else {"": value}).values()
        for text in re.split(r"\{[a-z_]+\}", text)
        if len(text.strip(" .,:;()-")) > 12
    }
    return sorted(p for p in phrases if any(p in out for out in outputs))


@pytest.mark.parametrize("lang", spread(TRANSLATIONS, every=2))
def test_localized_output_has_no_english_sentences(runner: CliRunner, base_pack: Pack, lang: str) -> None:
    """Every English text with words of its own must not appear in the localized output."""
    outputs = [runner.invoke(main, [*args, "--lang", lang]).output for args in LOCALIZED_COMMANDS]
    assert _english_leaks(base_pack, lang, outputs) == []


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_the_french_rules_speak_every_language(runner: CliRunner, lang: str) -> None:
    pack = load_pack_checked(rules=["rulebook-fr"])
    rules = ["--rules", "rulebook-fr", "--lang", lang]
    outputs = [
        runner.invoke(main, [*args, *rules]).output
        for args in (
            ["play", "--players", "4", "--seed", "3"],
            ["show", "weapon_replica"],
            ["show", "water_tower"],
        )
    ]
    assert all("Traceback" not in out for out in outputs)
    assert _english_leaks(pack, lang, outputs) == []


@pytest.mark.parametrize(
    ("lang", "name"), [("en-GB", "Gun "), ("en-US", "Gun "), ("fr-CA", "Flingue "), ("de-CH", "Pistole ")]
)
def test_any_regional_code_falls_back_to_its_language(runner: CliRunner, lang: str, name: str) -> None:
    result = runner.invoke(main, ["show", "gun", "--lang", lang])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(name)

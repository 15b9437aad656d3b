"""coh's cache (coh_core/cache_dir.py): it saves work, and never answers for content that changed.

Each test gets a cache of its own (COH_CACHE_DIR in a temporary folder).
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core import cache_dir
from coh_core.cli import main
from coh_core.effects import parser
from coh_core.errors import Location
from coh_core.packs import yamlsrc
from coh_core.packs.schema import validate_document
from coh_core.packs.yamlsrc import YamlDoc, parse_yaml

SCHEMA = "pack.schema.json"
MANIFEST = "id: tiny\nversion: '1.0.0'\nformat: 2\nkind: base\nfiles: [a.yaml]\n"


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("COH_CACHE_DIR", str(folder))
    monkeypatch.delenv("COH_NO_CACHE", raising=False)
    return folder


# (system, environment: each variable's folder under the test's, where the cache is under it)
WHERE = [
    ("unix", {"COH_CACHE_DIR": "mine", "XDG_CACHE_HOME": "xdg"}, "mine"),  # coh's own variable first
    ("unix", {"COH_CACHE_DIR": "", "XDG_CACHE_HOME": "xdg"}, "xdg/coh"),
    ("unix", {"XDG_CACHE_HOME": "xdg"}, "xdg/coh"),
    ("macos", {"XDG_CACHE_HOME": "xdg"}, "xdg/coh"),  # XDG's variable on every system
    ("windows", {"XDG_CACHE_HOME": "xdg"}, "xdg/coh"),
    ("windows", {"COH_CACHE_DIR": "mine"}, "mine"),
    # else each system's folder for a user's caches
    ("unix", {}, "home/.cache/coh"),
    ("unix", {"XDG_CACHE_HOME": ""}, "home/.cache/coh"),
    ("macos", {}, "home/Library/Caches/coh"),
    ("windows", {}, "home/AppData/Local/coh/Cache"),  # no folder of a publisher around coh's
]


@pytest.mark.parametrize(("system", "given", "folder"), WHERE)
def test_the_cache_is_where_the_environment_says_else_in_the_systems_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, system: str, given: dict[str, str], folder: str
) -> None:
    import importlib

    import platformdirs

    module = importlib.import_module(f"platformdirs.{system}")
    kind = {"unix": "Unix", "macos": "MacOS", "windows": "Windows"}[system]
    monkeypatch.setattr(platformdirs, "PlatformDirs", getattr(module, kind))  # as on that system
    local = str(tmp_path / "home" / "AppData" / "Local")  # Windows' answer for the user's local data
    monkeypatch.setattr(importlib.import_module("platformdirs.windows"), "get_win_folder", lambda _: local)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("COH_CACHE_DIR", "COH_NO_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in given.items():
        monkeypatch.setenv(name, str(tmp_path / value) if value else "")
    assert cache_dir.directory() == tmp_path / folder


def test_no_cache_turns_it_off_wherever_it_would_be(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COH_NO_CACHE", "1")
    assert cache_dir.directory() is None and not cache_dir.enabled()


def _doc(text: str) -> YamlDoc:
    doc, problems = parse_yaml(text, "pack.yaml")
    assert doc is not None, problems
    return doc


def test_valid_data_is_remembered_and_other_data_is_checked(cache: Path) -> None:
    assert validate_document(_doc(MANIFEST), SCHEMA) == []
    assert len(list((cache / "schema-valid").iterdir())) == 1
    assert validate_document(_doc(MANIFEST), SCHEMA) == []  # known: nothing new written
    assert len(list((cache / "schema-valid").iterdir())) == 1
    # The same text but one value: checked, and the error found, whatever the cache holds.
    problems = validate_document(_doc(MANIFEST.replace("kind: base", "kind: 7")), SCHEMA)
    assert "SCHEMA-ENUM" in {p.code for p in problems}


@pytest.mark.parametrize(
    ("valid", "invalid"),
    [
        ("version: '1.0.0'", "version: 1.0"),  # the same text once read: a string, then a number
        ("files: [a.yaml]", "files: [a.yaml, a.yaml]"),
    ],
)
def test_an_entry_never_stands_for_data_that_differs(cache: Path, valid: str, invalid: str) -> None:
    assert validate_document(_doc(MANIFEST), SCHEMA) == []
    assert validate_document(_doc(MANIFEST.replace(valid, invalid)), SCHEMA) != []


def test_invalid_data_is_never_remembered(cache: Path) -> None:
    assert validate_document(_doc(MANIFEST + "unknown_key: 1\n"), SCHEMA) != []
    assert not (cache / "schema-valid").exists() or not list((cache / "schema-valid").iterdir())
    assert validate_document(_doc(MANIFEST + "unknown_key: 1\n"), SCHEMA) != []


def test_no_cache_writes_nothing(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COH_NO_CACHE", "1")
    assert validate_document(_doc(MANIFEST), SCHEMA) == []
    assert not cache.exists()


def test_a_pack_broken_after_a_clean_run_is_reported(cache: Path, base_copy: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["validate", str(base_copy)]).exit_code == 0
    assert list((cache / "schema-valid").iterdir())
    manifest = base_copy / "pack.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "unknown_key: 1\n", encoding="utf-8")
    result = runner.invoke(main, ["validate", str(base_copy)])
    assert result.exit_code == 1
    assert "SCHEMA-UNKNOWN-KEY" in result.output


@pytest.mark.parametrize("entry", ["../outside", "schema-valid/../../x", "schema-valid/" + "g" * 64, ""])
def test_an_entry_is_a_folder_and_a_digest_never_a_path(cache: Path, entry: str) -> None:
    cache_dir.add(entry)
    assert not cache_dir.has(entry)
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*"))


def test_parsed_effects_are_kept_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "trees.pickle"
    trees = parser._Trees(path)
    text = "score_points(1)"
    tree = parser._parse_now(text, "effect")
    trees.learn((text, "effect"), tree)
    trees.save()
    assert parser._Trees(path)[text, "effect"] == tree


def test_a_damaged_file_of_parsed_effects_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "trees.pickle"
    path.write_bytes(b"not a pickle")
    assert dict(parser._Trees(path)) == {}
    path.write_bytes(pickle.dumps(["a list, not the table"]))
    assert dict(parser._Trees(path)) == {}


def _read(path: Path, display: str = "a.yaml") -> tuple[YamlDoc | None, list[Any]]:
    return yamlsrc.load_yaml(path, display)


def test_yaml_files_read_are_kept_by_text_and_shown_under_each_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = cache_dir.Stored(tmp_path / "yaml.pickle")
    monkeypatch.setattr(yamlsrc, "_known_docs", lambda: stored)
    path = tmp_path / "a.yaml"
    path.write_text("cards:\n  - {id: one, count: 2}\n  - {id: two, on: no}\n", encoding="utf-8")
    first, problems = _read(path)
    assert first is not None and len(stored) == 1
    again, same_problems = _read(path)  # from the cache: the same document, a copy of its own
    assert again is not None and again is not first
    assert (again.data, again.values, again.keys, again.scalars, again.trapped) == (
        first.data,
        first.values,
        first.keys,
        first.scalars,
        first.trapped,
    )
    assert [p.to_json() for p in same_problems] == [p.to_json() for p in problems] != []
    # the same text under another name (a copy of the pack elsewhere): the entry, shown under that name
    renamed, renamed_problems = _read(path, "copy/b.yaml")
    assert renamed is not None and renamed.location(("cards", 0)).file == "copy/b.yaml"
    assert [p.location for p in renamed_problems] == [
        Location("copy/b.yaml", p.location.line, p.location.col) for p in problems
    ]
    assert [(p.code, p.message) for p in renamed_problems] == [(p.code, p.message) for p in problems]
    assert len(stored) == 1
    again, _ = _read(path)  # and the first name is shown again where it is read by it
    assert again is not None and again.location(("cards", 0)).file == first.location(("cards", 0)).file
    path.write_text("cards:\n  - {id: one, count: 3}\n", encoding="utf-8")  # edited: read anew
    edited, _ = _read(path)
    assert edited is not None and edited.data == {"cards": [{"id": "one", "count": 3}]}
    assert len(stored) == 2
    stored.save()
    assert dict(cache_dir.Stored(tmp_path / "yaml.pickle")) == dict(stored)


def test_a_damaged_file_or_entry_of_yaml_read_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "yaml.pickle"
    path.write_bytes(b"not a pickle")
    assert dict(cache_dir.Stored(path)) == {}
    stored = cache_dir.Stored(None)
    monkeypatch.setattr(yamlsrc, "_known_docs", lambda: stored)
    source = tmp_path / "a.yaml"
    source.write_text("id: x\n", encoding="utf-8")
    key = hashlib.sha256(b"id: x\n").hexdigest()
    dict.__setitem__(stored, key, b"damaged")
    doc, _ = _read(source)
    assert doc is not None and doc.data == {"id": "x"}


@pytest.mark.parametrize("locale", ["en", "fr", "es", "it", "de", "pt-BR", "ru", "ar", "cy", "xx"])
def test_plural_rules_kept_in_the_cache_are_babels(
    locale: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from babel.plural import PluralRule

    from coh_core import i18n

    monkeypatch.setenv("COH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache_dir, "_STORED", {})
    i18n._plural_rule.cache_clear()
    babels = i18n._plural_rule_of_babel(locale)
    learned = i18n._plural_rule(locale)  # worked out from Babel's data, and kept
    (stored,) = cache_dir._STORED.values()
    (entry,) = stored.values()
    kept = PluralRule(pickle.loads(entry))  # as a later run reads it back
    numbers = [*range(0, 300), 1000, 1_000_000, 0.5, 1.0, 1.5, 2.25, 11.0, 101.5]
    for rule in (learned, kept):
        assert rule.tags == babels.tags
        assert [rule(n) for n in numbers] == [babels(n) for n in numbers]
    i18n._plural_rule.cache_clear()

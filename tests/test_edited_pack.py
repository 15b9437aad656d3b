"""Commands read the pack the user edits: inside a checkout of coh, its content (even when coh
was installed from it with `pip install .`); inside a pack, that pack; never the installed copy
for writing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core import resources
from coh_core.cli import main

REPO = Path(__file__).resolve().parent.parent


def _validate(runner: CliRunner, *args: str) -> Any:
    result = runner.invoke(main, ["validate", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of a coh checkout: its project file and its content, nothing installed from it."""
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(REPO / "content", tmp_path / "content")
    return tmp_path


def test_inside_a_pack_validate_reads_that_pack(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO / "content" / "hunger")
    report = _validate(runner)
    assert report["read"] == ["."]
    assert report["packs"] == ["base+hunger"]  # an overlay is checked applied to its base


def test_inside_a_checkout_commands_read_its_content(
    runner: CliRunner, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = checkout / "content" / "base" / "text" / "en.yaml"
    text.write_text(text.read_text(encoding="utf-8").replace("Housewife", "Homemaker"), encoding="utf-8")
    (checkout / "docs").mkdir()
    monkeypatch.chdir(checkout / "docs")
    report = _validate(runner)  # the edit is seen: the translations of the name are stale
    assert report["read"] == [str((checkout / "content").resolve())]
    assert {p["code"] for p in report["warnings"]} == {"I18N-STALE"}
    shown = runner.invoke(main, ["show", "housewife"])
    assert shown.exit_code == 0, shown.output
    assert "Homemaker" in shown.output


def test_a_folder_that_is_no_coh_project_is_not_a_checkout(
    runner: CliRunner, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = checkout / "pyproject.toml"
    text = project.read_text(encoding="utf-8")
    assert 'name = "coh-engine"' in text
    project.write_text(text.replace('name = "coh-engine"', 'name = "other"'))
    monkeypatch.chdir(checkout)
    assert _validate(runner)["read"] == [str(resources.installed_content().resolve())]


def test_outside_any_checkout_the_installed_content_is_read(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _validate(runner)["read"] == [str(resources.installed_content().resolve())]


def test_the_translation_commands_say_which_pack_they_read(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO / "content" / "curfew")
    result = runner.invoke(main, ["i18n", "check", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["pack"] == "."
    text = runner.invoke(main, ["i18n", "check"])
    assert text.stdout.splitlines()[0] == "pack: ."
    template = runner.invoke(main, ["i18n", "template", "de"])
    assert template.stderr == "pack: .\n" and template.stdout.startswith("#")


def test_stamp_never_writes_into_the_installed_copy(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "site-packages" / "coh_core"
    shutil.copytree(REPO / "content", package / "_data" / "content")
    monkeypatch.setattr(resources, "_PACKAGE_DIR", package)
    base = package / "_data" / "content" / "base"
    before = (base / "text" / "es.yaml").read_bytes()
    result = runner.invoke(main, ["i18n", "stamp", "es", "--all-stale", "--pack", str(base)])
    assert result.exit_code == 2
    assert "PACK-INSTALLED" in result.output and "copy of the pack installed with coh" in result.output
    assert (base / "text" / "es.yaml").read_bytes() == before

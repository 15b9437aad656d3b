"""Shared fixtures: the built-in base pack (loaded once) and a CLI runner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.resources import content_root


@pytest.fixture(autouse=True)
def _english_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests read English output unless they ask for a language: the machine's locale is ignored."""
    monkeypatch.setenv("COH_LANG", "en")


@pytest.fixture(scope="session")
def base_pack() -> Pack:
    return load_pack_checked()


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture()
def base_copy(tmp_path: Path) -> Path:
    """A writable copy of the base pack, for tests that break it on purpose."""
    target = tmp_path / "base"
    shutil.copytree(content_root() / "base", target)
    return target

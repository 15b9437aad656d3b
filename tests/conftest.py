"""Shared fixtures: the built-in base pack (loaded once) and a CLI runner."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.resources import content_root

_OWN_CACHE = "coh-test-cache-"


def pytest_configure(config: pytest.Config) -> None:
    """The tests' cache (coh_core.cache_dir) is a folder of their own, removed at the end: a test
    run never writes to the user's cache, and never finds entries an earlier run left there."""
    if "COH_CACHE_DIR" not in os.environ:
        os.environ["COH_CACHE_DIR"] = tempfile.mkdtemp(prefix=_OWN_CACHE)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = os.environ.get("COH_CACHE_DIR", "")
    # pytest-xdist's workers share the folder the main process made: only that one removes it
    if Path(folder).name.startswith(_OWN_CACHE) and not hasattr(config, "workerinput"):
        shutil.rmtree(folder, ignore_errors=True)


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


@pytest.fixture(scope="session")
def played_record(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The record of one real game, played once per session: `coh play --players 3 --seed 2
    --bots random --log FILE`."""
    from coh_core.cli import main

    path = tmp_path_factory.mktemp("record") / "game.jsonl"
    args = ["--players", "3", "--seed", "2", "--bots", "random", "--format", "json", "--log", str(path)]
    result = CliRunner().invoke(main, ["play", *args])
    assert result.exit_code == 0, result.output
    return path.read_bytes()


@pytest.fixture()
def default_ctrl_c() -> Iterator[None]:
    """For a test that raises SIGINT in this process: Ctrl-C does what Python does by default
    (KeyboardInterrupt), as in a terminal, even where the tests were started with SIGINT ignored
    (a background job of a shell without job control: Python then leaves it ignored)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """A test worker's end costs no full garbage collection of what its tests kept (millions of
    objects: packs, games, caches). pytest collects once more as it closes; past 5 seconds
    pytest-xdist interrupts the worker with SIGINT, which Hypothesis's gc callback, running then,
    printed as an ignored KeyboardInterrupt traceback at the end of a passing run."""
    if hasattr(session.config, "workerinput"):
        gc.freeze()

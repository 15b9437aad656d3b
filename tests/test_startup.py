"""Start-up: `coh --help` and every command's `--help` import none of the heavy libraries, nor
the standard library's modules only a command's work needs.

A behaviour test, not a timing: each case runs in a fresh interpreter and looks at
`sys.modules` afterwards. `tools/bench_startup.py` measures the time.
"""

from __future__ import annotations

import functools
import subprocess
import sys

import click
import pytest

from coh_core import cli

# The libraries that only running a command may import (schema, grammar, YAML, plural rules,
# terminal rendering, parallel games, statistics, plots). The one list of them: a new heavy
# dependency goes here.
HEAVY_MODULES = (
    "jsonschema",
    "referencing",
    "fastjsonschema",
    "lark",
    "yaml",
    "babel",
    "rich",
    "joblib",
    "dask",
    "distributed",
    "scipy",
    "matplotlib",
    "numpy",
    "tqdm",
)

# The standard library's modules that the help does without (each costs `coh --help` about a
# tenth of a bare `python -c pass`, against a budget of 5x it): a command imports them when it runs.
DEFERRED_MODULES = ("pathlib", "json", "dataclasses", "shutil")

# Nothing imported before coh's command line but what the interpreter itself imports.
_PROBE = """
import sys
from coh_core.cli import main
if sys.argv[1:]:
    try:
        main(sys.argv[1:], standalone_mode=False)
    except SystemExit:
        pass
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


@functools.cache
def _imported(args: tuple[str, ...]) -> frozenset[str]:
    """The top-level modules a fresh interpreter holds after `coh ARGS` (or only the import)."""
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True)
    return frozenset(done.stdout.splitlines()[-1].split())


def _heavy_imported(args: list[str]) -> list[str]:
    """The heavy libraries a fresh interpreter has imported after `coh ARGS` (or only the import)."""
    return sorted(_imported(tuple(args)) & set(HEAVY_MODULES))


def _deferred_imported(args: list[str]) -> list[str]:
    return sorted(_imported(tuple(args)) & set(DEFERRED_MODULES))


def _commands() -> list[list[str]]:
    """`--help` of the program, of each command and of each command of a group."""
    from coh_core.cli import main

    found = [["--help"]]
    for name, command in main.commands.items():
        found.append([name, "--help"])
        if isinstance(command, click.Group):
            found.extend([name, sub, "--help"] for sub in command.commands)
    return found


def test_importing_the_command_line_imports_no_heavy_library() -> None:
    assert _heavy_imported([]) == []


@pytest.mark.parametrize("args", _commands(), ids=" ".join)
def test_help_imports_no_heavy_library(args: list[str]) -> None:
    assert _heavy_imported(args) == []


def test_the_probe_sees_a_heavy_import() -> None:
    """The probe itself can fail: a command that does its work imports the libraries."""
    assert "yaml" in _heavy_imported(["list", "characters", "--format", "json"])


@pytest.mark.parametrize("args", [[], *_commands()], ids=lambda args: " ".join(args) or "import")
def test_help_defers_the_modules_only_work_needs(args: list[str]) -> None:
    assert _deferred_imported(args) == []


def test_the_probe_sees_a_deferred_import() -> None:
    """A command that reads a pack and writes JSON does import them."""
    assert {"pathlib", "json", "dataclasses"} <= set(
        _deferred_imported(["list", "characters", "--format", "json"])
    )


@pytest.mark.parametrize("columns", ["40", "100", "300", "", "junk"])
def test_help_is_as_wide_as_clicks_own(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    """The help's width, found without shutil, is the one click would choose."""
    monkeypatch.setattr(click.formatting, "FORCED_WIDTH", None)
    monkeypatch.setenv("COLUMNS", columns)
    assert cli._HelpFormatter().width == click.HelpFormatter().width


def test_paths_given_are_paths() -> None:
    """The path options still give the commands a pathlib.Path (pathlib imported on use)."""
    from pathlib import Path

    assert cli._PathType().convert("some/dir", None, None) == Path("some/dir")

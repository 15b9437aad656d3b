"""Start-up: `coh --help` and every command's `--help` import none of the heavy libraries.

A behaviour test, not a timing: each case runs in a fresh interpreter and looks at
`sys.modules` afterwards. `tools/bench_startup.py` measures the time.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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
    "statsmodels",
    "matplotlib",
    "numpy",
    "tqdm",
)

_PROBE = """
import json, sys
from coh_core.cli import main
args = json.loads(sys.argv[1])
if args:
    try:
        main(args, standalone_mode=False)
    except SystemExit:
        pass
heavy = json.loads(sys.argv[2])
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & set(heavy))))
"""


def _heavy_imported(args: list[str]) -> list[str]:
    """The heavy libraries a fresh interpreter has imported after `coh ARGS` (or only the import)."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args), json.dumps(HEAVY_MODULES)],
        capture_output=True,
        text=True,
        check=True,
    )
    imported: list[str] = json.loads(done.stdout.splitlines()[-1])
    return imported


def _commands() -> list[list[str]]:
    """`--help` of the program, of each command and of each command of a group."""
    import click

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

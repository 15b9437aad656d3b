"""Nothing outside a pack's directory is opened while validating or playing it.

Every `open` the interpreter makes is seen through an audit hook (PEP 578): `open()`,
`Path.read_*`, `os.open` and the C loaders alike. What coh itself ships (schemas, grammars,
the Python installation) may be read; of the rest, only files inside the pack.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core import cache_dir
from coh_core.cli import main
from coh_core.resources import data_dir

_RECORDING: list[list[str]] = []  # the lists opened paths are added to while a test records


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _RECORDING and isinstance(args[0], str | bytes | os.PathLike):
        _RECORDING[-1].append(os.fsdecode(args[0]))


sys.addaudithook(_hook)  # audit hooks cannot be removed: this one records only inside `_opens`


@contextmanager
def _opens() -> Iterator[list[str]]:
    opened: list[str] = []
    _RECORDING.append(opened)
    try:
        yield opened
    finally:
        _RECORDING.pop()


# The system's time zone database, which Babel reads when it is imported, whatever the pack.
_TIME_ZONES = ["/usr/share/zoneinfo", "/etc/localtime"]


def _engine_files() -> list[Path]:
    """What coh may read besides a pack: its own data, the Python installation, time zones."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path, *_TIME_ZONES}
    roots.update(str(data_dir(name)) for name in ("schemas", "grammars"))
    return [Path(os.path.realpath(r)) for r in roots if r and Path(r).exists()]


def _outside(opened: list[str], pack: Path) -> list[str]:
    allowed = [Path(os.path.realpath(pack)), *_engine_files()]
    cache = cache_dir.directory()  # coh's own cache: the grammar's tables, what is known valid
    if cache is not None:
        allowed.append(Path(os.path.realpath(cache)))
    real = {name: Path(os.path.realpath(name)) for name in opened}
    return [name for name, path in real.items() if not any(path.is_relative_to(r) for r in allowed)]


@pytest.fixture()
def hostile_pack(base_copy: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the base pack whose manifest and links point everywhere outside it."""
    secret = tmp_path / "outside" / "secret.yaml"
    secret.parent.mkdir()
    secret.write_text("characters: []\n", encoding="utf-8")
    (base_copy / "linked.yaml").symlink_to(secret)
    (base_copy / "folder").symlink_to(secret.parent)
    (base_copy / "text" / "nl.yaml").symlink_to(secret)
    manifest = base_copy / "pack.yaml"
    names = ["linked.yaml", "folder/secret.yaml", f"../outside/{secret.name}", str(secret), "/etc/passwd"]
    listed = "".join(f"  - {name}\n" for name in names)
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace("  - turn.yaml\n", "  - turn.yaml\n" + listed),
        encoding="utf-8",
    )
    return base_copy, secret


def test_validating_a_hostile_pack_opens_nothing_outside_it(hostile_pack: tuple[Path, Path]) -> None:
    pack, secret = hostile_pack
    with _opens() as opened:
        result = CliRunner().invoke(main, ["validate", str(pack), "--format", "json"])
    assert result.exit_code == 1, result.output
    assert result.output.count('"PACK-PATH"') == 6  # five manifest names and the German text file
    assert not any(Path(os.path.realpath(o)) == secret.resolve() for o in opened)
    assert _outside(opened, pack) == []
    assert any(Path(o).name == "characters.yaml" for o in opened)  # the hook does see the pack's reads


def test_playing_a_pack_opens_nothing_outside_it(base_copy: Path) -> None:
    with _opens() as opened:
        result = CliRunner().invoke(main, ["play", "--pack", str(base_copy), "--players", "4", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert _outside(opened, base_copy) == []
    assert any(Path(o).name == "pack.yaml" for o in opened)


def test_an_overlay_requiring_a_path_reads_no_pack_there(tmp_path: Path) -> None:
    # `requires` names packs by id; a "name" that is a path to a pack elsewhere is never opened
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "pack.yaml").write_text(
        "id: elsewhere\nversion: '1'\nformat: 2\nkind: base\nfiles: [a.yaml]\n"
    )
    overlay = tmp_path / "mods" / "sneaky"
    overlay.mkdir(parents=True)
    (overlay / "pack.yaml").write_text(
        "id: sneaky\nversion: '1.0.0'\nformat: 2\nkind: overlay\nrequires: ['../elsewhere']\n"
        "files: [p.yaml]\n"
    )
    (overlay / "p.yaml").write_text("patches: []\n")
    with _opens() as opened:
        result = CliRunner().invoke(main, ["validate", str(overlay), "--format", "json"])
    assert result.exit_code == 1, result.output
    assert "SCHEMA-PATTERN" in result.output
    assert not [o for o in opened if Path(os.path.realpath(o)).is_relative_to(elsewhere.resolve())]

"""Where the shipped data lives: inside the installed package (wheel) or, in a
checkout or editable install, at the top of the repository.

The content a command reads is the one the user works on: inside a checkout of coh (a folder
with coh's `pyproject.toml` and `content/base/pack.yaml`, or below one), the checkout's, even
when coh was installed from it with `pip install .`; anywhere else, the installed copy.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from coh_core.build_info import DISTRIBUTION

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """The directory holding `content`, `schemas` or `grammars`."""
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / name


def content_root() -> Path:
    """The content the user works on: the checkout's they are in, else the installed copy."""
    return checkout_content() or data_dir("content")


def installed_content() -> Path:
    """The content that came with the installed package (or the repository, installed editable)."""
    return data_dir("content")


def checkout_content() -> Path | None:
    """The `content` folder of the checkout of coh that the current directory is in, if any."""
    try:
        here = Path.cwd().resolve()
    except OSError:  # the current directory is gone
        return None
    return _checkout_content(here)


@cache
def _checkout_content(here: Path) -> Path | None:
    for folder in (here, *here.parents):
        if (folder / "content" / "base" / "pack.yaml").is_file() and _is_coh_project(folder):
            return folder / "content"
    return None


def _is_coh_project(folder: Path) -> bool:
    try:
        with (folder / "pyproject.toml").open("rb") as file:
            project = tomllib.load(file).get("project")
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return isinstance(project, dict) and project.get("name") == DISTRIBUTION


def pack_here() -> Path | None:
    """The pack folder (with a `pack.yaml`) that the current directory is in, if any."""
    try:
        here = Path.cwd().resolve()
    except OSError:
        return None
    for folder in (here, *here.parents):
        if (folder / "pack.yaml").is_file():
            return folder
        if (folder / "pyproject.toml").is_file():  # the top of a project: no pack above it is ours
            return None
    return None


def is_installed_copy(path: Path) -> bool:
    """Whether `path` is inside the data installed with the package (never to be written)."""
    installed = (_PACKAGE_DIR / "_data").resolve()
    return installed == path.resolve() or installed in path.resolve().parents


def schema_path(name: str) -> Path:
    return data_dir("schemas") / name


def grammar_path(name: str) -> Path:
    return data_dir("grammars") / name

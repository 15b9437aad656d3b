"""Where the shipped data lives: inside the installed package (wheel) or, in a
checkout or editable install, at the top of the repository."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """The directory holding `content`, `schemas` or `grammars`."""
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / name


def content_root() -> Path:
    return data_dir("content")


def schema_path(name: str) -> Path:
    return data_dir("schemas") / name


def grammar_path(name: str) -> Path:
    return data_dir("grammars") / name

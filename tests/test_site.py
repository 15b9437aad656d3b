"""The documentation holds together without mkdocs: the site's navigation names pages that exist
and leaves none out, every relative link of the README and of the pages in docs/ leads to a file
of the repository (and to a heading there, for an anchor into a page), and no document speaks of
the project's internal history (its issue or session numbers, or a folder outside the repository).
`mkdocs build --strict` (.ci/run) checks the rendered site besides."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# The README and the site's pages. docs/design/ holds the engine's design notes, working notes
# kept out of the site (mkdocs.yml's exclude_docs).
DOCUMENTS = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`+[^`]*`+")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def _prose(path: Path) -> Iterator[tuple[int, str]]:
    """The lines of a Markdown file outside its fenced code blocks, with their numbers."""
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield number, line


def slug(heading: str) -> str:
    """A heading's anchor as Python-Markdown's toc (and, for the headings we write, GitHub) makes it."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[^\w\s-]", "", text.replace("`", "").lower()).strip()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    return {slug(match.group(1)) for _, line in _prose(path) if (match := _HEADING.match(line))}


def links(path: Path) -> Iterator[tuple[int, str]]:
    """The relative links of a Markdown file (not to a site, nor a mail address), with their lines;
    a link's text may run over lines."""
    lines = dict(_prose(path))
    total = path.read_text(encoding="utf-8").count("\n") + 1
    prose = "\n".join(_CODE_SPAN.sub("", lines.get(number, "")) for number in range(1, total + 1))
    for match in _LINK.finditer(prose):
        target = match.group(1)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target):
            yield prose.count("\n", 0, match.start()) + 1, target


def _nav_pages(entries: object) -> Iterator[str]:
    if isinstance(entries, str):
        yield entries
    elif isinstance(entries, list):
        for entry in entries:
            yield from _nav_pages(entry)
    elif isinstance(entries, dict):
        for value in entries.values():
            yield from _nav_pages(value)


def _nav() -> list[str]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs"
    return list(_nav_pages(config["nav"]))


def test_every_nav_entry_is_a_page() -> None:
    missing = [page for page in _nav() if not (DOCS / page).is_file()]
    assert missing == []


def test_every_page_is_in_the_nav() -> None:
    nav = _nav()
    assert sorted(path.name for path in DOCS.glob("*.md") if path.name not in nav) == []
    assert len(nav) == len(set(nav)), "a page is in the nav twice"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(document: Path) -> None:
    broken = []
    for number, target in links(document):
        path, _, anchor = target.partition("#")
        file = (document.parent / path).resolve() if path else document
        where = f"{document.relative_to(ROOT)}:{number}: {target}"
        if not file.exists() or not file.is_relative_to(ROOT):
            broken.append(f"{where}: no such file in the repository")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{where}: no such heading")
    assert broken == []


_HISTORY = re.compile(r"\.\./shared|\b(?:issues?|sessions?)\s+\d+", re.IGNORECASE)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_document_speaks_of_internal_history(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    found = [f"{text.count(chr(10), 0, at.start()) + 1}: {at.group(0)}" for at in _HISTORY.finditer(text)]
    assert found == []


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Balance at scale: `coh simulate`", "balance-at-scale-coh-simulate"),
        ("The compiled build (mypyc)", "the-compiled-build-mypyc"),
        ("1. Looking things up", "1-looking-things-up"),
        ("coh's own texts", "cohs-own-texts"),
    ],
)
def test_slug_is_the_anchor_mkdocs_makes(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def python_blocks(path: Path) -> list[str]:
    """The fenced ```python blocks of a Markdown file, in order."""
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def test_the_readme_python_runs() -> None:
    """The README's Python (the API's loop) runs as it is written, from start to end of a game."""
    blocks = python_blocks(ROOT / "README.md")
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"print": lambda *args: None})

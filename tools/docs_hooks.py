"""MkDocs hooks of the documentation site (mkdocs.yml's `hooks:`).

The pages link to files of the repository outside `docs/` (a source file, a test folder's README)
with relative links, which a forge's file view follows. The site holds only `docs/`, so there
such a link becomes the file's path in code (tests/test_site.py checks that the file exists).

The modding guide tags its YAML blocks for its test (```` ```yaml file=my-rules/pack.yaml ````, a
file the test writes; ```` from=content/... ````, quoted from a shipped file); on the site the
tag is the block's title.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TAGGED = re.compile(r"^(\s*```)(\w+) (file|from)=(\S+)\s*$")


def leaves_docs(page_uri: str, target: str) -> bool:
    """Whether a relative link of the page at `page_uri` (below docs/) points outside docs/."""
    if target.startswith(("#", "/")) or re.match(r"[a-z][a-z0-9+.-]*:", target):
        return False
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), target.split("#")[0]))
    return joined == ".." or joined.startswith("../")


def _as_path(match: re.Match[str], page_uri: str) -> str:
    text, target = match.group(1), match.group(2)
    if not leaves_docs(page_uri, target):
        return match.group(0)
    text = " ".join(text.split())
    return text if text.startswith("`") else f"`{text}`"


def _titled(match: re.Match[str]) -> str:
    fence, lang, tag, path = match.groups()
    title = path if tag == "file" else f"{path} (as shipped)"
    return f'{fence}{lang} title="{title}"'


def rewrite(markdown: str, page_uri: str) -> str:
    """The page's markdown with its links out of docs/ made paths, code blocks left as they are."""
    chunks: list[str] = []
    prose: list[str] = []
    fenced = False

    def flush() -> None:
        # A link's text may run over lines: the links are found in each stretch of prose whole.
        if prose:
            chunks.append(_LINK.sub(lambda match: _as_path(match, page_uri), "\n".join(prose)))
            prose.clear()

    for line in markdown.split("\n"):
        if _FENCE.match(line):
            flush()
            fenced = not fenced
            chunks.append(_TAGGED.sub(_titled, line))
        elif fenced:
            chunks.append(line)
        else:
            prose.append(line)
    flush()
    return "\n".join(chunks)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    return rewrite(markdown, page.file.src_uri)

"""The web table's tests: an app on a fresh SQLite file, and a browser's moves through its menu."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FAST = (100_000, 1.0)  # a rate no test reaches, but the rate limit's own


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "rooms.sqlite3"


@pytest.fixture()
def client(db: Path) -> Iterator[Any]:
    """Starlette's TestClient on an app over `db` (skipped without the extra web and httpx)."""
    pytest.importorskip("starlette", reason="the web table needs the extra web: pip install '.[web]'")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx: pip install '.[web,web-tests]'")
    with warnings.catch_warnings():  # Starlette asks for httpx2, which its TestClient does not need yet
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from coh_core.web.app import create_app

    with TestClient(create_app(db, rate=FAST)) as test_client:
        yield test_client


def token_of(link: str) -> str:
    return link.rsplit("/", 1)[1]


def first_keys(message: dict[str, Any]) -> str:
    """The keys of the first answer of the menu: the first entry, into its sub-menus."""
    entry = message["menu"][0]
    keys = [entry["key"]]
    while "children" in entry:
        entry = entry["children"][0]
        keys.append(entry["key"])
    return " ".join(keys)


def make_room(client: Any, **setup: Any) -> dict[str, Any]:
    doc = {"players": 4, "humans": ["yellow"], "seed": 5, "bots": "random", **setup}
    response = client.post("/rooms", json=doc)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def room_of(client: Any, created: dict[str, Any]) -> Any:
    """The server's room behind a room the test made (`make_room`)."""
    return client.app.state.table.rooms[created["room"]]

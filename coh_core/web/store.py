"""The web table's rooms in one SQLite file (the standard `sqlite3`): each room's setup, its
secret links and its game (`Game.to_json()`), saved after every decision, so that a server
started again on the same file goes on with every room where it stood."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    game TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS links (
    token TEXT PRIMARY KEY,
    room TEXT NOT NULL REFERENCES rooms(id),
    seat TEXT
);
"""


class Store:
    """The rooms kept in `path` (created when missing)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.lock = threading.Lock()
        self.db = sqlite3.connect(self.path, check_same_thread=False)
        with self.lock, self.db:
            self.db.executescript(_SCHEMA)

    def add(
        self, ident: str, setup: Mapping[str, Any], game: Mapping[str, Any], tokens: Mapping[str, str | None]
    ) -> None:
        with self.lock, self.db:
            self.db.execute(
                "INSERT INTO rooms (id, setup, game) VALUES (?, ?, ?)",
                (ident, json.dumps(setup), json.dumps(game, separators=(",", ":"))),
            )
            self.db.executemany(
                "INSERT INTO links (token, room, seat) VALUES (?, ?, ?)",
                [(token, ident, seat) for token, seat in tokens.items()],
            )

    def save(self, ident: str, game: Mapping[str, Any]) -> None:
        with self.lock, self.db:
            self.db.execute(
                "UPDATE rooms SET game = ? WHERE id = ?", (json.dumps(game, separators=(",", ":")), ident)
            )

    def rooms(self) -> Iterator[tuple[str, dict[str, Any], dict[str, Any], dict[str, str | None]]]:
        """Every room: its id, setup, game and links (token -> seat, None for a spectator's)."""
        with self.lock:
            rows = self.db.execute("SELECT id, setup, game FROM rooms ORDER BY rowid").fetchall()
            links = self.db.execute("SELECT token, room, seat FROM links").fetchall()
        by_room: dict[str, dict[str, str | None]] = {}
        for token, room, seat in links:
            by_room.setdefault(room, {})[token] = seat
        for ident, setup, game in rows:
            yield ident, json.loads(setup), json.loads(game), by_room.get(ident, {})

    def close(self) -> None:
        with self.lock:
            self.db.close()

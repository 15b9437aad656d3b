"""The web table's rooms in one SQLite file (the standard `sqlite3`): each room's setup, its
secret links, its game (`Game.to_json_text()`, which makes again only the text of what is new in
the game) and when a decision was last taken there, saved after every decision, so that a server
started again on the same file goes on with every room where it stood; a room that has expired is
removed with its links."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    game TEXT NOT NULL,
    touched REAL NOT NULL DEFAULT 0
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
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(rooms)")}
            if "touched" not in columns:  # a file written before rooms expired: their time is now
                self.db.execute("ALTER TABLE rooms ADD COLUMN touched REAL NOT NULL DEFAULT 0")
                self.db.execute("UPDATE rooms SET touched = ?", (time.time(),))

    def add(
        self,
        ident: str,
        setup: Mapping[str, Any],
        game: str,
        tokens: Mapping[str, str | None],
        touched: float,
    ) -> None:
        with self.lock, self.db:
            self.db.execute(
                "INSERT INTO rooms (id, setup, game, touched) VALUES (?, ?, ?, ?)",
                (ident, json.dumps(setup), game, touched),
            )
            self.db.executemany(
                "INSERT INTO links (token, room, seat) VALUES (?, ?, ?)",
                [(token, ident, seat) for token, seat in tokens.items()],
            )

    def save(self, ident: str, game: str, touched: float) -> None:
        """The room's game (its JSON text) and when a decision was last taken there."""
        with self.lock, self.db:
            self.db.execute("UPDATE rooms SET game = ?, touched = ? WHERE id = ?", (game, touched, ident))

    def remove(self, ident: str) -> None:
        """The room and its links, gone."""
        with self.lock, self.db:
            self.db.execute("DELETE FROM links WHERE room = ?", (ident,))
            self.db.execute("DELETE FROM rooms WHERE id = ?", (ident,))

    def rooms(self) -> Iterator[tuple[str, dict[str, Any], dict[str, Any], dict[str, str | None], float]]:
        """Every room: its id, setup, game, links (token -> seat, None for a spectator's) and when
        a decision was last taken there."""
        with self.lock:
            rows = self.db.execute("SELECT id, setup, game, touched FROM rooms ORDER BY rowid").fetchall()
            links = self.db.execute("SELECT token, room, seat FROM links").fetchall()
        by_room: dict[str, dict[str, str | None]] = {}
        for token, room, seat in links:
            by_room.setdefault(room, {})[token] = seat
        for ident, setup, game, touched in rows:
            yield ident, json.loads(setup), json.loads(game), by_room.get(ident, {}), float(touched)

    def close(self) -> None:
        with self.lock:
            self.db.close()

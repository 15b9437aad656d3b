"""The web table's Starlette application: rooms made by `POST /rooms`, one WebSocket per browser
(`/ws/{token}`), the page (`/play/{token}`) and its static files.

The protocol: `POST /rooms` takes a form or a JSON object (`game`, `rules`, `players`, `humans`,
`bots`, `lang`, `seed`: see `rooms.checked_setup`) and answers the room, a secret link per human
seat (`seats`) and a spectator's link. A browser opens `/ws/{token}` (`?lang=` for its language)
and is sent `{"type": "state", ...}` (`rooms.state_of`) at once and after every answer taken in
its room; it sends `{"type": "answer", "key": "KEYS", "decision": N}` (the terminal's keys from
the top menu, separated by blanks) or `{"type": "answer", "action": ID, "decision": N}` (an id of
the game's action space), N being the `decision` of the state it answers.

Every browser is sent only what its seat may see: each message is made from `game.view(colour)`
(a spectator's from `game.public_view()`), never from the game. Refusals are coded errors
(`{"type": "error", "code": "WEB-...", "message": ...}`) and change nothing: WEB-MALFORMED (not an
answer), WEB-SIZE, WEB-RATE, WEB-STALE (not the decision asked now), WEB-KEY, WEB-ACTION,
WEB-NOT-ASKED, WEB-SPECTATOR, WEB-OVER, WEB-TOKEN (a link that opens no seat: then closed, 4404),
and for `POST /rooms` WEB-SETUP and WEB-ROOMS.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from coh_core.web.rooms import (
    Room,
    RoomError,
    Setup,
    checked_setup,
    language,
    new_room_id,
    seat_message,
    speaker,
)
from coh_core.web.store import Store

STATIC = Path(__file__).resolve().parent / "static"
MAX_ROOMS = 200  # rooms a server keeps
MAX_MESSAGE = 2048  # characters of a browser's message
RATE = (40, 10.0)  # at most this many messages per connection in this many seconds
MAX_FORM = 4096  # bytes of a request that makes a room
LISTED = ("humans", "rules")  # the fields of a room's form that may be given several times
CLOSE_TOKEN = 4404  # the WebSocket close code for a link that opens no seat


@dataclass
class Connection:
    socket: WebSocket
    room: Room
    seat: str | None
    lang: str
    rate: tuple[int, float] = RATE
    times: list[float] = field(default_factory=list)

    def allowed(self, now: float) -> bool:
        """Whether one more message fits the rate limit (the refused ones count too)."""
        count, seconds = self.rate
        self.times = [t for t in self.times if now - t < seconds]
        self.times.append(now)
        return len(self.times) <= count


class Table:
    """Every room of a server, kept in its store; the connections of each room's browsers."""

    def __init__(self, store: Store, max_rooms: int = MAX_ROOMS, rate: tuple[int, float] = RATE) -> None:
        self.store = store
        self.max_rooms = max_rooms
        self.rate = rate
        self.rooms: dict[str, Room] = {}
        self.links: dict[str, Room] = {}
        self.connections: dict[str, list[Connection]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        for ident, setup, game, tokens in store.rooms():
            room = Room.restore(ident, Setup.from_json(setup), game, tokens)
            self._keep(room)
            if room.play_bots():  # the bots' turn when the server stopped
                store.save(ident, room.game.to_json())

    def _keep(self, room: Room) -> None:
        self.rooms[room.ident] = room
        for token in room.tokens:
            self.links[token] = room

    async def create(self, doc: dict[str, Any]) -> Room:
        if len(self.rooms) >= self.max_rooms:
            raise RoomError("WEB-ROOMS", f"this table keeps at most {self.max_rooms} rooms")
        setup = checked_setup(doc)
        room = Room.create(new_room_id(), setup)
        self._keep(room)  # counted at once (its links are not given out before it is stored)
        try:
            async with self.lock(room):
                await asyncio.to_thread(room.play_bots)
                self.store.add(room.ident, setup.to_json(), room.game.to_json(), room.tokens)
        except BaseException:
            self._drop(room)
            raise
        return room

    def _drop(self, room: Room) -> None:
        self.rooms.pop(room.ident, None)
        for token in room.tokens:
            self.links.pop(token, None)

    def lock(self, room: Room) -> asyncio.Lock:
        return self.locks.setdefault(room.ident, asyncio.Lock())

    def speaker_for(self, connection: Connection) -> Any:
        setup = connection.room.setup
        return speaker(setup.game, tuple(setup.rules), connection.lang)

    async def send_state(self, connection: Connection) -> None:
        message = seat_message(connection.room, connection.seat, self.speaker_for(connection))
        await connection.socket.send_json(message)

    async def broadcast(self, room: Room) -> None:
        for connection in list(self.connections.get(room.ident, [])):
            try:
                await self.send_state(connection)
            except (WebSocketDisconnect, RuntimeError):
                self.leave(connection)

    def leave(self, connection: Connection) -> None:
        kept = self.connections.get(connection.room.ident, [])
        if connection in kept:
            kept.remove(connection)

    async def answer(self, connection: Connection, text: str) -> None:
        """One message of a browser: an answer, else a coded error to it alone."""
        if not connection.allowed(time.monotonic()):
            count, seconds = connection.rate
            raise RoomError("WEB-RATE", f"at most {count} messages in {seconds:g} seconds")
        if len(text) > MAX_MESSAGE:
            raise RoomError("WEB-SIZE", f"a message has at most {MAX_MESSAGE} characters")
        try:
            message = json.loads(text)
        except ValueError:
            raise RoomError("WEB-MALFORMED", "a message is one JSON object") from None
        if not isinstance(message, dict) or message.get("type") != "answer":
            raise RoomError("WEB-MALFORMED", 'a message is {"type": "answer", "key": ..., "decision": ...}')
        room = connection.room
        async with self.lock(room):  # one answer at a time; its states sent before the next
            room.answer(connection.seat, message, self.speaker_for(connection))
            await asyncio.to_thread(room.play_bots)
            self.store.save(room.ident, room.game.to_json())
            await self.broadcast(room)


def _table(request: Request) -> Table:
    table: Table = request.app.state.table
    return table


async def create_room(request: Request) -> Response:
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > MAX_FORM:  # refused before it is read
        return _refused(RoomError("WEB-SIZE", f"a room's request has at most {MAX_FORM} bytes"), 413)
    body = await request.body()
    if len(body) > MAX_FORM:
        return _refused(RoomError("WEB-SIZE", f"a room's request has at most {MAX_FORM} bytes"), 413)
    try:
        if request.headers.get("content-type", "").startswith("application/json"):
            doc = json.loads(body)
            if not isinstance(doc, dict):
                raise ValueError
        else:  # a form, urlencoded
            form = parse_qs(body.decode("utf-8"), max_num_fields=50)
            doc = {name: values if name in LISTED else values[-1] for name, values in form.items()}
    except (ValueError, UnicodeDecodeError):
        return _refused(RoomError("WEB-MALFORMED", "a room's request is a form or a JSON object"), 400)
    table = _table(request)
    try:
        room = await table.create(doc)
    except RoomError as error:
        return _refused(error, 503 if error.code == "WEB-ROOMS" else 400)
    base = str(request.base_url).rstrip("/")
    seats = {seat: f"{base}/play/{token}" for token, seat in room.tokens.items() if seat is not None}
    spectator = next(f"{base}/play/{token}" for token, seat in room.tokens.items() if seat is None)
    return JSONResponse(
        {
            "room": room.ident,
            "seats": seats,
            "spectator": spectator,
            "players": room.game.players,
            "seed": room.setup.seed,
            "lang": room.setup.lang,
        }
    )


def _refused(error: RoomError, status: int) -> JSONResponse:
    return JSONResponse(error.to_json(), status_code=status)


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def play_page(request: Request) -> Response:
    return FileResponse(STATIC / "table.html")


async def websocket(socket: WebSocket) -> None:
    table: Table = socket.app.state.table
    await socket.accept()
    room = table.links.get(socket.path_params["token"])
    if room is None:
        await socket.send_json(RoomError("WEB-TOKEN", "this link opens no seat").to_json())
        await socket.close(code=CLOSE_TOKEN)
        return
    seat = room.tokens[socket.path_params["token"]]
    lang = language(room.pack, socket.query_params.get("lang"), room.setup.lang)
    connection = Connection(socket, room, seat, lang, table.rate)
    table.connections.setdefault(room.ident, []).append(connection)
    try:
        async with table.lock(room):
            await table.send_state(connection)
        while True:
            received = await socket.receive()
            if received["type"] == "websocket.disconnect":
                break
            try:
                text = received.get("text")
                if not isinstance(text, str):
                    raise RoomError("WEB-MALFORMED", "a message is JSON text")
                await table.answer(connection, text)
            except RoomError as error:
                await socket.send_json(error.to_json())
    except WebSocketDisconnect:
        pass
    finally:
        table.leave(connection)


def create_app(db: Path | str, max_rooms: int = MAX_ROOMS, rate: tuple[int, float] = RATE) -> Starlette:
    """The web table on the rooms kept in the SQLite file `db` (at most `max_rooms`; each
    browser's messages at most `rate`: so many in so many seconds)."""
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/rooms", create_room, methods=["POST"]),
            Route("/play/{token}", play_page),
            WebSocketRoute("/ws/{token}", websocket),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
    )
    app.state.table = Table(Store(db), max_rooms, rate)
    return app

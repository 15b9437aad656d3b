"""The web table's Starlette application: rooms made by `POST /rooms`, one WebSocket per browser
(`/ws/{token}`), the page (`/play/{token}`) and its static files.

The protocol: `POST /rooms` takes a form or a JSON object (`game`, `rules`, `players`, `humans`,
`bots`, `lang`, `seed`: see `rooms.checked_setup`) and answers the room, a secret link per human
seat (`seats`) and a spectator's link. A browser opens `/ws/{token}` (`?lang=` for its language,
`?after=N` for the story's first N entries it already has) and is sent `{"type": "state", ...}`
(`rooms.seat_message`) at once and after every answer taken in its room. A state's `story` holds
the entries the browser lacks, each `[N, line]` (numbered from 1: entry N follows the browser's
first N - 1 lines), `board` the labels of the pack's components in the pack's words, `scores`
the scoreboard once the game is over. While a bot that takes its time (the expert) answers,
every browser of the room is sent `{"type": "thinking", "seat": COLOUR, "text": ...}`. A browser
sends `{"type": "answer", "key": "KEYS", "decision": N}` (the terminal's keys from the top menu,
separated by blanks) or `{"type": "answer", "action": ID, "decision": N}` (an id of the game's
action space), N being the `decision` of the state it answers.

Every browser is sent only what its seat may see: each message is made from `game.view(colour)`
(a spectator's from `game.public_view()`), never from the game (but for the scoreboard, once the
game is over). Refusals are coded errors (`{"type": "error", "code": "WEB-...", "message": ...}`)
and change nothing: WEB-MALFORMED (not an answer), WEB-SIZE, WEB-RATE, WEB-STALE (not the
decision asked now), WEB-KEY, WEB-ACTION, WEB-NOT-ASKED, WEB-SPECTATOR, WEB-OVER, WEB-TOKEN (a
link that opens no seat: then closed, 4404), WEB-ROOM-GONE (the room was removed while the
browser was at it: then closed, 4404), and for `POST /rooms` WEB-SETUP and WEB-ROOMS. A room is
removed once no decision was taken there for `Expiry.idle` seconds (its game over: `Expiry.over`);
its links then open a page that says so (status 404).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from coh_core.i18n import SOURCE_LOCALE
from coh_core.packs import load_game
from coh_core.web.rooms import (
    Budget,
    Room,
    RoomError,
    Setup,
    checked_setup,
    language,
    new_room_id,
    seat_message,
    speaker,
    story_of,
)
from coh_core.web.store import Store

STATIC = Path(__file__).resolve().parent / "static"
MAX_ROOMS = 200  # rooms a server keeps
MAX_MESSAGE = 2048  # characters of a browser's message
RATE = (40, 10.0)  # at most this many messages per connection in this many seconds
MAX_FORM = 4096  # bytes of a request that makes a room
LISTED = ("humans", "rules")  # the fields of a room's form that may be given several times
CLOSE_TOKEN = 4404  # the WebSocket close code for a link that opens no seat (or no longer does)
HOUR = 3600.0
IDLE_HOURS = 72.0  # a game with no decision for this long is removed
OVER_HOURS = 24.0  # a game over is kept this long after its last decision
SWEEP = 600.0  # seconds between two looks for expired rooms


@dataclass
class Connection:
    socket: WebSocket
    room: Room
    seat: str | None
    lang: str
    rate: tuple[int, float] = RATE
    times: list[float] = field(default_factory=list)
    story: list[str] = field(default_factory=list)  # the story's lines this browser has

    def allowed(self, now: float) -> bool:
        """Whether one more message fits the rate limit (the refused ones count too)."""
        count, seconds = self.rate
        self.times = [t for t in self.times if now - t < seconds]
        self.times.append(now)
        return len(self.times) <= count


@dataclass(frozen=True)
class Expiry:
    """How long a room is kept after its last decision: a game going on, and a game over."""

    idle: float = IDLE_HOURS * HOUR
    over: float = OVER_HOURS * HOUR

    def expired(self, room: Room, now: float) -> bool:
        return now - room.touched > (self.over if room.game.over else self.idle)


class Table:
    """Every room of a server, kept in its store; the connections of each room's browsers.

    A room's game is read and changed only under the room's lock; its bots think one decision at
    a time in a worker thread (`asyncio.to_thread`), the lock let go between two, so that the
    other rooms, and this room's pages, are answered meanwhile."""

    def __init__(
        self,
        store: Store,
        max_rooms: int = MAX_ROOMS,
        rate: tuple[int, float] = RATE,
        expiry: Expiry = Expiry(),
        clock: Callable[[], float] = time.time,
        budget: Budget = (None, None),
    ) -> None:
        self.store = store
        self.max_rooms = max_rooms
        self.rate = rate
        self.expiry = expiry
        self.clock = clock
        self.budget = budget
        self.rooms: dict[str, Room] = {}
        self.links: dict[str, Room] = {}
        self.connections: dict[str, list[Connection]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        for ident, setup, game, tokens, touched in store.rooms():
            self._keep(Room.restore(ident, Setup.from_json(setup), game, tokens, touched, budget))

    def _keep(self, room: Room) -> None:
        self.rooms[room.ident] = room
        for token in room.tokens:
            self.links[token] = room

    def start(self) -> None:
        """Go on with the rooms whose bots were to answer when the server stopped."""
        for room in list(self.rooms.values()):
            if room.bot_waited_for() is not None:
                self.spawn(self.play_bots(room))

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)  # kept until done (the loop holds tasks weakly)
        task.add_done_callback(self.tasks.discard)

    async def create(self, doc: dict[str, Any]) -> Room:
        await self.expire()
        if len(self.rooms) >= self.max_rooms:
            raise RoomError("WEB-ROOMS", f"this table keeps at most {self.max_rooms} rooms")
        setup = checked_setup(doc)
        room = Room.create(new_room_id(), setup, self.clock(), self.budget)
        self._keep(room)  # counted at once (its links are not given out before it is stored)
        try:
            self.store.add(room.ident, setup.to_json(), room.game.to_json_text(), room.tokens, room.touched)
        except BaseException:
            self._drop(room)
            raise
        if room.slow:  # the links are given at once; the pages show whom the table waits for
            self.spawn(self.play_bots(room))
        else:
            await self.play_bots(room)
        return room

    def _drop(self, room: Room) -> None:
        self.rooms.pop(room.ident, None)
        self.locks.pop(room.ident, None)
        for token in room.tokens:
            self.links.pop(token, None)

    async def expire(self) -> list[str]:
        """Remove the rooms idle too long, or over for too long (from memory and the store); their
        browsers are told (WEB-ROOM-GONE) and closed. The rooms removed."""
        now = self.clock()
        gone = [room for room in self.rooms.values() if self.expiry.expired(room, now)]
        for room in gone:
            self._drop(room)
            self.store.remove(room.ident)
            for connection in self.connections.pop(room.ident, []):
                error = RoomError("WEB-ROOM-GONE", "this room was cleared: its game ended or lay idle")
                with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                    await connection.socket.send_json(error.to_json())
                    await connection.socket.close(code=CLOSE_TOKEN)
        return [room.ident for room in gone]

    def lock(self, room: Room) -> asyncio.Lock:
        return self.locks.setdefault(room.ident, asyncio.Lock())

    def speaker_for(self, connection: Connection) -> Any:
        setup = connection.room.setup
        return speaker(setup.game, tuple(setup.rules), connection.lang)

    async def send_state(self, connection: Connection) -> None:
        """The browser's state: the story's entries it lacks, not the whole story again."""
        speaking = self.speaker_for(connection)
        message, connection.story = seat_message(connection.room, connection.seat, speaking, connection.story)
        await connection.socket.send_json(message)

    async def broadcast(self, room: Room) -> None:
        for connection in list(self.connections.get(room.ident, [])):
            try:
                await self.send_state(connection)
            except (WebSocketDisconnect, RuntimeError):
                self.leave(connection)

    async def tell_thinking(self, room: Room, colour: str) -> None:
        """Every browser of the room: the bot the table waits for (`thinking`), in its language."""
        for connection in list(self.connections.get(room.ident, [])):
            narrator = self.speaker_for(connection).narrator
            text = narrator.ui("ui.web.thinking", player=colour)
            try:
                await connection.socket.send_json({"type": "thinking", "seat": colour, "text": text})
            except (WebSocketDisconnect, RuntimeError):
                self.leave(connection)

    async def play_bots(self, room: Room) -> None:
        """The bots' answers until a human must answer or the game is over, one at a time off the
        event loop; kept in the store, then every browser is sent its state."""
        while self.rooms.get(room.ident) is room:
            async with self.lock(room):
                colour = room.bot_waited_for()
                if colour is None:
                    break
                if room.slow:
                    await self.tell_thinking(room, colour)
                await asyncio.to_thread(room.think, colour)
                room.touched = self.clock()
                if room.slow:  # seconds of thinking are not lost to a restart
                    self.store.save(room.ident, room.game.to_json_text(), room.touched)
        async with self.lock(room):
            if self.rooms.get(room.ident) is room:
                self.store.save(room.ident, room.game.to_json_text(), room.touched)
                await self.broadcast(room)

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
        async with self.lock(room):  # one answer at a time
            room.answer(connection.seat, message, self.speaker_for(connection))
            room.touched = self.clock()
        await self.play_bots(room)  # then every browser's state


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
    """The table's page, or for a link that opens no room (wrong, or its room cleared) a page
    that says so, in the language asked (`?lang=`, else the browser's), with status 404."""
    if request.path_params["token"] in _table(request).links:
        return FileResponse(STATIC / "table.html")
    asked = request.query_params.get("lang") or request.headers.get("accept-language", "").split(",")[0]
    locale = language(load_game("base", ()), asked.split(";")[0], SOURCE_LOCALE)
    narrator = speaker("base", (), locale).narrator
    page = GONE_PAGE.format(
        lang=html.escape(narrator.locale),
        title=html.escape(narrator.ui("ui.web.gone.title")),
        text=html.escape(narrator.ui("ui.web.gone")),
    )
    return HTMLResponse(page, status_code=404)


GONE_PAGE = """<!doctype html>
<html lang="{lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="stylesheet" href="/static/table.css"></head>
<body><header><span id="seat">coh</span></header>
<main class="lobby"><h1>{title}</h1><p id="gone">{text}</p><p><a href="/">/</a></p></main></body>
</html>
"""


def _after(given: str | None, story: list[str]) -> list[str]:
    """The story's lines a reconnecting browser has (`?after=N`: its first N); none when N is not
    a number of lines the story has."""
    if given is None or not given.isdigit() or int(given) > len(story):
        return []
    return story[: int(given)]


async def websocket(socket: WebSocket) -> None:
    table: Table = socket.app.state.table
    await socket.accept()
    await table.expire()
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
            story = story_of(room, seat, table.speaker_for(connection))
            connection.story = _after(socket.query_params.get("after"), story)
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


def create_app(
    db: Path | str,
    max_rooms: int = MAX_ROOMS,
    rate: tuple[int, float] = RATE,
    expiry: Expiry = Expiry(),
    clock: Callable[[], float] = time.time,
    budget: Budget = (None, None),
) -> Starlette:
    """The web table on the rooms kept in the SQLite file `db` (at most `max_rooms`; each
    browser's messages at most `rate`: so many in so many seconds; rooms removed after `expiry`
    by `clock`; the expert bots' `budget`)."""
    table = Table(Store(db), max_rooms, rate, expiry, clock, budget)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        table.start()
        sweeping = asyncio.get_running_loop().create_task(_sweep(table))
        try:
            yield
        finally:
            sweeping.cancel()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/rooms", create_room, methods=["POST"]),
            Route("/play/{token}", play_page),
            WebSocketRoute("/ws/{token}", websocket),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.table = table
    return app


async def _sweep(table: Table) -> None:
    """Remove expired rooms every `SWEEP` seconds (a room is also looked at when a link opens)."""
    while True:
        await asyncio.sleep(SWEEP)
        await table.expire()

"""The web table over time: the story sent once (each browser is sent the entries it lacks),
the scoreboard with the parts of each score, rooms removed once idle or over for long (an
injected clock, no sleeps), and expert bots that think off the event loop."""

from __future__ import annotations

import sqlite3
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web table needs the extra web: pip install '.[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx: pip install '.[web,web-tests]'")

with warnings.catch_warnings():  # Starlette asks for httpx2, which its TestClient does not need yet
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from coh_core.narrative import Narrator, breakdown, score_parts
from coh_core.web.app import HOUR, Expiry, create_app
from coh_core.web.rooms import speaker, story_of

from .conftest import FAST, first_keys, make_room, room_of, token_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _story(room: Any, seat: str | None, lang: str = "en") -> list[str]:
    return story_of(room, seat, speaker(room.setup.game, tuple(room.setup.rules), lang))


# -- the story, sent once ---------------------------------------------------------------------


@pytest.mark.parametrize(("after", "first"), [("3", 4), ("0", 1), ("99999", 1), ("-2", 1), ("x", 1)])
def test_a_browser_that_connects_again_says_the_last_entry_it_has(
    client: TestClient, after: str, first: int
) -> None:
    created = make_room(client, seed=6)
    link = token_of(created["seats"]["yellow"])
    whole = _story(room_of(client, created), "yellow")
    assert len(whole) > 3
    with client.websocket_connect(f"/ws/{link}?after={after}") as socket:
        entries = socket.receive_json()["story"]
    assert entries[0][0] == first  # its N lines are kept (an N the story has not: it is sent all)
    assert [line for _, line in entries] == whole[first - 1 :]


# -- the scoreboard ---------------------------------------------------------------------------


def test_the_end_shows_each_players_score_part_by_part(client: TestClient) -> None:
    created = make_room(client, seed=8, lang="es")
    room = room_of(client, created)
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        message = socket.receive_json()
        while not message["over"]:
            socket.send_json({"type": "answer", "key": first_keys(message), "decision": message["decision"]})
            message = socket.receive_json()
    narrator = Narrator(room.pack, "es")
    parts = breakdown(room.game, room.pack)
    scores = room.game.state["result"]["scores"]
    assert score_parts(room.pack) and set(parts) == set(room.game.players)
    for player, points in parts.items():
        assert sum(points.values()) == scores[player]  # a score is the sum of its parts
        row = next(line for line in message["scores"] if f" {narrator.player(player)}:" in line)
        for part, value in points.items():
            name = narrator.part(f"scoring.{part}")
            assert narrator.part("part.score_part", name=name, value=str(value)) in row, (row, part)
    assert message["scores"][0] == narrator.ui("ui.scoreboard.title")


# -- rooms removed once idle or over ----------------------------------------------------------


class Clock:
    """A clock the test moves on."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _rows(db: Path) -> set[str]:
    with sqlite3.connect(db) as found:
        rooms = {row[0] for row in found.execute("SELECT id FROM rooms")}
        links = {row[0] for row in found.execute("SELECT DISTINCT room FROM links")}
    assert links <= rooms
    return rooms


def _finish(client: TestClient, created: dict[str, Any]) -> None:
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        message = socket.receive_json()
        while not message["over"]:
            socket.send_json({"type": "answer", "key": first_keys(message), "decision": message["decision"]})
            message = socket.receive_json()


def _answer(client: TestClient, created: dict[str, Any]) -> None:
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        message = socket.receive_json()
        socket.send_json({"type": "answer", "key": first_keys(message), "decision": message["decision"]})
        assert socket.receive_json()["type"] == "state"


def test_rooms_idle_or_over_for_long_are_removed(db: Path) -> None:
    clock = Clock()
    expiry = Expiry(idle=72 * HOUR, over=24 * HOUR)
    with TestClient(create_app(db, rate=FAST, expiry=expiry, clock=clock)) as client:
        table = client.app.state.table  # type: ignore[attr-defined]
        idle, over, busy = (make_room(client, seed=seed) for seed in (1, 2, 3))
        _finish(client, over)
        clock.now += 25 * HOUR  # the game over is kept 24 hours, the others 72
        assert client.portal.call(table.expire) == [over["room"]]  # type: ignore[attr-defined]
        _answer(client, busy)  # ... from their last decision
        clock.now += 48 * HOUR
        assert client.portal.call(table.expire) == [idle["room"]]  # type: ignore[attr-defined]
        assert set(table.rooms) == {busy["room"]} == _rows(db)
        assert all(room is table.rooms[busy["room"]] for room in table.links.values())
    with TestClient(create_app(db, rate=FAST, expiry=expiry, clock=clock)) as again:
        assert set(again.app.state.table.rooms) == {busy["room"]}  # type: ignore[attr-defined]


def test_a_browser_at_a_room_that_expires_is_told_and_closed(db: Path) -> None:
    clock = Clock()
    with TestClient(create_app(db, rate=FAST, expiry=Expiry(idle=HOUR), clock=clock)) as client:
        created = make_room(client)
        with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
            socket.receive_json()
            clock.now += 2 * HOUR
            client.portal.call(client.app.state.table.expire)  # type: ignore[attr-defined]
            assert socket.receive_json()["code"] == "WEB-ROOM-GONE"
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
        assert closed.value.code == 4404


@pytest.mark.parametrize(("lang", "title"), [("en", "No table here"), ("de", "Hier ist kein Tisch")])
def test_an_expired_link_opens_a_page_that_says_so(db: Path, lang: str, title: str) -> None:
    clock = Clock()
    with TestClient(create_app(db, rate=FAST, expiry=Expiry(idle=HOUR), clock=clock)) as client:
        created = make_room(client)
        link = token_of(created["seats"]["yellow"])
        assert client.get(f"/play/{link}").status_code == 200
        clock.now += 2 * HOUR
        with client.websocket_connect(f"/ws/{link}") as socket:  # a link opened sweeps first
            assert socket.receive_json()["code"] == "WEB-TOKEN"
        page = client.get(f"/play/{link}", headers={"accept-language": f"{lang};q=0.9"})
        assert page.status_code == 404 and f"<title>{title}</title>" in page.text
        assert f'<html lang="{lang}">' in page.text and "<script" not in page.text
        assert created["room"] not in _rows(db)


# -- expert bots --------------------------------------------------------------------------------


def test_an_expert_room_plays_to_the_end_while_the_table_answers_others(db: Path) -> None:
    with TestClient(create_app(db, rate=FAST, budget=(1, None))) as client:
        created = make_room(client, bots="expert", seed=2)
        room = room_of(client, created)
        names = Narrator(room.pack, "en")
        # once armed, the next bot to think waits until the test lets it go, so that the table is
        # known to answer another room while a bot of this one thinks
        armed, thinking, released = threading.Event(), threading.Event(), threading.Event()
        think = room.think

        def held(colour: str) -> Any:
            if armed.is_set() and not thinking.is_set():
                thinking.set()
                assert released.wait(60)
            return think(colour)

        room.think = held
        told: set[str] = set()
        answered = 0
        with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
            while True:
                message = socket.receive_json()
                if message["type"] == "thinking":  # the table says whom it waits for
                    assert message["seat"] in room.bots
                    assert message["text"] == f"{names.player(message['seat'])} is thinking…"
                    told.add(message["seat"])
                    if not released.is_set() and thinking.wait(5 if armed.is_set() else 0):
                        other = make_room(client, seed=3)  # answered meanwhile, its page too
                        with client.websocket_connect(f"/ws/{token_of(other['seats']['yellow'])}") as page:
                            assert page.receive_json()["type"] == "state"
                        assert not room.game.over and room.bot_waited_for() is not None
                        released.set()
                    continue
                if message["type"] == "error" and message["code"] == "WEB-STALE":
                    continue  # a bot answered first and the question changed: the next state asks again
                assert message["type"] == "state", message
                if message["over"]:
                    break
                if not message["menu"]:  # connected while the bots played: their end is sent too
                    continue
                socket.send_json(
                    {"type": "answer", "key": first_keys(message), "decision": message["decision"]}
                )
                answered += 1
                armed.set()
    assert room.game.over and message["scores"] and answered > 5
    assert released.is_set() and told == set(room.bots)

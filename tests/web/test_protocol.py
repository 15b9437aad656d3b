"""The web table's protocol through Starlette's TestClient: rooms, a seat's state and menu (the
terminal's keys), answers, every refusal with its code and the game unchanged, bots, a whole
game, and a server started again on the same SQLite file."""

from __future__ import annotations

import json
import sqlite3
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

from coh_core.agents.menu import Keys, build_menu
from coh_core.agents.terminal import TerminalAgent
from coh_core.narrative import Narrator
from coh_core.web.app import MAX_MESSAGE, create_app

from .conftest import FAST, first_keys, make_room, room_of, token_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_a_room_gives_a_secret_link_per_human_seat_and_one_for_spectators(client: TestClient) -> None:
    created = make_room(client, humans=["yellow", "green"])
    assert set(created["seats"]) == {"yellow", "green"}
    links = [*created["seats"].values(), created["spectator"]]
    tokens = [token_of(link) for link in links]
    assert len(set(tokens)) == 3 and all(len(token) >= 32 for token in tokens)
    assert all("/play/" in link for link in links)
    assert client.get(created["seats"]["yellow"].replace("http://testserver", "")).status_code == 200
    room = room_of(client, created)
    assert set(room.bots) == {"red", "white"}  # the bots play the others


def test_a_room_without_a_seed_gets_a_random_one(client: TestClient) -> None:
    seeds = {make_room(client, seed=None)["seed"] for _ in range(3)}
    assert len(seeds) > 1


def test_a_seat_is_sent_its_view_its_story_and_the_terminals_menu(client: TestClient) -> None:
    created = make_room(client)
    room = room_of(client, created)
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        message = socket.receive_json()
    assert message["type"] == "state" and message["me"] == "yellow"
    assert message["view"] == room.game.view("yellow").to_json()
    assert message["decision"] == room.decision_number == len(room.game.history)
    narrator = Narrator(room.pack, "en")
    # as the terminal words it: an answer to a full location says where the character goes instead
    menu = build_menu(room.game.legal("yellow"), narrator, Keys(narrator))
    expected = TerminalAgent(narrator).warn_full(menu, message["view"])
    assert [(e["key"], e["label"]) for e in message["menu"]] == [(e.key, e.label) for e in expected]
    assert message["waiting"] == [{"seat": "yellow", "name": "Yellow"}]
    assert message["question"] and message["story"]


def test_a_link_speaks_its_language(client: TestClient) -> None:
    created = make_room(client)
    link = token_of(created["seats"]["yellow"])
    with client.websocket_connect(f"/ws/{link}?lang=es") as socket:
        spanish = socket.receive_json()
    with client.websocket_connect(f"/ws/{link}?lang=xx-nope") as socket:
        default = socket.receive_json()
    assert spanish["lang"] == "es" and default["lang"] == "en"
    assert spanish["question"] != default["question"]
    assert spanish["view"] == default["view"]


def test_an_answer_by_its_keys_is_played_and_saved(client: TestClient, db: Path) -> None:
    created = make_room(client)
    room = room_of(client, created)
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        first = socket.receive_json()
        socket.send_json({"type": "answer", "key": first_keys(first), "decision": first["decision"]})
        after = socket.receive_json()
    assert after["type"] == "state" and after["decision"] > first["decision"]
    saved = json.loads(sqlite3.connect(db).execute("SELECT game FROM rooms").fetchone()[0])
    assert saved == room.game.to_json()


def test_an_answer_by_its_action_id(client: TestClient) -> None:
    created = make_room(client)
    room = room_of(client, created)
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        first = socket.receive_json()
        ident = room.game.space.id_of(tuple(room.game.legal("yellow")[0]))
        socket.send_json({"type": "answer", "action": ident, "decision": first["decision"]})
        assert socket.receive_json()["decision"] > first["decision"]


@pytest.mark.parametrize(
    ("sent", "code"),
    [
        ("not json", "WEB-MALFORMED"),
        ("[1, 2]", "WEB-MALFORMED"),
        ('{"type": "chat"}', "WEB-MALFORMED"),
        ('{"type": "answer", "decision": DECISION}', "WEB-MALFORMED"),
        ('{"type": "answer", "key": "", "decision": DECISION}', "WEB-MALFORMED"),
        ('{"type": "answer", "key": "zzqq", "decision": DECISION}', "WEB-KEY"),
        ('{"type": "answer", "key": "FIRST", "decision": 0}', "WEB-STALE"),
        ('{"type": "answer", "key": "FIRST", "decision": "DECISION"}', "WEB-STALE"),
        ('{"type": "answer", "key": "FIRST", "decision": true}', "WEB-STALE"),
        ('{"type": "answer", "action": -1, "decision": DECISION}', "WEB-ACTION"),
        ('{"type": "answer", "action": 99999999, "decision": DECISION}', "WEB-ACTION"),
        ('{"type": "answer", "key": "FIRST", "decision": DECISION, "x": "PAD"}', "WEB-SIZE"),
    ],
)
def test_a_message_refused_has_its_code_and_changes_nothing(client: TestClient, sent: str, code: str) -> None:
    created = make_room(client)
    room = room_of(client, created)
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        first = socket.receive_json()
        before = room.game.digest()
        text = (
            sent.replace("DECISION", str(first["decision"]))
            .replace("FIRST", first_keys(first))
            .replace("PAD", "x" * MAX_MESSAGE)
        )
        socket.send_text(text)
        refused = socket.receive_json()
        assert refused["type"] == "error" and refused["code"] == code, refused
        assert room.game.digest() == before
        # the seat goes on: its answer is still taken
        socket.send_json({"type": "answer", "key": first_keys(first), "decision": first["decision"]})
        assert socket.receive_json()["type"] == "state"


def test_bytes_are_refused(client: TestClient) -> None:
    created = make_room(client)
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        socket.receive_json()
        socket.send_bytes(b'{"type": "answer"}')
        assert socket.receive_json()["code"] == "WEB-MALFORMED"


def test_a_wrong_token_is_refused_and_closed(client: TestClient) -> None:
    make_room(client)
    with client.websocket_connect("/ws/not-a-link") as socket:
        assert socket.receive_json()["code"] == "WEB-TOKEN"
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == 4404


def test_a_spectator_sees_the_public_view_and_does_not_answer(client: TestClient) -> None:
    created = make_room(client)
    room = room_of(client, created)
    with client.websocket_connect(f"/ws/{token_of(created['spectator'])}") as socket:
        seen = socket.receive_json()
        assert seen["me"] is None and seen["menu"] == []
        assert seen["view"] == room.game.public_view().to_json()
        socket.send_json({"type": "answer", "key": "x", "decision": seen["decision"]})
        assert socket.receive_json()["code"] == "WEB-SPECTATOR"


def test_a_seat_not_asked_is_refused(client: TestClient) -> None:
    created = make_room(client, humans=["yellow", "red"])
    room = room_of(client, created)
    asked = room.game.waiting[0]
    other = "red" if asked == "yellow" else "yellow"
    with client.websocket_connect(f"/ws/{token_of(created['seats'][other])}") as socket:
        seen = socket.receive_json()
        socket.send_json({"type": "answer", "key": "x", "decision": seen["decision"]})
        assert socket.receive_json()["code"] == "WEB-NOT-ASKED"


def test_the_rate_limit(db: Path) -> None:
    with TestClient(create_app(db, rate=(3, 60.0))) as client:
        created = make_room(client)
        with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
            socket.receive_json()
            codes = []
            for _ in range(4):
                socket.send_text("{}")
                codes.append(socket.receive_json()["code"])
    assert codes == ["WEB-MALFORMED"] * 3 + ["WEB-RATE"]


def test_the_rooms_limit_and_a_setup_refused(db: Path) -> None:
    with TestClient(create_app(db, max_rooms=1, rate=FAST)) as client:
        for setup in (
            {"game": "/etc"},
            {"game": "nothing"},
            {"rules": ["../../etc"]},
            {"players": 99},
            {"humans": ["purple"]},
            {"bots": "genius"},
            {"seed": "abc"},
        ):
            response = client.post("/rooms", json=setup)
            assert response.status_code == 400 and response.json()["code"] == "WEB-SETUP", setup
        assert (
            client.post("/rooms", content=b"[1]", headers={"content-type": "application/json"}).json()["code"]
            == "WEB-MALFORMED"
        )
        assert client.post("/rooms", content=b"x" * 10_000).json()["code"] == "WEB-SIZE"
        make_room(client)
        refused = client.post("/rooms", json={"players": 3})
        assert refused.status_code == 503 and refused.json()["code"] == "WEB-ROOMS"


def test_a_room_from_a_form(client: TestClient) -> None:
    response = client.post("/rooms", data={"players": "3", "humans": ["red"], "bots": "random", "lang": "fr"})
    assert response.status_code == 200, response.text
    assert set(response.json()["seats"]) == {"red"} and response.json()["lang"] == "fr"


def play_to_the_end(socket: Any, message: dict[str, Any], limit: int = 2000) -> dict[str, Any]:
    """Answer the first answer of every menu until the game is over."""
    for _ in range(limit):
        if message["over"]:
            return message
        assert message["type"] == "state", message
        socket.send_json({"type": "answer", "key": first_keys(message), "decision": message["decision"]})
        message = socket.receive_json()
    raise AssertionError("the game did not end")


def test_one_human_and_three_bots_play_a_whole_game(client: TestClient) -> None:
    created = make_room(client, bots="heuristic")
    room = room_of(client, created)
    with client.websocket_connect(f"/ws/{token_of(created['seats']['yellow'])}") as socket:
        last = play_to_the_end(socket, socket.receive_json())
    assert room.game.over and last["scores"]
    assert last["view"]["result"] == room.game.state["result"]
    assert last["menu"] == [] and last["waiting"] == []


def test_a_server_started_again_goes_on_with_the_room(db: Path) -> None:
    with TestClient(create_app(db, rate=FAST)) as client:
        created = make_room(client, humans=["yellow", "red"])
        link = token_of(created["seats"]["yellow"])
        with client.websocket_connect(f"/ws/{link}") as socket:
            message = socket.receive_json()
            for _ in range(3):
                if not message["menu"]:
                    break
                socket.send_json(
                    {"type": "answer", "key": first_keys(message), "decision": message["decision"]}
                )
                message = socket.receive_json()
        digest = room_of(client, created).game.digest()
    with TestClient(create_app(db, rate=FAST)) as again:
        room = room_of(again, created)
        assert room.game.digest() == digest
        with again.websocket_connect(f"/ws/{link}") as socket:
            resumed = socket.receive_json()
        assert resumed["decision"] == message["decision"]
        assert resumed["view"] == message["view"] and resumed["menu"] == message["menu"]

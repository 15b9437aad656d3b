"""No browser is sent what its seat may not see.

Two human seats and a spectator play a whole game (plus bots); each browser is sent only the
entries of the story it lacks, which put together are its seat's whole story. At every message a
browser receives, the test takes from the real game the entries of every pile the engine hides
from that seat (the other seats' hands and the face-down piles: the piles of `game.state` whose entries the
seat's view leaves out), keeps those that name something (the ids: a number says nothing alone)
and that the seat's own view does not show elsewhere at that moment (the engine decides what a
seat sees: the test checks that the table adds nothing to it), and asserts that none of them, nor
its name in the seat's language, is anywhere in the message.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web table needs the extra web: pip install '.[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx: pip install '.[web,web-tests]'")

with warnings.catch_warnings():  # Starlette asks for httpx2, which its TestClient does not need yet
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from coh_core.narrative import Narrator
from coh_core.web.rooms import speaker, story_of

from .conftest import first_keys, make_room, token_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def hidden_entries(game: Any, seat: str | None) -> set[str]:
    """The named entries of the piles the seat does not see, less what its view shows anyway."""
    view = game.public_view() if seat is None else game.view(seat)
    seen = view.to_json()
    hidden: set[str] = set()
    for pile, owners in game.state["piles"].items():
        shown = seen["piles"].get(pile, {})
        for owner, entries in owners.items():
            if owner not in shown:
                hidden.update(entry for entry in entries if isinstance(entry, str))
    return hidden - _strings(seen) - _strings(view.log())


def _strings(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found.add(str(key))
            found |= _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= _strings(item)
    return found


def check(message: dict[str, Any], game: Any, seat: str | None, narrator: Narrator) -> int:
    """Assert that the message holds no hidden entry; how many were checked."""
    hidden = hidden_entries(game, seat)
    sent = _strings(message)
    text = json.dumps(message, ensure_ascii=False)
    shown_names = {
        str(narrator.entity(s))
        for s in _strings(game.public_view().to_json() if seat is None else game.view(seat).to_json())
    }
    for entry in hidden:
        assert entry not in sent, f"{seat} was sent {entry}, which it cannot see"
        name = str(narrator.entity(entry))
        if name != entry and name not in shown_names:
            assert name not in text, f"{seat} was sent the name of {entry} ({name}), which it cannot see"
    return len(hidden)


def kept(story: list[str], entries: list[list[Any]]) -> list[str]:
    """A browser's story after a message: entry N follows its first N - 1 lines; a message sends
    only the entries the browser lacks, none it has already."""
    if not entries:
        return story
    first = entries[0][0]
    assert first == len(story) + 1, (first, len(story))
    assert [n for n, _ in entries] == list(range(first, first + len(entries)))
    return story + [line for _, line in entries]


def test_no_browser_is_sent_another_seats_secrets(client: TestClient) -> None:
    created = make_room(client, players=4, humans=["yellow", "red"], seed=11, bots="random")
    room = client.app.state.table.rooms[created["room"]]  # type: ignore[attr-defined]
    narrator = Narrator(room.pack, "en")
    seats: dict[str | None, str] = {
        "yellow": token_of(created["seats"]["yellow"]),
        "red": token_of(created["seats"]["red"]),
        None: token_of(created["spectator"]),
    }
    checked = messages = 0
    with (
        client.websocket_connect(f"/ws/{seats['yellow']}") as yellow,
        client.websocket_connect(f"/ws/{seats['red']}") as red,
        client.websocket_connect(f"/ws/{seats[None]}") as spectator,
    ):
        sockets = {"yellow": yellow, "red": red, None: spectator}
        last: dict[str | None, dict[str, Any]] = {}
        stories: dict[str | None, list[str]] = {}
        for seat, socket in sockets.items():
            last[seat] = socket.receive_json()
            checked += check(last[seat], room.game, seat, narrator)
            stories[seat] = kept([], last[seat]["story"])
        for _ in range(3000):
            if room.game.over:
                break
            asked = next(seat for seat in ("yellow", "red") if last[seat]["menu"])
            message = last[asked]
            sockets[asked].send_json(
                {"type": "answer", "key": first_keys(message), "decision": message["decision"]}
            )
            for seat, socket in sockets.items():  # every browser gets its new state
                last[seat] = socket.receive_json()
                assert last[seat]["type"] == "state"
                checked += check(last[seat], room.game, seat, narrator)
                stories[seat] = kept(stories[seat], last[seat]["story"])
                messages += 1
    assert room.game.over
    for seat, story in stories.items():  # each put its seat's whole story together from the entries
        assert story == story_of(room, seat, speaker("base", (), "en")), seat
    assert messages > 50 and checked > 500  # the test saw secrets to keep, not an empty game

"""The web table in a real browser: Chromium (headless) driven by Playwright against `coh serve`
started in a subprocess on a free port.

Skipped, with the reason, where the extra web, Playwright or /usr/bin/chromium is missing; where the
environment variable COH_REQUIRE_BROWSER is set (`.ci/run` sets it for these tests), a missing
browser fails instead. Screenshots at a desktop's and a phone's
sizes are written into the folder the tests print (COH_WEB_ARTEFACTS, else a temporary one).
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from coh_core.web.rooms import decision_number

CHROMIUM = Path("/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _need(reason: str) -> None:
    if os.environ.get("COH_REQUIRE_BROWSER"):
        pytest.fail(f"{reason} (COH_REQUIRE_BROWSER is set: the browser tests must run)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    pytest.importorskip("starlette", reason="the web table needs the extra web: pip install '.[web]'")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("Playwright is not installed: pip install '.[web,web-tests]'")
    if not CHROMIUM.exists():
        _need(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("COH_WEB_ARTEFACTS")
    folder = Path(given) if given else tmp_path_factory.mktemp("web-artefacts")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nthe web table's screenshots: {folder}")
    return folder


class Server:
    """`coh serve` in a subprocess on a free port; stopped and started again on the same db."""

    def __init__(self, db: Path) -> None:
        self.db = db
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-c", "from coh_core.cli import main; main()", "serve"]
        command += ["--port", str(self.port), "--db", str(self.db), "--rate", "10000"]
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                assert self.process.poll() is None, self.process.stderr.read() if self.process.stderr else ""
                time.sleep(0.1)
        raise AssertionError("coh serve did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def room(self, **setup: Any) -> dict[str, Any]:
        import httpx

        doc = {"players": 4, "humans": ["yellow"], "bots": "random", "seed": 3, **setup}
        response = httpx.post(f"{self.url}/rooms", json=doc, timeout=30)
        assert response.status_code == 200, response.text
        found: dict[str, Any] = response.json()
        return found

    def game(self, room: str) -> Any:
        """The room's game as the server saved it last."""
        from coh_core.engine import Game, rules_for
        from coh_core.packs import load_game

        with sqlite3.connect(self.db) as db:
            setup, doc = db.execute("SELECT setup, game FROM rooms WHERE id = ?", (room,)).fetchone()
        setup = json.loads(setup)
        return Game.from_json(rules_for(load_game(setup["game"], tuple(setup["rules"]))), json.loads(doc))


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "rooms.sqlite3")
    running.start()
    yield running
    running.stop()


def _decision(page: Any) -> int:
    page.wait_for_function("document.body.dataset.decision !== undefined", timeout=20_000)
    return int(page.evaluate("document.body.dataset.decision"))


def _first_answer(page: Any, press: Callable[[Any, Any], None]) -> None:
    """Answer the first entry of the menu, into its sub-menus (`press` picks a button), and wait
    for the next state."""
    _decision(page)
    before = page.evaluate("document.body.dataset.version")
    while True:
        button = page.locator("#menu button").first
        button.wait_for(timeout=20_000)
        leaf = button.get_attribute("data-leaf") == "1"
        press(page, button)
        if leaf:
            break
    page.wait_for_function(f"document.body.dataset.version !== '{before}'", timeout=20_000)


def answer_first(page: Any) -> None:
    """Click the first entry of the menu, into its sub-menus."""
    _first_answer(page, lambda _page, button: button.click())


def _type_keys(page: Any, button: Any) -> None:
    page.keyboard.type(button.get_attribute("data-key") or "")
    page.keyboard.press("Enter")  # a key another key begins with waits for it


def type_first(page: Any) -> None:
    """Answer the first entry of the menu by typing its keys, as at the terminal."""
    _first_answer(page, _type_keys)


def play_to_the_end(page: Any, limit: int = 2000) -> int:
    for clicks in range(limit):
        page.wait_for_function(
            "document.body.dataset.over === 'true' || document.querySelectorAll('#menu button').length > 0",
            timeout=20_000,
        )
        if page.evaluate("document.body.dataset.over") == "true":
            return clicks
        answer_first(page)
    raise AssertionError("the game did not end")


def test_one_human_and_three_bots_play_a_whole_game_by_clicking(
    browser: Any, server: Server, artefacts: Path
) -> None:
    room = server.room()
    for name, size in (("phone", PHONE), ("desktop", DESKTOP)):  # the phone first: the game is not over
        context = browser.new_context(viewport=size)
        page = context.new_page()
        page.goto(room["seats"]["yellow"])
        page.locator("#menu button").first.wait_for(timeout=20_000)
        page.screenshot(path=str(artefacts / f"table-{name}.png"), full_page=True)
        if name == "phone":  # the menu is in the first screen on a phone
            box = page.locator("#menu button").first.bounding_box()
            assert box is not None and box["x"] + box["width"] <= PHONE["width"] + 1
        else:
            clicks = play_to_the_end(page)
            assert clicks > 5
            assert page.locator("#result div").count() > 0  # the scores
            page.screenshot(path=str(artefacts / "table-desktop-over.png"), full_page=True)
            assert server.game(room["room"]).over
        context.close()


def test_two_humans_see_none_of_each_others_secrets(browser: Any, server: Server, artefacts: Path) -> None:
    """Two humans and two bots, each human in a language of their own (English and Spanish) in a
    browser of their own: neither page ever holds an entry hidden from its seat, by id or name."""
    from coh_core.narrative import Narrator

    from .test_leaks import hidden_entries

    langs = {"yellow": "en", "red": "es"}
    room = server.room(humans=list(langs), players=4, seed=7)
    pages = {}
    for seat, lang in langs.items():
        context = browser.new_context(viewport=DESKTOP)
        pages[seat] = context.new_page()
        pages[seat].goto(f"{room['seats'][seat]}?lang={lang}")
        _decision(pages[seat])
    narrators: dict[str, Narrator] = {}
    checked = 0
    for _ in range(60):
        game = server.game(room["room"])
        if game.over:
            break
        for seat, page in pages.items():
            narrator = narrators.setdefault(seat, Narrator(game.rules.pack, langs[seat]))
            page.wait_for_function(
                f"document.body.dataset.decision === '{decision_number(game)}'", timeout=20_000
            )
            shown = page.content()
            visible = page.locator("body").inner_text()
            for entry in hidden_entries(game, seat):
                assert f'"{entry}"' not in shown and f">{entry}<" not in shown, (seat, entry)
                name = str(narrator.entity(entry))
                if name != entry and not _within_another_name(narrator, entry, name):
                    assert name not in visible, (seat, name)
                checked += 1
        asked = next(seat for seat in game.waiting if seat in pages)
        answer_first(pages[asked])
    pages["yellow"].screenshot(path=str(artefacts / "two-humans-yellow.png"), full_page=True)
    pages["red"].screenshot(path=str(artefacts / "two-humans-red-es.png"), full_page=True)
    assert checked > 50
    # each page speaks its seat's language: the places' names, and the page's own
    assert pages["red"].evaluate("document.documentElement.lang") == "es"
    red, yellow = (pages[seat].locator("body").inner_text() for seat in ("red", "yellow"))
    assert "Iglesia" in red and "Church" not in red
    assert "Church" in yellow and "Iglesia" not in yellow


def _within_another_name(narrator: Any, entry: str, name: str) -> bool:
    """Whether the name is part of another entity's name in that language (the Spanish pickpocket
    card is "Ladrón", the Thief "El Ladrón"): a name that says nothing of the entry alone."""
    pack = narrator.pack
    return any(
        name in str(narrator.entity(other.id))
        for kind in pack.entity_kinds()
        for other in pack.entities_of(kind)
        if other.id != entry
    )


def test_a_page_resumes_after_the_server_starts_again(browser: Any, server: Server, artefacts: Path) -> None:
    room = server.room(bots="random", seed=9)
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(room["seats"]["yellow"])
    for _ in range(3):
        answer_first(page)
    before = _decision(page)
    story = page.locator("#story li").count()
    version = int(page.evaluate("document.body.dataset.version"))
    server.stop()
    server.start()
    # the page connects again by itself and is sent its seat's state anew
    page.wait_for_function(f"Number(document.body.dataset.version) > {version}", timeout=20_000)
    assert _decision(page) == before
    assert page.locator("#story li").count() == story
    type_first(page)  # and the game goes on, answered from the keyboard
    assert _decision(page) > before
    page.screenshot(path=str(artefacts / "table-phone-resumed.png"), full_page=True)


def component_ids(pack: Any) -> set[str]:
    """The ids of the pack's components (its pointers, counters, piles, places, pieces, memory,
    graphs...): each section of `components` that names its entries."""
    found: set[str] = set()
    for section in pack.section("components").values():
        if isinstance(section, dict):
            found.update(str(ident) for ident in section)
    return found


def shown_ids(text: str, ids: set[str], lang: str) -> list[str]:
    """The ids the page's visible text shows: an id of two words or more (`food_face_down`)
    anywhere; in a language other than English, whose words are not the ids', any id as a word."""
    import re

    found = [ident for ident in ids if "_" in ident and ident in text]
    if lang != "en":
        found += [ident for ident in ids if "_" not in ident and re.search(rf"\b{re.escape(ident)}\b", text)]
    return found


@pytest.mark.parametrize(
    ("game", "langs"),
    [
        pytest.param("base", {"yellow": "en", "red": "es"}, marks=pytest.mark.long),
        ("zombicide", {"green": "en", "purple": "es"}),
    ],
)
def test_every_label_is_in_the_pack_s_words(
    browser: Any, server: Server, artefacts: Path, game: str, langs: dict[str, str]
) -> None:
    """Two humans in two languages play a whole game of each shipped game: at every decision, no
    page shows the id of a component of the pack (one the pack has no text for is left out)."""
    from coh_core.packs import load_game

    ids = component_ids(load_game(game, ()))
    room = server.room(game=game, humans=list(langs), players=4, seed=4)
    pages = {}
    for seat, lang in langs.items():
        pages[seat] = browser.new_context(viewport=DESKTOP).new_page()
        pages[seat].goto(f"{room['seats'][seat]}?lang={lang}")
    checked = 0
    for _ in range(1000):
        played = server.game(room["room"])
        for seat, page in pages.items():
            page.wait_for_function(
                f"document.body.dataset.decision === '{decision_number(played)}'", timeout=20_000
            )
            text = page.locator("body").inner_text()
            assert shown_ids(text, ids, langs[seat]) == [], (seat, langs[seat])
            assert not re.search(r"\{[a-z_]+\}", text), (seat, langs[seat])  # no placeholder unfilled
            checked += 1
        if played.over:
            break
        answer_first(pages[next(seat for seat in played.waiting if seat in pages)])
    assert played.over and checked > 20
    for seat, page in pages.items():
        assert page.locator("#result div").count() > 0  # the scoreboard, or the team's outcome
        page.screenshot(path=str(artefacts / f"over-{game}-{langs[seat]}.png"), full_page=True)

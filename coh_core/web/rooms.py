"""Rooms of the web table: a game, its seats (a secret link each for the humans, bots for the
others), and what each browser is sent: made from its seat's view alone.

A room's game is answered through the terminal's menus (`coh_core.agents.menu`: the same keys),
a path of keys from the top menu to an answer (`"m lo"`), or an id of the game's action space.
Every refusal is a `RoomError` with a stable code (`WEB-*`) and changes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any

from coh_core.agents import Action, Agent, make_bot
from coh_core.agents.menu import Entry, Keys, build_menu, find
from coh_core.agents.runner import ask
from coh_core.agents.terminal import TerminalAgent, made_public
from coh_core.engine import Game, new_game, rules_for
from coh_core.engine.views import PlayerView
from coh_core.i18n import SOURCE_LOCALE, fallback_chain, normalize_locale
from coh_core.narrative import Narrator, scoreboard
from coh_core.packs import load_game
from coh_core.packs.model import Pack
from coh_core.packs.overlays import shipped_packs
from coh_core.resources import content_root
from coh_core.web.board import board

WEB_BOTS = ("random", "heuristic", "expert")  # the bots a room may seat
SLOW_BOTS = frozenset({"expert"})  # bots that think for seconds: the table says whom it waits for
Budget = tuple[int | None, float | None]  # the expert's: iterations and seconds per decision
MAX_SEED = 2**31 - 1
_OVERLAY_NAME = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


class RoomError(Exception):
    """A request the table refuses, with its stable code; nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "message": self.message}


@dataclass
class Setup:
    """What a room was made with: kept with it, to make it again after a restart."""

    game: str = "base"
    rules: list[str] = field(default_factory=list)
    players: int = 4
    humans: list[str] = field(default_factory=list)  # the colours humans play (by secret link)
    lang: str = SOURCE_LOCALE
    seed: int = 1
    bots: str = "heuristic"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Setup:
        return cls(**{name: doc[name] for name in cls.__dataclass_fields__ if name in doc})


def checked_setup(doc: Mapping[str, Any]) -> Setup:
    """A room's setup from a request (a form or JSON): only games and overlays coh ships (never
    a folder of the server's), seats the game has, a language it speaks; else WEB-SETUP."""
    games = shipped_packs(content_root(), "base")
    game = str(doc.get("game") or "base")
    if game not in games:
        raise RoomError("WEB-SETUP", f"no game `{game}`: the games are {', '.join(games)}")
    rules = doc.get("rules") or []
    rules = [r for r in (rules.split(",") if isinstance(rules, str) else rules) if str(r).strip()]
    overlays = shipped_packs(content_root(), "overlay")
    for rule in rules:
        if not isinstance(rule, str) or rule.strip() not in overlays:
            raise RoomError("WEB-SETUP", f"no overlay `{rule}`: the overlays are {', '.join(overlays)}")
    pack = _pack(game, tuple(r.strip() for r in rules))
    players = _number(doc.get("players", 4), "players")
    if not 1 <= players <= len(pack.colours()):
        raise RoomError("WEB-SETUP", f"{players} players: this game seats 1 to {len(pack.colours())}")
    seats = pack.colours()[:players]
    humans = doc.get("humans")
    humans = [seats[0]] if humans is None else humans
    humans = humans.split(",") if isinstance(humans, str) else humans
    if not isinstance(humans, list) or not all(isinstance(h, str) and h.strip() in seats for h in humans):
        raise RoomError("WEB-SETUP", f"humans must be seats of the game: {', '.join(seats)}")
    bots = str(doc.get("bots") or "heuristic")
    if bots not in WEB_BOTS:
        raise RoomError("WEB-SETUP", f"bots must be one of {', '.join(WEB_BOTS)}")
    given_seed = doc.get("seed")
    seed = secrets.randbelow(MAX_SEED) if given_seed in (None, "") else _number(given_seed, "seed")
    if not 0 <= seed <= MAX_SEED:
        raise RoomError("WEB-SETUP", f"seed must be from 0 to {MAX_SEED}")
    lang = language(pack, doc.get("lang"), SOURCE_LOCALE)
    chosen = list(dict.fromkeys(h.strip() for h in humans))
    return Setup(game, [r.strip() for r in rules], players, chosen, lang, seed, bots)


def _number(value: Any, name: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise RoomError("WEB-SETUP", f"{name} must be a whole number") from None


def language(pack: Pack, asked: Any, default: str) -> str:
    """The language asked for when the pack speaks it (or a language it falls back from), else
    `default`."""
    locale = normalize_locale(str(asked)) if isinstance(asked, str) and len(asked) <= 20 else None
    if locale is None:
        return default
    if locale.split("-")[0] == SOURCE_LOCALE or any(
        step in pack.locales() for step in fallback_chain(locale)[:-1]
    ):
        return locale
    return default


def _pack(game: str, rules: tuple[str, ...]) -> Pack:
    from coh_core.errors import ContentError

    try:
        return load_game(game, rules)
    except ContentError as exc:
        raise RoomError("WEB-SETUP", f"the rules do not load: {exc.problems[0].message}") from None


@cache
def speaker(game: str, rules: tuple[str, ...], locale: str) -> Speaker:
    """The words of a game in one language, made once per process."""
    return Speaker(Narrator(load_game(game, rules), locale))


class Speaker:
    """A narrator with the terminal's keys and its way of naming things (one per language)."""

    def __init__(self, narrator: Narrator) -> None:
        self.narrator = narrator
        self.keys = Keys(narrator)
        self.terminal = TerminalAgent(narrator)  # only its words: questions and what cards say
        self.pages: dict[str, str] = {}

    def page(self, entity: str) -> str:
        if entity not in self.pages:
            self.pages[entity] = self.terminal.page(entity)
        return self.pages[entity]


class Room:
    """A game and its seats; the bots answer when it is their turn (`bot_waited_for`, `think`)."""

    def __init__(
        self,
        ident: str,
        setup: Setup,
        game: Game,
        tokens: dict[str, str | None],
        touched: float = 0.0,
        budget: Budget = (None, None),
    ) -> None:
        self.ident = ident
        self.setup = setup
        self.game = game
        self.tokens = tokens  # secret token -> the seat it plays (None: a spectator)
        self.touched = touched  # when a decision was last taken (seconds, the table's clock)
        self.bots: dict[str, Agent] = {
            colour: make_bot(setup.bots, setup.seed * 7919 + index, self.pack, *budget)
            for index, colour in enumerate(game.players)
            if colour not in setup.humans
        }
        self.scores: dict[str, list[str]] = {}  # the scoreboard per language, once over

    @property
    def pack(self) -> Pack:
        return load_game(self.setup.game, tuple(self.setup.rules))

    @property
    def slow(self) -> bool:
        """Whether its bots think long enough for the table to say whom it waits for."""
        return self.setup.bots in SLOW_BOTS and bool(self.bots)

    @classmethod
    def create(cls, ident: str, setup: Setup, now: float = 0.0, budget: Budget = (None, None)) -> Room:
        game = new_game(load_game(setup.game, tuple(setup.rules)), players=setup.players, seed=setup.seed)
        tokens: dict[str, str | None] = {secrets.token_urlsafe(24): colour for colour in setup.humans}
        tokens[secrets.token_urlsafe(24)] = None
        return cls(ident, setup, game, tokens, now, budget)

    @classmethod
    def restore(
        cls,
        ident: str,
        setup: Setup,
        doc: dict[str, Any],
        tokens: dict[str, str | None],
        touched: float = 0.0,
        budget: Budget = (None, None),
    ) -> Room:
        # (the document is the store's fresh reading, handed over: not copied again)
        game = Game.from_json(rules_for(load_game(setup.game, tuple(setup.rules))), doc, copy=False)
        return cls(ident, setup, game, tokens, touched, budget)

    def scoreboard(self, speaker: Speaker) -> list[str]:
        """The scoreboard `coh play` prints at the end (the parts of each score included), made
        once per language."""
        locale = speaker.narrator.locale
        if locale not in self.scores:
            self.scores[locale] = scoreboard(self.game, speaker.narrator)
        return self.scores[locale]

    def bot_waited_for(self) -> str | None:
        """The first bot the game waits for now, if any (none once it is over)."""
        if self.game.over:
            return None
        return next((colour for colour in self.game.waiting if colour in self.bots), None)

    def think(self, colour: str) -> Action:
        """That bot's answer now, submitted (a bot's search runs off the event loop: see `Table`)."""
        action = ask(self.game, self.bots[colour], colour)
        self.game.submit(colour, action)
        return action

    @property
    def decision_number(self) -> int:
        return decision_number(self.game)

    def answer(self, colour: str | None, message: Mapping[str, Any], speaker: Speaker) -> Action:
        """Submit a seat's answer from a browser's message; RoomError (the game unchanged) when
        it is not one: a spectator's, a stale decision's, a key or id not offered."""
        if colour is None:
            raise RoomError("WEB-SPECTATOR", "a spectator does not answer")
        if self.game.over:
            raise RoomError("WEB-OVER", "the game is over")
        decision = message.get("decision")
        if type(decision) is not int or decision != self.decision_number:
            raise RoomError(
                "WEB-STALE", f"decision {decision!r} is not the one asked now ({self.decision_number})"
            )
        legal = self.game.legal(colour)
        if not legal:
            raise RoomError("WEB-NOT-ASKED", "nothing is asked of this seat now")
        action = self._chosen(message, legal, speaker)
        self.game.submit(colour, action)
        return action

    def _chosen(self, message: Mapping[str, Any], legal: list[Action], speaker: Speaker) -> Action:
        if "action" in message:
            ident = message["action"]
            space = self.game.space
            if type(ident) is not int or not 0 <= ident < len(space):
                raise RoomError("WEB-ACTION", f"{ident!r} is no answer's id")
            wanted = tuple(space.action(ident))
            for action in legal:
                if tuple(action) == wanted:
                    return action
            raise RoomError("WEB-ACTION", f"answer {ident} is not offered now")
        keys = message.get("key")
        path = keys.split() if isinstance(keys, str) else keys
        if not isinstance(path, list) or not path or not all(isinstance(k, str) for k in path):
            raise RoomError("WEB-MALFORMED", "an answer gives `key` (keys from the top menu) or `action`")
        entries = build_menu(legal, speaker.narrator, speaker.keys)
        for index, typed in enumerate(path):
            found = find(entries, typed)
            if found is None:
                raise RoomError("WEB-KEY", f"no key `{typed[:20]}` in this menu")
            if found.action is not None:
                if index != len(path) - 1:
                    raise RoomError("WEB-KEY", f"`{typed}` is an answer: nothing follows it")
                return found.action
            entries = found.children
        raise RoomError("WEB-KEY", "these keys open a sub-menu: give the key of an answer in it")


def decision_number(game: Game) -> int:
    """The number of the decision asked now: the answers given before it opened (a question
    asked of several seats at once keeps its number while they answer, one by one)."""
    decision = game.decision
    return len(game.history) - (len(decision.answers) if decision is not None else 0)


def seat_message(
    room: Room, colour: str | None, speaker: Speaker, known: Sequence[str] = ()
) -> tuple[dict[str, Any], list[str]]:
    """What one browser is sent: its seat's view (a spectator's: the public view) and what is made
    from it alone, in its language; who is being waited for; its menu when it is asked; the
    entries of the story it lacks (it has `known`). Also the whole story, which it has once sent."""
    game = room.game
    view = game.public_view() if colour is None else game.view(colour)
    legal = game.legal(colour) if colour is not None else []
    story = speaker.narrator.story(view.log(), view.places())
    message = state_of(view, legal, speaker, room.decision_number, list(game.waiting), game.over)
    message["story"] = story_entries(story, known)
    message["scores"] = room.scoreboard(speaker) if game.over else []
    return message, story


def story_of(room: Room, colour: str | None, speaker: Speaker) -> list[str]:
    """The story as the seat sees it (a spectator: as everyone does), one line an entry."""
    view = room.game.public_view() if colour is None else room.game.view(colour)
    return speaker.narrator.story(view.log(), view.places())


def story_entries(story: Sequence[str], known: Sequence[str]) -> list[list[Any]]:
    """The story's entries a browser lacks, each as [its sequence number, its line] (the first
    line is 1): from the first line that is not the one it has; a browser that is sent entry N
    keeps its first N - 1 lines and drops the rest."""
    same = 0
    for had, line in zip(known, story, strict=False):
        if had != line:
            break
        same += 1
    return [[number, line] for number, line in enumerate(story[same:], same + 1)]


def state_of(
    view: PlayerView,
    legal: Sequence[Action],
    speaker: Speaker,
    decision: int,
    waiting: Sequence[str],
    over: bool,
) -> dict[str, Any]:
    """A browser's state from a seat's view and its legal answers (and the seats the table waits
    for, which everyone at a table sees), without the story and the scoreboard (`seat_message`)."""
    narrator = speaker.narrator
    state = view.to_json()
    asked = state["decision"] is not None and bool(legal)
    # the terminal's labels (an answer to a full place says where the piece goes instead)
    menu = speaker.terminal.warn_full(build_menu(legal, narrator, speaker.keys), state) if asked else []
    return {
        "type": "state",
        "me": view.colour,
        "lang": narrator.locale,
        "decision": decision,
        "view": state,
        "names": _names(state, narrator),
        "texts": _texts(state, speaker),
        # the labels of the pack's components, in its words; those it has no text for left out
        "board": board(state, narrator),
        # the terminal's table: the pack's own words for what a seat sees (`TerminalAgent.table`)
        "table": speaker.terminal.table(state, made_public(view.log())) if view.colour is not None else [],
        "question": speaker.terminal.question(state["decision"]) if asked else None,
        "menu": [_entry(entry, view, speaker) for entry in menu],
        "waiting": [{"seat": c, "name": narrator.player(c)} for c in waiting],
        "over": over,
        "header": narrator.ui("ui.table.header", turn=state["turn"], phase=state["phase"]),
        "waiting_text": _word(narrator, "waiting", players=list(waiting)) if waiting else "",
        "langs": narrator.pack.locales(),
        "words": {name: _word(narrator, name) for name in ("spectator", "back", "over")},
    }


def _entry(entry: Entry, view: PlayerView, speaker: Speaker) -> dict[str, Any]:
    shown: dict[str, Any] = {"key": entry.key, "label": entry.label}
    if entry.action is not None:
        shown["action"] = list(entry.action)
    else:
        shown["children"] = [_entry(child, view, speaker) for child in entry.children]
    return shown


def _names(state: Mapping[str, Any], narrator: Narrator) -> dict[str, str]:
    """The names, in the seat's language, of every id its view holds."""
    found: dict[str, str] = {}

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if value not in found and len(value) < 200:
                found[value] = str(narrator.entity(value))
        elif isinstance(value, Mapping):
            for key, item in value.items():
                walk(str(key))
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(state)
    for location, place in state["locations"].items():
        if place.get("side") is not None:
            side = f"{location}/{place['side']}"
            found[side] = str(narrator.entity(side))
    for colour in state["players"]:
        found[colour] = str(narrator.player(colour))
    return {ident: name for ident, name in found.items() if name != ident}


def _texts(state: Mapping[str, Any], speaker: Speaker) -> dict[str, str]:
    """What the pack says of each entry of the piles the seat sees the entries of."""
    found: dict[str, str] = {}
    for owners in state["piles"].values():
        for entries in owners.values():
            for entry in entries:
                if isinstance(entry, str) and entry not in found:
                    found[entry] = speaker.page(entry)
    return found


def _word(narrator: Narrator, name: str, **params: Any) -> str:
    """One of the page's own words: `ui.web.<name>` (the engine's texts, which a pack may reword)."""
    return narrator.ui(f"ui.web.{name}", **params)


def new_room_id() -> str:
    return secrets.token_urlsafe(9)

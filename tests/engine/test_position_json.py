"""A saved position is plain JSON data that shares nothing with its game: `to_json` gives what
`json.loads` would give back (lists, not tuples; keys that are strings; no value in two places),
holding exactly the game's log, places and answers at every decision of a game, and written by
`to_json_text` as `json.dumps` writes it (and the digest made as it is defined); changing the
document changes nothing in the game, and the game playing on changes nothing in the document;
a game loaded with `from_json` keeps nothing of the document it was given either."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest
from long_runs import spread

from coh_core.agents import make_bot
from coh_core.agents.runner import ask
from coh_core.engine import new_game, rules_for
from coh_core.engine.game import SAVE_BLOCK, Game
from coh_core.packs import load_game

# (pack, players, seed, bots): bots that read their views and bots that do not, in both games
GAMES = [
    ("base", 4, 1, "random"),
    ("base", 3, 2, "heuristic"),
    ("zombicide", 2, 1, "random"),
    ("base", 6, 3, "random"),
    ("zombicide", 3, 2, "heuristic"),
]
BEFORE = 30  # decisions played before a save, in the tests of what it shares
ONWARD = 70  # decisions played after it: more than a block of what saves keep dumped


def _game(pack: str, players: int, seed: int, bots: str) -> tuple[Game, dict[str, Any]]:
    game = new_game(load_game(pack), players=players, seed=seed)
    agents = {c: make_bot(bots, seed * 10 + i, load_game(pack)) for i, c in enumerate(game.players)}
    return game, agents


def _play(game: Game, agents: dict[str, Any], decisions: int) -> None:
    played = 0
    while game.decision is not None and played < decisions:
        for colour in game.decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
            played += 1


def _json_exactly(value: Any, path: str, seen: set[int]) -> None:
    """JSON as `json.loads` makes it: dicts with str keys, lists, scalars; no container twice."""
    kind = type(value)
    if kind is dict or kind is list:
        assert id(value) not in seen, f"{path}: a value held in two places of the document"
        seen.add(id(value))
        items = value.items() if kind is dict else enumerate(value)
        for key, item in items:
            assert kind is list or type(key) is str, f"{path}: a key that is no string: {key!r}"
            _json_exactly(item, f"{path}/{key}", seen)
    else:
        assert kind in (str, int, float, bool, type(None)), f"{path}: a {kind.__name__}, not JSON"


def _containers(value: Any, found: set[int]) -> set[int]:
    if type(value) is dict or type(value) is list:
        found.add(id(value))
        for item in value.values() if type(value) is dict else value:
            _containers(item, found)
    return found


def _deface(value: Any) -> None:
    """Change every list and mapping of a document in place."""
    if type(value) is dict:
        for item in list(value.values()):
            _deface(item)
        value["defaced"] = True
    elif type(value) is list:
        for item in value:
            _deface(item)
        value.append("defaced")


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _digest(game: Game) -> str:
    """`Game.digest` as it is defined: the hash of the state and log, keys sorted."""
    blob = json.dumps([game.state, game.log], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@pytest.mark.parametrize(("pack", "players", "seed", "bots"), spread(GAMES, every=2))
def test_a_save_at_every_decision_is_json_holding_the_games_log_places_and_answers(
    pack: str, players: int, seed: int, bots: str
) -> None:
    game, agents = _game(pack, players, seed, bots)
    saves = 0
    while True:
        doc = game.to_json()
        _json_exactly(doc, "", set())
        assert doc["log"] == game.log and doc["places"] == game.places and doc["history"] == game.history
        assert doc == json.loads(json.dumps(doc))
        assert game.to_json_text() == json.dumps(doc, separators=(",", ":"))  # as a table writes it
        assert game.digest() == _digest(game)
        saves += 1
        if game.decision is None:
            break
        _play(game, agents, 1)
    assert len(game.log) > 2 * SAVE_BLOCK and saves == len(game.history) + 1


@pytest.mark.parametrize(("pack", "players", "seed", "bots"), spread(GAMES, every=2))
def test_a_save_and_its_game_share_nothing(pack: str, players: int, seed: int, bots: str) -> None:
    game, agents = _game(pack, players, seed, bots)
    _play(game, agents, BEFORE)
    first = game.to_json()
    again = game.to_json()
    assert first == again and not _containers(first, set()) & _containers(again, set())
    saved, digest = _text(first), game.digest()
    _deface(first)
    assert _text(game.to_json()) == saved and game.digest() == digest  # the game kept its own
    defaced = _text(first)
    _play(game, agents, ONWARD)
    assert _text(first) == defaced  # the game playing on wrote nothing into the document


@pytest.mark.parametrize(("pack", "players", "seed", "bots"), spread(GAMES, every=2))
def test_a_loaded_game_keeps_nothing_of_its_document(pack: str, players: int, seed: int, bots: str) -> None:
    game, agents = _game(pack, players, seed, bots)
    _play(game, agents, BEFORE)
    doc = game.to_json()
    saved = _text(doc)
    loaded = Game.from_json(rules_for(load_game(pack)), doc)
    _deface(doc)
    assert _text(loaded.to_json()) == saved
    assert json.loads(loaded.to_json_text()) == json.loads(saved)
    defaced = _text(doc)
    _play(loaded, agents, ONWARD)
    assert _text(doc) == defaced  # the loaded game playing on wrote nothing into the document
    assert loaded.to_json_text() == json.dumps(loaded.to_json(), separators=(",", ":"))


@pytest.mark.parametrize(("pack", "players", "seed", "bots"), spread(GAMES, every=2))
def test_a_document_handed_over_plays_on_as_a_copied_one(
    pack: str, players: int, seed: int, bots: str
) -> None:
    """`from_json(copy=False)`: the game takes the document's lists and mappings as its own (none
    copied again), and plays on exactly as a game loaded from a copy does."""
    game, agents = _game(pack, players, seed, bots)
    _play(game, agents, BEFORE)
    rules = rules_for(load_game(pack))
    doc = game.to_json()
    copied = Game.from_json(rules, json.loads(json.dumps(doc)))
    handed = Game.from_json(rules, doc, copy=False)
    assert handed.state is doc["state"] and handed.log is doc["log"]  # taken, not copied
    twins = copy.deepcopy(agents)  # (bots in the same state for both)
    _play(copied, agents, ONWARD)
    _play(handed, twins, ONWARD)
    assert handed.to_json() == copied.to_json() and handed.digest() == copied.digest()

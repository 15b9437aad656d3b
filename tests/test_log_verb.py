"""`log(message, name=value, ..., to=players)`: pack code writes log entries of the messages
its pack (or an overlay) declares; they are narrated like the engine's, and `to` keeps an
entry to the players it names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.engine import Game, new_game
from coh_core.narrative import Narrator
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack

# Two messages of the pack's own: one public, told with plural forms, and one private.
MESSAGES = """\
  log:
    streets_counted:
      note: At setup, how many locations the city has.
      params:
        count: the number of locations
    onlookers:
      note: Shown to the players at a location as it is resolved.
      params:
        location: the location
        count: how many characters stand there
"""
TEXTS = """\
  log.streets_counted:
    one: "{count} location stands."
    other: "{count} locations stand."
  log.onlookers: "You watch {location} with {count} others."
"""
# The first setup step counts the locations; each location's first step tells those there.
STEPS = [
    ("      do: build_city()\n", "      do: build_city(); log(streets_counted, count=count(locations()))\n"),
    (
        "            activate_location(here)\n",
        "            activate_location(here); log(onlookers, location=here, count=characters(here),"
        " to=players_at(here))\n",
    ),
]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _play(pack: Pack, seed: int = 3) -> Game:
    """A whole seeded game of random players."""
    game = new_game(pack, players=4, seed=seed)
    agents = {colour: RandomAgent(seed=seed * 10 + i) for i, colour in enumerate(game.players)}
    while not game.over:
        decision = game.decision
        for colour in decision.waiting:
            game.submit(colour, agents[colour].act(None, decision.legal(colour)))
    return game


def _entries(log: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    return [entry for entry in log if entry["key"] == key]


@pytest.fixture()
def logging_pack(base_copy: Path) -> Pack:
    """The base pack whose turn structure writes two log entries of its own."""
    _edit(base_copy / "messages.yaml", "  log:\n", MESSAGES)
    _edit(base_copy / "text" / "en.yaml", "  log.turn_start:", TEXTS + "  log.turn_start:")
    for old, new in STEPS:
        _edit(base_copy / "turn.yaml", old, new)
    return load_pack_checked(base_copy)  # translations lacking the new texts do not stop a game


def test_pack_code_writes_an_entry_with_its_placeholders(logging_pack: Pack) -> None:
    entries = _entries(_play(logging_pack).log, "streets_counted")
    assert entries == [{"key": "streets_counted", "turn": 0, "params": {"count": 6}}]
    assert Narrator(logging_pack).line(entries[0]) == "6 locations stand."


def test_to_keeps_an_entry_to_the_players_it_names(logging_pack: Pack) -> None:
    game = _play(logging_pack)
    private = _entries(game.log, "onlookers")
    assert private and all(isinstance(entry["to"], list) for entry in private)
    for colour in game.players:
        seen = _entries(game.view(colour).log(), "onlookers")
        assert seen == [entry for entry in private if colour in entry["to"]]
        assert seen  # each player watched somewhere at least once
    line = Narrator(logging_pack).line(private[0])
    assert line.startswith("You watch ") and "{" not in line


def test_the_same_seed_writes_the_same_entries(logging_pack: Pack) -> None:
    assert _play(logging_pack, seed=5).log == _play(logging_pack, seed=5).log


OVERLAY = {
    "pack.yaml": "id: town-crier\nversion: '1.0.0'\nformat: 2\nkind: overlay\nsummary: A crier.\n"
    "requires: [base]\n"
    "files: [patches.yaml]\n",
    "patches.yaml": """\
patches:
  - merge: messages/log
    with:
      crier_calls:
        note: The crier announces each turn.
        params: {turn: the turn's number}
  - insert: turn/triggers
    item:
      id: crier
      event: turn_start
      do: log(crier_calls, turn=turn)
""",
    "text/en.yaml": """\
locale: en
messages:
  pack.town-crier.name: Town crier
  log.crier_calls: "Hear ye: turn {turn}!"
""",
}


def test_an_overlay_declares_a_message_and_writes_it(tmp_path: Path) -> None:
    overlay = tmp_path / "town-crier"
    for relative, text in OVERLAY.items():
        (overlay / relative).parent.mkdir(parents=True, exist_ok=True)
        (overlay / relative).write_text(text, encoding="utf-8")
    pack = load_pack_checked(rules=[str(overlay)])
    calls = _entries(_play(pack).log, "crier_calls")
    assert [e["params"] for e in calls] == [{"turn": n} for n in range(1, 5)]
    assert Narrator(pack).line(calls[0]) == "Hear ye: turn 1!"

"""The journal of a game (`coh_core.engine.journal`): every section of the state the engine changes
has its count moved, so that whoever trusts an unmoved count (the observations' `Memo`) reads
what the section holds.

Checked decision by decision through random games of every shipped game and every overlay of the
base game: a section whose value differs after an answer from what it was before has its count
moved, and a new question moves the count of questions.
"""

from __future__ import annotations

import marshal
from typing import Any

import pytest

from coh_core.engine import Game, new_game
from coh_core.engine.journal import SECTIONS, Journal
from coh_core.engine.rng import Rng
from coh_core.packs import load_game

# The state's keys the journal does not count: single values compared as they are (the step and
# where it runs), what never changes in play, and the generator's state (written back only when
# the state is saved).
UNCOUNTED = {
    "version",
    "pack",
    "seed",
    "rng",
    "players",
    "cycles",
    "step",
    "at",
    "order",
    "ending",
}

TABLES = [
    ("base", (), 4),
    ("base", (), 6),
    ("zombicide", (), 3),
    ("zombicide", ("zombicide-hard",), 2),
    *[
        ("base", (overlay,), 4)
        for overlay in (
            "auction-sharing",
            "curfew",
            "expert-draft",
            "hunger",
            "placement-clockwise",
            "promo-lawn-mower",
            "rescue-helicopter",
            "zombie-dogs",
            "zombie-horde",
        )
    ],
]


def _sections(game: Game) -> dict[str, Any]:
    """A copy of the sections the journal counts (the state is plain data: marshal copies it)."""
    state = game.state
    return marshal.loads(marshal.dumps({s: state.get(s) for s in SECTIONS if s != "decisions"}))


def _counts(journal: Journal) -> dict[str, Any]:
    """The journal's counts: per section, and per pile and entry of the memory."""
    counts: dict[str, Any] = {section: getattr(journal, section) for section in SECTIONS}
    counts["piles by name"] = dict(journal.piles_changed)
    counts["memory by name"] = dict(journal.memory_changed)
    return counts


def _play(game: str, overlays: tuple[str, ...], players: int, seed: int) -> set[str]:
    """Play a random game, checking the journal at each answer; the sections seen changing."""
    played = new_game(load_game(game, overlays), players=players, seed=seed)
    assert set(played.state) - set(SECTIONS) <= UNCOUNTED
    rng = Rng(seed)
    changed: set[str] = set()
    while not played.over:
        for colour in played.waiting:
            before, counts, decision = _sections(played), _counts(played.journal), played.decision
            legal = played.legal(colour)
            played.submit(colour, legal[rng.randbelow(len(legal))])
            after, moved = _sections(played), _counts(played.journal)
            for section, value in after.items():
                if value != before[section]:
                    changed.add(section)
                    assert moved[section] > counts[section], (section, played.state["turn"])
            for section in ("piles", "memory"):  # (entry by entry)
                was, now = counts[f"{section} by name"], moved[f"{section} by name"]
                for name, value in after[section].items():
                    if value != before[section][name]:
                        assert now.get(name, 0) > was.get(name, 0), (name, played.state["turn"])
            if played.decision is not decision:
                changed.add("decisions")
                assert moved["decisions"] > counts["decisions"]
            assert all(moved[s] >= counts[s] for s in SECTIONS)  # (counts only ever grow)
    return changed


@pytest.mark.parametrize(("game", "overlays", "players"), TABLES)
def test_every_section_changed_by_an_answer_has_its_count_moved(
    game: str, overlays: tuple[str, ...], players: int
) -> None:
    changed = _play(game, overlays, players, seed=2)
    assert {"pieces", "memory", "decisions"} <= changed  # (the check saw changes to check)


def test_the_games_checked_change_every_section() -> None:
    """A game of each shipped game changes, between them, every section the journal counts (the
    edges: a door opened in the zombicide mission)."""
    changed = _play("base", (), 4, seed=1) | _play("zombicide", (), 3, seed=1)
    assert changed == set(SECTIONS)


def test_a_game_made_again_starts_a_journal_of_its_own() -> None:
    game = new_game(load_game("base", ()), players=4, seed=1)
    copies = [game.fork(), Game.from_json(game.rules, game.to_json())]
    assert all(c.journal is not game.journal for c in copies)
    counts = _counts(game.journal)
    game.journal.touch_all(piles=game.state["piles"], memory=game.state["memory"])
    assert all(getattr(game.journal, s) == counts[s] + 1 for s in SECTIONS)
    assert set(game.journal.piles_changed.values()) == {game.journal.piles}
    assert set(game.journal.memory_changed.values()) == {game.journal.memory}

"""The engine knows no name of the game (issue 11, "the rules are data").

The base pack is copied with every id it defines renamed (`tests/renaming.py`: characters, action
cards, locations and their sides, invasion cards, colours, the turn's phases and steps, the
result's tie-break), and the copy must validate clean and play exactly the games of the original:
with the same seeds and agents that choose by position among the legal answers, every game ends
with the same scores, tie-break values (living characters) and winners per seat after the same
number of decisions, and its whole state, log and sequence of decisions are those of the original
with the names translated back.

The new names keep the order of the old ones (see `tests/renaming.py`): the engine sorts ids where
the pack gives no order (dealing characters, building the deck, the cards in a hand, the options of
a choice), so a renaming that reordered them would change every game for that reason alone.

The kinds of counters (zombies, antidotes, explosion markers, bonus points), the places they sit
at (the reserve, the box), the piles (the decks, the hands, the food tokens...), the pointers (the
first player, the leader) and what the game remembers (the movement cards chosen, extra votes...)
are renamed too (see `renaming._component_kinds`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from long_runs import spread
from renaming import Renaming, rename_pack, surviving_names

from coh_core import load_ruleset, validate_paths
from coh_core.agents import Agent, RandomAgent
from coh_core.agents.heuristic import HeuristicAgent
from coh_core.agents.runner import ask
from coh_core.engine import new_game
from coh_core.packs.model import Pack
from coh_core.resources import content_root

# Ids of the turn structure that are also words of the pack format, the effect language or the
# messages, so that looking for the word cannot tell whether the id was renamed. They are renamed
# all the same; steps and phases are referred to only by text keys (`step.<phase>.<step>.name`),
# which the validator checks against the turn structure (TEXT-MISSING, TEXT-UNKNOWN).
SHARED_WORDS = {
    "action_cards": "a key of the components and of the setup table",
    "activation": "a field of a location side",
    "antidotes": "a key of airdrops, a selector of the pack",
    "bonus_points": "a selector of the pack, named after the counter",
    "cards_at": "a selector of the pack, named after the pile",
    "characters": "a section, a key of the components and of the setup table, a selector",
    "choose": "a selector of the effect language",
    "discard": "a decision and an answer",
    "food": "a selector of the pack, named after the pile, and an answer",
    "first_player": "a log message, a selector of the pack, named after the pointer",
    "last_loser": "a selector of the pack, named after the memory",
    "leader": "a selector of the pack, named after the pointer; a message placeholder",
    "markers": "a selector of the pack, named after the counter",
    "invasion": "a type of the effect language (`list[invasion]`), a message placeholder",
    "invasion_deck": "a selector of the pack, named after the pile",
    "move": "a decision and an answer",
    "movement": "a memory of the pack, and a word of a file's name (`procedures-movement.yaml`)",
    "scoring": "a window, a decision",
    "sharing": "a purpose of votes in the messages (`vote.sharing`)",
    "zombie_attack": "a procedure",
    "zombies": "a key of invasion cards, a selector of the pack",
}

# 4-player games as issue 11 asks, and some of every other table size.
GAMES = [(4, seed) for seed in range(100)] + [(n, seed) for n in (3, 5, 6) for seed in range(5)]
SOAK_GAMES = [(n, seed) for n in (3, 4, 5, 6) for seed in range(100, 600)]
SHARES = 5  # GAMES in as many shares: the default run plays one, `-m long` the others


@pytest.fixture(scope="module")
def renamed(tmp_path_factory: pytest.TempPathFactory) -> Renaming:
    return rename_pack(content_root() / "base", tmp_path_factory.mktemp("renamed") / "base")


@pytest.fixture(scope="module")
def renamed_pack(renamed: Renaming) -> Pack:
    return load_ruleset(renamed.root)


# --- the renaming ------------------------------------------------------------------------------


def test_every_id_the_base_pack_defines_gets_a_new_name(renamed: Renaming, base_pack: Pack) -> None:
    kinds = renamed.kinds
    for kind in ("character", "action", "location", "invasion", "colour"):
        assert {k for k, v in kinds.items() if v == kind} == set(base_pack.entities[kind]), kind
    assert {k for k, v in kinds.items() if v == "side"} == {"A", "B", "collapsed", "burnt", "blocked"}
    assert {k for k, v in kinds.items() if v == "phase"} == {
        "movement_selection",
        "invasion",
        "character_movement",
        "location_resolution",
    }
    assert {k for k, v in kinds.items() if v == "step"} == {
        *("city", "first_player", "characters", "action_cards", "zombies"),  # setup
        *("choose", "reveal", "move", "activation", "zombie_attack", "sharing"),  # the phases
        *("antidotes", "scoring"),  # the end
    }
    assert len(set(renamed.names.values())) == len(renamed.names)  # one new name per old name


def test_the_pack_kinds_get_new_names_and_keep_their_entities(
    renamed: Renaming, renamed_pack: Pack, base_pack: Pack
) -> None:
    assert renamed.kind_names == {
        "character": "kind00_renamed",
        "action": "kind01_renamed",
        "location": "kind02_renamed",
        "invasion": "kind03_renamed",
        "colour": "kind04_renamed",
    }
    assert renamed_pack.entity_kinds() == list(renamed.kind_names.values())
    for old, new in renamed.kind_names.items():
        assert not renamed_pack.entities_of(old)
        assert sorted(e.id for e in renamed_pack.entities_of(new)) == sorted(
            renamed.names[e.id] for e in base_pack.entities_of(old)
        )


def test_coh_list_and_show_print_the_renamed_kind_as_the_original(
    renamed: Renaming, renamed_pack: Pack, base_pack: Pack
) -> None:
    """What `coh list invasions` prints comes from the kind's declaration, whatever its name."""
    from coh_core.packs.listing import list_rows, show_entity

    head, rows, _, footer = list_rows(base_pack, "invasions")
    renamed_head, renamed_rows, _, renamed_footer = list_rows(renamed_pack, "invasions")
    back = {new: old for old, new in renamed.names.items()}
    assert (renamed_head, renamed_footer) == (head, footer)
    assert [[back.get(cell, cell) for cell in row] for row in renamed_rows] == rows
    card = base_pack.entities_of("invasion")[-1]
    original, _ = show_entity(base_pack, card.id) or ("", {})
    shown, _ = show_entity(renamed_pack, renamed.names[card.id]) or ("", {})
    assert shown.splitlines()[1:] == original.splitlines()[1:]  # the header names the file and id
    assert len(original.splitlines()) > 3


def test_new_names_keep_the_order_of_the_old_ones(renamed: Renaming) -> None:
    old = sorted(renamed.names)
    assert [renamed.names[name] for name in old] == sorted(renamed.names.values())


def test_no_old_name_survives_in_the_renamed_files_outside_prose(renamed: Renaming) -> None:
    files = sorted(renamed.root.rglob("*.yaml"))
    assert {path.name for path in files} >= {"pack.yaml", "locations.yaml", "turn.yaml", "fr.yaml"}
    survivors = surviving_names(renamed.root, renamed.names, files)
    assert set(survivors) == set(SHARED_WORDS), {k: v[:3] for k, v in survivors.items()}
    assert {renamed.kinds[word] for word in SHARED_WORDS} <= {
        "phase",
        "step",
        "counter",
        "pile",
        "pointer",
        "memory",
    }


def test_effects_are_rewritten_only_where_they_name_an_id(renamed: Renaming, renamed_pack: Pack) -> None:
    new = renamed.names
    armory = renamed_pack.entity(new["armory"])
    assert armory is not None
    burning = armory.data["sides"][0]["triggers"][0]["do"]
    assert f"move_characters(characters_at(here), to=@{new['crossroads']})" in burning
    assert f"flip_board(here, {new['burnt']})" in burning
    # the selector `characters` and the verb `move_characters` are words of the language, not ids
    assert "characters_at(here)" in burning


def test_texts_follow_their_ids_in_every_language(renamed: Renaming, renamed_pack: Pack) -> None:
    new = renamed.names
    for locale in ("en", "es", "fr", "it"):
        texts = renamed_pack.messages(locale)
        kinds = renamed.kind_names
        assert f"{kinds['location']}.{new['water_tower']}.{new['collapsed']}.name" in texts
        assert f"step.{new['location_resolution']}.{new['zombie_attack']}.name" in texts
        assert f"step.setup.{new['first_player']}.name" in texts
        assert "log.first_player" in texts  # a message, not an id: unchanged
    assert (
        renamed_pack.messages("en")[f"{renamed.kind_names['character']}.{new['granny']}.name"] == "The Granny"
    )


def test_the_renamed_pack_validates_clean(renamed: Renaming) -> None:
    report = validate_paths([renamed.root])
    assert [p.render() for p in report.problems] == []


# --- the games ---------------------------------------------------------------------------------


@dataclass
class Played:
    """One game as the test compares it: per seat, and with the names of the original pack."""

    scores: list[int]
    tie_breaks: list[int]  # each tie-break's values, seat by seat
    winners: list[int]  # seats
    decisions: int
    trace: list[Any]  # (decision kind, seat, number of legal answers, the answer) for each decision
    state: dict[str, Any]
    log: list[Any]


def play(pack: Pack, players: int, seed: int, agents: str, names: Mapping[str, str]) -> Played:
    """Play a game to its end; `names` translates the pack's names back into the original's."""
    game = new_game(pack, players=players, seed=seed)
    seats = {colour: seat for seat, colour in enumerate(game.players)}
    bots = {colour: _agent(agents, seed * 1000 + seat, pack) for colour, seat in seats.items()}
    trace: list[Any] = []
    while not game.over:
        decision = game.decision
        assert decision is not None
        for colour in decision.waiting:
            legal = decision.legal(colour)
            answer = ask(game, bots[colour], colour)
            trace.append((decision.kind, seats[colour], len(legal), answer))
            game.submit(colour, answer)
    result = game.state["result"]
    return Played(
        scores=[result["scores"][colour] for colour in game.players],
        tie_breaks=[values[colour] for values in result["tie_breaks"].values() for colour in game.players],
        winners=[seats[colour] for colour in result["winners"]],
        decisions=len(trace),
        trace=_translated(trace, names),
        state=_translated(game.state, names),
        log=_translated(game.log, names),
    )


def _agent(kind: str, seed: int, pack: Pack) -> Agent:
    # RandomAgent picks by position among the legal answers; HeuristicAgent reads the pack's effects.
    return RandomAgent(seed) if kind == "random" else HeuristicAgent(seed, pack)


def _translated(value: Any, names: Mapping[str, str]) -> Any:
    if not names:
        return value
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {_translated(k, names): _translated(v, names) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_translated(v, names) for v in value)
    return value


def _same_games(
    games: list[tuple[int, int]], agents: str, base_pack: Pack, renamed: Renaming, renamed_pack: Pack
) -> Iterator[str]:
    """The games that differ, each with the first thing that differs."""
    back = {new: old for old, new in renamed.names.items()}
    for players, seed in games:
        original = play(base_pack, players, seed, agents, {})
        twin = play(renamed_pack, players, seed, agents, back)
        for field in ("scores", "tie_breaks", "winners", "decisions", "trace", "state", "log"):
            if getattr(original, field) != getattr(twin, field):
                yield f"{players} players, seed {seed}: {field} differs"
                break


@pytest.mark.parametrize("share", spread(range(SHARES), every=SHARES))
def test_the_renamed_pack_plays_the_same_games(
    base_pack: Pack, renamed: Renaming, renamed_pack: Pack, share: int
) -> None:
    games = GAMES[share::SHARES]
    assert list(_same_games(games, "random", base_pack, renamed, renamed_pack)) == []


@pytest.mark.parametrize("players", spread([3, 4, 5, 6], every=2))
def test_the_heuristic_bots_play_the_same_games_too(
    base_pack: Pack, renamed: Renaming, renamed_pack: Pack, players: int
) -> None:
    games = [(players, seed) for seed in range(3)]
    assert list(_same_games(games, "heuristic", base_pack, renamed, renamed_pack)) == []


@pytest.mark.soak
def test_the_renamed_pack_plays_the_same_games_many_more(
    base_pack: Pack, renamed: Renaming, renamed_pack: Pack
) -> None:
    assert list(_same_games(SOAK_GAMES, "random", base_pack, renamed, renamed_pack)) == []

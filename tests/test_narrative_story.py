"""The narrative of `coh play` as a new player reads it (issue 13): headings for the setup, each
turn, each phase and each location; lines that say what really happened; a scoreboard sorted as
the rules rank the players, with each score part by part.

The games are seeded games of random bots (the same seed plays the same game, and the random
bot does not change when the heuristic one is tuned); each situation is asserted in English and
in at least one other language."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import pytest
from click.testing import CliRunner
from long_runs import spread

from coh_core.agents import RandomAgent
from coh_core.cli import main
from coh_core.engine import Game, new_game
from coh_core.narrative import Narrator, breakdown, score_parts, standings
from coh_core.packs.model import Pack

LANGUAGES = ("en", "es", "it", "fr", "de")


@functools.cache
def _story(players: int, seed: int, lang: str) -> list[str]:
    """The output of `coh play --players N --seed S --bots random --lang LL`, line by line."""
    args = ["play", "--players", str(players), "--seed", str(seed), "--bots", "random", "--lang", lang]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def _after(lines: list[str], heading: str) -> list[str]:
    """The lines after the heading (up to the scoreboard's title, which ends the story)."""
    assert heading in lines, heading
    return lines[lines.index(heading) + 1 :]


@functools.cache
def _random_game(players: int, seed: int) -> Game:
    from coh_core.packs import load_pack_checked

    game = new_game(load_pack_checked(), players=players, seed=seed)
    agents = {colour: RandomAgent(seed=seed * 10 + i) for i, colour in enumerate(game.players)}
    while not game.over:
        decision = game.decision
        assert decision is not None
        for colour in decision.waiting:
            game.submit(colour, agents[colour].act(None, decision.legal(colour)))
    return game


# -- headings ----------------------------------------------------------------------------------


HEADINGS = {
    "en": ("=== Setup ===", "=== Turn {} ===", "-- Location resolution --", "=== End of the game ==="),
    "es": (
        "=== Preparación ===",
        "=== Ronda {} ===",
        "-- Resolución de escenarios --",
        "=== Final de la partida ===",
    ),
    "de": ("=== Spielaufbau ===", "=== Runde {} ===", "-- Auswertung der Orte --", "=== Spielende ==="),
}


@pytest.mark.parametrize("lang", sorted(HEADINGS))
def test_the_story_has_a_heading_for_the_setup_each_turn_each_phase_and_the_end(lang: str) -> None:
    setup, turn, resolution, end = HEADINGS[lang]
    lines = _story(4, 1, lang)
    headings = [line for line in lines if line.startswith(("===", "--"))]
    assert headings[0] == setup == lines[0]
    assert [h for h in headings if h.startswith("===")] == [
        setup,
        *(turn.format(n) for n in range(1, 5)),
        end,
    ]
    # each turn: its four phases, in the order of the pack's turn, each once
    for number in range(1, 5):
        start = headings.index(turn.format(number))
        phases = headings[start + 1 : start + 5]
        assert len(phases) == 4 and len(set(phases)) == 4 and all(p.startswith("-- ") for p in phases), phases
        assert phases[-1] == resolution


def test_each_location_of_the_resolution_has_its_heading_in_the_city_order() -> None:
    lines = _story(4, 1, "en")
    city = next(line for line in lines if line.startswith("The city: "))
    order = city.removeprefix("The city: ").rstrip(".").split(", ")
    turn = _after(lines, "=== Turn 1 ===")
    resolution = turn[turn.index("-- Location resolution --") + 1 : turn.index("=== Turn 2 ===")]
    assert [line for line in resolution if line.startswith("[")] == [f"[{name}]" for name in order]


def test_places_are_kept_beside_the_log_and_leave_the_digest_alone() -> None:
    game = _random_game(3, 4)
    assert len(game.places) == len(game.log)
    digest = game.digest()
    kept = list(game.places)
    game.places[:] = [None] * len(kept)
    assert game.digest() == digest  # the record and digest are the game's, not the narrative's
    game.places[:] = kept
    copy = Game.from_json(game.rules, game.to_json())
    assert copy.places == game.places


# -- the findings of issue 13 --------------------------------------------------------------------


def test_a_broken_tie_in_an_attack_vote_does_not_say_the_loser_wins() -> None:
    """3 players, seed 3: the first player breaks a tie at the Church; the player picked loses a
    character there (the rules: the attack vote's winner loses a character)."""
    for lang, tie, picked in (
        ("en", "Green breaks the tie at Church and picks Red.", "The Little Girl (Red) dies at Church."),
        ("es", "Verde deshace el empate en Iglesia y elige a Rojo.", None),
    ):
        lines = _story(3, 3, lang)
        ties = [line for line in lines if "breaks the tie" in line or "deshace el empate" in line]
        assert ties and not any(re.search(r"\b(wins|gana)\b", line) for line in ties), ties
        if picked is not None:
            assert lines[lines.index(tie) + 1] == picked


@pytest.mark.parametrize(
    ("lang", "dies", "no_antidote"),
    [
        ("en", "dies at", "gets no antidote and does not survive"),
        ("fr", "meurt sur le lieu", "n'a pas d'antidote et ne survit pas"),
    ],
)
def test_deaths_for_lack_of_antidotes_are_not_told_as_zombies_eating(
    lang: str, dies: str, no_antidote: str
) -> None:
    """4 players, seed 17: after turn 4 a character dies for lack of an antidote."""
    end = _after(_story(4, 17, lang), HEADINGS.get(lang, ("", "", "", "=== Fin de la partie ==="))[3])
    deaths = [line for line in end if no_antidote in line]
    assert len(deaths) == 1
    assert not [line for line in end if dies in line]


@pytest.mark.parametrize(
    ("lang", "first_player"), [("en", "is the first player"), ("de", "ist jetzt Startspieler")]
)
def test_nobody_becomes_first_player_once_the_game_is_over(lang: str, first_player: str) -> None:
    lines = _story(4, 1, lang)
    assert any(first_player in line for line in lines)  # it is told during the game
    end = _after(lines, HEADINGS[lang][3])
    assert not [line for line in end if first_player in line]


@pytest.mark.parametrize(
    ("lang", "zero", "none"),
    [
        (
            "en",
            "0 zombies arrive",
            "No zombie can arrive at Church: it is already full of zombies, or the reserve is empty.",
        ),
        (
            "de",
            "0 Zombies treffen",
            "Kein Zombie kann in der Kirche eintreffen: Dort ist schon alles voller Zombies,"
            " oder der Vorrat ist leer.",
        ),
    ],
)
def test_zombies_that_cannot_arrive_are_told_with_the_reason(lang: str, zero: str, none: str) -> None:
    """4 players, seed 1: an invasion card sends zombies to the Church, which already holds as
    many as a location may (the rules: at most 8)."""
    lines = _story(4, 1, lang)
    assert not [line for line in lines if zero in line]
    assert none in lines


def test_the_victim_question_does_not_speak_of_a_vote(base_pack: Pack) -> None:
    """At the Crossroads nobody votes: the zombie leader points at the player who loses a
    character (the rulebooks); the question is the same there as after a vote."""
    words = {"en": "vote", "es": "vota", "it": "vota", "fr": "vote", "de": "Abstimmung"}
    for lang, word in words.items():
        question = Narrator(base_pack, lang).ui("ui.decision.victim", location="crossroads")
        assert word not in question.lower() and word.lower() not in question.lower(), (lang, question)


# -- the scoreboard ------------------------------------------------------------------------------


def _rules_score(game: Game, pack: Pack, player: str) -> dict[str, int]:
    """A player's points as the rules counts them, read from the final state: each living
    character's shown value, each antidote 1, each food token its value, each Canned Food card
    played 1; nothing at all with no living character."""
    values = {c.id: c.data for c in pack.entities_of("character")}
    state = game.state
    living = [
        name
        for name, piece in state["pieces"]["characters"].items()
        if piece["owner"] == player and piece["alive"]
    ]
    if not living:
        return {"characters": 0, "antidotes": 0, "food": 0, "cards": 0}
    shown = sum(
        values[name]["exhausted" if state["pieces"]["characters"][name]["exhausted"] else "rested"]
        for name in living
    )
    counts = state["counts"][player]
    return {
        "characters": shown,
        "antidotes": counts["antidotes"],
        "food": sum(state["piles"]["food"][player]),
        "cards": counts["bonus_points"],
    }


BREAKDOWN_GAMES = [(3, 1), (4, 2), (5, 3), (6, 4), (3, 7), (6, 7)]


@pytest.mark.parametrize(("players", "seed"), spread(BREAKDOWN_GAMES, every=2))
def test_the_breakdown_counts_what_the_rules_count_and_adds_up_to_the_score(
    base_pack: Pack, players: int, seed: int
) -> None:
    game = _random_game(players, seed)
    parts = breakdown(game, base_pack)
    assert list(parts) == game.players
    for player in game.players:
        expected = _rules_score(game, base_pack, player)
        assert list(parts[player].values()) == list(expected.values()), player
        assert sum(parts[player].values()) == game.state["result"]["scores"][player]


def test_the_parts_of_the_score_are_the_packs_in_its_order(base_pack: Pack) -> None:
    assert score_parts(base_pack) == ["score_survivors", "score_antidotes", "score_food", "score_cards"]


ROW = re.compile(r"^([* ]) (\d+)\. (\w+): (\d+) points \((.*)\), survivors (\d+)$")


RANKED_GAMES = [(3, 1), (4, 1), (5, 1), (6, 1), (6, 7), (4, 8)]


@pytest.mark.parametrize(("players", "seed"), spread(RANKED_GAMES, every=2))
def test_the_scoreboard_is_sorted_as_the_rules_rank_players(players: int, seed: int) -> None:
    """Best score first; of equal scores, the most survivors first; equal in both, the same rank
    (the rules: tie, most living characters; still tied, all tied players win)."""
    lines = _story(players, seed, "en")
    board = _after(lines, "Final scores")
    rows = [ROW.match(line) for line in board[:players]]
    assert all(rows), board
    found = [(m[1] == "*", int(m[2]), int(m[4]), int(m[6])) for m in rows if m]
    keys = [(-score, -living) for _, _, score, living in found]
    assert keys == sorted(keys)
    for index, (_, rank, _, _) in enumerate(found):
        same = index > 0 and keys[index - 1] == keys[index]
        assert rank == (found[index - 1][1] if same else index + 1)
    best = keys[0]
    assert [winner for winner, *_ in found] == [key == best for key in keys]
    for match in rows:
        assert match is not None
        parts = [int(part.rsplit(" ", 1)[1]) for part in match[5].split(", ")]
        assert [p.rsplit(" ", 1)[0] for p in match[5].split(", ")] == [
            "characters",
            "antidotes",
            "food",
            "Canned Food",
        ]
        assert sum(parts) == int(match[4])


def test_a_tie_on_the_best_score_is_told_as_the_rules_break_it() -> None:
    """4 players, seed 5: Yellow and Red both score 2 with as many survivors (the base pack's
    tie-break): both win."""
    board = _after(_story(4, 5, "en"), "Final scores")
    tie = "Yellow, Red share the best score, 2, and the tie-breaks (survivors) leave them level"
    assert f"{tie}: they all win." in board
    assert board[-1] == "Winning: Yellow, Red."
    board_es = _after(_story(4, 5, "es"), "Puntuación final")
    assert any(
        "empatan con la mejor puntuación, 2, y siguen igualados tras los desempates (supervivientes)" in line
        for line in board_es
    )


def test_standings_break_ties_by_the_tie_breaks_in_order_and_share_a_rank_when_still_tied() -> None:
    result: dict[str, Any] = {
        "scores": {"red": 5, "blue": 7, "green": 5, "white": 5, "yellow": 5},
        "tie_breaks": {
            "survivors": {"red": 1, "blue": 1, "green": 2, "white": 1, "yellow": 1},
            "food": {"red": 0, "blue": 0, "green": 0, "white": 0, "yellow": 3},
        },
    }
    players = ["red", "blue", "green", "white", "yellow"]
    assert standings(result, players, ["survivors", "food"]) == [
        (1, "blue"),
        (2, "green"),
        (3, "yellow"),
        (4, "red"),
        (4, "white"),
    ]
    assert standings(result, players, ["food", "survivors"])[1:3] == [(2, "yellow"), (3, "green")]
    assert standings(result, players) == [(1, "blue"), *((2, p) for p in ["red", "green", "white", "yellow"])]


def test_the_json_result_has_the_breakdown(runner: CliRunner) -> None:
    result = runner.invoke(main, ["play", "--players", "4", "--seed", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)["result"]
    assert set(document["breakdown"]) == set(document["scores"])
    for player, parts in document["breakdown"].items():
        assert list(parts) == ["score_survivors", "score_antidotes", "score_food", "score_cards"]
        assert sum(parts.values()) == document["scores"][player]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_tells_a_whole_game_without_a_missing_text(lang: str) -> None:
    text = "\n".join(_story(4, 1, lang))
    assert not re.search(r"\[(log|ui)\.[a-z_.]+\]", text)
    assert "{" not in text


def test_news_told_from_an_entry_on_keep_the_headings_they_need(base_pack: Pack) -> None:
    """What a player sees since they last looked: the story's lines from that entry on, with the
    headings they need after what came before; told in pieces, it is the story told at once."""
    game = _random_game(4, 3)
    view_log, view_places = game.view("red").log(), game.view("red").places()
    assert len(view_log) == len(view_places)
    narrator = Narrator(base_pack)
    whole = narrator.story(view_log, view_places)
    start = next(i for i, p in enumerate(view_places) if p and p[0] == "invasion") + 1  # inside a phase
    before = narrator.story(view_log[:start], view_places[:start])
    news = narrator.story(view_log, view_places, start=start)
    assert before + news == whole
    assert before[-1] != "-- Invasion --" and "-- Invasion --" in before  # the phase began before
    assert not news[0].startswith(("--", "==="))
    assert narrator.story(view_log, view_places, start=len(view_log)) == []


def _overlays() -> list[str]:
    from coh_core.packs.overlays import shipped_overlays_of
    from coh_core.resources import content_root

    return shipped_overlays_of(content_root(), "base")


@pytest.mark.parametrize("overlay", _overlays())
def test_under_every_shipped_overlay_the_parts_add_up_to_the_score(runner: CliRunner, overlay: str) -> None:
    args = ["play", "--players", "4", "--seed", "3", "--rules", overlay, "--format", "json"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)["result"]
    for player, score in document["scores"].items():
        assert sum(document["breakdown"][player].values()) == score, (overlay, player)


@pytest.mark.parametrize(
    ("lang", "no_room", "placed", "moved"),
    [
        (
            "en",
            "Water Tower has no room for The Teen, who goes to Crossroads instead.",
            "The Teen starts at Crossroads.",
            (
                "Hospital has no room for The Teen, who goes to Crossroads instead.",
                "The Teen moves to Crossroads.",
            ),
        ),
        (
            "de",
            "Kein Platz mehr am Wasserturm: Der Teenager geht stattdessen zur Kreuzung.",
            "Der Teenager beginnt an der Kreuzung.",
            (
                "Kein Platz mehr im Krankenhaus: Der Teenager geht stattdessen zur Kreuzung.",
                "Der Teenager geht zur Kreuzung.",
            ),
        ),
    ],
)
def test_a_character_sent_to_the_overflow_location_is_told_why(
    lang: str, no_room: str, placed: str, moved: tuple[str, str]
) -> None:
    """4 players, seed 1: at setup the Teen draws the Water Tower, which is full; later the
    Teen's movement card says Hospital, which is full (the rules: a full location sends the
    character to the Crossroads)."""
    lines = _story(4, 1, lang)
    assert lines[lines.index(no_room) + 1] == placed
    assert lines[lines.index(moved[0]) + 1] == moved[1]


# -- votes ---------------------------------------------------------------------------------------

_BALLOTS = {
    "key": "votes_revealed",
    "params": {
        "location": "hospital",
        "votes": {"red": "red", "blue": "red", "green": "green"},
        "tally": {"red": 3, "green": 1},
        "weights": {"red": 2, "blue": 1, "green": 1},
    },
}


@pytest.mark.parametrize(
    ("lang", "told"),
    [
        (
            "en",
            "Vote at Hospital: Red for Red (2 votes), Blue for Red, Green for Green. Tally: Red 3, Green 1.",
        ),
        ("de", "Abstimmung im Krankenhaus: Rot für Rot (2 Stimmen), Blau für Rot, Grün für Grün."),
    ],
)
def test_a_player_who_casts_several_votes_is_told_with_their_number(
    base_pack: Pack, lang: str, told: str
) -> None:
    assert Narrator(base_pack, lang).line(_BALLOTS).startswith(told)


@pytest.mark.parametrize(("players", "seed"), spread([(4, 1), (4, 2), (5, 3), (6, 1)], every=2))
def test_the_votes_each_player_cast_add_up_to_the_tally(players: int, seed: int) -> None:
    votes = [e["params"] for e in _random_game(players, seed).log if e["key"] == "votes_revealed"]
    assert votes
    for vote in votes:
        counted = {
            c: sum(vote["weights"][p] for p, b in vote["votes"].items() if b == c) for c in vote["tally"]
        }
        assert counted == vote["tally"]

"""Bots for any pack (issue 28, step 5): what a pack tells the bots of its game (`bots:`), and
bots that play for the result it declares.

Lifeboat (tests/team_pack.py) is a game the players win or lose together, whose bots are told how
far the boat has got; pebbles (tests/games/pebbles) ranks its players by the pebbles they hold.
On each, the heuristic bot must do clearly better than random bots over a fixed set of seeds, and
the expert at least as well as the heuristic. The figures were measured first (Lifeboat, 2
players, seeds 1-60: the team landed in 18 games of random bots, 50 of heuristic bots and 54 of
experts of 64 iterations; pebbles, 3 players, seeds 1-30: the first seat won 13 games as a random
bot and 29 as a heuristic one); the assertions leave room below them.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from team_pack import write_team_pack

from coh_core.agents import make_bot
from coh_core.agents.evaluation import evaluator, position_worth
from coh_core.agents.expert import clearly_better
from coh_core.agents.heuristic import HeuristicAgent
from coh_core.agents.runner import ask, play_out
from coh_core.engine import new_game
from coh_core.engine.game import Game
from coh_core.engine.rng import Rng
from coh_core.engine.runtime import EngineError
from coh_core.engine.worlds import sample_world
from coh_core.packs import check_pack, load_pack_checked
from coh_core.packs.bot_hints import LOOKAHEAD, TACTICS, bot_hints
from coh_core.packs.model import Pack
from coh_core.packs.results import ResultSpec
from coh_core.resources import content_root

ROOT = Path(__file__).resolve().parent
PEBBLES = ROOT / "games" / "pebbles"
LIFEBOAT_SEEDS = range(1, 61)
PEBBLES_SEEDS = range(1, 31)


@pytest.fixture(scope="module")
def lifeboat(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    return load_pack_checked(write_team_pack(tmp_path_factory.mktemp("team") / "lifeboat", "team"))


def _played(pack: Pack, players: int, seed: int, kinds: list[str], iterations: int | None = None) -> Game:
    """A game played to its end by one bot of each kind, seat by seat."""
    game = new_game(pack, players, seed)
    bots = {
        colour: make_bot(kinds[index], seed * 7919 + index, pack, iterations)
        for index, colour in enumerate(game.players)
    }
    play_out(game, bots)
    return game


def _landings(pack: Pack, kind: str, iterations: int | None = None) -> int:
    """How many of the fixed seeds' games of two bots of this kind the team won."""
    return sum(
        bool(_played(pack, 2, seed, [kind, kind], iterations).state["result"]["won"])
        for seed in LIFEBOAT_SEEDS
    )


# -- playing for the declared result ------------------------------------------------------------


def test_on_a_team_game_heuristic_bots_win_clearly_more_often_than_random_ones(lifeboat: Pack) -> None:
    random, heuristic = _landings(lifeboat, "random"), _landings(lifeboat, "heuristic")
    assert heuristic >= random + 20, (random, heuristic)


def test_on_a_team_game_experts_win_at_least_as_often_as_heuristic_bots(lifeboat: Pack) -> None:
    heuristic, expert = _landings(lifeboat, "heuristic"), _landings(lifeboat, "expert", 64)
    assert expert >= heuristic, (heuristic, expert)


def test_on_a_ranking_game_the_heuristic_beats_random_bots() -> None:
    pack = load_pack_checked(PEBBLES)

    def first_seat_wins(kind: str) -> int:
        games = [_played(pack, 3, seed, [kind, "random", "random"]) for seed in PEBBLES_SEEDS]
        return sum(game.players[0] in game.state["result"]["winners"] for game in games)

    random, heuristic = first_seat_wins("random"), first_seat_wins("heuristic")
    assert heuristic >= random + 10, (random, heuristic)


def test_without_a_world_to_look_in_a_lookahead_answers_at_random(lifeboat: Pack) -> None:
    """The heuristic looks ahead only in a world it may know (`act` samples one from its view);
    given a bare view's JSON, it draws an answer, from its own seed."""
    game = new_game(lifeboat, 2, 1)
    me = game.players[0]
    decision = game.decision
    assert decision is not None and decision.waiting == [me]
    legal = decision.legal(me)
    view = game.view(me).to_json()
    drawn = [HeuristicAgent(seed, lifeboat).decide(view, legal) for seed in range(40)]
    looked = [HeuristicAgent(seed, lifeboat).act(game.view(me), legal) for seed in range(40)]
    assert len(set(drawn)) == len(legal)
    strongest = max(legal, key=lambda action: int(action[1]))
    assert looked.count(strongest) >= 35  # (all but the noise: one look-ahead in 20 draws instead)


# -- the worth of a position ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "red", "blue"),
    [
        ("ranking", 5.0 - 7.0, 7.0 - 5.0),  # the margin over the best other
        ("team", 12.0, 12.0),  # the team's: every seat's value added up
        ("both", 12.0 - 2.0, 12.0 + 2.0),
    ],
)
def test_a_position_is_worth_what_the_declared_result_makes_of_the_players_values(
    kind: str, red: float, blue: float
) -> None:
    values = {"red": 5.0, "blue": 7.0}
    assert position_worth(values, ResultSpec(kind), "red") == red
    assert position_worth(values, ResultSpec(kind), "blue") == blue


def test_the_evaluation_the_pack_declares_is_read_for_every_seat(lifeboat: Pack) -> None:
    game = _played(lifeboat, 3, 4, ["random"] * 3)
    counts = game.state["counts"]
    made_good = sum(counts[p]["strokes"] for p in game.players) - counts["wake"]["setbacks"]
    assert evaluator(lifeboat).standings(game) == {p: float(made_good) for p in game.players}


def test_the_base_pack_names_a_tactic_the_bots_have_for_its_questions(base_pack: Pack) -> None:
    hints = bot_hints(base_pack)
    assert hints.evaluation is not None and hints.piece_value is not None
    assert set(hints.tactics.values()) <= set(TACTICS)
    assert (
        hints.tactic("vote", "sharing") == "for_self" and hints.tactic("vote", "attack") == "against_others"
    )
    assert hints.tactic("a_question_it_never_asks") == LOOKAHEAD


def test_every_tactic_is_one_the_heuristic_plays() -> None:
    played = {name.removeprefix("_tactic_") for name in dir(HeuristicAgent) if name.startswith("_tactic_")}
    assert played | {LOOKAHEAD} == set(TACTICS)


# -- what `coh validate` reports ------------------------------------------------------------------


def _with_bots(folder: Path, bots: Any, verb: dict[str, Any] | None = None) -> list[tuple[str, str, int]]:
    """Lifeboat with this `bots:` section (and one more verb), checked: (code, message, line)."""
    root = write_team_pack(folder / "lifeboat", "team")
    path = root / "game.yaml"
    game = yaml.safe_load(path.read_text(encoding="utf-8"))
    game["bots"] = bots
    if verb is not None:
        game["verbs"].append(verb)
    path.write_text(yaml.safe_dump(game, sort_keys=False), encoding="utf-8")
    _, problems = check_pack(root)
    return [(p.code, p.message, p.location.line if p.location else 0) for p in problems]


@pytest.mark.parametrize(
    ("bots", "verb", "code", "says"),
    [
        (
            {"evaluation": "headwy"},
            None,
            "BOTS-EVALUATION",
            "`headwy` is not a verb of the pack; did you mean `headway`?",
        ),
        (
            {"evaluation": "made_good"},
            None,
            "BOTS-EVALUATION",
            "it must take one `player` and return an `int` without asking (it takes (), returns int)",
        ),
        (
            {"evaluation": "landed"},
            {
                "id": "landed",
                "params": {"player": "player"},
                "returns": "bool",
                "doc": "-",
                "do": "return made_good() > 0",
            },
            "BOTS-EVALUATION",
            "(it takes (player), returns bool)",
        ),
        ({"piece_value": "worth"}, None, "BOTS-PIECE-VALUE", "the pack has no pieces of role `players`"),
        ({"tactics": {"stroke": "look_ahead"}}, None, "BOTS-TACTIC", "did you mean `lookahead`?"),
        (
            {"tactics": {"stroke": "pulled"}},
            {"id": "pulled", "params": {"player": "player"}, "doc": "-", "do": "log(drifted, count=1)"},
            "BOTS-TACTIC-VERB",
            "it must return the answer it picks, without asking (it returns nothing)",
        ),
        (
            {"tactics": {"stroke": "pulled"}},
            {
                "id": "pulled",
                "params": {"options": "list[int]"},
                "returns": "int",
                "asks": True,
                "doc": "-",
                "do": "return ask(seats()[0], options, question=stroke, answer=stroke)",
            },
            "BOTS-TACTIC-VERB",
            "(it asks)",
        ),
        (
            {"tactics": {"stroke": "pulled"}},
            {
                "id": "pulled",
                "params": {"options": "list[int]", "oars": "int"},
                "returns": "int",
                "doc": "-",
                "do": "return options[0] + oars",
            },
            "BOTS-TACTIC-VERB",
            "`pulled` takes `oars`, which the question does not give (a tactic verb may take player,",
        ),
        (
            {"tactics": {"strokes": "random"}},
            None,
            "BOTS-TACTIC",
            "`strokes` is not a question the pack declares",
        ),
        ({"evaluation": "headway", "tactic": {}}, None, "SCHEMA-UNKNOWN-KEY", "tactic"),
        ({"win": 0}, None, "SCHEMA", "0"),
    ],
)
def test_a_wrong_hint_for_bots_is_reported_where_it_is_written(
    tmp_path: Path, bots: dict[str, Any], verb: dict[str, Any] | None, code: str, says: str
) -> None:
    problems = _with_bots(tmp_path, bots, verb)
    found = [(c, message, line) for c, message, line in problems if c.startswith(code)]
    assert found, problems
    assert any(says in message for _, message, _ in found), found
    assert all(line > 1 for _, _, line in found)


# -- a pack's own tactic verbs --------------------------------------------------------------------


def _lifeboat_with(folder: Path, bots: dict[str, Any], *verbs: dict[str, Any]) -> Pack:
    """Lifeboat with this `bots:` section and these verbs more, loaded and checked."""
    root = write_team_pack(folder / "lifeboat", "team")
    path = root / "game.yaml"
    game = yaml.safe_load(path.read_text(encoding="utf-8"))
    game["bots"] = bots
    game["verbs"].extend(verbs)
    path.write_text(yaml.safe_dump(game, sort_keys=False), encoding="utf-8")
    return load_pack_checked(root)


def _tactic(ident: str, returns: str) -> dict[str, Any]:
    """A tactic verb for the question `stroke` that returns `returns` (an expression of `options`)."""
    return {
        "id": ident,
        "params": {"player": "player", "options": "list[int]"},
        "returns": "int",
        "doc": "How hard to row, for the bots.",
        "do": f"return {returns}",
    }


def _strokes(game: Game) -> list[int]:
    return [int(entry["params"]["count"]) for entry in game.log if entry["key"] == "rowed"]


def test_a_tactic_verb_answers_its_question_for_the_heuristic(tmp_path: Path) -> None:
    pack = _lifeboat_with(
        tmp_path,
        {"evaluation": "headway", "tactics": {"stroke": "gentle"}},
        _tactic("gentle", "min(options)"),
    )
    for seed in (1, 2, 3):
        game = _played(pack, 3, seed, ["heuristic"] * 3)
        assert _strokes(game) == [1] * 9  # (the look-ahead alone rows 3: test above)


def test_a_tactic_verb_that_picks_an_answer_not_offered_stops_the_game_at_the_tactic(tmp_path: Path) -> None:
    pack = _lifeboat_with(
        tmp_path,
        {"evaluation": "headway", "tactics": {"stroke": "wild"}},
        _tactic("wild", "max(options) + 4"),
    )
    game = new_game(pack, 2, 1)
    me = game.players[0]
    with pytest.raises(EngineError) as raised:
        HeuristicAgent(1, pack).act(game.view(me), game.decision.legal(me) if game.decision else [])
    assert raised.value.code == "BOTS-TACTIC-ANSWER"
    assert "`wild` picked 7, which is not one of the answers offered (1, 2, 3)" in raised.value.message
    assert raised.value.location is not None and raised.value.location.file.endswith("game.yaml")


def test_the_expert_departs_from_a_tactic_where_another_answer_does_clearly_better(tmp_path: Path) -> None:
    """Before the last turn, rowing 3 makes more headway than rowing 1 in every sampled world
    alike. (In the last, the rollouts end with the game: a landing or not, which the strokes
    change in some worlds only, and the tactic's answer may stand.)"""
    pack = _lifeboat_with(
        tmp_path,
        {"evaluation": "headway", "tactics": {"stroke": "gentle"}},
        _tactic("gentle", "min(options)"),
    )
    game = _played(pack, 2, 1, ["expert", "expert"], 8)
    assert _strokes(game)[:4] == [3] * 4


def test_the_expert_keeps_the_tactics_answer_where_none_does_clearly_better(tmp_path: Path) -> None:
    """With an evaluation that sees no difference (and no game over within the turn), every
    answer scores alike: the tactic's answer stands."""
    level = {"id": "level", "params": {"player": "player"}, "returns": "int", "doc": "-", "do": "return 0"}
    bots = {"evaluation": "level", "tactics": {"stroke": "middling"}}
    pack = _lifeboat_with(tmp_path, bots, level, _tactic("middling", "options[1]"))
    game = new_game(pack, 2, 1)
    bots_by_seat = {c: make_bot("expert", 7 + i, pack, 8) for i, c in enumerate(game.players)}
    for _ in range(4):  # the first turn's strokes, and the next's (the game is not over yet)
        decision = game.decision
        assert decision is not None
        for colour in decision.waiting:
            game.submit(colour, ask(game, bots_by_seat[colour], colour))
    assert _strokes(game) == [2] * 4


@pytest.mark.parametrize(
    ("scores", "base", "better"),
    [
        ([3.0, 3.0, 3.0], [1.0, 1.0, 1.0], True),  # ahead in every world alike
        ([5.0, 1.0, 3.0], [1.0, 5.0, 3.0], False),  # ahead on average by nothing
        ([4.0, 0.0, 4.0, 0.0], [1.0, 1.0, 1.0, 1.0], False),  # ahead on average, but within the noise
        ([2.5, 2.4, 2.6, 2.5], [2.0, 2.0, 2.1, 2.0], True),  # a small lead, but always
        ([9.0], [1.0], False),  # one world tells nothing of the spread
    ],
)
def test_an_answer_beats_the_tactics_only_clearly(
    scores: list[float], base: list[float], better: bool
) -> None:
    assert clearly_better(scores, base) is better


def test_the_shipped_games_hints_are_sound() -> None:
    for folder in ("base", "zombicide"):
        _, problems = check_pack(ROOT.parent / "content" / folder)
        assert [p for p in problems if p.code.startswith("BOTS-")] == []


# -- worlds consistent with a seat's view ---------------------------------------------------------


def test_a_sampled_world_deals_again_the_piles_of_pieces_the_seat_does_not_own(tmp_path: Path) -> None:
    """A pile kept per piece and seen by its `owner` is seen by the piece's owner (as in the seat's
    view): a sampled world keeps those of the seat's own pieces and deals the others' again, each
    to its size, from the cards the seat cannot see."""
    root = tmp_path / "base"
    shutil.copytree(content_root() / "base", root)
    components = root / "components.yaml"
    satchels = "    satchels: {doc: what a character carries, of: card_kind, per: characters, sees: owner}\n"
    components.write_text(
        components.read_text(encoding="utf-8").replace("  piles:\n", "  piles:\n" + satchels, 1)
    )
    pack = load_pack_checked(root)
    game = new_game(pack, 3, 1)
    me = game.players[0]
    cards = sorted(entity.id for entity in pack.entities_of("action"))  # (the base pack's cards)
    for index, piece in enumerate(sorted(game.pieces)):
        game.state["piles"]["satchels"][piece] = [cards[index % len(cards)]]
    mine = {piece for piece, data in game.pieces.items() if data["owner"] == me}
    theirs = set(game.pieces) - mine
    assert mine and theirs
    before = {piece: list(held) for piece, held in game.state["piles"]["satchels"].items()}
    worlds = [sample_world(game, me, Rng(seed)).state["piles"]["satchels"] for seed in range(20)]
    for satchels in worlds:
        assert {piece: satchels[piece] for piece in mine} == {piece: before[piece] for piece in mine}
        assert all(len(satchels[piece]) == len(before[piece]) for piece in theirs)
    assert any(satchels[piece] != before[piece] for satchels in worlds for piece in theirs)
    assert game.state["piles"]["satchels"] == before  # (the game itself is left as it was)

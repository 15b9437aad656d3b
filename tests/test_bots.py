"""The bots (issue 13 point 5): the heuristic's movement is mixed and seeded, the expert answers
legally and never reads what its player cannot see, and `tools/bench_bots.py` reports win rates
of seat-rotated tables with Wilson intervals."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from coh_core.agents import make_bot
from coh_core.agents.expert import ExpertAgent
from coh_core.agents.heuristic import HeuristicAgent
from coh_core.agents.runner import ask, play_out
from coh_core.engine import new_game
from coh_core.engine.game import Game
from coh_core.packs.model import Pack

ROOT = Path(__file__).resolve().parent.parent
MOVEMENT = "movement_card"  # the base pack's question of the movement cards, asked of all at once


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_bots", ROOT / "tools" / "bench_bots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _to_first(game: Game, kind: str, agents: dict[str, Any]) -> Game:
    """The game played on by the agents until a decision of this kind asks every player."""
    while not game.over:
        decision = game.decision
        assert decision is not None
        if decision.kind == kind and len(decision.waiting) == len(game.players):
            return game
        for colour in decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    raise AssertionError(f"no {kind} decision asked every player")


def _heuristics(game: Game, pack: Pack) -> dict[str, Any]:
    return {c: HeuristicAgent(100 + i, pack) for i, c in enumerate(game.players)}


# --- the heuristic's movement ---------------------------------------------------------------------


def test_the_heuristic_draws_its_movement_card_from_its_seed(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=3)
    game = _to_first(game, MOVEMENT, _heuristics(game, base_pack))
    me = game.players[0]
    legal = game.decision.legal(me) if game.decision else []
    chosen = [HeuristicAgent(seed, base_pack).act(game.view(me), legal) for seed in range(30)]
    again = [HeuristicAgent(seed, base_pack).act(game.view(me), legal) for seed in range(30)]
    assert chosen == again  # the same seed, the same card
    assert len(set(chosen)) >= 3, f"30 seeds chose only {set(chosen)}"


def test_four_heuristic_bots_seldom_all_choose_the_same_movement_card(base_pack: Pack) -> None:
    same = asked = 0
    for seed in range(1, 9):
        game = new_game(base_pack, players=4, seed=seed)
        agents = _heuristics(game, base_pack)
        while not game.over:
            decision = game.decision
            assert decision is not None
            answers = {}
            for colour in decision.waiting:
                answers[colour] = ask(game, agents[colour], colour)
                game.submit(colour, answers[colour])
            if decision.kind == MOVEMENT and len(answers) == 4:
                asked += 1
                same += len(set(answers.values())) == 1
    assert asked >= 16
    assert same / asked < 0.2, f"all four chose the same card in {same} of {asked} turns"


def test_heuristic_bots_give_cards_before_votes_and_spare_their_givers(base_pack: Pack) -> None:
    gifts = spared = 0
    for seed in range(1, 13):
        game = new_game(base_pack, players=4, seed=seed)
        agents = _heuristics(game, base_pack)
        while not game.over:
            decision = game.decision
            assert decision is not None
            for colour in decision.waiting:
                legal = decision.legal(colour)
                answer = agents[colour].act(game.view(colour), legal)
                if decision.kind == "vote" and decision.prompt.get("purpose") != "sharing":
                    givers = {
                        e["params"]["player"]
                        for e in game.log
                        if e["key"] == "gift"
                        and e["turn"] == game.state["turn"]
                        and e["params"]["recipient"] == colour
                    }
                    others = [a[1] for a in legal if a[1] not in givers and a[1] != colour]
                    assert not (answer[1] in givers and others), f"{colour} voted against its giver"
                    spared += bool(givers & {a[1] for a in legal})
                game.submit(colour, answer)
        gifts += sum(e["key"] == "gift" for e in game.log)
    assert gifts > 0, "no heuristic bot gave anything in 12 games"
    assert spared > 0, "no vote could have picked a giver: the sparing was never put to the test"


# --- the expert --------------------------------------------------------------------------------


def test_an_expert_plays_a_whole_game_with_legal_answers(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=5)
    agents = {c: make_bot("heuristic", i, base_pack) for i, c in enumerate(game.players)}
    agents[game.players[1]] = make_bot("expert", 9, base_pack, expert_iterations=1)
    play_out(game, agents)  # `submit` refuses any answer that is not legal
    assert game.over and game.state["result"]["winners"]


def _hidden_changed(game: Game, me: str) -> Game:
    """The same position but for what `me` cannot see: another player's hand trades a card with
    the deck, and the game's generator is another."""
    doc = game.to_json()
    piles = doc["state"]["piles"]
    other = next(p for p in game.players if p != me and piles["hands"][p])
    hand, deck = piles["hands"][other], piles["deck"][""]
    swap = next(i for i, card in enumerate(deck) if card not in hand)
    hand[0], deck[swap] = deck[swap], hand[0]
    doc["state"]["rng"] = (int(doc["state"]["rng"]) * 6364136223846793005 + 1) % (1 << 64)
    return Game.from_json(game.rules, doc)


@pytest.mark.parametrize(("search", "iterations"), [("flat", 2), ("tree", 12)])
@pytest.mark.parametrize("seed", [2, 6])
def test_the_expert_chooses_the_same_whatever_it_cannot_see(
    base_pack: Pack, seed: int, search: str, iterations: int
) -> None:
    game = new_game(base_pack, players=4, seed=seed)
    game = _to_first(game, MOVEMENT, _heuristics(game, base_pack))
    me = game.players[0]
    changed = _hidden_changed(game, me)
    assert changed.view(me).to_json() == game.view(me).to_json()
    assert changed.state["piles"]["hands"] != game.state["piles"]["hands"]
    legal = game.decision.legal(me) if game.decision else []
    for expert_seed in range(3):
        first = ExpertAgent(expert_seed, base_pack, iterations, search=search).act(game.view(me), legal)
        second = ExpertAgent(expert_seed, base_pack, iterations, search=search).act(changed.view(me), legal)
        assert first == second
        assert first in legal


def test_the_expert_search_is_used_and_differs_from_the_heuristic_somewhere(base_pack: Pack) -> None:
    """Its searched answers are its own: over a few positions, at least one differs from the
    heuristic's with the same seed (else the search would be a costly copy of the heuristic)."""
    differs = 0
    for seed in range(1, 5):
        game = new_game(base_pack, players=4, seed=seed)
        game = _to_first(game, MOVEMENT, _heuristics(game, base_pack))
        me = game.players[0]
        legal = game.decision.legal(me) if game.decision else []
        expert = ExpertAgent(seed, base_pack, iterations=2).act(game.view(me), legal)
        heuristic = HeuristicAgent(seed, base_pack).act(game.view(me), legal)
        differs += expert != heuristic
    assert differs >= 1


# --- the bench tool -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wins", "games", "low", "high"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (40, 100, 0.3094, 0.4980)],
)
def test_wilson_intervals(wins: int, games: int, low: float, high: float) -> None:
    got = _bench().wilson(wins, games)
    assert got == pytest.approx((low, high), abs=5e-4)


def test_the_bench_plays_each_seed_once_per_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    table = tmp_path / "bench.md"
    code = _bench().main(
        [
            "--tested",
            "heuristic",
            "--against",
            "random",
            "--seeds",
            "2",
            "--json",
            str(out),
            "--markdown",
            str(table),
        ]
    )
    assert code == 0
    doc = json.loads(out.read_text())
    games, summary = doc["games"], doc["summary"]
    assert len(games) == 8
    assert sorted((g["seed"], g["seat"]) for g in games) == sorted(
        (seed, seat) for seed in {g["seed"] for g in games} for seat in range(4)
    )
    assert summary["wins"] == sum(g["colour"] in g["winners"] for g in games) == sum(summary["wins_by_seat"])
    low, high = summary["wilson95"]
    assert low <= summary["win_rate"] <= high
    assert summary["no_survivor"] == sum(g["survivors"] == 0 for g in games)
    assert summary["asked_all"] > 0
    assert "| heuristic | 3 x random | 8 |" in capsys.readouterr().out
    assert table.read_text().startswith("| tested |")


def test_the_bench_refuses_a_bad_budget() -> None:
    for bad in (["--expert-iterations", "0"], ["--expert-seconds", "-1"], ["--expert-seconds", "nan"]):
        with pytest.raises(SystemExit) as stopped:
            _bench().main(["--tested", "expert", "--against", "heuristic", "--seeds", "1", *bad])
        assert stopped.value.code == 2


def test_the_bench_records_the_experts_budget_and_cpu_time(tmp_path: Path) -> None:
    out, records = tmp_path / "bench.json", tmp_path / "games.jsonl"
    args = ["--tested", "expert", "--against", "random", "--seeds", "1", "--expert-iterations", "2"]
    assert _bench().main([*args, "--json", str(out), "--records", str(records)]) == 0
    summary = json.loads(out.read_text())["summary"]
    assert summary["games"] == 4 and summary["expert_iterations"] == 2
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(lines) == 4
    assert all(r["expert"]["iterations"] == 2 and r["expert"]["search"] == "tree" for r in lines)
    assert all(r["cpu_seconds"] > 0 for r in lines)

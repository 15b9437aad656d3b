"""The expert's tree search (issue 13): deterministic for a seed, within its budget (iterations or
seconds), legal, blind to what its player cannot see; its budget on the command line."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from click.testing import CliRunner
from test_bots import _hidden_changed

from coh_core.agents import make_bot
from coh_core.agents.expert import ExpertAgent, Node
from coh_core.agents.heuristic import HeuristicAgent
from coh_core.agents.runner import ask, play_out
from coh_core.agents.worlds import light_view
from coh_core.cli import main
from coh_core.engine import new_game
from coh_core.engine.game import Game, WindowPasser
from coh_core.packs.model import Pack

MOVEMENT = "movement_card"  # the base pack's question of the movement cards, asked of all at once


def _at_movement(pack: Pack, seed: int) -> tuple[Game, str, list[Any]]:
    """A game played by heuristic bots to its first movement question; the first seat and its answers."""
    game = new_game(pack, players=4, seed=seed)
    agents = {c: HeuristicAgent(100 + i, pack) for i, c in enumerate(game.players)}
    while not game.over:
        decision = game.decision
        assert decision is not None
        if decision.kind == MOVEMENT and len(decision.waiting) == len(game.players):
            me = game.players[0]
            return game, me, decision.legal(me)
        for colour in decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    raise AssertionError("no movement question")


def _statistics(node: Node) -> Any:
    """A tree as plain data: each answer's visits, total, availability and the nodes below."""
    return {
        repr(action): (
            edge.visits,
            round(edge.total, 9),
            edge.available,
            {repr(key): _statistics(child) for key, child in edge.after.items()},
        )
        for action, edge in node.edges.items()
    }


@pytest.mark.parametrize("seed", [2, 6])
def test_the_tree_search_is_the_same_for_the_same_seed(base_pack: Pack, seed: int) -> None:
    game, me, legal = _at_movement(base_pack, seed)
    first, second = ExpertAgent(seed, base_pack, 24), ExpertAgent(seed, base_pack, 24)
    assert first.act(game.view(me), legal) == second.act(game.view(me), legal)
    assert first.last_tree is not None and second.last_tree is not None
    assert _statistics(first.last_tree) == _statistics(second.last_tree)
    assert first.rng.state == second.rng.state  # a save of either would go on the same way


class _AskedInEveryWindow(ExpertAgent):
    """An expert whose worlds ask every seat in windows (no seat passed over unasked)."""

    def _passer(self, world: Game) -> WindowPasser:
        return lambda colour, cards, characters, question, values: False


@pytest.mark.parametrize("seed", [3, 7])
def test_seats_passed_over_in_the_worlds_leave_the_search_as_it_was(base_pack: Pack, seed: int) -> None:
    """The worlds pass over the seats the rollouts would make pass (`window_passer`): the same
    tree, answer and generator as a search whose worlds ask them."""
    game, me, legal = _at_movement(base_pack, seed)
    fast, asked = ExpertAgent(seed, base_pack, 24), _AskedInEveryWindow(seed, base_pack, 24)
    assert fast.act(game.view(me), legal) == asked.act(game.view(me), legal)
    assert fast.last_tree is not None and asked.last_tree is not None
    assert _statistics(fast.last_tree) == _statistics(asked.last_tree)
    assert fast.rng.state == asked.rng.state


@pytest.mark.parametrize("seed", [4, 9])
def test_a_heuristic_that_passes_anyway_passes_whatever_it_is_offered(base_pack: Pack, seed: int) -> None:
    """`passes_anyway`, what the expert's worlds ask before a window asks a seat, agrees with the
    heuristic's own answer: where it says so, the heuristic passes, at every window of a game."""
    game = new_game(base_pack, players=4, seed=seed)
    agents = {c: HeuristicAgent(seed + i, base_pack) for i, c in enumerate(game.players)}
    judge = HeuristicAgent(0, base_pack)
    told = 0
    while not game.over:
        decision = game.decision
        assert decision is not None
        for colour in decision.waiting:
            legal = decision.legal(colour)
            if legal[0] == ("pass",) and decision.prompt.get("purpose") is not None:
                state = light_view(game, colour)
                if judge.passes_anyway(state, decision.kind, decision.prompt):
                    told += 1
                    assert judge.decide(state, legal, game) == ("pass",), (decision.kind, legal)
            game.submit(colour, ask(game, agents[colour], colour))
    assert told > 10


@pytest.mark.parametrize("iterations", [1, 5, 20])
def test_the_tree_search_runs_exactly_its_iterations(base_pack: Pack, iterations: int) -> None:
    game, me, legal = _at_movement(base_pack, 3)
    expert = ExpertAgent(4, base_pack, iterations)
    answer = expert.act(game.view(me), legal)
    tree = expert.last_tree
    assert tree is not None and answer in legal
    assert expert.last_iterations == iterations
    assert sum(edge.visits for edge in tree.edges.values()) == iterations  # one answer per iteration
    # its own answers do not depend on what it cannot see: each is legal in every sampled world
    assert {edge.available for edge in tree.edges.values()} == {iterations}
    if iterations >= len(legal):  # every answer is tried once before any is tried twice
        assert all(edge.visits >= 1 for edge in tree.edges.values())


def test_the_answer_is_the_most_visited(base_pack: Pack) -> None:
    game, me, legal = _at_movement(base_pack, 5)
    expert = ExpertAgent(8, base_pack, 30)
    answer = expert.act(game.view(me), legal)
    assert expert.last_tree is not None
    visits = {action: edge.visits for action, edge in expert.last_tree.edges.items()}
    assert visits[answer] == max(visits.values())


def test_the_tree_grows_below_the_root(base_pack: Pack) -> None:
    """Later decisions of the same turn become nodes: the search is a tree, not one level."""
    deeper = 0
    for seed in (1, 2, 3):
        game, me, legal = _at_movement(base_pack, seed)
        expert = ExpertAgent(seed, base_pack, 40)
        expert.act(game.view(me), legal)
        assert expert.last_tree is not None
        deeper += sum(
            child_edge.visits
            for edge in expert.last_tree.edges.values()
            for child in edge.after.values()
            for child_edge in child.edges.values()
        )
    assert deeper > 0, "no iteration went below the root in 3 positions"


@pytest.mark.parametrize("seed", [2, 6])
def test_the_tree_is_the_same_whatever_its_player_cannot_see(base_pack: Pack, seed: int) -> None:
    game, me, legal = _at_movement(base_pack, seed)
    changed = _hidden_changed(game, me)
    assert changed.view(me).to_json() == game.view(me).to_json()
    assert changed.state["piles"]["hands"] != game.state["piles"]["hands"]
    first, second = ExpertAgent(seed, base_pack, 16), ExpertAgent(seed, base_pack, 16)
    assert first.act(game.view(me), legal) == second.act(changed.view(me), legal)
    assert first.last_tree is not None and second.last_tree is not None
    assert _statistics(first.last_tree) == _statistics(second.last_tree)


def test_a_tree_expert_plays_a_whole_game_with_legal_answers(base_pack: Pack) -> None:
    game = new_game(base_pack, players=4, seed=8)
    agents = {c: make_bot("heuristic", i, base_pack) for i, c in enumerate(game.players)}
    expert = make_bot("expert", 9, base_pack, expert_iterations=6)
    agents[game.players[2]] = expert
    searched = 0

    class Checked:
        """The expert, its every answer checked against the legal ones."""

        rng = expert.rng  # type: ignore[attr-defined]

        def act(self, view: Any, legal: list[Any]) -> Any:
            nonlocal searched
            answer = expert.act(view, legal)
            assert answer in legal
            searched += expert._searched(legal)  # type: ignore[attr-defined]
            return answer

    agents[game.players[2]] = Checked()
    play_out(game, agents)
    assert game.over and searched > 0


def test_a_time_budget_stops_the_search(base_pack: Pack) -> None:
    game, me, legal = _at_movement(base_pack, 4)
    expert = ExpertAgent(1, base_pack, iterations=None, seconds=0.2)
    started = time.perf_counter()
    assert expert.act(game.view(me), legal) in legal
    # generous: one iteration may overrun the budget, and the machine may be loaded
    assert time.perf_counter() - started < 10.0
    assert expert.last_iterations >= 1


def test_the_first_budget_reached_stops_the_search(base_pack: Pack) -> None:
    game, me, legal = _at_movement(base_pack, 4)
    expert = ExpertAgent(1, base_pack, iterations=3, seconds=600.0)
    expert.act(game.view(me), legal)
    assert expert.last_iterations == 3


def test_make_bot_passes_the_budget_on(base_pack: Pack) -> None:
    expert = make_bot("expert", 1, base_pack, 7, 0.5)
    assert isinstance(expert, ExpertAgent)
    assert (expert.iterations, expert.seconds) == (7, 0.5)
    default = make_bot("expert", 1, base_pack)
    assert isinstance(default, ExpertAgent) and default.seconds is None


# --- the command line ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["--bots", "expert", "--expert-iterations", "0"], "--expert-iterations"),
        (["--bots", "expert", "--expert-iterations", "-3"], "--expert-iterations"),
        (["--bots", "expert", "--expert-seconds", "0"], "--expert-seconds"),
        (["--bots", "expert", "--expert-seconds", "nan"], "--expert-seconds"),
        (["--bots", "expert", "--expert-seconds", "inf"], "--expert-seconds"),
        # the bounds a save's budget obeys too: a game that never ends is refused
        (["--bots", "expert", "--expert-iterations", "100001"], "--expert-iterations"),
        (["--bots", "expert", "--expert-seconds", "600.5"], "--expert-seconds"),
        (["--bots", "heuristic", "--expert-iterations", "4"], "--expert-iterations"),
        (["--expert-seconds", "1"], "--expert-seconds"),
    ],
)
def test_play_refuses_a_bad_budget(runner: CliRunner, args: list[str], where: str) -> None:
    result = runner.invoke(main, ["play", *args])
    assert result.exit_code == 2
    assert "USAGE-BUDGET" in result.output and where in result.output
    assert "Traceback" not in result.output


def test_play_with_an_iteration_budget_is_the_same_game_twice(runner: CliRunner) -> None:
    args = ["play", "--players", "3", "--seed", "2", "--bots", "expert", "--expert-iterations", "2"]
    first = runner.invoke(main, [*args, "--format", "json"])
    second = runner.invoke(main, [*args, "--format", "json"])
    assert first.exit_code == second.exit_code == 0, first.output
    assert json.loads(first.output)["digest"] == json.loads(second.output)["digest"]


def test_simulate_refuses_a_bad_budget(runner: CliRunner, tmp_path: Any) -> None:
    pytest.importorskip("scipy", reason="coh simulate's extra is not installed")
    args = ["simulate", "--games", "1", "--out", str(tmp_path), "--no-progress"]
    result = runner.invoke(main, [*args, "--bots", "expert", "--expert-iterations", "0"])
    assert result.exit_code == 2 and "USAGE-BUDGET" in result.output
    result = runner.invoke(main, [*args, "--bots", "random", "--expert-seconds", "2"])
    assert result.exit_code == 2 and "USAGE-BUDGET" in result.output


def test_simulate_passes_the_budget_to_every_game() -> None:
    from coh_core.sim.games import Variant, tasks_for

    tasks = tasks_for([Variant("base", (), 4)], 3, None, ("expert",), 1, (5, 0.5))
    assert len(tasks) == 3 and {task.expert for task in tasks} == {(5, 0.5)}
    assert {task.expert for task in tasks_for([Variant("base", (), 4)], 2, None, ("expert",), 1)} == {
        (None, None)
    }


def test_simulate_records_the_budget_in_its_settings(runner: CliRunner, tmp_path: Any) -> None:
    pytest.importorskip("scipy", reason="coh simulate's extra is not installed")
    args = ["simulate", "--games", "1", "--players", "3", "--no-progress", "--format", "json"]
    budgeted = [
        *args,
        "--out",
        str(tmp_path / "a"),
        "--bots",
        "expert,random,random",
        "--expert-iterations",
        "2",
    ]
    result = runner.invoke(main, budgeted)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["settings"]["expert"] == {"iterations": 2, "seconds": None}
    saved = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert saved["settings"]["expert"] == {"iterations": 2, "seconds": None}
    result = runner.invoke(main, [*args, "--out", str(tmp_path / "b"), "--bots", "random"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["settings"]["expert"] is None


class _PublicView:
    """A seat's view with nothing but its public calls: what a bot may read."""

    __slots__ = ("_read",)

    def __init__(self, view: Any):
        object.__setattr__(self, "_read", view)

    @property
    def colour(self) -> str:
        return str(self._read.colour)

    @property
    def decision(self) -> Any:
        return self._read.decision

    def to_json(self) -> Any:
        return self._read.to_json()

    def log(self) -> Any:
        return self._read.log()

    def sample_world(self, rng: Any, redraw_answers: bool = False) -> Game:
        return self._read.sample_world(rng, redraw_answers)


@pytest.mark.parametrize("kind", ["expert", "heuristic"])
def test_the_bots_play_through_the_views_public_calls_only(base_pack: Pack, kind: str) -> None:
    """A game where every bot is handed a view with only its public calls (no way to the game)
    is the game they play with the view itself."""

    class Public:
        def __init__(self, agent: Any):
            self.agent = agent

        def act(self, view: Any, legal: list[Any]) -> Any:
            return self.agent.act(_PublicView(view), legal)

    digests = []
    for wrap in (False, True):
        game = new_game(base_pack, players=3, seed=6)
        bots = {c: make_bot(kind, 10 + i, base_pack, expert_iterations=2) for i, c in enumerate(game.players)}
        play_out(game, {c: Public(b) if wrap else b for c, b in bots.items()})
        digests.append(game.digest())
    assert digests[0] == digests[1]

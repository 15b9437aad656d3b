"""Boards that are graphs (`components: graphs`): the primitives on them, as the registry documents
them, against a brute-force reading of the same graph; from effects, in a copy of the base pack
whose locations are joined by a graph; and the states of its edges in saves, forks, the state
check and the players' views."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from run_effect import run_effect

from coh_core.agents.terminal import TerminalAgent
from coh_core.cli import main
from coh_core.effects.parser import parse_effect
from coh_core.engine import Game, compiler_for, new_game
from coh_core.engine.graphs import Graph
from coh_core.engine.machine import run_sync
from coh_core.engine.runtime import EngineError, NoOptions, Rt
from coh_core.engine.scenario import run_file
from coh_core.engine.state_check import state_problems
from coh_core.narrative import Narrator
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.resources import content_root

# --- the primitives against Floyd-Warshall on random graphs with random door states -----------------

_INF = 10**9
_PLACES = [f"p{i}" for i in range(9)]


@st.composite
def _graphs(draw: st.DrawFn) -> tuple[Graph, dict[str, str]]:
    """A graph of up to 9 places, each edge a door or an opening, and the doors' states."""
    count = draw(st.integers(2, len(_PLACES)))
    pairs = list(itertools.combinations(_PLACES[:count], 2))
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    edges = [
        {
            "between": list(pair if draw(st.booleans()) else pair[::-1]),
            "kind": draw(st.sampled_from(["opening", "door"])),
        }
        for pair in chosen
    ]
    entry = {
        "of": "location",
        "edge_kinds": {
            "opening": {"doc": "always passable"},
            "door": {"doc": "a door", "states": ["closed", "open", "ajar"], "passable": ["open", "ajar"]},
        },
        "edges": edges,
    }
    graph = Graph("board", entry)
    states = {key: draw(st.sampled_from(["closed", "open", "ajar"])) for key in graph.initial_states()}
    return graph, states


def _floyd_warshall(graph: Graph, states: dict[str, str]) -> dict[tuple[str, str], int]:
    places = _PLACES
    far = {(a, b): 0 if a == b else _INF for a in places for b in places}
    for index, (a, b, kind) in enumerate(graph.edges):
        if not kind.states or states[graph.keys[index]] in kind.passable:
            far[a, b] = far[b, a] = 1
    for via in places:
        for a in places:
            for b in places:
                far[a, b] = min(far[a, b], far[a, via] + far[via, b])
    return far


def _neighbours(graph: Graph, states: dict[str, str], place: str) -> list[str]:
    """By the registry's words: across passable edges, in the order the edges are declared."""
    found = []
    for index, (a, b, kind) in enumerate(graph.edges):
        if place in (a, b) and (not kind.states or states[graph.keys[index]] in kind.passable):
            found.append(b if place == a else a)
    return found


@settings(max_examples=150, deadline=None)
@given(_graphs(), st.sampled_from(_PLACES), st.sampled_from(_PLACES), st.integers(-1, 9))
def test_the_primitives_agree_with_a_brute_force_reading(
    drawn: tuple[Graph, dict[str, str]], a: str, b: str, n: int
) -> None:
    graph, states = drawn
    far = _floyd_warshall(graph, states)
    assert graph.neighbours(a, states) == _neighbours(graph, states, a)
    # distance: the steps of the shortest way, none when out of reach
    assert graph.distances(a, states).get(b, _INF) == far[a, b]
    # first_steps: the neighbours one step nearer, in the order of `neighbours`
    wanted = (
        []
        if a == b or far[a, b] >= _INF
        else [x for x in _neighbours(graph, states, a) if far[x, b] == far[a, b] - 1]
    )
    assert graph.first_steps(a, b, states) == wanted
    # nearest: those of the places at the least distance, in their order
    places = [*_PLACES[::2], b, a]
    reached = [far[a, p] for p in places if far[a, p] < _INF]
    assert graph.nearest(a, places, states) == [p for p in places if reached and far[a, p] == min(reached)]
    # within: at most n steps away, itself included, the nearer first, then in the edges' order
    near = [p for p in _PLACES if far[a, p] <= n]
    assert sorted(graph.within(a, n, states)) == sorted(near)
    found = graph.within(a, n, states)
    assert [far[a, p] for p in found] == sorted(far[a, p] for p in found)


def test_distances_are_kept_until_an_edge_changes_its_state() -> None:
    graph = Graph(
        "board",
        {
            "of": "location",
            "edge_kinds": {"door": {"doc": "a door", "states": ["closed", "open"], "passable": ["open"]}},
            "edges": [{"between": ["a", "b"], "kind": "door"}],
        },
    )
    states = graph.initial_states()
    closed = graph.distances("a", states)
    assert closed == {"a": 0} and graph.distances("a", states) is closed  # worked out once
    states["a/b"] = "open"
    assert graph.distances("a", states) == {"a": 0, "b": 1}
    states["a/b"] = "closed"
    assert graph.distances("a", states) is closed  # the states are the key: those of before


# --- from effects: the base pack's locations joined by a graph ------------------------------------

GRAPH = """\
  graphs:
    board:
      doc: how the locations of the city join
      of: location
      edge_kinds:
        opening: {doc: always passable}
        door: {doc: a door, states: [closed, open], passable: [open]}
      edges:
        - {between: [bank, crossroads], kind: opening}
        - {between: [crossroads, church], kind: door}
        - {between: [crossroads, hospital], kind: opening}
        - {between: [hospital, armory], kind: door}
        - {between: [water_tower, crossroads], kind: opening}
      lines:
        - [bank, crossroads, church]
        - [water_tower, crossroads, hospital, armory]
"""
MARK = "  # Every colour has one movement card per location."

VERBS = """\
verbs:
  - id: open_door
    params: {a: location, b: location}
    doc: Open the door between two locations, if it is closed.
    do: |
      if edge_state(board, a, b) == closed { set_edge_state(board, a, b, open) }
  - id: steps_to
    params: {a: location, b: location}
    returns: list[location]
    doc: Where to go first from a towards b.
    do: return first_steps(board, a, b)
"""


def _with_graph(root: Path) -> None:
    """A copy of the base pack at `root` whose components declare the graph `board`."""
    shutil.copytree(content_root() / "base", root)
    components = root / "components.yaml"
    components.write_text(components.read_text().replace(MARK, GRAPH + MARK), encoding="utf-8")


@pytest.fixture(scope="module")
def graph_pack(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    root = tmp_path_factory.mktemp("graph") / "base"
    _with_graph(root)
    (root / "graph-verbs.yaml").write_text(VERBS, encoding="utf-8")
    manifest = root / "pack.yaml"
    text = manifest.read_text().replace(
        "  - procedures-items.yaml", "  - procedures-items.yaml\n  - graph-verbs.yaml"
    )
    manifest.write_text(text, encoding="utf-8")
    return load_pack_checked(root)


def test_the_primitives_read_the_graph_from_effects(graph_pack: Pack) -> None:
    game = new_game(graph_pack, 4, 1)
    assert game.state["edges"] == {"board": {"crossroads/church": "closed", "hospital/armory": "closed"}}
    found = run_effect(
        game,
        "let n = neighbours(board, @crossroads); let d = distance(board, @bank, @hospital);"
        " let w = within(board, @bank, 1); let s = in_sight(board, @bank);"
        " let t = in_sight(board, @water_tower); let f = steps_to(@bank, @hospital);"
        " let e = nearest(board, @bank, [@water_tower, @church, @hospital]);"
        " let z = edge_state(board, @church, @crossroads); let j = joined(board, @crossroads)",
    )
    assert found["n"] == ["bank", "hospital", "water_tower"]  # the door to the church is closed
    assert found["j"] == ["bank", "church", "hospital", "water_tower"]  # every edge, the door's too
    assert found["d"] == 2
    assert found["w"] == ["bank", "crossroads"]
    assert found["s"] == ["bank", "crossroads"]  # the closed door: the church beyond it is not seen
    assert found["t"] == ["crossroads", "hospital", "water_tower"]
    assert found["f"] == ["crossroads"]
    assert found["e"] == ["water_tower", "hospital"]  # the church cannot be reached
    assert found["z"] == "closed"
    run_effect(game, "open_door(@church, @crossroads)")
    assert game.state["edges"]["board"]["crossroads/church"] == "open"
    found = run_effect(game, "let s = in_sight(board, @bank); let d = distance(board, @bank, @church)")
    assert found == {"s": ["bank", "crossroads", "church"], "d": 2}


def test_a_place_out_of_reach_has_no_distance(graph_pack: Pack) -> None:
    """As the first of nothing: the effect stops there."""
    game = new_game(graph_pack, 4, 1)
    with pytest.raises(NoOptions):
        run_effect(game, "let d = distance(board, @bank, @church)")
    with pytest.raises(NoOptions):  # no edge with states joins them
        run_effect(game, "let s = edge_state(board, @bank, @crossroads)")


def test_a_state_the_kind_does_not_declare_is_refused(graph_pack: Pack) -> None:
    game = new_game(graph_pack, 4, 1)
    program = (
        compiler_for(graph_pack)
        .block(parse_effect("set_edge_state(board, @church, @crossroads, s)"), None, frozenset({"s"}))
        .program
    )
    with pytest.raises(EngineError) as raised:
        run_sync(program, Rt(game, {"s": "ajar"}, game.players[0]), {"s": "ajar"})
    assert raised.value.code == "GAME-STATE" and "ajar" in raised.value.message
    with pytest.raises(EngineError) as raised:  # an edge of a kind without states
        run_effect(game, "set_edge_state(board, @bank, @crossroads, open)")
    assert raised.value.code == "GAME-STATE"
    assert game.state["edges"]["board"]["crossroads/church"] == "closed"


def test_saves_and_forks_keep_the_edge_states(graph_pack: Pack) -> None:
    game = new_game(graph_pack, 4, 1)
    run_effect(game, "open_door(@hospital, @armory)")
    loaded = Game.from_json(game.rules, game.to_json())
    assert loaded.state["edges"] == game.state["edges"]
    assert loaded.digest() == game.digest()
    fork = game.fork()
    run_effect(fork, "open_door(@church, @crossroads)")
    assert fork.state["edges"]["board"] == {"crossroads/church": "open", "hospital/armory": "open"}
    assert game.state["edges"]["board"] == {"crossroads/church": "closed", "hospital/armory": "open"}
    assert not state_problems(game.rules, loaded.state)


def test_the_state_check_accepts_only_declared_edge_states(graph_pack: Pack) -> None:
    game = new_game(graph_pack, 4, 1)
    assert not state_problems(game.rules, game.state)
    game.state["edges"]["board"]["crossroads/church"] = "ajar"
    (problem,) = state_problems(game.rules, game.state)
    assert problem.path == ("edges", "board", "crossroads/church")
    assert "ajar" in problem.message and "closed, open" in problem.message
    game.state["edges"]["board"] = {"crossroads/church": "open"}
    (problem,) = state_problems(game.rules, game.state)
    assert "hospital/armory" in problem.message
    del game.state["edges"]
    assert [p.message for p in state_problems(game.rules, game.state)] == ["the state has no `edges`"]


def test_every_player_sees_the_edge_states(graph_pack: Pack) -> None:
    game = new_game(graph_pack, 4, 1)
    for colour in game.players:
        assert game.view(colour).to_json()["edges"] == game.state["edges"]
    game.view(game.players[0]).to_json()["edges"]["board"]["crossroads/church"] = "open"
    assert game.state["edges"]["board"]["crossroads/church"] == "closed"  # a view is a copy


def test_a_pack_without_graphs_keeps_no_edge_states(base_pack: Pack) -> None:
    game = new_game(base_pack, 4, 1)
    assert "edges" not in game.state
    assert not state_problems(game.rules, game.state)
    game.state["edges"] = {}
    assert [p.path for p in state_problems(game.rules, game.state)] == [("edges",)]
    assert game.view(game.players[0]).to_json()["edges"] == {}


def test_the_checker_types_the_places_by_the_graph(graph_pack: Pack, tmp_path: Path) -> None:
    from coh_core.effects.checker import check_effect
    from coh_core.packs.effects_index import symbols_of

    symbols = symbols_of(graph_pack)
    findings = check_effect(
        parse_effect("let d = distance(board, @bank, me); set_edge_state(board, @bank, @church, opened)"),
        symbols,
        "card",
    )
    assert [f.code for f in findings] == ["EFF-TYPE", "EFF-ENUM"]


SCENARIO = """\
name: a door given open stays open until someone closes it
players: [red, blue, green]
given:
  turn: 1
  phase: movement_selection
  board: {church/crossroads: open}
then:
  board: {crossroads/church: open, armory/hospital: closed}
"""


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [
        ("", "", None),
        ("board: {church/crossroads: open}", "board: {church/bank: open}", "SCENARIO-REF"),
        ("board: {church/crossroads: open}", "board: {church/crossroads: ajar}", "SCENARIO-STATE"),
        ("crossroads/church: open, ", "crossroads/church: closed, ", "SCENARIO-FAILED"),
    ],
    ids=["given and checked", "no such edge", "no such state", "checked wrong"],
)
def test_a_scenario_gives_and_checks_edge_states_by_the_graph_name(
    graph_pack: Pack, tmp_path: Path, old: str, new: str, code: str | None
) -> None:
    """Under the graph's name, each edge named by its two ends either way round."""
    path = tmp_path / "doors.yaml"
    path.write_text(SCENARIO.replace(old, new) if old else SCENARIO, encoding="utf-8")
    outcome = run_file(graph_pack, path, "doors.yaml")
    assert [p.code for p in outcome.problems] == ([] if code is None else [code])


TABLE_MESSAGES = """\
  table:
    edge.board.open:
      note: The door between two locations stands open.
      params: {a: one end, b: the other end}
      types: {a: location, b: location}
"""
TABLE_TEXT = '  ui.table.edge.board.open: "The door between {a} and {b} stands open."\n'


def test_the_table_shows_the_edges_whose_state_has_a_text(tmp_path: Path) -> None:
    """An edge in a state the pack has a table text for is a line of the table (its ends by
    name); one in a state without a text is not shown."""
    root = tmp_path / "base"
    _with_graph(root)
    messages = root / "messages.yaml"
    messages.write_text(messages.read_text().replace("  table:\n", TABLE_MESSAGES, 1), encoding="utf-8")
    english = root / "text" / "en.yaml"
    text = english.read_text()
    anchor = next(line for line in text.splitlines(keepends=True) if "ui.table.pointer.leader" in line)
    english.write_text(text.replace(anchor, anchor + TABLE_TEXT, 1), encoding="utf-8")
    pack = load_pack_checked(root)
    game = new_game(pack, players=3, seed=1)
    game.state["edges"]["board"]["crossroads/church"] = "open"
    rows = TerminalAgent(Narrator(pack)).table(game.view("red").to_json())
    shown = [row.strip() for row in rows if "door" in row]
    assert shown == ["The door between Crossroads and Church stands open."]


@pytest.mark.parametrize(
    ("message", "says"),
    [("edge.bored.open", "`bored` is none; did you mean `board`"), ("edge.board.ajar", "the states are")],
)
def test_a_table_text_of_an_edge_names_a_graph_and_a_state(tmp_path: Path, message: str, says: str) -> None:
    root = tmp_path / "base"
    _with_graph(root)
    messages = root / "messages.yaml"
    table = TABLE_MESSAGES.replace("edge.board.open", message)
    messages.write_text(messages.read_text().replace("  table:\n", table, 1), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(root), "--format", "json"])
    found = [p for p in json.loads(result.stdout)["problems"] if p["code"] == "MSG-TABLE"]
    assert len(found) == 1 and says in found[0]["message"], result.stdout[-2000:]

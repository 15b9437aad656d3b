"""Every scenario file under tests/scenarios is a test: rulebook examples, cards, characters, locations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.engine.scenario import run_file
from coh_core.packs import load_pack_checked
from coh_core.packs.loader import load_pack, scenario_files
from coh_core.packs.model import Pack
from coh_core.resources import content_root

SCENARIOS = Path(__file__).parent / "scenarios"
FILES = sorted(SCENARIOS.rglob("*.yaml"))


def _carried() -> list[tuple[Path, Path]]:
    """The scenarios the shipped packs carry (their manifests' `scenarios`), with each pack."""
    found: list[tuple[Path, Path]] = []
    for root in sorted(p.parent for p in content_root().glob("*/pack.yaml")):
        pack, _ = load_pack(root)
        assert pack is not None, root
        found.extend((root, path) for path in scenario_files(pack)[0])
    return found


CARRIED = _carried()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_scenario(base_pack: Pack, path: Path) -> None:
    outcome = run_file(base_pack, path, str(path.relative_to(SCENARIOS)))
    assert outcome.ok, "\n".join(p.render() for p in outcome.problems)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_a_scenario_saved_and_loaded_before_each_answer_ends_as_it_says(base_pack: Pack, path: Path) -> None:
    """Every question a scenario answers (of cards, powers, locations and the turn's procedures) is
    asked where the game is data: saved and loaded there, it goes on the same."""
    outcome = run_file(base_pack, path, str(path.relative_to(SCENARIOS)), reload=True)
    assert outcome.ok, "\n".join(p.render() for p in outcome.problems)


@pytest.mark.parametrize(
    ("root", "path"), CARRIED, ids=[f"{root.name}/{path.relative_to(root)}" for root, path in CARRIED]
)
def test_a_scenario_a_pack_carries(root: Path, path: Path) -> None:
    """Played under the pack that lists it (an overlay applied to its base), saved and loaded too."""
    pack = load_pack_checked(root)
    for reload in (False, True):
        outcome = run_file(pack, path, str(path.relative_to(root)), reload=reload)
        assert outcome.ok, "\n".join(p.render() for p in outcome.problems)


def test_a_shipped_house_rule_carries_its_scenarios() -> None:
    assert any(root.name == "curfew" for root, _ in CARRIED)


def test_rules_given_by_path_are_relative_to_the_scenario(base_pack: Pack, tmp_path: Path) -> None:
    """`rules: [../curfew]` names the overlay beside the scenario's folder, wherever coh runs."""
    shutil.copytree(content_root() / "curfew", tmp_path / "curfew")
    (tmp_path / "mine").mkdir()
    source = (content_root() / "curfew" / "scenarios" / "moves_in_reverse_turn_order.yaml").read_text()
    scenario = tmp_path / "mine" / "curfew.yaml"
    scenario.write_text(source.replace("players:", "rules: [../curfew]\nplayers:", 1))
    assert run_file(base_pack, scenario).ok
    scenario.write_text(source.replace("players:", "rules: [./curfew]\nplayers:", 1))
    [problem] = run_file(base_pack, scenario).problems
    assert problem.code == "SCENARIO-RULES" and "curfew" in problem.message


def test_coh_scenario_run_runs_the_scenarios_a_pack_lists(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(content_root())
    result = runner.invoke(main, ["scenario", "run", "curfew", "--format", "json"])
    assert result.exit_code == 0, result.output
    ran = json.loads(result.stdout)["scenarios"]
    assert [(s["path"], s["ok"]) for s in ran] == [
        ("curfew/scenarios/asks_the_last_player_first.yaml", True),
        ("curfew/scenarios/moves_in_reverse_turn_order.yaml", True),
    ]


def test_a_pack_without_scenarios_says_so(runner: CliRunner) -> None:
    result = runner.invoke(main, ["scenario", "run", str(content_root() / "hunger")])
    assert result.exit_code == 1
    assert "SCENARIO-NONE" in result.output and "lists no `scenarios`" in result.output


def test_a_failing_check_is_reported_at_its_line(base_pack: Pack, tmp_path: Path) -> None:
    source = (SCENARIOS / "rulebook" / "tie_broken_by_first_player.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(source.replace("first: red", "first: green"))
    outcome = run_file(base_pack, broken, "broken.yaml")
    [problem] = outcome.problems
    line = next(n for n, text in enumerate(source.splitlines(), start=1) if text.startswith("  first: red"))
    assert (problem.code, problem.location.line) == ("SCENARIO-FAILED", line)
    assert "expected 'green', got 'red'" in problem.message


@pytest.mark.parametrize(
    ("owners", "problems"), [("{housewife: red, student: blue}", 0), ("{housewife: blue}", 1)]
)
def test_owners_checks_the_player_each_piece_was_dealt_to(
    base_pack: Pack, tmp_path: Path, owners: str, problems: int
) -> None:
    source = (SCENARIOS / "rulebook" / "tie_broken_by_first_player.yaml").read_text()
    checked = tmp_path / "owners.yaml"
    checked.write_text(source.replace("  first: red", f"  first: red\n  owners: {owners}"))
    outcome = run_file(base_pack, checked, "owners.yaml")
    assert len(outcome.problems) == problems, [p.render() for p in outcome.problems]
    if problems:
        assert "expected {'housewife': 'blue'}, got {'housewife': 'red'}" in outcome.problems[0].message


def test_a_decision_check_that_is_no_mapping_fails_at_its_line(base_pack: Pack, tmp_path: Path) -> None:
    source = (SCENARIOS / "rulebook" / "tie_broken_by_first_player.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(source.replace("  first: red", "  first: red\n  decision: null"))
    outcome = run_file(base_pack, broken, "broken.yaml")
    [problem] = outcome.problems
    assert (problem.code, problem.location.line) == (
        "SCENARIO-FAILED",
        source.splitlines().index("  first: red") + 2,
    )
    assert "expected None, got {'over': False, 'kind': " in problem.message


FAILING = Path(__file__).parent / "failing_scenarios"
# Each failing scenario (tests/failing_scenarios), and what its one failure must say it got: the
# game's whole state for the check, as the rules leave it.
FAILURES: dict[str, tuple[str, ...]] = {
    # the tie is broken and the Housewife dies; the turn goes on, so a question waits (for Blue,
    # who still has the Student at the Church)
    "over_while_a_decision_waits.yaml": ("expected {'over': True}, got {'over': False, 'kind': ", "['blue']"),
    # the antidotes after the last turn end the game: no question waits
    "a_decision_once_the_game_is_over.yaml": ("got {'over': True}",),
}


def test_every_failing_scenario_says_what_it_must_report() -> None:
    assert sorted(p.name for p in FAILING.glob("*.yaml")) == sorted(FAILURES)


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_a_failed_check_shows_the_whole_value_the_game_has(base_pack: Pack, name: str) -> None:
    outcome = run_file(base_pack, FAILING / name, name)
    [problem] = outcome.problems
    source = (FAILING / name).read_text(encoding="utf-8").splitlines()
    assert (problem.code, problem.location.line) == ("SCENARIO-FAILED", source.index("then:") + 2)
    for piece in FAILURES[name]:
        assert piece in problem.message
    assert "None" not in problem.message


def test_an_illegal_scripted_answer_names_the_legal_ones(base_pack: Pack, tmp_path: Path) -> None:
    source = (SCENARIOS / "rulebook" / "tie_broken_by_first_player.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(source.replace("{green: [winner, red]}", "{green: [winner, green]}"))
    [problem] = run_file(base_pack, broken, "broken.yaml").problems
    assert problem.code == "ACTION-ILLEGAL"
    assert "['winner', 'red']" in problem.message


def _problems(base_pack: Pack, tmp_path: Path, text: str) -> list[tuple[str, int, str]]:
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return [(p.code, p.location.line, p.message) for p in run_file(base_pack, path, "scenario.yaml").problems]


MOVING = """\
name: red moves; blue and green have no movement card
players: [red, blue, green]
given:
  turn: 1
  phase: character_movement
  characters:
    red: {geek: bank, housewife: church}
  movement: {red: hospital}
then: {}
"""


def test_a_missing_movement_card_is_a_located_scenario_error(base_pack: Pack, tmp_path: Path) -> None:
    [(code, line, message)] = _problems(base_pack, tmp_path, MOVING)
    assert (code, line) == ("SCENARIO-MEMORY", 8)
    assert "blue, green" in message


def test_a_missing_movement_card_is_reported_without_any_movement_given(
    base_pack: Pack, tmp_path: Path
) -> None:
    text = MOVING.replace("  movement: {red: hospital}\n", "").replace(
        "phase: character_movement", "phase: invasion"
    )
    [(code, line, message)] = _problems(base_pack, tmp_path, text)
    assert (code, line) == ("SCENARIO-MEMORY", 3)
    assert "red, blue, green" in message


def test_no_movement_card_is_needed_once_the_moves_are_over(base_pack: Pack, tmp_path: Path) -> None:
    text = MOVING.replace("phase: character_movement", "phase: location_resolution")
    assert _problems(base_pack, tmp_path, text) == []


FOOD = """\
name: food comes out of the face-down pile
players: [red, blue, green]
given:
  phase: end
  food: {red: [3, 0], blue: [1]}
  food_face_up: [2, 3]
then: {}
"""


def test_food_given_comes_out_of_the_pile(base_pack: Pack, tmp_path: Path) -> None:
    checked = "then:\n  food_face_down: [1, 1, 1, 2, 2, 2, 2]\n  food_face_up: [1, 2]"  # 12 - 3 held - 2 up
    text = FOOD.replace("[2, 3]", "[2, 1]").replace("then: {}", checked)
    assert _problems(base_pack, tmp_path, text) == []


def test_a_food_token_not_in_the_pile_is_a_located_scenario_error(base_pack: Pack, tmp_path: Path) -> None:
    [(code, line, message)] = _problems(base_pack, tmp_path, FOOD)
    assert (code, line) == ("SCENARIO-SOURCE-PILE", 6)  # the second 3: the pack has only one
    assert "value 3" in message


SETUP = """\
name: a start in the setup
players: [red, blue, green]
given:
  phase: setup
  step: action_cards
then:
  hands: {red: 7, blue: 7, green: 7}
"""


def test_a_scenario_can_start_at_a_setup_step(base_pack: Pack, tmp_path: Path) -> None:
    assert _problems(base_pack, tmp_path, SETUP) == []


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("step: action_cards", "step: shuffle", 5),
        ("phase: setup", "phase: breakfast", 4),
        ("step: action_cards", "step: action_cards\n  turn: 1", 6),
        ("step: action_cards", "step: action_cards\n  at: church", 6),
    ],
    ids=["unknown setup step", "unknown phase", "setup with a turn", "setup with a location"],
)
def test_a_wrong_start_is_a_located_scenario_error(
    base_pack: Pack, tmp_path: Path, old: str, new: str, line: int
) -> None:
    [(code, found, _)] = _problems(base_pack, tmp_path, SETUP.replace(old, new))
    assert (code, found) == ("SCENARIO-START", line)


def test_an_end_start_can_skip_to_a_later_end_step(base_pack: Pack, tmp_path: Path) -> None:
    text = """\
name: scoring without paying antidotes first
players: [red, blue, green]
given:
  phase: end
  step: scoring
  characters:
    red: {housewife: church}
then:
  alive: {housewife: true}
  result: {scores: {red: 4, blue: 0, green: 0}}
"""
    assert _problems(base_pack, tmp_path, text) == []
    assert _problems(base_pack, tmp_path, text.replace("step: scoring", "step: antidotes"))[0][:2] == (
        "SCENARIO-FAILED",
        9,
    )


def test_a_card_of_rules_not_in_play_is_a_located_error(base_pack: Pack, tmp_path: Path) -> None:
    source = (SCENARIOS / "house_rules" / "lawn_mower.yaml").read_text()
    text = source.replace("rules: [promo-lawn-mower]\n", "")
    broken = tmp_path / "no_rules.yaml"
    broken.write_text(text)
    outcome = run_file(base_pack, broken, "no_rules.yaml")
    [problem] = outcome.problems
    rows = text.splitlines()
    line = next(n for n, row in enumerate(rows, start=1) if row.startswith("  hands: {red: [lawn"))
    assert (problem.code, problem.location.line) == ("SCENARIO-REF", line)
    assert "`lawn_mower`" in problem.message


ACTIVATING = """\
name: red uses the Hospital; red holds a Gun, so the window before the activation asks red first
players: [red, blue, green]
given:
  turn: 1
  phase: location_resolution
  at: hospital
  step: activation
  zombies: {hospital: 1}
  characters:
    red: {housewife: {at: hospital, exhausted: true}}
  hands: {red: [gun, alarm]}
when:
  - {red: [activate, hospital]}
  - {red: [discard, alarm]}
then:
  antidotes: {red: 1}
  hands: {red: [gun]}
  log_lacks: [card_played]
"""


def test_a_window_the_script_leaves_out_is_passed(base_pack: Pack, tmp_path: Path) -> None:
    assert _problems(base_pack, tmp_path, ACTIVATING) == []


def test_an_answer_no_window_leads_to_is_reported_with_the_windows_passed(
    base_pack: Pack, tmp_path: Path
) -> None:
    """red holds no Shotgun: the window before the activation passes, and the activation refuses it."""
    text = ACTIVATING.replace("  - {red: [activate, hospital]}\n", "  - {red: [play, shotgun]}\n")
    [(code, line, message)] = _problems(base_pack, tmp_path, text)
    assert (code, line) == ("ACTION-ILLEGAL", 13)
    assert "['activate', 'hospital']" in message
    assert message.endswith("(after passing 1 window decision the script leaves out)")


def test_a_question_that_is_not_a_window_is_never_passed(base_pack: Pack, tmp_path: Path) -> None:
    """At the activation itself, an answer of a window is refused there and then."""
    text = ACTIVATING.replace(
        "  - {red: [activate, hospital]}\n", "  - {red: [pass]}\n  - {red: [play, gun]}\n"
    )
    [(code, line, message)] = _problems(base_pack, tmp_path, text)
    assert (code, line) == ("ACTION-ILLEGAL", 14)
    assert "after passing" not in message


@pytest.mark.parametrize(
    ("given", "line", "says"),
    [
        ("  movement: {red: hospital, blue: 3, green: bank}\n", 8, "3 is no location"),
        ("  movement: {red: hospital, blue: bank, green: bank}\n  deck: [gun, gun, gun, gun]\n", 9, "gun"),
        (
            "  movement: {red: hospital, blue: bank, green: bank}\n"
            "  hands: {blue: [chainsaw], green: [chainsaw]}\n",
            9,
            "chainsaw",
        ),
    ],
    ids=["a memory of the wrong type", "a pile of the game past the copies", "a pile per player past them"],
)
def test_what_given_sets_obeys_the_declarations(
    base_pack: Pack, tmp_path: Path, given: str, line: int, says: str
) -> None:
    """Any part of the state a pack declares may be given by its name, and is checked as a saved
    game's state is: a value of another type, or more copies of a card than the pack holds, is
    `SCENARIO-STATE` on its line."""
    text = MOVING.replace("  movement: {red: hospital}\n", given)
    [(code, found, message)] = _problems(base_pack, tmp_path, text)
    assert (code, found) == ("SCENARIO-STATE", line), message
    assert says in message

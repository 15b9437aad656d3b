"""`coh explain` of verbs and rule parameters: what a modder looks up before changing a rule."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core.cli import main


def _json(runner: CliRunner, *args: str) -> Any:
    result = runner.invoke(main, ["explain", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _users(explained: dict[str, Any]) -> list[str]:
    return [use["in"] for use in explained["used_by"]]


def test_a_verb_of_the_pack_shows_its_signature_and_the_cards_that_call_it(runner: CliRunner) -> None:
    explained = _json(runner, "kill_zombies")
    assert explained["kind"] == "verb"
    assert explained["signature"] == "kill_zombies(n: count, at: location)"
    assert {"shotgun", "molotov_cocktail", "makeshift_bomb", "chainsaw"} <= set(_users(explained))
    shotgun = next(u for u in explained["used_by"] if u["in"] == "shotgun")
    assert shotgun["at"].startswith("content/base/actions.yaml:")


@pytest.mark.parametrize(
    ("name", "kind", "signature_starts", "a_user"),
    [
        ("move_counters", "built-in verb", "move_counters(n: count, kind: counter", "kill_zombies"),
        ("count_of", "built-in selector", "count_of(kind: counter", "zombies"),
        ("action_window", "built-in procedure", "action_window(windows: list[window_name]", None),
    ],
)
def test_a_built_in_shows_its_signature_its_meaning_and_who_calls_it(
    runner: CliRunner, name: str, kind: str, signature_starts: str, a_user: str | None
) -> None:
    explained = _json(runner, name)
    assert explained["kind"] == kind
    assert explained["signature"].startswith(signature_starts)
    assert explained["doc"]
    assert explained["used_by"], f"the base pack calls {name}"
    if a_user is not None:
        assert a_user in _users(explained)


def test_a_rule_parameter_shows_its_value_who_set_it_and_who_reads_it(runner: CliRunner) -> None:
    explained = _json(runner, "param", "zombie_cap")
    assert explained["kind"] == "rule parameter"
    value = next(f for f in explained["fields"] if f["path"] == "value")
    assert value["set_by"] == "base" and value["at"].startswith("content/base/params.yaml:")
    assert _users(explained) == ["room_for_zombies"]


def test_a_rule_parameter_changed_by_an_overlay_says_so(runner: CliRunner) -> None:
    explained = _json(runner, "param", "movement_order", "--rules", "curfew")
    value = next(f for f in explained["fields"] if f["path"] == "value")
    assert value["value"] == "counter_clockwise" and value["set_by"] == "curfew"


def test_a_text_explanation_lists_the_readers(runner: CliRunner) -> None:
    result = runner.invoke(main, ["explain", "param", "window_after_move"])
    assert result.exit_code == 0, result.output
    assert "read by:" in result.output
    assert "move_characters_in_turn_order  (content/base/procedures-movement.yaml:" in result.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["param", "zombie_kap"], "REF-UNDEF", "no rule parameter `zombie_kap` in pack `base`; did you mean"),
        (
            ["kill_zombie"],
            "REF-UNDEF",
            "no entity, section or verb `kill_zombie` in pack `base`; did you mean `kill_zombies`",
        ),
        (["move_counter"], "REF-UNDEF", "did you mean `move_counters`"),
        (["shotgun", "extra"], "USAGE-ARGS", "only `coh explain param NAME` takes a second name"),
    ],
)
def test_what_explain_cannot_find_is_refused_with_a_code(
    runner: CliRunner, args: list[str], code: str, message: str
) -> None:
    result = runner.invoke(main, ["explain", *args])
    assert result.exit_code == 2
    assert code in result.output and message in result.output
    assert "Traceback" not in result.output

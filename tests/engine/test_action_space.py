"""The action space: every answer a ruleset's games can be given, numbered from its declarations.

The completeness check plays random games under every shipped ruleset (each game alone and under
each of its overlays) and asks that every legal answer of every decision has an id; the soak run
plays thousands.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.engine import EngineError, IllegalAction, new_game, rules_for
from coh_core.engine.rng import Rng
from coh_core.engine.space import ActionSpace, action_space
from coh_core.packs import load_pack_checked
from coh_core.packs.answers import answer_forms
from coh_core.packs.model import Pack
from coh_core.packs.overlays import shipped_overlays_of, shipped_packs
from coh_core.resources import content_root

GAMES = [game for game in shipped_packs(content_root(), "base")]
RULESETS = [(game, ()) for game in GAMES] + [
    (game, (overlay,)) for game in GAMES for overlay in shipped_overlays_of(content_root(), game)
]
SEATS = {"base": (3, 4, 5, 6), "zombicide": (1, 2, 3, 4)}


@cache
def _pack(game: str, rules: tuple[str, ...]) -> Pack:
    return load_pack_checked(content_root() / game, rules)


def _legal_answers(
    game: str, rules: tuple[str, ...], seeds: range
) -> Iterator[tuple[str, tuple[object, ...]]]:
    """Every legal answer of every decision of random games (seat counts in turn), with the
    question that offered it."""
    pack = _pack(game, rules)
    seats = SEATS.get(game, (2,))
    for seed in seeds:
        played = new_game(pack, players=seats[seed % len(seats)], seed=seed)
        rng = Rng(seed)
        while not played.over:
            assert played.decision is not None
            for colour in played.waiting:
                legal = played.legal(colour)
                for action in legal:
                    yield played.decision.kind, action
                played.submit(colour, legal[rng.randbelow(len(legal))])


def _unnumbered(game: str, rules: tuple[str, ...], seeds: range) -> dict[tuple[object, ...], str]:
    space = action_space(rules_for(_pack(game, rules)))
    missing: dict[tuple[object, ...], str] = {}
    for kind, action in _legal_answers(game, rules, seeds):
        try:
            assert space.action(space.id_of(action)) == action
        except EngineError:
            missing.setdefault(action, kind)
    return missing


@pytest.mark.parametrize(
    ("game", "rules"), RULESETS, ids=lambda v: "+".join(v) if isinstance(v, tuple) else v
)
def test_every_legal_answer_of_random_games_has_an_id(game: str, rules: tuple[str, ...]) -> None:
    assert _unnumbered(game, rules, range(6)) == {}


@pytest.mark.soak
@pytest.mark.parametrize(
    ("game", "rules"), RULESETS, ids=lambda v: "+".join(v) if isinstance(v, tuple) else v
)
def test_every_legal_answer_of_a_thousand_random_games_has_an_id(game: str, rules: tuple[str, ...]) -> None:
    assert _unnumbered(game, rules, range(1000)) == {}


def test_ids_are_the_same_for_the_same_pack_and_follow_the_declarations() -> None:
    pack = _pack("base", ())
    one, other = ActionSpace(answer_forms(pack)), ActionSpace(answer_forms(_pack("base", ())))
    assert one.actions == other.actions
    assert one.actions[0] == ("pass",)  # the engine's answers first
    assert one.actions[1][0] == "choose"
    gives = [a for a in one.actions if a[0] == "give"]
    assert ("give", "red", "card", "gun") in gives and ("give", "red", "antidote") in gives
    assert len(set(one.actions)) == len(one.actions)


def test_a_card_an_overlay_adds_gets_ids_of_its_own() -> None:
    base = action_space(rules_for(_pack("base", ())))
    mower = action_space(rules_for(_pack("base", ("promo-lawn-mower",))))
    added = set(mower.actions) - set(base.actions)
    assert ("play", "lawn_mower") in added and ("give", "red", "card", "lawn_mower") in added
    assert not set(base.actions) - set(mower.actions)


def test_answers_are_given_their_ids_as_tuples_as_lists_and_from_any_iterable() -> None:
    space = action_space(rules_for(_pack("base", ())))
    answers = list(space.actions[::37])
    expected = [space.id_of(answer) for answer in answers]
    assert expected == sorted(expected) and len(expected) > 10
    assert space.ids(answers) == expected
    assert space.ids([list(answer) for answer in answers]) == expected
    assert space.ids(answer for answer in answers) == expected


def test_ids_masks_and_actions_agree_for_a_decision() -> None:
    game = new_game(_pack("base", ()), players=4, seed=3)
    space = game.space
    colour = game.waiting[0]
    ids = game.legal_ids(colour)
    assert [space.action(i) for i in ids] == game.legal(colour)
    mask = space.mask(game.legal(colour))
    assert len(mask) == len(space) and sum(mask) == len(ids) and all(mask[i] for i in ids)
    answered = len(game.history)
    game.submit_id(colour, ids[-1])
    given = game.history[-1][colour] if len(game.history) > answered else list(game.decision.answers[colour])  # type: ignore[union-attr]
    assert given == list(space.action(ids[-1]))


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda space: space.id_of(("give", "nobody", "card", "gun")), "SPACE-UNKNOWN"),
        (lambda space: space.ids([("pass",), ("give", "nobody", "card", "gun")]), "SPACE-UNKNOWN"),
        (lambda space: space.ids([["pass"], ["give", "nobody", "card", "gun"]]), "SPACE-UNKNOWN"),
        (lambda space: space.action(-1), "SPACE-ID"),
        (lambda space: space.action(10**9), "SPACE-ID"),
        (lambda space: space.action("3"), "SPACE-ID"),
        (lambda space: space.action(None), "SPACE-ID"),
        (lambda space: space.action(True), "SPACE-ID"),
        (lambda space: space.action(2.0), "SPACE-ID"),
    ],
)
def test_an_answer_or_id_outside_the_space_is_refused(call: object, code: str) -> None:
    space = action_space(rules_for(_pack("base", ())))
    with pytest.raises(EngineError) as raised:
        call(space)  # type: ignore[operator]
    assert raised.value.code == code


def test_an_answer_whose_values_cannot_be_listed_is_reported(runner: CliRunner, base_copy: Path) -> None:
    messages = base_copy / "messages.yaml"
    text = messages.read_text(encoding="utf-8")
    listed = "      values: {food: [0, 1, 2, 3, face_down]}\n"
    messages.write_text(text.replace(listed, ""), encoding="utf-8")
    result = runner.invoke(main, ["validate", str(base_copy), "--format", "json"])
    assert result.exit_code == 1
    [problem] = json.loads(result.stdout)["problems"]
    assert problem["code"] == "MSG-ANSWER-VALUES" and "`food`" in problem["message"]
    assert problem["file"].endswith("messages.yaml")
    line = text.replace(listed, "").splitlines()[problem["line"] - 1]
    assert line.strip().startswith("food:")


def test_coh_docs_space_lists_the_ids_and_the_observation_layout(runner: CliRunner) -> None:
    result = runner.invoke(main, ["docs", "space", "--game", "zombicide", "--players", "2"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    space = action_space(rules_for(_pack("zombicide", ())))
    assert [tuple(a) for a in document["actions"]] == list(space.actions)
    assert sum(kind["count"] for kind in document["answers"]) == len(space)
    assert document["observation"]["players"] == ["green", "purple"]
    refused = runner.invoke(main, ["docs", "space", "--game", "zombicide", "--players", "9"])
    assert refused.exit_code == 2 and "GAME-PLAYERS" in refused.output


@pytest.mark.parametrize("ident", [-1, 10**6, None, "2", 1.0])
def test_an_id_that_is_none_is_an_illegal_answer_and_the_game_is_unchanged(ident: object) -> None:
    game = new_game(_pack("base", ()), players=3, seed=2)
    before = game.digest()
    with pytest.raises(IllegalAction) as raised:
        game.submit_id(game.waiting[0], ident)
    assert raised.value.code == "SPACE-ID" and game.digest() == before

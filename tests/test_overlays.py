"""Overlays through the command line: explain, play and replay under rules, refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.engine import rules_for
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.packs.overlays import order_overlays, shipped_overlays_of, shipped_packs
from coh_core.resources import content_root


def _json(runner: CliRunner, *args: str, code: int = 0) -> Any:
    result = runner.invoke(main, [*args, "--format", "json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def _field(explained: dict[str, Any], path: str) -> dict[str, Any]:
    return next(f for f in explained["fields"] if f["path"] == path)


def test_explain_says_which_overlay_set_the_weapon_replica(runner: CliRunner) -> None:
    explained = _json(runner, "explain", "weapon_replica", "--rules", "rulebook-fr")
    assert explained["rules"] == ["rulebook-fr"]
    effect = _field(explained, "effect")
    assert effect["value"].startswith("vote_in_place_of(")
    assert effect["set_by"] == "rulebook-fr" and effect["at"].startswith("content/rulebook-fr/patches.yaml:")
    assert _field(explained, "count") == {
        "path": "count",
        "value": 2,
        "set_by": "base",
        "at": _field(_json(runner, "explain", "weapon_replica"), "count")["at"],
    }
    text = next(t for t in explained["texts"] if t["path"] == "action.weapon_replica.text")
    assert text["set_by"] == "rulebook-fr" and "swap" in text["value"]


def test_explain_without_rules_is_all_base(runner: CliRunner) -> None:
    explained = _json(runner, "explain", "weapon_replica")
    assert {f["set_by"] for f in explained["fields"]} == {"base"}
    assert _field(explained, "effect")["value"].startswith("add_votes(")


def test_lists_after_an_insert_still_point_at_their_own_lines(runner: CliRunner) -> None:
    """Inserting a phase moves the base phases down; each still points at the line it is on."""
    plain = _json(runner, "explain", "turn")
    french = _json(runner, "explain", "turn", "--rules", "rulebook-fr")
    for path in ("phases/movement_selection/id", "phases/location_resolution/steps/zombie_attack/do"):
        assert _field(french, path) == _field(plain, path)
    assert _field(french, "phases/observation/id")["set_by"] == "rulebook-fr"
    phases = [
        f["value"] for f in french["fields"] if f["path"].startswith("phases/") and f["path"].count("/") == 2
    ]
    assert phases[:2] == ["observation", "movement_selection"] and phases[-1] == "first_player_change"


def test_a_game_under_rules_replays_only_under_them(runner: CliRunner, tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    played = _json(runner, "play", "--seed", "3", "--rules", "rulebook-fr", "--log", str(log))
    assert json.loads(log.read_text().splitlines()[0])["rules"] == ["rulebook-fr"]
    refused = runner.invoke(main, ["replay", str(log)])
    assert (
        refused.exit_code == 1
        and "REPLAY-RULES" in refused.output
        and "--rules rulebook-fr" in refused.output
    )
    replayed = _json(runner, "replay", str(log), "--rules", "rulebook-fr")
    assert replayed["ok"] and replayed["digest"] == played["digest"]


def test_rules_change_the_game(runner: CliRunner) -> None:
    plain = _json(runner, "play", "--seed", "3")
    french = _json(runner, "play", "--seed", "3", "--rules", "rulebook-fr")
    assert plain["digest"] != french["digest"]


@pytest.mark.parametrize(
    ("rules", "code"),
    [
        (["rulebook-fr", "rulebook-es"], "OVERLAY-CONFLICTS"),
        (["auction-sharing", "rulebook-fr"], "OVERLAY-CONFLICTS"),
        (["rulebook-fx"], "OVERLAY-UNKNOWN"),
        (["base"], "OVERLAY-KIND"),
    ],
)
def test_rules_that_cannot_be_played_are_refused(runner: CliRunner, rules: list[str], code: str) -> None:
    result = runner.invoke(main, ["play", *(a for r in rules for a in ("--rules", r))])
    assert result.exit_code == 2 and code in result.output, result.output


def test_a_house_rule_adds_a_card_and_counts_it() -> None:
    pack = load_pack_checked(rules=["promo-lawn-mower"])
    assert pack.entity("lawn_mower") is not None
    assert pack.section("components")["action_cards"] == 41


def test_overlays_apply_after_what_they_require_and_say_they_follow() -> None:
    draft = load_pack_checked(rules=["expert-draft"]).overlays[0]
    fr, horde = (load_pack_checked(rules=[r]).overlays[0] for r in ("rulebook-fr", "zombie-horde"))
    horde.manifest = {**horde.manifest, "after": ["expert-draft", "rulebook-fr"]}
    ordered = order_overlays([horde, fr, draft], {"base"})
    assert [o.id for o in ordered] == ["rulebook-fr", "expert-draft", "zombie-horde"]


def _pack_ids(pack: Pack) -> list[str]:
    return [pack.id, *pack.rules_id]


HOUSE_RULES = ["hunger", "curfew", "rescue-helicopter", "zombie-dogs"]
SHIPPED = shipped_overlays_of(content_root(), "base")


@pytest.mark.parametrize(
    "rules",
    [
        ["rulebook-fr", "expert-draft", "promo-lawn-mower", "zombie-horde", "placement-clockwise"],
        ["rulebook-fr", "expert-draft", "promo-lawn-mower", "zombie-horde", *HOUSE_RULES],
        ["rulebook-es", "auction-sharing", "placement-clockwise", *HOUSE_RULES],
    ],
)
def test_shipped_overlays_together(runner: CliRunner, rules: list[str]) -> None:
    pack = load_pack_checked(rules=rules)
    assert sorted(_pack_ids(pack)[1:]) == sorted(rules)
    result = runner.invoke(main, ["play", "--seed", "5", *(a for r in rules for a in ("--rules", r))])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("overlay", "param", "value"),
    [
        ("zombie-horde", "zombie_cap", 10),
        ("expert-draft", "draft", True),
        ("placement-clockwise", "placement_order", "clockwise"),
        ("curfew", "movement_order", "counter_clockwise"),
        ("rulebook-fr", "sharing_tie", "nobody"),
        ("rulebook-fr", "sharing_winner", "take_one_then_distribute"),
    ],
)
def test_an_overlay_changes_a_rule_parameter_with_one_patch(
    runner: CliRunner, overlay: str, param: str, value: Any
) -> None:
    assert rules_for(load_pack_checked(rules=[overlay])).params[param] == value
    field = _field(_json(runner, "explain", "params", "--rules", overlay), f"{param}/value")
    assert field["value"] == value and field["set_by"] == overlay
    assert field["at"].startswith(f"content/{overlay}/patches.yaml:")


def test_parameter_overlays_compose_with_the_french_rules(runner: CliRunner) -> None:
    rules = ["rulebook-fr", "zombie-horde", "expert-draft", "placement-clockwise"]
    args = [arg for overlay in rules for arg in ("--rules", overlay)]
    assert _json(runner, "validate", str(content_root() / "base"), *args)["ok"] is True
    played = _json(runner, "play", "--players", "4", "--seed", "5", *args)
    assert played["result"] is not None


@pytest.mark.parametrize("overlay", SHIPPED)
def test_the_shipped_content_validates_under_each_shipped_overlay(runner: CliRunner, overlay: str) -> None:
    """Every pack of the game the rules build on is checked under them, the other games alone (and
    under their own overlays); an
    overlay that declares a conflict with them (or that they conflict with) is checked under the
    rest of them, as it cannot be played with them."""
    report = _json(runner, "validate", "--rules", overlay)
    assert report["ok"] is True, report["problems"][:3]
    other_games = [game for game in shipped_packs(content_root(), "base") if game != "base"]
    under_their_own = [
        f"{game}+{rules}" for game in other_games for rules in shipped_overlays_of(content_root(), game)
    ]
    assert sorted(p for p in report["packs"] if not p.startswith("base")) == sorted(
        other_games + under_their_own
    )


def test_shipped_packs_are_told_apart_by_their_manifests(tmp_path: Path) -> None:
    """Games by their kind `base`, overlays by `overlay`, each overlay of the game it requires
    (directly or through another overlay); a manifest that is no mapping is neither."""
    manifests = {
        "board": "kind: base",
        "dice": "kind: base",
        "big-board": "kind: overlay\nrequires: [board]",
        "bigger-board": "kind: overlay\nrequires: [big-board]",
        "loaded-dice": "kind: overlay\nrequires: [dice]",
        "lost": "kind: overlay\nrequires: [nowhere]",
        "broken": "[kind, base]",
    }
    for name, manifest in manifests.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "pack.yaml").write_text(f"id: {name}\n{manifest}\n", encoding="utf-8")
    assert shipped_packs(tmp_path, "base") == ["board", "dice"]
    assert shipped_packs(tmp_path, "overlay") == ["big-board", "bigger-board", "loaded-dice", "lost"]
    assert shipped_overlays_of(tmp_path, "board") == ["big-board", "bigger-board"]
    assert shipped_overlays_of(tmp_path, "dice") == ["loaded-dice"]


def test_an_overlay_named_with_rules_it_conflicts_with_is_refused(runner: CliRunner) -> None:
    result = runner.invoke(main, ["validate", str(content_root() / "rulebook-es"), "--rules", "rulebook-fr"])
    assert result.exit_code == 2 and "OVERLAY-CONFLICTS" in result.output, result.output


def test_house_rules_that_add_messages_and_change_the_turn_compose_without_an_order() -> None:
    """Each adds its own messages (merges of different keys); the auction changes a step of a phase
    that the hunger's insert leaves where it is: neither needs to say it comes after the other."""
    overlays = load_pack_checked(rules=["auction-sharing", "hunger", "rescue-helicopter", "curfew"]).overlays
    assert {o.id: o.manifest.get("after", []) for o in overlays} == {
        "auction-sharing": [],
        "hunger": ["rulebook-fr"],  # both insert a phase after the location resolution: an order is needed
        "rescue-helicopter": [],
        "curfew": [],
    }
    french = load_pack_checked(rules=["hunger", "rulebook-fr"])
    assert [o.id for o in french.overlays] == ["rulebook-fr", "hunger"]


def _overlay(root: Path, name: str, files: dict[str, str], texts: str) -> Path:
    """An overlay on the base pack, `name`, with its content files and its English texts."""
    overlay = root / name
    (overlay / "text").mkdir(parents=True)
    (overlay / "pack.yaml").write_text(
        f"id: {name}\nversion: '1.0.0'\nformat: 2\nkind: overlay\nsummary: A test.\n"
        f"requires: [base]\nfiles: [{', '.join(files)}]\n"
    )
    for file_name, text in files.items():
        (overlay / file_name).write_text(text)
    (overlay / "text" / "en.yaml").write_text(f"locale: en\nmessages:\n  pack.{name}.name: {name}\n{texts}")
    return overlay


def _winged_overlay(root: Path, effect: str) -> Path:
    """An overlay that declares a new trait with one patch and gives it with a card."""
    patches = (
        "patches:\n"
        "  - merge: traits\n"
        "    with:\n"
        "      wings: {type: bool, default: false, doc: may fly over the zombies}\n"
        "  - set: action/hideout/effect\n"
        f"    to: {effect}\n"
    )
    texts = (
        "  log.trait_set.wings.true: '{character} grows wings{until}.'\n"
        "  log.trait_set.wings.false: '{character} loses its wings{until}.'\n"
    )
    return _overlay(root, "winged", {"patches.yaml": patches}, texts)


def test_an_overlay_declares_a_trait_with_one_patch(runner: CliRunner, tmp_path: Path) -> None:
    overlay = _winged_overlay(tmp_path, "set_trait(choose(my_characters()), wings, true, until=end_of_turn)")
    pack = load_pack_checked(rules=[str(overlay)])  # translations lacking the new texts do not block
    wings = rules_for(pack).declared.traits["wings"]
    assert (wings.type, wings.default) == ("bool", False)
    field = _field(_json(runner, "explain", "traits", "--rules", str(overlay)), "wings/type")
    assert field["set_by"] == "winged" and "patches.yaml:" in field["at"]


def test_a_declared_trait_types_the_value_it_is_given(runner: CliRunner, tmp_path: Path) -> None:
    overlay = _winged_overlay(tmp_path, "set_trait(choose(my_characters()), wings, 2, until=end_of_turn)")
    report = _json(runner, "validate", str(content_root() / "base"), "--rules", str(overlay), code=1)
    problems = [p for p in report["problems"] if not p["code"].startswith("I18N-")]
    assert [(p["code"], Path(p["file"]).name) for p in problems] == [("EFF-TYPE", "patches.yaml")]
    assert problems[0]["message"] == "`value` of `set_trait` expects a bool, got a number"


def test_an_effect_error_in_a_patch_quotes_the_patch(runner: CliRunner, tmp_path: Path) -> None:
    """The caret line is the overlay's line that the location names, not the patched file's."""
    overlay = _winged_overlay(tmp_path, "set_trait(choose(my_characters()), wings, 2, until=end_of_turn)")
    result = runner.invoke(main, ["validate", str(content_root() / "base"), "--rules", str(overlay)])
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if "EFF-TYPE" in line)
    assert lines[at + 1].strip() == "to: set_trait(choose(my_characters()), wings, 2, until=end_of_turn)"
    assert lines[at + 2].index("^") == lines[at + 1].index("2, until")


def _armed_overlay(root: Path, damage: int = 1, bravery: int = 2, on_hit: str = "draw_cards(1)") -> Path:
    """An overlay that adds a kind of entity (weapons, in a file of its own) and a field to the
    characters, and gives one character a value of it."""
    patches = (
        "patches:\n"
        "  - merge: kinds\n"
        "    with:\n"
        "      weapon:\n"
        "        doc: A weapon lying in the city.\n"
        "        section: weapons\n"
        "        type: weapon\n"
        "        texts: [name]\n"
        "        fields:\n"
        "          damage: {type: count, min: 1, max: 3, required: true, doc: Zombies one shot kills.}\n"
        "          noisy: {type: bool, default: false, doc: Whether a shot draws zombies.}\n"
        "          on_hit: {type: effect, context: card, doc: What a hit does besides the kill.}\n"
        "  - merge: kinds/character/fields\n"
        "    with:\n"
        "      bravery: {type: count, max: 3, doc: How brave the character is.}\n"
        "  - set: character/housewife/bravery\n"
        f"    to: {bravery}\n"
    )
    weapons = f"weapons:\n  - id: rifle\n    damage: 2\n    noisy: true\n    on_hit: {on_hit}\n"
    weapons += f"  - id: crowbar\n    damage: {damage}\n"
    texts = "  weapon.rifle.name: Rifle\n  weapon.crowbar.name: Crowbar\n"
    return _overlay(root, "armed", {"patches.yaml": patches, "weapons.yaml": weapons}, texts)


def test_an_overlay_adds_a_kind_of_entity_and_a_field(runner: CliRunner, tmp_path: Path) -> None:
    overlay = _armed_overlay(tmp_path)
    pack = load_pack_checked(rules=[str(overlay)])
    assert sorted(e.id for e in pack.entities_of("weapon")) == ["crowbar", "rifle"]
    housewife = pack.entity("housewife")
    assert housewife is not None and housewife.data["bravery"] == 2
    schema = _json_text(runner, "schema", "--rules", str(overlay))
    assert list(schema["properties"]["weapons"]["items"]["properties"]) == ["id", "damage", "noisy", "on_hit"]
    assert "bravery" in schema["properties"]["characters"]["items"]["properties"]


def test_the_fields_an_overlay_declares_check_its_values(runner: CliRunner, tmp_path: Path) -> None:
    overlay = _armed_overlay(tmp_path, damage=4, bravery=5)
    report = _json(runner, "validate", str(content_root() / "base"), "--rules", str(overlay), code=1)
    found = sorted((p["code"], Path(p["file"]).name, p["line"]) for p in report["problems"])
    assert found == [
        ("SCHEMA-RANGE", "patches.yaml", _line_of(overlay / "patches.yaml", "    to: 5")),
        ("SCHEMA-RANGE", "weapons.yaml", _line_of(overlay / "weapons.yaml", "    damage: 4")),
    ]


def _line_of(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


def _json_text(runner: CliRunner, *args: str) -> Any:
    result = runner.invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_effects_of_a_new_kind_are_checked_in_their_context(runner: CliRunner, tmp_path: Path) -> None:
    overlay = _armed_overlay(tmp_path, on_hit="draw_crads(1)")
    report = _json(runner, "validate", str(content_root() / "base"), "--rules", str(overlay), code=1)
    found = [(p["code"], Path(p["file"]).name, p["line"]) for p in report["problems"]]
    assert found == [
        ("EFF-UNKNOWN-VERB", "weapons.yaml", _line_of(overlay / "weapons.yaml", "    on_hit: draw_crads(1)"))
    ]


def test_a_new_kind_is_listed_and_shown_by_its_fields(runner: CliRunner, tmp_path: Path) -> None:
    overlay = _armed_overlay(tmp_path)
    listed = runner.invoke(main, ["list", "weapons", "--rules", str(overlay)])
    assert listed.exit_code == 0, listed.output
    rows = [line.split() for line in listed.output.splitlines()]
    assert rows[0] == ["ID", "NAME", "damage", "noisy"]  # the effect is shown by `coh show`
    assert rows[2:] == [["rifle", "Rifle", "2", "true"], ["crowbar", "Crowbar", "1", "false"]]  # a default
    shown = runner.invoke(main, ["show", "rifle", "--rules", str(overlay)])
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[0].startswith("Rifle  (weapon `rifle`, ")
    assert shown.output.splitlines()[2:] == ["  damage: 2", "  noisy: true", "  on_hit: draw_cards(1)"]

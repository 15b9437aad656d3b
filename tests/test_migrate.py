"""`coh migrate`: a pack written for an earlier pack format is rewritten in the current one.

The shipped overlays as they were at three points of coh's history (`tests/old_overlays/`) are
migrated, validated against today's packs and played; the rewrites keep comments and layout and
are what the rules of today's packs say (the ids of the base pack's triggers, its fields'
new places); what cannot be rewritten is named; bad input is a located error, and nothing is
written but what the user named.
"""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.resources import content_root
from tests.long_runs import spread

OLD = Path(__file__).parent / "old_overlays"
CASES = sorted((day.name, overlay.name) for day in OLD.iterdir() if day.is_dir() for overlay in day.iterdir())
GAMES = {"zombicide-hard": "zombicide"}  # the game each overlay builds on, when it is not the base game
# What the migration cannot rewrite: answers whose placeholders are named after nothing they hold
# (a number of food tokens, a kind of card), each left to the author with its own note.
BY_HAND = {("2026-11-23", "auction-sharing"): ["`bid`", "`claim.card`"]}


def _migrated(tmp_path: Path, day: str, overlay: str) -> tuple[Path, str]:
    """The overlay of that day copied (the fixture is never written to) and migrated to a new folder."""
    copy = tmp_path / "old" / overlay
    shutil.copytree(OLD / day / overlay, copy)
    out = tmp_path / "new" / overlay
    result = CliRunner().invoke(main, ["migrate", str(copy), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out, result.output


def _problems(game: str, overlay: Path) -> list[dict[str, object]]:
    """What `coh validate` reports of the game under the overlay (translations aside: the old
    overlays keep their English only)."""
    args = ["validate", str(content_root() / game), "--rules", str(overlay), "--format", "json"]
    result = CliRunner().invoke(main, args)
    found = json.loads(result.stdout)["problems"]
    return [p for p in found if not str(p["code"]).startswith("I18N-")]


@pytest.mark.parametrize(
    ("day", "overlay"), spread([c for c in CASES if c not in BY_HAND], 7, ids=lambda c: "/".join(c))
)
def test_an_old_overlay_migrates_validates_and_plays(tmp_path: Path, day: str, overlay: str) -> None:
    out, said = _migrated(tmp_path, day, overlay)
    assert "MIGRATE-BY-HAND" not in said
    game = GAMES.get(overlay, "base")
    assert _problems(game, out) == []
    args = ["play", "--game", game, "--players", "3", "--seed", "1", "--bots", "random", "--rules", str(out)]
    played = CliRunner().invoke(main, [*args, "--format", "json"])
    assert played.exit_code == 0, played.output[-2000:]


@pytest.mark.parametrize(("day", "overlay"), list(BY_HAND))
def test_what_cannot_be_rewritten_is_named_where_it_stands(tmp_path: Path, day: str, overlay: str) -> None:
    out, said = _migrated(tmp_path, day, overlay)
    by_hand = [line for line in said.splitlines() if "MIGRATE-BY-HAND" in line]
    assert len(by_hand) == len(BY_HAND[(day, overlay)])
    for line, answer in zip(by_hand, BY_HAND[(day, overlay)], strict=True):
        assert answer in line and "patches.yaml:" in line
    # and validating says the same, at the same answers
    assert sorted(str(p["code"]) for p in _problems("base", out)) == ["MSG-ANSWER-VALUES"] * len(by_hand)


@pytest.mark.parametrize("overlay", sorted(o.name for o in (OLD / "2026-11-29").iterdir()))
def test_the_overlays_of_the_day_before_ids_migrate_to_todays(tmp_path: Path, overlay: str) -> None:
    """The shipped overlays were rewritten by hand when ids came: the migration of the old ones
    holds the same data, file by file."""
    out, _ = _migrated(tmp_path, "2026-11-29", overlay)
    shipped = content_root() / overlay
    for path in sorted(p for p in out.rglob("*.yaml") if "text" not in p.relative_to(out).parts):
        relative = path.relative_to(out)
        today = yaml.safe_load((shipped / relative).read_text(encoding="utf-8"))
        assert yaml.safe_load(path.read_text(encoding="utf-8")) == today, relative


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """The lines a rewrite changed, as (old, new) pairs ("" for a line added)."""
    pairs: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines())
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old, new = before.splitlines()[i1:i2], after.splitlines()[j1:j2]
        pairs.extend(
            (old[k] if k < len(old) else "", new[k] if k < len(new) else "")
            for k in range(max(len(old), len(new)))
        )
    return pairs


def test_in_place_the_first_french_rulebook_is_rewritten_line_by_line(tmp_path: Path) -> None:
    """Its triggers by position become the base pack's ids, the sharing vote gets the location
    it has needed since; every other line (its comments too) stays as it was."""
    pack = tmp_path / "rulebook-fr"
    shutil.copytree(OLD / "2026-11-22" / "rulebook-fr", pack)
    before = {name: (pack / name).read_text(encoding="utf-8") for name in ("pack.yaml", "patches.yaml")}
    text = (pack / "text" / "en.yaml").read_bytes()
    result = CliRunner().invoke(main, ["migrate", str(pack), "--in-place"])
    assert result.exit_code == 0, result.output
    patches = (pack / "patches.yaml").read_text(encoding="utf-8")
    assert _changed_lines(before["patches.yaml"], patches) == [
        (
            "  - set: location/water_tower/sides/A/triggers/1/do",
            "  - set: location/water_tower/sides/A/triggers/blow_up/do",
        ),
        (
            "  - set: location/water_tower/sides/B/triggers/1/do",
            "  - set: location/water_tower/sides/B/triggers/blow_up/do",
        ),
        (
            "  - remove: location/water_tower/sides/A/triggers/0",
            "  - remove: location/water_tower/sides/A/triggers/look_out",
        ),
        ("  - remove: turn/triggers/0", "  - remove: turn/triggers/first_player_to_victim"),
        (
            "        sharing_vote(tie=nobody, winner=take_one_then_distribute)",
            "        sharing_vote(tie=nobody, winner=take_one_then_distribute, at=here)",
        ),
    ]
    manifest = (pack / "pack.yaml").read_text(encoding="utf-8")
    assert _changed_lines(before["pack.yaml"], manifest) == [("", "format: 2")]
    assert (pack / "text" / "en.yaml").read_bytes() == text  # what it does not change, it does not write
    again = CliRunner().invoke(main, ["migrate", str(pack), "--check"])
    assert again.exit_code == 0 and "nothing to migrate" in again.output


def test_a_field_the_base_pack_moved_is_patched_where_it_is(tmp_path: Path) -> None:
    """The zombie cap moved from `setup` to the rule parameters (the base pack's `migrate: moved`)."""
    out, said = _migrated(tmp_path, "2026-11-22", "zombie-horde")
    assert "`setup/zombie_cap` is now `params/zombie_cap/value`" in said
    patches = yaml.safe_load((out / "patches.yaml").read_text(encoding="utf-8"))["patches"]
    assert patches == [{"set": "params/zombie_cap/value", "to": 10}]


HOME_MADE = """\
# A house rule of our own, written before ids.
patches:
  - insert: turn/triggers
    item: {event: turn_start, do: no_effect()}
  - insert: turn/triggers
    item:
      event: turn_end   # the second of ours
      do: no_effect()
  - set: turn/triggers/1/do
    to: no_effect()
  - insert: turn/end
    before: 1
    item: {id: last_words, do: no_effect()}
  - set: invasion/two_am_a/moves/0/to
    to: 5
"""


def _home_made(tmp_path: Path, manifest_extra: str = "") -> Path:
    pack = tmp_path / "ours"
    pack.mkdir()
    manifest = f"id: ours\nversion: '0.1.0'\n{manifest_extra}kind: overlay\nrequires: [base]\n"
    manifest += "files: [patches.yaml]\n"
    (pack / "pack.yaml").write_text(manifest, encoding="utf-8")
    (pack / "patches.yaml").write_text(HOME_MADE, encoding="utf-8")
    return pack


def test_triggers_get_ids_and_positions_become_the_names_found_there(tmp_path: Path) -> None:
    pack = _home_made(tmp_path)
    result = CliRunner().invoke(main, ["migrate", str(pack), "--in-place"])
    assert result.exit_code == 0, result.output
    # the base pack's trigger comes first, then ours: the second trigger is the first we added
    assert (pack / "patches.yaml").read_text(encoding="utf-8") == HOME_MADE.replace(
        "{event: turn_start", "{id: on_turn_start, event: turn_start"
    ).replace("      event: turn_end", "      id: on_turn_end\n      event: turn_end").replace(
        "turn/triggers/1/do", "turn/triggers/on_turn_start/do"
    ).replace("before: 1", "before: scoring")
    # the moves of an invasion card have no names: the author sets the whole list
    by_hand = [line for line in result.output.splitlines() if "MIGRATE-BY-HAND" in line]
    assert len(by_hand) == 1 and "patches.yaml:14:" in by_hand[0] and "invasion/two_am_a/moves" in by_hand[0]


def test_check_says_what_would_change_and_writes_nothing(tmp_path: Path) -> None:
    pack = _home_made(tmp_path)
    result = CliRunner().invoke(main, ["migrate", str(pack), "--check"])
    assert result.exit_code == 1 and "needs migrating" in result.output
    assert (pack / "patches.yaml").read_text(encoding="utf-8") == HOME_MADE
    assert sorted(p.name for p in pack.iterdir()) == ["pack.yaml", "patches.yaml"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["-o", "{out}", "--in-place"], "MIGRATE-USAGE"),
        (["-o", "{taken}"], "MIGRATE-OUT"),  # a folder with files in it
        (["-o", "{pack}/copy"], "MIGRATE-OUT"),  # inside the pack
    ],
)
def test_where_to_write_is_refused_before_anything_is_written(
    tmp_path: Path, args: list[str], code: str
) -> None:
    pack = _home_made(tmp_path)
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("ours", encoding="utf-8")
    given = [a.format(out=tmp_path / "out", taken=taken, pack=pack) for a in args]
    result = CliRunner().invoke(main, ["migrate", str(pack), *given])
    assert result.exit_code == 2 and code in result.output, result.output
    assert (pack / "patches.yaml").read_text(encoding="utf-8") == HOME_MADE
    assert not (tmp_path / "out").exists() and not (pack / "copy").exists()
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize(
    ("manifest_extra", "code", "at"),
    [
        ("format: 3\n", "PACK-FORMAT-NEW", "pack.yaml:3:9"),
        ("format: [2\n", "YAML-SYNTAX", "pack.yaml:"),
    ],
)
def test_a_pack_it_cannot_read_is_a_located_problem(
    tmp_path: Path, manifest_extra: str, code: str, at: str
) -> None:
    pack = _home_made(tmp_path, manifest_extra)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["migrate", str(pack), "-o", str(out)])
    assert result.exit_code == 1 and code in result.output and at in result.output, result.output
    assert "Traceback" not in result.output and not out.exists()


def test_a_folder_without_a_pack_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["migrate", str(tmp_path)])
    assert result.exit_code == 2 and "PACK-NOT-FOUND" in result.output


def test_a_shipped_pack_is_already_of_this_format(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["migrate", str(content_root() / "rulebook-fr"), "--check"])
    assert result.exit_code == 0 and "nothing to migrate" in result.output


@pytest.mark.parametrize(
    ("written", "instead", "code", "at"),
    [
        ("files: [patches.yaml]", "files: [patches.yaml, gone.yaml]", "FILE-MISSING", "pack.yaml:5:23"),
        ("requires: [base]", "requires: [base, nowhere]", "MIGRATE-BELOW", "pack.yaml:4:18"),
    ],
)
def test_what_the_manifest_names_and_is_not_there_is_located_in_it(
    tmp_path: Path, written: str, instead: str, code: str, at: str
) -> None:
    pack = _home_made(tmp_path)
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(written, instead), encoding="utf-8")
    result = CliRunner().invoke(main, ["migrate", str(pack), "--in-place"])
    assert result.exit_code == 1 and f"{at}: {code}" in result.output, result.output
    assert (pack / "patches.yaml").read_text(encoding="utf-8") == HOME_MADE

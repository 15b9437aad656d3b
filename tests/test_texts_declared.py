"""Every text play can show is one `coh validate` asks for: an overlay that adds something the game
names, asks, answers or shows, without its English text, is told which text to add and in which
file (TEXT-MISSING, at what needs it); once the text is written there, the overlay is sound (no
TEXT-UNKNOWN). One case per kind of text (docs/modding.md, "Texts a pack must provide")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.resources import content_root

OVERLAY = "extra"
MANIFEST = f"""id: {OVERLAY}
version: "1.0.0"
format: 2
kind: overlay
requires: [base]
languages: [en]
files: [{{files}}]
"""


@dataclass(frozen=True)
class Case:
    """An overlay's files (besides its manifest and English text), and the texts it then needs:
    each text key with the file and the piece of it where the missing text is reported."""

    files: dict[str, str]
    needs: dict[str, tuple[str, str]]
    texts: dict[str, str] = field(default_factory=dict)  # what to write for each (default: a word)


PATCHES = "patches.yaml"
CASES: dict[str, Case] = {
    "the name of a part of the score": Case(
        {
            "verbs.yaml": """verbs:
  - id: score_traitor
    params: {player: player}
    returns: int
    scoreboard: part
    doc: Points for betrayal (none yet).
    do: return 0
"""
        },
        {"log.scoring.score_traitor": ("verbs.yaml", "score_traitor")},
    ),
    "the name and text of a new card": Case(
        {
            "actions.yaml": """actions:
  - id: crowbar
    count: 1
    effect: kill_zombies(1, at=choose(locations_with_zombies()))
""",
            PATCHES: "patches:\n  - add: components/action_cards\n    by: 1\n",
        },
        {
            "action.crowbar.name": ("actions.yaml", "crowbar"),
            "action.crowbar.text": ("actions.yaml", "crowbar"),
        },
    ),
    "the names of a new phase and its step": Case(
        {
            PATCHES: """patches:
  - insert: turn/phases
    after: location_resolution
    item: {id: dusk, steps: [{id: rest, do: "log(dusk_fell)"}]}
  - merge: messages/log
    with: {dusk_fell: {note: Dusk falls.}}
"""
        },
        {
            "phase.dusk.name": (PATCHES, "dusk, steps"),
            "step.dusk.rest.name": (PATCHES, "rest, do"),
            "log.dusk_fell": (PATCHES, "dusk_fell: {"),
        },
    ),
    "the name of a new step at the end of the game": Case(
        {PATCHES: 'patches:\n  - insert: turn/end\n    item: {id: last_words, do: "log(game_over)"}\n'},
        {"step.end.last_words.name": (PATCHES, "last_words, do")},
    ),
    "a piece of log entries": Case(
        {PATCHES: "patches:\n  - merge: messages/parts\n    with: {item.rope: {note: a rope}}\n"},
        {"log.item.rope": (PATCHES, "item.rope")},
    ),
    "a question and its answers": Case(
        {
            PATCHES: """patches:
  - merge: messages/decisions
    with: {betray: {note: Whether the player betrays the group.}}
  - merge: messages/answers
    with: {betray.yes: {note: The player betrays, key_at: 1}}
"""
        },
        {"ui.decision.betray": (PATCHES, "betray:"), "ui.action.betray.yes": (PATCHES, "betray.yes")},
    ),
    "a line of the table": Case(
        {
            PATCHES: """patches:
  - merge: messages/table
    with: {count.fire_markers: {note: The fire markers at a location., params: {count: how many}}}
"""
        },
        {"ui.table.count.fire_markers": (PATCHES, "count.fire_markers")},
        {"ui.table.count.fire_markers": "fire {count}"},
    ),
    "a text of the pack's pages": Case(
        {PATCHES: "patches:\n  - merge: messages/screens\n    with: {banner: {note: A heading.}}\n"},
        {"ui.banner": (PATCHES, "banner:")},
    ),
    "the change of a new trait": Case(
        {
            PATCHES: """patches:
  - merge: traits
    with: {courage: {type: count, default: 0, max: 5, doc: how brave the character is}}
"""
        },
        {"log.trait_set.courage": (PATCHES, "courage:")},
        {"log.trait_set.courage": "{character} has courage {value} {until}"},
    ),
    "a new duration": Case(
        {
            PATCHES: """patches:
  - merge: types/duration/values
    with: {end_of_phase: until the end of the phase}
"""
        },
        {"log.duration.end_of_phase": (PATCHES, "end_of_phase")},
    ),
    "a new timing window": Case(
        {PATCHES: "patches:\n  - merge: windows\n    with: {at_dusk: {doc: at dusk}}\n"},
        {"ui.window.at_dusk": (PATCHES, "at_dusk")},
    ),
    "the overlay's own name": Case({}, {f"pack.{OVERLAY}.name": ("pack.yaml", OVERLAY)}),
}


PATCHES_HEAD = "patches:\n"


def _overlay(root: Path, texts: dict[str, str]) -> Path:
    """One overlay adding what every case adds (their patches in one file), with these texts."""
    files: dict[str, str] = {PATCHES: PATCHES_HEAD}
    for case in CASES.values():
        for name, content in case.files.items():
            files[name] = files[name] + content.removeprefix(PATCHES_HEAD) if name == PATCHES else content
    folder = root / OVERLAY
    lines = [f"  {key}: {json.dumps(text)}" for key, text in texts.items()]
    files.update(
        {
            "pack.yaml": MANIFEST.format(files=", ".join(files)),
            "text/en.yaml": "\n".join(["locale: en", "messages:" if lines else "messages: {}", *lines])
            + "\n",
        }
    )
    for relative, content in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(content, encoding="utf-8")
    return folder


def _validate(overlay: Path) -> tuple[int, list[dict[str, Any]]]:
    args = ["validate", str(content_root() / "base"), "--rules", str(overlay), "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)["problems"]


@pytest.fixture(scope="module")
def without_texts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, list[dict[str, Any]]]:
    """The overlay of every case, without any of the texts they need, and what validation says."""
    overlay = _overlay(tmp_path_factory.mktemp("without"), {})
    return overlay, *_validate(overlay)


def _position(path: Path, piece: str) -> tuple[int, int]:
    text = path.read_text(encoding="utf-8")
    assert text.count(piece) == 1, f"`{piece}` is not one place of {path.name}"
    index = text.index(piece)
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def test_the_overlay_without_texts_has_no_other_problem(
    without_texts: tuple[Path, int, list[dict[str, Any]]],
) -> None:
    _, code, problems = without_texts
    assert code == 1
    assert [p for p in problems if p["code"] != "TEXT-MISSING"] == []
    wanted = sorted(key for case in CASES.values() for key in case.needs)
    assert sorted(p["message"].split("`")[1] for p in problems) == wanted


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_a_missing_text_is_reported_where_it_is_needed_with_the_file_to_add_it_to(
    case: Case, without_texts: tuple[Path, int, list[dict[str, Any]]]
) -> None:
    overlay, _, problems = without_texts
    found = {p["message"].split("`")[1]: p for p in problems if p["code"] == "TEXT-MISSING"}
    for key, (file, piece) in case.needs.items():
        problem = found[key]
        assert Path(problem["file"]).resolve() == (overlay / file).resolve()
        assert (problem["line"], problem["col"]) == _position(overlay / file, piece)
        wanted = f"add `{key}: ...` under `messages:` in {overlay / 'text' / 'en.yaml'}"
        assert wanted in problem["message"]


def test_the_texts_written_where_they_were_asked_for_are_accepted(tmp_path: Path) -> None:
    texts = {key: case.texts.get(key, "words") for case in CASES.values() for key in case.needs}
    assert _validate(_overlay(tmp_path, texts)) == (0, [])


# A text nothing asks for, and where TEXT-UNKNOWN says such a text belongs.
STRAY: dict[str, str] = {
    "log.scoring.score_game": "mark the verb `score_game` `scoreboard: part`",
    "log.scoring.traitor": "`traitor` is no verb of the pack",
    "log.dusk_falls": "under `log` (an entry `log(...)` writes) or `parts` (a piece of one) as `dusk_falls`",
    "ui.decision.betray_all": "under `decisions` as `betray_all`",
    "ui.action.betray_all": "under `answers` as `betray_all`",
    "ui.table.count.bones": "under `table` as `count.bones`",
    "ui.credits": "under `screens` as `credits`",
    "character.nobody.name": "the pack has no `character` `nobody`",
    "character.granny.nickname": "the character `granny`, whose kind does not ask for `nickname`",
    "phase.night.name": "the phase `night`, which is no phase of the `turn`",
    "tie_break.money.name": "the tie-break `money`, which `result: tie_breaks` does not declare",
    "log.trait_set.wings.true": "the trait `wings`, which is declared in no `traits`",
}


def test_a_text_nothing_asks_for_says_where_such_a_text_belongs(tmp_path: Path) -> None:
    texts = {key: case.texts.get(key, "words") for case in CASES.values() for key in case.needs}
    overlay = _overlay(tmp_path, {**texts, **dict.fromkeys(STRAY, "words")})
    code, problems = _validate(overlay)
    assert code == 1
    said = {p["message"].split("`")[1]: p["message"] for p in problems if p["code"] == "TEXT-UNKNOWN"}
    assert sorted(said) == sorted(STRAY)
    for key, belongs in STRAY.items():
        assert belongs in said[key]

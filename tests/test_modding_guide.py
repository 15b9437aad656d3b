"""The modding guide (docs/modding.md) is real: its example packs validate after each section,
their scenarios pass (and fail without the pack), they play whole games (the overlays under City
of Horror, the game of its own at each number of players it seats), the combinations of
overlays it describes do what it says, what it quotes from the shipped packs is in them, the
console output it shows is what coh prints, and the procedure reference it points to
(docs/procedures.md) is the one `coh docs procedures` writes."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from long_runs import spread

from coh_core.cli import main
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.packs.procedures_doc import generate_procedures

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "modding.md"

# A fenced block opens with ```yaml and a tag: `file=PACK/PATH` (a whole file of an example
# pack) or `from=PATH` (an excerpt of a shipped file, quoted word for word).
_FENCE = re.compile(r"^```yaml(?P<info>[^\n]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
_SECTION = re.compile(r"^## ", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    section: int  # the number of the guide's `## ` section it is in
    line: int
    tag: str  # "file" or "from"
    path: str
    body: str


def _blocks() -> list[Block]:
    text = GUIDE.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        start = match.start()
        line = text.count("\n", 0, start) + 1
        tag = re.fullmatch(r"\s+(file|from)=(\S+)\s*", match["info"])
        assert tag, f"docs/modding.md:{line}: a YAML block needs `file=PACK/PATH` or `from=PATH`"
        section = len(_SECTION.findall(text, 0, start))
        found.append(Block(section, line, tag[1], tag[2], match["body"]))
    return found


def _example_packs(blocks: list[Block]) -> list[str]:
    return list(dict.fromkeys(b.path.split("/")[0] for b in blocks if b.tag == "file"))


@dataclass(frozen=True)
class Validation:
    """`coh validate --format json` on one example pack at the end of one section."""

    pack: str
    section: int
    exit_code: int
    report: dict[str, Any]


@dataclass(frozen=True)
class Examples:
    folder: Path  # the example packs as the guide leaves them
    validations: list[Validation]


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Examples:
    """Every example pack written out as the guide builds it, and validated at the end of each
    section that changes it."""
    folder = tmp_path_factory.mktemp("modding")
    blocks = [b for b in _blocks() if b.tag == "file"]
    validations = []
    for section in sorted({b.section for b in blocks}):
        touched = []
        for block in (b for b in blocks if b.section == section):
            target = folder / block.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
            touched.append(block.path.split("/")[0])
        for pack in dict.fromkeys(touched):
            result = CliRunner().invoke(main, ["validate", str(folder / pack), "--format", "json"])
            validations.append(Validation(pack, section, result.exit_code, json.loads(result.output)))
    return Examples(folder, validations)


def test_every_yaml_block_is_tagged() -> None:
    blocks = _blocks()
    assert len([b for b in blocks if b.tag == "file"]) >= 15
    assert len(_example_packs(blocks)) >= 4


def test_each_example_pack_validates_clean_after_every_section(examples: Examples) -> None:
    assert {v.pack for v in examples.validations} == set(_example_packs(_blocks()))
    for validation in examples.validations:
        where = f"{validation.pack} after section {validation.section} of docs/modding.md"
        assert validation.exit_code == 0, f"{where}: {validation.report['problems']}"
        assert validation.report["ok"] and validation.report["warnings"] == [], (
            f"{where}: {validation.report}"
        )


def test_the_example_packs_scenarios_pass(examples: Examples) -> None:
    with_scenarios = [p for p in _example_packs(_blocks()) if (examples.folder / p / "scenarios").is_dir()]
    assert len(with_scenarios) >= 3
    for pack in with_scenarios:
        folder = str(examples.folder / pack)
        result = CliRunner().invoke(main, ["scenario", "run", folder, "--format", "json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert report["ok"] and len(report["scenarios"]) >= 2, report


def test_the_example_scenarios_fail_without_their_pack(examples: Examples, tmp_path: Path) -> None:
    """Each scenario tests what its pack changes: under the base game's rules alone it fails
    (or cannot start: a card, a counter or a phase of the pack)."""
    scenarios = sorted(examples.folder.glob("*/scenarios/*.yaml"))
    assert len(scenarios) >= 6
    for scenario in scenarios:
        alone = tmp_path / f"{scenario.parent.parent.name}-{scenario.name}"
        alone.write_text(scenario.read_text(encoding="utf-8"), encoding="utf-8")
        result = CliRunner().invoke(main, ["scenario", "run", str(alone)])
        assert result.exit_code == 1, f"{scenario} passes under the base rules:\n{result.output}"


def test_quoted_excerpts_are_in_the_shipped_files() -> None:
    quoted = [b for b in _blocks() if b.tag == "from"]
    assert quoted
    for block in quoted:
        shipped = (ROOT / block.path).read_text(encoding="utf-8")
        assert block.body in shipped, f"docs/modding.md:{block.line}: not word for word in {block.path}"


def test_procedure_reference_is_up_to_date(base_pack: Pack) -> None:
    committed = (ROOT / "docs" / "procedures.md").read_text(encoding="utf-8")
    assert committed == generate_procedures(base_pack), "run `coh docs procedures -o docs/procedures.md`"


def test_procedure_reference_lists_every_step_and_verb(base_pack: Pack) -> None:
    text = generate_procedures(base_pack)
    turn = base_pack.section("turn")
    for phase in turn["phases"]:
        for step in phase["steps"]:
            assert f"`turn/phases/{phase['id']}/steps/{step['id']}`" in text
    for step in [*turn["setup"], *turn["end"]]:
        assert f"/{step['id']}` |" in text
    for verb in base_pack.entities_of("verb"):
        assert f"| `{verb.id}(" in text


@pytest.mark.parametrize(
    ("verb", "reads"),
    [
        # param(zombie_cap) is read by room_for_zombies, which place_zombies calls
        ("place_zombies", "`zombie_cap` via `room_for_zombies`"),
        ("room_for_zombies", "`zombie_cap` |"),
        ("kill_zombies", "| - |"),
    ],
)
def test_procedure_reference_follows_calls_to_the_params(base_pack: Pack, verb: str, reads: str) -> None:
    line = next(x for x in generate_procedures(base_pack).splitlines() if x.startswith(f"| `{verb}("))
    assert line.endswith(reads) or reads in line


def test_procedure_reference_under_an_overlay_has_its_phase(runner: CliRunner) -> None:
    result = runner.invoke(main, ["docs", "procedures", "--rules", "hunger"])
    assert result.exit_code == 0, result.output
    assert "| `turn/phases/hunger/steps/eat` | Feed the groups | `hunger` |" in result.output
    assert "## hunger/verbs.yaml" in result.output


# What section 11 (and sections 7 and 8) say of playing the example packs with others:
# (command with {dir} for the examples' folder, exit code, codes the output must hold).
_COMBINATIONS = [
    (["validate", "{dir}/my-rules", "--rules", "hunger", "--rules", "rulebook-fr"], 0, []),
    (["validate", "{dir}/nightfall", "--rules", "hunger", "--rules", "rulebook-fr"], 0, []),
    (["play", "--rules", "{dir}/barricades", "--rules", "zombie-dogs"], 2, ["OVERLAY-CONFLICTS"]),
    (
        ["validate", "{dir}/barricades", "--rules", "{dir}/my-rules"],
        1,
        ["OVERLAY-CONFLICT", "COUNT-MISMATCH"],
    ),
    (["validate", "{dir}/my-rules", "--rules", "promo-lawn-mower"], 1, ["OVERLAY-CONFLICT"]),
]


@pytest.mark.parametrize(("args", "code", "problems"), _COMBINATIONS)
def test_combinations_the_guide_describes(
    examples: Examples, args: list[str], code: int, problems: list[str]
) -> None:
    folder = str(examples.folder)
    result = CliRunner().invoke(main, [a.replace("{dir}", folder) for a in args])
    assert result.exit_code == code, result.output
    assert all(p in result.output for p in problems), result.output


def test_without_after_nightfall_and_hunger_still_combine(examples: Examples, tmp_path: Path) -> None:
    """Section 8: two overlays that each add a phase of their own combine without `after`
    (which only fixes the order of their phases)."""
    copy = tmp_path / "nightfall"
    shutil.copytree(examples.folder / "nightfall", copy)
    manifest = copy / "pack.yaml"
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    manifest.write_text("".join(x for x in lines if not x.startswith("after:")), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(copy), "--rules", "hunger"])
    assert result.exit_code == 0 and "OVERLAY-CONFLICT" not in result.output, result.output


def _examples_of_kind(examples: Examples, kind: str) -> list[str]:
    """The example packs whose manifest has this `kind` (`overlay`, or `base` for a game of its own)."""
    return [
        pack
        for pack in _example_packs(_blocks())
        if yaml.safe_load((examples.folder / pack / "pack.yaml").read_text(encoding="utf-8"))["kind"] == kind
    ]


@pytest.mark.parametrize("players", spread([3, 6], every=2))
def test_each_example_overlay_plays_a_whole_game(examples: Examples, players: int) -> None:
    overlays = _examples_of_kind(examples, "overlay")
    assert len(overlays) >= 3
    for pack in overlays:
        rules = ["--rules", str(examples.folder / pack)]
        args = ["play", "--players", str(players), "--seed", "1", "--bots", "random", *rules]
        result = CliRunner().invoke(main, [*args, "--format", "json"])
        assert result.exit_code == 0, f"{pack}: {result.output[-2000:]}"


def test_the_example_game_plays_to_a_team_result_at_every_number_of_players(examples: Examples) -> None:
    """Section 12's game of its own: seeded games of random bots at each number of players its
    setup allows end with exit 0 and the team's result."""
    games = _examples_of_kind(examples, "base")
    assert games
    for pack in games:
        seats = load_pack_checked(examples.folder / pack).section("setup")["players"]
        for players in range(seats["min"], seats["max"] + 1):
            for seed in range(1, 11):
                args = ["play", "--pack", str(examples.folder / pack), "--players", str(players)]
                result = CliRunner().invoke(
                    main, [*args, "--seed", str(seed), "--bots", "random", "--format", "json"]
                )
                assert result.exit_code == 0, f"{pack} {players} {seed}: {result.output[-2000:]}"
                assert json.loads(result.output)["result"]["kind"] == "team", result.output


# A console block: `$ command` lines, each followed by the output it shows (`…` elides a part).
_CONSOLE = re.compile(r"^```console\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Shown:
    section: int
    line: int
    command: list[str]
    output: list[str]


def _shown_commands() -> list[Shown]:
    """The commands of the console blocks that can be run as shown: a plain `coh ...` (no
    comment saying the files differ, no shell) followed by its output."""
    text = GUIDE.read_text(encoding="utf-8")
    found = []
    for match in _CONSOLE.finditer(text):
        section = len(_SECTION.findall(text, 0, match.start()))
        first = text.count("\n", 0, match.start()) + 2
        lines = match["body"].splitlines()
        starts = [i for i, x in enumerate(lines) if x.startswith("$ ")] + [len(lines)]
        for start, end in pairwise(starts):
            command = lines[start][2:]
            if command.startswith("coh ") and not any(c in command for c in "#&|>") and end > start + 1:
                found.append(Shown(section, first + start, command.split()[1:], lines[start + 1 : end]))
    return found


def _matches(shown: str, actual: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in shown.split("…"))
    return re.fullmatch(pattern, actual) is not None


def test_console_output_the_guide_shows_is_what_coh_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = _shown_commands()
    assert len(shown) >= 3
    blocks = [b for b in _blocks() if b.tag == "file"]
    for example in shown:
        folder = tmp_path / f"section-{example.section}-line-{example.line}"
        for block in (b for b in blocks if b.section <= example.section):
            (folder / block.path).parent.mkdir(parents=True, exist_ok=True)
            (folder / block.path).write_text(block.body, encoding="utf-8")
        monkeypatch.chdir(folder)
        printed = CliRunner().invoke(main, example.command).output.splitlines()
        where = f"docs/modding.md:{example.line}: coh {' '.join(example.command)}"
        assert len(printed) == len(example.output), f"{where}\n" + "\n".join(printed)
        for expected, actual in zip(example.output, printed, strict=True):
            assert _matches(expected, actual), f"{where}\nexpected: {expected}\nprinted:  {actual}"

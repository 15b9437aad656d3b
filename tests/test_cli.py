"""The command line contract: output, formats and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from coh_core.cli import main
from coh_core.packs import load_pack_checked
from coh_core.resources import content_root


def test_validate_builtin_content_is_clean(runner: CliRunner) -> None:
    result = runner.invoke(main, ["validate"])
    assert result.exit_code == 0, result.output
    summary = result.output.strip().splitlines()[-1]
    shipped = len(list(content_root().glob("*/pack.yaml")))  # the base game and its overlays
    assert shipped > 1 and summary.startswith(f"ok: {shipped} packs, ")
    assert "entities" in summary and "effects" in summary and "files" in summary


def test_validate_json_is_one_document(runner: CliRunner) -> None:
    result = runner.invoke(main, ["validate", str(content_root() / "base"), "--format", "json"])
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert document["packs"] == ["base"]
    assert document["ok"] is True and document["problems"] == []
    # 21 characters + 18 action kinds + 6 locations + 20 invasion cards + 6 colours, and the verbs
    # the pack defines (its procedures)
    verbs = len(load_pack_checked().entities_of("verb"))
    assert verbs > 0 and document["entities"] == 71 + verbs and document["effects"] > 100


def test_validate_missing_path_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["validate", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "IO-MISSING" in result.output
    assert "Traceback" not in result.output


def test_validate_directory_without_pack(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    assert "PACK-NOT-FOUND" in result.output


def test_validate_reports_problems_with_exit_1(runner: CliRunner, base_copy: Path) -> None:
    characters = base_copy / "characters.yaml"
    characters.write_text(
        characters.read_text().replace("kill_zombies(2, at=here)", "kil_zombies(2, at=here)", 1)
    )
    result = runner.invoke(main, ["validate", str(base_copy), "--format", "json"])
    assert result.exit_code == 1
    problems = json.loads(result.output)["problems"]
    assert [p["code"] for p in problems] == ["EFF-UNKNOWN-VERB"]
    assert set(problems[0]) == {"file", "line", "col", "code", "message"}


def test_list_actions_json(runner: CliRunner) -> None:
    result = runner.invoke(main, ["list", "actions", "--format", "json"])
    assert result.exit_code == 0
    actions = json.loads(result.output)
    assert len(actions) == 18
    assert sum(a["count"] for a in actions) == 40
    assert all(a["name"] and a["text"]["text"] for a in actions)


def test_list_characters_table(runner: CliRunner) -> None:
    result = runner.invoke(main, ["list", "characters"])
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert lines[0].split()[:2] == ["ID", "NAME"]
    assert lines[-1] == "21 characters"
    assert any(line.startswith("blonde ") for line in lines)


def test_list_locations_json_has_sides_and_states(runner: CliRunner) -> None:
    result = runner.invoke(main, ["list", "locations", "--format", "json"])
    locations = {loc["id"]: loc for loc in json.loads(result.output)}
    assert len(locations) == 6
    tower = [s["side"] for s in locations["water_tower"]["sides"]]
    assert tower == ["A", "B", "collapsed"]


def test_list_invasions(runner: CliRunner) -> None:
    result = runner.invoke(main, ["list", "invasions", "--format", "json"])
    cards = json.loads(result.output)
    assert len(cards) == 20
    assert {c["provenance"] for c in cards} <= {"invented", "rulebook_example", "printed"}


def test_list_unknown_kind_is_usage_error(runner: CliRunner) -> None:
    result = runner.invoke(main, ["list", "zombies"])
    assert result.exit_code == 2


def test_show_prints_text_numbers_and_effects(runner: CliRunner) -> None:
    result = runner.invoke(main, ["show", "chainsaw"])
    assert result.exit_code == 0, result.output
    assert "Chainsaw" in result.output
    assert "let target = choose(locations_with_zombies(2))" in result.output
    assert "kill_zombies(zombies(target) // 2, at=target)" in result.output


def test_show_location_lists_every_side(runner: CliRunner) -> None:
    result = runner.invoke(main, ["show", "armory", "--format", "json"])
    record = json.loads(result.output)
    assert {"side A attack_if", "side burnt attack_if", "side blocked activation effect"} <= set(
        record["effects"]
    )


def test_show_unknown_id_suggests(runner: CliRunner) -> None:
    result = runner.invoke(main, ["show", "shotgn"])
    assert result.exit_code == 2
    assert "did you mean `shotgun`?" in result.output


def test_no_colour_when_not_a_terminal(runner: CliRunner) -> None:
    result = runner.invoke(main, ["validate"])
    assert "\x1b[" not in result.output


def test_validate_accepts_a_file_inside_a_pack(runner: CliRunner) -> None:
    from coh_core.resources import content_root

    result = runner.invoke(main, ["validate", str(content_root() / "base" / "characters.yaml")])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: 1 pack, ")


def test_validate_accepts_a_folder_of_packs(runner: CliRunner) -> None:
    from coh_core.resources import content_root

    result = runner.invoke(main, ["validate", str(content_root())])
    assert result.exit_code == 0, result.output


def test_validate_json_usage_error_is_still_one_document(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["validate", str(tmp_path / "nope"), "--format", "json"])
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert [p["code"] for p in document["problems"]] == ["IO-MISSING"]


@pytest.mark.parametrize("game", ["base", "zombicide"])
def test_a_shipped_game_is_named_with_game_as_its_folder_with_pack(runner: CliRunner, game: str) -> None:
    args = ["play", "--players", "3", "--bots", "random", "--seed", "3", "--format", "json"]
    named = runner.invoke(main, [*args, "--game", game])
    assert named.exit_code == 0, named.output
    folder = runner.invoke(main, [*args, "--pack", str(content_root() / game)])
    assert json.loads(named.stdout)["digest"] == json.loads(folder.stdout)["digest"]


# --- arguments refused before anything is done, and Ctrl-C ---------------------------------------

# (the command line, the code, the exit code)
REFUSED_ARGUMENTS = [
    (["play", "--seed", str(2**70)], "USAGE-SEED", 2),  # `coh replay` could not read its log
    (["play", "--seed", str(-(2**63) - 1)], "USAGE-SEED", 2),
    (["play", "--pack", "/no/such/pack"], "IO-MISSING", 2),
    (["replay", "--pack", "/no/such/pack", "game.jsonl"], "IO-MISSING", 2),
    (["play", "--game", "no-such-game"], "USAGE-GAME", 2),
    (["play", "--game", "zombicide", "--pack", "content/base"], "USAGE-GAME", 2),
    (["list", "--pack", "content/base", "--game", "zombicide", "zone"], "USAGE-GAME", 2),
]


@pytest.mark.parametrize(("args", "code", "exit_code"), REFUSED_ARGUMENTS)
def test_a_bad_argument_is_refused_with_its_code(
    runner: CliRunner, args: list[str], code: str, exit_code: int
) -> None:
    result = runner.invoke(main, args)
    assert result.exit_code == exit_code, result.output
    assert f" {code} " in f" {result.output}" and "Traceback" not in result.output


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_ctrl_c_in_any_command_exits_130_with_one_line(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    import coh_core.packs

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(coh_core.packs, "check_pack", interrupted)
    result = runner.invoke(main, ["validate", "--format", fmt])
    assert result.exit_code == 130
    assert result.stderr.splitlines()[-1] == "INTERRUPTED interrupted before the command ended"
    assert "Aborted!" not in result.output
    if fmt == "json":
        assert json.loads(result.stdout)["problems"][0]["code"] == "INTERRUPTED"
    else:
        assert result.stdout == ""


def test_ctrl_c_while_the_command_loads_exits_130(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    import builtins
    import sys

    from coh_core import entry

    real_import = builtins.__import__

    def slow_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "coh_core.cli":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "coh_core.cli")
    monkeypatch.setattr(builtins, "__import__", slow_import)
    with pytest.raises(SystemExit) as stopped:
        entry.run()
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "\nINTERRUPTED interrupted before the command began\n"


def test_plays_help_tells_where_the_player_range_is_and_every_built_in_language(base_pack: Any) -> None:
    """`--players` is bounded by the game's setup (not a fixed range), and `--lang` names every
    language the built-in content speaks (without loading a pack for `--help`)."""
    result = CliRunner().invoke(main, ["play", "--help"], terminal_width=200)
    assert result.exit_code == 0
    shown = " ".join(result.output.split())  # (the help's lines joined)
    assert "coh explain setup" in shown and "1<=x<=12" not in shown
    assert ", ".join(base_pack.locales()) in shown


def test_version_is_the_installed_distributions(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    installed = {"coh-engine": "7.8.9", "coh": "0.1.3"}  # `coh` on the package index is another project
    monkeypatch.setattr(importlib.metadata, "version", lambda name: installed[name])
    result = runner.invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output == "coh, version 7.8.9\n"


def test_version_of_a_checkout_never_installed_is_its_packages_and_says_so(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.metadata

    import coh_core

    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    result = runner.invoke(main, ["--version", "play"])  # before any command, which does not run
    checkout = Path(coh_core.__file__).resolve().parent.parent
    assert result.exit_code == 0
    assert result.output == f"coh, version {coh_core.__version__} (not installed: run from {checkout})\n"


def test_an_installed_coh_has_the_packages_version() -> None:
    """The wheel's version is coh_core.__version__ (pyproject.toml takes it from there)."""
    import importlib.metadata

    import coh_core

    try:
        installed = importlib.metadata.version("coh-engine")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("coh-engine is not installed here (a checkout run in place)")
    assert installed == coh_core.__version__

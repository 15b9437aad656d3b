"""The compiled build (mypyc, `COH_COMPILE=1 pip install .`) plays the same games as pure Python.

Both sides run in child processes of the interpreter that has the compiled build installed: once
on the installed (compiled) package, once with this checkout's sources first on the path. They
play the same seeded games (random agents, a fork and a save-and-load on the way), a game under each
overlay the base pack ships, the same `coh play` narratives and the same games of the heuristic and
expert bots (compiled too), and must agree on every digest, decision, view and line; the compiled
build also passes every rules scenario and the generator's tests (its draws run on native 64-bit
integers). Skipped, saying why, where no compiled build is installed (a failure instead with
COH_REQUIRE_COMPILED=1, as in CI); `COH_COMPILED_PYTHON` names another interpreter to check.

Run directly (`python tests/test_compiled.py`), this file plays the games and prints them as JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from coh_core.agents.runner import ask

if TYPE_CHECKING:
    from coh_core.engine import Game

ROOT = Path(__file__).resolve().parent.parent
GAMES = 30  # seeded 4-player games of random agents
PLAYERS = 4
FORK_AT = 100  # the game goes on as its fork from this decision on
RELOAD_AT = 200  # and as the game saved and loaded again from this one
NARRATIVES = [(players, seed) for players in (3, 4, 5, 6) for seed in (1, 2)]
# Games of the bots (compiled too): `coh play`'s options and the game of each, as JSON
BOT_GAMES = [
    ["--players", "4", "--seed", "1", "--bots", "heuristic"],
    ["--players", "5", "--seed", "2", "--bots", "heuristic"],
    ["--game", "zombicide", "--players", "3", "--seed", "1", "--bots", "heuristic"],
    ["--players", "4", "--seed", "3", "--bots", "expert", "--expert-iterations", "8"],
]
OVERLAY_PLAYERS = 5  # each overlay's game (their rules reach code the base game's do not)
SCENARIOS = ROOT / "tests" / "scenarios"


def _sha(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def play_games() -> dict[str, Any]:
    """What this process's coh makes of the games above (run in the child processes)."""
    from click.testing import CliRunner

    from coh_core import load_ruleset
    from coh_core.build_info import build_kind
    from coh_core.cli import main
    from coh_core.engine import Game, new_game

    ruleset = load_ruleset()
    games: dict[str, Any] = {}
    for overlay in _overlays():
        games[overlay] = _overlay_game(overlay)
    views: list[Any] = []  # what the players see (the views' JSON) at the fork and at the end

    def fork_then_reload(game: Game, decisions: int) -> Game:
        if decisions == FORK_AT:
            views.extend(game.view(c).to_json() for c in game.players)
            return game.fork()
        return Game.from_json(game.rules, game.to_json()) if decisions == RELOAD_AT else game

    for seed in range(1, GAMES + 1):
        views.clear()
        game, decisions = _play_out(
            new_game(ruleset, players=PLAYERS, seed=seed), seed * 1000, fork_then_reload
        )
        games[str(seed)] = {
            "digest": game.digest(),
            "decisions": decisions,
            "history": _sha(game.history),
            "log": _sha(game.log),
            "views": _sha(views + [game.view(c).to_json() for c in game.players]),
        }
    narratives = {}
    for players, seed in NARRATIVES:
        result = CliRunner().invoke(main, ["play", "--players", str(players), "--seed", str(seed)])
        narratives[f"{players}p seed {seed}"] = {"exit": result.exit_code, "text": result.output}
    for options in BOT_GAMES:
        result = CliRunner().invoke(main, ["play", *options, "--format", "json"])
        narratives[" ".join(options)] = {"exit": result.exit_code, "text": _sha(result.output)}
    import coh_core.engine.game as game_module

    return {
        "build": build_kind(),
        "game_module": str(game_module.__file__),
        "games": games,
        "narratives": narratives,
    }


def _overlays() -> list[str]:
    """The overlays of the base pack shipped beside it (each a folder of `content` whose pack.yaml
    is of kind `overlay` and requires `base`; read here, as either side's coh may be another)."""
    import yaml

    manifests = {
        p.parent.name: yaml.safe_load(p.read_text(encoding="utf-8"))
        for p in (ROOT / "content").glob("*/pack.yaml")
    }
    return sorted(
        n for n, m in manifests.items() if m.get("kind") == "overlay" and "base" in m.get("requires", [])
    )


def _play_out(game: Game, agents_seed: int, then: Callable[[Game, int], Game]) -> tuple[Game, int]:
    """The game played to its end by random agents (seeded from `agents_seed`, one per seat); after
    each answer, `then(game, answers so far)` gives the game to go on with. The game and its count."""
    from coh_core.agents import RandomAgent

    agents = {colour: RandomAgent(seed=agents_seed + i) for i, colour in enumerate(game.players)}
    decisions = 0
    while not game.over:
        decision = game.decision
        assert decision is not None
        for colour in decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
            decisions += 1
            game = then(game, decisions)
    return game, decisions


def _overlay_game(overlay: str) -> dict[str, Any]:
    """One seeded game of random agents under an overlay, saved and loaded halfway."""
    from coh_core.engine import Game, new_game
    from coh_core.packs import load_pack_checked

    def reload(game: Game, decisions: int) -> Game:
        return Game.from_json(game.rules, game.to_json()) if decisions == FORK_AT else game

    start = new_game(load_pack_checked(None, (overlay,)), players=OVERLAY_PLAYERS, seed=7)
    game, decisions = _play_out(start, 70, reload)
    return {"digest": game.digest(), "decisions": decisions, "log": _sha(game.log)}


def _compiled_python() -> str:
    return os.environ.get("COH_COMPILED_PYTHON") or sys.executable


def _run(python: str, *, sources: bool, cwd: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """Run python with the installed coh, or with this checkout's sources first (`sources`)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["COH_LANG"] = "en"
    if sources:
        env["PYTHONPATH"] = str(ROOT)
    # -P: neither the working directory nor the script's own is put first on the path.
    return subprocess.run(
        [python, "-P", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def _installed_kind(python: str, cwd: Path) -> str:
    done = _run(
        python, sources=False, cwd=cwd, args=["-c", "import coh_core.build_info as b; print(b.build_kind())"]
    )
    return done.stdout.strip() if done.returncode == 0 else f"no coh installed ({done.stderr.strip()[-200:]})"


def _require_compiled(cwd: Path) -> str:
    """The interpreter with the compiled build; the test is skipped, saying why, when it has none
    (failed instead when COH_REQUIRE_COMPILED is set, as in CI)."""
    python = _compiled_python()
    kind = _installed_kind(python, cwd)
    if kind != "compiled (mypyc)":
        missing = f"no compiled build installed for {python} (it has: {kind})"
        if os.environ.get("COH_REQUIRE_COMPILED"):
            pytest.fail(f"{missing}, and COH_REQUIRE_COMPILED is set")
        pytest.skip(f"{missing}; build one with `COH_COMPILE=1 pip install .` or set COH_COMPILED_PYTHON")
    return python


def _played(python: str, *, sources: bool, cwd: Path) -> dict[str, Any]:
    done = _run(python, sources=sources, cwd=cwd, args=[str(Path(__file__).resolve())])
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_compiled_build_plays_the_same_games_as_pure_python(tmp_path: Path) -> None:
    python = _require_compiled(tmp_path)
    compiled = _played(python, sources=False, cwd=tmp_path)
    pure = _played(python, sources=True, cwd=tmp_path)
    assert compiled["build"] == "compiled (mypyc)"
    assert not compiled["game_module"].endswith(".py"), compiled["game_module"]
    assert pure["build"] == "pure Python"
    assert pure["game_module"] == str(ROOT / "coh_core" / "engine" / "game.py")
    assert len(compiled["games"]) == GAMES + len(_overlays())
    for seed, played in pure["games"].items():
        assert compiled["games"][seed] == played, f"game {seed}"
    for name, narrative in pure["narratives"].items():
        assert narrative["exit"] == 0, name
        assert compiled["narratives"][name] == narrative, name


def test_compiled_build_passes_the_rules_scenarios(tmp_path: Path) -> None:
    python = _require_compiled(tmp_path)
    run = ["-c", "import sys; from coh_core.cli import main; sys.argv[0] = 'coh'; main()"]
    done = _run(python, sources=False, cwd=tmp_path, args=[*run, "scenario", "run", str(SCENARIOS)])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    passed = len(list(SCENARIOS.rglob("*.yaml")))
    assert f"{passed} passed, 0 failed" in done.stdout, done.stdout[-500:]


def test_compiled_build_passes_the_generator_tests(tmp_path: Path) -> None:
    """tests/engine/test_rng.py on the compiled generator (native 64-bit integers), imported before
    pytest starts so that nothing else can stand in for it."""
    python = _require_compiled(tmp_path)
    check = (
        "import sys, pytest, coh_core.engine.rng as rng; "
        "assert not rng.__file__.endswith('.py'), rng.__file__; "
        "assert rng._NATIVE, 'the compiled generator does not draw over native integers'; "
        "sys.exit(pytest.main(sys.argv[1:]))"
    )
    tests = str(ROOT / "tests" / "engine" / "test_rng.py")
    done = _run(
        python,
        sources=False,
        cwd=tmp_path,
        args=["-c", check, "-q", "-o", "addopts=", "-p", "no:cacheprovider", tests],
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout[-500:]


if __name__ == "__main__":
    print(json.dumps(play_games()))

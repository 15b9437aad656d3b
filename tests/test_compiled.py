"""The compiled build (mypyc, `COH_COMPILE=1 pip install .`) plays the same games as pure Python.

Both sides run in child processes of the interpreter that has the compiled build installed: once
on the installed (compiled) package, once with this checkout's sources first on the path. They
play the same seeded games (random agents, a fork and a save-and-load on the way) and the same
`coh play` narratives, and must agree on every digest, decision, view and line. Skipped, saying why,
where no compiled build is installed (a failure instead with COH_REQUIRE_COMPILED=1, as in CI);
`COH_COMPILED_PYTHON` names another interpreter to check.

Run directly (`python tests/test_compiled.py`), this file plays the games and prints them as JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = 30  # seeded 4-player games of random agents
PLAYERS = 4
FORK_AT = 100  # the game goes on as its fork from this decision on
RELOAD_AT = 200  # and as the game saved and loaded again from this one
NARRATIVES = [(players, seed) for players in (3, 4, 5, 6) for seed in (1, 2)]


def _sha(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def play_games() -> dict[str, Any]:
    """What this process's coh makes of the games above (run in the child processes)."""
    from click.testing import CliRunner

    from coh_core import load_ruleset
    from coh_core.agents import RandomAgent
    from coh_core.build_info import build_kind
    from coh_core.cli import main
    from coh_core.engine import Game, new_game

    ruleset = load_ruleset()
    games: dict[str, Any] = {}
    for seed in range(1, GAMES + 1):
        game = new_game(ruleset, players=PLAYERS, seed=seed)
        agents = {colour: RandomAgent(seed=seed * 1000 + i) for i, colour in enumerate(game.players)}
        decisions = 0
        views: list[Any] = []  # what the players see (the views' JSON) at the fork and at the end
        while not game.over:
            decision = game.decision
            assert decision is not None
            for colour in decision.waiting:
                game.submit(colour, agents[colour].act(game.view(colour), decision.legal(colour)))
                decisions += 1
                if decisions == FORK_AT:
                    views += [game.view(c).to_json() for c in game.players]
                    game = game.fork()
                if decisions == RELOAD_AT:
                    game = Game.from_json(game.rules, game.to_json())
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
    import coh_core.engine.game as game_module

    return {
        "build": build_kind(),
        "game_module": str(game_module.__file__),
        "games": games,
        "narratives": narratives,
    }


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


def _played(python: str, *, sources: bool, cwd: Path) -> dict[str, Any]:
    done = _run(python, sources=sources, cwd=cwd, args=[str(Path(__file__).resolve())])
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_compiled_build_plays_the_same_games_as_pure_python(tmp_path: Path) -> None:
    python = _compiled_python()
    kind = _installed_kind(python, tmp_path)
    if kind != "compiled (mypyc)":
        missing = f"no compiled build installed for {python} (it has: {kind})"
        if os.environ.get("COH_REQUIRE_COMPILED"):
            pytest.fail(f"{missing}, and COH_REQUIRE_COMPILED is set")
        pytest.skip(f"{missing}; build one with `COH_COMPILE=1 pip install .` or set COH_COMPILED_PYTHON")
    compiled = _played(python, sources=False, cwd=tmp_path)
    pure = _played(python, sources=True, cwd=tmp_path)
    assert compiled["build"] == "compiled (mypyc)"
    assert not compiled["game_module"].endswith(".py"), compiled["game_module"]
    assert pure["build"] == "pure Python"
    assert pure["game_module"] == str(ROOT / "coh_core" / "engine" / "game.py")
    assert len(compiled["games"]) == GAMES
    for seed, played in pure["games"].items():
        assert compiled["games"][seed] == played, f"seed {seed}"
    for name, narrative in pure["narratives"].items():
        assert narrative["exit"] == 0, name
        assert compiled["narratives"][name] == narrative, name


if __name__ == "__main__":
    print(json.dumps(play_games()))

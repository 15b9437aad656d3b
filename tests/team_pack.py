"""A small game of our own that the players win or lose together: a pack that stands alone
(`kind: base`), for the tests of results a pack declares (`result:`).

Lifeboat: 2 or 3 players row a boat to the shore. Each turn every player chooses how hard to
row (1 to 3 strokes, kept on their place as counters `strokes`), then the current undoes the
strokes of one die (counters `setbacks` at the place `wake`). After 3 turns the team has landed,
and won, if the strokes rowed less those undone reach `crossing`. Nobody owns a piece, and the
pack keeps no memory of players out of the game: every player rows every turn. The bots are
told how far the boat has got (`bots: evaluation`, the verb `headway`).

`write_team_pack(folder, kind)` writes it with the result `team`, or `both`: then the players
are also ranked by their strokes (the part of the score `strokes_rowed`; no tie-break), and if
the team landed, the best rowers win.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CROSSING = 3  # strokes the boat must make good to land
TURNS = 3

_MANIFEST = {
    "id": "lifeboat",
    "version": "1.0.0",
    "format": 2,
    "kind": "base",
    "summary": "Row a lifeboat to the shore together.",
    "files": ["game.yaml"],
    "text": {"en": "text/en.yaml"},
}

_TEAM_END = "set_team_result(made_good() >= param(crossing))"
_BOTH_END = """\
let landed = made_good() >= param(crossing)
set_team_result(landed)
let scores = {player: strokes_rowed(player) for player in seats()}
let best = max(values(scores))
set_ranking(scores, [player for player in seats() if landed and scores[player] == best])
"""


def _game(kind: str) -> dict[str, Any]:
    return {
        "components": {
            "colours": ["red", "blue", "green"],
            "places": {"sea": "the open water", "wake": "the strokes the current has undone"},
            "counters": {
                "strokes": {"doc": "strokes rowed", "at": "sea"},
                "setbacks": {"doc": "strokes the current undoes", "at": "sea"},
            },
            "piles": {},
        },
        "setup": {
            "players": {"min": 2, "max": 3},
            "per_player_count": [{"players": 2}, {"players": 3}],
        },
        "turn": {
            "setup": [],
            "phases": [{"id": "row", "steps": [{"id": "row", "do": "row_the_boat()"}]}],
            "end": [{"id": "landing", "do": _TEAM_END if kind == "team" else _BOTH_END}],
        },
        "params": {
            "turns": {"type": "count", "value": TURNS, "doc": "turns played"},
            "crossing": {
                "type": "count",
                "value": CROSSING,
                "doc": "strokes the boat must make good to land",
            },
        },
        "verbs": [
            {
                "id": "row_the_boat",
                "doc": "Every player rows as hard as they choose; then the current undoes a die of strokes.",
                "do": (
                    "for player in players() {\n"
                    "  let pull = ask(player, [1, 2, 3], question=stroke, answer=stroke)\n"
                    "  move_counters(pull, strokes, from=sea, to=player)\n"
                    "  log(rowed, player=player, count=pull)\n"
                    "}\n"
                    "let drift = sum(roll(1))\n"
                    "move_counters(drift, setbacks, from=sea, to=wake)\n"
                    "log(drifted, count=drift)\n"
                ),
            },
            {
                "id": "made_good",
                "returns": "int",
                "doc": "The strokes the boat has made good: those rowed less those the current undid.",
                "do": (
                    "return sum([count_of(strokes, player) for player in seats()]) - count_of(setbacks, wake)"
                ),
            },
            {
                "id": "headway",
                "params": {"player": "player"},
                "returns": "int",
                "doc": "How far the boat has got, for the bots: the strokes it has made good (the team's).",
                "do": "return made_good()",
            },
            {
                "id": "strokes_rowed",
                "params": {"player": "player"},
                "returns": "int",
                "scoreboard": "part",
                "doc": "The strokes the player rowed.",
                "do": "return count_of(strokes, player)",
            },
        ],
        "messages": {
            "log": {
                "rowed": {
                    "note": "A player rows.",
                    "params": {"player": "who rows", "count": "how many strokes"},
                    "types": {"player": "player", "count": "int"},
                },
                "drifted": {
                    "note": "The current pushes the boat back.",
                    "params": {"count": "how many strokes it undoes"},
                    "types": {"count": "int"},
                },
            },
            "parts": {"scoring.strokes_rowed": {"note": "A part of the score: the strokes rowed."}},
            "decisions": {"stroke": {"note": "How hard the player rows this turn."}},
            "answers": {
                "stroke": {
                    "note": "A number of strokes.",
                    "params": {"count": "the strokes"},
                    "types": {"count": "int"},
                    "values": {"count": [1, 2, 3]},
                }
            },
        },
        # (the players' colours, named)
        "kinds": {
            "colour": {"doc": "A player's colour.", "listed": "colours", "type": "colour", "texts": ["name"]},
        },
        "types": {},
        "traits": {},
        "events": {},
        "windows": {},
        "result": {"kind": kind},
        "bots": {"evaluation": "headway"},
    }


_TEXTS = {
    "pack.lifeboat.name": "Lifeboat",
    "phase.row.name": "Rowing",
    "step.row.row.name": "Row",
    "step.end.landing.name": "Landing",
    "colour.red.name": "Red",
    "colour.blue.name": "Blue",
    "colour.green.name": "Green",
    "log.rowed": "{player} rows {count}.",
    "log.drifted": "The current undoes {count}.",
    "log.scoring.strokes_rowed": "strokes",
    "ui.decision.stroke": "How hard do you row?",
    "ui.action.stroke": "{count} strokes",
}


def write_team_pack(folder: Path, kind: str = "team") -> Path:
    """The Lifeboat pack written in `folder`, with a result of this kind (`team` or `both`); it
    writes none of the engine's own texts (its end, the scoreboard, its dice: coh's words)."""
    folder.mkdir(parents=True, exist_ok=True)
    _dump(folder / "pack.yaml", _MANIFEST)
    _dump(folder / "game.yaml", _game(kind))
    _dump(folder / "text" / "en.yaml", {"locale": "en", "messages": dict(_TEXTS)})
    return folder


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")

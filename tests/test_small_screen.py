"""The table on a small screen (issue 13): shortened to leave the question on screen, whole
one key (`?`) away, and whole when the output is no terminal."""

from __future__ import annotations

from typing import Any

import pytest

from coh_core.agents import RandomAgent
from coh_core.agents.terminal import TerminalAgent, cut, made_public, screen_rows
from coh_core.engine import new_game
from coh_core.narrative import Narrator
from coh_core.packs.model import Pack

WIDTH = 80


def _six_players(pack: Pack, steps: int = 150) -> tuple[dict[str, Any], Any]:
    """A 6-player random game some way in: red's view, and the view itself."""
    game = new_game(pack, players=6, seed=2)
    agents = {c: RandomAgent(seed=i) for i, c in enumerate(game.players)}
    for _ in range(steps):
        colour = game.decision.waiting[0]
        game.submit(colour, agents[colour].act(None, game.decision.legal(colour)))
    view = game.view("red")
    return view.to_json(), view


def _terminal(pack: Pack, monkeypatch: pytest.MonkeyPatch, height: int | None) -> TerminalAgent:
    terminal = TerminalAgent(Narrator(pack))
    monkeypatch.setattr(terminal, "_height", lambda: height)
    monkeypatch.setattr(terminal, "_width", lambda: WIDTH)
    return terminal


def test_output_that_is_no_terminal_gets_the_whole_table(
    base_pack: Pack, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, view = _six_players(base_pack)
    terminal = _terminal(base_pack, monkeypatch, None)
    drawn = made_public(view.log())
    assert terminal.board(state, drawn, below=20) == terminal.table(state, drawn)
    assert terminal.whole is None


@pytest.mark.parametrize("height", [20, 16, 14])
def test_a_small_screen_gets_a_table_that_fits_above_the_question(
    base_pack: Pack, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], height: int
) -> None:
    state, view = _six_players(base_pack)
    terminal = _terminal(base_pack, monkeypatch, height)
    drawn = made_public(view.log())
    whole = terminal.table(state, drawn)
    below = 5  # a question, a menu of three rows, the prompt
    assert screen_rows(whole, WIDTH) + below > height  # too tall: the case at hand
    rows = terminal.board(state, drawn, below)
    assert screen_rows(rows, WIDTH) + below <= height
    assert rows[0].endswith("(shortened to fit: ? shows it all)")
    assert terminal.whole == whole
    # The others' characters are counted, not named; red's are named while no line is cut.
    narrator = Narrator(base_pack)
    alive = {c: ch["owner"] for c, ch in state["pieces"]["characters"].items() if ch["alive"]}
    shown = "\n".join(rows)
    assert not any(narrator.name("character", c) in shown for c, owner in alive.items() if owner != "red")
    if not any(row.endswith("…") for row in rows):
        assert all(narrator.name("character", c) in shown for c, owner in alive.items() if owner == "red")
    # `?` shows the whole table, then the help.
    terminal.explain("", [], state)
    out = capsys.readouterr().out
    assert all(row in out for row in whole)


def test_a_cut_line_fits_one_row_and_says_it_was_cut() -> None:
    line = "x" * 200
    assert len(cut(line, WIDTH)) < WIDTH and cut(line, WIDTH).endswith("…")
    assert cut("short", WIDTH) == "short"


@pytest.mark.parametrize("height", [20, 16])
def test_the_first_row_with_the_pointers_orders_is_cut_last(
    base_pack: Pack, monkeypatch: pytest.MonkeyPatch, height: int
) -> None:
    # A shortened table cuts the rows that take the most screen rows first: where cutting the
    # others is enough, the turn order and the wheel's stay whole.
    state, view = _six_players(base_pack)
    terminal = _terminal(base_pack, monkeypatch, height)
    drawn = made_public(view.log())
    shortened = terminal.table(state, drawn, counted=True)
    below = 5
    rows = terminal.board(state, drawn, below)
    assert screen_rows(rows, WIDTH) + below <= height
    assert rows[0] == f"{shortened[0]} (shortened to fit: ? shows it all)"
    assert any(row.endswith("…") for row in rows[1:])

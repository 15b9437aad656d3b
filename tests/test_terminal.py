"""The human's table at the terminal: short grouped menus, keys that stay with what they stand
for, `?` and `<`, no answer taken by default; and whole games played at an 80x24 pseudo-terminal
(issue 13)."""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from long_runs import spread

from coh_core.agents import terminal
from coh_core.agents.menu import Entry, Keys, assign_keys, build_menu, find
from coh_core.agents.terminal import CLEAR_SCREEN, ERASE_SCROLLBACK, TerminalAgent
from coh_core.narrative import Narrator
from coh_core.packs.model import Pack

# An action window of a player with two cards, two characters and antidotes, four players.
OTHERS = ("white", "yellow", "green")
WINDOW = [
    ("pass",),
    ("play", "energy_drink"),
    ("play", "shotgun"),
    ("power", "grandpa"),
    ("power", "punk"),
    *(("give", p, "card", c) for c in ("energy_drink", "shotgun") for p in OTHERS),
    *(("give", p, "antidote") for p in OTHERS),
]


@pytest.fixture(scope="module")
def narrator(base_pack: Pack) -> Narrator:
    return Narrator(base_pack)


@pytest.fixture(scope="module")
def keys(narrator: Narrator) -> Keys:
    return Keys(narrator)


def _leaves(entries: list[Entry]) -> Iterator[Entry]:
    for entry in entries:
        yield from _leaves(entry.children) if entry.is_group else [entry]


def _all_menus(entries: list[Entry]) -> Iterator[list[Entry]]:
    yield entries
    for entry in entries:
        if entry.is_group:
            yield from _all_menus(entry.children)


def test_an_action_window_is_grouped_by_verb(narrator: Narrator, keys: Keys) -> None:
    menu = build_menu(WINDOW, narrator, keys)
    assert [e.label for e in menu] == ["Pass", "Play …", "Use the power of …", "Give … to …"]
    assert sorted(e.action for e in _leaves(menu) if e.action) == sorted(WINDOW)  # every answer, once
    give = menu[3]
    # give: what, then to whom
    assert [e.label for e in give.children] == [
        "Give Energy Drink to …",
        "Give Shotgun to …",
        "Give an antidote to …",
    ]
    assert [e.label for e in give.children[1].children] == [
        "Give Shotgun to White",
        "Give Shotgun to Yellow",
        "Give Shotgun to Green",
    ]
    assert max(len(m) for m in _all_menus(menu)) <= 5


def test_keys_are_distinct_in_every_menu(narrator: Narrator, keys: Keys) -> None:
    for menu in _all_menus(build_menu(WINDOW, narrator, keys)):
        shown = [e.key for e in menu]
        assert len(set(shown)) == len(shown), shown
        assert all(re.fullmatch(r"[a-z][a-z0-9]*", k) for k in shown)


def test_a_card_keeps_its_key_when_another_leaves_the_hand(narrator: Narrator, keys: Keys) -> None:
    hand = ["alarm", "canned_food", "gun", "makeshift_bomb", "running_shoes"]
    before = {e.action: e.key for e in build_menu([("discard", c) for c in hand], narrator, keys)}
    after = {
        e.action: e.key for e in build_menu([("discard", c) for c in hand if c != "alarm"], narrator, keys)
    }
    assert {a: k for a, k in before.items() if a != ("discard", "alarm")} == after


def test_a_card_has_the_same_key_whatever_it_is_done_with(narrator: Narrator, keys: Keys) -> None:
    played = {e.about: e.key for e in build_menu([("play", "gun"), ("play", "kitten")], narrator, keys)}
    taken = {e.about: e.key for e in build_menu([("take", "gun"), ("take", "kitten")], narrator, keys)}
    assert played == taken == {"gun": keys.of("gun"), "kitten": keys.of("kitten")}


def test_keys_in_every_language_are_distinct_per_kind(base_pack: Pack) -> None:
    for lang in ("en", "es", "it", "fr", "de"):
        for kind, of_kind in Keys(Narrator(base_pack, lang)).by_kind.items():
            assert len(set(of_kind.values())) == len(of_kind), (lang, kind)


def test_assign_keys_skips_the_taken_and_falls_back_to_digits() -> None:
    assert assign_keys([(1, "Abc"), (2, "Abc"), (3, "A")], taken={"a"}) == {1: "ab", 2: "ac", 3: "a2"}


# --- answering: `<`, `?`, nothing by default ----------------------------------------------------


def _answering(monkeypatch: pytest.MonkeyPatch, typed: list[str]) -> None:
    lines = iter(typed)

    def read(stream: Any) -> str:
        line = next(lines, None)
        if line is None:
            raise EOFError
        return line + "\n"

    monkeypatch.setattr(terminal, "read_answer", read)


def _choose(
    narrator: Narrator, typed: list[str], monkeypatch: pytest.MonkeyPatch, legal: Any = WINDOW
) -> Any:
    _answering(monkeypatch, typed)
    agent = TerminalAgent(narrator)
    state = {"me": "red", "piles": {"hands": {"red": ["gun"]}}}
    return agent.choose("[Red] question", build_menu(legal, narrator, agent._keys()), state)


def test_a_sub_menu_is_left_with_back(
    narrator: Narrator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    give, shotgun, yellow = "g", "s", "y"
    assert _choose(narrator, [give, "<", "p"], monkeypatch) == ("pass",)
    assert _choose(narrator, [give, shotgun, yellow], monkeypatch) == ("give", "yellow", "card", "shotgun")
    assert "Your choice (< goes back): " in capsys.readouterr().out


def test_nothing_is_answered_by_default(
    narrator: Narrator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    votes = [("vote", "red"), ("vote", "green")]
    with pytest.raises(EOFError):  # a bare Enter, then blanks, then the input ends: no vote cast
        _choose(narrator, ["", "  ", "<"], monkeypatch, votes)
    out = capsys.readouterr().out
    assert out.count("Type one of the keys: r, g.") == 3


def test_question_mark_reads_the_card_behind_a_key_or_a_name(
    narrator: Narrator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    legal = [("play", "gun"), ("play", "kitten")]
    gun_text = narrator.ui("action.gun.text")
    assert _choose(narrator, ["? g", "? Kitten", "?", "? nothing-such", "g"], monkeypatch, legal) == (
        "play",
        "gun",
    )
    out = capsys.readouterr().out
    assert out.count(gun_text) == 2  # `? g`, and the hand shown by `?`
    assert narrator.ui("action.kitten.text") in out
    assert "No answer has the key nothing-such" in out


def test_question_mark_reads_a_key_of_another_menu(
    narrator: Narrator, keys: Keys, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Keys stay with their values: a card's key reads its text at a vote, where no card is offered.
    votes = [("vote", "red"), ("vote", "green")]
    kitten = keys.of("kitten")
    assert kitten is not None and find(build_menu(votes, narrator, keys), kitten) is None
    assert _choose(narrator, [f"? {kitten}", "r"], monkeypatch, votes) == ("vote", "red")
    assert narrator.ui("action.kitten.text") in capsys.readouterr().out


# --- whole games at an 80x24 pseudo-terminal ---------------------------------------------------

try:
    import pexpect
except ImportError:  # the `test` extra has it; without it only the pseudo-terminal games are skipped
    pexpect = None  # type: ignore[assignment]
needs_pexpect = pytest.mark.skipif(pexpect is None, reason="pexpect is not installed")

ROWS, COLUMNS = 24, 80
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPT = r"Your choice[^\n]*: $"
HAND_OVER = r"Pass the terminal to [^\n]*Enter\. $"
BOARD = re.compile(r"Turn \d+, ")  # the table's first row


def _spawn(*args: str) -> Any:
    return pexpect.spawn(
        sys.executable,
        ["-c", "from coh_core.cli import main; main()", "play", *args],
        dimensions=(ROWS, COLUMNS),
        encoding="utf-8",
        timeout=60,
        env={"TERM": "xterm", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )


def _screen(text: str) -> list[str]:
    """The rows the text fills on an 80-column screen, colours out."""
    rows: list[str] = []
    for line in ANSI.sub("", text).replace("\r", "").split("\n"):
        rows.extend(textwrap.wrap(line, COLUMNS, drop_whitespace=False) or [""])
    return rows


def _fits_the_width(text: str) -> None:
    """Every line printed is narrower than the screen: wrapped by coh at blanks, not cut mid-word
    by the terminal (a continuation row is indented)."""
    lines = ANSI.sub("", text).replace("\r", "").split("\n")
    assert all(len(line) < COLUMNS for line in lines), [line for line in lines if len(line) >= COLUMNS]


def _menu(rows: list[str], player: str) -> tuple[int, list[str]]:
    """Where the last question of `player` starts on the screen, and the keys of its menu."""
    start = max(i for i, row in enumerate(rows) if row.startswith(f"[{player}]"))
    found = [
        m.group(1) for row in rows[start + 1 :] for m in re.finditer(r"(?:^|\s)([a-z][a-z0-9]*)  \S", row)
    ]
    return start, found


def _play_at_the_terminal(child: Any, humans: list[str]) -> dict[str, int]:
    """Answer every question with one key of its menu (each in turn), trying `?`, a bare Enter
    and `<` along the way; check what each screen shows. Returns counts of what was seen."""
    seen = {"questions": 0, "hand_overs": 0, "sub_menus": 0, "boards": 0, "shortened": 0, "public": 0}
    last_player: str | None = None
    last_private = False  # whether the last screen showed its player's hand
    while True:
        found = child.expect([PROMPT, HAND_OVER, pexpect.EOF])
        _fits_the_width(child.before)
        if found == 2:
            return seen
        if found == 1:
            seen["hand_overs"] += 1
            # the hand-over wiped the screen and the scrollback the last player's answers are in
            assert CLEAR_SCREEN in child.before and ERASE_SCROLLBACK in CLEAR_SCREEN
            child.sendline("")
            after = child.expect([PROMPT, pexpect.EOF])
            assert after == 0
            shown = child.before
            # what the next player sees since the screen was cleared: no question of another seat
            assert CLEAR_SCREEN not in shown
            player = re.findall(r"\n\[([A-Za-z]+)\]", ANSI.sub("", shown))[-1]
            assert all(f"[{other}]" not in ANSI.sub("", shown) for other in humans if other != player)
            assert ANSI.sub("", shown).count("Your hand: ") == 1
            last_player = player
        rows = _screen(child.before + child.after)
        player = re.findall(r"^\[([A-Za-z]+)\]", "\n".join(rows), re.M)[-1]
        assert player in humans
        fresh = any(BOARD.match(row) for row in _screen(child.before))  # a new question's screen
        private = "Your hand: " in ANSI.sub("", child.before) if fresh else last_private
        if found == 0 and last_player is not None and player != last_player and len(humans) > 1:
            # no hand-over: a question that needs no secret, on a screen all may see, wiped of
            # the last one's secrets
            assert not private, f"{player} after {last_player}"
            assert (CLEAR_SCREEN in child.before) == last_private
            seen["public"] += 1
        last_player, last_private = player, private
        start, keys = _menu(rows, player)
        assert keys, rows[start:]
        assert len(rows) - start <= ROWS, rows[start:]  # the question and its whole menu on screen
        boards = [i for i, row in enumerate(rows[:start]) if BOARD.match(row)]
        if boards:  # a new decision: its board, the question and the menu all on screen
            assert len(rows) - boards[-1] <= ROWS, rows[boards[-1] :]
            seen["boards"] += 1
            seen["shortened"] += "? shows it all" in " ".join(rows[boards[-1] : start])
        seen["questions"] += 1
        if "(< goes back)" in rows[-1]:
            seen["sub_menus"] += 1
        if seen["questions"] % 7 == 3:
            child.sendline("")  # no default: asked again
            assert child.expect([r"Type one of the keys: ", pexpect.EOF]) == 0
            child.expect(PROMPT)
        if seen["questions"] % 11 == 5:
            child.sendline(f"? {keys[0]}")
            child.expect(PROMPT)
        if seen["questions"] % 13 == 6 and "(< goes back)" in rows[-1]:
            child.sendline("<")
            child.expect(PROMPT)
            keys = _menu(_screen(child.before + child.after), player)[1]
        child.sendline(keys[seen["questions"] % len(keys)])


@needs_pexpect
def test_a_human_plays_a_whole_game_at_an_80x24_terminal() -> None:
    child = _spawn("--players", "4", "--seed", "3", "--human", "red")
    seen = _play_at_the_terminal(child, ["Red"])
    child.close()
    assert child.exitstatus == 0
    assert seen["questions"] > 30 and seen["hand_overs"] == 0 and seen["sub_menus"] > 0, seen


@needs_pexpect
@pytest.mark.parametrize("seed", spread(["1", "2"], every=2))
def test_a_six_player_game_keeps_the_board_and_the_question_on_an_80x24_screen(seed: str) -> None:
    # Six players' characters fill the board: it is shortened to fit, never scrolled off.
    child = _spawn("--players", "6", "--seed", seed, "--human", "red")
    seen = _play_at_the_terminal(child, ["Red"])
    child.close()
    assert child.exitstatus == 0
    assert seen["boards"] > 20, seen


@needs_pexpect
def test_a_hotseat_game_at_an_80x24_terminal_hides_each_seat_from_the_next() -> None:
    child = _spawn("--players", "4", "--seed", "2", "--human", "red", "--human", "blue")
    seen = _play_at_the_terminal(child, ["Red", "Blue"])
    child.close()
    assert child.exitstatus == 0
    assert seen["hand_overs"] > 5 and seen["public"] > 5, seen


def test_output_that_is_no_terminal_stays_plain() -> None:
    from click.testing import CliRunner

    from coh_core.cli import main

    result = CliRunner().invoke(main, ["play", "--seed", "1", "--human", "red"], input="1\n" * 400)
    assert "[Red] " in result.output and "\x1b" not in result.output


def test_rich_is_imported_only_when_a_human_is_asked() -> None:
    import subprocess

    code = "import sys, coh_core.cli, coh_core.agents.terminal; print('rich' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
    )


def test_a_human_reads_the_news_under_the_story_headings() -> None:
    """The news between questions is told as the narrative tells it: setup, turn and phase
    headings before the entries they cover, each once."""
    from click.testing import CliRunner

    from coh_core.cli import main

    result = CliRunner().invoke(main, ["play", "--seed", "1", "--human", "red"], input="1\n" * 400)
    news = [line.strip() for line in result.output.splitlines() if line.startswith("  ")]
    assert news.count("=== Setup ===") == 1
    assert news.count("=== Turn 1 ===") == 1
    assert news.index("=== Setup ===") < news.index("=== Turn 1 ===")
    assert any(line.startswith("-- ") and line.endswith(" --") for line in news)


class _PassingOn(TerminalAgent):
    """A human who types `key` (a standing pass) at every question that offers it, and the first
    answer otherwise; records what was asked."""

    def __init__(self, narrator: Any, key: str):
        super().__init__(narrator)
        self.key = key
        self.asked: list[tuple[Any, bool, list[str]]] = []  # (turn, phase, log), pass offered, keys
        self.log_seen: list[dict[str, Any]] = []

    def act(self, view: Any, legal: list[Any]) -> Any:
        self.log_seen = view.log()
        return super().act(view, legal)

    def choose(self, question: str, top: list[Any], state: Any, public: bool = False) -> Any:
        keys = [e.key for e in top]
        offers_pass = ("pass",) in _answers_in(top)
        self.asked.append(((state["turn"], state["phase"], len(self.log_seen)), offers_pass, keys))
        chosen = next((e for e in top if e.key == self.key), None) or next(e for e in top if e.action)
        return chosen.action


def _answers_in(entries: list[Any]) -> list[Any]:
    return [e.action for e in entries if e.action is not None] + [
        a for e in entries if e.action is None for a in _answers_in(e.children)
    ]


def _played_with(base_pack: Any, key: str) -> tuple[_PassingOn, set[str], list[dict[str, Any]]]:
    """A seeded game where the first seat is a human who types `key` wherever it is offered: the
    terminal, the human's pieces and the log they saw."""
    import contextlib
    import io

    from coh_core.agents import make_bot
    from coh_core.agents.runner import ask
    from coh_core.engine import new_game

    game = new_game(base_pack, players=4, seed=3)
    human = game.players[0]
    terminal = _PassingOn(Narrator(base_pack), key)
    agents: dict[str, Any] = {c: make_bot("heuristic", i, base_pack) for i, c in enumerate(game.players)}
    agents[human] = terminal
    with contextlib.redirect_stdout(io.StringIO()):
        while not game.over:
            for colour in game.waiting:
                game.submit(colour, ask(game, agents[colour], colour))
    mine = {p for held in game.state["pieces"].values() for p, d in held.items() if d.get("owner") == human}
    return terminal, mine, game.view(human).log()


def test_a_pass_until_the_phase_ends_asks_nothing_that_offers_to_pass_in_that_phase(base_pack: Any) -> None:
    """`>>>` passes at once and at every later question that offers to pass until the phase ends;
    questions without a pass are asked meanwhile. `>>` (until the place being resolved is done)
    is offered only while a place is, `>` (until something happens to one of mine) always."""
    terminal, _mine, _log = _played_with(base_pack, ">>>")
    passed_in: set[tuple[Any, Any]] = set()
    for (turn, phase, _seen), offers_pass, keys in terminal.asked:
        if offers_pass:
            assert (turn, phase) not in passed_in, f"asked again in turn {turn}, {phase}"
            assert ">" in keys and ">>>" in keys and (">>" in keys) == (phase == "location_resolution")
            passed_in.add((turn, phase))
    assert len(passed_in) >= 4 and any(not offers for _w, offers, _k in terminal.asked)


def test_a_pass_until_something_happens_to_mine_ends_when_the_log_names_a_piece_of_theirs(
    base_pack: Any,
) -> None:
    terminal, mine, log = _played_with(base_pack, ">")
    since: int | None = None  # the log's length at the last `>`
    again = 0
    for (_turn, _phase, seen), offers_pass, _keys in terminal.asked:
        if offers_pass and since is not None:
            named = [e for e in log[since:seen] if any(v in mine for v in _values(e.get("params")))]
            assert named, "asked again with a standing pass and nothing of theirs named"
            again += 1
        if offers_pass:
            since = seen
    assert again >= 3


def _values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _values(v)]
    if isinstance(value, list):
        return [x for v in value for x in _values(v)]
    return [value]


@needs_pexpect
def test_a_game_of_bots_alone_shows_its_progress_on_a_terminal_and_wipes_it() -> None:
    """On a terminal, a game no human plays tells the turn it is at as it goes (one line, written
    again in place), wiped before the story is printed; nothing of it in output that is no
    terminal."""
    child = _spawn("--players", "3", "--seed", "1", "--bots", "random")
    child.expect(pexpect.EOF)
    shown = child.before
    turns = [int(t) for t in re.findall(r"Playing turn (\d+): \d+ decisions so far", shown)]
    assert turns == sorted(set(turns)) and len(turns) >= 4, turns  # each turn once, in order
    last = shown.rindex("decisions so far")
    assert shown.index("\r\x1b[K", last) < shown.index("Final scores")

    from click.testing import CliRunner

    from coh_core.cli import main

    plain = CliRunner().invoke(main, ["play", "--players", "3", "--seed", "1", "--bots", "random"])
    assert plain.exit_code == 0 and "decisions so far" not in plain.output

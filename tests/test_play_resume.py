"""`coh play`: hotseat (hand-over screens, `--human` by name) and saving and resuming a game."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from long_runs import spread

from coh_core.agents import RandomAgent, terminal
from coh_core.agents.runner import ask, play_out
from coh_core.agents.terminal import HANDOVER_SEPARATOR, TerminalAgent
from coh_core.cli import main
from coh_core.engine import new_game
from coh_core.narrative import Narrator
from coh_core.packs.model import Pack

HAND_OVER = "Pass the terminal to "
ENDED = "The input has ended: the game stops here, unfinished."
SAVED = "The game is saved in "
PROMPT = "Your choice: "  # a question's menu
SUB_PROMPT = "Your choice (< goes back): "  # one of its sub-menus


def _answers(seed: int, count: int = 3000, high: int = 4) -> list[str]:
    """Typed lines: numbers, some of them past the list (asked again)."""
    rng = random.Random(seed)
    return [str(rng.randint(1, high)) for _ in range(count)]


def _typed(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def _invoke(args: list[str], answers: str = "") -> Result:
    result = CliRunner().invoke(main, ["play", *args], input=answers)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"escaped: {result.exception!r}") from result.exception
    assert "Traceback" not in result.output
    return result


def _digest(result: Result) -> str:
    assert result.exit_code == 0, result.output[-2000:]
    digest: str = json.loads(result.stdout)["digest"]
    return digest


def _consumed(result: Result, hotseat: bool) -> int:
    """How many typed lines a stopped game read before the question it stopped at: one per
    prompt (of a menu or a sub-menu) and hand-over screen it showed before that question's last
    menu. The lines typed in a sub-menu of the unanswered question are lost: `--resume` asks it
    again from its menu.

    A resumed hotseat game opens with a hand-over screen; when the input ended at a question,
    that screen is one read more than the uninterrupted game makes.
    """
    before = result.stderr[: result.stderr.rfind(PROMPT)]
    return before.count(PROMPT) + before.count(SUB_PROMPT) + before.count(HAND_OVER)


# --- --human ----------------------------------------------------------------------------------

# (the --human values, --lang, the colours played at the terminal)
HUMANS_TAKEN = [
    (["red"], "en", ["red"]),
    (["RED"], "en", ["red"]),
    (["Red"], "en", ["red"]),
    (["rot"], "de", ["red"]),
    (["ROT"], "de", ["red"]),
    (["Bleu"], "fr", ["blue"]),
    (["red"], "de", ["red"]),  # the id is always taken
    (["red", "blue"], "en", ["red", "blue"]),
]


@pytest.mark.parametrize(("given", "lang", "expected"), HUMANS_TAKEN)
def test_human_names_a_colour_in_any_case_and_in_the_games_language(
    tmp_path: Path, given: list[str], lang: str, expected: list[str]
) -> None:
    save = tmp_path / "game.save"
    args = ["--players", "4", "--lang", lang, "--save", str(save), "--format", "json"]
    result = _invoke([*args, *(a for h in given for a in ("--human", h))])
    assert result.exit_code == 2  # no input: the game stops at the first question
    doc = json.loads(save.read_text())
    assert doc["humans"] == expected
    assert set(expected) <= set(doc["game"]["state"]["players"])


# (the --human values, --lang, --players, what the error names)
HUMANS_REFUSED = [
    (["octarine"], "en", "4", "'octarine' is not a colour of the game; choose from yellow, red,"),
    (["rot"], "en", "4", "'rot' is not a colour"),  # a German name in an English game
    (["verde"], "de", "4", "choose from yellow (Gelb), red (Rot),"),
    (["red", "blue", "green", "white"], "en", "3", "4 humans (--human) for 3 seats"),
]


@pytest.mark.parametrize(("given", "lang", "players", "expected"), HUMANS_REFUSED)
def test_human_that_names_no_colour_is_refused_with_the_choices(
    given: list[str], lang: str, players: str, expected: str
) -> None:
    result = _invoke(["--players", players, "--lang", lang, *(a for h in given for a in ("--human", h))])
    assert result.exit_code == 2
    assert result.stderr.startswith("USAGE-HUMAN ") and expected in result.stderr


def test_the_readme_hotseat_example_plays_a_whole_game() -> None:
    """`coh play --players 4 --human red --human blue`: blue is not among the first four colours."""
    result = _invoke(["--players", "4", "--human", "red", "--human", "blue"], _typed(_answers(4)))
    assert result.exit_code == 0, result.output[-2000:]
    asked = {line.split("]")[0] for line in result.output.splitlines() if line.startswith("[")}
    assert asked == {"[Red", "[Blue"}
    assert "Final scores" in result.output


# --- hotseat: what each human sees ------------------------------------------------------------


@pytest.mark.parametrize("seed", spread([1, 2, 3], every=3))
def test_hotseat_output_between_hand_overs_shows_no_other_humans_secrets(
    base_pack: Pack, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    """Each human's screen never holds the other human's hand, a private log line the asked human
    may not see, or another human's question; what is the asked human's alone (their hand, their
    secrets) is shown only after a hand-over to them, or when they answered last. A question
    that needs no secret is asked with no hand-over, on a screen wiped of the last one's secrets."""
    game = new_game(base_pack, players=4, seed=seed)
    humans = game.players[:2]
    narrator = Narrator(base_pack)
    shared = TerminalAgent(narrator, hotseat=True)
    typed = iter(_answers(seed, count=20000))
    monkeypatch.setattr(terminal, "read_answer", lambda stream: next(typed))
    seen = {"hand_overs": 0, "public": 0}
    hand_over = narrator.ui("ui.play.hand_over", player="x").split("x")[0]

    class Watched:
        def act(self, view: Any, legal: list[Any]) -> Any:
            me = view.colour
            other = next(h for h in humans if h != me)
            state = view.to_json()
            full = shared.table(state)
            mine = [row for row in full if row not in shared.table(state, public=True)]
            secret_rows = [row for row in shared.table(game.view(other).to_json()) if row not in full]
            hidden = [e for e in game.log if "to" in e and me not in e["to"]]
            last, secrets_shown = shared.last, shared.secrets_shown
            capsys.readouterr()
            action = shared.act(view, legal)
            screen = capsys.readouterr().out
            if not screen and action == ("pass",) and me in shared.passing:
                return action  # a standing pass answered: nothing asked, nothing shown
            shown = {line.strip() for line in screen.splitlines()}
            handed = hand_over in screen
            shows_mine = any(row.strip() in shown for row in mine)
            assert handed == (shows_mine and last != me), (me, last, screen[:300])
            seen["hand_overs"] += handed
            if not shows_mine:
                seen["public"] += 1
                # the last screen's secrets are wiped first
                assert screen.lstrip("\n").startswith(HANDOVER_SEPARATOR) == secrets_shown
            assert f"[{narrator.name('colour', other)}]" not in screen
            for row in secret_rows:
                assert row.strip() not in shown, (me, row)
            for line in narrator.lines(hidden):
                assert line.strip() not in shown, (me, line)
            return action

    watched = Watched()
    agents = {c: watched if c in humans else RandomAgent(seed * 10 + i) for i, c in enumerate(game.players)}
    play_out(game, agents)
    assert game.over and seen["hand_overs"] > 10 and seen["public"] > 10, seen


def test_a_single_human_gets_no_hand_over_screen() -> None:
    result = _invoke(["--players", "3", "--human", "red"], _typed(_answers(1)))
    assert result.exit_code == 0
    assert HAND_OVER not in result.output and HANDOVER_SEPARATOR not in result.output


# --- saving and resuming ------------------------------------------------------------------------


def _resumed(
    tmp_path: Path, args: list[str], lines: list[str], cuts: list[int], hotseat: bool
) -> Iterator[Result]:
    """The game played to the end through interruptions: the input ends after each cut (a count
    of lines typed since the last one), then `--resume` goes on with the lines not read."""
    save = tmp_path / "game.save"
    result = _invoke([*args, "--save", str(save), "--format", "json"], _typed(lines[: cuts[0]]))
    yield result
    position = _consumed(result, hotseat)
    for cut in [*cuts[1:], len(lines)]:
        rest = lines[position:]
        told = result.stderr.rstrip().splitlines()
        ended_at_question = len(told) >= 3 and told[-3].endswith((PROMPT, SUB_PROMPT))
        if hotseat and ended_at_question:
            rest = ["", *rest]  # the resumed game's opening hand-over screen
        result = _invoke(["--resume", str(save), "--format", "json"], _typed(rest[:cut]))
        yield result
        position += _consumed(result, hotseat) - (1 if hotseat and ended_at_question else 0)


# (the game's options, the cuts, hotseat)
RESUMED = [
    (["--players", "4", "--seed", "3", "--human", "red"], [1], False),
    (["--players", "4", "--seed", "3", "--human", "red"], [9], False),
    (["--players", "3", "--seed", "5", "--human", "green", "--bots", "random"], [40, 25, 60], False),
    (["--players", "5", "--seed", "7", "--human", "red", "--human", "blue"], [17, 30], True),
    # the save keeps the expert's budget: resumed without it, the bots search as they did
    (
        ["--players", "3", "--seed", "2", "--human", "red", "--bots", "expert", "--expert-iterations", "3"],
        [12],
        False,
    ),
]


@pytest.mark.parametrize(("args", "cuts", "hotseat"), spread(RESUMED, every=2))
def test_an_interrupted_game_resumes_to_the_same_end(
    tmp_path: Path, args: list[str], cuts: list[int], hotseat: bool
) -> None:
    lines = _answers(sum(cuts))
    whole = _digest(_invoke([*args, "--format", "json"], _typed(lines)))
    *stops, last = list(_resumed(tmp_path, args, lines, cuts, hotseat))
    for stop in stops:
        assert stop.exit_code == 2, stop.output[-2000:]
        assert json.loads(stop.stdout)["problems"][0]["code"] == "PLAY-INPUT-ENDED"
        assert stop.stderr.splitlines()[-2] == ENDED
        assert stop.stderr.splitlines()[-1].startswith(SAVED)
    assert _digest(last) == whole


def test_ctrl_c_saves_and_the_game_resumes_to_the_same_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["--players", "4", "--seed", "2", "--human", "red"]
    lines = _answers(2)
    whole = _digest(_invoke([*args, "--format", "json"], _typed(lines)))
    typed = iter(lines[:12])

    def read(stream: Any) -> str:
        line = next(typed, None)
        if line is None:
            raise KeyboardInterrupt
        return line

    save, log = tmp_path / "game.save", tmp_path / "game.jsonl"
    with monkeypatch.context() as patched:
        patched.setattr(terminal, "read_answer", read)
        stopped = _invoke([*args, "--save", str(save), "--log", str(log), "--format", "json"])
    assert stopped.exit_code == 130
    assert stopped.stderr.splitlines()[-1] == (
        f"The game is saved in {save}: `coh play --resume {save}` goes on from here."
    )
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {save.name, log.name}  # no temporary file beside the save
    unfinished = [json.loads(line) for line in log.read_text().splitlines()]
    assert "coh_record" in unfinished[0] and all("end" not in line for line in unfinished)
    # the lines typed in a sub-menu of the question it stopped at are typed again (asked again)
    rest = _typed(lines[_consumed(stopped, False) :])
    kept = save.read_bytes()
    written = log.read_bytes()
    resumed = _invoke(["--resume", str(save), "--format", "json"], rest)
    assert _digest(resumed) == whole
    # a save names no file: resumed without --log, the game writes no log
    assert log.read_bytes() == written
    # resumed with --log, the log is the whole game's
    save.write_bytes(kept)
    _invoke(["--resume", str(save), "--log", str(log), "--format", "json"], rest)
    replayed = CliRunner().invoke(main, ["replay", str(log), "--format", "json"])
    assert replayed.exit_code == 0 and json.loads(replayed.output)["digest"] == whole


def test_a_save_that_names_a_file_writes_nothing_there(tmp_path: Path) -> None:
    """A shared save whose (older) `log` field names someone's file: resuming it never writes there."""
    save, victim = tmp_path / "game.save", tmp_path / "bashrc"
    victim.write_text("precious\n")
    _invoke(["--human", "red", "--save", str(save)], "1\n1\n")
    doc = json.loads(save.read_text())
    assert "log" not in doc  # saves name no file
    doc["log"] = str(victim)
    save.write_text(json.dumps(doc) + "\n")
    result = _invoke(["--resume", str(save), "--format", "json"], _typed(_answers(11)))
    assert _digest(result)
    assert victim.read_text() == "precious\n"
    assert {p.name for p in tmp_path.iterdir()} == {save.name, victim.name}


def test_without_save_an_interrupted_game_says_nothing_of_saving() -> None:
    result = _invoke(["--players", "4", "--human", "red"], "1\n")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == ENDED


def test_the_save_message_is_in_the_players_language(tmp_path: Path) -> None:
    save = tmp_path / "partie.save"
    result = _invoke(["--players", "4", "--human", "rouge", "--lang", "fr", "--save", str(save)])
    assert result.stderr.splitlines()[-1] == (
        f"La partie est enregistrée dans {save} : `coh play --resume {save}` la reprend d'ici."
    )


@pytest.mark.parametrize(
    "option",
    [["--players", "3"], ["--seed", "2"], ["--bots", "random"], ["--human", "red"], ["--rules", "hunger"]],
)
def test_resume_refuses_the_options_the_save_keeps(tmp_path: Path, option: list[str]) -> None:
    save = tmp_path / "game.save"
    _invoke(["--human", "red", "--save", str(save)])
    result = _invoke(["--resume", str(save), *option])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"USAGE-RESUME --resume goes on with the saved game as it was set up; {option[0]}"
    )


# A good save, changed: (what is done to its one JSON object or to its text, the code, the column's field)
def _edit(doc: dict[str, Any], path: tuple[str, ...], value: Any) -> str:
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return json.dumps(doc, separators=(",", ":"))


BROKEN: dict[str, tuple[Any, str]] = {
    "not_json": (lambda doc, text: text[:40], "SAVE-JSON"),
    "empty": (lambda doc, text: "", "SAVE-FORMAT"),
    "a_list": (lambda doc, text: "[1, 2]", "SAVE-JSON"),
    "a_game_record": (lambda doc, text: '{"coh_record": 1, "pack": "base"}', "SAVE-FORMAT"),
    "format_3": (lambda doc, text: _edit(doc, ("coh_save",), 3), "SAVE-FORMAT"),
    "format_of_an_older_coh": (lambda doc, text: _edit(doc, ("coh_save",), 1), "SAVE-FORMAT"),
    "two_lines": (lambda doc, text: text + "\n" + text, "SAVE-FORMAT"),
    "seed_a_string": (lambda doc, text: _edit(doc, ("seed",), "1"), "SAVE-FIELD"),
    "unknown_bots": (lambda doc, text: _edit(doc, ("bots",), "genius"), "SAVE-FIELD"),
    "no_game": (lambda doc, text: text.replace('"game":', '"gone":'), "SAVE-FIELD"),
    "a_stranger_human": (lambda doc, text: _edit(doc, ("humans",), ["octarine"]), "SAVE-FIELD"),
    "position_changed": (lambda doc, text: _edit(doc, ("game", "state", "turn"), 1), "SAVE-GAME"),
    "position_past_the_last_turn": (lambda doc, text: _edit(doc, ("game", "state", "turn"), 7), "SAVE-STATE"),
    "position_gutted": (lambda doc, text: _edit(doc, ("game",), {"format": "coh-game/1"}), "SAVE-STATE"),
    "other_position_format": (lambda doc, text: _edit(doc, ("game", "format"), "coh-game/9"), "SAVE-GAME"),
    "expert_budget_zero": (lambda doc, text: _edit(doc, ("expert",), {"iterations": 0}), "SAVE-FIELD"),
    "expert_budget_unknown": (lambda doc, text: _edit(doc, ("expert",), {"depth": 3}), "SAVE-FIELD"),
    "expert_seconds_text": (lambda doc, text: _edit(doc, ("expert",), {"seconds": "1"}), "SAVE-FIELD"),
    "not_utf8": (lambda doc, text: text.replace('"seed"', '"s\udcffeed"'), "SAVE-ENCODING"),
}


@pytest.mark.parametrize(("change", "code"), BROKEN.values(), ids=list(BROKEN))
def test_a_bad_save_is_refused_with_a_located_code(tmp_path: Path, change: Any, code: str) -> None:
    save = tmp_path / "game.save"
    _invoke(["--human", "red", "--save", str(save)], "1\n1\n")
    text = save.read_text().rstrip("\n")
    save.write_bytes(change(json.loads(text), text).encode("utf-8", errors="surrogateescape"))
    result = _invoke(["--resume", str(save), "--format", "json"])
    assert result.exit_code == 1, result.output[-2000:]
    problem = json.loads(result.stdout)["problems"][0]
    assert problem["code"] == code
    assert problem["file"] == str(save) and problem["line"] >= 1 and problem["col"] >= 1
    assert result.stderr.startswith(f"{save}:{problem['line']}:{problem['col']}: {code} ")


def test_a_save_written_before_the_expert_budget_was_kept_still_resumes(tmp_path: Path) -> None:
    save = tmp_path / "game.save"
    _invoke(["--human", "red", "--save", str(save)], "1\n1\n")
    doc = json.loads(save.read_text())
    del doc["expert"]
    save.write_text(json.dumps(doc) + "\n")
    result = _invoke(["--resume", str(save), "--format", "json"], _typed(_answers(11)))
    assert _digest(result)


def test_a_missing_save_is_an_io_error(tmp_path: Path) -> None:
    result = _invoke(["--resume", str(tmp_path / "none.save")])
    assert result.exit_code == 2
    assert " IO-" in result.stderr


def test_a_save_that_cannot_be_written_stops_the_game(tmp_path: Path) -> None:
    result = _invoke(["--human", "red", "--save", str(tmp_path)], "1\n")  # a directory
    assert result.exit_code == 2
    assert "IO-WRITE cannot write" in result.stderr


def test_resume_keeps_saving_where_save_says(tmp_path: Path) -> None:
    first, other = tmp_path / "first.save", tmp_path / "other.save"
    _invoke(["--human", "red", "--save", str(first)], "1\n")
    kept = first.read_text()
    result = _invoke(["--resume", str(first), "--save", str(other)], "1\n1\n")
    assert result.exit_code == 2
    assert first.read_text() == kept
    assert json.loads(other.read_text())["decisions"] > json.loads(kept)["decisions"]


def test_a_standing_pass_is_saved_and_goes_on_after_resume(tmp_path: Path) -> None:
    """A human who passes on (`>`: until something happens to one of theirs) and whose input ends:
    the save keeps the standing pass, and the resumed game ends as the uninterrupted one."""
    args = ["--players", "4", "--seed", "2", "--human", "red"]
    lines = [">", "1"] * 40
    whole = _digest(_invoke([*args, "--format", "json"], _typed(lines)))
    played = _resumed(tmp_path, args, lines, [20], False)
    assert next(played).exit_code == 2
    saved = json.loads((tmp_path / "game.save").read_text())
    assert set(saved["passing"]) == {"red"} and saved["passing"]["red"]["scope"] is None
    *_, last = played
    assert _digest(last) == whole


def test_a_saves_text_is_its_document_as_json(base_pack: Pack) -> None:
    """`save_text` writes the position's text apart (`Game.to_json_text`): the line is the same."""
    from coh_core.agents.saving import PlaySetup, save_document, save_text

    game = new_game(base_pack, players=4, seed=2)
    agents = {c: RandomAgent(seed=i) for i, c in enumerate(game.players)}
    setup = PlaySetup(seed=2, bots="random", humans=[])
    for _ in range(3):
        for _ in range(40):
            colour = game.waiting[0]
            game.submit(colour, ask(game, agents[colour], colour))
        document = save_document(game, setup, agents, {}, {})
        assert save_text(game, setup, agents, {}, {}) == json.dumps(document, separators=(",", ":"))

"""Whatever a pack or a person at the terminal does at play time is bounded and reported cleanly.

Hostile packs (`hostile_packs/*.yaml`, see its README) are played through `coh play --format
json`: each ends fast, within a memory bound, with its exit code, exactly one JSON document
and exactly the located problems it lists. Nasty answers typed at the prompt are asked again
(or end the game cleanly), and the prompt's parser answers any text at once.
"""

from __future__ import annotations

import io
import json
import random
import resource
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from coh_core import packs
from coh_core.agents import RandomAgent, terminal
from coh_core.agents import runner as agents_runner
from coh_core.agents.runner import play_out
from coh_core.agents.terminal import parse_answer, read_answer
from coh_core.cli import main
from coh_core.effects.checker import Symbols, check_condition, check_effect
from coh_core.effects.parser import EffectSyntaxError, parse_condition, parse_effect
from coh_core.engine import EngineError, Game, new_game, rules_for
from coh_core.engine import game as game_module
from coh_core.engine.compile.where import runtime_message
from coh_core.engine.record import RECORD_FORMAT
from coh_core.errors import ContentError
from coh_core.limits import MAX_ANSWER_CHARS, MAX_OPTIONS
from coh_core.packs import load_pack_checked
from coh_core.packs.declarations import declarations_of
from coh_core.packs.effects_index import pack_verbs
from coh_core.packs.model import Pack

CASE_DIR = Path(__file__).parent / "hostile_packs"
CASES = sorted(CASE_DIR.glob("*.yaml"))
DEFAULT_PLAY = ["--players", "3", "--seed", "1"]
MEMORY_GROWTH = 128 * 2**20  # bytes the process's peak may grow by in one case (unbounded: gigabytes)
DEADLINE = 60  # seconds: a case still running then is taken to run without end
INTERNALS = ("Traceback", "object at 0x", "<coh_core")


class RanTooLong(Exception):
    """A case went past the deadline."""


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging the test run) when the body runs past `seconds`."""

    def expire(signum: int, frame: Any) -> None:
        raise RanTooLong(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _peak_memory() -> int:
    """The most memory this process has held so far, in bytes (Linux counts in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _invoke(args: list[str], answers: str | bytes | None = None) -> tuple[Result, int]:
    """Run `coh` under the deadline; the result, and by how much the process's peak memory grew
    (cheap, unlike tracing every allocation, and enough to see a list of millions built)."""
    before = _peak_memory()
    with _deadline(DEADLINE):
        result = CliRunner().invoke(main, args, input=answers)
    return result, _peak_memory() - before


def _clean(result: Result) -> None:
    """Ended by its own exit code, never by an exception escaping, and no Python internals shown."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"escaped: {result.exception!r}") from result.exception
    for text in (result.stdout, result.stderr):
        assert not any(marker in text for marker in INTERNALS), text[-2000:]


@pytest.fixture(autouse=True)
def _builtin_pack_loaded_once(monkeypatch: pytest.MonkeyPatch, base_pack: Pack) -> None:
    """`coh play` without `--pack` gets the session's built-in pack instead of reading it again
    (the command is otherwise the same); a `--pack` (a hostile one) is read as it is."""
    load = packs.load_pack_checked  # the command line imports it from there when it runs

    def cached(pack: Path | None, rules: Any = ()) -> Pack:
        return base_pack if pack is None and not rules else load(pack, rules)

    monkeypatch.setattr(packs, "load_pack_checked", cached)


# --- hostile packs ---------------------------------------------------------------------------


def _apply(pack: Path, case: dict[str, Any]) -> None:
    """The case's edits to a copy of the base pack (the shape of tests/broken_packs)."""
    for edit in case.get("edits", []):
        target = pack / edit["file"]
        text = target.read_text(encoding="utf-8")
        assert edit["replace"] in text, f"case edit does not apply: {edit['replace']!r}"
        target.write_text(text.replace(edit["replace"], edit["with"], edit.get("count", 1)), encoding="utf-8")
    for relative, content in (case.get("add") or {}).items():
        (pack / relative).write_text(content, encoding="utf-8")
    for relative in case.get("remove", []):
        (pack / relative).unlink()


def _position(pack: Path, expected: dict[str, Any]) -> tuple[int, int]:
    """Line and column of the first occurrence of `at` (plus `offset`) in the edited file."""
    text = (pack / expected["file"]).read_text(encoding="utf-8")
    index = text.index(expected["at"]) + expected.get("offset", 0)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _found(pack: Path, problems: list[dict[str, Any]]) -> list[tuple[str, str, int, int]]:
    return sorted(
        (p["code"], Path(p["file"]).resolve().relative_to(pack.resolve()).as_posix(), p["line"], p["col"])
        for p in problems
    )


def _wanted(pack: Path, case: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    return sorted((e["code"], e["file"], *_position(pack, e)) for e in case["expect"])


@pytest.mark.parametrize("case_path", CASES, ids=lambda p: p.stem)
def test_a_hostile_pack_is_bounded_and_reported_located(case_path: Path, base_copy: Path) -> None:
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    _apply(base_copy, case)
    args = ["play", "--pack", str(base_copy), "--format", "json", *case.get("play", DEFAULT_PLAY)]
    result, growth = _invoke(args)
    _clean(result)
    assert growth < MEMORY_GROWTH, f"peak memory grew by {growth / 2**20:.0f} MiB"
    assert result.exit_code == case["exit"], result.output[-3000:]
    document = json.loads(result.stdout)  # exactly one JSON document, nothing else on stdout
    if case["exit"] == 0:
        assert document["digest"] and document["result"]["winners"]
        return
    assert document["ok"] is False
    assert _found(base_copy, document["problems"]) == _wanted(base_copy, case)
    for expected in case["expect"]:
        if "message" in expected:
            messages = [p["message"] for p in document["problems"] if p["code"] == expected["code"]]
            assert any(expected["message"] in m for m in messages), messages
    # found by validating the pack (what `coh validate` runs), before any game, or by the engine
    found_by_validation = "fix the pack first (coh validate)" in result.stderr
    assert found_by_validation == bool(case.get("validate")), result.stderr[-2000:]


def test_there_are_hostile_packs_for_every_bound() -> None:
    codes = {e["code"] for path in CASES for e in yaml.safe_load(path.read_text(encoding="utf-8"))["expect"]}
    assert {"EFF-RANGE", "ENGINE-LIMIT", "ENGINE-CASCADE", "EFF-RUNTIME", "SCHEMA-RANGE"} <= codes


STATIC = yaml.safe_load((Path(__file__).parent / "hostile_effects.yaml").read_text(encoding="utf-8"))


@cache
def _symbols() -> Symbols:
    """@bank, the base pack's enumerations and traits (`until=end_of_turn`, `votes`) and its verbs."""
    pack = load_pack_checked()
    declared = declarations_of(pack)
    return Symbols({"bank": "location"}, declared=declared, verbs=pack_verbs(pack, declared))


@dataclass(frozen=True)
class _Found:
    """A problem in an effect's source, from the parser or the checker: code, offset, message."""

    code: str
    start: int
    message: str


def _check(case: dict[str, Any]) -> tuple[str, list[_Found]]:
    """The case's source and what validation finds in it (a number past the bound is refused
    by the parser, everything else by the checker)."""
    source = case.get("condition") or case["effect"]
    try:
        if "condition" in case:
            findings = check_condition(parse_condition(source), _symbols(), case["context"])
        else:
            findings = check_effect(parse_effect(source), _symbols(), case["context"])
    except EffectSyntaxError as error:
        return source, [_Found(error.code, error.offset, error.message)]
    return source, [_Found(f.code, f.span.start, f.message) for f in findings]


@pytest.mark.parametrize("case", STATIC["problems"], ids=lambda c: c.get("effect") or c["condition"])
def test_the_checker_reports_what_the_source_shows(case: dict[str, Any]) -> None:
    source, findings = _check(case)
    assert [(f.code, f.start) for f in findings] == [(case["code"], source.index(case["at"]))]
    assert case["message"] in findings[0].message


@pytest.mark.parametrize("case", STATIC["allowed"], ids=lambda c: c["effect"])
def test_the_checker_leaves_computed_values_to_play_time(case: dict[str, Any]) -> None:
    assert _check(case)[1] == []


def _hostile_game(base_copy: Path, case: str, players: int, seed: int) -> Game:
    _apply(base_copy, yaml.safe_load((CASE_DIR / f"{case}.yaml").read_text(encoding="utf-8")))
    return new_game(load_pack_checked(base_copy), players=players, seed=seed)


def _negative_counts(value: Any, path: str = "") -> Iterator[str]:
    """Where the state holds a number below zero."""
    if isinstance(value, bool):
        return
    if isinstance(value, int) and value < 0:
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _negative_counts(item, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _negative_counts(item, f"{path}/{index}")


@pytest.mark.parametrize("seed", [2, 3])
def test_counts_computed_below_zero_never_put_a_negative_count_in_the_state(
    base_copy: Path, seed: int
) -> None:
    game = _hostile_game(base_copy, "computed_counts_below_zero_and_beyond_what_there_is", 3, seed)
    agents = {c: RandomAgent(seed * 10 + i) for i, c in enumerate(game.players)}

    def watch(game: Game, decision: Any) -> None:
        assert not list(_negative_counts(game.state))
        if game.state["turn"] >= 1 and game.state["phase"] != "end":
            # `take_antidotes(500)` at setup took all there was; only the end gives any back
            assert game.state["counts"]["reserve"]["antidotes"] == 0

    play_out(game, agents, before=watch)
    assert game.over and not list(_negative_counts(game.state))


class _Eager:
    """Uses the given power whenever it may, else takes the first answer offered."""

    def __init__(self, power: str):
        self.power = ("power", power)

    def act(self, view: Any, legal: list[Any]) -> Any:
        return self.power if self.power in legal else legal[0]


def test_a_window_that_never_closes_is_stopped_where_it_opens(base_copy: Path) -> None:
    """A power that rests its own character (once it is used) can be used again and again; the
    first window of the movement procedure that asks its owner (the action window after the first
    move), in the pack's own code, is where the game stops."""
    (base_copy / "characters.yaml").write_text(
        (base_copy / "characters.yaml")
        .read_text(encoding="utf-8")
        .replace(
            "effect: draw_cards(1)", "effect: if is_exhausted(self) { rest(self) } else { no_effect() }"
        ),
        encoding="utf-8",
    )
    pack = load_pack_checked(base_copy)
    game = next(g for s in range(1, 40) if "sushi_chef" in (g := new_game(pack, 3, s)).pieces)
    with pytest.raises(EngineError) as raised:
        play_out(game, {c: _Eager("sushi_chef") for c in game.players})
    error = raised.value
    assert error.code == "ENGINE-LIMIT" and "something can be used again and again" in error.message
    assert error.location is not None
    text = (base_copy / "procedures-movement.yaml").read_text(encoding="utf-8").splitlines()
    assert Path(error.location.file).name == "procedures-movement.yaml"
    assert text[error.location.line - 1][error.location.col - 1 :].startswith(
        "action_window([after_move, anytime]"
    )


def test_an_event_declared_with_names_the_pack_does_not_give_is_refused_before_play(base_copy: Path) -> None:
    """The movement procedure is pack code: a pack that renames the name `character_moved` binds
    is refused where its own procedure emits the event without it."""
    declarations = base_copy / "declarations.yaml"
    declarations.write_text(
        declarations.read_text(encoding="utf-8").replace(
            "names: {mover: character}\n  card_played:", "names: {walker: character}\n  card_played:"
        ),
        encoding="utf-8",
    )
    with pytest.raises(ContentError) as raised:
        load_pack_checked(base_copy)
    found = {(p.code, Path(p.location.file).name) for p in raised.value.problems}
    where = "procedures-movement.yaml"
    assert found == {("EFF-ARITY", where), ("EFF-UNKNOWN-ARG", where)}


def test_an_event_declared_with_names_the_engine_does_not_give_stops_the_game_there(base_copy: Path) -> None:
    """The engine's own verbs still emit `character_moved` with `mover` (`move_character`): a pack
    that renames it, in its declaration and its own procedure, validates (no trigger uses it), and
    the first card that moves a character stops at the declaration."""
    declarations = base_copy / "declarations.yaml"
    text = declarations.read_text(encoding="utf-8").replace(
        "names: {mover: character}\n  card_played:", "names: {walker: character}\n  card_played:"
    )
    declarations.write_text(text, encoding="utf-8")
    procedures = base_copy / "procedures-movement.yaml"
    procedures.write_text(
        procedures.read_text(encoding="utf-8").replace(
            "emit(character_moved, mover=mover, at=target)", "emit(character_moved, walker=mover, at=target)"
        ),
        encoding="utf-8",
    )
    actions = base_copy / "actions.yaml"
    actions.write_text(
        actions.read_text(encoding="utf-8").replace(
            "effect: kill_zombies(1, at=choose(locations_with_zombies()))",
            "effect: move_character(first(my_characters()), to=choose(locations()), overflow=@crossroads)",
        ),
        encoding="utf-8",
    )
    game = new_game(load_pack_checked(base_copy), 3, 1)
    with pytest.raises(EngineError) as raised:
        play_out(game, {c: RandomAgent(i) for i, c in enumerate(game.players)})
    error = raised.value
    assert (error.code, error.message) == (
        "ENGINE-DECLARATION",
        "the pack's event `character_moved` binds `walker`, which the engine does not give"
        " (it gives `mover`)",
    )
    assert error.location is not None and Path(error.location.file).name == "declarations.yaml"
    assert text.splitlines()[error.location.line - 1].strip() == "character_moved:"


def test_a_trait_the_engine_reads_and_the_pack_does_not_declare_is_an_engine_error_at_the_traits() -> None:
    """The engine's own procedures still read `hidden` by name (validation sees only the pack's
    uses of it), so a pack without it fails where it declares its traits."""
    pack = load_pack_checked()  # a pack of its own: its rules are changed below
    rules = rules_for(pack)
    rules.declared = replace(
        rules.declared, traits={k: v for k, v in rules.declared.traits.items() if k != "hidden"}
    )
    with pytest.raises(EngineError) as raised:
        rules.trait_default("granny", "hidden")
    error = raised.value
    assert (error.code, error.message) == (
        "ENGINE-DECLARATION",
        "the engine reads the trait `hidden`, which the pack does not declare (`traits`)",
    )
    assert error.location is not None and Path(error.location.file).name == "declarations.yaml"


def _deeper(frames: int, run: Any) -> Any:
    """Call `run` from `frames` calls further down the stack."""
    return run() if frames <= 0 else _deeper(frames - 1, run)


def test_a_cascade_nested_in_loops_does_not_use_the_interpreters_stack(base_copy: Path) -> None:
    """Each trigger here nests its move deep in loops and tests, and the game starts 400 Python
    frames down: effects run as frames of the machine, not as nested Python calls, so the
    cascade bound (64 triggers) stops it, located at the trigger's effect, before any stack runs out."""
    _apply(base_copy, yaml.safe_load((CASE_DIR / "trigger_fires_itself.yaml").read_text(encoding="utf-8")))
    turn = base_copy / "turn.yaml"
    move = "move_character(mover, to=first(other_locations(location_of(mover))), overflow=@crossroads)"
    deep = f"for c in characters_at(location_of(mover)) {{ if c == mover {{ if true {{ {move} }} }} }}"
    turn.write_text(turn.read_text(encoding="utf-8").replace(move, deep), encoding="utf-8")
    args = ["play", "--pack", str(base_copy), "--format", "json", *DEFAULT_PLAY]
    result = _deeper(400, lambda: CliRunner().invoke(main, args))
    _clean(result)
    assert result.exit_code == 1
    [problem] = json.loads(result.stdout)["problems"]
    assert problem["code"] == "ENGINE-CASCADE" and "trigger number 65 of one action" in problem["message"]
    assert _found(base_copy, [problem]) == [
        ("ENGINE-CASCADE", "turn.yaml", *_position(base_copy, {"file": "turn.yaml", "at": deep}))
    ]


def test_a_game_past_the_decision_bound_is_stopped_with_one_json_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(game_module, "MAX_DECISIONS", 10)
    result, _ = _invoke(["play", *DEFAULT_PLAY, "--format", "json"])
    _clean(result)
    assert result.exit_code == 1
    [problem] = json.loads(result.stdout)["problems"]
    assert problem["code"] == "ENGINE-LIMIT" and problem["file"].endswith("turn.yaml")
    assert "more than 10 decisions" in problem["message"]


def test_an_engine_failure_is_one_report_without_internals(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> int:
        raise RuntimeError("<coh_core.engine.game.Game object at 0x7f3a2b1c>")

    monkeypatch.setattr(agents_runner, "play_out", broken)
    result, _ = _invoke(["play", *DEFAULT_PLAY, "--format", "json"])
    _clean(result)
    assert result.exit_code == 1
    [problem] = json.loads(result.stdout)["problems"]
    assert problem["code"] == "ENGINE-INTERNAL"
    assert problem["message"] == "the engine failed (RuntimeError: Game)"


def test_runtime_messages_name_no_python_object() -> None:
    assert runtime_message(ZeroDivisionError("integer division or modulo by zero")) == "division by zero"
    assert (
        runtime_message(KeyError("<coh_core.x.Y object at 0xdeadbeef>"))
        == "the engine failed (KeyError: 'Y')"
    )


# --- the terminal prompt ----------------------------------------------------------------------


HUMAN = ["play", *DEFAULT_PLAY, "--human", "red", "--format", "json"]
ONES = "1\n" * 6  # a few first answers, then the input ends (exit 2) with the record so far
ASKED_AGAIN = "Type one of the keys: "

# Answers that are no number of the list: each is asked again, and the game is the same.
REFUSED: dict[str, str | bytes] = {
    "superscript_two": "²",
    "fullwidth_digit": "\uff13",  # a full-width 3
    "arabic_indic_digit": "\u0663",  # an Arabic-Indic 3
    "five_thousand_digits": "9" * 5000,
    "zeros_then_five_thousand_digits": "0" * 3000 + "7" * 5000,
    "negative": "-1",
    "zero": "0",
    "past_the_list": "99",
    "plus_sign": "+1",
    "decimal": "1.0",
    "exponent": "1e0",
    "hexadecimal": "0x1",
    "word": "zwei",
    "control_characters": "\x00\x07\x08\x7f",
    "escape_sequence": "\x1b[A\x1b[2J",
    "empty_line": "",
    "blank_line": " \t ",
    "very_long_line": "x" * 200_000,
    "long_line_of_blanks_around_a_digit": " " * MAX_ANSWER_CHARS + "1",
    "not_utf8": b"\xff\xfe\xc3",
}
# Answers that are a number of the list, however written.
ACCEPTED = {"spaces": " 2 ", "leading_zeros": "0002", "windows_line_end": "2\r", "tab": "\t2"}


def _typed(answer: str | bytes) -> bytes:
    return (answer if isinstance(answer, bytes) else answer.encode()) + b"\n"


@pytest.mark.parametrize("answer", REFUSED.values(), ids=list(REFUSED))
def test_a_refused_answer_is_read_and_refused(answer: str | bytes) -> None:
    line = read_answer(io.BytesIO(_typed(answer) + b"1\n"))
    assert parse_answer(line, 4) is None


@pytest.mark.parametrize("answer", ACCEPTED.values(), ids=list(ACCEPTED))
def test_a_number_of_the_list_is_read_and_taken(answer: str) -> None:
    assert parse_answer(read_answer(io.BytesIO(_typed(answer))), 4) == 2


def _decisions(answers: str | bytes, log: Path) -> tuple[list[dict[str, Any]], Result]:
    """The decisions a game records when the human gives these answers and the input ends."""
    result, growth = _invoke([*HUMAN, "--log", str(log)], answers)
    _clean(result)
    assert result.exit_code == 2, result.output[-2000:]
    assert growth < MEMORY_GROWTH
    return _record(log), result


def test_refused_answers_are_asked_again_and_the_game_goes_on(tmp_path: Path) -> None:
    nasty = b"".join(_typed(answer) for answer in REFUSED.values())
    decisions, result = _decisions(nasty + ONES.encode(), tmp_path / "nasty.jsonl")
    assert result.stderr.count(ASKED_AGAIN) == len(REFUSED)
    # as if none of them had been typed
    assert decisions == _decisions(ONES, tmp_path / "plain.jsonl")[0]


def test_a_number_written_with_blanks_is_taken(tmp_path: Path) -> None:
    decisions, result = _decisions(" 02\r\n" + ONES, tmp_path / "written.jsonl")
    assert ASKED_AGAIN not in result.stderr
    assert decisions == _decisions("2\n" + ONES, tmp_path / "plain.jsonl")[0]
    assert decisions != _decisions(ONES, tmp_path / "first.jsonl")[0]


def test_a_human_game_is_played_to_its_end_with_valid_answers() -> None:
    result, _ = _invoke(HUMAN, "1\n" * 4000)
    _clean(result)
    assert result.exit_code == 0 and json.loads(result.stdout)["result"]["winners"]


def test_the_prompt_asks_again_in_the_players_language() -> None:
    result = CliRunner().invoke(main, [*HUMAN, "--lang", "fr"], input="²\n" + ONES)
    _clean(result)
    assert result.exit_code == 2
    assert result.stderr.count("Tapez l'une des touches : ") == 1
    assert result.stderr.splitlines()[-1] == "L'entrée est terminée : la partie s'arrête ici, inachevée."


def _record(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_end_of_the_input_ends_the_game_cleanly(tmp_path: Path, fmt: str) -> None:
    log = tmp_path / "game.jsonl"
    args = ["play", *DEFAULT_PLAY, "--human", "red", "--format", fmt, "--log", str(log)]
    result, _ = _invoke(args, "1\n1\n1\n")
    _clean(result)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "The input has ended: the game stops here, unfinished."
    if fmt == "json":
        assert [p["code"] for p in json.loads(result.stdout)["problems"]] == ["PLAY-INPUT-ENDED"]
    lines = _record(log)  # the decisions so far, without an end line
    assert lines[0]["coh_record"] == RECORD_FORMAT and len(lines) >= 4
    assert all(set(line) == {"answers"} for line in lines[1:])


def test_no_input_at_all_ends_the_game_cleanly() -> None:
    result, _ = _invoke(["play", *DEFAULT_PLAY, "--human", "red"], "")
    _clean(result)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "The input has ended: the game stops here, unfinished."


def test_ctrl_c_ends_the_game_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = iter(["1\n", "1\n"])

    def typed(stream: Any) -> str:
        answer = next(calls, None)
        if answer is None:
            raise KeyboardInterrupt
        return answer

    monkeypatch.setattr(terminal, "read_answer", typed)
    log = tmp_path / "game.jsonl"
    result, _ = _invoke(["play", *DEFAULT_PLAY, "--human", "red", "--lang", "es", "--log", str(log)])
    _clean(result)
    assert result.exit_code == 130
    assert result.stderr.splitlines()[-1] == "Interrumpida: la partida se detiene aquí, sin terminar."
    assert "end" not in _record(log)[-1]


# --- the prompt's parser, on any text -----------------------------------------------------------

_HIGH = st.integers(min_value=1, max_value=MAX_OPTIONS)


@given(st.text(), _HIGH)
def test_parse_answer_returns_a_listed_number_or_none(text: str, high: int) -> None:
    number = parse_answer(text, high)
    assert number is None or (1 <= number <= high and int(text.strip()) == number)


@given(st.from_regex(r"\A\s*[0-9]{0,6000}\s*\Z"), _HIGH)
def test_parse_answer_never_converts_a_huge_number(text: str, high: int) -> None:
    number = parse_answer(text, high)
    digits = text.strip().lstrip("0")
    assert number == (int(digits) if digits and len(digits) <= 4 and int(digits) <= high else None)


@given(st.integers(min_value=-(10**12), max_value=10**12), _HIGH)
def test_parse_answer_takes_exactly_the_numbers_of_the_list(value: int, high: int) -> None:
    assert parse_answer(str(value), high) == (value if 1 <= value <= high else None)


@given(st.binary(max_size=4000), st.integers(min_value=1, max_value=64))
def test_read_answer_reads_any_bytes_a_bounded_line_at_a_time(data: bytes, limit: int) -> None:
    stream = io.BytesIO(data)
    answers: list[str] = []
    with pytest.raises(EOFError):
        while True:
            answers.append(read_answer(stream, limit))
    assert len(answers) <= data.count(b"\n") + 1
    assert all(len(a) <= limit + 1 for a in answers)  # a line and its line end, or "" if longer


# --- long runs ------------------------------------------------------------------------------------


@pytest.mark.soak
@settings(max_examples=5000)
@given(st.text(max_size=20000), _HIGH)
def test_soak_parse_answer_on_long_text(text: str, high: int) -> None:
    number = parse_answer(text, high)
    assert number is None or 1 <= number <= high


def _nasty_answers(seed: int, count: int = 6000) -> str:
    """Valid answers with every kind of refused answer mixed in."""
    rng = random.Random(seed)
    refused = [a for a in REFUSED.values() if isinstance(a, str)]
    return "".join(
        (rng.choice(refused) if rng.random() < 0.3 else str(rng.randint(1, 4))) + "\n" for _ in range(count)
    )


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(40))
def test_soak_games_with_nasty_answers_end_cleanly(seed: int) -> None:
    args = ["play", "--players", str(3 + seed % 4), "--seed", str(seed), "--human", "red", "--human", "blue"]
    result, growth = _invoke(args, _nasty_answers(seed))
    _clean(result)
    assert result.exit_code in (0, 2), result.output[-2000:]  # 2: the answers ran out first
    assert growth < MEMORY_GROWTH

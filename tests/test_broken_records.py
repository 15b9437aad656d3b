"""Broken records: each case edits a real game's record and lists exactly the problems
`coh replay` must report (code, line, column) and its exit code. See broken_records/README.md."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from jsonschema import Draft7Validator

from coh_core.agents import RandomAgent
from coh_core.agents.runner import ask
from coh_core.cli import main
from coh_core.engine import new_game, record_text
from coh_core.engine.record import RecordError, load, save
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.resources import schema_path

CASE_DIR = Path(__file__).parent / "broken_records"
CASES = sorted(CASE_DIR.glob("*.yaml"))
_MARK = "\x00value\x00"  # stands for raw JSON text while a line is serialized


def _pieces(value: Any) -> str:
    """A text given directly or as [piece, times] pairs (for long hostile texts)."""
    if isinstance(value, str):
        return value
    return "".join(str(piece) * times for piece, times in value)


def _index(lines: list[str], number: int) -> int:
    return number - 1 if number > 0 else len(lines) + number


def _set(line: str, path: list[Any], edit: dict[str, Any]) -> str:
    value = json.loads(line)
    *parents, last = path
    target = value
    for step in parents:
        target = target[step]
    if "delete" in edit:
        del target[last]
        return json.dumps(value, separators=(",", ":"))
    target[last] = _MARK if "json" in edit else edit["value"]
    text = json.dumps(value, separators=(",", ":"))
    return text.replace(json.dumps(_MARK), _pieces(edit["json"])) if "json" in edit else text


def _edit_lines(lines: list[str], edit: dict[str, Any]) -> None:
    if "remove" in edit:
        del lines[_index(lines, edit["remove"])]
    elif "insert" in edit:
        text = lines[_index(lines, edit["copy"])] if "copy" in edit else _pieces(edit["text"])
        lines.insert(_index(lines, edit["insert"]), text)
    elif "text" in edit:
        lines[_index(lines, edit["line"])] = _pieces(edit["text"])
    else:
        index = _index(lines, edit["line"])
        lines[index] = _set(lines[index], edit.get("set") or edit["delete"], edit)


def _apply(record: bytes, edits: list[dict[str, Any]]) -> bytes:
    data = record
    for edit in edits:
        if "bytes" in edit:
            data = bytes.fromhex(edit["bytes"])
        elif "append_bytes" in edit:
            data += bytes.fromhex(_pieces(edit["append_bytes"]))
        elif "replace_bytes" in edit:
            assert edit["replace_bytes"].encode() in data, f"case edit does not apply: {edit}"
            data = data.replace(
                edit["replace_bytes"].encode(), bytes.fromhex(edit["hex"]), edit.get("count", 1)
            )
        else:
            lines = data.decode("utf-8").split("\n")[:-1]  # the record ends with a newline
            _edit_lines(lines, edit)
            data = ("\n".join(lines) + "\n").encode("utf-8")
    return data


def _position(data: bytes, expected: dict[str, Any]) -> tuple[int, int]:
    """Line and column as the case gives them: a column, or the first occurrence of `at`."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    if data.endswith(b"\n"):
        lines.pop()
    line = expected["line"] if expected["line"] > 0 else len(lines) + 1 + expected["line"]
    if "col" in expected:
        return line, expected["col"]
    text = lines[line - 1]
    assert expected["at"] in text, f"`at` text not on line {line}: {expected['at']!r}"
    return line, text.index(expected["at"]) + expected.get("offset", 0) + 1


@pytest.fixture()
def built_in_pack_once(base_pack: Pack, monkeypatch: pytest.MonkeyPatch) -> None:
    """`coh replay` without --pack or --rules gets the session's base pack instead of loading
    it again for each case (the pack is not what these cases break)."""

    def loaded(root: Path | None = None, rules: Sequence[str] = ()) -> Pack:
        return base_pack if root is None and not rules else load_pack_checked(root, rules)

    monkeypatch.setattr("coh_core.packs.load_pack_checked", loaded)  # where the command line takes it


@pytest.mark.parametrize("case_path", CASES, ids=lambda p: p.stem)
@pytest.mark.usefixtures("built_in_pack_once")
def test_broken_record(
    case_path: Path, played_record: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = yaml.safe_load(case_path.read_text(encoding="utf-8"))
    for name, value in (case.get("limits") or {}).items():
        assert hasattr(record_text, name), name
        monkeypatch.setattr(record_text, name, value)
    record = tmp_path / "game.jsonl"
    data = _apply(played_record, case.get("edits", []))
    record.write_bytes(data)
    result = CliRunner().invoke(main, ["replay", str(record), "--format", "json"])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == case.get("exit", 1), result.output
    document = json.loads(result.stdout)  # exactly one JSON document
    assert document["ok"] == (result.exit_code == 0)
    found = sorted((p["code"], p["line"], p["col"]) for p in document["problems"])
    wanted = sorted((e["code"], *_position(data, e)) for e in case.get("expect", []))
    assert found == wanted, result.stderr
    assert all(p["file"] == str(record) for p in document["problems"])
    for expected in case.get("expect", []):
        problem = next(
            p
            for p in document["problems"]
            if (p["code"], p["line"], p["col"]) == (expected["code"], *_position(data, expected))
        )
        for text in expected.get("says", []):
            assert text in problem["message"], (text, problem["message"])


def test_there_are_at_least_twenty_cases() -> None:
    assert len(CASES) >= 20


_LOCATED = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<code>REPLAY-[A-Z]+) \S")


def test_text_output_names_file_line_and_column(played_record: bytes, tmp_path: Path) -> None:
    lines = played_record.decode().split("\n")
    header = json.loads(lines[0])
    header["seed"] = 1.5
    lines[0] = json.dumps(header, separators=(",", ":"))
    record = tmp_path / "game.jsonl"
    record.write_text("\n".join(lines), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(record)])
    assert result.exit_code == 1
    assert result.stdout == ""
    match = _LOCATED.match(result.stderr)
    assert match is not None, result.stderr
    assert (match["file"], match["line"], match["col"], match["code"]) == (
        str(record),
        "1",
        str(lines[0].index("1.5") + 1),
        "REPLAY-SCHEMA",
    )
    assert "`seed` must be an integer, got 1.5" in result.stderr


def test_a_sound_record_replays_with_exit_0(played_record: bytes, tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    record.write_bytes(played_record)
    result = CliRunner().invoke(main, ["replay", str(record), "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    end = json.loads(played_record.decode().splitlines()[-1])
    assert document["ok"] and document["problems"] == [] and document["digest"] == end["digest"]


def _fifo(tmp: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    os.mkfifo(tmp / "pipe.jsonl")
    return tmp / "pipe.jsonl"


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda tmp: tmp / "absent.jsonl", "IO-MISSING"),
        (lambda tmp: tmp, "IO-READ"),  # a directory
        (_fifo, "IO-READ"),  # opening a named pipe would wait for a writer for ever
    ],
    ids=["missing", "directory", "pipe"],
)
def test_an_unreadable_path_is_a_usage_error(make: Any, code: str, tmp_path: Path) -> None:
    path = make(tmp_path)
    result = CliRunner().invoke(main, ["replay", str(path), "--format", "json"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    document = json.loads(result.stdout)
    assert document["ok"] is False
    assert [(p["code"], p["file"]) for p in document["problems"]] == [(code, str(path))]
    assert f"{path}: {code} " in result.stderr


def test_a_file_that_cannot_be_opened_is_a_usage_error(
    played_record: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "game.jsonl"
    record.write_bytes(played_record)
    opened = Path.open

    def refuse_the_record(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == record:
            raise PermissionError(13, "Permission denied")
        return opened(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse_the_record)
    result = CliRunner().invoke(main, ["replay", str(record)])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"{record}: IO-READ cannot read {record}: Permission denied\n"


def test_a_saved_game_loads_and_a_broken_save_is_refused(base_pack: Pack) -> None:
    """The Python save/load goes through the same checks as a record file."""
    game = new_game(base_pack, players=4, seed=3)
    agents = {colour: RandomAgent(seed=index) for index, colour in enumerate(game.players)}
    for _ in range(30):
        decision = game.decision
        assert decision is not None
        for colour in decision.waiting:
            game.submit(colour, ask(game, agents[colour], colour))
    saved = save(game, seed=3)
    assert load(base_pack, saved).digest() == game.digest()
    saved["header"]["seed"] = "3"
    with pytest.raises(RecordError) as caught:
        load(base_pack, saved)
    assert (caught.value.code, caught.value.message) == (
        "REPLAY-SCHEMA",
        '`seed` must be an integer, got "3"',
    )


def test_the_schema_is_draft_07_and_takes_every_line_the_writer_writes(played_record: bytes) -> None:
    """Editors and other tools read the schema with plain draft-07: it must agree with the writer."""
    schema = json.loads(schema_path("record.schema.json").read_text(encoding="utf-8"))
    Draft7Validator.check_schema(schema)
    plain = Draft7Validator(schema)
    lines = [json.loads(line) for line in played_record.decode().splitlines()]
    assert {next(iter(line)) for line in lines} == {"coh_record", "answers", "end"}
    for line in lines:
        assert list(plain.iter_errors(line)) == [], line

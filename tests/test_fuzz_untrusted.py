"""Property-based fuzzing of what reads untrusted text: the YAML loader and the effect parser
and checker. Whatever the input, the answer is data or the project's own located problems:
never another exception. The default run is short; `-m soak` runs the same properties longer."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coh_core.effects.parser import EffectSyntaxError, parse_condition, parse_effect
from coh_core.effects.registry import signatures
from coh_core.errors import Problem
from coh_core.packs.effects_index import compile_slot, symbols_of
from coh_core.packs.model import EffectSlot, Pack
from coh_core.packs.yamlsrc import YamlDoc, load_yaml, parse_yaml

QUICK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LONG = settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces of YAML, sharp ones included: anchors, aliases, tags, directives, flow and block
# collections, quotes, tabs, NUL, a byte-order mark, YAML 1.1 words, and numbers too long.
_YAML_PIECES = [
    "- ", ": ", "? ", "[", "]", "{", "}", ", ", "&a ", "&b ", "*a", "*b", "!!python/object:os.system ",
    "!include ", "!!str ", "!x ", "%TAG ! tag:x,2000:\n", "%YAML 1.2\n", "---\n", "...\n", "'", '"',
    "|\n", ">-\n", "#", "\n", "  ", "\t", "\x00", "\ufeff", "no", "on", "~", "1", "0x1f", "1:30",
    "9" * 30, "1" * 5000, "1e999", ".nan", "key", "value", "é", "\\", "<<: ",
]  # fmt: skip

_EFFECT_PIECES = [
    "(", ")", "{", "}", "[", "]", ":", ",", ";", "=", "==", "<", ">=", "+", "-", "*", "//", "@", "let ",
    "if ", "else ", "for ", " in ", "and ", "or ", "not ", "true", "false", '"x"', '"', "#", "\n", " ", "0",
    "7", "9" * 25, "1" * 5000, "here", "me", "x", "target", "é", "\x00",
]  # fmt: skip


def _soup(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=60).map("".join)


def _is_located(problem: Problem, file: str) -> bool:
    location = problem.location
    return bool(problem.code) and location.file == file and location.line >= 0 and location.col >= 0


def _check_yaml(text: str) -> None:
    doc, problems = parse_yaml(text, "fuzz.yaml")
    assert all(_is_located(p, "fuzz.yaml") for p in problems), problems
    assert doc is not None or problems
    if doc is not None:
        json.dumps(doc.data, default=str)  # plain data, however deep the input tried to go


def _check_yaml_bytes(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.yaml"
        path.write_bytes(raw)
        doc, problems = load_yaml(path, "fuzz.yaml")
    assert all(_is_located(p, "fuzz.yaml") for p in problems), problems
    assert doc is not None or problems


def _check_effect(text: str) -> None:
    for parse in (parse_effect, parse_condition):
        try:
            parse(text)
        except EffectSyntaxError as error:
            assert error.code.startswith("EFF-") and error.line >= 1 and error.col >= 1
            assert 0 <= error.offset <= len(text)


def _effect_checker(base_pack: Pack) -> Callable[[str], None]:
    """Parse and type-check a text as a character's power in the base pack."""
    symbols = symbols_of(base_pack)

    def check(text: str) -> None:
        # the text as if written at line 1, column 9 of a file (no YAML: any character may come)
        doc = YamlDoc("fuzz.yaml", "effect: x\n", {"effect": text}, values={("effect",): (1, 9)})
        slot = EffectSlot("fuzzer", doc, ("effect",), text, "effect", "power")
        _, found = compile_slot(slot, symbols)
        assert all(_is_located(p, "fuzz.yaml") for p in found), found

    return check


_TEXT = st.one_of(st.text(), _soup(_YAML_PIECES))
_EFFECTS = st.one_of(st.text(), _soup(_EFFECT_PIECES + sorted(signatures())))


@QUICK
@given(_TEXT)
def test_yaml_text_gives_data_or_located_problems(text: str) -> None:
    _check_yaml(text)


@QUICK
@given(st.binary(max_size=400))
def test_yaml_bytes_give_data_or_located_problems(raw: bytes) -> None:
    _check_yaml_bytes(raw)


@QUICK
@given(_EFFECTS)
def test_effect_text_parses_or_gives_a_located_syntax_error(text: str) -> None:
    _check_effect(text)


@QUICK
@given(text=_EFFECTS)
def test_effect_text_is_checked_without_crashing(base_pack: Pack, text: str) -> None:
    _effect_checker(base_pack)(text)


@pytest.mark.soak
@LONG
@given(_TEXT)
def test_yaml_text_soak(text: str) -> None:
    _check_yaml(text)


@pytest.mark.soak
@LONG
@given(st.binary(max_size=4000))
def test_yaml_bytes_soak(raw: bytes) -> None:
    _check_yaml_bytes(raw)


@pytest.mark.soak
@LONG
@given(text=_EFFECTS)
def test_effect_text_soak(base_pack: Pack, text: str) -> None:
    _check_effect(text)
    _effect_checker(base_pack)(text)

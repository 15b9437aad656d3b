"""`coh serve`: without its optional libraries a clear message naming the extra, exit 2; the browser
tests' rule for a missing browser (skip, but fail where COH_REQUIRE_BROWSER is set)."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from coh_core.cli import main


@pytest.mark.parametrize("library", ["starlette", "uvicorn"])
def test_a_missing_library_asks_for_the_extra(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, library: str
) -> None:
    monkeypatch.setitem(sys.modules, library, None)  # importing it now fails, as if not installed
    result = runner.invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 2, result.output
    assert "WEB-EXTRA" in result.stderr and library in result.stderr
    # how to install it from a checkout, and the extra of coh's own distribution (`coh` on the
    # package index is another project's)
    assert "pip install '.[web]'" in result.stderr and "coh-engine[web]" in result.stderr
    assert "coh[" not in result.stderr
    assert "Traceback" not in result.output


def test_serve_is_documented(runner: CliRunner) -> None:
    result = runner.invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    for option in (
        "--host",
        "--port",
        "--db",
        "--max-rooms",
        "--rate",
        "--idle-hours",
        "--over-hours",
        "--expert-iterations",
    ):
        assert option in result.output


def test_a_missing_browser_fails_where_it_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    from .test_browser import _need

    monkeypatch.setenv("COH_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="COH_REQUIRE_BROWSER is set"):
        _need("no Chromium")
    monkeypatch.delenv("COH_REQUIRE_BROWSER")
    with pytest.raises(pytest.skip.Exception):
        _need("no Chromium")

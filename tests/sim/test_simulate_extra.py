"""`coh simulate` without its optional libraries: a clear message naming the extra, exit 2."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from coh_core.cli import main


@pytest.mark.parametrize("library", ["joblib", "scipy", "matplotlib", "tqdm"])
def test_a_missing_library_asks_for_the_extra(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, library: str
) -> None:
    monkeypatch.setitem(sys.modules, library, None)  # importing it now fails, as if not installed
    result = runner.invoke(main, ["simulate", "--games", "2"])
    assert result.exit_code == 2, result.output
    assert "SIM-EXTRA" in result.stderr
    assert library in result.stderr
    # how to install it from a checkout, and the extra of coh's own distribution (`coh` on the
    # package index is another project's)
    assert "pip install '.[sim]'" in result.stderr and "coh-engine[sim]" in result.stderr
    assert "coh[" not in result.stderr
    assert "Traceback" not in result.output


def test_the_dask_backend_asks_for_its_own_extra(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("joblib", reason="the extra sim is not installed")
    pytest.importorskip("scipy", reason="the extra sim is not installed")
    pytest.importorskip("matplotlib", reason="the extra sim is not installed")
    pytest.importorskip("tqdm", reason="the extra sim is not installed")
    monkeypatch.setitem(sys.modules, "distributed", None)
    result = runner.invoke(main, ["simulate", "--games", "2", "--backend", "dask"])
    assert result.exit_code == 2, result.output
    assert "pip install '.[dask]'" in result.stderr and "coh-engine[dask]" in result.stderr

"""Balance at scale: many bot games per variant of the rules, their statistics and a report.

The libraries this needs are an optional extra (`pip install '.[sim]'`); `missing_libraries`
says which are absent so the command line can ask for them instead of failing on an import.
"""

from __future__ import annotations

import importlib.util

from coh_core.build_info import install_hint

REQUIRED = ("joblib", "scipy", "matplotlib", "tqdm")
INSTALL_HINT = install_hint("sim")
DASK_HINT = install_hint("dask")

# The files a simulation writes in its output folder (named here, where naming them imports no
# plotting library: the command checks the folder before any game).
PLOTS = {
    "seats": "seat-win-rates.png",
    "characters": "character-win-rates.png",
    "lengths": "game-lengths.png",
}
OUTPUTS = ("games.jsonl", "summary.json", *PLOTS.values(), "report.md")


def missing_libraries(names: tuple[str, ...] = REQUIRED) -> list[str]:
    """The libraries among `names` that are not installed (found without importing them: the
    simulation's workers are forked before the statistics libraries start their threads)."""
    return [name for name in names if importlib.util.find_spec(name) is None]

"""Balance at scale: many bot games per variant of the rules, their statistics and a report.

The libraries this needs are an optional extra (`pip install 'coh[sim]'`); `missing_libraries`
says which are absent so the command line can ask for them instead of failing on an import.
"""

from __future__ import annotations

import importlib

REQUIRED = ("joblib", "statsmodels", "matplotlib", "tqdm")
INSTALL_HINT = "pip install 'coh[sim]'"
DASK_HINT = "pip install 'coh[dask]'"


def missing_libraries(names: tuple[str, ...] = REQUIRED) -> list[str]:
    """The libraries among `names` that cannot be imported."""
    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing

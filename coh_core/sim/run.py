"""A whole simulation: the games of every variant, on the chosen backend, then their summary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from coh_core.sim.games import Variant, run_dask, run_joblib, tasks_for
from coh_core.sim.stats import summarize


def simulate(
    variants: Sequence[Variant],
    games: int,
    *,
    pack_root: str | None = None,
    bots: Sequence[str] = ("heuristic",),
    seed: int = 1,
    workers: int = -1,
    backend: str = "joblib",
    scheduler: str | None = None,
    progress: bool = True,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play `games` games of each variant; the records in order and their summary.

    The records and the summary depend only on the arguments, never on the backend or the
    number of workers: every game has its own seeds and the records come back in game order.
    """
    tasks = tasks_for(variants, games, pack_root, bots, seed)
    with tqdm(total=games * len(variants), unit="game", disable=not progress, desc="simulate") as bar:
        if backend == "dask":
            records = run_dask(tasks, scheduler, bar.update)
        else:
            records = run_joblib(tasks, workers, bar.update)
    return records, summarize(records, [(v.name, v.players) for v in variants])

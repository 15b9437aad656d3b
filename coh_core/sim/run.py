"""A whole simulation: the games of every variant, on the chosen backend, then their summary."""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import import_module
from typing import Any

from coh_core.packs.model import Pack
from coh_core.sim.games import PackKey, Progress, Variant, remember_packs, run_dask, run_joblib, tasks_for


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
    packs: Mapping[PackKey, Pack] | None = None,
    expert: tuple[int | None, float | None] = (None, None),
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play `games` games of each variant; the records in order and their summary.

    The records and the summary depend only on the arguments, never on the backend or the
    number of workers: every game has its own seeds and the records come back in game order.
    `packs`: those already loaded and checked, by directory and overlays (else loaded here).
    `expert`: the expert bot's budget, iterations and seconds per searched decision (None: its default).
    """
    remember_packs(packs or {})
    tasks = tasks_for(variants, games, pack_root, bots, seed, expert)
    with _progress_bar(games * len(variants), progress) as advance:
        if backend == "dask":
            records = run_dask(tasks, scheduler, advance)
        else:
            records = run_joblib(tasks, workers, advance, meanwhile=load_report_libraries)
    from coh_core.sim.stats import summarize  # SciPy: after the workers are forked

    return records, summarize(records, [(v.name, v.players) for v in variants])


@contextmanager
def _progress_bar(total: int, shown: bool) -> Iterator[Progress]:
    """What advances a progress bar of `total` games on stderr (`shown`: else nothing is drawn,
    and tqdm is not even imported: that took 25 ms before the first game)."""
    if not shown:
        yield lambda _: None
        return
    from tqdm import tqdm

    # No monitor thread: the workers are forked from this process, and a fork copies no thread.
    tqdm.monitor_interval = 0
    with tqdm(total=total, unit="game", desc="simulate") as bar:
        yield bar.update


def skip_last_collections() -> None:
    """At this process's exit, leave out of its last garbage collections every object it made.

    The interpreter's finalization collects garbage while it tears the modules down: with the
    packs, SciPy and matplotlib loaded, going through all their objects took a third of a
    second of processor time after the report was written. Nothing the command leaves needs
    those collections: its files are closed, its workers and their pool ended.
    """
    atexit.unregister(gc.freeze)  # once, however often the command runs in this process (tests)
    atexit.register(gc.freeze)


def load_report_libraries() -> None:
    """Import what the statistics and the report need (SciPy, matplotlib: over a second
    of processor time): done while forked workers play, it no longer waits for the last game."""
    for name in ("coh_core.sim.stats", "coh_core.sim.report"):
        import_module(name)

"""Play the games of a simulation: the same seeds in every variant, in order whatever the workers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coh_core.agents import Agent, RandomAgent
from coh_core.agents.heuristic import HeuristicAgent
from coh_core.agents.runner import play_out
from coh_core.engine import new_game
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack

BOT_KINDS = ("random", "heuristic")
CHUNK = 8  # games per task: few enough for a smooth progress bar, enough to amortize a task's cost


@dataclass(frozen=True)
class Variant:
    """A set of rules to play: the pack with these overlays, at this many seats."""

    name: str
    overlays: tuple[str, ...]
    players: int


@dataclass(frozen=True)
class Task:
    """A run of consecutive games of one variant (picklable: it crosses to other processes)."""

    variant: Variant
    pack_root: str | None
    bots: tuple[str, ...]
    base_seed: int
    first: int
    count: int


_PACKS: dict[tuple[str | None, tuple[str, ...]], Pack] = {}


def _pack(root: str | None, overlays: tuple[str, ...]) -> Pack:
    """The pack with its overlays, loaded once per worker process."""
    key = (root, overlays)
    if key not in _PACKS:
        _PACKS[key] = load_pack_checked(Path(root) if root else None, overlays)
    return _PACKS[key]


def game_seed(base_seed: int, index: int) -> int:
    """The seed of game `index`: the same in every variant (common random numbers)."""
    return base_seed * 1_000_003 + index


def seats_of(default: Sequence[str], index: int) -> list[str]:
    """The colours in seat order for game `index`: rotated one seat per game, so each colour
    sits in each seat equally often over any multiple of the table's size."""
    shift = index % len(default)
    return list(default[shift:]) + list(default[:shift])


def _agent(kind: str, seed: int, pack: Pack) -> Agent:
    return HeuristicAgent(seed, pack) if kind == "heuristic" else RandomAgent(seed)


def play_game(
    pack: Pack, variant: Variant, bots: Sequence[str], base_seed: int, index: int
) -> dict[str, Any]:
    """One game to its end; its record (one JSON line of games.jsonl)."""
    seed = game_seed(base_seed, index)
    default = new_game(pack, variant.players, seed).players
    game = new_game(pack, variant.players, seed, seats_of(default, index))
    kinds = list(bots) * variant.players if len(bots) == 1 else list(bots)  # one kind, or one per seat
    agents = {
        colour: _agent(kinds[seat], seed * 7919 + seat, pack) for seat, colour in enumerate(game.players)
    }
    # Who holds which pieces is read from the public view (the agents' API), before play moves them.
    owners = _owners(game.view(game.players[0]).to_json())
    decisions = play_out(game, agents)
    end = game.view(game.players[0]).to_json()
    result = end["result"] or {}
    alive = _alive(end)
    return {
        "variant": variant.name,
        "players": variant.players,
        "game": index,
        "seed": seed,
        "seats": list(game.players),
        "bots": kinds,
        "scores": dict(result.get("scores", {})),
        "living": dict(result.get("living", {})),
        "winners": list(result.get("winners", [])),
        "characters": {piece: {"owner": owner, "alive": alive.get(piece)} for piece, owner in owners.items()},
        "turns": end["turn"],
        "decisions": decisions,
    }


def _players_pieces(view: dict[str, Any]) -> dict[str, Any]:
    """The pieces players own in a view: those of the kind the pack gives the role `players`."""
    kind = (view.get("piece_roles") or {}).get("players")
    pieces: dict[str, Any] = (view.get("pieces") or {}).get(kind) or {}
    return pieces


def _owners(view: dict[str, Any]) -> dict[str, str]:
    pieces = _players_pieces(view)
    return {piece: str(ch["owner"]) for piece, ch in sorted(pieces.items()) if ch.get("owner")}


def _alive(view: dict[str, Any]) -> dict[str, bool]:
    return {piece: bool(ch.get("alive", True)) for piece, ch in _players_pieces(view).items()}


def play_task(task: Task) -> list[dict[str, Any]]:
    """The records of a task's games, in game order."""
    pack = _pack(task.pack_root, task.variant.overlays)
    return [
        play_game(pack, task.variant, task.bots, task.base_seed, index)
        for index in range(task.first, task.first + task.count)
    ]


def tasks_for(
    variants: Sequence[Variant], games: int, pack_root: str | None, bots: Sequence[str], base_seed: int
) -> list[Task]:
    """Every variant's games cut into tasks; variant by variant, in game order."""
    return [
        Task(variant, pack_root, tuple(bots), base_seed, first, min(CHUNK, games - first))
        for variant in variants
        for first in range(0, games, CHUNK)
    ]


Progress = Callable[[int], None]
SCHEDULER_TIMEOUT = "30s"  # to reach a Dask scheduler before giving up


def run_joblib(tasks: Sequence[Task], workers: int, progress: Progress) -> list[dict[str, Any]]:
    """The tasks on this machine's cores (`workers`: a count, or -1 for all of them)."""
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=workers, return_as="generator")  # yields in submission order
    records: list[dict[str, Any]] = []
    for chunk in parallel(delayed(play_task)(task) for task in tasks):
        records.extend(chunk)
        progress(len(chunk))
    return records


def run_dask(tasks: Sequence[Task], scheduler: str | None, progress: Progress) -> list[dict[str, Any]]:
    """The tasks on a Dask cluster (its scheduler's address), or on a local one when none is given."""
    from distributed import Client, LocalCluster, as_completed

    cluster = None if scheduler else LocalCluster(host="127.0.0.1", dashboard_address=None)
    try:
        with Client(scheduler or cluster, timeout=SCHEDULER_TIMEOUT) as client:
            futures = client.map(play_task, list(tasks), pure=False)
            for future in as_completed(futures):
                progress(len(future.result()))
            chunks: list[list[dict[str, Any]]] = client.gather(futures)  # in submission order
    finally:
        if cluster is not None:
            cluster.close()
    return [record for chunk in chunks for record in chunk]

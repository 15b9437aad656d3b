"""Play the games of a simulation: the same seeds in every variant, in order whatever the workers."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from coh_core.agents import Agent, make_bot
from coh_core.agents.runner import play_out
from coh_core.engine import new_game, rules_for
from coh_core.limits import MAX_SEED, MIN_SEED
from coh_core.packs import load_pack_checked
from coh_core.packs.model import Pack
from coh_core.packs.results import ResultSpec

# Games per task: one, so that at the end no worker waits while another plays out a long run of
# games (with 8, 100 games made 13 tasks: 7 on one worker, 6 on the other). Handing a task to a
# worker and its record back costs far less than playing the game.
CHUNK = 1


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
    # The pack as this process already loaded and checked it, pickled to a private temporary
    # file: a worker reads it instead of loading and checking the pack again.
    pack_file: str | None = None
    expert: tuple[int | None, float | None] = (None, None)  # the expert bot's iterations, seconds


PackKey = tuple[str | None, tuple[str, ...]]  # a pack's directory (None: the built-in) and overlays
_PACKS: dict[PackKey, Pack] = {}


def remember_packs(packs: Mapping[PackKey, Pack]) -> None:
    """Packs this process has loaded and checked already: its games use them as they are."""
    _PACKS.update(packs)


def _pack(root: str | None, overlays: tuple[str, ...], pack_file: str | None = None) -> Pack:
    """The pack with its overlays, loaded once per worker process (from `pack_file` if given)."""
    key = (root, overlays)
    if key not in _PACKS:
        if pack_file is not None:
            # written by the process that started this worker, in a directory only it can write
            _PACKS[key] = pickle.loads(Path(pack_file).read_bytes())
        else:
            _PACKS[key] = load_pack_checked(Path(root) if root else None, overlays)
    return _PACKS[key]


SEED_STRIDE = 1_000_003  # between the first games' seeds of two consecutive base seeds


def game_seed(base_seed: int, index: int) -> int:
    """The seed of game `index`: the same in every variant (common random numbers)."""
    return base_seed * SEED_STRIDE + index


def base_seeds(games: int) -> tuple[int, int]:
    """The lowest and highest base seeds whose `games` games all have seeds a record holds."""
    return -(MIN_SEED // -SEED_STRIDE), (MAX_SEED - (games - 1)) // SEED_STRIDE


def seats_of(default: Sequence[str], index: int) -> list[str]:
    """The colours in seat order for game `index`: rotated one seat per game, so each colour
    sits in each seat equally often over any multiple of the table's size."""
    shift = index % len(default)
    return list(default[shift:]) + list(default[:shift])


def _agent(kind: str, seed: int, pack: Pack, expert: tuple[int | None, float | None]) -> Agent:
    return make_bot(kind, seed, pack, *expert)


def play_game(
    pack: Pack,
    variant: Variant,
    bots: Sequence[str],
    base_seed: int,
    index: int,
    expert: tuple[int | None, float | None] = (None, None),
) -> dict[str, Any]:
    """One game to its end; its record (one JSON line of games.jsonl)."""
    seed = game_seed(base_seed, index)
    default = new_game(pack, variant.players, seed).players
    game = new_game(pack, variant.players, seed, seats_of(default, index))
    kinds = list(bots) * variant.players if len(bots) == 1 else list(bots)  # one kind, or one per seat
    agents = {
        colour: _agent(kinds[seat], seed * 7919 + seat, pack, expert)
        for seat, colour in enumerate(game.players)
    }
    # Who holds which pieces is read from the public view (the agents' API), before play moves them.
    owners = _owners(game.view(game.players[0]).to_json())
    decisions = play_out(game, agents)
    end = game.view(game.players[0]).to_json()
    alive = _alive(end)
    return {
        "variant": variant.name,
        "players": variant.players,
        "game": index,
        "seed": seed,
        "seats": list(game.players),
        "bots": kinds,
        **_outcome(game.rules.result, end["result"] or {}, list(game.players)),
        "survivors": _survivors(end, game.players),
        "characters": {piece: {"owner": owner, "alive": alive.get(piece)} for piece, owner in owners.items()},
        "turns": end["turn"],
        "decisions": decisions,
    }


def _outcome(declared: ResultSpec | None, result: dict[str, Any], seats: list[str]) -> dict[str, Any]:
    """What a game came to, as its pack declares it (`result`: the kind, None where it declares
    none): a ranking's scores, tie-break values and winners; a team's `won` (every seat a winner
    when the team won, where nobody is ranked)."""
    found: dict[str, Any] = {
        "result": declared.kind if declared is not None else None,
        "scores": dict(result.get("scores", {})),
        "tie_breaks": {name: dict(values) for name, values in (result.get("tie_breaks") or {}).items()},
        "winners": list(result.get("winners", [])),
    }
    if declared is not None and declared.team:
        found["won"] = bool(result.get("won"))
        if not declared.ranked:
            found["winners"] = list(seats) if found["won"] else []
    return found


def _survivors(view: dict[str, Any], seats: Sequence[str]) -> dict[str, int]:
    """Each seat's pieces (of the kind players own) still alive at the end of the game."""
    owned = dict.fromkeys(seats, 0)
    for piece in _players_pieces(view).values():
        if piece.get("alive", True) and piece.get("owner") in owned:
            owned[piece["owner"]] += 1
    return owned


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
    pack = _pack(task.pack_root, task.variant.overlays, task.pack_file)
    return [
        play_game(pack, task.variant, task.bots, task.base_seed, index, task.expert)
        for index in range(task.first, task.first + task.count)
    ]


def tasks_for(
    variants: Sequence[Variant],
    games: int,
    pack_root: str | None,
    bots: Sequence[str],
    base_seed: int,
    expert: tuple[int | None, float | None] = (None, None),
) -> list[Task]:
    """Every variant's games cut into tasks; variant by variant, in game order."""
    return [
        Task(variant, pack_root, tuple(bots), base_seed, first, min(CHUNK, games - first), expert=expert)
        for variant in variants
        for first in range(0, games, CHUNK)
    ]


Progress = Callable[[int], None]
SCHEDULER_TIMEOUT = "10s"  # for a Dask scheduler that accepts the connection to answer
CONNECT_SECONDS = 3.0  # to open a connection to a Dask scheduler before giving up
DEFAULT_SCHEDULER_PORT = 8786


def unreachable(scheduler: str, seconds: float = CONNECT_SECONDS) -> str | None:
    """Why nothing accepts a connection at a Dask scheduler's address (None: something does).

    Only TCP and TLS addresses are tried; Dask itself reports on the others.
    """
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, where = parse_address(scheduler)
        if protocol not in ("tcp", "tls"):
            return None
        host, port = parse_host_port(where, default_port=DEFAULT_SCHEDULER_PORT)
    except ValueError as exc:
        return f"not an address such as tcp://HOST:{DEFAULT_SCHEDULER_PORT} ({exc})"
    try:
        socket.create_connection((host, port), timeout=seconds).close()
    except TimeoutError:
        return f"no answer from {host}:{port} within {seconds:g} s"
    except OSError as exc:
        return f"cannot connect to {host}:{port} ({exc.strerror or exc})"
    return None


def worker_count(workers: int) -> int:
    """How many processes `workers` means: a count, or -1 for every core, -2 for all but one..."""
    return workers if workers > 0 else max(1, (os.cpu_count() or 1) + 1 + workers)


def run_joblib(
    tasks: Sequence[Task], workers: int, progress: Progress, meanwhile: Callable[[], None] | None = None
) -> list[dict[str, Any]]:
    """The tasks on this machine's cores (`workers`: a count, or -1 for all of them, -2 for all
    but one...), their records in task order.

    Every pack is loaded and compiled for play here, once. On Linux the worker processes are
    then forked from this one and start playing at once; elsewhere joblib's fresh processes
    each read the packs from a private pickle (and compile them again). `meanwhile`: work of this
    process's own that it does while forked workers play (in a thread, after they are forked).
    """
    count = min(worker_count(workers), len(tasks))  # no process without a game to play
    for key in dict.fromkeys((task.pack_root, task.variant.overlays) for task in tasks):
        rules_for(_pack(*key))
    chunks: Iterable[list[dict[str, Any]]]
    with _made_so_far_frozen():
        if count == 1 or len(tasks) == 1:
            chunks = map(play_task, tasks)
        elif sys.platform == "linux":  # fork is the default there (no thread of ours runs yet)
            chunks = _forked(tasks, count, meanwhile)
        else:
            chunks = _on_joblib(tasks, count)
        try:
            return _collect(chunks, progress)
        finally:  # left early (a failure, Ctrl-C): the workers are ended now, not when collected
            if isinstance(chunks, Generator):
                chunks.close()


@contextmanager
def _made_so_far_frozen() -> Iterator[None]:
    """The objects made so far (the packs, their compiled rules) left out of garbage collections
    while the games play, wherever they play.

    A collection goes through every object it tracks: in a worker forked from this process it
    would also copy each page of this process's memory into the worker (copy-on-write); in this
    process (one worker) it would go through the packs again and again, game after game.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _collect(chunks: Iterable[list[dict[str, Any]]], progress: Progress) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for chunk in chunks:
        records.extend(chunk)
        progress(len(chunk))
    return records


def _forked(
    tasks: Sequence[Task], count: int, meanwhile: Callable[[], None] | None = None
) -> Iterator[list[dict[str, Any]]]:
    """The tasks' records in order, from `count` processes forked from this one (which runs
    `meanwhile` in a thread once they are: a fork copies no thread, nor what it started).

    concurrent.futures' pool, not multiprocessing's: the latter's thread that watches its
    workers also woke up at each record until another of its threads had read it, and spun
    meanwhile (1 to 2 ms of processor time per game on a loaded machine, taken from the
    workers' cores); this one has one thread that waits for the records and reads them. A
    worker that dies ends the games with an error, where multiprocessing's pool waited for its
    tasks forever. After a failure, Ctrl-C, or when the records are no longer wanted, the
    workers are ended at once: the games being played are not waited for, the others not played.
    """
    fork = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(count, mp_context=fork, initializer=_leave_interruptions_to_parent) as pool:
        # Not `pool.map`: leaving its iterator cancels the games not begun, and Python 3.11's
        # pool, told then that its workers ended, fails in its thread (a traceback on stderr)
        # setting an error on those cancelled games.
        records = [pool.submit(play_task, task) for task in tasks]  # forks the workers first
        helper = _started(meanwhile)
        try:
            for record in records:
                yield record.result()
        except BrokenProcessPool as exc:
            raise ChildProcessError(f"a worker process ended before its games ({exc})") from exc
        except BaseException:
            _end_workers(pool)
            raise
        if helper is not None:
            helper.join()


def _leave_interruptions_to_parent() -> None:
    """In a worker: Ctrl-C and a hang-up, which the terminal sends to every process of the
    command, are the parent's to act on (it ends the workers); SIGTERM ends a worker at once
    (the parent's handlers, inherited through the fork, are not a worker's)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """End a pool's worker processes now, in the middle of their games (SIGTERM).

    Python 3.14 has `ProcessPoolExecutor.terminate_workers`; before it, the pool's processes.
    """
    for process in list((pool._processes or {}).values()):
        process.terminate()


def _started(work: Callable[[], None] | None) -> threading.Thread | None:
    """`work` running in a thread of its own (None: no work), its failure left for the caller
    to meet again when it does the work itself (never a traceback from the thread)."""
    if work is None:
        return None

    def attempt() -> None:
        with suppress(Exception):  # done again (and reported) on the main thread
            work()

    thread = threading.Thread(target=attempt, name="coh-sim-meanwhile", daemon=True)
    thread.start()
    return thread


def _on_joblib(tasks: Sequence[Task], count: int) -> Iterator[list[dict[str, Any]]]:
    """The tasks' records in order, from `count` joblib processes that read the packs' pickles."""
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=count, return_as="generator")  # yields in submission order
    with _packs_handed_over(tasks) as handed:
        yield from parallel(delayed(play_task)(task) for task in handed)


@contextmanager
def _packs_handed_over(tasks: Sequence[Task]) -> Iterator[Sequence[Task]]:
    """The tasks, each with its pack (loaded here once) pickled to a file its worker reads: a
    worker process then starts in a fraction of the time it takes to load and check a pack."""
    with tempfile.TemporaryDirectory(prefix="coh-sim-") as folder:  # private: mode 0700
        files: dict[PackKey, str] = {}
        for task in tasks:
            key = (task.pack_root, task.variant.overlays)
            if key not in files:
                files[key] = str(Path(folder) / f"pack-{len(files)}.pickle")
                data = pickle.dumps(_pack(*key), protocol=pickle.HIGHEST_PROTOCOL)
                Path(files[key]).write_bytes(data)
        yield [replace(task, pack_file=files[task.pack_root, task.variant.overlays]) for task in tasks]


def run_dask(tasks: Sequence[Task], scheduler: str | None, progress: Progress) -> list[dict[str, Any]]:
    """The tasks on a Dask cluster (its scheduler's address), or on a local one when none is given."""
    from distributed import Client, LocalCluster, as_completed

    cluster = None if scheduler else LocalCluster(host="127.0.0.1", dashboard_address=None)
    try:
        try:
            client = Client(scheduler or cluster, timeout=SCHEDULER_TIMEOUT)
        except Exception as exc:  # a peer that is no scheduler fails in many ways (even MemoryError)
            raise ConnectionError(
                f"no Dask scheduler answered at {scheduler or 'the local cluster'}"
                f" ({type(exc).__name__}: {exc})"
            ) from exc
        with client:
            futures = client.map(play_task, list(tasks), pure=False)
            for future in as_completed(futures):
                progress(len(future.result()))
            chunks: list[list[dict[str, Any]]] = client.gather(futures)  # in submission order
    finally:
        if cluster is not None:
            cluster.close()
    return [record for chunk in chunks for record in chunk]

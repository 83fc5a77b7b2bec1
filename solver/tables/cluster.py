"""The N-player solve on a Dask cluster (issue 70, "Beyond one machine"):
``farkle solve GAME --players N --cluster ADDRESS``; this module is the
client, :mod:`solver.tables.cluster_tasks` the tasks.

The sweeps are :func:`solver.engine.n_player.run_sweeps`'s, the loop the
single-process solve runs; only the blocks of a level are solved
elsewhere. A level's blocks are cut into chunks of about equal work, a
Dask task each (:func:`solver.tables.cluster_tasks.solve_chunk`): the task
maps the checkpoint's values copy-on-write (:mod:`solver.tables.checkpoint`),
runs the same compiled kernel (:meth:`solver.engine.n_player.Setup.solve_blocks`)
on its blocks, and returns its blocks' values, their take-over rows and
the passes each block took. The client, the one writer, writes them into
its read-write map; then the blocks that cycle are settled as tasks too
(:func:`solver.tables.cluster_tasks.settle_chunk`, by
:func:`solver.engine.n_player.settle_blocks`, as the single-process solve
settles them) from the level's values flushed; the client writes their
values, merges their mixed decisions in block order, flushes, and
records the level done.

Why the bits are the same: a block reads only the values of higher levels,
its own nodes' and (with falls) lower levels' of the previous sweep, and
writes only its own nodes' values and take-over rows, so neither the order
nor the grouping of a level's blocks changes what each computes (the
single-process kernel runs them in any order too, a thread each); and a
task's map holds, for every value it reads, what the single-process
solve's array holds at that point.

Values move between workers through the file store: the checkpoint's
directory must be one that every worker sees at the same path (one machine,
or a shared file system), and every worker must run this code; a task
checks both before its worker's first work of a solve, and a worker that
fails either stops the solve in one line
(:func:`solver.tables.cluster_tasks.check_view`). The client's writes
reach the workers through it, not through a protocol of our own; the
tasks' results come back through Dask.

``--cluster local:W`` starts a local cluster of W worker processes, one
thread each (:class:`distributed.LocalCluster`), each within
``--worker-memory`` (Dask's ``memory_limit``); any other value is the
address of a running scheduler, whose workers have their own
``--memory-limit``. Each task reports its worker's peak resident memory
(:func:`peak_bytes`), and the solve's ``stats["cluster"]`` the largest per
worker, and the client's. Dask is imported only here, and only when
a solve asks for a cluster (``pip install 'farkle-solver[cluster]'``).
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import os
import re
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from solver.engine.n_player import Level, Setup, run_sweeps, sweep_stats
from solver.engine.solution_n import MultiSolution
from solver.engine.turn_kernel_n import MultiValues
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.states import PlayerSpace, player_space
from solver.tables.checkpoint import Checkpoint, identity, write_token
from solver.tables.cluster_tasks import (
    WorkerView,
    code_digest,
    peak_bytes,
    reset_peak,
    settle_chunk,
    solve_chunk,
)
from solver.text import _, number

LOCAL = "local:"
CONNECT_SECONDS = 5
"""How long a scheduler (and its first worker) has to answer."""
CHUNKS_PER_WORKER = 1
"""Tasks per worker thread at each level. One: a task maps the values
afresh, and its page faults cost more than chunks cut by work are uneven
(4-player Pig to 40, tasks run one after the other: 13.1 s at one task a
level, 13.8 s at two, 16.1 s at four; the kernel alone 10.2 s)."""
INSTALL = "pip install 'farkle-solver[cluster]'"
UNITS = {"": 1, "b": 1, **{f"{p}{b}": 1000 ** i for i, p in enumerate("kmgtp", 1)
                           for b in ("", "b")},
         **{f"{p}i{b}": 1024 ** i for i, p in enumerate("kmgtp", 1) for b in ("", "b")}}
"""Dask's units (``dask.utils.parse_bytes``), lower case."""
MIN_WORKER_MEMORY = 100 * 10**6
"""Below this a worker cannot even start (Python, numpy, numba, Dask)."""


class LostLevel(UsageError):
    """The cluster lost a level's tasks (workers stopped): the checkpoint
    is kept."""


class Stopped(Exception):
    """The solve stopped after the levels it was asked to solve
    (``stop_after_levels``, for tests); the checkpoint holds them."""


def parse_cluster(text: str) -> tuple[str, int | str]:
    """``("local", W)`` for ``local:W`` (W at least 1), else
    ``("address", text)``; UsageError for a value that is neither."""
    if text.startswith(LOCAL):
        count = text[len(LOCAL):]
        if not count.isdigit() or int(count) < 1:
            raise UsageError(_("--cluster local:W takes a number of workers of 1 or more, "
                               "not {value}").format(value=repr(text)))
        return "local", int(count)
    if not text or any(c.isspace() for c in text) or ":" not in text:
        raise UsageError(_("--cluster takes local:W or a Dask scheduler's address "
                           "(tcp://HOST:PORT), not {value}").format(value=repr(text)))
    return "address", text


def parse_memory(text: str) -> int:
    """Bytes of a ``--worker-memory`` value: ``4GB``, ``1.5GiB``, ``800MB``
    (decimal and binary units, as Dask's ``--memory-limit``); UsageError
    for anything else or less than MIN_WORKER_MEMORY."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([a-zA-Z]*)\s*", str(text))
    unit = found and found.group(2).lower()
    if not found or unit not in UNITS:
        raise UsageError(_("--worker-memory takes a size such as 4GB or 1.5GiB, not {value}")
                         .format(value=repr(text)))
    size = int(float(found.group(1)) * UNITS[unit])
    if size < MIN_WORKER_MEMORY:
        raise UsageError(_("--worker-memory {value} is too small: a worker needs "
                           "{least} MB or more before any work").format(
                               value=text, least=number(MIN_WORKER_MEMORY // 10**6)))
    return size


def check_cluster(cluster: str | None, players: int, worker_memory: str | None = None) -> None:
    """Refuse, before any work, a bad ``--cluster`` or one for two players
    (the two-player solver runs in one process), and a ``--worker-memory``
    without a local cluster (a running cluster's workers are bounded by
    their own ``--memory-limit``)."""
    if worker_memory is not None:
        if cluster is None or parse_cluster(cluster)[0] != "local":
            raise UsageError(_("--worker-memory goes with --cluster local:W; the workers of a "
                               "running scheduler are bounded by their own --memory-limit"))
        parse_memory(worker_memory)
    if cluster is None:
        return
    parse_cluster(cluster)
    if players < 3:
        raise UsageError(_("--cluster is for the N-player solve: --players 3 or more"))


# --------------------------------------------------------------- the client

def chunks(level: Level, b0: int, b1: int, pieces: int) -> list[tuple[int, int]]:
    """Blocks ``b0 <= b < b1`` of ``level`` cut into at most ``pieces`` runs
    of about equal work (DP rows)."""
    pieces = max(1, min(pieces, b1 - b0))
    work = np.cumsum(level.rows[b0:b1])
    cuts = np.searchsorted(work, work[-1] * np.arange(1, pieces) / pieces, side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [b1 - b0]])) + b0
    return [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]


def solve_players_cluster(rules: Rules, players: int, cluster: str, checkpoint: Path,
                          space: PlayerSpace | None = None, tol: float = 1e-12,
                          max_sweeps: int = 200, progress=None,
                          stop_after_levels: int | None = None,
                          worker_memory: str | int | None = None, say=None) -> MultiSolution:
    """:func:`solver.engine.n_player.solve_players` on a Dask cluster
    (module docstring), the values kept in ``checkpoint``: a checkpoint of
    the same solve found there is resumed from its first level not done, a
    foreign or damaged one refused (UsageError) before any cluster starts; a
    new one is made once the cluster answers. The checkpoint is left in
    place (:func:`solver.tables.checkpoint.remove_checkpoint` once the table
    is written). ``stop_after_levels``: raise :class:`Stopped` after solving
    that many levels (tests). ``worker_memory`` (bytes, or a size such as
    ``"4GB"``): each worker's memory limit, for ``local:W`` only (Dask stops
    a worker past 95% of it and runs its tasks again). ``say(line)`` is
    told the Dask dashboard's address where the cluster has one.
    ``stats["cluster"]`` says what ran here: workers, tasks, levels solved,
    the sweep and level resumed at, each worker's peak resident memory and
    limit, the client's peak, the seconds in tasks (summed over workers),
    in levels (tasks out until recorded) and the client's own (writing a
    level's values and recording it), and the blocks whose best responses
    cycle (``cycling_blocks``), settled by ``settle_tasks`` tasks in
    ``settle_seconds``.

    The values the solution holds are the checkpoint's files mapped
    (copy-on-write), not a copy: the client never holds them twice, and
    they stay readable once the checkpoint is removed (POSIX)."""
    started = time.perf_counter()
    reset_peak()
    where = parse_cluster(cluster)
    if isinstance(worker_memory, str):
        check_cluster(cluster, players, worker_memory)
        worker_memory = parse_memory(worker_memory)
    space = space or player_space(rules, "exact")
    ident = identity(rules, space, players, tol, max_sweeps)
    store = Checkpoint.find(checkpoint, ident)
    setup = Setup.of(rules, players, space, reach=None if store is None else store.reach)
    if store is not None:
        store.attach(setup)
    try:
        with _connect(where, worker_memory) as client:
            link = _dashboard(client, where[0] == "local")
            if link and say is not None:
                say(_("the Dask dashboard: {link}").format(link=link))
            if store is None:
                store = Checkpoint.create(checkpoint, ident, setup)
            try:
                solution, state, done = _run(setup, store, client, rules, tol, max_sweeps,
                                             progress, stop_after_levels)
            except LostLevel as error:
                if worker_memory:
                    raise UsageError(_("{error}; a worker is stopped past 95% of its "
                                       "--worker-memory ({size} GB): give it more if that is "
                                       "what stopped them").format(
                                           error=error, size=number(worker_memory / 1e9, 2))
                                     ) from None
                raise
            done["workers"] = len(client.nthreads())
            pids = client.run(os.getpid)
            done["worker_memory_limit"] = {
                str(pids.get(address, address)): w.get("memory_limit")
                for address, w in client.scheduler_info()["workers"].items()}
            if link:
                done["dashboard"] = link
    finally:
        if store is not None:
            store.close()
    solution.V, solution.take_values = store.mapped()
    solution.stats = sweep_stats(setup, state, solution, time.perf_counter() - started)
    done["worker_peak_max_bytes"] = max(done["worker_peak_bytes"].values(), default=0)
    done["client_peak_bytes"] = peak_bytes()
    solution.stats["cluster"] = done
    return solution


def _run(setup, store, client, rules, tol, max_sweeps, progress, stop_after_levels):
    """The sweeps from where ``store`` stands, a level's blocks as tasks."""
    solution = setup.solution(np.asarray(store.V), np.asarray(store.take_values))
    solution.mixed.update(store.mixed)
    solution.equilibria.extend(store.equilibria)
    state = store.state
    done = {"tasks": 0, "levels_solved": 0,
            "resumed_at": [state.sweeps, state.level] if state.sweeps else None,
            "worker_peak_bytes": {}, "task_seconds": 0.0, "level_seconds": 0.0,
            "client_seconds": 0.0, "cycling_blocks": 0, "settle_tasks": 0,
            "settle_seconds": 0.0}
    peaks = done["worker_peak_bytes"]
    values = MultiValues(solution.V, solution.take_values, setup.reach)
    # Compile (or load) the kernel here before any task: the workers then
    # find it in numba's cache and never compile it side by side.
    top = setup.level(0)
    setup.solve_blocks(values, top, 0, 0, True, np.zeros(top.count, dtype=np.int64),
                       np.zeros(top.count))
    spec = (rules, setup.players, setup.space, store.record["identity"]["space"])
    folder = str(store.folder.resolve())
    view = (write_token(store.folder), code_digest())
    slots = max(1, sum(client.nthreads().values()))

    def solve_blocks(level, b0, b1, first_sweep, passes, changes):
        level_started = time.perf_counter()
        futures = [client.submit(solve_chunk, spec, folder, view, level.j, c0, c1, first_sweep,
                                 pure=False, retries=1)
                   for c0, c1 in chunks(level, b0, b1, CHUNKS_PER_WORKER * slots)]
        results = _gather(client, futures, state)
        gathered = time.perf_counter()
        done["tasks"] += len(futures)
        store.save_undo(state.sweeps, state.level, store.V[level.nodes(b0, b1)])
        c0 = b0
        for node_values, rows, take_rows, chunk_passes, chunk_changes, meta in results:
            c1 = c0 + len(chunk_passes)
            store.V[level.nodes(c0, c1)] = node_values
            store.take_values[rows] = take_rows
            passes[c0:c1], changes[c0:c1] = chunk_passes, chunk_changes
            c0 = c1
            worker = str(meta["pid"])
            peaks[worker] = max(peaks.get(worker, 0), meta["peak"])
            done["task_seconds"] += meta["seconds"]
        done["level_seconds"] += time.perf_counter() - level_started
        done["client_seconds"] += time.perf_counter() - gathered

    def settle(level, blocks):
        """The level's cycling blocks as tasks too, once its values are
        flushed for the workers to read; merged in block order, as the
        single process settles them."""
        if not len(blocks):
            return
        started = time.perf_counter()
        store.V.flush()
        store.take_values.flush()
        groups = np.array_split(np.asarray(blocks), min(len(blocks), slots))
        futures = [client.submit(settle_chunk, spec, folder, view, level.j, group.tolist(),
                                 pure=False, retries=1) for group in groups]
        results = _gather(client, futures, state)
        gathered = time.perf_counter()
        for nodes, node_values, rows, take_rows, mixed, equilibria, meta in results:
            store.V[nodes] = node_values
            store.take_values[rows] = take_rows
            for node, decisions in mixed.items():
                solution.mixed.setdefault(node, []).extend(decisions)
            solution.equilibria.extend(equilibria)
            worker = str(meta["pid"])
            peaks[worker] = max(peaks.get(worker, 0), meta["peak"])
            done["task_seconds"] += meta["seconds"]
        done["tasks"] += len(futures)
        done["settle_tasks"] += len(futures)
        done["cycling_blocks"] += len(blocks)
        done["settle_seconds"] += time.perf_counter() - started
        done["client_seconds"] += time.perf_counter() - gathered

    def level_done(state):
        recording = time.perf_counter()
        store.record_level(state, solution)
        done["client_seconds"] += time.perf_counter() - recording
        done["levels_solved"] += 1
        if stop_after_levels is not None and done["levels_solved"] >= stop_after_levels:
            raise Stopped(f"stopped after {done['levels_solved']} levels")

    run_sweeps(setup, solution, solve_blocks, tol, max_sweeps, progress, state, level_done,
               settle)
    return solution, state, done


def _gather(client, futures, state):
    """The tasks' results; a cluster that loses them, or a worker that
    cannot take part (:class:`solver.tables.cluster_tasks.WorkerView`), ends
    in one line, the checkpoint kept."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker
    try:
        return client.gather(futures)
    except WorkerView as error:
        if error.kind == "code":
            raise UsageError(_("the Dask worker on {host} runs other farkle-solver code "
                               "({theirs}) than this client ({ours}): install the same on "
                               "every machine").format(host=error.host, theirs=error.detail,
                                                       ours=code_digest())) from None
        raise UsageError(_("the Dask worker on {host} does not see this solve's checkpoint "
                           "at {folder}: workers on several machines need it on a file "
                           "system they share, at the same path").format(
                               host=error.host, folder=error.detail)) from None
    except (KilledWorker, CancelledError, OSError) as error:
        raise LostLevel(_("the cluster lost level {level} of sweep {sweep} ({why}); the "
                          "checkpoint is kept: run the same command again").format(
                              level=state.level, sweep=state.sweeps, why=_first_line(error))
                        ) from None


@contextmanager
def _sigint_ignored():
    """SIGINT ignored while processes are started (they inherit it), where
    this is the main thread (only it may set a handler)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


@contextmanager
def _quiet():
    """Dask's own logging kept to errors, and asyncio's note on a gather left
    pending when Ctrl-C stops the client, silenced while the solve runs."""
    levels = {name: logging.getLogger(name).level for name in ("distributed", "asyncio")}
    logging.getLogger("distributed").setLevel(logging.ERROR)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def _dashboard(client, local: bool) -> str | None:
    """The Dask dashboard's address, where the scheduler serves one: a
    scheduler always answers on its HTTP port, but without bokeh only with
    a page asking for it. A local scheduler runs in this process (bokeh
    importable here or not); another is asked, for 2 s."""
    try:
        if "dashboard" not in client.scheduler_info().get("services", {}):
            return None
        link = client.dashboard_link
        if local:
            return link if importlib.util.find_spec("bokeh") is not None else None
        import urllib.request
        with urllib.request.urlopen(link, timeout=2) as answer:
            return link if answer.status == 200 and b"needs bokeh" not in answer.read(4096) \
                else None
    except (KeyError, AttributeError, ValueError, OSError):
        return None


WORKER_MEMORY_CONFIG = {"distributed.worker.memory.target": False,
                        "distributed.worker.memory.spill": False,
                        "distributed.worker.memory.pause": False,
                        "distributed.worker.memory.terminate": 0.95}
"""A local worker with a memory limit is stopped past 95% of it (its task
run again, then the solve ends in one line); it never spills (a task's
result is gathered at once) nor pauses (what a worker holds between tasks
is its setup, which does not shrink: a paused worker would wait forever)."""


@contextmanager
def _connect(where, worker_memory: int | None = None):
    """A Dask client: of a new local cluster (each worker's memory limited
    to ``worker_memory`` bytes, else Dask's share of the machine), or of the
    scheduler at an address (UsageError, one line, where none answers)."""
    try:
        import distributed
    except ImportError:
        raise UsageError(_("--cluster needs Dask: {install}").format(install=INSTALL)) from None
    kind, value = where
    with _quiet():
        if kind == "local":
            import dask
            # One numba thread a worker; the workers inherit numba's cache
            # directory with the rest of the environment. They are started
            # ignoring Ctrl-C, which a terminal sends them too: the client
            # stops them when it stops. The scheduler's HTTP port (its
            # dashboard, where bokeh is installed) on a free port: two
            # solves at once do not contend for Dask's 8787.
            with _sigint_ignored(), dask.config.set(WORKER_MEMORY_CONFIG):
                local = distributed.LocalCluster(
                    n_workers=value, threads_per_worker=1, processes=True,
                    dashboard_address=":0", silence_logs=logging.ERROR,
                    memory_limit=worker_memory or "auto",
                    env={"NUMBA_NUM_THREADS": "1"})
            with local, distributed.Client(local) as client:
                yield client
            return
        try:
            client = distributed.Client(value, timeout=CONNECT_SECONDS)
        # A refused port, no answer (OSError), an unknown scheme (ValueError),
        # TLS without its context (TypeError), something else answering
        # (MemoryError).
        except (OSError, ValueError, TypeError, MemoryError) as error:
            raise UsageError(_("no Dask scheduler answers at {address} ({why})").format(
                address=value, why=_first_line(error))) from None
        with client:
            try:
                client.wait_for_workers(1, timeout=CONNECT_SECONDS)
            except (OSError, TimeoutError):
                raise UsageError(_("the Dask scheduler at {address} has no workers (none came "
                                   "in {seconds} s)").format(address=value,
                                                             seconds=CONNECT_SECONDS)) from None
            yield client


def _first_line(error: Exception) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__

"""The cluster's tasks, run in a Dask worker (:mod:`solver.tables.cluster`,
the client, sends them): a chunk of a level's blocks solved, and a level's
blocks whose best responses cycle settled, each against the checkpoint's
values mapped copy-on-write; and each process's peak resident memory, which
a task reports with its result.

A task reads everything from the checkpoint's directory (the values, the
final round's ``reach.npy``) and its arguments, so that any worker can run
it, again if its first worker was lost; it writes nothing but its result.

Before its first task of a solve a worker checks that it can take part
(:func:`check_view`): that it sees the client's folder (the token the
client wrote there, not another folder at the same path on another
machine, nor none) and runs the same code (:func:`code_digest`); else the
task raises :class:`WorkerView`, which the client reports in one line.
Without the check a worker on a machine that does not share the folder
would fail on a missing file, or worse, read a stale folder's values.
"""

from __future__ import annotations

import functools
import hashlib
import os
import resource
import socket
import time
from pathlib import Path

import numpy as np

import solver
from solver.engine.n_player import Setup, settle_blocks
from solver.engine.turn_kernel_n import MultiValues
from solver.tables.checkpoint import read_token

COMPUTING = ("model", "engine")
"""The subpackages whose code computes a solve's values (the rules, the
dice, the kernels): :func:`code_digest` reads them."""

# ------------------------------------------------------------ memory peaks

def reset_peak() -> None:
    """Start this process's peak resident memory afresh from what it holds
    now (Linux: ``/proc/self/clear_refs``); elsewhere the peak stays the
    process's whole life's."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def peak_bytes() -> int:
    """This process's peak resident memory since :func:`reset_peak` (Linux's
    VmHWM; elsewhere ``getrusage``'s, since it started). Mapped pages of
    the checkpoint count while they are resident."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if os.uname().sysname == "Darwin" else peak * 1024


# ---------------------------------------------------- taking part at all

class WorkerView(Exception):
    """A worker that cannot take part in the solve: ``kind`` "folder" (it
    does not see the client's checkpoint at ``detail``) or "code" (it runs
    other code, ``detail`` its version and digest); ``host``, its machine."""

    def __init__(self, kind: str, host: str, detail: str):
        super().__init__(kind, host, detail)
        self.kind, self.host, self.detail = kind, host, detail


@functools.cache
def code_digest() -> str:
    """This program's version and the first 12 hex digits of the SHA-256 of
    its :data:`COMPUTING` sources: two processes that give the same compute
    the same bits."""
    root = Path(solver.__file__).parent
    digest = hashlib.sha256(solver.__version__.encode())
    for path in sorted(p for package in COMPUTING for p in (root / package).rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return f"{solver.__version__}, sources {digest.hexdigest()[:12]}"


_VIEWS_CHECKED: set = set()


def check_view(folder: str, view: tuple[str, str]) -> None:
    """Raise :class:`WorkerView` unless this process runs the code of
    ``view = (token, code digest)`` and reads ``token`` in ``folder``
    (module docstring); checked once a solve (a token) per worker."""
    token, digest = view
    if (folder, token) in _VIEWS_CHECKED:
        return
    if digest != code_digest():
        raise WorkerView("code", socket.gethostname(), code_digest())
    if read_token(Path(folder)) != token:
        raise WorkerView("folder", socket.gethostname(), folder)
    _VIEWS_CHECKED.add((folder, token))


# ------------------------------------------------------------------ a task

_WORKER_SETUP: dict = {}


def _worker_setup(spec, folder: str) -> Setup:
    """The setup of ``spec``'s solve in this worker process, built once
    (the final round's values read from the checkpoint, not recomputed)."""
    rules, players, space, space_digest = spec
    key = (folder, rules, players, space_digest)
    if key not in _WORKER_SETUP:
        _WORKER_SETUP.clear()
        reach = np.load(Path(folder) / "reach.npy")
        _WORKER_SETUP[key] = Setup.of(rules, players, space, reach=reach)
    return _WORKER_SETUP[key]


def take_rows_of(setup: Setup, nodes: np.ndarray) -> np.ndarray:
    """The take-over rows of ``nodes`` that have one
    (:func:`solver.engine.turn_kernel_n.take_index`, in numpy)."""
    seats, moves = setup.seats, setup.moves
    row = moves.take_row[nodes // seats.lead]
    slot = moves.bank_slot[nodes % seats.P]
    middle = (nodes // seats.P) % seats.middle if seats.players > 2 else 0
    index = (row * seats.middle + middle) * seats.banked_states + slot
    return index[(row >= 0) & (slot >= 0)]


def _task(spec, folder: str, view):
    """What a task starts from, once the worker is seen to take part
    (:func:`check_view`): its start time, this worker's setup, and the
    checkpoint's values mapped copy-on-write (nothing written back; the
    maps go with the task). One numba thread a worker: Dask gives the
    parallelism. The peak memory is counted afresh from here."""
    import numba
    check_view(folder, view)
    numba.set_num_threads(1)
    started = time.perf_counter()
    reset_peak()
    setup = _worker_setup(spec, folder)
    V = np.asarray(np.load(Path(folder) / "V.npy", mmap_mode="c"))
    take = np.asarray(np.load(Path(folder) / "take_values.npy", mmap_mode="c"))
    return started, setup, V, take


def _meta(started: float) -> dict:
    """This worker's pid, the task's peak resident memory (the worker's
    setup, built once, included) and its seconds."""
    return {"pid": os.getpid(), "peak": peak_bytes(), "seconds": time.perf_counter() - started}


def solve_chunk(spec, folder: str, view, j: int, c0: int, c1: int, first_sweep: bool):
    """A task: blocks ``c0 <= b < c1`` of level ``j`` against the checkpoint's
    values. Returns ``(values of the blocks' nodes, their take-over rows,
    those rows' values, passes, changes, meta)`` (:func:`_meta`)."""
    started, setup, V, take = _task(spec, folder, view)
    level = setup.level(j)
    passes, changes = np.zeros(level.count, dtype=np.int64), np.zeros(level.count)
    setup.solve_blocks(MultiValues(V, take, setup.reach), level, c0, c1, first_sweep, passes,
                       changes)
    nodes = level.nodes(c0, c1)
    rows = take_rows_of(setup, nodes)
    return V[nodes], rows, take[rows], passes[c0:c1], changes[c0:c1], _meta(started)


def settle_chunk(spec, folder: str, view, j: int, blocks: list[int]):
    """A task: settle ``blocks`` of level ``j``, whose best responses cycle
    (:func:`solver.engine.n_player.settle_blocks`), against the
    checkpoint's values (the level's values the client has written
    included). Returns ``(the blocks' nodes, their values, their take-over
    rows, those rows' values, the mixed decisions, the equilibria found,
    meta)``, the mixed decisions and equilibria as the single process
    records them."""
    started, setup, V, take = _task(spec, folder, view)
    level = setup.level(j)
    solution = setup.solution(V, take)
    settle_blocks(setup, solution, level, blocks)
    nodes = np.concatenate([level.nodes(b, b + 1) for b in blocks])
    rows = take_rows_of(setup, nodes)
    return (nodes, V[nodes], rows, take[rows], solution.mixed, solution.equilibria,
            _meta(started))

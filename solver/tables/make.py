"""Making a table: solve a game (any memory), check it, write it; and what
that is expected to cost.

``solve_game`` solves a game without crosses directly and a game with
crosses either with the exact previous-score memory or with the crosses
model of :mod:`solver.engine.memory` (its fall estimates come from the game without
crosses, which also seeds the model's sweeps). ``solve_and_write`` adds the
Bellman-residual check and the atomic write of :mod:`solver.tables.files`.

What a table will cost is :mod:`solver.tables.estimates`'; the lock that
lets many processes share one table :mod:`solver.tables.lock`'s.

Faults (issue 68): ``make_table`` checks where the table goes before any
work (``check_target``: a directory that exists or can be made, that takes
a file, with room for the estimated size; an ``--out`` that is no
directory), and solves and writes under ``NAME.h5.lock`` (``table_lock``,
an exclusive ``flock``): any number of processes wanting one table, one
solves and the others wait, saying so once, then read its table. Holding
the lock, a process removes the partial files (``NAME.h5.PID.partial``,
:func:`solver.tables.files.write_table`) of writers that are gone, killed
ones included; a write that fails anyway (full disk) removes its own and
ends in one line. The lock file is removed when the lock is let go; one
left by a killed process is taken over by the next.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from solver.engine.memory import MEMORIES, estimate_fall_to
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.states import player_space
from solver.tables import calibration
from solver.tables.estimates import (
    check_memory,
    check_players,
    estimated_solve_seconds,
    estimated_table_bytes,
)
from solver.tables.lock import identity, table_lock
from solver.text import _, language


def solve_game(rules: Rules, memory: str = "model", progress=None, tol: float = 1e-12):
    """Solve any game: without crosses directly; with crosses, the exact
    memory or the model (module docstring)."""
    from solver.engine.two_player import solve
    if not rules.falls_back:                # no crosses, or crosses that cost points
        return solve(rules, tol=tol, progress=progress)
    if memory not in MEMORIES:
        raise UsageError(_("unknown memory {memory}: use {memories}").format(
            memory=repr(memory), memories=_("exact or model")))
    if memory == "exact":
        return solve(rules, space=player_space(rules, "exact"), tol=tol, progress=progress)
    crossless = solve(dataclasses.replace(rules, crosses=0), tol=tol)
    fall_to = estimate_fall_to(rules, crossless)
    space = player_space(rules, "model", fall_to)
    at_score = np.searchsorted(crossless.space.score, space.score)
    initial = crossless.W[np.ix_(at_score, at_score)]
    return solve(rules, space=space, tol=tol, progress=progress, initial=initial)


def solve_and_write(rules: Rules, out: Path | None = None, tolerance: float = 1e-12,
                    memory: str | None = None, progress=None, players: int = 2):
    """Solve, check the Bellman residual, write the table (:func:`make_table`:
    checked first, under the table's lock); returns ``(solution, path,
    residual)``."""
    made = make_table(rules, out, tolerance, memory, progress, players)
    return made.solution, made.path, made.residual


@dataclass
class Made:
    """What :func:`make_table` did: ``solution`` and ``residual`` are None
    when another process made the table while this one waited for it
    (``made_by``: its pid, 0 when not known)."""
    path: Path
    solution: object | None = None
    residual: float | None = None
    made_by: int | None = None


def make_table(rules: Rules, out: Path | None = None, tolerance: float = 1e-12,
               memory: str | None = None, progress=None, players: int = 2, *,
               say: Callable | None = None, reuse: bool = False,
               starting: Callable | None = None, cluster: str | None = None,
               worker_memory: str | None = None) -> Made:
    """Make the table of ``rules`` at ``out`` (default: the user's table):
    check where it goes (:func:`check_target`), take its lock (waiting for
    another process making it, ``say`` telling so), solve, check the
    Bellman residual and write. With ``cluster`` (N players), the solve runs
    on a Dask cluster (:mod:`solver.tables.cluster`), resumable from the
    checkpoint beside the table, removed once the table is written (and
    not taken as this machine's solve time), each local worker's memory
    limited to ``worker_memory`` (``"4GB"``). With ``reuse``, a table that
    another process wrote there meanwhile (of these rules and players, to this
    tolerance or a finer one) is taken as it is, not solved again.
    ``starting()`` runs when the solve starts. A solve that would not fit in
    memory (:func:`check_memory`) or a write that fails (a full disk) leaves
    nothing and ends in one line (UsageError)."""
    from solver.tables.files import write_table
    from solver.tables.paths import user_table_path
    path = Path(out) if out is not None else user_table_path(rules, memory, players)
    if cluster is not None or worker_memory is not None:
        from solver.tables.cluster import check_cluster
        check_cluster(cluster, players, worker_memory)
    check_memory(rules, memory, players)
    check_target(path, estimated_table_bytes(rules, memory, players))
    before = identity(path)
    with table_lock(path, say=say) as waited_for:
        if reuse and identity(path) != before and _made_for(path, rules, players, tolerance):
            return Made(path, made_by=waited_for or 0)
        if starting is not None:
            starting()
        started = time.perf_counter()
        if players == 2:
            from solver.engine.solution import bellman_residual
            solution = solve_game(rules, memory or "model", tol=tolerance, progress=progress)
            residual = bellman_residual(solution)
        else:
            from solver.engine.solution_n import bellman_residual_n
            solution = solve_players_game(rules, players, memory, tol=tolerance,
                                          progress=progress, cluster=cluster, table=path,
                                          worker_memory=worker_memory, say=say)
            residual = bellman_residual_n(solution)
        try:
            write_table(solution, path, tolerance, residual)
        except OSError as error:
            raise UsageError(_("cannot write the table {path}: {reason}; nothing was "
                               "kept").format(path=path, reason=error.strerror or error)) from None
        if cluster is not None:
            from solver.tables.checkpoint import checkpoint_path, remove_checkpoint
            remove_checkpoint(checkpoint_path(path))
        # What the person waited for, solve, check and write, teaches the
        # next estimate on this machine.
        if cluster is None:
            calibration.record(calibration.kind_of(rules, memory, players),
                               estimated_solve_seconds(rules, memory, players,
                                                       calibrated=False),
                               time.perf_counter() - started)
    return Made(path, solution, residual)


# ------------------------------------------------------------------ faults

SPACE_MARGIN, SPACE_SLACK = 1.5, 1 << 20
"""Free space asked for before a solve: the estimated table size (rough:
``estimated_table_bytes``) times SPACE_MARGIN, plus SPACE_SLACK for the
HDF5 file's own structure."""


def check_target(path: Path, size: int) -> None:
    """Refuse, before any work, a table that could not be written at
    ``path``: a directory, a path under a file, a directory that cannot be
    made or written to (read-only, or not this user's), or less free
    space than a table of about ``size`` bytes needs (SPACE_MARGIN)."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(_("cannot write the table to {path}: it is a directory").format(
            path=path))
    if path.exists() and not path.is_file():
        raise UsageError(_("cannot write the table to {path}: it is not a regular file").format(
            path=path))
    folder = path.parent
    above = folder
    while not above.exists() and above != above.parent:
        above = above.parent
    if not above.is_dir():
        raise UsageError(_("cannot write the table to {path}: {above} is not a "
                           "directory").format(path=path, above=above))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(_("cannot make the directory {folder} for the table: {reason}").format(
            folder=folder, reason=error.strerror or error)) from None
    # Tried, not asked (os.access): root passes every permission, a
    # read-only file system and a full disk only show when writing.
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{path.name}.",
                                         suffix=".probe") as probe:
            probe.write(bytes(4096))
            probe.flush()
    except OSError as error:
        raise UsageError(_("cannot write in {folder}: {reason}").format(
            folder=folder, reason=error.strerror or error)) from None
    free = shutil.disk_usage(folder).free
    need = int(size * SPACE_MARGIN) + SPACE_SLACK
    if free < need:
        raise UsageError(_("not enough space in {folder} for the table: it needs about "
                           "{need}, {free} free").format(folder=folder, need=_mb(need),
                                                         free=_mb(free)))


def _mb(size: int) -> str:
    text = f"{size / 1e6:.1f}"
    return _("{size} MB").format(size=text.replace(".", ",") if language() == "fr" else text)


def _made_for(path: Path, rules: Rules, players: int, tolerance: float) -> bool:
    """Whether the table at ``path`` is one of ``rules`` and ``players``,
    solved to ``tolerance`` or finer, by this program's layout."""
    from solver.tables.files import read_info
    try:
        info = read_info(path)
    except UsageError:
        return False
    return (Rules.from_json(json.dumps(info["rules"])) == rules and info["players"] == players
            and not info["outdated"] and float(info["tolerance"]) <= tolerance)


def solve_players_game(rules: Rules, players: int, memory: str | None = None, progress=None,
                       tol: float = 1e-12, cluster: str | None = None, table: Path | None = None,
                       worker_memory: str | None = None, say=None):
    """The N-player game, exactly (:mod:`solver.engine.n_player`); with
    ``cluster``, on Dask, checkpointed beside ``table``, each local worker
    within ``worker_memory`` (:mod:`solver.tables.cluster`)."""
    from solver.engine.n_player import solve_players
    check_players(rules, players, memory)
    if cluster is not None:
        from solver.tables.checkpoint import checkpoint_path
        from solver.tables.cluster import solve_players_cluster
        return solve_players_cluster(rules, players, cluster, checkpoint_path(table),
                                     player_space(rules, "exact"), tol=tol, progress=progress,
                                     worker_memory=worker_memory, say=say)
    return solve_players(rules, players, player_space(rules, "exact"), tol=tol,
                         progress=progress)



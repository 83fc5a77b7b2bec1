"""Making a table: solve a game (any memory), check it, write it; and what
that is expected to cost.

``solve_game`` solves a game without crosses directly and a game with
crosses either with the exact previous-score memory or with the crosses
model of :mod:`solver.engine.memory` (its fall estimates come from the game without
crosses, which also seeds the model's sweeps). ``solve_and_write`` adds the
Bellman-residual check and the atomic write of :mod:`solver.tables.files`.

The solve-time estimate is turn starts x rows x keeps of a turn DP, about
2.2 DP passes per turn start (1.5 with more players; with crosses, as 7
passes: see ``estimated_solve_seconds``), at the rate measured on the
project's 2-core machine (BENCHMARKS.md, keep evaluations per second).

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
import glob
import json
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

try:
    import fcntl
except ImportError:                     # Windows: no lock, every process solves
    fcntl = None

import numpy as np

from solver.model.errors import UsageError
from solver.engine.memory import MEMORIES, estimate_fall_to
from solver.model.rules import Rules
from solver.model.states import first_bank_units, player_space

SOLVE_RATE = float(os.environ.get("FARKLE_SOLVE_RATE", 7.0e8))
PLAYER_COST = 1.0
"""Cost of the N-player DP per player, relative to the two-player DP's."""
MAX_PLAYER_BYTES = 12e9
"""Largest N-player solve attempted (start and take-over values in memory)."""
"""Keep evaluations per second of the solver on the project's 2-core
machine; ``$FARKLE_SOLVE_RATE`` tells the estimates another machine's."""


def solve_game(rules: Rules, memory: str = "model", progress=None, tol: float = 1e-12):
    """Solve any game: without crosses directly; with crosses, the exact
    memory or the model (module docstring)."""
    from solver.engine.two_player import solve
    if not rules.crosses:
        return solve(rules, tol=tol, progress=progress)
    if memory not in MEMORIES:
        raise UsageError(f"unknown memory {memory!r}: use {' or '.join(MEMORIES)}")
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
               starting: Callable | None = None) -> Made:
    """Make the table of ``rules`` at ``out`` (default: the user's table):
    check where it goes (:func:`check_target`), take its lock (waiting for
    another process making it, ``say`` telling so), solve, check the
    Bellman residual and write. With ``reuse``, a table that another
    process wrote there meanwhile (of these rules and players, to this
    tolerance or a finer one) is taken as it is, not solved again.
    ``starting()`` runs when the solve starts. A solve that would not fit in
    memory (:func:`check_memory`) or a write that fails (a full disk) leaves
    nothing and ends in one line (UsageError)."""
    from solver.tables.files import write_table
    from solver.tables.paths import user_table_path
    path = Path(out) if out is not None else user_table_path(rules, memory, players)
    check_memory(rules, memory, players)
    check_target(path, estimated_table_bytes(rules, memory, players))
    before = _identity(path)
    with table_lock(path, say=say) as waited_for:
        if reuse and _identity(path) != before and _made_for(path, rules, players, tolerance):
            return Made(path, made_by=waited_for or 0)
        if starting is not None:
            starting()
        if players == 2:
            from solver.engine.solution import bellman_residual
            solution = solve_game(rules, memory or "model", tol=tolerance, progress=progress)
            residual = bellman_residual(solution)
        else:
            from solver.engine.solution_n import bellman_residual_n
            solution = solve_players_game(rules, players, memory, tol=tolerance,
                                          progress=progress)
            residual = bellman_residual_n(solution)
        try:
            write_table(solution, path, tolerance, residual)
        except OSError as error:
            raise UsageError(f"cannot write the table {path}: {error.strerror or error}; "
                             f"nothing was kept") from None
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
        raise UsageError(f"cannot write the table to {path}: it is a directory")
    if path.exists() and not path.is_file():
        raise UsageError(f"cannot write the table to {path}: it is not a regular file")
    folder = path.parent
    above = folder
    while not above.exists() and above != above.parent:
        above = above.parent
    if not above.is_dir():
        raise UsageError(f"cannot write the table to {path}: {above} is not a directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot make the directory {folder} for the table: "
                         f"{error.strerror or error}") from None
    # Tried, not asked (os.access): root passes every permission, a
    # read-only file system and a full disk only show when writing.
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{path.name}.",
                                         suffix=".probe") as probe:
            probe.write(bytes(4096))
            probe.flush()
    except OSError as error:
        raise UsageError(f"cannot write in {folder}: {error.strerror or error}") from None
    free = shutil.disk_usage(folder).free
    need = int(size * SPACE_MARGIN) + SPACE_SLACK
    if free < need:
        raise UsageError(f"not enough space in {folder} for the table: it needs about "
                         f"{_mb(need)}, {_mb(free)} free")


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def lock_path(path: Path) -> Path:
    """The lock file of the table at ``path``: ``NAME.h5.lock`` beside it."""
    path = Path(path)
    return path.with_name(path.name + ".lock")


@contextmanager
def table_lock(path: Path, say: Callable | None = None):
    """Hold the lock of the table at ``path`` (module docstring); yields the
    pid of the process waited for (0: not known), None when the lock was
    free. ``say(line)`` is told once that this process waits, and for
    whom (:func:`_acquire`). The partial files of writers that are gone
    are removed."""
    path = Path(path)
    lock = lock_path(path)
    fd, waited_for = _acquire(lock, path, say)
    try:
        _remove_leftovers(path)
        yield waited_for
    finally:
        # Removed while still held: a process that opened the file before
        # sees, once it has the lock, that it is no longer the lock file
        # and opens the new one (_acquire).
        try:
            if os.path.samestat(os.fstat(fd), os.stat(lock)):
                os.unlink(lock)
        except OSError:
            pass
        os.close(fd)


def solving_now(path: Path) -> int | None:
    """The pid of the process holding the lock of the table at ``path``
    (0: not known), or None when nobody does."""
    try:
        fd = os.open(lock_path(path), os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            _flock(fd, "shared")
        except BlockingIOError:
            return _holder(fd)
        return None
    finally:
        os.close(fd)


def tidy(path: Path) -> None:
    """Remove what killed writers of the table at ``path`` left (partial
    files, the lock file) when nobody is writing it; a reader's call,
    which never waits."""
    path = Path(path)
    lock = lock_path(path)
    if not lock.exists() and not _partials(path):
        return
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return
    try:
        try:
            _flock(fd, "now")
        except BlockingIOError:
            return
        if _same_file(fd, lock):
            _remove_leftovers(path)
            os.unlink(lock)
    except OSError:
        pass
    finally:
        os.close(fd)


def _acquire(lock: Path, path: Path, say: Callable | None) -> tuple[int, int | None]:
    """Open and lock ``lock``, waiting when another process holds it;
    returns the descriptor and the pid waited for (None: none). ``say`` is
    told once. The pid is the holder's while the table stays as it was:
    after a holder that wrote it come, at most, processes that only look
    at it (another waiting ``farkle solve``), not the one that made it."""
    waited_for, table = None, _identity(path)
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise UsageError(f"cannot lock the table {path} ({lock}: "
                             f"{error.strerror or error})") from None
        try:
            try:
                _flock(fd, "now")
            except BlockingIOError:
                if waited_for is None or _identity(path) == table:
                    holder = _holder(fd)
                    if say is not None and waited_for is None:
                        who = f" (pid {holder})" if holder else ""
                        say(f"waiting for another farkle solving {path.stem}{who} ...")
                    waited_for = holder
                _flock(fd, "wait")
            if _same_file(fd, lock):
                try:
                    os.ftruncate(fd, 0)
                    os.lseek(fd, 0, os.SEEK_SET)
                    os.write(fd, f"{os.getpid()}\n".encode())
                except OSError:         # a full disk: the pid stays unknown
                    pass
                return fd, waited_for
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _flock(fd: int, how: str) -> None:
    """``now``: exclusive or BlockingIOError; ``wait``: exclusive, waiting;
    ``shared``: shared or BlockingIOError (and let go at once)."""
    if fcntl is None:
        return
    if how == "shared":
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
    else:
        fcntl.flock(fd, fcntl.LOCK_EX | (fcntl.LOCK_NB if how == "now" else 0))


def _same_file(fd: int, lock: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(lock))
    except FileNotFoundError:
        return False


def _holder(fd: int) -> int:
    """The pid the lock's holder wrote in it (0: not known). It writes it
    just after taking the lock: an empty file is read again for a while."""
    for _ in range(50):
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode(errors="replace").strip()
        if text.isdigit():
            return int(text)
        time.sleep(0.02)
    return 0


def _partials(path: Path) -> list[Path]:
    """The partial files of the table at ``path``: ``NAME.h5.PID.partial``,
    and ``NAME.h5.partial`` of older versions."""
    found = []
    for candidate in path.parent.glob(f"{glob.escape(path.name)}.*partial"):
        middle = candidate.name[len(path.name):-len("partial")]
        if middle == "." or (middle.startswith(".") and middle.endswith(".")
                             and middle[1:-1].isdigit()):
            found.append(candidate)
    return found


def _remove_leftovers(path: Path) -> None:
    """With the lock held: remove the partial files of the table whose
    writer is gone (its pid is not alive, or started after the file was
    last written: a pid used again), and those without a pid."""
    for partial in _partials(path):
        pid = partial.name[len(path.name) + 1:-len(".partial")]
        try:
            if not pid or _gone(int(pid), partial.stat().st_mtime):
                partial.unlink()
        except OSError:
            pass


def _gone(pid: int, written: float) -> bool:
    if pid == os.getpid() or pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    started = _start_time(pid)
    return started is not None and started > written + 2


def _start_time(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), where /proc
    tells; None elsewhere."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        ticks = int(stat[stat.rindex(")") + 2:].split()[19])
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _identity(path: Path):
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size


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


def check_players(rules: Rules, players: int, memory: str | None = None) -> None:
    """Refuse a number of players outside 2 to 6, and an N-player game out
    of reach exactly: its start values alone would pass MAX_PLAYER_BYTES
    (the exact memory is the only one with three or more players)."""
    from solver.engine.solution_n import check_player_count
    check_player_count(players)
    if players == 2:
        return
    if memory == "model":
        raise UsageError("with three or more players the table keeps every previous score "
                         "(--memory exact); the crosses model is for two players")
    if not in_reach(rules, players):
        size = estimated_table_bytes(rules, "exact", players, compressed=False)
        raise UsageError(f"{rules.name} to {rules.target} with {players} players is out of "
                         f"reach exactly (about {size / 1e9:.0f} GB of values); try a smaller "
                         f"--target")


def in_reach(rules: Rules, players: int) -> bool:
    """Whether the exact game of ``players`` fits: two players always do,
    more while their start values stay within MAX_PLAYER_BYTES."""
    if players == 2:
        return True
    # A bound that answers without building the states (1 s for dix-mille at
    # 10,000): every score from the entry up is a player state, and with
    # crosses so is (at least half of) every pair of such a score and a lower
    # previous one.
    entered = rules.target_units - rules.entry_units
    states = max(entered + 1, entered * (entered - 1) // 4 if rules.crosses else 0)
    if 8 * players * states ** players > MAX_PLAYER_BYTES:
        return False
    return estimated_table_bytes(rules, "exact", players, compressed=False) <= MAX_PLAYER_BYTES


def solve_players_game(rules: Rules, players: int, memory: str | None = None, progress=None,
                       tol: float = 1e-12):
    """The N-player game, exactly (:mod:`solver.engine.n_player`)."""
    from solver.engine.n_player import solve_players
    check_players(rules, players, memory)
    return solve_players(rules, players, player_space(rules, "exact"), tol=tol,
                         progress=progress)


def estimated_table_bytes(rules: Rules, memory: str | None = None, players: int = 2,
                          compressed: bool = True) -> int:
    """A rough table size: the start values, and the take-over values of the
    offers a bank can make (about half of every taker x banked state x turn
    total x dice), compressed to about 0.2 of their bytes with two players
    (coded: solver.tables.take_codes) and 0.45 with more (BENCHMARKS.md).
    The banked states (where a bank leads) are the scores alone with
    crosses: a bank erases them. The exact memory of two players keeps one
    turn total per banked state (``PlayerSpace.offers``). With N players
    every node holds N values, and the take-over values are kept per taker,
    banker and the N - 2 players between."""
    states = _state_count(rules, memory if players == 2 else "exact")
    size = 8 * states ** players * (1 if players == 2 else players)
    if rules.has_takeover:
        taking = sum(1 for s in range(rules.target_units) if s >= rules.takeover_min_units)
        takers = taking * states // rules.target_units
        banked = rules.target_units if rules.crosses else states
        # Rows per banked state, and the share of them a bank can make.
        offer_rows, made = rules.target_units, 0.5
        if players == 2 and rules.crosses and memory == "exact":
            # A state (s, p, 0) is reached by one turn total, s - p.
            banked, offer_rows, made = _exact_counts(rules)[1], 1, 1.0
        rows = takers * banked * states ** (players - 2)
        ratio = (0.2 if players == 2 else 0.45) * made if compressed else 1
        size += int(ratio * 8 * rows * offer_rows
                    * (rules.dice - 1) * (1 if players == 2 else players))
    return size


def _state_count(rules: Rules, memory: str | None) -> int:
    if rules.crosses and memory != "exact":
        # (score, crosses) and fallen
        return 1 + (rules.crosses + 1) * rules.target_units
    return _exact_counts(rules)[0]


def _exact_counts(rules: Rules) -> tuple[int, int]:
    """``(states, banked)``: the exact memory's player states and those a
    bank leads to, counted from the rules (a game to any target at once;
    the states are :func:`solver.model.states.check_line`'s lines, and
    tests/test_bad_input.py counts them against ``player_space``). Without
    crosses: 0 and every score from the first bank up to the cap. With
    crosses: (s, p, c) for every bank from p (0 or a score) to s and every
    cross c, and the fallen (p, p) from which a bank is still possible."""
    target, first = rules.target_units, first_bank_units(rules)
    if not rules.crosses:
        cap = rules.score_cap_units
        cap = target - 1 if cap is None else cap
        return 1 + cap - min(first, cap) + 1, cap - min(first, cap) + 1
    step = max(rules.min_bank_units, 1)
    above = max(0, target - step - first)        # scores p that still bank to p + step
    banks = (target - first) + above * (above + 1) // 2
    return 1 + above + rules.crosses * banks, banks


BASE_BYTES = 250_000_000
"""Memory of a solve before its arrays: the interpreter, numpy, numba, h5py
and the compiled kernels (the peak of Pig to 100: 264 MB, BENCHMARKS.md)."""
NODE_BYTES = 120
"""Bytes a turn start (a pair of player states) takes while the two-player
solver builds its blocks (tracemalloc: 115 in dix-mille's exact memory to
2,500, 148 in Pig to 2,000)."""
NODE_BYTES_PER_PLAYER = 50
"""The same per player with more players (the peaks of 4- to 6-player Pig
and 4-player cinq-mille, BENCHMARKS.md: 170 to 230 bytes a turn start)."""
BANK_BYTES = 130
"""Bytes a (score, turn total) bank takes while the player states are
built in Python (tracemalloc: 129 in Pig to 2,000)."""


def estimated_solve_bytes(rules: Rules, memory: str | None = None, players: int = 2) -> int:
    """A rough peak memory of a solve, from the rules alone (nothing is
    built): what the process holds before, the player states as they are
    built, the blocks of turn starts, and the start and take-over values
    (``estimated_table_bytes`` uncompressed). Against the peaks measured
    (BENCHMARKS.md): quinze-mille 0.94 GB for 0.86, dix-mille 1.32 for 1.39,
    4-player cinq-mille to 4,000 4.6 for 4.5, 4-player Pig to 80 9.8 for 9.7."""
    memory = memory if players == 2 else "exact"
    target = rules.target_units
    states = _state_count(rules, memory)
    scores = _exact_counts(dataclasses.replace(rules, crosses=0))[0]
    building = BANK_BYTES * scores * target // 2 + 8 * states * target
    per_node = NODE_BYTES if players == 2 else NODE_BYTES_PER_PLAYER * players
    return (BASE_BYTES + building + per_node * states ** players
            + estimated_table_bytes(rules, memory, players, compressed=False))


def available_memory() -> int | None:
    """Bytes of memory this machine can still give: MemAvailable of
    /proc/meminfo (Linux), else the free physical pages (os.sysconf);
    within a memory cgroup's limit where one is set (v2 or v1). None where
    none of them is known."""
    free = None
    try:
        with open("/proc/meminfo") as file:
            for line in file:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if free is None:
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, OSError, ValueError):
            return None
    for limit, used in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                         "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            free = min(free, int(Path(limit).read_text()) - int(Path(used).read_text()))
        except (OSError, ValueError):
            pass                            # none here, or "max": no limit
    return free


def check_memory(rules: Rules, memory: str | None = None, players: int = 2) -> None:
    """Refuse, before anything is allocated, a solve whose estimated peak
    (``estimated_solve_bytes``) is more than the memory this machine can
    still give (``available_memory``): one line with both."""
    needed, free = estimated_solve_bytes(rules, memory, players), available_memory()
    if free is None or needed <= free:
        return
    who = f" with {players} players" if players != 2 else ""
    raise UsageError(f"{rules.name} to {rules.target:,}{who} needs about {_gigabytes(needed)} "
                     f"of memory to solve and this machine has {_gigabytes(free)} free: "
                     f"try a smaller --target")


def _gigabytes(size: int) -> str:
    return f"{size / 1e9:.1f} GB" if size < 1e10 else f"{size / 1e9:,.0f} GB"


def estimated_solve_seconds(rules: Rules, memory: str | None = None, players: int = 2) -> float:
    """A rough solve time on the project's machine (module docstring)."""
    from solver.model.dice import keep_table
    states = _state_count(rules, memory if players == 2 else "exact")
    dice = keep_table(rules).packed()
    # A roll class costs about as much as a keep (its probability, its
    # zero-roll test): under the keep rule "all" a class has one keep. A
    # class with a base compares only its extra keeps (solver.engine.turn_kernel).
    work_per_row = len(dice.prob) + len(dice.extra_units)
    # Newton runs about 2.2 DP passes a turn start with two players (2.16
    # in quinze-mille, BENCHMARKS.md), about 1.5 with more (1.49 in
    # 3-player cinq-mille-10000: most steps are accepted without the pass
    # that would confirm them); with crosses, 16 to 24 sweeps of one pass
    # each, but four movers share a DP and the settled sweeps skip the
    # slopes: as 7 passes at the one-mover rate (143 s and 180 s measured for
    # dix-mille-free-keep and dix-mille, BENCHMARKS.md 2026-12-02). With N
    # players the DP carries N values and runs a full Newton per block each
    # sweep.
    passes = 7 if rules.crosses else 2.2 if players == 2 else 1.5
    per_player = 1.0 if players == 2 else PLAYER_COST * players
    return passes * per_player * states ** players * rules.target_units * work_per_row / 2 \
        / SOLVE_RATE

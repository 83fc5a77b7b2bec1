"""Several processes, one table: the lock beside a table and the partial
files of writers that are gone (issue 68).

A table is made under ``NAME.h5.lock`` (:func:`table_lock`, an exclusive
``flock``): of any number of processes wanting one table, one solves and
the others wait, saying so once, then read its table. Holding the lock, a
process removes the partial files (``NAME.h5.PID.partial``,
:func:`solver.tables.files.write_table`) of writers that are gone, killed
ones included (:func:`tidy`). The lock file is removed when the lock is
let go; one left by a killed process is taken over by the next.
"""

from __future__ import annotations

import glob
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

try:
    import fcntl
except ImportError:                     # Windows: no lock, every process solves
    fcntl = None


from solver.model.errors import UsageError
from solver.text import _


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
    waited_for, table = None, identity(path)
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise UsageError(_("cannot lock the table {path} ({lock}: {reason})").format(
                path=path, lock=lock, reason=error.strerror or error)) from None
        try:
            try:
                _flock(fd, "now")
            except BlockingIOError:
                if waited_for is None or identity(path) == table:
                    holder = _holder(fd)
                    if say is not None and waited_for is None:
                        who = f" (pid {holder})" if holder else ""
                        say(_("waiting for another farkle solving {table}{pid} ...").format(
                            table=path.stem, pid=who))
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
    for _attempt in range(50):
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


def identity(path: Path):
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size

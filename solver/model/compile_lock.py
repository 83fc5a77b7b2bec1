"""One process at a time loads or compiles this program's numba kernels.

numba's on-disk cache (``cache=True``) is not safe against two processes
compiling the same kernel at once (numba issue 10128; here, a run of the
tests beside a card evaluation left a cache that crashed the next run).
Two processes meet so whenever they start together on a machine whose
cache is cold: a cluster's workers on a fresh machine, the suite's two
processes, two commands at once.

:func:`install` wraps numba's ``Dispatcher.compile``, where a kernel's
signature is loaded from the cache, or compiled and saved to it, in an
exclusive lock (``flock``) on one file, :func:`lock_path`, shared by
every process that uses the same caches. The lock is taken inside numba's
own in-process compiler lock, so the two are always taken in that order,
and only by the outermost compilation (a kernel's compilation compiles the
kernels it calls). So a second process that wants a kernel the first is
compiling waits, then loads it from the cache instead of compiling it
again: each kernel is compiled once on a machine, and a cache is never
read half-written. Where ``fcntl`` does not exist (Windows) nothing is
locked.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

LOCK_NAME = "farkle-solver-numba.lock"
_installed = False
_lock_file = None
_depth = 0


def lock_path() -> Path:
    """The lock's file: in ``NUMBA_CACHE_DIR`` where it is set (numba keeps
    every cache there), else in the package's own ``__pycache__`` (where
    numba keeps the kernels' caches beside their modules), else, where that
    cannot be written (an installed package, whose caches numba keeps in
    the user's cache directory), in the temporary directory."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if folder:
        return Path(folder) / LOCK_NAME
    package_cache = Path(__file__).resolve().parent.parent / "__pycache__"
    try:
        package_cache.mkdir(exist_ok=True)
        if os.access(package_cache, os.W_OK):
            return package_cache / LOCK_NAME
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / f"{LOCK_NAME}.{os.getuid()}"


def install() -> None:
    """Wrap numba's ``Dispatcher.compile`` in the lock (module docstring),
    once a process."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        import fcntl
    except ImportError:
        return
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.dispatcher import Dispatcher
    compile_unlocked = Dispatcher.compile

    def compile_locked(self, sig):
        global _depth, _lock_file
        with global_compiler_lock:
            if _depth == 0:
                if _lock_file is None:
                    _lock_file = _open_lock()
                fcntl.flock(_lock_file, fcntl.LOCK_EX)
            _depth += 1
            try:
                return compile_unlocked(self, sig)
            finally:
                _depth -= 1
                if _depth == 0:
                    fcntl.flock(_lock_file, fcntl.LOCK_UN)

    Dispatcher.compile = compile_locked


def _open_lock():
    """The lock's file opened, or where :func:`lock_path`'s folder cannot be
    written (a read-only ``NUMBA_CACHE_DIR``), one in the temporary
    directory."""
    path = lock_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return open(path, "a")
    except OSError:
        return open(Path(tempfile.gettempdir()) / f"{LOCK_NAME}.{os.getuid()}", "a")

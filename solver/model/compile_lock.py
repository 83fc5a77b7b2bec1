"""One process at a time loads or compiles each of numba's cached kernels.

numba's on-disk cache (``cache=True``) is not safe against two processes
compiling the same kernel at once (numba issue 10128; here, a run of the
tests beside a card evaluation left a cache that crashed the next run).
Two processes meet so whenever they start together on a machine whose
cache is cold: a cluster's workers on a fresh machine, the suite's two
processes, two commands at once.

:func:`install` wraps numba's ``Dispatcher.compile``, where a kernel's
signature is loaded from the cache, or compiled and saved to it, in an
exclusive lock (``flock``) on a file beside that kernel's cache index
(``NAME.nbi.lock``), taken inside numba's own in-process compiler lock.
So a process that wants a kernel another is compiling waits, then loads
it from the cache instead of compiling it again: each kernel is compiled
once on a machine, and no cache is read half-written; a process never
waits for a kernel it does not want. A kernel's compilation compiles the
kernels it calls, each under its own lock, so locks are taken along the
call graph, which has no cycle: no two processes wait for each other.
Kernels without a cache, and systems without ``fcntl`` (Windows), are not
locked. The cache index's path is read from numba's own attributes
(``dispatcher._cache._cache_file._index_path``, numba 0.68): where a later
numba moves it, nothing is locked, as before, and
``tests/test_compile_lock.py`` fails.
"""

from __future__ import annotations

_installed = False
_held: dict[str, list] = {}
"""Lock file -> [open file, depth] for the kernels this process is
compiling (a kernel may compile itself again for another signature)."""


def install() -> None:
    """Wrap numba's ``Dispatcher.compile`` in the locks (module docstring),
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
        index = getattr(getattr(self._cache, "_cache_file", None), "_index_path", None)
        if index is None:
            return compile_unlocked(self, sig)
        path = f"{index}.lock"
        with global_compiler_lock:
            held = _held.get(path)
            if held is None:
                try:
                    held = _held[path] = [open(path, "a"), 0]
                except OSError:
                    # numba cannot write its cache there either: nothing to guard.
                    return compile_unlocked(self, sig)
                fcntl.flock(held[0], fcntl.LOCK_EX)
            held[1] += 1
            try:
                return compile_unlocked(self, sig)
            finally:
                held[1] -= 1
                if held[1] == 0:
                    del _held[path]
                    held[0].close()         # which lets the lock go

    Dispatcher.compile = compile_locked

"""numba's kernels loaded or compiled one process at a time
(solver.model.compile_lock): two processes that want one new kernel at the
same moment, each released when both are ready, share one cache; with the
lock one compiles the kernel and the other loads it from the cache, without
it (the kernel's module not importing this program) both compile, which is
what numba's cache is not safe against (numba issue 10128)."""

import json
import subprocess
import sys
import time

import pytest

KERNEL = '''
import json, sys, time
from pathlib import Path
import numpy as np
from numba import njit
if sys.argv[2] == "locked":
    import solver.model.compiled_rules  # noqa: F401 (installs the lock)

@njit(cache=True)
def kernel(x):
    return np.sort(x).sum() + np.median(x) + np.std(x) + np.cumsum(x)[-1]

Path(sys.argv[3]).touch()
go = Path(sys.argv[1])
while not go.exists():
    time.sleep(0.002)
kernel(np.arange(10.0))
print(json.dumps([sum(kernel.stats.cache_hits.values()),
                  sum(kernel.stats.cache_misses.values())]))
'''


@pytest.mark.parametrize("mode, compiled", [("locked", 1), ("unlocked", 2)])
def test_two_processes_compile_a_new_kernel_once(tmp_path, mode, compiled):
    (tmp_path / "kernel.py").write_text(KERNEL)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin",
           "PYTHONPATH": ":".join(sys.path)}
    go = tmp_path / "go"
    ready = [tmp_path / f"ready-{i}" for i in range(2)]
    children = [subprocess.Popen([sys.executable, str(tmp_path / "kernel.py"), str(go), mode,
                                  str(r)], stdout=subprocess.PIPE, text=True, env=env)
                for r in ready]
    deadline = time.monotonic() + 60
    while not all(r.exists() for r in ready) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    counts = [json.loads(child.communicate(timeout=120)[0]) for child in children]
    assert [c.returncode for c in children] == [0, 0]
    hits, misses = map(sum, zip(*counts))
    assert (misses, hits) == (compiled, 2 - compiled), counts

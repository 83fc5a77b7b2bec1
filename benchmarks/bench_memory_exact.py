"""Time and peak memory of dix-mille's exact previous-score memory.

    python benchmarks/bench_memory_exact.py [TARGET ...]    (default 700 1000 1500 2000)

Each target is solved by `farkle solve dix-mille --target T --memory exact`
in a fresh process (table written to a temporary directory); prints a
markdown table for BENCHMARKS.md with the wall time, the solve time, the
peak resident memory, the table's size, the player states and the sweeps.
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def run(target, out_dir):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "solver.cli", "solve", "dix-mille", "--target", str(target),
         "--memory", "exact", "--json", "--out", os.path.join(out_dir, f"{target}.h5")],
        capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = json.loads(done.stdout)
    info = json.loads(subprocess.run(
        [sys.executable, "-m", "solver.cli", "info", result["table"], "--json"],
        capture_output=True, text=True, check=True).stdout)
    return result, info, wall, max(peak, before) / 1024, os.path.getsize(result["table"]) / 1e6


def main(targets):
    print("| target | first player | player states | turn starts | sweeps | solve s | "
          "wall s | peak MB | table MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as out_dir:
        for target in targets or [700, 1000, 1500, 2000]:
            result, info, wall, peak, table_mb = run(int(target), out_dir)
            states = info["datasets"]["player/score"]["shape"][0]
            print(f"| {target} | {result['first_player_win']:.7f} | {states} | "
                  f"{result['states']:,} | {info['stats']['sweeps']} | "
                  f"{info['solve_seconds']:.1f} | {wall:.1f} | {peak:.0f} | {table_mb:.1f} |",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

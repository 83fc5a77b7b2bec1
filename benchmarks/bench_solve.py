"""Solver benchmark: time, peak memory and work rate for each game.

    python benchmarks/bench_solve.py [GAME ...]

Each game is solved and its table written (tables/GAME.h5, as `farkle
solve` does) in a fresh process, so that its peak resident memory is its
own; numba's compile cache is warmed by a small solve first. Prints a
markdown table for BENCHMARKS.md: solve seconds, and total seconds with the
Bellman-residual check and the file write. Then the speed-up over the
tests' simple value-iteration solver on the same small targets.
"""

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from solver.tables.machine import machine

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
from solver.tables.make import solve_and_write
from solver.engine.two_player import solve
from solver.model.rules import get_rules
rules = get_rules(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None)
solve(get_rules("pig", 20))           # load the compiled kernels
started = time.perf_counter()
solution, path, residual = solve_and_write(rules)
total = time.perf_counter() - started
print(json.dumps({"game": rules.name, "target": rules.target,
                  "first_player_win": solution.first_player_win, **solution.stats,
                  "total_seconds": total, "residual": residual, "bytes": path.stat().st_size,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(game, target=None):
    args = [sys.executable, "-c", CHILD, game] + ([str(target)] if target else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def reference_solver():
    """``tests/reference_solver.py``, the tests' simple value-iteration
    solver (the tests' code, not the package's), loaded from its file; in
    ``sys.modules`` under its name, where numba's cache looks for it."""
    if "reference_solver" in sys.modules:
        return sys.modules["reference_solver"]
    spec = importlib.util.spec_from_file_location("reference_solver",
                                                  ROOT / "tests" / "reference_solver.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["reference_solver"] = module
    spec.loader.exec_module(module)
    return module


def speedup(game, target):
    """Fast solver against tests/reference_solver.py on one small target."""
    reference_solve = reference_solver().reference_solve
    from solver.engine.two_player import solve
    from solver.model.rules import get_rules
    rules = get_rules(game, target)
    solve(rules)
    reference_solve(rules)
    started = time.perf_counter()
    solve(rules)
    fast = time.perf_counter() - started
    started = time.perf_counter()
    reference_solve(rules)
    slow = time.perf_counter() - started
    return fast, slow


def main(games):
    from solver.model.rules import GAMES
    games = games or [g for g in GAMES if not GAMES[g].crosses] + \
        [g for g in GAMES if GAMES[g].crosses]
    print(f"Machine: {machine()}\n")
    print("| game | target | first player | solve s | with check and write s | peak MB | "
          "table MB | turn starts | sweeps | turn DPs | keep evaluations | evaluations/s | "
          "per core vs 1e9/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for game in games:
        r = run(game)
        rate = r["keep_evaluations"] / r["seconds"]
        cores = os.cpu_count() or 1
        print(f"| {r['game']} | {r['target']} | {r['first_player_win']:.7f} | "
              f"{r['seconds']:.1f} | {r['total_seconds']:.1f} | {r['peak_mb']:.0f} | "
              f"{r['bytes'] / 1e6:.1f} | {r['turn_starts']:,} | {r['sweeps']} | "
              f"{r['turn_dp_runs']:,} | {r['keep_evaluations']:.2e} | {rate:.2e} | "
              f"{rate / cores / 1e9:.2f} |", flush=True)
    print("\n| small target | fast solver s | simple value iteration s | speed-up |")
    print("|---|---|---|---|")
    for game, target in (("cinq-mille", 2000), ("quinze-mille", 3000)):
        fast, slow = speedup(game, target)
        print(f"| {game} {target} | {fast:.3f} | {slow:.2f} | {slow / fast:.0f}x |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

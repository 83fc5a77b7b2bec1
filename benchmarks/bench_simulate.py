"""Games per second of the simulator (solver.sim.simulate) for cinq-mille.

    python benchmarks/bench_simulate.py [--games 200000] [--optimal-games 200000]

Measures threshold:300 against threshold:300, then solves cinq-mille and
measures optimal against optimal (the optimal policy's per-turn-start
tables are replayed on first use; that time is included and also shown
apart). A warm-up run first loads the compiled loop, so compilation is not
counted. Prints a markdown table: one row per measurement, with the machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from solver.tables.machine import cpu_model


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--optimal-games", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    from solver.engine.two_player import solve
    from solver.model.rules import get_rules
    from solver.sim.simulate import simulate

    rules = get_rules("cinq-mille")
    machine = f"{os.cpu_count()} cores (nproc {len(os.sched_getaffinity(0))}), {cpu_model()}"
    command = "python " + " ".join([sys.argv[0]] + (argv if argv is not None else sys.argv[1:]))

    simulate(rules, "threshold:300", "threshold:300", 1000, seed=0)   # warm-up: load/compile
    rows = []
    result = simulate(rules, "threshold:300", "threshold:300", args.games, seed=args.seed)
    rows.append(("threshold:300 vs threshold:300", result, ""))

    started = time.perf_counter()
    solution = solve(rules)
    solve_seconds = time.perf_counter() - started
    result = simulate(rules, "optimal", "optimal", args.optimal_games, seed=args.seed,
                      solution=solution)
    note = (f"solve {solve_seconds:.1f} s (not counted); {result.optimal_tables} turn-start "
            f"replays {result.optimal_seconds:.1f} s (counted); table says "
            f"{solution.first_player_win:.4f}")
    rows.append(("optimal vs optimal", result, note))

    print("| game | policies | games | games/s | A wins | machine | command | note |")
    print("|---|---|---|---|---|---|---|---|")
    for label, r, note in rows:
        print(f"| cinq-mille | {label} | {r.games:,} | {r.games_per_second:,.0f} | "
              f"{r.win_rate_a:.4f} ± {r.stderr:.4f} | {machine} | `{command}` | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproducibility: two solves of a game give the same values, bit for bit.

    python benchmarks/bench_reproducible.py [GAME [TARGET]]    (default quinze-mille)

The blocks of a level run on both cores in whatever order the threads take
them; no block reads another of its level, so the values must not depend on
that order. Solves the game twice in one process (`solver.tables.make.solve_game`,
the model for a game with crosses) and compares the start values and the
take-over values whole; prints one markdown row for BENCHMARKS.md.
"""

import sys
import time

import numpy as np

from solver.tables.machine import machine


def main(game="quinze-mille", target=None):
    from solver.model.rules import get_rules
    from solver.tables.make import solve_game
    rules = get_rules(game, int(target) if target else None)
    seconds, solutions = [], []
    for _ in range(2):
        started = time.perf_counter()
        solutions.append(solve_game(rules))
        seconds.append(time.perf_counter() - started)
    first, second = solutions
    same_start = np.array_equal(first.W, second.W)
    same_take = np.array_equal(first.take_values, second.take_values)
    print(f"Machine: {machine()}\n")
    print("| game | target | solves s | start values | take-over values | identical |")
    print("|---|---|---|---|---|---|")
    print(f"| {rules.name} | {rules.target} | {seconds[0]:.1f}, {seconds[1]:.1f} | "
          f"{first.W.size:,} | {first.take_values.size:,} | "
          f"{'yes' if same_start and same_take else 'NO'} |")
    return 0 if same_start and same_take else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""Regenerate every game's table in tables/ (or $FARKLE_TABLES).

    python scripts/make_tables.py              # every game
    python scripts/make_tables.py cinq-mille   # some games

Each table is solved, checked (Bellman residual at sampled states) and
written atomically; a summary line per game is printed.
"""

import sys
import time

from solver.solve import solve_and_write
from solver.rules import GAMES


def main(names):
    for name in names or list(GAMES):
        started = time.perf_counter()
        solution, path, residual = solve_and_write(GAMES[name])
        print(f"{name:<20} first player {solution.first_player_win:.7f}  "
              f"{time.perf_counter() - started:7.1f} s  residual {residual:.1e}  "
              f"{path.stat().st_size / 1e6:8.1f} MB  {path}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

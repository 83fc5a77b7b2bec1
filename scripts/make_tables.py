"""Regenerate the tables of the repository's tables/ (the committed ones,
which ship inside the package).

    python scripts/make_tables.py              # every game
    python scripts/make_tables.py cinq-mille   # some games

Each table is solved, checked (Bellman residual at sampled states) and
written atomically into tables/; a summary line per game is printed. Tables
over 25 MB are written there too but are not committed (.gitignore): a user
makes them with ``farkle solve GAME`` into their own table directory.
"""

import sys
import time

from solver.rules import GAMES
from solver.solve import solve_and_write
from solver.tables import package_dir, table_name


def main(names):
    for name in names or list(GAMES):
        started = time.perf_counter()
        rules = GAMES[name]
        solution, path, residual = solve_and_write(rules, package_dir() / table_name(rules))
        print(f"{name:<20} first player {solution.first_player_win:.7f}  "
              f"{time.perf_counter() - started:7.1f} s  residual {residual:.1e}  "
              f"{path.stat().st_size / 1e6:8.1f} MB  {path}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

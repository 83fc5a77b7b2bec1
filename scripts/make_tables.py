"""Regenerate the tables of the repository's tables/ (the committed ones,
which ship inside the package).

    python scripts/make_tables.py              # every game, and THREE_PLAYERS
    python scripts/make_tables.py cinq-mille   # some games
    python scripts/make_tables.py cinq-mille:3 # a game with 3 players

Each table is solved, checked (Bellman residual at sampled states) and
written atomically into tables/; a summary line per game is printed. Tables
over 25 MB are written there too but are not committed (.gitignore): a user
makes them with ``farkle solve GAME`` into their own table directory.
"""

import sys
import time

from solver.model.rules import GAMES
from solver.tables.make import solve_and_write
from solver.tables.paths import package_dir, table_name

THREE_PLAYERS = ["cinq-mille:3"]
"""Tables of more players that come with the program (3-player cinq-mille:
73 s, 12.8 MB)."""


def main(names):
    # Load the compiled kernels first, so that the solve time a table
    # records is the solve's, not the loading's (as benchmarks/bench_solve.py).
    from solver.engine.two_player import solve
    solve(GAMES["pig"].with_target(20))
    for spec in names or list(GAMES) + THREE_PLAYERS:
        name, _, players = spec.partition(":")
        players = int(players or 2)
        started = time.perf_counter()
        rules = GAMES[name]
        solution, path, residual = solve_and_write(
            rules, package_dir() / table_name(rules, None, players), players=players)
        print(f"{spec:<20} first player {solution.first_player_win:.7f}  "
              f"{time.perf_counter() - started:7.1f} s  residual {residual:.1e}  "
              f"{path.stat().st_size / 1e6:8.1f} MB  {path}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

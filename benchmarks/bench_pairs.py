"""The two-player solver against the N-player solver at two players: the
same values, and how long each takes (solver/engine/__init__.py quotes
these to say why the pair stays two).

    python benchmarks/bench_pairs.py cinq-mille,5000 quinze-mille,8000 dix-mille,1500

Each game is solved by both after a warm-up solve at a small target (so
that numba's compilation is not counted), three times each (a game with
crosses once: it takes minutes), with the exact memory where the game has
crosses; the median time and the first player's chance are printed.
"""

import statistics
import sys
import time

from solver.engine.n_player import solve_players
from solver.engine.two_player import solve
from solver.model.rules import get_rules
from solver.model.states import player_space


def timed(run, repeats):
    times, solution = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        solution = run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), solution


def main(specs):
    for spec in specs:
        name, target = spec.split(",")
        rules = get_rules(name, int(target))
        small = get_rules(name, 1000 if name != "pig" else 50)
        for game in (small, rules):
            space = player_space(game, "exact")
            repeats = 1 if game is small or game.crosses else 3
            two = timed(lambda: solve(game, space=space), repeats)
            many = timed(lambda: solve_players(game, 2, space), repeats)
        print(f"{name} to {rules.target}: two_player.solve {two[0]:.2f} s, "
              f"n_player.solve_players(2) {many[0]:.2f} s (ratio {many[0] / two[0]:.2f}); "
              f"first player {two[1].first_player_win:.10f} / {many[1].first_player_win:.10f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["cinq-mille,5000", "quinze-mille,8000", "pig,100"])

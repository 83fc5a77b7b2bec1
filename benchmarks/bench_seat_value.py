"""Time one exact evaluation of a seat's policy (solver.cards.seat_value).

    python benchmarks/bench_seat_value.py GAME TARGET [--players N] [--tol TOL] [--stored]

With two players (the default) it evaluates the game's first-guess card
(``scripts/fit_cards.py``), or with ``--stored`` its stored card
(``solver/cards/cards.json``), against the two-player table, as the card search
does; with more, the race-of-duels model (solver.advice.duels) against the exact
N-player table, as ``scripts/measure_players.py`` does. The tables are
solved first (not timed). Prints the seconds of the evaluation, the seats
it gives and the process's peak memory.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game")
    parser.add_argument("target", type=int)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--tol", type=float, default=1e-8)
    parser.add_argument("--stored", action="store_true",
                        help="the game's stored card, not its first guess")
    args = parser.parse_args(argv)
    from solver.engine.n_player import solve_players
    from solver.engine.two_player import solve
    from solver.model.rules import get_rules
    from solver.model.states import player_space
    from solver.tables.make import solve_game
    rules = get_rules(args.game, args.target)
    if args.players == 2:
        from solver.cards.fit.search import first_guess
        from solver.cards.seat_value import card_seat_values
        from solver.cards.store import card_for
        table = solve_game(rules)
        card = card_for(get_rules(args.game))[0] if args.stored else first_guess(table)
        started = time.perf_counter()
        seats = card_seat_values(table, card, tol=args.tol)
    else:
        from solver.cards.seat_value import model_seat_values
        space = player_space(rules, "exact")
        table = solve_players(rules, args.players, space=space)
        two = solve(rules, space=space)
        started = time.perf_counter()
        seats = model_seat_values(table, two, tol=args.tol)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.game} to {args.target}, {args.players} players: evaluation {seconds:.1f} s, "
          f"seats {' / '.join(f'{v:.6f}' for v in seats)}, peak {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

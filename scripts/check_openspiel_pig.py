"""Our optimal Pig policy played through OpenSpiel's own ``pig``: does it
win at the rates our tables predict?

    python scripts/check_openspiel_pig.py [--players N] [--target T] [--games G] [--seed S]

OpenSpiel's C++ engine applies every roll and says who won; our policy
reads their state through their API (:mod:`solver.adapters.openspiel_pig`
says how the games match and how the state translates). For each seat the
win rate is compared with our table's chance ``p`` by
``z = (rate - p) / sqrt(p (1 - p) / games)``; the check passes when every
``|z| < 4``. The table is the committed one (two players) or made on first
use (``farkle solve pig --players 3``: 26 s on the machine of
docs/adapters.md). Prints the machine, the command's numbers and the time;
``--json`` the same as JSON. Exit status 1 when the check fails.
"""

import argparse
import json
import sys
import time

from solver.adapters.openspiel_pig import play
from solver.model.rules import get_rules
from solver.tables.load import ALWAYS_SOLVE, load_table
from solver.tables.machine import machine

LIMIT = 4.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rules = get_rules("pig", args.target)
    solution = load_table(rules, args.players, first_use=ALWAYS_SOLVE)
    started = time.perf_counter()
    result = play(solution, args.games, args.seed)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["machine"] = machine()
    passed = max(abs(z) for z in result["z"]) < LIMIT and result["unfinished"] == 0
    result["passed"] = passed
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"OpenSpiel pig(players={args.players}, winscore={args.target}), our optimal "
              f"policy in every seat, {args.games:,} games, seed {args.seed}")
        print(f"{'seat':<6}{'wins':>9}{'rate':>10}{'table':>10}{'stderr':>9}{'z':>7}")
        for seat in range(args.players):
            print(f"{seat + 1:<6}{result['wins'][seat]:>9,}{result['rates'][seat]:>10.5f}"
                  f"{result['predicted'][seat]:>10.5f}{result['stderr'][seat]:>9.5f}"
                  f"{result['z'][seat]:>7.2f}")
        print(f"unfinished (horizon): {result['unfinished']}; {result['seconds']} s on "
              f"{result['machine']}; {'passed' if passed else 'FAILED'} (|z| < {LIMIT:g})")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

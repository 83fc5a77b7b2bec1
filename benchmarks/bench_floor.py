"""The floor's effect (issue 67): the first player's chance in a game with
a penalty as the floor on banked scores is lowered, as Busche measured it.

    python benchmarks/bench_floor.py GAME [--target POINTS] [--floors -500,-1000,...]

Each floor is a fresh two-player solve of GAME with that ``floor``; prints a
markdown table (floor, player states, first player's chance, its change
from the floor before, seconds) with the machine and the command.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

from solver.engine.two_player import solve
from solver.model.rules import get_rules
from solver.tables.machine import machine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--target", type=int)
    parser.add_argument("--floors", default="0,-500,-1000,-1500,-2000,-2500,-3000")
    args = parser.parse_args(argv)
    rules = get_rules(args.game, args.target)
    print(f"Machine: {machine()}\n\nCommand: python benchmarks/bench_floor.py "
          f"{' '.join(argv if argv is not None else sys.argv[1:])}\n")
    print("| floor | player states | first player | change | seconds |")
    print("|---|---|---|---|---|")
    before = None
    for floor in (int(f) for f in args.floors.split(",")):
        played = dataclasses.replace(rules, floor=floor)
        started = time.perf_counter()
        solution = solve(played)
        seconds = time.perf_counter() - started
        win = solution.first_player_win
        change = "" if before is None else f"{win - before:+.2e}"
        print(f"| {floor:,} | {solution.space.size:,} | {win:.9f} | {change} | {seconds:.1f} |",
              flush=True)
        before = win
    return 0


if __name__ == "__main__":
    sys.exit(main())

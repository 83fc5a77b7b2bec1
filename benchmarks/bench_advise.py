"""Advice speed: one `farkle advise` process, and library calls.

    python benchmarks/bench_advise.py [GAME]

The process time is the wall time of whole `farkle advise` runs (Python
start, imports, table load, one answer), median of 15. The library time is
per call after the table is loaded, with the compiled turn DP loaded once:
every call a new pair of scores (no cache hit), median over random
positions; and the cached time (the same scores again).
"""

import random
import statistics
import subprocess
import sys
import time

from solver.advice.choose import advisor_for
from solver.model.rules import get_rules


def process_seconds(game, args, runs=15):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "solver.cli", "advise", game, *args],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def library_seconds(game, positions=300):
    advisor = advisor_for(get_rules(game), compiled=True)
    rules, space = advisor.rules, advisor.space
    scores = sorted({int(s) * rules.unit for s in space.score})
    advisor.bank_or_roll(0, 0, 0, rules.dice)                  # load the kernel
    rng = random.Random(0)
    fresh, cached = [], []
    for _ in range(positions):
        me, opp = rng.choice(scores), rng.choice(scores)
        room = (rules.target - me) // rules.unit
        if room < 2:
            continue
        turn = rng.randrange(1, room) * rules.unit
        dice = rng.randrange(1, rules.dice + 1)
        for bucket in (fresh, cached):
            started = time.perf_counter()
            advisor.bank_or_roll(me, opp, turn, dice)
            bucket.append(time.perf_counter() - started)
    return statistics.median(fresh), statistics.median(cached)


def main(games):
    from solver.model.rules import get_rules
    for game in games or ["cinq-mille"]:
        process = process_seconds(game, ["--me", "1500", "--opp", "2000", "--turn", "600",
                                         "--dice", "2"])
        dice = get_rules(game).dice
        roll = process_seconds(game, ["--me", "1500", "--opp", "2000", "--roll",
                                      *"1 1 5 3 2 6".split()[:dice]])
        fresh, cached = library_seconds(game)
        print(f"| {game} | {process:.3f} s | {roll:.3f} s | {1000 * fresh:.3f} ms | "
              f"{1000 * cached:.4f} ms |", flush=True)


if __name__ == "__main__":
    print("| game | `farkle advise` bank or roll | `farkle advise --roll` | "
          "library, new scores | library, cached |")
    print("|---|---|---|---|---|")
    main(sys.argv[1:])

"""Time the pricing of a card at decisions another card met.

    python benchmarks/bench_regret_pricing.py GAME [--games N] [--seed S]

Plays ``N`` games of the game's stored card against its table
(:func:`solver.cards.regret.card_regret`, not timed), then prices the same
card at the decisions it met two ways, which must agree: the compiled
pricing (:func:`solver.cards.regret.regret_of`: the decisions packed once,
then the card's choice at each in one compiled loop; its first call,
which compiles, and the median of three calls after it) and the card's
choice asked decision by decision in Python (:func:`solver.cards.regret.choices_at`,
as the search over sampled decisions did before). Prints both times and
estimates.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from solver.cards.fit.stored import load_table
from solver.cards.record import Card
from solver.cards.regret import card_regret, choices_at, decisions, regret_of
from solver.cards.store import stored_cards
from solver.model.rules import get_rules
from solver.tables.machine import machine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cards = stored_cards()
    if args.game not in cards:
        parser.error(f"{args.game} has no stored card")
    card = Card.from_dict(cards[args.game]["card"])
    solution = load_table(get_rules(args.game))
    visits = []
    card_regret(solution, card, args.games, args.seed, visits)
    started = time.perf_counter()
    packed = decisions(solution, visits)
    packing = time.perf_counter() - started
    times = []
    for _ in range(4):
        started = time.perf_counter()
        compiled = regret_of(solution, card, packed, args.games)
        times.append(time.perf_counter() - started)
    started = time.perf_counter()
    python = sum(visit.regret(choice)
                 for visit, _, _, choice in choices_at(solution, card, visits)) / args.games
    python_time = time.perf_counter() - started
    print(f"Machine: {machine()}. Command: `python benchmarks/bench_regret_pricing.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    print(f"{args.game}: {len(visits):,} decisions over {args.games:,} games; packed in "
          f"{packing:.2f} s; compiled pricing {times[0]:.2f} s first (compiling, unless cached), "
          f"{statistics.median(times[1:]):.3f} s after (median of 3): {100 * compiled:.6f} "
          f"points; in Python {python_time:.2f} s: {100 * python:.6f} points")
    return 0 if abs(compiled - python) < 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())

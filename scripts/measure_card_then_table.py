"""What a game's stored card gives up when its player asks the table near
the end: the card until either player is within ``--within`` points of
the target, ``farkle advise`` from then on.

    python scripts/measure_card_then_table.py GAME [GAME ...] [--within POINTS]

An exact evaluation (:func:`solver.cards.seat_value.card_seat_values` with
``table_within``: the card's player plays the table's decisions at every
turn start where a score is that near the target, its take-overs
included); the loss is one half less the mean of the two seats, as for the
card alone. Stored with the card in ``solver/cards/cards.json`` as
``card_then_table``, which ``farkle card GAME`` prints as a note; the card
fitted again drops it.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from solver.cards.fit.stored import load_table, save
from solver.cards.record import Card
from solver.cards.regret import NEAR_END
from solver.cards.seat_value import card_seat_values
from solver.cards.store import stored_cards
from solver.model.rules import get_rules
from solver.tables.machine import machine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--within", type=int, default=NEAR_END,
                        help=f"points to the target from which the table plays (default "
                        f"{NEAR_END:,}, as where_cards_lose.py --bounds)")
    parser.add_argument("--tol", type=float, default=1e-12)
    args = parser.parse_args(argv)
    print(f"Machine: {machine()}. Command: `python scripts/measure_card_then_table.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    print("| game | the card alone (pp) | the card, then the table (pp) | seats | seconds |")
    print("|---|---:|---:|---|---:|")
    for name in args.games:
        rules = get_rules(name)
        entry = stored_cards().get(name)
        if entry is None:
            parser.error(f"no card for {name} in solver/cards/cards.json")
        solution = load_table(rules)
        started = time.perf_counter()
        seats = card_seat_values(solution, Card.from_dict(entry["card"]), tol=args.tol,
                                 table_within=args.within)
        seconds = time.perf_counter() - started
        loss = 0.5 - float(np.mean(seats))
        entry = stored_cards()[name]      # read again: another run may have written
        entry["card_then_table"] = {
            "within": args.within, "loss": loss, "seats": [float(v) for v in seats],
            "target": rules.target, "seconds": seconds, "machine": machine(),
            "command": f"python scripts/measure_card_then_table.py {name}"
                       + (f" --within {args.within}" if args.within != NEAR_END else "")}
        save(name, entry)
        print(f"| {name} | {100 * entry['loss']['loss']:.3f} | {100 * loss:.3f} | "
              + " / ".join(f"{100 * v:.2f}%" for v in seats) + f" | {seconds:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a game's stored card gives up at a table of more than two.

    python scripts/measure_card_players.py GAME --players N [--tol TOL]

The card is fitted for two; with more players the card's player reads the
leader's score as the other player's (``farkle card GAME --players N``
says so). Against the N-player table (``farkle solve GAME --players N``
makes it; cinq-mille's for three is committed) the card's chance in each
seat is a fixed-policy evaluation
(:func:`solver.seat_value.card_seat_values_n`), and its loss the mean over
the seats of the table's chance less the card's, as for two players.
Stores it with the card in ``solver/cards.json`` under ``players``, which
``farkle card GAME --players N`` prints; a card fitted again drops it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from fit_cards import save  # noqa: E402
from machine import machine  # noqa: E402

from solver.card_record import Card  # noqa: E402
from solver.card_sheet import stored_cards  # noqa: E402
from solver.rules import get_rules  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--tol", type=float, default=1e-12)
    args = parser.parse_args(argv)
    from solver.seat_value import card_seat_values_n
    from solver.tables import default_path, read_table
    rules = get_rules(args.game)
    entry = stored_cards().get(args.game)
    if entry is None:
        parser.error(f"no card for {args.game} in solver/cards.json")
    if args.players < 3:
        parser.error("--players: 3 or more (the card's loss with two is measured by "
                     "scripts/fit_cards.py)")
    path = default_path(rules, players=args.players)
    if not path.exists():
        parser.error(f"no {args.players}-player table at {path}: farkle solve {args.game} "
                     f"--players {args.players}")
    solution = read_table(path, rules, lazy_take=False, expect_players=args.players)
    started = time.perf_counter()
    seats = card_seat_values_n(solution, Card.from_dict(entry["card"]), tol=args.tol)
    seconds = time.perf_counter() - started
    table_seats = np.asarray(solution.seat_wins)
    loss = float(np.mean(table_seats - seats))
    command = (f"python scripts/measure_card_players.py {args.game} --players {args.players}"
               + (f" --tol {args.tol:g}" if args.tol != 1e-12 else ""))
    entry.setdefault("players", {})[str(args.players)] = {
        "loss": loss, "target": rules.target, "seats": [float(v) for v in seats],
        "table_seats": [float(v) for v in table_seats],
        "seconds": seconds, "machine": machine(), "command": command}
    save(args.game, entry)
    print(f"Machine: {machine()}. Command: `{command}`.\n")
    print(f"{args.game}, {args.players} players: the card (against the leader) gives up "
          f"{100 * loss:.3f} pp; seats (seat 1 first) card / table: "
          + ", ".join(f"{100 * c:.2f}% / {100 * t:.2f}%" for c, t in zip(seats, table_seats))
          + f" ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

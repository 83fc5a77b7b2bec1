"""What a game's stored card gives up at a table of more than two, and a
card fitted for that table.

    python scripts/measure_card_players.py GAME --players N [--tol TOL]
    python scripts/measure_card_players.py GAME --players N --fit [--rounds R]

The card is fitted for two; with more players the card's player reads the
leader's score as the other player's (``farkle card GAME --players N``
says so). Against the N-player table (``farkle solve GAME --players N``
makes it; cinq-mille's for three is committed) the card's chance in each
seat is a fixed-policy evaluation
(:func:`solver.cards.seat_value.card_seat_values_n`), and its loss the mean over
the seats of the table's chance less the card's, as for two players.
Stores it with the card in ``solver/cards/cards.json`` under ``players``, which
``farkle card GAME --players N`` prints; the two-player card fitted again
drops it.

With ``--fit``, a card of its own for N players: the coordinate search of
``scripts/fit_cards.py`` from the two-player card, each card scored by
this evaluation. It is stored under ``players`` as ``fitted`` (kept when
the two-player card is fitted again) and is the card ``farkle card GAME
--players N``, ``farkle advise --card`` and the bots play at a table of N.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from solver.cards.fit.search import fields_to_fit, fit
from solver.cards.fit.stored import save
from solver.cards.record import Card
from solver.cards.store import stored_cards
from solver.model.rules import get_rules
from solver.tables.machine import machine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--tol", type=float, default=1e-12)
    parser.add_argument("--fit", action="store_true",
                        help="fit a card of its own for this many players, from the two-player "
                        "card")
    parser.add_argument("--rounds", type=int, default=6, help="with --fit: at most this many "
                        "rounds of the search (default 6)")
    args = parser.parse_args(argv)
    from solver.cards.seat_value import card_seat_values_n
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    rules = get_rules(args.game)
    entry = stored_cards().get(args.game)
    if entry is None:
        parser.error(f"no card for {args.game} in solver/cards/cards.json")
    if args.players < 3:
        parser.error("--players: 3 or more (the card's loss with two is measured by "
                     "scripts/fit_cards.py)")
    path = default_path(rules, players=args.players)
    if not path.exists():
        parser.error(f"no {args.players}-player table at {path}: farkle solve {args.game} "
                     f"--players {args.players}")
    solution = read_table(path, rules, lazy_take=False, expect_players=args.players)
    if args.fit:
        return fit_for_players(args, rules, solution, entry)
    started = time.perf_counter()
    seats = card_seat_values_n(solution, Card.from_dict(entry["card"]), tol=args.tol)
    seconds = time.perf_counter() - started
    table_seats = np.asarray(solution.seat_wins)
    loss = float(np.mean(table_seats - seats))
    command = (f"python scripts/measure_card_players.py {args.game} --players {args.players}"
               + (f" --tol {args.tol:g}" if args.tol != 1e-12 else ""))
    measured = entry.setdefault("players", {}).setdefault(str(args.players), {})
    measured.update({
        "loss": loss, "target": rules.target, "seats": [float(v) for v in seats],
        "table_seats": [float(v) for v in table_seats],
        "seconds": seconds, "machine": machine(), "command": command})
    save(args.game, entry)
    print(f"Machine: {machine()}. Command: `{command}`.\n")
    print(f"{args.game}, {args.players} players: the card (against the leader) gives up "
          f"{100 * loss:.3f} pp; seats (seat 1 first) card / table: "
          + ", ".join(f"{100 * c:.2f}% / {100 * t:.2f}%" for c, t in zip(seats, table_seats))
          + f" ({seconds:.0f} s)")
    return 0


def fit_for_players(args, rules, solution, entry) -> int:
    """``--fit``: the search from the two-player card, stored as
    ``players[N]["fitted"]``."""
    from solver.cards.seat_value import card_seat_values_n
    started = time.perf_counter()
    card, loss, evaluations, seats = fit(
        solution, args.rounds,
        lambda text: print(f"{args.game}, {args.players} players: {text}", file=sys.stderr,
                           flush=True),
        args.tol, start=Card.from_dict(entry["card"]), seat_values=card_seat_values_n)
    seconds = time.perf_counter() - started
    command = (f"python scripts/measure_card_players.py {args.game} --players {args.players} "
               f"--fit" + (f" --rounds {args.rounds}" if args.rounds != 6 else "")
               + (f" --tol {args.tol:g}" if args.tol != 1e-12 else ""))
    entry = stored_cards()[args.game]     # read again: the file may have changed meanwhile
    entry.setdefault("players", {}).setdefault(str(args.players), {})["fitted"] = {
        "card": card.to_dict(), "loss": loss, "target": rules.target,
        "seats": [float(v) for v in seats], "evaluations": evaluations,
        "searched": fields_to_fit(rules), "seconds": seconds, "machine": machine(),
        "command": command}
    save(args.game, entry)
    print(f"Machine: {machine()}. Command: `{command}`.\n")
    print(f"{args.game}, {args.players} players: the card fitted for {args.players} gives up "
          f"{100 * loss:.3f} pp ({evaluations} evaluations, {seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

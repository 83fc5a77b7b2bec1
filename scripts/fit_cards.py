"""Fit the strategy cards to the tables and measure what they give up.

    python scripts/fit_cards.py GAME [GAME ...] [--rounds R]

Runs :func:`solver.cards.fit.stored.fit_stored` for each game (its module
docstring has the search and every option): writes
``solver/cards/cards.json`` (game -> card, loss, seats, the fields any
search has moved since the first guess, the simple rules' losses) and
prints a markdown table with the machine and the command.
"""

from __future__ import annotations

import argparse
import sys

from solver.cards.fit.stored import COMMAND, FitOptions, fit_stored, parse_set
from solver.cards.store import stored_cards
from solver.model.errors import UsageError
from solver.tables.machine import machine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--tol", type=float, default=1e-12,
                        help="the evaluations' tolerance (default 1e-12); 1e-8 is plenty for "
                        "a loss given to 0.01 point and saves sweeps where a game has falls")
    parser.add_argument("--fields", metavar="NAMES",
                        help="search these fields alone (comma-separated, as in the card: "
                        "bank1.., left1.., take_at, ...), where one evaluation takes minutes")
    parser.add_argument("--from-stored", action="store_true",
                        help="start from the game's card in solver/cards/cards.json, not the first "
                        "guess")
    parser.add_argument("--from-card", metavar="GAME",
                        help="start from GAME's stored card (as many dice), not the first guess")
    parser.add_argument("--set", metavar="NAME=VALUE", default="",
                        help="start from a card with these fields changed (comma-separated, "
                        "named as in --fields: finish_within=300,bank3=400)")
    parser.add_argument("--simple-only", action="store_true",
                        help="measure the simple rules alone and store them beside the game's "
                        "card (a second process, where one evaluation takes half an hour)")
    parser.add_argument("--resume", action="store_true",
                        help="with --simple-only: keep the simple rules already stored and "
                        "measure the rest (after an interrupted run)")
    parser.add_argument("--sampled", type=int, default=0, metavar="GAMES",
                        help="with --simple-only: measure each rule over this many sampled "
                        "games (the sum of its regrets, with a standard error) instead of "
                        "exactly, where an exact evaluation takes hours; else search the card "
                        "by its decisions over this many games a set, at the game's own rules, "
                        "and measure it over --measure-games games")
    parser.add_argument("--measure-games", type=int, default=100_000, metavar="GAMES",
                        help="with --sampled: the games that measure the card searched and the "
                        "best card played (default 100,000)")
    parser.add_argument("--card-only", action="store_true",
                        help="measure the card alone and keep the simple rules as stored, to "
                        "measure later with --simple-only (where each evaluation takes half an "
                        "hour)")
    parser.add_argument("--fit-target", type=int, metavar="POINTS",
                        help="fit at this smaller target (where one evaluation at the game's "
                        "own target takes minutes), then measure at the game's own")
    parser.add_argument("--fit-floor", type=int, metavar="POINTS",
                        help="fit on the game's rules with this shallower floor (a game with a "
                        "penalty: -2,500 makes every evaluation slow), then measure at the "
                        "game's own")
    args = parser.parse_args(argv)
    try:
        options = FitOptions(
            rounds=args.rounds, tol=args.tol,
            fields=args.fields.split(",") if args.fields else None,
            from_stored=args.from_stored, changes=parse_set(args.set),
            simple_only=args.simple_only, resume=args.resume, sampled=args.sampled,
            measure_games=args.measure_games,
            card_only=args.card_only, fit_target=args.fit_target, fit_floor=args.fit_floor,
            from_card=args.from_card)
        for name in args.games:
            options.check(name)
    except UsageError as error:
        parser.error(str(error))
    for name in args.games:
        fit_stored(name, options, lambda text: print(text, file=sys.stderr, flush=True))
    print(f"Machine: {machine()}. Command: `{COMMAND} "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    print("| game | card loses (pp) | first / second | " + "simple rules (pp) |")
    print("|---|---:|---|---|")
    for name in args.games:
        entry = stored_cards()[name]
        loss = entry.get("loss")
        seats = " / ".join(f"{100 * v:.2f}%" for v in loss["seats"]) if loss else "-"
        simple = "; ".join(f"{k} {100 * v['loss']:.2f}"
                           + (f" +- {100 * v['stderr']:.2f} (sampled)" if "stderr" in v else "")
                           for k, v in entry["simple"].items())
        given_up = f"{100 * loss['loss']:.2f}" if loss else "-"
        if loss and "stderr" in loss:
            given_up += f" +- {100 * loss['stderr']:.2f} (sampled)"
        print(f"| {name} | {given_up} | {seats} | {simple} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fit the strategy cards to the tables and measure what they give up.

    python scripts/fit_cards.py GAME [GAME ...] [--rounds R]

For each game: the card's first guess is read off the table (per dice in
hand, the median smallest total at which optimal play banks with both
players level, over a grid of scores), then :func:`solver.cards.fit.search.fit`'s
coordinate search lowers the card's loss, 1/2 minus the mean of its exact
chances as the first and as the second player against optimal play (its
docstring has the search). A row of thresholds near an end changes
nothing until its condition is set (``--set home_within=1000``). The
simple rules people use (:func:`solver.cards.fit.search.simple_rules`) are
evaluated the same way, as cards.

Where one evaluation at the game's own target takes minutes (quinze-mille,
dix-mille), ``--fit-target T`` fits the card at a smaller target T (its
table solved first if missing) and measures it, and the simple rules, at
the game's own target: the loss reported is always the game's own;
``--fields NAMES`` searches the named fields alone, and ``--from-stored``
starts from the stored card instead of the first guess, ``--set
NAME=VALUE,...`` from a card with those fields changed; a card fitted at a
smaller target or changed by ``--set`` replaces the stored one only where
it gives up less at the game's own target. ``--tol`` loosens
the evaluations' tolerance (sweeps, where a game has falls);
``--card-only`` and ``--simple-only`` split one game's measurements into
two runs (dix-mille: about half an hour per evaluation). Where a simple
rule's exact evaluation takes hours (dix-mille-free-keep), ``--simple-only
--sampled GAMES`` measures it instead over that many games played by the
rule against the table (:func:`solver.cards.regret.card_regret`: the sum of
its regrets, an unbiased estimate of the exact loss, stored with its
standard error).

Writes ``solver/cards/cards.json`` (game -> card, loss, seats, the fields any
search has moved since the first guess, the simple rules' losses) and
prints a markdown table with the machine and the command.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from machine import machine  # noqa: E402

from solver.cards.fit.search import (fields_to_fit, first_guess, fit, measure_simple,  # noqa: E402
                             put)
from solver.cards.record import Card  # noqa: E402
from solver.cards.store import stored_cards  # noqa: E402
from solver.cards.store import CARDS_FILE
from solver.model.rules import get_rules  # noqa: E402


def load_table(rules):
    """The table of ``rules``, solved first (into the user's tables) when
    missing: a reduced target's table is a few seconds' solve."""
    from solver.tables.make import solve_and_write
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    if not default_path(rules).exists():
        solve_and_write(rules)
    return read_table(default_path(rules), rules, lazy_take=False)


def save(name: str, entry: dict) -> None:
    """Write one game's entry into ``solver/cards/cards.json``, read again first:
    two runs for two games may write in turn."""
    cards = stored_cards()
    cards[name] = entry
    tmp = CARDS_FILE.with_suffix(f".{name}.tmp")
    tmp.write_text(json.dumps(cards, indent=1) + "\n")
    tmp.replace(CARDS_FILE)


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
                        "exactly, where an exact evaluation takes hours")
    parser.add_argument("--card-only", action="store_true",
                        help="measure the card alone and keep the simple rules as stored, to "
                        "measure later with --simple-only (where each evaluation takes half an "
                        "hour)")
    parser.add_argument("--fit-target", type=int, metavar="POINTS",
                        help="fit at this smaller target (where one evaluation at the game's "
                        "own target takes minutes), then measure at the game's own")
    args = parser.parse_args(argv)
    if args.sampled and not args.simple_only:
        parser.error("--sampled measures the simple rules: use it with --simple-only")
    if args.sampled < 0:
        parser.error(f"--sampled takes a number of games, not {args.sampled}")
    from solver.cards.seat_value import card_seat_values
    cards = stored_cards()
    for name in args.games:
        rules = get_rules(name)
        started = time.perf_counter()
        fit_rules = rules.with_target(args.fit_target) if args.fit_target else rules
        fields = args.fields.split(",") if args.fields else None
        changes = {}
        for pair in filter(None, args.set.split(",")):
            field, _, value = pair.partition("=")
            if not value.lstrip("-").isdigit():
                parser.error(f"--set takes NAME=VALUE with a whole number, not {pair!r}")
            changes[field] = int(value)
        unknown = (set(fields or []) | set(changes)) - set(fields_to_fit(rules))
        if unknown:
            parser.error(f"{name} has no card field {', '.join(sorted(unknown))} to search "
                         f"(it has: {', '.join(fields_to_fit(rules))})")
        if args.from_stored and name not in cards:
            parser.error(f"{name} has no stored card to start from")
        start = Card.from_dict(cards[name]["card"]) if args.from_stored else None
        if changes:
            start = start or first_guess(load_table(fit_rules))
            for field, value in changes.items():
                start = put(start, field, value)
        if args.simple_only:
            solution = load_table(rules)
            stored = Card.from_dict(cards[name]["card"]) if name in cards else None
            entry = cards.setdefault(name, {})
            entry["simple"] = entry.get("simple", {}) if args.resume else {}
            entry["simple_command"] = (f"python scripts/fit_cards.py {name} --simple-only"
                                       + (" --resume" if args.resume else "")
                                       + (f" --sampled {args.sampled}" if args.sampled else "")
                                       + (f" --tol {args.tol:g}" if args.tol != 1e-12 else ""))
            # Saved after each rule, as below: an interrupted run keeps
            # what it measured.
            measure_simple(solution, stored or first_guess(solution), args.tol,
                           entry["simple"], lambda: save(name, entry), args.sampled)
            continue
        solution = load_table(fit_rules)
        card, loss, evaluations, seats = fit(
            solution, args.rounds,
            lambda text: print(f"{name}: {text}", file=sys.stderr, flush=True), args.tol,
            fields, start)
        # Read again: another run may have stored a better card meanwhile.
        stored = stored_cards().get(name, {})
        # Every field a search has moved since the first guess: this run's
        # and, from the stored card, those before it.
        searched = sorted(set(stored.get("loss", {}).get("searched", []) if args.from_stored
                              else []) | set(changes)
                          | set(fields or fields_to_fit(rules) if args.rounds else []))
        if args.rounds and card == start and not changes:
            print(f"{name}: no better card found; solver/cards/cards.json keeps the stored one",
                  file=sys.stderr)
            stored["loss"]["searched"] = searched
            save(name, stored)
            continue
        if fit_rules != rules:
            solution = load_table(rules)
            seats = card_seat_values(solution, card, tol=args.tol)
            loss = 0.5 - float(np.mean(seats))
        was = stored.get("loss", {})
        if start and was.get("target") == rules.target and loss >= was.get("loss", np.inf):
            # Fitted at a smaller target, or changed by --set: a card
            # replaces the stored one only where it gives up less.
            print(f"{name}: this card gives up {100 * loss:.3f} points, the stored one "
                  f"{100 * was['loss']:.3f}; solver/cards/cards.json keeps the stored one",
                  file=sys.stderr)
            continue
        # --card-only keeps the simple rules as stored, measured beside the
        # previous card ("always keep everything" takes its banks) until
        # --simple-only measures them again.
        simple = stored.get("simple", {}) if args.card_only else {}
        # The cards fitted for more players stay; what this card gives up
        # with them is to be measured again.
        kept = {players: {"fitted": measured["fitted"]}
                for players, measured in stored.get("players", {}).items()
                if "fitted" in measured}
        cards[name] = {"card": card.to_dict(),
                       "loss": {"loss": loss, "target": rules.target,
                                "seats": [float(v) for v in seats],
                                "evaluations": evaluations,
                                "searched": searched,
                                "fitted_at": fit_rules.target,
                                "seconds": time.perf_counter() - started,
                                "machine": machine(),
                                "command": f"python scripts/fit_cards.py {name}"
                                           + (f" --fit-target {args.fit_target}"
                                              if args.fit_target else "")
                                           + (f" --rounds {args.rounds}"
                                              if args.rounds != 6 else "")
                                           + (f" --tol {args.tol:g}" if args.tol != 1e-12
                                              else "")
                                           + (f" --fields {args.fields}" if fields else "")
                                           + (" --from-stored" if args.from_stored else "")
                                           + (f" --set {args.set}" if changes else "")
                                           + (" --card-only" if args.card_only else "")},
                       "simple": simple,
                       **({"simple_command": stored["simple_command"]}
                          if args.card_only and "simple_command" in stored else {}),
                       **({"players": kept} if kept else {})}
        # Saved now and after each simple rule: where one evaluation takes
        # half an hour, an interrupted run keeps what it measured.
        save(name, cards[name])
        if args.card_only:
            continue
        measure_simple(solution, card, args.tol, simple, lambda: save(name, cards[name]))
    print(f"Machine: {machine()}. Command: `python scripts/fit_cards.py "
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
        print(f"| {name} | {given_up} | {seats} | {simple} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

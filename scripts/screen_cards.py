"""Search a strategy card over sampled decisions, then measure it exactly.

    python scripts/screen_cards.py GAME [--games N] [--plays P] [--fields NAMES]
                                   [--set NAME=VALUE,...] [--seed S] [--check-seed C]

Where one exact evaluation takes 43 minutes (dix-mille), a coordinate
search over exact evaluations (``scripts/fit_cards.py``) cannot run at the
game's own target. This one is :mod:`solver.cards.fit.screen`'s (``farkle card
--fit --sampled`` runs it for a house game) from the game's stored card,
``--set`` moving fields first: ``P`` plays of ``N`` games, the moves
taken where the estimate drops over the games of ``--seed`` and, with
``--check-seed C``, over those of seed ``C`` too (a search over one set of
games also fits its dice: dix-mille-free-keep, 34 fields over 4,000
games, gained 0.09 points there and lost 0.03 over another 4,000). The
last word is the exact evaluation the script prints the command for
(``fit_cards.py --rounds 0 --from-stored --set ... --card-only``, which
stores the card only if it gives up less).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from solver.cards.fit.screen import play, search
from solver.cards.fit.search import fields_to_fit, put
from solver.cards.fit.stored import load_table, parse_set, set_string, unknown_fields
from solver.cards.record import Card
from solver.cards.store import stored_cards
from solver.model.errors import UsageError
from solver.model.rules import get_rules
from solver.tables.machine import machine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--plays", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fields", default="")
    parser.add_argument("--set", default="")
    parser.add_argument("--check-seed", type=int, default=None,
                        help="play the card's games again with these dice, and take a move "
                        "only where the estimate drops over both sets")
    args = parser.parse_args(argv)
    rules = get_rules(args.game)
    cards = stored_cards()
    if args.game not in cards:
        parser.error(f"{args.game} has no stored card to start from")
    names = args.fields.split(",") if args.fields else fields_to_fit(rules)
    stored = card = Card.from_dict(cards[args.game]["card"])
    try:
        changes = parse_set(args.set)
        unknown_fields(rules, names + list(changes))
    except UsageError as error:
        parser.error(str(error))
    for name, value in changes.items():
        card = put(card, name, value)
    solution = load_table(rules)
    started = time.perf_counter()
    print(f"Machine: {machine()}. Command: `python scripts/screen_cards.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    seeds = [args.seed] + ([args.check_seed] if args.check_seed is not None else [])
    for number in range(args.plays + 1):
        sets, losses = play(solution, card, args.games, seeds)
        for seed, (sampled, stderr) in zip(seeds, losses):
            print(f"play {number}, seed {seed}: the card gives up {100 * sampled:.3f} ± "
                  f"{100 * stderr:.3f} points over {args.games:,} games", flush=True)
        if number == args.plays:
            break
        card, estimate = search(solution, card, names, args.games, sets,
                                lambda text: print(text, flush=True))
        print(f"searched: {100 * estimate:.3f} points estimated", flush=True)
    moved = set_string(stored, card, fields_to_fit(rules))
    print(f"\n{time.perf_counter() - started:.0f} s. " + (
        f"Measure it exactly:\npython scripts/fit_cards.py {args.game} --rounds 0 --tol 1e-8 "
        f"--from-stored --set {moved} --card-only" if moved else
        "The search moved nothing from the stored card."))
    print(json.dumps(dataclasses.asdict(card)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

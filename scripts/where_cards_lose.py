"""Where a strategy card loses: its loss split by decision.

    python scripts/where_cards_lose.py GAME [GAME ...] [--games N] [--seed S]
                                       [--cards FILE]

For each game, plays ``N`` games of the
card against the table's player and prints the regret by kind of decision
and dice in hand (:mod:`solver.card_regret`), beside the card's exact loss.
``--cards`` reads the cards from another file than ``solver/cards.json``
(say an older commit's: ``--cards <(git show COMMIT:solver/cards.json)``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from machine import machine  # noqa: E402

from solver.card import Card  # noqa: E402
from solver.card_sheet import CARDS_FILE  # noqa: E402
from solver.rules import get_rules  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--games", dest="count", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cards", type=Path, default=CARDS_FILE)
    args = parser.parse_args(argv)
    from solver.card_regret import KIND_LABELS, card_regret
    from solver.seat_value import card_seat_values
    from solver.tables import default_path, read_table
    cards = json.loads(args.cards.read_text())
    print(f"Machine: {machine()}. Command: `python scripts/where_cards_lose.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    for name in args.games:
        if name not in cards:
            parser.error(f"no card for {name} in {args.cards}")
        rules = get_rules(name)
        card = Card.from_dict(cards[name]["card"])
        solution = read_table(default_path(rules), rules, lazy_take=False)
        exact = 0.5 - float(np.mean(card_seat_values(solution, card)))
        regret = card_regret(solution, card, args.count, args.seed)
        sampled, stderr = regret.loss()
        print(f"**{name}**: exact loss {100 * exact:.3f} pp; sampled {100 * sampled:.3f} "
              f"± {100 * stderr:.3f} over {args.count:,} games\n")
        print("| decision | dice | lost (pp) |\n|---|---:|---:|")
        for (kind, dice), lost in sorted(regret.by("kind", "dice").items(),
                                         key=lambda item: -item[1]):
            if lost > 0:
                print(f"| {KIND_LABELS[kind]} | {dice} | {100 * lost:.3f} |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

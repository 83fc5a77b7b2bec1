"""Where a strategy card loses: its loss split by decision.

    python scripts/where_cards_lose.py GAME [GAME ...] [--games N] [--seed S]
                                       [--cards FILE] [--by-left] [--by-keep]
                                       [--by-distance] [--bounds] [--headroom]

For each game, plays ``N`` games of the card against the table's player
and prints the regret by kind of decision and dice in hand, beside the
card's exact loss (as stored with it where measured at the game's target;
else evaluated here), and the splits asked for: :mod:`solver.cards.losses`
computes them (its docstring says what each is), this script prints them.
``--cards`` reads the cards from another file than ``solver/cards/cards.json``
(say an older commit's: ``--cards <(git show COMMIT:solver/cards/cards.json)``).
``--by-left`` splits the banks' regret, to an exact target, by the dice in
hand and what the bank would leave to go; ``--by-keep`` the keeps' regret
by the dice thrown, the turn total before them, the card's keep and the
best one; ``--by-distance`` the regret of every kind by how far each
player is from the target. ``--bounds`` says what the card gives up near
the end and how near bank thresholds per cell of the score could come
there; ``--headroom`` what far finer keep and bank rules could buy the
card anywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from solver.cards import losses
from solver.cards.record import Card
from solver.cards.regret import KIND_LABELS, NEAR_END
from solver.cards.store import CARDS_FILE
from solver.model.rules import get_rules
from solver.tables.load import load_table
from solver.tables.machine import machine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--games", dest="count", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cards", type=Path, default=CARDS_FILE)
    parser.add_argument("--by-left", action="store_true",
                        help="split the banks' regret by dice and what the bank leaves to go")
    parser.add_argument("--by-keep", action="store_true",
                        help="split the keeps' regret by dice thrown, turn total, the card's keep "
                             "and the best")
    parser.add_argument("--by-distance", action="store_true",
                        help="split the regret by each player's distance to the target")
    parser.add_argument("--bounds", action="store_true",
                        help="what the card loses near the end, and how near bank thresholds "
                             "per cell of the score could come there")
    parser.add_argument("--headroom", action="store_true",
                        help="what far finer keep and bank rules could buy the card")
    args = parser.parse_args(argv)
    cards = json.loads(args.cards.read_text())
    print(f"Machine: {machine()}. Command: `python scripts/where_cards_lose.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    for name in args.games:
        if name not in cards:
            parser.error(f"no card for {name} in {args.cards}")
        rules = get_rules(name)
        card = Card.from_dict(cards[name]["card"])
        solution = load_table(rules, lazy_take=False)
        found = losses.where_card_loses(solution, card, cards[name], args.count, args.seed,
                                        left=args.by_left, keep=args.by_keep,
                                        distance=args.by_distance, bounds=args.bounds,
                                        finer=args.headroom)
        print(f"**{name}**: exact loss {100 * found.exact:.3f} pp ({found.how}); sampled "
              f"{100 * found.sampled:.3f} ± {100 * found.stderr:.3f} over {args.count:,} "
              f"games\n")
        print("| decision | dice | lost (pp) |\n|---|---:|---:|")
        for kind, dice, lost in found.by_kind:
            print(f"| {KIND_LABELS[kind]} | {dice} | {100 * lost:.3f} |")
        print()
        if found.by_left is not None:
            print_by_left(found.by_left)
        if args.by_keep:
            print_by_keep(rules, found.by_keep)
        for asked, printer, part in ((args.by_distance, print_by_distance, found.by_distance),
                                     (args.bounds, print_near_end, found.near_end),
                                     (args.headroom, print_headroom, found.headroom)):
            if asked and part is None:
                print(f"(no band of distance short of {rules.target:,})\n")
            elif asked:
                printer(rules, part)
    return 0


def print_by_left(shares) -> None:
    print("| dice | left after the bank | the card | decisions | lost (pp) |\n"
          "|---:|---:|---|---:|---:|")
    for share in shares:
        print(f"| {share.dice} | {share.left:,} | {share.action} | {share.decisions:,} | "
              f"{100 * share.lost:.3f} |")
    print()


def print_by_keep(rules, shares) -> None:
    if shares is None:
        print("(no keep the card made lost anything here)\n")
        return
    label = losses.turn_total_labels(rules)

    def keep(units_left):
        units, left = units_left
        return f"{units * rules.unit:,}, {left} to roll"
    print("| dice thrown | set aside before | the card keeps | the best keeps | decisions | "
          "lost (pp) |\n|---:|---|---|---|---:|---:|")
    for share in shares.rows:
        print(f"| {share.dice} | {label[share.band]} | {keep(share.mine)} | {keep(share.best)} | "
              f"{share.decisions:,} | {100 * share.lost:.3f} |")
    print(f"\n{shares.kinds:,} kinds of keep (dice thrown, set aside before, the card's keep, "
          f"the best) lose something: the {shares.few} largest hold {100 * shares.held_few:.3f} "
          f"pp of {100 * shares.whole:.3f}, the {shares.many} largest "
          f"{100 * shares.held_many:.3f}.\n")


def print_by_distance(rules, split) -> None:
    """Rows: the player's distance to the target; columns: the other
    player's; each cell keeps / banks / take-overs."""
    label = {limit: f"within {limit:,}" for limit in split.bands[:-1]}
    label[None] = f"farther than {split.bands[-2]:,}"
    print("Lost (pp) by the player's distance to the target (rows) and the other "
          "player's (columns): keeps / banks / take-overs\n")
    print("| | " + " | ".join(label[b] for b in split.bands) + " |\n|---|"
          + "---:|" * len(split.bands))
    for mine in split.bands:
        cells = [" / ".join(f"{100 * split.cell(mine, theirs, kind):.3f}"
                            for kind in KIND_LABELS) for theirs in split.bands]
        print(f"| {label[mine]} | " + " | ".join(cells) + " |")
    print(f"\nWithin {NEAR_END:,} of the target (either player): "
          f"{100 * split.near:.3f} pp of {100 * split.whole:.3f}\n")


def print_near_end(rules, end) -> None:
    near = end.near
    print(f"Near the end (either player within {NEAR_END:,} of the target): "
          f"{100 * sum(near.values()):.3f} pp of {100 * end.whole:.3f} sampled; "
          f"in keeps {100 * near['keep']:.3f}, in banks {100 * near['bank']:.3f}, in "
          f"take-overs {100 * near['take']:.3f}. The card until then and the table after: "
          f"{100 * end.far:.3f} ± {100 * end.far_error:.3f} pp "
          + ("(unbiased: no score falls back).\n" if end.unbiased else
             "(near: a fall takes a player back from the end).\n"))
    print("The banks near the end with one threshold per cell of dice in hand, crosses "
          "and both players' distances, fitted to these games:\n")
    print("| cells of (points) | cells | lost in banks near the end (pp) |\n|---|---:|---:|")
    for step, cells, bound in end.bounds:
        print(f"| {step:,} | {cells:,} | {100 * bound:.3f} |")
    print(f"| the card | | {100 * end.card_banks:.3f} |\n")


def print_headroom(rules, room) -> None:
    print(f"A row of corrections to the worths of dice left per cell, fitted to these "
          f"games (seed {room.seed}) and checked on {room.games:,} others (seed "
          f"{room.seed + 1}):\n")
    print("| a row per | rows | lost in keeps, fitted (pp) | checked (pp) |\n|---|---:|---:|---:|")
    for label, cells, fitted, checked in room.keeps:
        print(f"| {label} | {cells:,} | {100 * fitted:.3f} | {100 * checked:.3f} |")
    print(f"| the card | | {100 * room.card_keeps[0]:.3f} | {100 * room.card_keeps[1]:.3f} |\n")
    print("A bank threshold per cell of dice in hand, crosses and both players' distances, "
          "everywhere, fitted to these games:\n")
    print("| cells of (points) | cells | lost in banks (pp) |\n|---|---:|---:|")
    for step, cells, lost in room.banks:
        print(f"| {step:,} | {cells:,} | {100 * lost:.3f} |")
    print(f"| the card | | {100 * room.card_banks:.3f} |\n")
    print(f"The finest rows win back {100 * room.won_back:.3f} pp in keeps on the other games"
          + (f"; the take-overs stay the card's ({100 * room.takes:.3f} pp)."
             if room.takes is not None else "."))
    for step, left in room.first_order:
        print(f"With both (the finest keep rows, checked; thresholds in cells of {step:,}), "
              f"first order: {100 * left:.3f} pp of the card's {100 * room.loss:.3f}.")
    print()


if __name__ == "__main__":
    sys.exit(main())

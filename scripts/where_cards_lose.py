"""Where a strategy card loses: its loss split by decision.

    python scripts/where_cards_lose.py GAME [GAME ...] [--games N] [--seed S]
                                       [--cards FILE] [--by-left] [--by-keep]
                                       [--by-distance] [--bounds] [--headroom]

For each game, plays ``N`` games of the card against the table's player
and prints the regret by kind of decision and dice in hand
(:mod:`solver.cards.regret`), beside the card's exact loss (as stored with
it where measured at the game's target; else evaluated here).
``--cards`` reads the cards from another file than ``solver/cards/cards.json``
(say an older commit's: ``--cards <(git show COMMIT:solver/cards/cards.json)``).
``--by-left`` splits the banks' regret, to an exact target, by the dice in
hand and what the bank would leave to go (the largest shares, up to
1,000 left). ``--by-keep`` splits the keeps' regret by the dice thrown,
the turn total before them, the card's keep and the best one (the
largest shares), and says how many such kinds of keep lose something
and how much the largest hold: whether one more rule of keeps could buy
much. ``--by-distance`` splits the regret of every kind by how far each
player is from the target (within 1,000, 3,000, 6,000 or farther): where
the card's loss sits, near the end or far from it.
``--bounds`` says what the card gives up near the end (within 3,000 of
the target, either player) by kind of decision, what a player loses who
plays the card until then and the table after (``farkle advise``), and
how near a bank rule of one threshold per cell of the score could come
there, by the size of the cells (:mod:`solver.cards.bounds`: fitted to
the same games, so flattering). ``--headroom`` says what far finer rules
could buy the card anywhere: a row of corrections to its keeps' worths of
dice left per cell (dice thrown, then the turn total, then both players'
distances, the lead and the entry), fitted to these games and checked on
those of the next seed, and a bank threshold per cell of the score
(:func:`solver.cards.bounds.keep_worth_headroom` and
:func:`solver.cards.bounds.bank_threshold_bound`, everywhere).
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

from solver.cards.record import Card  # noqa: E402
from solver.cards.store import CARDS_FILE  # noqa: E402
from solver.model.rules import get_rules  # noqa: E402


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
    from solver.cards.bounds import Sample
    from solver.cards.regret import KIND_LABELS, card_regret, decisions
    from solver.cards.seat_value import card_seat_values
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    cards = json.loads(args.cards.read_text())
    print(f"Machine: {machine()}. Command: `python scripts/where_cards_lose.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    for name in args.games:
        if name not in cards:
            parser.error(f"no card for {name} in {args.cards}")
        rules = get_rules(name)
        card = Card.from_dict(cards[name]["card"])
        solution = read_table(default_path(rules), rules, lazy_take=False)
        exact, how = stored_loss(cards[name], rules), "stored"
        if exact is None:       # measured at another target, or never
            exact, how = 0.5 - float(np.mean(card_seat_values(solution, card))), "exact"
        visits = [] if args.by_left or args.by_keep or args.bounds or args.headroom else None
        regret = card_regret(solution, card, args.count, args.seed, visits)
        sampled, stderr = regret.loss()
        print(f"**{name}**: exact loss {100 * exact:.3f} pp ({how}); sampled {100 * sampled:.3f} "
              f"± {100 * stderr:.3f} over {args.count:,} games\n")
        print("| decision | dice | lost (pp) |\n|---|---:|---:|")
        for (kind, dice), lost in sorted(regret.by("kind", "dice").items(),
                                         key=lambda item: -item[1]):
            if lost > 0:
                print(f"| {KIND_LABELS[kind]} | {dice} | {100 * lost:.3f} |")
        print()
        if args.by_left and rules.exact_target:
            print_by_left(solution, card, visits, args.count)
        if args.by_keep:
            print_by_keep(solution, card, visits, args.count)
        if args.by_distance:
            print_by_distance(rules, regret)
        if args.bounds or args.headroom:
            fit = Sample(decisions(solution, visits), args.count)     # packed once for both
        if args.bounds:
            print_bounds(solution, regret, fit)
        if args.headroom:
            print_headroom(solution, card, regret, fit, args.seed)
    return 0


def stored_loss(entry: dict, rules) -> float | None:
    """The card's exact loss as stored with it, if measured at the game's
    own target (an evaluation of dix-mille's takes an hour)."""
    loss = entry.get("loss", {})
    return loss["loss"] if loss.get("target") == rules.target else None


def print_by_left(solution, card, visits, games: int, rows: int = 12) -> None:
    """The banks' regret by dice in hand and what the bank would leave to
    go, the largest ``rows`` shares up to 1,000 left."""
    from collections import defaultdict

    from solver.cards.regret import choices_at
    rules = solution.rules
    banks = [visit for visit in visits if visit.kind == "bank"]
    lost, count = defaultdict(float), defaultdict(int)
    for visit, score, _, choice in choices_at(solution, card, banks):
        left = (rules.target_units - score - visit.turn_total) * rules.unit
        if left > 1000:
            continue
        key = (visit.dice, left, "bank" if choice == 0 else "roll")
        lost[key] += visit.regret(choice) / games
        count[key] += 1
    print("| dice | left after the bank | the card | decisions | lost (pp) |\n"
          "|---:|---:|---|---:|---:|")
    for (dice, left, action), value in sorted(lost.items(), key=lambda item: -item[1])[:rows]:
        print(f"| {dice} | {left:,} | {action} | {count[dice, left, action]:,} | "
              f"{100 * value:.3f} |")
    print()


def print_by_keep(solution, card, visits, games: int, rows: int = 12) -> None:
    """The keeps' regret by dice thrown, band of the turn total before the
    keep (:data:`solver.cards.bounds.TURN_TOTALS`), the card's keep and the
    best keep there, the largest ``rows`` shares; and how many such kinds
    lose something, and what the largest ``rows`` and 100 of them hold."""
    from collections import defaultdict

    from solver.cards.bounds import TURN_TOTALS, turn_total_bands
    from solver.cards.regret import choices_at
    rules = solution.rules
    keeps = [visit for visit in visits if visit.kind == "keep"]
    bands = turn_total_bands(rules, [visit.turn_total for visit in keeps])
    lost, count = defaultdict(float), defaultdict(int)
    for (visit, _, _, choice), band in zip(choices_at(solution, card, keeps), bands):
        regret = visit.regret(choice)
        if regret > 0:
            best = int(np.argmax(visit.values))
            key = (visit.dice, int(band), visit.keeps[choice], visit.keeps[best])
            lost[key] += regret / games
            count[key] += 1
    if not lost:
        print("(no keep the card made lost anything here)\n")
        return
    label = ["none"] + [f"below {high:,}" if low == 0 else f"{low:,} to {high - rules.unit:,}"
                        for low, high in zip(TURN_TOTALS, TURN_TOTALS[1:])] + \
        [f"{TURN_TOTALS[-1]:,} or more"]

    def keep(units_left):
        units, left = units_left
        return f"{units * rules.unit:,}, {left} to roll"
    print("| dice thrown | set aside before | the card keeps | the best keeps | decisions | "
          "lost (pp) |\n|---:|---|---|---|---:|---:|")
    largest = sorted(lost.items(), key=lambda item: -item[1])
    for (dice, band, mine, best), value in largest[:rows]:
        print(f"| {dice} | {label[band]} | {keep(mine)} | {keep(best)} | "
              f"{count[dice, band, mine, best]:,} | {100 * value:.3f} |")
    held = np.cumsum([value for _, value in largest])     # by the largest 1, 2, ...
    few, many = min(rows, len(held)), min(100, len(held))
    print(f"\n{len(largest):,} kinds of keep (dice thrown, set aside before, the card's keep, "
          f"the best) lose something: the {few} largest hold {100 * held[few - 1]:.3f} pp of "
          f"{100 * held[-1]:.3f}, the {many} largest {100 * held[many - 1]:.3f}.\n")


def has_bands(rules) -> bool:
    """Whether the game has bands of distance short of its target (not
    Pig's 100); says so where it has none."""
    from solver.cards.regret import distance_limits
    banded = bool(distance_limits(rules))
    if not banded:
        print(f"(no band of distance short of {rules.target:,})\n")
    return banded


def print_by_distance(rules, regret) -> None:
    """The regret by the player's distance to the target (rows) and the
    other player's (columns), each cell keeps / banks / take-overs."""
    from solver.cards.regret import (NEAR_END, KIND_LABELS, distance_limits, loss_by_distance,
                                    loss_near_end)
    if not has_bands(rules):
        return
    limits = distance_limits(rules)
    lost = loss_by_distance(regret)
    bands = limits + [None]
    label = {limit: f"within {limit:,}" for limit in limits}
    label[None] = f"farther than {limits[-1]:,}"
    print("Lost (pp) by the player's distance to the target (rows) and the other "
          "player's (columns): keeps / banks / take-overs\n")
    print("| | " + " | ".join(label[b] for b in bands) + " |\n|---|" + "---:|" * len(bands))
    for mine in bands:
        cells = [" / ".join(f"{100 * lost.get((mine, theirs, kind), 0.0):.3f}"
                            for kind in KIND_LABELS) for theirs in bands]
        print(f"| {label[mine]} | " + " | ".join(cells) + " |")
    print(f"\nWithin {NEAR_END:,} of the target (either player): "
          f"{100 * loss_near_end(lost):.3f} pp of "
          f"{100 * sum(lost.values()):.3f}\n")


def print_bounds(solution, regret, sample) -> None:
    """What the card loses near the end by kind, what a player loses who
    plays the card until then and the table after
    (:meth:`solver.cards.regret.Regret.loss_far_from_end`), and
    :func:`solver.cards.bounds.bank_threshold_bound` at the decisions of
    ``sample`` (the games of ``regret``) by the size of the cells, beside
    the card's banks there."""
    from solver.cards.bounds import CELL_STEPS, bank_threshold_bound
    from solver.cards.regret import NEAR_END, KIND_LABELS, loss_by_distance, loss_near_end
    rules = solution.rules
    if not has_bands(rules):
        return
    lost = loss_by_distance(regret)
    near = {kind: loss_near_end(lost, kind) for kind in KIND_LABELS}
    far, far_error = regret.loss_far_from_end()
    print(f"Near the end (either player within {NEAR_END:,} of the target): "
          f"{100 * sum(near.values()):.3f} pp of {100 * sum(lost.values()):.3f} sampled; "
          f"in keeps {100 * near['keep']:.3f}, in banks {100 * near['bank']:.3f}, in "
          f"take-overs {100 * near['take']:.3f}. The card until then and the table after: "
          f"{100 * far:.3f} ± {100 * far_error:.3f} pp "
          + ("(near: a fall takes a player back from the end).\n" if rules.crosses else
             "(unbiased: no score falls back).\n"))
    print("The banks near the end with one threshold per cell of dice in hand, crosses "
          "and both players' distances, fitted to these games:\n")
    print("| cells of (points) | cells | lost in banks near the end (pp) |\n|---|---:|---:|")
    for step in CELL_STEPS:
        bound, cells = bank_threshold_bound(rules, sample.decisions, sample.games, step)
        print(f"| {step:,} | {cells:,} | {100 * bound:.3f} |")
    print(f"| the card | | {100 * near['bank']:.3f} |\n")


def print_headroom(solution, card, regret, fit, seed: int) -> None:
    """:func:`solver.cards.bounds.keep_worth_headroom` for each of its
    cells, fitted to ``fit`` (the decisions of the games of ``regret``,
    seed ``seed``) and checked on as many games of the next seed, beside
    the card's keeps, and the banks with a threshold per cell of the score
    everywhere, beside the card's banks; then what a card with the finest
    of both would give up, first order."""
    from solver.cards.bounds import (CELL_STEPS, KEEP_CELLS, Sample, bank_threshold_bound,
                                    finer_card_loss, keep_worth_headroom)
    rules, games = solution.rules, fit.games
    if not has_bands(rules):
        return
    check = Sample.played(solution, card, games, seed + 1)
    print(f"A row of corrections to the worths of dice left per cell, fitted to these "
          f"games (seed {seed}) and checked on {games:,} others (seed {seed + 1}):\n")
    print("| a row per | rows | lost in keeps, fitted (pp) | checked (pp) |\n|---|---:|---:|---:|")
    for label, features in KEEP_CELLS.items():
        found = keep_worth_headroom(rules, card, fit, check, features)
        print(f"| {label} | {found.cells:,} | {100 * found.fitted[1]:.3f} | "
              f"{100 * found.checked[1]:.3f} |")
    print(f"| the card | | {100 * found.fitted[0]:.3f} | {100 * found.checked[0]:.3f} |\n")
    print("A bank threshold per cell of dice in hand, crosses and both players' distances, "
          "everywhere, fitted to these games:\n")
    print("| cells of (points) | cells | lost in banks (pp) |\n|---|---:|---:|")
    banks = {}
    for step in CELL_STEPS:
        banks[step], cells = bank_threshold_bound(rules, fit.decisions, games, step,
                                                  near_end_only=False)
        print(f"| {step:,} | {cells:,} | {100 * banks[step]:.3f} |")
    card_banks = regret.by("kind").get(("bank",), 0.0)
    print(f"| the card | | {100 * card_banks:.3f} |\n")
    # The last rows of KEEP_CELLS are the finest.
    loss, takes = regret.loss()[0], regret.by("kind").get(("take",), 0.0)
    print(f"The finest rows win back {100 * found.won_back:.3f} pp in keeps on the other games"
          + (f"; the take-overs stay the card's ({100 * takes:.3f} pp)." if rules.has_takeover
             else "."))
    for step in (500, 200, 50):
        print(f"With both (the finest keep rows, checked; thresholds in cells of {step:,}), "
              f"first order: {100 * finer_card_loss(loss, card_banks, found, banks[step]):.3f} "
              f"pp of the card's {100 * loss:.3f}.")
    print()


if __name__ == "__main__":
    sys.exit(main())

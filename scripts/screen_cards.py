"""Search a strategy card over sampled decisions, then measure it exactly.

    python scripts/screen_cards.py GAME [--games N] [--plays P] [--fields NAMES]
                                   [--set NAME=VALUE,...] [--seed S] [--check-seed C]

Where one exact evaluation takes an hour (dix-mille), a coordinate search
over exact evaluations (``scripts/fit_cards.py``) cannot run at the game's
own target. This one plays ``N`` games of the card against the table
(:func:`solver.card_regret.card_regret`), keeps every decision the card met
with the table's value of each choice there, and prices any other card
by its regret at those decisions (:func:`solver.card_regret.regret_of`,
the first-order estimate of its loss: a fraction of a second, not an
hour). Each field (``fit_cards``'s, the same moves of 1 to 32 units either
way) moves while the estimate drops by more than 0.005 points; then the
new card plays its own games (with the same dice), and so on ``P`` times.
The estimate drifts from the truth as the card moves away from the one
that played, which is why the card plays again; the last word is the
exact evaluation the script prints the command for (``fit_cards.py
--rounds 0 --from-stored --set ... --card-only``, which stores the card
only if it gives up less).

A search over one set of games also fits its dice: a move that gains
0.01 over those games may lose as much over others (dix-mille-free-keep,
34 fields over 4,000 games: 0.09 points gained there, 0.03 lost over
another 4,000). ``--check-seed C`` plays the card's games a second time,
with other dice (seed ``C``), and takes a move only where the estimate
drops over both sets.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from fit_cards import load_table  # noqa: E402
from machine import machine  # noqa: E402

from solver.card_fit import (KEEP_FIELDS, candidates, fields_to_fit, get, holds,  # noqa: E402
                             is_worth, put)

from solver.card_record import Card  # noqa: E402
from solver.card_sheet import stored_cards  # noqa: E402
from solver.card_regret import card_regret, decisions, regret_of  # noqa: E402
from solver.rules import get_rules  # noqa: E402

TAKE_FIELDS = {"take_at", "take_die", "take_one_at", "take_one_behind",
               "take_one_behind_by", "take_one_behind_within", "take_finish_within",
               "take_finish_dice", "take_one_chasing", "last_cross_take_more"}
MIN_GAIN = 5e-5
"""0.005 points: a smaller gain of the estimate is within its drift."""


def kinds_moved(card: Card, name: str) -> set[str]:
    """The decisions a field can change: the others keep their regret."""
    if name in TAKE_FIELDS:
        return {"take"}
    if name in KEEP_FIELDS or is_worth(name):
        return {"keep"}
    # A keep after which the card banks is worth more: the banks rank keeps.
    return {"bank", "keep"} if card.bank_keep_worth else {"bank"}


def search(solution, card: Card, names, games: int, sets, say) -> tuple[Card, float]:
    """The coordinate search over the estimate at the decisions of each of
    ``sets`` (one or two lists of visits, over ``games`` games each): a
    move is taken where the first set's estimate drops by more than
    ``MIN_GAIN`` and the second's (if any) drops too."""
    rules = solution.rules
    by_kind = [{kind: decisions(solution, [v for v in visits if v.kind == kind])
                for kind in ("bank", "keep", "take")} for visits in sets]
    parts = [{kind: regret_of(solution, card, packed[kind], games) for kind in packed}
             for packed in by_kind]
    best = [sum(part.values()) for part in parts]
    moved = True
    while moved:
        moved = False
        for name in names:
            kinds = kinds_moved(card, name)
            for value in candidates(rules, name, get(card, name)):
                trial = put(card, name, value)
                trial_parts = [dict(part, **{k: regret_of(solution, trial, packed[k], games)
                                             for k in kinds})
                               for part, packed in zip(parts, by_kind)]
                estimate = [sum(part.values()) for part in trial_parts]
                if estimate[0] < best[0] - MIN_GAIN and all(
                        new < old for new, old in zip(estimate[1:], best[1:])):
                    card, parts, best, moved = trial, trial_parts, estimate, True
                    say(f"  {name} = {value}: " +
                        " / ".join(f"{100 * x:.3f}" for x in best) + " estimated")
    return card, best[0]


def set_string(stored: Card, card: Card, names) -> str:
    """The fields ``card`` moved from ``stored``, as ``--set`` takes them (a
    row the card lacks moves with the row it stands for: not listed)."""
    return ",".join(f"{name}={get(card, name)}" for name in names
                    if get(card, name) != get(stored, name) and holds(card, name))


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
    unknown = set(names) - set(fields_to_fit(rules))
    if unknown:
        parser.error(f"{args.game} has no card field {', '.join(sorted(unknown))}")
    stored = card = Card.from_dict(cards[args.game]["card"])
    for pair in filter(None, args.set.split(",")):
        name, _, value = pair.partition("=")
        if name not in fields_to_fit(rules) or not value.lstrip("-").isdigit():
            parser.error(f"--set takes NAME=VALUE with a card field and a whole number, "
                         f"not {pair!r}")
        card = put(card, name, int(value))
    solution = load_table(rules)
    started = time.perf_counter()
    print(f"Machine: {machine()}. Command: `python scripts/screen_cards.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    seeds = [args.seed] + ([args.check_seed] if args.check_seed is not None else [])
    for play in range(args.plays + 1):
        sets = []
        for seed in seeds:
            visits = []
            sampled, stderr = card_regret(solution, card, args.games, seed, visits).loss()
            sets.append(visits)
            print(f"play {play}, seed {seed}: the card gives up {100 * sampled:.3f} ± "
                  f"{100 * stderr:.3f} points over {args.games:,} games", flush=True)
        if play == args.plays:
            break
        card, estimate = search(solution, card, names, args.games, sets,
                                lambda text: print(text, flush=True))
        print(f"searched: {100 * estimate:.3f} points estimated", flush=True)
    changes = set_string(stored, card, fields_to_fit(rules))
    print(f"\n{time.perf_counter() - started:.0f} s. " + (
        f"Measure it exactly:\npython scripts/fit_cards.py {args.game} --rounds 0 --tol 1e-8 "
        f"--from-stored --set {changes} --card-only" if changes else
        "The search moved nothing from the stored card."))
    print(json.dumps(dataclasses.asdict(card)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

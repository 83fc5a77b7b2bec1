"""``farkle referee``: what a policy gives up against the table, seat by
seat, and its costliest decisions (:mod:`solver.adapters.referee`).
:mod:`solver.cli.main` adds the command; its options are here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from solver.cli.args import print_json, rules_of
from solver.cli.tables import first_use, progress_bar
from solver.model.errors import UsageError

REFEREE_HELP = "what a policy gives up against the table's players, seat by seat"


def referee_options(p) -> None:
    p.add_argument("--policy", required=True, metavar="POLICY",
                   help="optimal, card, threshold:X, expected, random; openspiel:mcts, "
                        "openspiel:random, openspiel:qlearning; MODULE:NAME (a Python callable "
                        "of a position, or an OpenSpiel bot or policy); pettingzoo:MODULE:NAME "
                        "(an agent of the AEC observation)")
    p.add_argument("--players", type=int, default=2, metavar="N",
                   help="players at the table, 2 to 6 (the exact table must be here or in reach)")
    way = p.add_mutually_exclusive_group()
    way.add_argument("--exact", action="store_true",
                     help="evaluate exactly or refuse (default: exactly where possible)")
    way.add_argument("--simulate", action="store_true", help="simulate even where exact")
    p.add_argument("--games", type=int, default=1000, metavar="N",
                   help="games per seat when simulating (default 1000)")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--simulations", type=int, default=100, metavar="N",
                   help="openspiel:mcts: simulations a decision (default 100)")
    p.add_argument("--train-seconds", type=float, default=60.0, metavar="S",
                   help="openspiel:qlearning: seconds of self-play training (default 60)")
    p.add_argument("--top", type=int, default=10, metavar="K",
                   help="costliest decisions shown (default 10)")
    p.add_argument("--table", type=Path, metavar="FILE")
    p.add_argument("--solve", action="store_true",
                   help="make a missing table without asking (it may take minutes)")


def _check(args) -> None:
    for name, value, low in (("--games", args.games, 2), ("--seed", args.seed, 0),
                             ("--simulations", args.simulations, 1), ("--top", args.top, 0)):
        if value < low:
            raise UsageError(f"{name} must be at least {low}, not {value}")
    if not args.train_seconds > 0:
        raise UsageError(f"--train-seconds must be above 0, not {args.train_seconds}")
    if not 2 <= args.players <= 6:
        raise UsageError(f"--players must be 2 to 6, not {args.players}")


def cmd_referee(args):
    from solver.adapters.exact import why_not_exact
    from solver.adapters.referee import player_of, referee
    from solver.advice.choose import advisor_for
    _check(args)
    rules = rules_of(args)
    if args.exact and why_not_exact(rules):
        raise UsageError(f"no exact evaluation: {why_not_exact(rules)}")
    try:
        player = player_of(args.policy, rules, args.players, simulations=args.simulations,
                           seed=args.seed, train_seconds=args.train_seconds)
        advisor = advisor_for(rules, args.players, path=args.table, first_use=first_use(args),
                              compiled=args.players == 2)
        report = referee(advisor, player, games=args.games, seed=args.seed,
                         exact_only=True if args.exact else False if args.simulate else None,
                         top=args.top, progress=progress_bar("refereeing"))
    except ImportError as error:
        raise UsageError(f"{args.policy} needs a package that is not installed ({error.name}): "
                         f"pip install \"farkle-solver[openspiel]\"") from None
    if args.json:
        print_json(report.to_json())
        return 0
    _print(report)
    return 0


def _print(report) -> None:
    how = "exact" if report.exact else f"{report.games:,} games a seat"
    print(f"{report.game} to {report.target:,}, {report.players} players: {report.policy} gives "
          f"up {report.gives_up_pp:.2f} points of 100 against the table ({how})")
    if report.note:
        print(f"  ({report.note})")
    print(f"{'seat':<6}{'chance':>9}{'optimal':>10}{'gives up':>12}")
    for seat in report.seats:
        error = "" if seat.stderr is None else f" ± {seat.stderr:.2f}"
        print(f"{seat.seat:<6}{100 * seat.chance:>8.2f}%{100 * seat.optimal_chance:>9.2f}%"
              f"{seat.gives_up_pp:>9.2f} pp{error}")
        if seat.win_rate is not None:
            print(f"{'':6}won {100 * seat.win_rate:.1f}% ± {100 * seat.win_rate_stderr:.1f} of "
                  f"its games")
    if report.costliest:
        print("costliest decisions (visits per game x chance given up):")
    for costly in report.costliest:
        position = costly.position
        dice = position["dice"]
        where = f"scores {' '.join(map(str, position['scores']))}, turn total " \
                f"{position['turn_total']}, {dice} {'die' if dice == 1 else 'dice'}"
        if "roll" in position:
            where += f", roll {' '.join(map(str, position['roll']))}"
        print(f"  {where}: {_show(costly.chosen)}, not {_show(costly.best)} "
              f"({costly.regret_pp:.2f} pp, {costly.reach:.4f} visits) -> "
              f"{costly.cost_pp:.4f} pp")
    sys.stdout.flush()


def _show(answer) -> str:
    return answer if isinstance(answer, str) else "keep " + " ".join(map(str, answer))

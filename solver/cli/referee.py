"""``farkle referee``: what a policy gives up against the table, seat by
seat, and its costliest decisions (:mod:`solver.adapters.referee`).
:mod:`solver.cli.parser` adds the command; its options are here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from solver.cli.args import action_word, print_json, rules_of, whole
from solver.cli.tables import first_use, progress_bar
from solver.model.errors import UsageError
from solver.text import N_, _, ngettext, number, percent

REFEREE_HELP = N_("what a policy gives up against the table's players, seat by seat")


def referee_options(p) -> None:
    p.add_argument("--policy", required=True, metavar=_("POLICY"),
                   help=_("optimal, card, threshold:X, expected, random; openspiel:mcts, "
                          "openspiel:random, openspiel:qlearning; MODULE:NAME (a Python "
                          "callable of a position, or an OpenSpiel bot or policy); "
                          "pettingzoo:MODULE:NAME (an agent of the AEC observation)"))
    p.add_argument("--players", type=int, default=2, metavar="N",
                   help=_("players at the table, 2 to 6 (the exact table must be here or in "
                          "reach)"))
    way = p.add_mutually_exclusive_group()
    way.add_argument("--exact", action="store_true",
                     help=_("evaluate exactly or refuse (default: exactly where possible)"))
    way.add_argument("--simulate", action="store_true", help=_("simulate even where exact"))
    p.add_argument("--games", type=int, default=1000, metavar="N",
                   help=_("games per seat when simulating (default 1000)"))
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--simulations", type=int, default=100, metavar="N",
                   help=_("openspiel:mcts: simulations a decision (default 100)"))
    p.add_argument("--train-seconds", type=float, default=60.0, metavar="S",
                   help=_("openspiel:qlearning: seconds of self-play training (default 60)"))
    p.add_argument("--top", type=int, default=10, metavar="K",
                   help=_("costliest decisions shown (default 10)"))
    p.add_argument("--table", type=Path, metavar=_("FILE"))
    p.add_argument("--solve", action="store_true",
                   help=_("make a missing table without asking (it may take minutes)"))


def _check(args) -> None:
    for name, value, low in (("--games", args.games, 2), ("--seed", args.seed, 0),
                             ("--simulations", args.simulations, 1), ("--top", args.top, 0)):
        if value < low:
            raise UsageError(_("{option} must be at least {least}, not {given}").format(
                option=name, least=low, given=value))
    if not args.train_seconds > 0:
        raise UsageError(_("--train-seconds must be above 0, not {given}").format(
            given=args.train_seconds))
    if not 2 <= args.players <= 6:
        raise UsageError(_("--players must be 2 to 6, not {given}").format(given=args.players))


def cmd_referee(args):
    from solver.adapters.exact import why_not_exact
    from solver.adapters.referee import player_of, referee
    from solver.advice.choose import advisor_for
    _check(args)
    rules = rules_of(args)
    if args.exact and why_not_exact(rules):
        raise UsageError(_("no exact evaluation: {why}").format(why=why_not_exact(rules)))
    try:
        player = player_of(args.policy, rules, args.players, simulations=args.simulations,
                           seed=args.seed, train_seconds=args.train_seconds)
        advisor = advisor_for(rules, args.players, path=args.table, first_use=first_use(args),
                              compiled=args.players == 2)
        report = referee(advisor, player, games=args.games, seed=args.seed,
                         exact_only=True if args.exact else False if args.simulate else None,
                         top=args.top, progress=progress_bar(_("refereeing")))
    except ImportError as error:
        raise UsageError(_("{policy} needs a package that is not installed ({package}): "
                           "pip install \"farkle-solver[openspiel]\"").format(
                               policy=args.policy, package=error.name)) from None
    if args.json:
        print_json(report.to_json())
        return 0
    _print(report)
    return 0


def _print(report) -> None:
    how = _("exact") if report.exact else \
        _("{games} games a seat").format(games=number(report.games))
    print(ngettext("{game} to {target}, {players} players: {policy} gives up {points} points "
                   "of 100 against the table ({how})",
                   "{game} to {target}, {players} players: {policy} gives up {points} points "
                   "of 100 against the table ({how})", int(report.gives_up_pp)).format(
                game=report.game, target=number(report.target), players=report.players,
                policy=report.policy, points=number(report.gives_up_pp, 2), how=how))
    if report.note:
        print(f"  ({report.note})")
    heads = (_("seat"), _("chance"), _("optimal"), _("gives up"))
    print(f"{heads[0]:<6}{heads[1]:>9}{heads[2]:>10}{heads[3]:>12}")
    points = _("pp")
    for seat in report.seats:
        error = "" if seat.stderr is None else f" ± {number(seat.stderr, 2)}"
        print(f"{seat.seat:<6}{percent(seat.chance, 2):>9}{percent(seat.optimal_chance, 2):>10}"
              f"{number(seat.gives_up_pp, 2):>9} {points}{error}")
        if seat.win_rate is not None:
            print(" " * 6 + _("won {rate} ± {error} of its games").format(
                rate=percent(seat.win_rate, 1), error=number(100 * seat.win_rate_stderr, 1)))
    if report.costliest:
        print(_("costliest decisions (visits per game x chance given up):"))
    for costly in report.costliest:
        position = costly.position
        dice = position["dice"]
        places = dict(scores=" ".join(map(whole, position["scores"])),
                      turn=whole(position["turn_total"]), dice=dice,
                      roll=" ".join(map(str, position.get("roll", ()))))
        where = (ngettext("scores {scores}, turn total {turn}, {dice} die, roll {roll}",
                          "scores {scores}, turn total {turn}, {dice} dice, roll {roll}", dice)
                 if "roll" in position else
                 ngettext("scores {scores}, turn total {turn}, {dice} die",
                          "scores {scores}, turn total {turn}, {dice} dice", dice))
        print("  " + _("{where}: {chosen}, not {best} ({regret} pp, {reach} visits) -> {cost} "
                       "pp").format(where=where.format(**places), chosen=_show(costly.chosen),
                                    best=_show(costly.best), regret=number(costly.regret_pp, 2),
                                    reach=number(costly.reach, 4),
                                    cost=number(costly.cost_pp, 4)))
    sys.stdout.flush()


def _show(answer) -> str:
    if isinstance(answer, str):
        return action_word(answer)
    return _("keep {dice}").format(dice=" ".join(map(str, answer)))

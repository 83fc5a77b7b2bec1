"""The ``farkle`` command: parses, calls the library, prints.

Every command takes ``--json`` for scripts. Bad input ends with one line on
stderr and exit status 2. This module holds the parser and the commands about
games and tables; the commands at the table are in :mod:`solver.cli.at_table`,
what they share in :mod:`solver.cli.args` and :mod:`solver.cli.tables`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from solver.cli.args import one_line, print_json, rules_of
from solver.cli.at_table import cmd_advise, cmd_card, cmd_play, cmd_serve, cmd_simulate
from solver.cli.referee import REFEREE_HELP, cmd_referee, referee_options
from solver.cli.tables import memory_of, progress_bar
from solver.model.errors import UsageError
from solver.tables.load import duration, megabytes


class Parser(argparse.ArgumentParser):
    def error(self, message):
        # main() prints "farkle: " before every error; a subcommand adds its name.
        command = self.prog.partition(" ")[2]
        raise UsageError(f"{command}: {message}" if command else message)


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return 2
        return args.run(args) or 0
    except UsageError as error:
        print(f"farkle: {one_line(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("farkle: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def build_parser() -> Parser:
    parser = Parser(prog="farkle", description="Optimal play of dix-mille, quinze-mille, "
                    "cinq-mille and Pig.")
    sub = parser.add_subparsers(parser_class=Parser)

    def command(name, run, help, game=True):
        p = sub.add_parser(name, help=help, description=help)
        if game:
            # A game is named, or defined by a house-rules file: one of the two.
            p.add_argument("game", nargs="?", help="a game of `farkle variants`")
            rules_option(p, "house rules: a game defined by a TOML file, instead of GAME")
            p.add_argument("--target", type=int, metavar="POINTS",
                           help="play to another target (tests and studies)")
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.set_defaults(run=run)
        return p

    p = command("variants", cmd_variants, "list the games", game=False)
    rules_option(p, "check a house-rules file and show the game it defines")
    p = command("keeps", cmd_keeps, "the legal keeps of a roll")
    p.add_argument("dice", nargs="+", type=int, metavar="D")
    # With --rules there is no GAME, so argparse hands the first die to it.
    p.set_defaults(dice_after_game=True)
    p = command("odds", cmd_odds, "zero-roll, hot-dice and best-keep odds per dice count")
    p.add_argument("--turns", action="store_true",
                   help="instead: the number of turns one player alone needs to reach the "
                        "target, playing for the fewest (expected, percentiles; --json: the "
                        "whole distribution)")
    p = command("solve", cmd_solve, "solve a game and write its table")
    p.add_argument("--objective", choices=("win", "points", "turns"), default="win",
                   help="win: each player's chance of winning, as a table (default); points: "
                        "one turn played alone for the most points it can expect; turns: one "
                        "player alone, from 0 to the target in the fewest expected turns")
    p.add_argument("--out", type=Path, metavar="FILE")
    p.add_argument("--tolerance", type=_tolerance, default=1e-12,
                   help="the largest error left in any value (default 1e-12)")
    players_option(p)
    memory_option(p)
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="N players: solve on a Dask cluster, local:W (W local workers) or a "
                        "scheduler's address, resumable (docs/cluster.md)")
    p.add_argument("--worker-memory", metavar="SIZE",
                   help="with --cluster local:W: each worker's memory limit (4GB); its peak "
                        "is in --json's stats")
    p = command("info", cmd_info, "the metadata of a table file", game=False)
    p.add_argument("file", type=Path)
    p = command("tables", cmd_tables, "every game's table: where it is, or how to make it",
                game=False)
    p.add_argument("--remove", metavar="NAME",
                   help="delete one of your tables: a game, or a table's file name")
    p = command("advise", cmd_advise, "bank or roll, which dice to keep, take over or not")
    p.add_argument("--me", type=int, required=True, metavar="S", help="your banked score")
    p.add_argument("--opp", type=int, required=True, action="append", metavar="S",
                   help="an opponent's banked score; with more players, once each, in seat "
                        "order after you (the last is the previous player)")
    p.add_argument("--turn", type=int, default=0, metavar="T", help="turn total so far")
    p.add_argument("--dice", type=int, metavar="N", help="dice in hand (default: all)")
    p.add_argument("--roll", nargs="+", type=int, metavar="D", help="the dice just thrown")
    p.add_argument("--offer", metavar="T,N", help="the previous player's turn total and unset dice")
    p.add_argument("--crosses", type=int, default=0, metavar="C", help="your crosses")
    p.add_argument("--previous", type=int, metavar="P",
                   help="your score before your last bank (games with crosses)")
    p.add_argument("--opp-crosses", type=int, action="append", metavar="C",
                   help="each opponent's crosses, in the order of --opp")
    p.add_argument("--opp-previous", type=int, action="append", metavar="P",
                   help="each opponent's score before their last bank, in the order of --opp")
    p.add_argument("--table", type=Path, metavar="FILE")
    p.add_argument("--card", action="store_true",
                   help="also what the strategy card does here, and what it costs")
    solve_option(p)
    memory_option(p)
    p = command("simulate", cmd_simulate, "play whole games between policies")
    p.add_argument("--a", metavar="POLICY",
                   help="two players: the first player, optimal, card, threshold:X, expected or "
                        "random")
    p.add_argument("--b", metavar="POLICY", help="two players: the second player")
    p.add_argument("--seat", action="append", metavar="POLICY",
                   help="instead of --a/--b: a seat's policy, once per seat, seat 1 (moving "
                        "first) first")
    players_option(p)
    p.add_argument("--games", type=int, default=10_000, metavar="N")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--table", type=Path, metavar="FILE", help="table for the optimal policy")
    solve_option(p)
    memory_option(p)
    p = command("card", cmd_card, "the strategy card: optimal play a person can remember, "
                "and what it gives up")
    players_option(p)
    p.add_argument("--fit", action="store_true",
                   help="fit a card to this game's table and keep it (a house game, another "
                   "target or a table of more players); Ctrl-C keeps the best card so far")
    p.add_argument("--rounds", type=int, default=1, metavar="R",
                   help="with --fit: rounds of the search, each moving every field once "
                   "(default 1; more gain a little more); with --sampled, its plays")
    p.add_argument("--sampled", type=int, metavar="N",
                   help="with --fit (two players): score the search's moves over N sampled "
                   "games, not by exact evaluations (where one takes minutes: dix-mille); "
                   "the card it ends with is measured exactly")
    p.add_argument("--table", type=Path, metavar="FILE",
                   help="with --fit: the table to fit to (default: the game's own)")
    solve_option(p)
    p = command("play", cmd_play, "play a game against a bot, or coach a real game (--coach), "
                "with the cost of every decision")
    p.add_argument("--seat", type=int, metavar="K", help="your seat: 1 (default) moves first")
    p.add_argument("--bots", metavar="POLICY",
                   help="the bot: optimal (default), threshold:X, expected or random")
    p.add_argument("--coach", action="store_true",
                   help="every seat is a person: type each roll's dice, get advice")
    players_option(p)
    p.add_argument("--seed", type=int, metavar="S", help="the dice (default: a new seed, shown)")
    p.add_argument("--log", type=Path, metavar="FILE", help="every decision as JSON lines")
    p.add_argument("--table", type=Path, metavar="FILE")
    solve_option(p)
    memory_option(p)
    referee_options(command("referee", cmd_referee, REFEREE_HELP))
    p = sub.add_parser("serve", help="the page for the table: score sheet and advice in a "
                       "browser", description="Serve the page for the table (score sheet, "
                       "advice, win chances) to a browser; open the address it prints.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this machine only; "
                   "0.0.0.0 lets a phone on the same network in)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks one)")
    rules_option(p, "house rules: serve the game of this TOML file beside the others")
    p.add_argument("--quiet", action="store_true", help="do not log each request")
    p.set_defaults(run=cmd_serve)
    return parser


def rules_option(p, help: str) -> None:
    p.add_argument("--rules", type=Path, metavar="FILE", help=help)


def solve_option(p) -> None:
    p.add_argument("--solve", action="store_true",
                   help="make a missing table without asking (it may take minutes)")


def players_option(p) -> None:
    p.add_argument("--players", type=int, default=2, metavar="N",
                   help="players at the table, 2 to 6 (seat 1 moves first)")


def memory_option(p) -> None:
    p.add_argument("--memory", choices=("model", "exact"),
                   help="games with crosses: the tractable model (default) or the exact "
                        "previous-score memory (small targets)")


# ------------------------------------------------------------------ helpers

def _dice_roll(rules, dice):
    if not dice or len(dice) > rules.dice:
        raise UsageError(f"a roll in {rules.name} has 1 to {rules.dice} dice, not {len(dice)}")
    bad = [d for d in dice if not 1 <= d <= 6]
    if bad:
        raise UsageError(f"a die shows 1 to 6, not {bad[0]}")
    return dice


# ----------------------------------------------------------------- commands

def cmd_variants(args):
    from solver.model.house_rules import load_house_rules
    from solver.model.rules import GAMES
    games = [load_house_rules(args.rules)] if args.rules is not None else GAMES.values()
    rows = [rules.describe() for rules in games]
    if args.json:
        print_json(rows)
        return
    for row in rows:
        print(f"{row['name']:<20} {row['dice']} dice  target {row['target']:>6}  "
              f"entry {row['entry']:>3}  {row['summary']}")


def cmd_keeps(args):
    from solver.model.dice import keeps_of_dice
    rules = rules_of(args)
    roll = _dice_roll(rules, args.dice)
    options = keeps_of_dice(rules, roll)
    if args.json:
        print_json([{"dice": list(k.dice), "points": k.points, **({"win": True} if k.win else {})}
                     for k in options])
        return
    if not options:
        print(f"{' '.join(map(str, roll))}: zero roll, no die scores")
        return
    for k in options:
        label = "wins the game" if k.win else f"{k.points}"
        print(f"{' '.join(map(str, k.dice)):<12} = {label}")
    if rules.keep_rule == "all":
        print(f"({rules.name} sets every scoring die aside: this keep is forced)")


def cmd_odds(args):
    from solver.model.dice import odds
    rules = rules_of(args)
    if args.turns:
        return _odds_of_turns(args, rules)
    rows = odds(rules)
    if args.json:
        print_json(rows)
        return
    print("dice   zero roll   hot dice   best keep (points)")
    for row in rows:
        print(f"{row['dice']:>4}   {float(row['zero']):>9.4f}   {float(row['hot']):>8.4f}   "
              f"{float(row['best_points']):>8.1f}")


def _solve_for_points(args, rules):
    """``solve --objective points``: the turn played alone for points
    (:mod:`solver.engine.solo`); nothing is written."""
    from solver.engine.solo import points_policy
    if args.players != 2 or args.out is not None or args.memory is not None:
        raise UsageError("--objective points plays one turn alone: no --players, --out or "
                         "--memory")
    policy = points_policy(rules)
    crosses = range(rules.crosses if rules.fall_penalty else 1)
    bank_from = [{n: policy.bank_from(n, c) for n in range(1, rules.dice + 1)} for c in crosses]
    if args.json:
        print_json({"game": rules.name, "objective": "points",
                    "points_per_turn": policy.points_per_turn,
                    "bank_from": {str(n): t for n, t in bank_from[0].items()},
                    **({"bank_from_by_crosses": [{str(n): t for n, t in row.items()}
                                                 for row in bank_from]}
                       if rules.fall_penalty else {})})
        return
    if rules.fall_penalty:
        print(f"{rules.name}: turns played for the most points average {policy.points_per_turn:.3f}"
              f" in the long run, {rules.crosses} zero turns in a row costing "
              f"{rules.fall_penalty:,} (the objective: points, not the win)")
    else:
        print(f"{rules.name}: a turn played for the most points scores "
              f"{policy.points_per_turn:.3f} on average (the objective: points, not the win)")
    for c, row in zip(crosses, bank_from):
        after = f"after {c} zero turn{'s' * (c != 1)} in a row, " if rules.fall_penalty else ""
        print(f"{after}bank once the turn total reaches, by dice left to roll: " + " | ".join(
            f"{n}: {'never' if t is None else f'{t:,}'}" for n, t in sorted(row.items(),
                                                                          reverse=True)))


def _solve_for_turns(args, rules):
    """``solve --objective turns``: one player alone, from 0 to the target
    in the fewest expected turns (:mod:`solver.engine.solo_turns`; no
    opponent, so no take-over); nothing is written."""
    from solver.engine.solo_turns import check_turns_rules, turns_policy
    if args.players != 2 or args.out is not None or args.memory is not None:
        raise UsageError("--objective turns plays alone and writes nothing: no --players, "
                         "--out or --memory")
    check_turns_rules(rules, "--objective turns")
    started = time.perf_counter()
    policy = turns_policy(rules)
    seconds = time.perf_counter() - started
    if args.json:
        print_json({"game": rules.name, "target": rules.target, "objective": "turns",
                    "expected_turns": policy.expected_turns, "turn_dps": policy.dp_passes,
                    "seconds": seconds})
        return
    print(f"{rules.name} to {rules.target:,}, one player alone: {policy.expected_turns:.3f} "
          f"turns expected from 0, playing for the fewest (the objective: turns, not the win)")
    print(f"solved in {seconds:.1f} s ({policy.dp_passes} turn DPs); nothing written")


def _odds_of_turns(args, rules):
    """``odds --turns``: the law of the number of turns that the fewest-turns
    policy of :func:`_solve_for_turns` needs from 0."""
    from solver.engine import solo_turns
    solo_turns.check_turns_rules(rules, "odds --turns")
    policy = solo_turns.turns_policy(rules, transitions=True)
    probabilities = policy.distribution()

    def percentile(q):
        return solo_turns.turns_percentile(probabilities, q)

    mean = policy.expected_turns
    # A few turn counts around the mean, whatever the game's scale.
    within = sorted({max(1, round(mean * f)) for f in (0.5, 1.0, 1.5, 2.0)})
    within_odds = {n: solo_turns.done_within(probabilities, n) for n in within}
    if args.json:
        print_json({"game": rules.name, "target": rules.target, "objective": "turns",
                    "expected_turns": mean, "median": percentile(0.5),
                    "percentile_90": percentile(0.9), "percentile_99": percentile(0.99),
                    "within": {str(n): p for n, p in within_odds.items()},
                    "distribution": [float(p) for p in probabilities],
                    "distribution_tail": solo_turns.TAIL})
        return
    print(f"{rules.name} to {rules.target:,}, one player alone playing for the fewest turns:")
    print(f"expected {mean:.3f} turns; median {percentile(0.5)}, 90th percentile "
          f"{percentile(0.9)}, 99th percentile {percentile(0.99)}")
    print("done within n turns: " + " | ".join(f"{n}: {p:.4f}" for n, p in within_odds.items()))


def _tolerance(text: str) -> float:
    """``--tolerance``: a number above 0 and below 1 (nan, inf and 0 would
    never stop or stop at once)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"takes a number above 0 and below 1, not {text}")
    return value


def cmd_solve(args):
    """Solve and write the table; with others solving the same table at
    once, one solves and the others wait and report its table (issue 68,
    :func:`solver.tables.make.make_table`)."""
    from solver.tables.estimates import check_players
    from solver.tables.make import make_table
    rules = rules_of(args)
    if args.cluster is not None and args.objective != "win":
        raise UsageError("--cluster is for the N-player solve (--objective win)")
    if args.objective == "points":
        return _solve_for_points(args, rules)
    if args.objective == "turns":
        return _solve_for_turns(args, rules)
    memory = memory_of(args, rules)
    check_players(rules, args.players, memory)
    started = time.perf_counter()
    made = make_table(rules, args.out, args.tolerance, memory,
                      progress_bar(f"solving {rules.name}"), players=args.players,
                      say=_say, reuse=True, cluster=args.cluster,
                      worker_memory=args.worker_memory)
    solution, path, residual = made.solution, made.path, made.residual
    if solution is None:
        from solver.tables.files import read_table
        solution = read_table(path, expect=rules, expect_players=args.players)
        residual = float(solution.stats["bellman_residual"])
        by = f" (pid {made.made_by})" if made.made_by else ""
        _say(f"{path.name} was made by another farkle{by} while this one waited: "
             f"using it")
    seconds = time.perf_counter() - started
    seat_wins = _seat_wins(solution)
    result = {"game": rules.name, "target": rules.target, "players": args.players,
              "first_player_win": solution.first_player_win, "seat_wins": seat_wins,
              "states": int(solution.stats["turn_starts"]), "seconds": seconds,
              "table": str(path), "bellman_residual": residual}
    if made.solution is None:
        result["made_by"] = made.made_by
    elif args.cluster is not None:
        result["cluster"] = solution.stats["cluster"]       # workers, tasks, memory peaks
    if args.players > 2:
        from solver.tables.files import equilibria_summary
        result["equilibria"] = equilibria_summary(solution)
    if args.json:
        print_json(result)
        return
    if args.players == 2:
        print(f"{rules.name} to {rules.target}: the first player wins with probability "
              f"{solution.first_player_win:.7f}")
    else:
        print(f"{rules.name} to {rules.target}, {args.players} players: seats win "
              + ", ".join(f"{i + 1}: {v:.7f}" for i, v in enumerate(seat_wins)))
        _print_equilibria(result["equilibria"])
    solved = (f"solved in {seconds:.1f} s" if made.solution is not None
              else "solved by another farkle while this one waited")
    print(f"{result['states']} turn starts {solved}; Bellman residual {residual:.1e}; "
          f"table {path}")


def _say(line: str) -> None:
    """One line on stderr, as the errors are."""
    print(f"farkle: {line}", file=sys.stderr, flush=True)


def _seat_wins(solution) -> list[float]:
    """Each seat's chance at the game start, seat 1 first."""
    return [float(v) for v in solution.seat_wins]


def _print_equilibria(summary) -> None:
    if not summary["blocks_mixed"]:
        print("  every decision pure: best responses settled at every level")
        return
    print(f"  {summary['levels_mixed']} levels ({summary['blocks_mixed']} score tuples) needed "
          f"the logit-path equilibrium; {summary['mixed_decisions']} decisions mixed")
    if summary.get("blocks_selected_otherwise"):
        print(f"  at {summary['blocks_selected_otherwise']} of them the logit path lost its way "
              f"and the first equilibrium found was taken")
    if summary["other_equilibria"]:
        print(f"  other equilibria found at {summary['blocks_with_other_equilibria']} of them; "
              f"they move those values by up to "
              f"{summary['largest_move_of_other_equilibria']:.1e}")


def cmd_tables(args):
    from solver.tables.listing import list_tables, remove_table
    if args.remove:
        path = remove_table(args.remove)
        if args.json:
            print_json({"removed": str(path)})
        else:
            print(f"removed {path}")
        return
    rows = list_tables()
    if args.json:
        print_json(rows)
        return
    for row in rows:
        if row["status"] == "card only":
            print(f"{row['game']:<24} no table; its card is kept")
        elif row["status"] == "missing":
            print(f"{row['game']:<24} missing: {row['command']} (about "
                  f"{duration(row['estimated_seconds'])}, "
                  f"{megabytes(row['estimated_bytes'])})")
        elif row["status"] == "outdated":
            print(f"{row['game']:<24} made by an older farkle-solver: {row['command']}")
        elif row["status"] == "damaged":
            print(f"{row['game']:<24} damaged: {row['error']}")
        else:
            print(f"{row['game']:<24} {megabytes(row['bytes']):>10}  {row['where']:<7} "
                  f"{row['path']}")
        if "card" in row:
            loss = row["card"]["loss"]
            given_up = "unreadable" if loss is None else f"gives up {100 * loss:.2f} points"
            print(f"{'':<24} a strategy card fitted here ({given_up}): {row['card']['path']}")


def cmd_info(args):
    from solver.tables.files import read_info
    info = read_info(args.file)
    if args.json:
        print_json(info)
        return
    print(f"{info['file']}: {info['game']} to {info['target']} ({info['bytes'] / 1e6:.1f} MB)")
    if info["players"] == 2:
        print(f"  first player wins {info['first_player_win']:.7f}")
    else:
        print(f"  {info['players']} players; seats win "
              + ", ".join(f"{i + 1}: {v:.7f}" for i, v in enumerate(info["seat_wins"])))
        _print_equilibria(info["equilibria"])
    print(f"  tolerance {info['tolerance']:.0e}, Bellman residual {info['bellman_residual']:.1e}, "
          f"solved in {info['solve_seconds']:.1f} s by farkle-solver {info['program_version']}")
    if "take_quantum" in info:
        print(f"  take-over values: the offers worth taking, in steps of "
              f"{info['take_quantum']:.2e} (error at most {info['take_quantum'] / 2:.1e})")
    for name, meta in info["datasets"].items():
        axes = ", ".join(info["axes"].get(name, []))
        print(f"  {name:<14} {meta['dtype']:<8} {meta['shape']}  ({axes})")


if __name__ == "__main__":
    sys.exit(main())

"""The ``farkle`` command: parses, calls the library, prints.

Every command takes ``--json`` for scripts. Bad input ends with one line on
stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

from .cli_tables import _duration, _load_table, _megabytes, _memory, _progress
from .errors import UsageError

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
        print(f"farkle: {error}", file=sys.stderr)
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
    command("odds", cmd_odds, "zero-roll, hot-dice and best-keep odds per dice count")
    p = command("solve", cmd_solve, "solve a game and write its table")
    p.add_argument("--out", type=Path, metavar="FILE")
    p.add_argument("--tolerance", type=float, default=1e-12)
    players_option(p)
    memory_option(p)
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

def _rules(args):
    """The game of the command line: GAME, or ``--rules FILE`` (house rules),
    either one played to ``--target`` when given."""
    from .house_rules import load_house_rules
    from .rules import get_rules
    if args.rules is not None and args.game is not None \
            and getattr(args, "dice_after_game", False):
        try:
            args.dice.insert(0, int(args.game))
            args.game = None
        except ValueError:
            pass                            # a game's name: refused just below
    if (args.game is None) == (args.rules is None):
        raise UsageError("give a game or --rules FILE, not both" if args.game is not None
                         else "give a game (farkle variants lists them) or --rules FILE")
    if args.game is not None:
        return get_rules(args.game, args.target)
    rules = load_house_rules(args.rules)
    return rules if args.target is None else rules.with_target(args.target)


def _print_json(data) -> None:
    print(json.dumps(data, indent=2, default=_json_default))


def _json_default(value):
    if isinstance(value, Fraction):
        return float(value)
    raise TypeError(type(value))


def _dice_roll(rules, dice):
    if not dice or len(dice) > rules.dice:
        raise UsageError(f"a roll in {rules.name} has 1 to {rules.dice} dice, not {len(dice)}")
    bad = [d for d in dice if not 1 <= d <= 6]
    if bad:
        raise UsageError(f"a die shows 1 to 6, not {bad[0]}")
    return dice


# ----------------------------------------------------------------- commands

def cmd_variants(args):
    from .house_rules import load_house_rules
    from .rules import GAMES
    games = [load_house_rules(args.rules)] if args.rules is not None else GAMES.values()
    rows = [rules.describe() for rules in games]
    if args.json:
        _print_json(rows)
        return
    for row in rows:
        print(f"{row['name']:<20} {row['dice']} dice  target {row['target']:>6}  "
              f"entry {row['entry']:>3}  {row['summary']}")


def cmd_keeps(args):
    from .dice import keeps_of_dice
    rules = _rules(args)
    roll = _dice_roll(rules, args.dice)
    options = keeps_of_dice(rules, roll)
    if args.json:
        _print_json([{"dice": list(k.dice), "points": k.points, **({"win": True} if k.win else {})}
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
    from .dice import odds
    rules = _rules(args)
    rows = odds(rules)
    if args.json:
        _print_json(rows)
        return
    print("dice   zero roll   hot dice   best keep (points)")
    for row in rows:
        print(f"{row['dice']:>4}   {float(row['zero']):>9.4f}   {float(row['hot']):>8.4f}   "
              f"{float(row['best_points']):>8.1f}")


def cmd_solve(args):
    from .solve import check_players, solve_and_write
    rules = _rules(args)
    memory = _memory(args, rules)
    check_players(rules, args.players, memory)
    started = time.perf_counter()
    solution, path, residual = solve_and_write(rules, args.out, args.tolerance, memory,
                                               _progress(f"solving {rules.name}"),
                                               players=args.players)
    seconds = time.perf_counter() - started
    seat_wins = _seat_wins(solution)
    result = {"game": rules.name, "target": rules.target, "players": args.players,
              "first_player_win": solution.first_player_win, "seat_wins": seat_wins,
              "states": int(solution.stats["turn_starts"]), "seconds": seconds,
              "table": str(path), "bellman_residual": residual}
    if args.players > 2:
        from .tables import equilibria_summary
        result["equilibria"] = equilibria_summary(solution)
    if args.json:
        _print_json(result)
        return
    if args.players == 2:
        print(f"{rules.name} to {rules.target}: the first player wins with probability "
              f"{solution.first_player_win:.7f}")
    else:
        print(f"{rules.name} to {rules.target}, {args.players} players: seats win "
              + ", ".join(f"{i + 1}: {v:.7f}" for i, v in enumerate(seat_wins)))
        _print_equilibria(result["equilibria"])
    print(f"{result['states']} turn starts solved in {seconds:.1f} s; "
          f"Bellman residual {residual:.1e}; table {path}")


def _seat_wins(solution) -> list[float]:
    """Each seat's chance at the game start, seat 1 first."""
    if hasattr(solution, "seat_wins"):
        return [float(v) for v in solution.seat_wins]
    return [solution.first_player_win, 1.0 - solution.first_player_win]


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
    from .tables import list_tables, remove_table
    if args.remove:
        path = remove_table(args.remove)
        if args.json:
            _print_json({"removed": str(path)})
        else:
            print(f"removed {path}")
        return
    rows = list_tables()
    if args.json:
        _print_json(rows)
        return
    for row in rows:
        if row["status"] == "missing":
            print(f"{row['game']:<24} missing: {row['command']} (about "
                  f"{_duration(row['estimated_seconds'])}, "
                  f"{_megabytes(row['estimated_bytes'])})")
        elif row["status"] == "outdated":
            print(f"{row['game']:<24} made by an older farkle-solver: {row['command']}")
        else:
            print(f"{row['game']:<24} {_megabytes(row['bytes']):>10}  {row['where']:<7} "
                  f"{row['path']}")


def cmd_info(args):
    from .tables import read_info
    info = read_info(args.file)
    if args.json:
        _print_json(info)
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


def _lines(args):
    """My line and the opponents' (one Line with two players, else a list in
    seat order after me)."""
    from .advice import lines_of
    return lines_of(args.me, args.crosses, args.previous, args.opp,
                    args.opp_crosses, args.opp_previous)


def _load_advisor(args):
    from .advice import turn_state
    from .states import player_space, player_state
    rules = _rules(args)
    me, opp = _lines(args)
    players = 1 + len(args.opp)

    def check():
        if not rules.crosses or args.memory == "exact" or players > 2:
            space = player_space(rules, "exact")
            player_state(rules, space, me, "my")
            for line in opp if players > 2 else [opp]:
                player_state(rules, space, line, "opponent")
        turn_state(rules, args.me, args.turn, args.dice if args.dice is not None else rules.dice)
    return _players_advisor(args, rules, players, check)


def _players_advisor(args, rules, players, check=None):
    """The exact table of ``players``, or with more players than an exact
    table reaches, the race-of-duels model on the two-player table."""
    from .advice import Advisor
    from .duels import DuelsAdvisor
    if players > 2 and args.table is None and not _exact_in_reach(rules, players):
        return DuelsAdvisor(_load_table(args, rules, check), players)
    return Advisor(_load_table(args, rules, check, players=players))


def _exact_in_reach(rules, players) -> bool:
    from .multi_solution import check_player_count
    from .solve import in_reach
    check_player_count(players)
    return in_reach(rules, players)


def _parse_offer(text):
    try:
        points, dice = (int(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"--offer takes T,N (turn total and dice), not {text!r}") from None
    return points, dice


def cmd_advise(args):
    advisor = _load_advisor(args)
    rules = advisor.rules
    dice = args.dice if args.dice is not None else rules.dice
    me, opp = _lines(args)
    if args.offer is not None:
        if args.turn != 0 or args.roll:
            raise UsageError("--offer is a turn-start question: use it with --turn 0 and no --roll")
        advice = advisor.take_or_fresh(me, opp, *_parse_offer(args.offer))
    elif args.roll:
        advice = advisor.keep(me, opp, args.turn, dice, args.roll)
    else:
        advice = advisor.bank_or_roll(me, opp, args.turn, dice)
    card = None
    if args.card:
        from .card_sheet import card_answer, card_for
        card = card_answer(card_for(rules)[0], rules, advice, me,
                           opp if isinstance(opp, list) else [opp], args.turn, dice, args.roll,
                           _parse_offer(args.offer) if args.offer is not None else None)
    if args.json:
        _print_json({**advice.to_json(), **({"card": card} if card else {})})
        return
    if advice.note:
        print(advice.note)
    others = len(advice.choices[0].wins or []) > 2
    for choice in advice.choices:
        line = f"{_describe(choice):<32} {100 * choice.win:6.2f}%"
        if others:
            line += "   opponents " + " ".join(f"{100 * v:5.2f}%" for v in choice.wins[1:])
        print(line)
    if card:
        what = f"keep {' '.join(map(str, card['keep']))}" if "keep" in card else card["action"]
        print(f"the card: {what}" + (", the best choice" if card["cost"] <= 1e-12 else
                                     f", {100 * card['cost']:.2f} points of 100 less"))


def cmd_simulate(args):
    from .policies import parse_policy
    from .simulate import simulate
    from .simulate_n import seat_policies
    seats = seat_policies(args.players, args.seat, args.a, args.b)
    rules = _rules(args)
    if seats is not None:
        return _simulate_seats(args, rules, seats)
    policies = [parse_policy(args.a), parse_policy(args.b)]
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    both_optimal = all(str(p) == "optimal" for p in policies)
    solution = None
    if any(p.needs_table for p in policies):
        solution = _load_table(args, rules, lazy_take=False)
    result = simulate(rules, *policies, args.games, seed=args.seed, solution=solution,
                      progress=_progress(f"playing {rules.name}") if args.games >= 50_000 else None)
    predicted = solution.first_player_win if both_optimal else None
    out = {"game": rules.name, "target": rules.target, "a": args.a, "b": args.b,
           "games": result.games, "wins_a": result.wins_a, "win_rate_a": result.win_rate_a,
           "stderr": result.stderr, "predicted": predicted, "unfinished": result.unfinished,
           "seed": args.seed, "seconds": result.seconds}
    if args.json:
        _print_json(out)
        return
    print(f"{rules.name} to {rules.target}: A ({args.a}) against B ({args.b}), "
          f"{result.games} games, seed {args.seed}")
    print(f"A wins {100 * result.win_rate_a:.2f}% +- {100 * result.stderr:.2f}% "
          f"(one standard error)")
    if predicted is not None:
        gap = (result.win_rate_a - predicted) / result.stderr if result.stderr else 0.0
        print(f"the table predicts {100 * predicted:.2f}% ({gap:+.1f} standard errors)")
    if result.unfinished:
        print(f"{result.unfinished} games stopped at the turn cap and are not counted")


def _simulate_seats(args, rules, policies):
    """``simulate --seat ...``: N seats (two: the two-player simulator)."""
    from .simulate import simulate
    from .simulate_n import simulate_n, two_player_result
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    solution = None
    if any(p.needs_table for p in policies):
        if args.players > 2 and any(p.kind == "card" for p in policies):
            raise UsageError("the card policy plays two-player games only")
        solution = _load_table(args, rules, lazy_take=False, players=args.players)
    progress = _progress(f"playing {rules.name}") if args.games >= 50_000 else None
    if args.players == 2:
        result = two_player_result(simulate(rules, *policies, args.games, seed=args.seed,
                                            solution=solution, progress=progress), solution)
    else:
        result = simulate_n(rules, policies, args.games, seed=args.seed, solution=solution,
                            progress=progress)
    if args.json:
        _print_json(result.to_json())
        return
    print("\n".join(result.describe()))


def cmd_card(args):
    from .card_sheet import card_for
    from .multi_solution import check_player_count
    rules = _rules(args)
    check_player_count(args.players)
    card, loss, simple = card_for(rules)
    notes = []
    if loss and rules.target != loss.get("target", rules.target):
        notes.append(f"fitted and measured to {loss['target']:,}; here the target is "
                     f"{rules.target:,}")
    if args.players > 2:
        notes.append(f"with {args.players} players: play it against the leader (fitted and "
                     "measured for two)")
    if args.json:
        _print_json({"game": rules.name, "players": args.players, "card": card.to_dict(),
                     "loss": loss, "simple": simple, "notes": notes,
                     "text": card.text(rules, loss)})
        return
    print(card.text(rules, loss))
    for note in notes:
        print(f"({note})")


def cmd_play(args):
    from .play_terminal import check_options, play
    rules = _rules(args)
    options = check_options(args, rules)
    return play(_players_advisor(args, rules, options.players), options)


def cmd_serve(args):
    from .house_rules import load_house_rules
    from .serve import serve
    from .table_api import TableDesk
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, not {args.port}")
    house_rules = load_house_rules(args.rules) if args.rules is not None else None
    serve(TableDesk(house_rules, args.rules), args.host, args.port, args.quiet)


def _describe(choice) -> str:
    if choice.action == "keep":
        then = {"bank": "then bank", "roll": "then roll", "win": "wins", "zero": "overshoots"}
        return f"keep {' '.join(map(str, choice.keep))} ({choice.points}), {then[choice.then]}"
    return {"bank": "bank", "roll": "roll", "take": "take over", "fresh": "roll fresh",
            "zero": "zero roll"}[choice.action]


if __name__ == "__main__":
    sys.exit(main())

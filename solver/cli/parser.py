"""The ``farkle`` command's parser: every command, its options and their
help, written in the language chosen before it is built
(:mod:`solver.cli.language`). The commands themselves are in
:mod:`solver.cli.games`, :mod:`solver.cli.at_table` and
:mod:`solver.cli.referee`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from solver.cli.at_table import cmd_advise, cmd_card, cmd_play, cmd_serve, cmd_simulate
from solver.cli.games import cmd_info, cmd_keeps, cmd_odds, cmd_solve, cmd_tables, cmd_variants
from solver.cli.language import lang_option, speak_argparse
from solver.cli.referee import REFEREE_HELP, cmd_referee, referee_options
from solver.model.errors import UsageError
from solver.text import _


class Parser(argparse.ArgumentParser):
    def error(self, message):
        # main() prints "farkle: " before every error; a subcommand adds its name.
        command = self.prog.partition(" ")[2]
        raise UsageError(f"{command}: {message}" if command else message)


def build_parser() -> Parser:
    """The parser, in the current language (solver.text.set_language)."""
    speak_argparse()
    parser = Parser(prog="farkle", description=_("Optimal play of dix-mille, quinze-mille, "
                                                 "cinq-mille and Pig."))
    lang_option(parser)
    sub = parser.add_subparsers(parser_class=Parser)

    def command(name, run, help, game=True):
        p = sub.add_parser(name, help=help, description=help)
        if game:
            # A game is named, or defined by a house-rules file: one of the two.
            p.add_argument("game", nargs="?", metavar=_("game"),
                           help=_("a game of `farkle variants`"))
            rules_option(p, _("house rules: a game defined by a TOML file, instead of GAME"))
            p.add_argument("--target", type=int, metavar=_("POINTS"),
                           help=_("play to another target (tests and studies)"))
        p.add_argument("--json", action="store_true", help=_("machine-readable output"))
        lang_option(p)
        p.set_defaults(run=run)
        return p

    p = command("variants", cmd_variants, _("list the games"), game=False)
    rules_option(p, _("check a house-rules file and show the game it defines"))
    p = command("keeps", cmd_keeps, _("the legal keeps of a roll"))
    p.add_argument("dice", nargs="+", type=int, metavar="D")
    # With --rules there is no GAME, so argparse hands the first die to it.
    p.set_defaults(dice_after_game=True)
    p = command("odds", cmd_odds,
                _("zero-roll, hot-dice and best-keep odds per dice count"))
    p.add_argument("--turns", action="store_true",
                   help=_("instead: the number of turns one player alone needs to reach the "
                          "target, playing for the fewest (expected, percentiles; --json: the "
                          "whole distribution)"))
    p = command("solve", cmd_solve, _("solve a game and write its table"))
    p.add_argument("--objective", choices=("win", "points", "turns"), default="win",
                   help=_("win: each player's chance of winning, as a table (default); points: "
                          "one turn played alone for the most points it can expect; turns: one "
                          "player alone, from 0 to the target in the fewest expected turns"))
    p.add_argument("--out", type=Path, metavar=_("FILE"))
    p.add_argument("--tolerance", type=_tolerance, default=1e-12, metavar=_("TOLERANCE"),
                   help=_("the largest error left in any value (default 1e-12)"))
    players_option(p)
    memory_option(p)
    p.add_argument("--cluster", metavar=_("ADDRESS"),
                   help=_("N players: solve on a Dask cluster, local:W (W local workers) or a "
                          "scheduler's address, resumable (docs/cluster.md)"))
    p.add_argument("--worker-memory", metavar=_("SIZE"),
                   help=_("with --cluster local:W: each worker's memory limit (4GB); its peak "
                          "is in --json's stats"))
    p = command("info", cmd_info, _("the metadata of a table file"), game=False)
    p.add_argument("file", type=Path, metavar=_("file"))
    p = command("tables", cmd_tables,
                _("every game's table: where it is, or how to make it"), game=False)
    p.add_argument("--remove", metavar=_("NAME"),
                   help=_("delete one of your tables: a game, or a table's file name"))
    p = command("advise", cmd_advise, _("bank or roll, which dice to keep, take over or not"))
    p.add_argument("--me", type=int, required=True, metavar="S", help=_("your banked score"))
    p.add_argument("--opp", type=int, required=True, action="append", metavar="S",
                   help=_("an opponent's banked score; with more players, once each, in seat "
                          "order after you (the last is the previous player)"))
    p.add_argument("--turn", type=int, default=0, metavar="T", help=_("turn total so far"))
    p.add_argument("--dice", type=int, metavar="N", help=_("dice in hand (default: all)"))
    p.add_argument("--roll", nargs="+", type=int, metavar="D", help=_("the dice just thrown"))
    p.add_argument("--offer", metavar="T,N",
                   help=_("the previous player's turn total and unset dice"))
    p.add_argument("--crosses", type=int, default=0, metavar="C", help=_("your crosses"))
    p.add_argument("--previous", type=int, metavar="P",
                   help=_("your score before your last bank (games with crosses)"))
    p.add_argument("--opp-crosses", type=int, action="append", metavar="C",
                   help=_("each opponent's crosses, in the order of --opp"))
    p.add_argument("--opp-previous", type=int, action="append", metavar="P",
                   help=_("each opponent's score before their last bank, in the order of "
                          "--opp"))
    p.add_argument("--table", type=Path, metavar=_("FILE"))
    p.add_argument("--card", action="store_true",
                   help=_("also what the strategy card does here, and what it costs"))
    solve_option(p)
    memory_option(p)
    p = command("simulate", cmd_simulate, _("play whole games between policies"))
    p.add_argument("--a", metavar=_("POLICY"),
                   help=_("two players: the first player, optimal, card, threshold:X, expected "
                          "or random"))
    p.add_argument("--b", metavar=_("POLICY"), help=_("two players: the second player"))
    p.add_argument("--seat", action="append", metavar=_("POLICY"),
                   help=_("instead of --a/--b: a seat's policy, once per seat, seat 1 (moving "
                          "first) first"))
    players_option(p)
    p.add_argument("--games", type=int, default=10_000, metavar="N")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--table", type=Path, metavar=_("FILE"),
                   help=_("table for the optimal policy"))
    solve_option(p)
    memory_option(p)
    p = command("card", cmd_card, _("the strategy card: optimal play a person can remember, "
                                    "and what it gives up"))
    players_option(p)
    p.add_argument("--fit", action="store_true",
                   help=_("fit a card to this game's table and keep it (a house game, another "
                          "target or a table of more players); Ctrl-C keeps the best card so "
                          "far"))
    p.add_argument("--rounds", type=int, default=1, metavar="R",
                   help=_("with --fit: rounds of the search, each moving every field once "
                          "(default 1; more gain a little more); with --sampled, its plays"))
    p.add_argument("--sampled", type=int, metavar="N",
                   help=_("with --fit (two players): score the search's moves over N sampled "
                          "games, not by exact evaluations (where one takes minutes: "
                          "dix-mille); the card it ends with is measured exactly"))
    p.add_argument("--table", type=Path, metavar=_("FILE"),
                   help=_("with --fit: the table to fit to (default: the game's own)"))
    solve_option(p)
    p = command("play", cmd_play, _("play a game against a bot, or coach a real game "
                                    "(--coach), with the cost of every decision"))
    p.add_argument("--seat", type=int, metavar="K",
                   help=_("your seat: 1 (default) moves first"))
    p.add_argument("--bots", metavar=_("POLICY"),
                   help=_("the bot: optimal (default), threshold:X, expected or random"))
    p.add_argument("--coach", action="store_true",
                   help=_("every seat is a person: type each roll's dice, get advice"))
    players_option(p)
    p.add_argument("--seed", type=int, metavar="S",
                   help=_("the dice (default: a new seed, shown)"))
    p.add_argument("--log", type=Path, metavar=_("FILE"),
                   help=_("every decision as JSON lines"))
    p.add_argument("--table", type=Path, metavar=_("FILE"))
    solve_option(p)
    memory_option(p)
    referee_options(command("referee", cmd_referee, _(REFEREE_HELP)))
    p = sub.add_parser("serve", help=_("the page for the table: score sheet and advice in a "
                                       "browser"),
                       description=_("Serve the page for the table (score sheet, advice, win "
                                     "chances) to a browser; open the address it prints."))
    p.add_argument("--host", default="127.0.0.1", metavar=_("HOST"),
                   help=_("address to listen on (default 127.0.0.1, this machine only; "
                          "0.0.0.0 lets a phone on the same network in)"))
    p.add_argument("--port", type=int, default=8000, metavar=_("PORT"),
                   help=_("port (default 8000; 0 picks one)"))
    rules_option(p, _("house rules: serve the game of this TOML file beside the others"))
    p.add_argument("--quiet", action="store_true", help=_("do not log each request"))
    lang_option(p, json=False)
    p.set_defaults(run=cmd_serve)
    return parser


def rules_option(p, help: str) -> None:
    p.add_argument("--rules", type=Path, metavar=_("FILE"), help=help)


def solve_option(p) -> None:
    p.add_argument("--solve", action="store_true",
                   help=_("make a missing table without asking (it may take minutes)"))


def players_option(p) -> None:
    p.add_argument("--players", type=int, default=2, metavar="N",
                   help=_("players at the table, 2 to 6 (seat 1 moves first)"))


def memory_option(p) -> None:
    p.add_argument("--memory", choices=("model", "exact"),
                   help=_("games with crosses: the tractable model (default) or the exact "
                          "previous-score memory (small targets)"))


def _tolerance(text: str) -> float:
    """``--tolerance``: a number above 0 and below 1 (nan, inf and 0 would
    never stop or stop at once)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("not a number: {text!r}").format(text=text)) \
            from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(
            _("takes a number above 0 and below 1, not {text}").format(text=text))
    return value

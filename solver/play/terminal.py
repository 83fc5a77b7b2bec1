"""The terminal of ``farkle play``: the score sheet, the questions, the answers.

Drives a :class:`solver.play.game.Game`: prints the sheet at each turn start and
what happens, asks the person at the keyboard each question (in play mode the
dice are thrown; with ``--coach`` every seat is a person and the dice of each
roll are typed in), and prints the best choice after each decision (before
it, too, when coaching). An answer the game cannot take gets one line and
the same question again. ``q``, end of input or Ctrl-C end the game with the
review so far.

Answers: dice as digits (``1 1 5`` or ``115``), ``#N`` for line N of the
keeps listed, ``b`` bank, ``r`` roll, ``t`` take over, ``f`` roll fresh,
``u`` undo (coaching), ``?`` help, ``q`` quit; the French answers too, in
either language (``m`` marquer, ``r`` relancer, ``p`` reprendre, ``z``
repartir de zéro, ``a`` annuler, ``aide``, ``quitter``). What the screen
shows: :mod:`solver.play.screen`.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.advice.advisor import Advisor
from solver.engine.solution_n import check_player_count
from solver.model.errors import UsageError
from solver.play.bots import make_bots
from solver.play.game import BANK, OVER, ROLL, TAKE, Event, Game, PlayError

# HELP and points_given_up are imported from here too.
from solver.play.screen import HELP, Screen, points_given_up  # noqa: F401
from solver.sim.policies import Policy, parse_policy
from solver.text import _

# The answers, in English and in French (either is taken in either language).
QUIT = ("q", "quit", "quitter")
HELP_WORDS = ("?", "h", "help", "aide")
UNDO = ("u", "undo", "a", "annuler")
TAKE_WORDS = {"t": "take", "take": "take", "f": "fresh", "fresh": "fresh",
              "p": "take", "prendre": "take", "reprendre": "take",
              "z": "fresh", "zero": "fresh", "zéro": "fresh"}
BANK_WORDS = {"b": "bank", "bank": "bank", "r": "roll", "roll": "roll",
              "m": "bank", "marquer": "bank", "relancer": "roll"}


class Quit(Exception):
    """The person asked to stop."""


@dataclass(frozen=True)
class PlayOptions:
    players: int
    coach: bool
    seat: int
    """The person's seat in play mode (0-based)."""
    bot: Policy | None
    seed: int | None
    log: Path | None


def check_options(args, rules) -> PlayOptions:
    """The options of ``farkle play``, checked before any table is loaded."""
    if args.json:
        raise UsageError(_("play is interactive and has no --json; --log FILE writes the "
                           "decisions"))
    check_player_count(args.players)
    if args.coach and (args.bots is not None or args.seat is not None):
        raise UsageError(_("--coach is for a game between people: no --bots or --seat"))
    seat = 1 if args.seat is None else args.seat
    if not 1 <= seat <= args.players:
        raise UsageError(_("--seat must be 1 to {most}, not {seat}").format(
            most=args.players, seat=seat))
    bot = None if args.coach else parse_policy(args.bots or "optimal")
    seed = args.seed
    if seed is not None and seed < 0:
        raise UsageError(_("--seed must be 0 or more, not {seed}").format(seed=seed))
    if seed is None and not args.coach:
        # Shown at the start, so that the same dice can be played again.
        seed = int(np.random.SeedSequence().entropy % 1_000_000)
    return PlayOptions(args.players, args.coach, seat - 1, bot, seed, args.log)


def play(advisor: Advisor, options: PlayOptions, read=input, write=print, width=None) -> int:
    """Play or coach one game at the terminal; returns the exit status.
    ``width()`` gives the columns to wrap lines at (None: no wrapping); by
    default the terminal's, when ``write`` prints to one."""
    policies = {} if options.coach else {seat: options.bot for seat in range(options.players)
                                         if seat != options.seat}
    bots = make_bots(policies, advisor.rules, options.seed, options.players)
    game = Game(advisor, options.players, bots, options.seed, options.log)
    if width is None and write is print and sys.stdout.isatty():
        width = _terminal_width
    screen = Screen(game, options, _wrapped(write, width) if width else write)
    screen.title()
    try:
        _loop(game, screen, options.coach, read)
    except (KeyboardInterrupt, EOFError, Quit):
        write("")
        write(_("game stopped"))
    screen.review()
    return 0


def _loop(game: Game, screen: "Screen", coach: bool, read) -> None:
    shown_turn = None
    while True:
        while game.phase != OVER:
            if game.state.turn_number != shown_turn:
                screen.sheet()
                shown_turn = game.state.turn_number
            if game.phase == ROLL and not coach:
                events = game.throw()
            elif game.is_bot(game.mover):
                events = game.bot_move()
            else:
                events = _ask(game, screen, coach, read)
                if events is None:          # undone: show the sheet again
                    shown_turn = None
                    continue
            screen.events(events)
        # At a real table the last entry may have been a slip: it can still
        # be undone.
        if not coach or read(_("game over; u undoes the last entry, Enter ends: ")).strip() \
                .lower() not in UNDO:
            return
        game.undo()
        screen.write(_("undone"))
        shown_turn = None


def _terminal_width() -> int:
    """The columns of the terminal on stdout, read at each line (the window
    may change): its own size first, an exported COLUMNS being often stale."""
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        return shutil.get_terminal_size().columns


def _wrapped(write, width):
    """``write`` with each line wrapped at word boundaries to ``width()``
    columns (one less: a line that fills the last column would make some
    terminals wrap again); a continued line is indented two more spaces
    than its first."""
    def wrapped(text=""):
        columns = max(20, width() - 1)
        if len(text) <= columns:
            return write(text)
        indent = " " * (len(text) - len(text.lstrip(" ")) + 2)
        for line in textwrap.wrap(text, columns, subsequent_indent=indent,
                                  break_long_words=False, break_on_hyphens=False):
            write(line)
    return wrapped


def _ask(game: Game, screen: "Screen", coach: bool, read) -> list[Event] | None:
    """Ask the question now due until an answer is taken; None after an undo."""
    prompt = screen.question()
    while True:
        text = read(prompt).strip().lower()
        try:
            if text in QUIT:
                raise Quit
            if text in HELP_WORDS:
                screen.write(_(HELP))
                continue
            if text in UNDO:
                if not coach:
                    raise PlayError(_("undo is for coaching a real game (--coach)"))
                if not game.undo():
                    raise PlayError(_("nothing to undo"))
                screen.write(_("undone"))
                return None
            return _answer(game, text)
        except PlayError as error:
            screen.write(str(error))


def _answer(game: Game, text: str) -> list[Event]:
    phase = game.phase
    if phase == ROLL:
        return game.enter_roll(parse_dice(text))
    if phase == TAKE:
        if text not in TAKE_WORDS:
            raise PlayError(_("type t to take over or f to roll fresh"))
        return game.choose(TAKE_WORDS[text])
    if phase == BANK:
        if text not in BANK_WORDS:
            # What the player can do here: only roll where no bank is allowed.
            refusal = game.bank_refusal()
            raise PlayError(_("type r to roll: {refusal}").format(refusal=refusal) if refusal
                            else _("type b to bank or r to roll"))
        return game.choose(BANK_WORDS[text])
    if text.startswith("#"):
        options = game.options()
        number = text[1:].strip()
        if not number.isdigit() or not 1 <= int(number) <= len(options):
            raise PlayError(_("choose a keep from #1 to #{last}").format(last=len(options)))
        return game.choose(options[int(number) - 1].dice)
    return game.choose(parse_dice(text))


def parse_dice(text: str) -> list[int]:
    """Dice typed as digits, spaced or not (``1 1 5``, ``115``)."""
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise PlayError(_("type the dice as digits, e.g. 1 1 5"))
    for token in tokens:
        if not token.isdigit():
            raise PlayError(_("{token} is not a die: type the dice as digits, e.g. 1 1 5")
                            .format(token=repr(token)))
    return [int(c) for token in tokens for c in token]

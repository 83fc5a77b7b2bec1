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
``u`` undo (coaching), ``?`` help, ``q`` quit.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.advice.advisor import Advisor, Choice
from solver.engine.solution_n import check_player_count
from solver.model.errors import UsageError
from solver.play.bots import make_bots
from solver.play.game import (
    BANK,
    KEEP,
    OVER,
    ROLL,
    TAKE,
    Decision,
    Event,
    Game,
    PlayError,
    best_choice,
)
from solver.sim.policies import Policy, parse_policy

HELP = ("answers: dice as digits (1 1 5), #N for a keep of the list, b bank, r roll, "
        "t take over, f roll fresh, u undo (coaching), q quit")


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
        raise UsageError("play is interactive and has no --json; --log FILE writes the decisions")
    check_player_count(args.players)
    if args.coach and (args.bots is not None or args.seat is not None):
        raise UsageError("--coach is for a game between people: no --bots or --seat")
    seat = 1 if args.seat is None else args.seat
    if not 1 <= seat <= args.players:
        raise UsageError(f"--seat must be 1 to {args.players}, not {seat}")
    bot = None if args.coach else parse_policy(args.bots or "optimal")
    seed = args.seed
    if seed is not None and seed < 0:
        raise UsageError(f"--seed must be 0 or more, not {seed}")
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
        write("game stopped")
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
        if not coach or read("game over; u undoes the last entry, Enter ends: ").strip() \
                .lower() not in ("u", "undo"):
            return
        game.undo()
        screen.write("undone")
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
            if text in ("q", "quit"):
                raise Quit
            if text in ("?", "h", "help"):
                screen.write(HELP)
                continue
            if text in ("u", "undo"):
                if not coach:
                    raise PlayError("undo is for coaching a real game (--coach)")
                if not game.undo():
                    raise PlayError("nothing to undo")
                screen.write("undone")
                return None
            return _answer(game, text)
        except PlayError as error:
            screen.write(str(error))


def _answer(game: Game, text: str) -> list[Event]:
    phase = game.phase
    if phase == ROLL:
        return game.enter_roll(parse_dice(text))
    if phase == TAKE:
        words = {"t": "take", "take": "take", "f": "fresh", "fresh": "fresh"}
        if text not in words:
            raise PlayError("type t to take over or f to roll fresh")
        return game.choose(words[text])
    if phase == BANK:
        words = {"b": "bank", "bank": "bank", "r": "roll", "roll": "roll"}
        if text not in words:
            # What the player can do here: only roll where no bank is allowed.
            refusal = game.bank_refusal()
            raise PlayError(f"type r to roll: {refusal}" if refusal
                            else "type b to bank or r to roll")
        return game.choose(words[text])
    if text.startswith("#"):
        options = game.options()
        number = text[1:].strip()
        if not number.isdigit() or not 1 <= int(number) <= len(options):
            raise PlayError(f"choose a keep from #1 to #{len(options)}")
        return game.choose(options[int(number) - 1].dice)
    return game.choose(parse_dice(text))


def parse_dice(text: str) -> list[int]:
    """Dice typed as digits, spaced or not (``1 1 5``, ``115``)."""
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise PlayError("type the dice as digits, e.g. 1 1 5")
    for token in tokens:
        if not token.isdigit():
            raise PlayError(f"{token!r} is not a die: type the dice as digits, e.g. 1 1 5")
    return [int(c) for token in tokens for c in token]


# ---------------------------------------------------------------- screen

def percent(win: float) -> str:
    return f"{100 * win:.2f}%"


def points_given_up(cost: float) -> str:
    """A cost in percentage points of win probability."""
    if cost == 0 or 100 * cost >= 0.01:
        return f"{100 * cost:.2f} pp"
    return f"{100 * cost:.1e} pp"


def describe(choice: Choice) -> str:
    if choice.action == "keep":
        then = {"bank": ", then bank", "roll": ", then roll", "win": ", wins",
                "zero": ", overshoots"}.get(choice.then, "")
        return f"keep {_dice(choice.keep)} ({choice.points}){then}"
    return {"bank": "bank", "roll": "roll", "take": "take over", "fresh": "roll fresh"}[
        choice.action]


def _dice(dice) -> str:
    return " ".join(map(str, dice))


def _count(dice: int) -> str:
    return "1 die" if dice == 1 else f"{dice} dice"


class Screen:
    """What the terminal shows of a game."""

    def __init__(self, game: Game, options: PlayOptions, write):
        self.game = game
        self.rules = game.rules
        self.coach = options.coach
        self.write = write
        if options.coach:
            self.names = [f"player {seat + 1}" for seat in range(options.players)]
        else:
            # One bot is "the bot"; several are told apart by their seats.
            bot = "the bot" if options.players == 2 else "bot {}"
            self.names = ["you" if seat == options.seat
                          else f"{bot.format(seat + 1)} ({options.bot})"
                          for seat in range(options.players)]
        self.people = [seat for seat in range(options.players) if not game.is_bot(seat)]
        self.seed = options.seed

    def title(self) -> None:
        rules = self.rules
        game = f"{rules.name} to {rules.target}"
        if self.coach:
            self.write(f"coaching {game}: type each roll's dice; u undoes the last entry")
        else:
            seats = ", ".join(f"seat {seat + 1} {name}" for seat, name in enumerate(self.names))
            self.write(f"{game}, seed {self.seed}: {seats}")
        self.write(HELP)

    def sheet(self) -> None:
        state = self.game.state
        self.write("")
        self.write(f"-- turn {state.turn_number}: {self.names[state.mover]} to play --")
        width = max(len(name) for name in self.names)
        for seat, line in enumerate(state.lines):
            text = f"  {seat + 1} {self.names[seat]:<{width}}  {line.score:>6}"
            if self.rules.crosses:
                text += f"   crosses {'x' * line.crosses or '-':<{self.rules.crosses}}"
            if self.rules.falls_back:
                text += f"  previous {line.previous}"
            self.write(text)
        if state.offer is not None:
            points, dice = state.offer
            self.write(f"  on the table: {points} with {_count(dice)}, "
                       f"for {self.names[state.mover]} to take over")

    def question(self) -> str:
        """Print what the question needs (the keeps, the turn, the advice
        when coaching) and return its prompt."""
        game, state = self.game, self.game.state
        name = self.names[state.mover]
        advice = game.advice() if self.coach else None
        if state.phase == ROLL:
            held = f" ({state.turn_total} set aside)" if state.turn_total else ""
            return f"{name}: the {_count(state.in_hand)} rolled{held}? "
        if state.phase == KEEP:
            wins = {tuple(c.keep): c for c in advice.choices} if advice else {}
            best = _best(advice)
            for number, keep in enumerate(game.options(), 1):
                text = f"  #{number:<2} {_dice(keep.dice):<12} {keep.points:>5}"
                if keep.dice in wins:
                    text += f"   {percent(wins[keep.dice].win):>7}"
                    text += "  <- best" if best is wins[keep.dice] else ""
                self.write(text)
            return "keep (dice, or #N)? "
        if state.phase == TAKE:
            if advice:
                self._advice(advice)
            points, dice = state.offer
            return f"take over {points} with {_count(dice)} (t) or roll fresh (f)? "
        self.write(f"  turn total {state.turn_total}, {_count(state.in_hand)} in hand")
        refusal = game.bank_refusal()
        if refusal:
            return f"{refusal}; roll (r)? "
        if advice:
            self._advice(advice)
        return "bank (b) or roll (r)? "

    def _advice(self, advice) -> None:
        best = _best(advice)
        others = [c for c in advice.choices if c is not best]
        self.write(f"  best: {describe(best)} {percent(best.win)}"
                   + "".join(f"; {describe(c)} {percent(c.win)}" for c in others))

    def events(self, events: list[Event]) -> None:
        for event in events:
            line = self._event(event)
            if line:
                self.write(line)

    def _event(self, event: Event) -> str | None:
        name, rules = self.names[event.seat], self.rules
        kind = event.kind

        def does(verb):                     # "you roll", "player 2 rolls"
            return f"{name} {verb}" if name == "you" else f"{name} {verb}s"
        if kind == "roll":
            return f"{does('roll')} {_dice(event.dice)}"
        if kind == "zero":
            return "  no die scores: zero roll" + (f", {event.points} lost" if event.points
                                                   else "")
        if kind == "keep":
            forced = ": forced" if event.forced else ""
            return f"  {does('keep')} {_dice(event.dice)} ({event.points}){forced}"
        if kind == "overshoot":
            return f"  {event.points} more would pass {rules.target}: zero turn"
        if kind == "win":
            return does("win") + (f" with {event.score}" if event.score >= rules.target
                                     else " at once")
        if kind == "bank":
            offered = f"; {_count(event.count)} left on the table" if event.count else ""
            return f"  {does('bank')} {event.points}: {event.score}{offered}"
        if kind == "cross":
            return f"  {name}: cross {event.count}"
        if kind == "fall":
            cost = f"{rules.fall_penalty} points off" if rules.fall_penalty else "back"
            return f"  {name}: {rules.crosses} crosses in a row, {cost} to {event.score}"
        if kind == "take":
            return f"  {does('take')} over {event.points} with {_count(event.count)}"
        if kind == "fresh":
            return f"  {does('roll')} fresh"
        if kind == "tie":
            return f"  {does('bank')} {event.points}: {event.score}, equal: the win is shared"
        if kind == "shared":
            return f"{' and '.join(self.names[seat] for seat in event.seats)} share the win " \
                   f"at {event.score}"
        if kind == "last-turn":
            return f"{name} {'have' if name == 'you' else 'has'} one last turn to pass {event.score}"
        if kind == "decision" and event.seat in self.people:
            return self._verdict(event.decision)
        return None

    def _verdict(self, decision: Decision) -> str:
        best = decision.best
        if decision.cost == 0:
            return f"  best: {describe(best)} {percent(best.win)}: your choice"
        return (f"  best: {describe(best)} {percent(best.win)}; yours "
                f"{percent(decision.chosen.win)}: you gave up {points_given_up(decision.cost)}")

    def review(self) -> None:
        game = self.game
        if game.state.winner is None:
            self.write("the win is shared" if game.phase == OVER else "no winner yet")
        for seat in self.people:
            review = game.review(seat)
            decisions = "1 decision" if review.decisions == 1 else f"{review.decisions} decisions"
            self.write(f"review, {self.names[seat]}: {decisions}, gave up "
                       f"{points_given_up(review.given_up)} of winning in all")
            if review.decisions and not review.costliest:
                self.write("  every decision was the best")
            for decision in review.costliest:
                self.write(f"  {_situation(decision)}: {describe(decision.chosen)}; best "
                           f"{describe(decision.best)}: {points_given_up(decision.cost)}")


def _best(advice):
    return best_choice(advice) if advice else None


def _situation(decision: Decision) -> str:
    position = decision.position
    where = f"turn {decision.turn_number}"
    if decision.kind == "take":
        points, dice = position["offer"]
        return f"{where}, offer of {points} with {_count(dice)}"
    if decision.kind == "keep":
        return f"{where}, roll {_dice(position['roll'])} with {position['turn']} set aside"
    return f"{where}, {position['turn']} set aside with {_count(position['dice'])}"

"""The ``farkle`` command's side of a table: which table its line asks
for (``--table``, ``--memory``, ``--rules``, ``--target``, ``--solve``),
the command it names to make one, and the person at the terminal asked
before a long solve, with a progress bar. Loading and making the table is
:mod:`solver.tables.load`'s; choosing exact or model :mod:`solver.advice.choose`'s.
"""

from __future__ import annotations

import sys

from solver.model.errors import UsageError
from solver.tables.load import FirstUse, load_table
from solver.text import _, language, number


def solve_command(args, rules, memory=None, players=2) -> str:
    """The command that makes the table of ``rules`` (for a message)."""
    game = f"--rules {args.rules}" if args.rules is not None else rules.name
    target = f" --target {rules.target}" if args.target else ""
    option = f" --memory {memory}" if memory else ""
    seats = f" --players {players}" if players != 2 else ""
    return f"farkle solve {game}{target}{seats}{option}"


PROGRESS_STEPS = 1000


def progress_bar(description: str):
    """A tqdm bar on stderr, as a ``progress(done, total, levels=None)``
    callback, in thousandths of the work, with the time spent and left;
    ``levels``, ``(levels done, levels, sweep)``, adds "level 12 of 183"
    (and the sweep past the first). With crosses the sweeps to come are only
    estimated as the solve converges (:func:`solver.engine.convergence.sweeps_expected`),
    so the total may grow: the bar shows the largest share done so far and
    never moves backwards."""
    from tqdm import tqdm
    bar = None

    def update(done, total, levels=None):
        nonlocal bar
        if bar is None:
            # tqdm writes "desc: "; French puts a space before the colon.
            desc = description + " " if language() == "fr" else description
            bar = tqdm(total=PROGRESS_STEPS, desc=desc, unit="", file=sys.stderr,
                       leave=False, disable=None,
                       bar_format="{l_bar}{bar}| [{elapsed}<{remaining}{postfix}]")
        if levels is not None:
            level, count, sweep = levels
            bar.set_postfix_str(
                (_("sweep {sweep}, level {level} of {levels}") if sweep > 1
                 else _("level {level} of {levels}")).format(
                     sweep=sweep, level=number(level), levels=number(count)), refresh=False)
        share = min(PROGRESS_STEPS, PROGRESS_STEPS * done // max(total, 1))
        if share > bar.n:
            bar.update(share - bar.n)
        if done >= total:
            bar.close()
    return update


def memory_of(args, rules):
    """``--memory`` where the game's crosses go back to a previous score;
    refused elsewhere."""
    memory = getattr(args, "memory", None)
    if memory is not None and not rules.falls_back:
        raise UsageError(_("--memory is for games whose crosses go back to a previous score; "
                           "{game} has none").format(game=rules.name))
    return memory


def first_use(args) -> FirstUse:
    """First use at the terminal: a missing table is made at once when that
    is quick, when ``--solve`` says so, or when the person at the terminal
    agrees to the estimate; without a terminal the command to run is named
    (exit status 2)."""
    terminal = sys.stdin.isatty() and sys.stderr.isatty()
    return FirstUse(command=lambda rules, memory, players: solve_command(args, rules, memory,
                                                                         players),
                    ask=ask_yes if terminal else None, solve=getattr(args, "solve", False),
                    say=lambda line: print(f"farkle: {line}", file=sys.stderr),
                    progress=progress_bar)


def table_of(args, rules, check=None, lazy_take=True, players=2):
    """The table for ``rules`` and ``players`` the line asks for:
    ``--table``, else the default file, made on first use. ``check()`` runs
    before any solve, so that bad input is refused first."""
    return load_table(rules, players, memory_of(args, rules), path=args.table,
                      first_use=first_use(args), lazy_take=lazy_take, before_solving=check)


def ask_yes(question: str) -> bool:
    """A yes-or-no question on the terminal (stderr); end of input is no.
    Any other answer asks again. French answers (o, oui, non) are taken in
    every language."""
    while True:
        print(question, end="", file=sys.stderr, flush=True)
        try:
            answer = input().strip().lower()
        except EOFError:
            print(file=sys.stderr)
            return False
        if answer in ("y", "yes", "o", "oui"):
            return True
        if answer in ("", "n", "no", "non"):
            return False
        print(_("please answer y or n, not {answer!r}").format(answer=answer), file=sys.stderr)

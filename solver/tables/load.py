"""Load a game's table, or solve it when it is missing: the one way every
command, the page, play and card fitting get a table.

:func:`load_table` reads ``path`` when one is given; else the default
table of the rules and players (the user's tables, then the committed
ones). A default table that is missing, or was made by an older program,
is handed to ``first_use``:

* ``None`` (the page; anything that may not solve): a missing table is
  refused with one line naming the command that makes it
  (:class:`MissingTable`, HTTP 404), an outdated one by its reader;
* a :class:`FirstUse`: solved on the spot when the estimate is at most
  :data:`ON_THE_SPOT_SECONDS`, when ``solve`` says so, or when ``ask``
  (the person at the terminal) agrees; refused with the command and the
  estimate otherwise.

Many processes may want one table at once (issue 68): a missing table is
made under its lock (:func:`solver.tables.make.make_table`), so one process
solves while the others wait, saying so, and then read its table; a
process that finds another one solving waits for it without asking the
person first. The page, which never solves, answers that the table is
being made. What killed writers left beside a table is removed on the way
(:func:`solver.tables.lock.tidy`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.tables.estimates import (
    check_memory,
    check_players,
    estimated_solve_seconds,
    estimated_table_bytes,
)
from solver.tables.files import outdated, read_table
from solver.tables.lock import solving_now, table_lock, tidy
from solver.tables.make import make_table
from solver.tables.paths import default_path, solve_command, user_table_path
from solver.text import N_, _, ngettext

# A missing table that takes longer than this to make is named as a command
# to run instead of being solved on the spot, unless the person agrees.
ON_THE_SPOT_SECONDS = 30.0


class MissingTable(UsageError):
    """A table that is not here and may not be made now."""
    status = 404


class SolvingElsewhere(MissingTable):
    """A table that another process is making now: ask again in
    ``retry_after`` seconds (the page does, saying so)."""
    status = 503
    retry_after = 5


@dataclass
class FirstUse:
    """How a missing table may be made on first use.

    ``command(rules, memory, players)`` names the command that makes it
    (for messages); ``ask(question)`` asks the person at the terminal a
    yes-or-no question (None: nobody to ask); ``solve`` makes it whatever
    the estimate; ``say(line)`` tells what is being done; ``progress(
    description)`` gives a ``progress(done, total)`` callback or None."""
    command: Callable = None
    ask: Callable | None = None
    solve: bool = False
    say: Callable = lambda line: None
    progress: Callable = lambda description: None

    def make(self, rules: Rules, memory: str | None, players: int, path, why: str) -> None:
        check_memory(rules, memory, players)        # before the estimates and the question
        target = user_table_path(rules, memory, players)
        game = game_with(rules, players)
        if solving_now(target) is not None:
            # Another farkle is making it: waiting costs nothing more, so
            # nobody is asked; if it fails, this one decides afresh.
            with table_lock(target, say=self.say) as holder:
                pass
            if _ready(rules, memory, players):
                self.say(_made_by_another(game, holder))
                return
        seconds = estimated_solve_seconds(rules, memory, players)
        cost = _("about {time}, {size}").format(
            time=duration(seconds), size=megabytes(estimated_table_bytes(rules, memory, players)))
        command = (self.command or solve_command)(rules, memory, players)
        why = _(why)
        refusal = _("{game} {why}; make it with: {command} ({cost})").format(
            game=game, why=why, command=command, cost=cost)
        if seconds > ON_THE_SPOT_SECONDS and not self.solve:
            if self.ask is None or not self.ask(_("{game} {why}: solve it now? {cost} [y/N] ")
                                                .format(game=game, why=why, cost=cost)):
                raise UsageError(refusal)
        made = make_table(rules, memory=memory,
                          progress=self.progress(_("solving {game}").format(game=rules.name)),
                          players=players, say=self.say, reuse=True,
                          starting=lambda: self.say(_("solving {game} ({cost}) into {path}")
                                                    .format(game=game, cost=cost, path=target)))
        if made.solution is None:
            self.say(_made_by_another(game, made.made_by))


def _ready(rules: Rules, memory: str | None, players: int) -> bool:
    """Whether the default table of ``rules`` is here and up to date."""
    path = default_path(rules, memory, players)
    return path.exists() and not outdated(path)


def game_with(rules: Rules, players: int) -> str:
    """The game and, beside two, its players, as a message names them:
    ``dix-mille``, ``pig with 3 players``."""
    if players == 2:
        return rules.name
    return ngettext("{game} with {players} player", "{game} with {players} players",
                    players).format(game=rules.name, players=players)


def _made_by_another(game: str, pid: int | None) -> str:
    return _("{game} was solved by another farkle{pid}: using its table").format(
        game=game, pid=f" (pid {pid})" if pid else "")


NO_TABLE_YET = N_("has no table yet")
OLDER_TABLE = N_("has a table made by an older farkle-solver")


ALWAYS_SOLVE = FirstUse(solve=True)
"""Solve a missing table whatever the estimate (scripts, card fitting)."""


def load_table(rules: Rules, players: int = 2, memory: str | None = None, *, path=None,
               first_use: FirstUse | None = None, lazy_take: bool = True,
               before_solving: Callable | None = None, command: Callable | None = None):
    """The solved game of ``rules`` and ``players`` (module docstring):
    ``path`` if given, else the default table, made on first use
    (:func:`ensure_table`); a default table that cannot be read names the
    command that makes it again."""
    if path is not None:
        check_players(rules, players, memory)
        return read_table(path, expect=rules, lazy_take=lazy_take, expect_players=players)
    path = ensure_table(rules, players, memory, first_use=first_use,
                        before_solving=before_solving, command=command)
    try:
        return read_table(path, expect=rules, lazy_take=lazy_take, expect_players=players)
    except UsageError as error:
        if first_use is None:
            raise
        # The default table of a house-rules file edited since it was made
        # (or a damaged one): solving again replaces it.
        raise UsageError(_("{error}; solve it again with: {command}").format(
            error=error,
            command=(command or first_use.command or solve_command)(rules, memory, players))
        ) from None


def ensure_table(rules: Rules, players: int = 2, memory: str | None = None, *,
                 first_use: FirstUse | None = None, before_solving: Callable | None = None,
                 command: Callable | None = None):
    """The path of the default table of ``rules`` and ``players``, made
    first when missing or outdated and ``first_use`` allows (module
    docstring). ``before_solving()`` runs before any solve, so that bad
    input is refused first; ``command`` names the solve command in messages
    (as :attr:`FirstUse.command`)."""
    check_players(rules, players, memory)
    path = default_path(rules, memory, players)
    target = user_table_path(rules, memory, players)
    tidy(target)
    if first_use is None and not path.exists():
        game = game_with(rules, players)
        holder = solving_now(target)
        if holder is not None:
            raise SolvingElsewhere(_("{game} is being solved now by another farkle{pid}: ask "
                                     "again when it is done").format(
                game=game, pid=f" (pid {holder})" if holder else ""))
        raise MissingTable(_("{game} has no table here yet: make it with: {command}").format(
            game=game, command=(command or solve_command)(rules, memory, players)))
    if first_use is not None and (not path.exists() or outdated(path)):
        why = NO_TABLE_YET if not path.exists() else OLDER_TABLE
        if before_solving is not None:
            before_solving()
        first_use.make(rules, memory, players, path, why)
        # The user's table now, where the old one may have been the package's.
        path = default_path(rules, memory, players)
    return path


def table_exists(rules: Rules, players: int = 2, memory: str | None = None) -> bool:
    """Whether the default table of ``rules`` and ``players`` is here."""
    return default_path(rules, memory, players).exists()


def duration(seconds: float) -> str:
    """An estimate of time as a person reads it: 5 s steps, then minutes."""
    if seconds < 90:
        return _("{seconds} s").format(seconds=f"{max(5, round(seconds / 5) * 5):.0f}")
    return _("{minutes} min").format(minutes=figure(int(f"{seconds / 60:.0f}")))


def megabytes(size: int) -> str:
    """A size as a person reads it: ``120 MB``, French ``120 Mo``."""
    return (_("{size} MB").format(size=figure(int(f"{size / 1e6:.0f}"))) if size >= 1e6
            else _("under 1 MB"))

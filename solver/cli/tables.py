"""The ``farkle`` command's tables: finding the table a command needs, and
making a missing one on first use (at once when quick, with ``--solve``, or
when the person at the terminal agrees to the estimate), with a progress
bar. :mod:`solver.cli.main` parses and prints; this module is its table desk.
"""

from __future__ import annotations

import sys

from solver.model.errors import UsageError

# A missing table that takes longer than this to make is named as a command
# to run instead of being solved on the spot.
ON_THE_SPOT_SECONDS = 30.0


def _solve_command(args, rules, memory, players=2) -> str:
    """The command that makes the table of ``rules`` (for a message)."""
    game = f"--rules {args.rules}" if args.rules is not None else rules.name
    target = f" --target {rules.target}" if args.target else ""
    option = f" --memory {memory}" if memory else ""
    seats = f" --players {players}" if players != 2 else ""
    return f"farkle solve {game}{target}{seats}{option}"


def _progress(description: str):
    """A tqdm bar on stderr, as a ``progress(done, total)`` callback."""
    from tqdm import tqdm
    bar = None

    def update(done, total):
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, desc=description, unit="start", file=sys.stderr,
                       leave=False, disable=None)
        # With crosses the sweeps to come are only known as they converge.
        bar.total = total
        bar.update(done - bar.n)
        if done >= total:
            bar.close()
    return update


def _memory(args, rules):
    """``--memory`` where the game has crosses; refused elsewhere."""
    memory = getattr(args, "memory", None)
    if memory is not None and not rules.crosses:
        raise UsageError(f"--memory is for games with crosses; {rules.name} has none")
    return memory


def _load_table(args, rules, check=None, lazy_take=True, players=2):
    """The table for ``rules`` and ``players``: ``--table``, else the
    default file, solved on the spot when missing and quick to make.
    ``check()`` runs first, so that bad input is refused before any
    solve."""
    from solver.tables.make import check_players
    from solver.tables.files import outdated, read_table
    from solver.tables.paths import default_path
    memory = _memory(args, rules)
    check_players(rules, players, memory)
    path = args.table or default_path(rules, memory, players)
    if args.table is None and (not path.exists() or outdated(path)):
        if check is not None:
            check()
        _make_missing_table(args, rules, memory, path, players,
                            "has no table yet" if not path.exists()
                            else "has a table made by an older farkle-solver")
    try:
        return read_table(path, expect=rules, lazy_take=lazy_take, expect_players=players)
    except UsageError as error:
        if args.rules is None or args.table is not None:
            raise
        # A house-rules file edited since its table was made: the default
        # table is stale, and solving again replaces it.
        raise UsageError(f"{error}; solve it again with: "
                         f"{_solve_command(args, rules, memory, players)}") from None


def _make_missing_table(args, rules, memory, path, players=2, why="has no table yet"):
    """First use: a missing table (or one made by an older program, ``why``
    says which) is made at once when that is quick, when ``--solve`` says
    so, or when the person at the terminal agrees; without a terminal the
    command to run is named (exit status 2)."""
    from solver.tables.make import estimated_solve_seconds, estimated_table_bytes, solve_and_write
    seconds = estimated_solve_seconds(rules, memory, players)
    size = estimated_table_bytes(rules, memory, players)
    cost = f"about {_duration(seconds)}, {_megabytes(size)}"
    who = f" with {players} players" if players != 2 else ""
    refusal = (f"{rules.name}{who} {why}; make it with: "
               f"{_solve_command(args, rules, memory, players)} ({cost})")
    if seconds > ON_THE_SPOT_SECONDS and not getattr(args, "solve", False):
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            raise UsageError(refusal)
        if not _ask_yes(f"{rules.name}{who} {why}: solve it now? {cost} [y/N] "):
            raise UsageError(refusal)
    print(f"farkle: solving {rules.name}{who} ({cost}) into {path}", file=sys.stderr)
    solve_and_write(rules, memory=memory, progress=_progress(f"solving {rules.name}"),
                    players=players)


def _ask_yes(question: str) -> bool:
    """A yes-or-no question on the terminal (stderr); end of input is no.
    Any other answer asks again."""
    while True:
        print(question, end="", file=sys.stderr, flush=True)
        try:
            answer = input().strip().lower()
        except EOFError:
            print(file=sys.stderr)
            return False
        if answer in ("y", "yes"):
            return True
        if answer in ("", "n", "no"):
            return False
        print(f"please answer y or n, not {answer!r}", file=sys.stderr)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(5, round(seconds / 5) * 5):.0f} s"
    return f"{seconds / 60:.0f} min"


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.0f} MB" if size >= 1e6 else "under 1 MB"

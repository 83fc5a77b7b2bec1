"""Where tables live: the user's table directory (``$FARKLE_TABLES`` or the
platform's data directory), the committed tables that ship with the
program, and each table's file name.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import platformdirs

from solver.model.rules import GAMES, Rules


def user_dir() -> Path:
    """Where the tables a user makes go: ``$FARKLE_TABLES`` if set, else the
    platform's per-user data directory (on Linux
    ``~/.local/share/farkle-solver/tables``). Never the installed package,
    which may be read-only and is replaced by a reinstall."""
    env = os.environ.get("FARKLE_TABLES")
    if env:
        return Path(env)
    return platformdirs.user_data_path("farkle-solver") / "tables"


def package_dir() -> Path:
    """The committed tables: the repository's ``tables/`` when running from a
    checkout, else the installed copy of it (package ``solver.data``)."""
    checkout = Path(__file__).resolve().parents[2] / "tables"
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files("solver.data")))


def table_name(rules: Rules, memory: str | None = None, players: int = 2) -> str:
    """``GAME.h5``; ``GAME-TARGET`` for another target than the game's own
    (or a game not in the program's list), ``-exact`` for the exact memory
    of a game with crosses (two players), ``-Nplayers`` for N players (the
    exact memory: the only one there)."""
    stem = rules.name if _own_target(rules) else f"{rules.name}-{rules.target}"
    if memory == "exact" and rules.falls_back and players == 2:
        stem += "-exact"
    if players != 2:
        stem += f"-{players}players"
    return f"{stem}.h5"


def solve_command(rules: Rules, memory: str | None = None, players: int = 2) -> str:
    """``farkle solve GAME [--target T] [--players N] [--memory exact]``: the
    command that makes the table :func:`table_name` names (for a game of the
    program's list; a house game also needs its ``--rules`` file)."""
    target = "" if _own_target(rules) or rules.name not in GAMES else f" --target {rules.target}"
    seats = f" --players {players}" if players != 2 else ""
    exact = " --memory exact" if memory == "exact" and rules.falls_back else ""
    return f"farkle solve {rules.name}{target}{seats}{exact}"


def _own_target(rules: Rules) -> bool:
    """Whether ``rules`` are a game of the program's list at its own target."""
    base = GAMES.get(rules.name)
    return base is not None and base.target == rules.target


def user_table_path(rules: Rules, memory: str | None = None, players: int = 2) -> Path:
    """Where a table the user makes is written."""
    return user_dir() / table_name(rules, memory, players)


def default_path(rules: Rules, memory: str | None = None, players: int = 2) -> Path:
    """Where the table of ``rules`` is read from: the user's tables first,
    then the committed ones; where it would be written if it is in
    neither."""
    name = table_name(rules, memory, players)
    for folder in (user_dir(), package_dir()):
        if (folder / name).exists():
            return folder / name
    return user_dir() / name


CARD_SUFFIX = ".card.json"


def card_beside(table: Path) -> Path:
    """Where a card fitted here for ``table``'s game is kept: beside it,
    ``NAME.card.json`` for ``NAME.h5`` (:func:`solver.cards.store.write_user_card` writes it)."""
    return table.with_name(table.stem + CARD_SUFFIX)

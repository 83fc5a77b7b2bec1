"""The user's tables as ``farkle tables`` lists them: every game's table
(where it is, its size; or the command, time and size to make it), the
cards fitted here beside them, and removing one of the user's files.
"""

from __future__ import annotations

import json
from pathlib import Path

from solver.model.errors import UsageError
from solver.model.messages import said
from solver.model.rules import GAMES, Rules
from solver.tables.estimates import estimated_solve_seconds, estimated_table_bytes
from solver.tables.files import read_info
from solver.tables.paths import (
    CARD_SUFFIX,
    card_beside,
    default_path,
    package_dir,
    solve_command,
    table_name,
    user_dir,
    user_table_path,
)
from solver.text import _


def list_tables() -> list[dict]:
    """Every game of the program and every other table in the user's
    directory: where its table is (``user`` or ``package``), its size and
    rules; or that it is missing, with the command and the estimated time
    and size to make it (``farkle tables``). A strategy card fitted here
    (``farkle card ... --fit``, kept beside its table as ``NAME.card.json``)
    is the row's ``card``: its file and loss; a card whose table was
    removed is a row of its own (status ``card only``)."""
    rows, seen = [], set()
    for rules in GAMES.values():
        path = default_path(rules)
        if path.exists():
            rows.append(_present(rules.name, path))
            seen.add(path.resolve())
            continue
        rows.append({"game": rules.name, "status": "missing", "path": str(path),
                     "command": solve_command(rules),
                     "estimated_seconds": estimated_solve_seconds(rules),
                     "estimated_bytes": estimated_table_bytes(rules)})
    if user_dir().is_dir():
        for path in sorted(user_dir().glob("*.h5")):
            if path.resolve() not in seen:
                rows.append(_present(path.stem, path))
        for card in sorted(user_dir().glob("*" + CARD_SUFFIX)):
            name = card.name.removesuffix(CARD_SUFFIX)
            if not (user_dir() / f"{name}.h5").exists():
                rows.append({"game": name, "status": "card only", "path": None,
                             "card": _card_row(card)})
    for row in rows:
        if row["status"] not in ("missing", "card only") and \
                (card := card_beside(Path(row["path"]))).is_file():
            row["card"] = _card_row(card)
    return rows


def _card_row(path: Path) -> dict:
    """A card file as ``farkle tables`` lists it: its path and loss
    (points of a win given up, 0 to 1); a file that cannot be read is
    listed with ``loss`` None (``farkle card`` says what is wrong with it)."""
    try:
        loss = float(json.loads(path.read_text())["loss"])
    except (ValueError, KeyError, TypeError):
        loss = None
    return {"path": str(path), "loss": loss}


def _present(game: str, path: Path) -> dict:
    """A table file's row: ``present`` (its size, rules, first player's
    chance), ``outdated`` (the command that makes it again) or ``damaged``
    (``error``: what is wrong, one line). :func:`read_info` checks the
    whole file (solver.tables.files, "Damaged files"), so a table that
    cannot answer is never listed as present; a file that is no regular
    file (a FIFO, a directory) is damaged without being read."""
    row = {"game": game, "status": "present", "path": str(path), "bytes": 0,
           "where": "user" if path.parent.resolve() == user_dir().resolve() else "package"}
    try:
        row["bytes"] = path.stat().st_size
        info = read_info(path)
        row.update(rules=info["rules"], first_player_win=info["first_player_win"])
        if info["outdated"]:
            rules = Rules.from_json(json.dumps(info["rules"]))
            row.update(status="outdated", command=solve_command(rules, info.get("memory")))
    except (UsageError, OSError):
        # English in the row (farkle tables --json), shown in the reader's
        # language.
        row.update(status="damaged", error=said(_damage, path))
    return row


def _damage(path: Path) -> str | None:
    """What is wrong with the table file at ``path``, one line."""
    try:
        path.stat()
        read_info(path)
    except UsageError as error:
        return str(error)
    except OSError as error:               # a link to nowhere, a file we may not read
        return _("table {path} cannot be read ({reason})").format(
            path=path, reason=error.strerror)
    return None


def remove_table(name: str) -> Path:
    """Delete the user's table of game ``name`` (its default table) or the
    file ``name`` / ``name.h5`` in the user's directory (a card fitted here
    is removed by its file name, ``NAME.card.json``; removing a table keeps
    its card). Committed tables belong to the package and are not
    removed."""
    if name in ("", ".", "..") or Path(name).name != name:
        # A path would reach outside the user's directory (../.., /abs).
        raise UsageError(_("--remove takes a table's game or file name in {folder}, not a "
                           "path: {name}").format(folder=user_dir(), name=repr(name)))
    named = name.endswith(".h5") or name.endswith(CARD_SUFFIX)
    candidates = [user_dir() / (name if named else f"{name}.h5")]
    if name in GAMES:
        candidates.insert(0, user_table_path(GAMES[name]))
    for path in candidates:
        if path.is_file():
            path.unlink()
            return path
    if name in GAMES and (package_dir() / table_name(GAMES[name])).exists():
        raise UsageError(_("the table of {game} comes with the program ({folder}); there is "
                           "none of yours to remove").format(game=name, folder=package_dir()))
    raise UsageError(_("no table {name} in {folder} (farkle tables lists them)").format(
        name=repr(name), folder=user_dir()))

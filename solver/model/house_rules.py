"""House rules: a game of :class:`solver.model.rules.Rules` read from a TOML file.

``farkle solve --rules house.toml`` (and every other command that takes a
game) plays the game that the file defines. The file's keys are the fields
of ``farkle variants --json``, so a game listed there can be copied and
changed; one more key, ``base``, starts from a named game and changes only
the fields the file gives::

    base = "cinq-mille"          # start from this game (farkle variants)
    name = "house"               # default: the file's stem
    summary = "cinq-mille to exactly 1,500, opening 500"
    target = 1500
    exact_target = true
    entry = 500

Every field, its TOML type and what it means (docs/rules.md for the games):

    name, summary      strings: the name names the table file (tables/NAME-TARGET.h5),
                       so it is letters, digits, '-', '_' and '.', at most 64,
                       not starting with '.'; the summary is one line
    dice, unit         integers: dice in hand at a fresh roll (1 to 6); every
                       score is a multiple of the unit (50; Pig 1), at most 1,000,000
    target, entry      integers, in points; the entry is below the target, the
                       target at most 1,000,000 (and then the table must fit in
                       memory: farkle solve says so before it starts)
    exact_target       boolean: the target must be hit exactly
    hot_dice_forced    boolean: with every die set aside the player must roll
    keep_rule          "any" (any legal keep) or "all" (every scoring die)
    scoring            6 lists, faces 1..6; item c-1 is the points of c dice of
                       that face from one roll, 0 where c of them is no keep
    straights          list of [faces, points], e.g. [[1, 2, 3, 4, 5], 500]
    combinations       list of [shape, points]: dice whose face counts, largest
                       first, are the shape, kept whole and alone, e.g.
                       [[2, 2, 2], 750] three pairs, [[3, 3], 2500] two triplets
    min_bank           integer: every bank needs at least this turn total (0: none)
    no_score_bonus     integer: a roll of every die with no scoring die is kept
                       whole for these points (Zilch: 500, a free roll; 0: none)
    instant_wins       list of [face, count]: keeping these wins at once
    crosses            integer: zero turns in a row that fall back a bank (0: none,
                       at most 10)
    fall_penalty       integer: a fall takes these points off instead (Farkle's
                       penalty for three zero turns in a row; 0: none); scores
                       may then go below 0, down to
    floor              integer, 0 or below: the lowest score a penalty leaves
    takeover_min       integer score from which a player may take over, or
                       false for no take-over (TOML has no null)
    last_turn_points   integer: the last points must come in one turn (0: no)
    final_round        true/false: reaching the target gives every other player one
                       last turn to pass the score (two players)

Without ``base`` every field that has no default in :class:`Rules` must be
given (``dice``, ``unit``, ``target``, ``exact_target``, ``entry``,
``scoring``); ``name`` and ``summary`` may always be left out. Every problem
is a :class:`UsageError` of one line that names the key at fault, which the
CLI prints with exit status 2. Every number in points is at most
1,000,000,000 (:data:`MAX_POINTS`), so that sums of them stay exact in the
solver's 64-bit integers.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import unicodedata
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:         # Python 3.10: the same parser as a package
    import tomli as tomllib

from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.model.rules import GAMES, KEEP_RULES, WITH, Rules
from solver.text import N_, _, ngettext, number

FACES = 6
MAX_DICE = 6
"""The French games use 5 or 6 dice; more would only make the solve slow."""
MAX_TARGET = 1_000_000
"""The largest target (and unit) in points: the built-in games play to
15,000 at most; far larger targets have tables no machine holds."""
MAX_POINTS = 1_000_000_000
"""The largest number of points anywhere in a file (scoring, straights...)."""
MAX_CROSSES = 10
"""dix-mille has 3; every cross multiplies the player states."""
MAX_NAME = 64
"""A name's length: it names the table files (NAME-TARGET-Nplayers.h5)."""

RULE_FIELDS = {field.name: field for field in dataclasses.fields(Rules)}
BASE_KEY = "base"
OPTIONAL_TEXT = ("name", "summary")
REQUIRED_WITHOUT_BASE = tuple(
    name for name, field in RULE_FIELDS.items()
    if field.default is dataclasses.MISSING and name not in OPTIONAL_TEXT)


def load_house_rules(path) -> Rules:
    """The game defined by the TOML file at ``path`` (module docstring)."""
    path = Path(path)
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except FileNotFoundError:
        raise UsageError(_("no house-rules file at {path}").format(path=path)) from None
    except IsADirectoryError:
        raise UsageError(_("{path} is a directory, not a house-rules file").format(
            path=path)) from None
    except OSError as error:
        raise UsageError(_("cannot read {path}: {reason}").format(
            path=path, reason=error.strerror)) from None
    except UnicodeDecodeError:
        raise UsageError(_("{path} is not UTF-8 text (TOML files are)").format(
            path=path)) from None
    except tomllib.TOMLDecodeError as error:
        # tomllib's message ends with "(at line L, column C)": English, as
        # the parser writes it.
        raise UsageError(_("{path} is not valid TOML: {error}").format(
            path=path, error=error)) from None
    try:
        return rules_from_mapping(data, default_name=path.stem)
    except UsageError as error:
        raise UsageError(_("{path}: {error}").format(path=path, error=error)) from None


def rules_from_mapping(data: dict, default_name: str) -> Rules:
    """The game of a parsed house-rules file: ``base`` (if any) with the
    file's fields in place of its own."""
    for key in data:
        if key != BASE_KEY and key not in RULE_FIELDS:
            close = difflib.get_close_matches(key, [*RULE_FIELDS, BASE_KEY], n=1)
            raise UsageError((_("unknown key {key} (did you mean {close}?); the keys are base "
                                "and the fields of `farkle variants --json`") if close else
                              _("unknown key {key}; the keys are base and the fields of "
                                "`farkle variants --json`")).format(
                key=repr(key), close=repr(close[0]) if close else ""))
    if BASE_KEY in data:
        base = data[BASE_KEY]
        if not isinstance(base, str):
            raise UsageError(_("base must be the name of a game (a string), not {given}").format(
                given=_show(base)))
        if base not in GAMES:
            raise UsageError(_("base: unknown game {name}; known games: {games}").format(
                name=repr(base), games=", ".join(GAMES)))
        fields = dataclasses.asdict(GAMES[base])
    else:
        missing = [name for name in REQUIRED_WITHOUT_BASE if name not in data]
        if missing:
            raise UsageError(_("missing key {key}: without base, the file gives {keys}").format(
                key=repr(missing[0]), keys=", ".join(REQUIRED_WITHOUT_BASE)))
        fields = {name: field.default for name, field in RULE_FIELDS.items()
                  if field.default is not dataclasses.MISSING}
        fields["summary"] = ""
    # The name is the file's stem unless the file gives one, also over a
    # base's name: a changed game must not take its base's table.
    if "name" not in data:
        try:
            fields["name"] = _read_name("name", default_name)
        except UsageError:
            raise UsageError(_("the file's name {name} cannot name the table: give a key "
                               "name = \"...\" of letters, digits, '-', '_' and '.' (at most "
                               "{most})").format(name=f"{default_name!r:.80}",
                                                 most=MAX_NAME)) from None
    changes = {key: READERS[key](key, value) for key, value in data.items() if key != BASE_KEY}
    if BASE_KEY in data and "summary" not in changes:
        fields["summary"] = _summary_of_changes(data[BASE_KEY], {
            key: data[key] for key in changes})
    fields.update(changes)
    rules = Rules(**{name: _frozen(name, value) for name, value in fields.items()})
    _check_consistent(rules)
    rules.validate()
    return rules


# ------------------------------------------------------------ one key each

def _show(value) -> str:
    """A value as the user wrote it in TOML, for a message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)    # quoted, control characters escaped
    return repr(value)


def _summary_of_changes(base: str, changes: dict) -> str:
    """``cinq-mille with target 1500, entry 500``: what a file based on a
    game changes (list-valued keys by name only, they are long). The
    summary is stored with the rules (in English: tables keep it);
    :func:`shown_summary` shows it."""
    shown = [key if isinstance(value, list) else f"{key} {_show(value)}"
             for key, value in changes.items() if key not in OPTIONAL_TEXT]
    return f"{base}{WITH}{', '.join(shown)}" if shown else base


def _dice(count: int) -> str:
    return ngettext("{count} die", "{count} dice", count).format(count=count)


INTEGER = N_("an integer")
POINTS = N_("a whole number of points")


def _integer(key: str, value, what: str = INTEGER) -> int:
    # bool is a subclass of int in Python: `target = true` is not a number.
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(_("{key} must be {what}, not {given}").format(
            key=key, what=_(what), given=_show(value)))
    return value


def _non_negative(key: str, value, high: int = MAX_POINTS) -> int:
    value = _integer(key, value, POINTS)
    if value < 0:
        raise UsageError(_("{key} must be 0 or more, not {given}").format(
            key=key, given=figure(value)))
    if value > high:
        raise UsageError(_("{key} must be at most {most}, not {given}").format(
            key=key, most=number(high), given=number(value)))
    return value


def _read_target(key, value) -> int:
    return _non_negative(key, value, MAX_TARGET)


def _read_floor(key, value) -> int:
    """0 or below, no lower than minus the largest target."""
    value = _integer(key, value, POINTS)
    if not -MAX_TARGET <= value <= 0:
        raise UsageError(_("{key} must be 0 or below (at least {least}), not {given}").format(
            key=key, least=number(-MAX_TARGET), given=number(value)))
    return value


def _read_text(key, value) -> str:
    if not isinstance(value, str):
        raise UsageError(_("{key} must be a string, not {given}").format(
            key=key, given=_show(value)))
    if any(unicodedata.category(c) == "Cc" for c in value):
        raise UsageError(_("{key} must be one line of text, without control characters "
                           "(not {given})").format(key=key, given=f"{value!r:.60}"))
    return value


def _read_name(key, value) -> str:
    # The name becomes a file name in the tables directory, on every system.
    name = _read_text(key, value)
    if (not name or len(name) > MAX_NAME or name.startswith(".")
            or not all(c.isalnum() or c in "-_." for c in name)):
        raise UsageError(_("{key} must be letters, digits, '-', '_' and '.' (at most "
                           "{most}, not starting with '.'): it names the table file; "
                           "not {given}").format(key=key, most=MAX_NAME,
                                                 given=f"{name!r:.80}"))
    return name


def _read_bool(key, value) -> bool:
    if not isinstance(value, bool):
        raise UsageError(_("{key} must be true or false, not {given}").format(
            key=key, given=_show(value)))
    return value


def _integer_from(low: int, high: int | None = None):
    """A reader of integers from ``low`` (up to ``high``)."""
    def read(key, value) -> int:
        value = _integer(key, value)
        if value < low or (high is not None and value > high):
            raise UsageError((_("{key} must be {low} to {high}, not {given}")
                              if high is not None else
                              _("{key} must be {low} or more, not {given}")).format(
                key=key, low=figure(low), high=figure(high) if high is not None else "",
                given=figure(value)))
        return value
    return read


_read_dice = _integer_from(1, MAX_DICE)
_read_unit = _integer_from(1, MAX_TARGET)
_read_crosses = _integer_from(0, MAX_CROSSES)


def _read_keep_rule(key, value) -> str:
    if value not in KEEP_RULES:
        raise UsageError(_("{key} must be one of {rules}, not {given}").format(
            key=key, rules=", ".join(map(_show, KEEP_RULES)), given=_show(value)))
    return value


def _read_takeover_min(key, value) -> int | None:
    # TOML has no null: false stands for Rules' None (no take-over).
    if value is False:
        return None
    if value is True:
        raise UsageError(_("{key} must be a score or false (no take-over), not true").format(
            key=key))
    return _non_negative(key, value)


def _list(key: str, value, what: str) -> list:
    """``value`` if a list, else a UsageError that it must be ``what`` (a
    message, translated here)."""
    if not isinstance(value, list):
        raise UsageError(_("{key} must be {what}, not {given}").format(
            key=key, what=_(what).format(faces=FACES), given=_show(value)))
    return value


def _read_scoring(key, value) -> list[list[int]]:
    rows = _list(key, value, N_("a list of {faces} lists (faces 1 to {faces})"))
    if len(rows) != FACES:
        raise UsageError(_("{key} must list {faces} faces (1 to {faces}), not {given}").format(
            key=key, faces=FACES, given=len(rows)))
    table = []
    for face, row in enumerate(rows, start=1):
        where = _("{key} of face {face}").format(key=key, face=face)
        row = _list(where, row, N_("a list of points for 1, 2, ... dice of that face"))
        table.append([_non_negative(f"{where}, {_dice(count)}", points)
                      for count, points in enumerate(row, start=1)])
    return table


STRAIGHT = {
    "list": N_("a list of [faces, points]"),
    "item": N_("{key}: each straight is [faces, points], e.g. [[1, 2, 3, 4, 5], 500], "
               "not {given}"),
    "numbers": N_("{key} faces"),
    "rule": N_("{key}: the faces of a straight are distinct faces 1 to {faces}, not {given}"),
    "worth": N_("{key}: the straight {given} must be worth some points"),
}
COMBINATION = {
    "list": N_("a list of [shape, points]"),
    "item": N_("{key}: each combination is [shape, points], e.g. [[2, 2, 2], 750] for three "
               "pairs, not {given}"),
    "numbers": N_("{key} shape"),
    "rule": N_("{key}: a shape is the counts of distinct faces, largest first, each 1 or "
               "more, e.g. [4, 2], not {given}"),
    "worth": N_("{key}: the combination {given} must be worth some points"),
}


def _dice_with_points(key, value, says: dict, valid):
    """A list of ``[list of integers, points]`` (straights, combinations):
    each list checked by ``valid``, each worth some points; ``says``: the
    messages of each problem (:data:`STRAIGHT`, :data:`COMBINATION`)."""
    out = []
    for item in _list(key, value, says["list"]):
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], list):
            raise UsageError(_(says["item"]).format(key=key, given=_show(item)))
        numbers = [_integer(_(says["numbers"]).format(key=key), n) for n in item[0]]
        if not numbers or not valid(numbers):
            raise UsageError(_(says["rule"]).format(key=key, faces=FACES, given=numbers))
        points = _non_negative(_("{key} points").format(key=key), item[1])
        if points == 0:
            raise UsageError(_(says["worth"]).format(key=key, given=numbers))
        out.append([numbers, points])
    return out


def _read_straights(key, value) -> list:
    return _dice_with_points(
        key, value, STRAIGHT,
        lambda faces: all(1 <= f <= FACES for f in faces) and len(set(faces)) == len(faces))


def _read_combinations(key, value) -> list:
    return _dice_with_points(
        key, value, COMBINATION,
        lambda shape: (all(part >= 1 for part in shape) and len(shape) <= FACES
                       and shape == sorted(shape, reverse=True)))


def _read_instant_wins(key, value) -> list:
    wins = []
    for item in _list(key, value, N_("a list of [face, count]")):
        if not isinstance(item, list) or len(item) != 2:
            raise UsageError(_("{key}: each instant win is [face, count], e.g. [1, 5], "
                               "not {given}").format(key=key, given=_show(item)))
        face, count = (_integer(key, x) for x in item)
        if not 1 <= face <= FACES or count < 1:
            raise UsageError(_("{key}: [face, count] needs a face 1 to {faces} and a count "
                               "of 1 or more, not {given}").format(key=key, faces=FACES,
                                                                   given=item))
        wins.append([face, count])
    return wins


READERS = {
    "name": _read_name, "summary": _read_text, "dice": _read_dice, "unit": _read_unit,
    "target": _read_target, "exact_target": _read_bool, "entry": _non_negative,
    "scoring": _read_scoring, "straights": _read_straights,
    "combinations": _read_combinations, "min_bank": _non_negative,
    "no_score_bonus": _non_negative,
    "instant_wins": _read_instant_wins, "hot_dice_forced": _read_bool,
    "crosses": _read_crosses, "fall_penalty": _non_negative, "floor": _read_floor,
    "takeover_min": _read_takeover_min,
    "last_turn_points": _non_negative, "keep_rule": _read_keep_rule,
    "final_round": _read_bool,
}
assert set(READERS) == set(RULE_FIELDS), "every field of Rules needs a reader"


def _frozen(name: str, value):
    """The hashable form that :class:`Rules` holds (tuples, as the named
    games are written), so that a copied game compares equal to its model."""
    if name == "scoring":
        return tuple(tuple(row) for row in value)
    if name in ("straights", "combinations"):
        return tuple((tuple(faces), points) for faces, points in value)
    if name == "instant_wins":
        return tuple(tuple(item) for item in value)
    return value


# -------------------------------------------------------- across the keys

def _check_consistent(rules: Rules) -> None:
    """What no single key shows: sizes against ``dice``, points against
    ``unit`` and ``target``, and a house game under a built-in name."""
    unit, dice = rules.unit, rules.dice
    for key in ("target", "entry", "last_turn_points", "min_bank"):
        value = getattr(rules, key)
        if value % unit:
            raise UsageError(_("{key} {value} is not a multiple of the unit ({unit})").format(
                key=key, value=figure(value), unit=figure(unit)))
    if rules.takeover_min is not None and rules.takeover_min % unit:
        raise UsageError(_("{key} {value} is not a multiple of the unit ({unit})").format(
            key="takeover_min", value=figure(rules.takeover_min), unit=figure(unit)))
    if rules.target <= 0:
        raise UsageError(_("target must be above 0, not {given}").format(
            given=figure(rules.target)))
    if rules.entry >= rules.target:
        raise UsageError(_("entry {entry} must be below the target ({target})").format(
            entry=figure(rules.entry), target=figure(rules.target)))
    for face, row in enumerate(rules.scoring, start=1):
        if len(row) > dice:
            raise UsageError(_("scoring of face {face} lists {counts} counts; a game of "
                               "{dice} dice has at most {dice}").format(
                face=face, counts=len(row), dice=dice))
        for count, points in enumerate(row, start=1):
            if points % unit:
                raise UsageError(_("scoring of face {face}, {dice}: {points} is not a "
                                   "multiple of the unit ({unit})").format(
                    face=face, dice=_dice(count), points=figure(points), unit=figure(unit)))
    if not any(points > 0 for row in rules.scoring for points in row):
        raise UsageError(_("scoring is empty: no face scores anything, so every roll "
                           "would be a zero roll"))
    for faces, points in rules.straights:
        if len(faces) > dice:
            raise UsageError(_("straights: {faces} needs {count} dice; the game has "
                               "{dice}").format(faces=list(faces), count=len(faces), dice=dice))
        if points % unit:
            raise UsageError(_("straights: {points} points is not a multiple of the unit "
                               "({unit})").format(points=figure(points), unit=figure(unit)))
    for shape, points in rules.combinations:
        if sum(shape) > dice:
            raise UsageError(_("combinations: {shape} needs {count} dice; the game has "
                               "{dice}").format(shape=list(shape), count=sum(shape), dice=dice))
        if points % unit:
            raise UsageError(_("combinations: {points} points is not a multiple of the unit "
                               "({unit})").format(points=figure(points), unit=figure(unit)))
    if rules.min_bank >= rules.target:
        raise UsageError(_("min_bank {points} must be below the target ({target})").format(
            points=figure(rules.min_bank), target=figure(rules.target)))
    for face, count in rules.instant_wins:
        if count > dice:
            raise UsageError(_("instant_wins: {count} dice of face {face} cannot come from "
                               "one roll of {dice} dice").format(count=count, face=face,
                                                                 dice=dice))
    if rules.last_turn_points and rules.crosses:
        raise UsageError(_("last_turn_points and crosses together are not modelled; "
                           "set one of them to 0"))
    # A house game under a built-in name would share (and overwrite) that
    # game's table; an exact copy, possibly to another target, may share it.
    builtin = GAMES.get(rules.name)
    copy = builtin and dataclasses.replace(builtin, target=rules.target)
    if builtin is not None and copy != rules:
        changed = copy.first_difference(rules)
        raise UsageError(_("name {name} is a built-in game and these rules differ from it "
                           "(its {changed}); give the file a name of its own").format(
            name=repr(rules.name), changed=changed))

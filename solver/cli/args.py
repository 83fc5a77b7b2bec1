"""What every ``farkle`` command reads from its line and how it writes JSON:
the game (a name or a house-rules file, at ``--target``), the printer of
``--json`` output, an error message made one line, and the numbers and
words of the text output as each language writes them (solver.text).
"""

from __future__ import annotations

import json
import unicodedata
from fractions import Fraction

from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.text import N_, NARROW_NBSP, _, language, number


def rules_of(args):
    """The game of the command line: GAME, or ``--rules FILE`` (house rules),
    either one played to ``--target`` when given."""
    from solver.model.house_rules import MAX_TARGET, load_house_rules
    from solver.model.rules import get_rules
    if args.rules is not None and args.game is not None \
            and getattr(args, "dice_after_game", False):
        try:
            args.dice.insert(0, int(args.game))
            args.game = None
        except ValueError:
            pass                            # a game's name: refused just below
    if (args.game is None) == (args.rules is None):
        raise UsageError(_("give a game or --rules FILE, not both") if args.game is not None
                         else _("give a game (farkle variants lists them) or --rules FILE"))
    if args.target is not None and args.target > MAX_TARGET:
        raise UsageError(_("--target must be at most {most} points, not {given}").format(
            most=number(MAX_TARGET), given=number(args.target)))
    if args.game is not None:
        return get_rules(args.game, args.target)
    rules = load_house_rules(args.rules)
    return rules if args.target is None else rules.with_target(args.target)


def one_line(message: str) -> str:
    """An error message as one line: a control character that a path or a
    name brought in (a newline...) is shown escaped, as Python writes it."""
    return "".join(repr(c)[1:-1] if unicodedata.category(c) == "Cc" else c
                   for c in message)


def print_json(data) -> None:
    print(json.dumps(data, indent=2, default=_json_default))


def _json_default(value):
    if isinstance(value, Fraction):
        return float(value)
    raise TypeError(type(value))


# ------------------------------------------------- numbers and words shown
# English keeps its output as it always was: some integers were written
# without grouping (a target in a sentence: "to 5000"), some decimals too
# (seconds, megabytes). French groups every integer (5 000, as CLDR writes
# French) and writes a decimal comma.

# An integer English writes ungrouped: ``5000`` / ``5 000`` (the library's
# rule, written once in solver.model.messages).
whole = figure


def decimal(value: float, digits: int) -> str:
    """A decimal, never grouped: ``1234.5`` / ``1234,5``."""
    return number(value, digits).replace("," if language() == "en" else NARROW_NBSP, "")


def signed(value: float, digits: int) -> str:
    """A decimal with its sign: ``+1.2`` / ``+1,2``."""
    text = decimal(value, digits)
    return text if text.startswith("-") else "+" + text


def scientific(value: float, digits: int) -> str:
    """``value`` in scientific notation: ``6.7e-16`` / ``6,7e-16``."""
    text = f"{value:.{digits}e}"
    return text if language() == "en" else text.replace(".", ",")


def listed(pairs) -> str:
    """``1: 0.36, 2: 0.33`` / ``1 : 0,36 ; 2 : 0,33``: (key, value) pairs
    already written, as one list."""
    return _(", ").join(_("{key}: {value}").format(key=key, value=value) for key, value in pairs)


def by_dice(pairs) -> str:
    """``5: 2,150 | 4: 800``: a value for each number of dice."""
    return " | ".join(_("{key}: {value}").format(key=key, value=value) for key, value in pairs)


ACTIONS = {"bank": N_("bank"), "roll": N_("roll"), "take": N_("take"), "fresh": N_("fresh"),
           "zero": N_("zero")}
"""A decision's name as the JSON writes it (``advise --card``'s, the
referee's), in words: the same words in English."""


def action_word(action: str) -> str:
    return _(ACTIONS[action]) if action in ACTIONS else action

"""What every ``farkle`` command reads from its line and how it writes JSON:
the game (a name or a house-rules file, at ``--target``), the printer of
``--json`` output, and an error message made one line.
"""

from __future__ import annotations

import json
import unicodedata
from fractions import Fraction

from solver.model.errors import UsageError


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
        raise UsageError("give a game or --rules FILE, not both" if args.game is not None
                         else "give a game (farkle variants lists them) or --rules FILE")
    if args.target is not None and args.target > MAX_TARGET:
        raise UsageError(f"--target must be at most {MAX_TARGET:,} points, not {args.target:,}")
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

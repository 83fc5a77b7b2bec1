"""What every ``farkle`` command reads from its line and how it writes JSON:
the game (a name or a house-rules file, at ``--target``), and the printer of
``--json`` output.
"""

from __future__ import annotations

import json
from fractions import Fraction

from solver.model.errors import UsageError


def rules_of(args):
    """The game of the command line: GAME, or ``--rules FILE`` (house rules),
    either one played to ``--target`` when given."""
    from solver.model.house_rules import load_house_rules
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
    if args.game is not None:
        return get_rules(args.game, args.target)
    rules = load_house_rules(args.rules)
    return rules if args.target is None else rules.with_target(args.target)


def print_json(data) -> None:
    print(json.dumps(data, indent=2, default=_json_default))


def _json_default(value):
    if isinstance(value, Fraction):
        return float(value)
    raise TypeError(type(value))

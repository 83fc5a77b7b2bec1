"""Advice in a final round's last turn: the other player has banked at or
past the target, and this turn must pass their score (an equal score
shares the win).

The chances are :class:`solver.model.last_turn.LastTurn`'s, at turn total
``t`` (units) with ``n`` dice in hand:

    roll          LastTurn.roll(t, n)
    bank          1/2 where the bank equals the score (and the rules allow
                  it), 0 short of it; a total that passes ends the turn
    keep          1 for an instant win or a total that passes, else the
                  best of banking and rolling at the total it leaves

Before the target, and past it for the player who reached it, the table
answers (:class:`solver.advice.advisor.Advisor`).
"""

from __future__ import annotations

from solver.model.dice import counts_of, keeps
from solver.model.errors import UsageError
from solver.model.last_turn import LastTurn, past_target_units
from solver.model.states import check_roll, check_turn
from solver.model.turn_rules import TurnRules, dice_left, may_bank

SHARED = 0.5
"""An equal score at the end: the win shared between two players."""


def is_last_turn(rules, opp) -> bool:
    """Whether a position with the opponent at ``opp`` is a final round's
    last turn (two players: a score at or past the target). With three or
    more players (``opp`` a list) a last turn is refused in one line: the
    table holds the last turns' chances only as a bank's worth."""
    if not rules.final_round:
        return False
    if isinstance(opp, (list, tuple)):
        if any(int(getattr(o, "score", o)) >= rules.target for o in opp):
            raise UsageError(f"{rules.name}: advice in the last turns of a final round is "
                             f"for two players (for now)")
        return False
    return int(getattr(opp, "score", opp)) >= rules.target


def position(rules, me, opp, turn, dice, **more) -> dict:
    return {"game": rules.name, "target": rules.target, "players": 2, "me": me, "opp": opp,
            "turn": turn, "dice": dice, "last_turn": True, **more}


def last_turn(rules, me: int, opp: int, turn: int, dice: int) -> LastTurn:
    """The last turn of a player at ``me`` against ``opp`` (points), or a
    UsageError saying why the position cannot be."""
    check_turn(rules, turn, dice)
    if me >= rules.target:
        raise UsageError(f"in the last turn my score {me} must be below the target "
                         f"{rules.target} (only the other player has reached it)")
    most = rules.target + past_target_units(rules) * rules.unit
    if opp > most:
        raise UsageError(f"the other player's {opp} is past {most}, farther than a final "
                         f"round's table holds")
    turn_ = LastTurn(rules, me // rules.unit, opp // rules.unit)
    if turn_.passed(turn // rules.unit) and turn:
        raise UsageError(f"turn total {turn} passes {opp}: the turn is already over")
    return turn_


def _may_stop(rules, me: int, t: int, n: int, turn: LastTurn) -> bool:
    return turn.equals(t) and bool(may_bank(TurnRules.of(rules), me // rules.unit, t, n))


def bank_or_roll(rules, me: int, opp: int, turn: int, dice: int):
    """``[(action, win)]``, best first (a bank before a roll within 1e-12)."""
    turn_ = last_turn(rules, me, opp, turn, dice)
    t = turn // rules.unit
    choices = [("roll", turn_.roll(t, dice)),
               ("bank", SHARED if _may_stop(rules, me, t, dice, turn_) else 0.0)]
    return sorted(choices, key=lambda c: (-round(c[1], 12), c[0] != "bank"))


def keep(rules, me: int, opp: int, turn: int, dice: int, roll):
    """``[(keep dice, points, win, then)]``, best first (``then``: ``win``,
    ``bank`` (a shared win) or ``roll``); empty for a zero roll."""
    turn_ = last_turn(rules, me, opp, turn, dice)
    check_roll(roll, dice)
    turn_rules = TurnRules.of(rules)
    out = []
    for option in keeps(rules, counts_of(list(roll))):
        t2 = turn // rules.unit + option.points // rules.unit
        n2 = dice_left(turn_rules, dice, option.used)
        if option.win or turn_.passed(t2):
            out.append((list(option.dice), option.points, 1.0, "win"))
            continue
        rolled = turn_.roll(t2, n2)
        stop = _may_stop(rules, me, t2, n2, turn_) and SHARED >= rolled - 1e-12
        out.append((list(option.dice), option.points, SHARED if stop else rolled,
                    "bank" if stop else "roll"))
    # docs/rules.md's tie-break: the most points, then the most dice.
    out.sort(key=lambda o: (-round(o[2], 12), -o[1], -len(o[0])))
    return out

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

With three players or more (``opp`` a list, in seat order after me) the
chances are the vectors of :func:`solver.engine.final_round_n.seat_last_turn`
(every player's, me first). The banker is the first opponent after me at
or past the target: the players after me and before them are still to play
their last turns (all below the target), the players after the banker and
before me have played theirs; the mark is the highest score among the
banker and those, shared by all who hold it.

Before the target, and past it for the player who reached it, the table
answers (:class:`solver.advice.advisor.Advisor`).
"""

from __future__ import annotations

from typing import NamedTuple

from solver.engine.final_round_n import SeatTurn, seat_last_turn
from solver.engine.turn_kernel_n import EPS
from solver.model.dice import counts_of, keeps
from solver.model.errors import UsageError
from solver.model.last_turn import LastTurn, past_target_units
from solver.model.messages import figure
from solver.model.states import check_roll, check_turn
from solver.model.turn_rules import TurnRules, dice_left, may_bank
from solver.text import _

SHARED = 0.5
"""An equal score at the end: the win shared between two players."""


def is_last_turn(rules, opp) -> bool:
    """Whether a position with the opponents at ``opp`` (a score, or a
    list in seat order after me) is a final round's last turn: an opponent
    at or past the target."""
    opps = opp if isinstance(opp, (list, tuple)) else [opp]
    return rules.final_round and any(int(getattr(o, "score", o)) >= rules.target for o in opps)


def position(rules, me, opp, turn, dice, **more) -> dict:
    players = len(opp) + 1 if isinstance(opp, (list, tuple)) else 2
    return {"game": rules.name, "target": rules.target, "players": players, "me": me,
            "opp": opp, "turn": turn, "dice": dice, "last_turn": True, **more}


def last_turn(rules, me: int, opp: int, turn: int, dice: int) -> LastTurn:
    """The last turn of a player at ``me`` against ``opp`` (points), or a
    UsageError saying why the position cannot be."""
    check_turn(rules, turn, dice)
    if me >= rules.target:
        raise UsageError(_("in the last turn my score {me} must be below the target {target} "
                           "(only the other player has reached it)").format(
            me=figure(me), target=figure(rules.target)))
    most = rules.target + past_target_units(rules) * rules.unit
    if opp > most:
        raise UsageError(_("the other player's {opp} is past {most}, farther than a final "
                           "round's table holds").format(opp=figure(opp), most=figure(most)))
    turn_ = LastTurn(rules, me // rules.unit, opp // rules.unit)
    if turn_.passed(turn // rules.unit) and turn:
        raise UsageError(_("turn total {turn} passes {opp}: the turn is already over").format(
            turn=figure(turn), opp=figure(opp)))
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


# ------------------------------------------------------ three players or more

class SeatInRound(NamedTuple):
    """My last turn among N players (module docstring): the seats' DP and
    where I and the others sit in it (seats counted from the banker)."""
    turn: SeatTurn
    score: int
    """My score, units."""
    order: list[int]
    """The seats of me and the opponents, in the order the advice gives
    chances: me first, then the opponents in seat order after me."""


def seat_in_round(rules, me: int, opps: list[int], turn: int, dice: int) -> SeatInRound:
    """My last turn at ``me`` with the opponents at ``opps`` (points, in seat
    order after me), or a UsageError saying why the position cannot be."""
    check_turn(rules, turn, dice)
    unit, target = rules.unit, rules.target
    if me >= target:
        raise UsageError(_("in the last turn my score {me} must be below the target {target} "
                           "(another player has reached it)").format(
            me=figure(me), target=figure(target)))
    banker = next(i for i, o in enumerate(opps) if o >= target)
    if any(o >= target + past_target_units(rules) * unit * (banker + 1)
           for o in opps[banker:]):
        raise UsageError(_("a score past the target farther than a final round's table holds: "
                           "{scores}").format(scores=", ".join(figure(o) for o in opps)))
    N = len(opps) + 1
    # From the banker (seat 0): those who have played, me, those still to play.
    played = opps[banker:]
    seat = len(played)
    mark = max(played) // unit
    holders = sum(1 << k for k, o in enumerate(played) if o // unit == mark)
    later = tuple(o // unit for o in opps[:banker])
    last_turn_ = seat_last_turn(rules, N, seat, mark, holders, later)
    x = me // unit + turn // unit
    if turn and (x > last_turn_.top or last_turn_.last and x > mark):
        raise UsageError((_("turn total {turn} takes my score past {score}: the turn is already "
                            "over") if last_turn_.last else
                          _("turn total {turn} takes my score past {score}, farther than a final "
                            "round's table holds: bank")).format(
            turn=figure(turn), score=figure(max(played))))
    order = [seat] + [(seat + 1 + i) % N for i in range(N - 1)]
    return SeatInRound(last_turn_, me // unit, order)


def _mine(round_: SeatInRound, values) -> list[float]:
    return [float(values[k]) for k in round_.order]


def _may_bank_n(rules, round_: SeatInRound, t: int, n: int) -> bool:
    return (round_.score + t >= round_.turn.mark
            and bool(may_bank(TurnRules.of(rules), round_.score, t, n)))


def bank_or_roll_n(rules, me: int, opps: list[int], turn: int, dice: int):
    """``[(action, wins)]``, best first (a bank before a roll within
    1e-12), ``wins`` every player's chance, me first."""
    round_ = seat_in_round(rules, me, opps, turn, dice)
    t = turn // rules.unit
    x = round_.score + t
    choices = [("roll", _mine(round_, round_.turn.roll[x, dice]))]
    if _may_bank_n(rules, round_, t, dice):
        choices.append(("bank", _mine(round_, round_.turn.bank[x - round_.turn.mark])))
    return sorted(choices, key=lambda c: (-round(c[1][0], 12), c[0] != "bank"))


def keep_n(rules, me: int, opps: list[int], turn: int, dice: int, roll):
    """``([(keep dice, points, wins, then)], zero)``: the keeps, best first
    (``then``: ``win``, ``bank`` or ``roll``; none for a zero roll), and
    every player's chance after a zero roll."""
    round_ = seat_in_round(rules, me, opps, turn, dice)
    check_roll(roll, dice)
    turn_rules, seat_turn = TurnRules.of(rules), round_.turn
    out = []
    for option in keeps(rules, counts_of(list(roll))):
        t2 = turn // rules.unit + option.points // rules.unit
        n2 = dice_left(turn_rules, dice, option.used)
        x2 = round_.score + t2
        if option.win or seat_turn.last and x2 > seat_turn.mark:
            wins, then = seat_turn.value[0, 0], "win"
        elif x2 > seat_turn.top:                # the DP banks by decree there
            wins, then = seat_turn.bank[-1], "bank"
        else:
            wins = seat_turn.value[x2, n2]
            then = "bank" if _may_bank_n(rules, round_, t2, n2) and (
                seat_turn.bank[x2 - seat_turn.mark, seat_turn.seat]
                >= seat_turn.roll[x2, n2, seat_turn.seat] - EPS) else "roll"
        out.append((list(option.dice), option.points, _mine(round_, wins), then))
    # docs/rules.md's tie-break: the most points, then the most dice.
    out.sort(key=lambda o: (-round(o[2][0], 12), -o[1], -len(o[0])))
    return out, _mine(round_, seat_turn.zero)

"""The rules of a turn, written once.

Every part of the program that plays or evaluates a turn asks these
functions what a keep, a bank, a zero turn and a fall do: the solver's
compiled turn DP (:mod:`solver.engine.turn_kernel`), the numpy replay
(:mod:`solver.engine.turn`), the player-state spaces (:mod:`solver.model.states`), the
simulator's game loop, the ``expected`` policy, advice, the crosses model's
bank distribution and the paper's analysis. (``tests/reference_solver.py``
is the one deliberately independent copy.)

All quantities are in units (``points // unit``). ``r`` is a
:class:`TurnRules` record, ``s`` the mover's banked score, ``t`` the turn
total, ``n`` the dice in hand, ``D = r.dice``, ``T = r.target``:

    keep_result(r, s, t', win)  after a keep brings the turn total to t':
        WIN        an instant-win keep, or s + t' == T, or s + t' > T when
                   the target is "at least" (the bank is then legal: T is
                   above the entry); with a final round only the instant
                   win (the turn goes on past T: :mod:`solver.model.last_turn`)
        OVERSHOOT  s + t' > T with an exact target (a zero turn)
        CONTINUE   otherwise
    dice_left(r, n, used)      = n - used, or D when that is 0 (hot dice)
    may_bank_total(r, s, t)    = t > 0 and t >= min_bank and (s > 0 or t >= entry)
                                 and (s + t < T or the game has a final round)
    may_bank(r, s, t, n)       = may_bank_total and not (hot dice forced and n == D)
    banked_score(r, s, t)      = min(s + t, cap) (no cap: s + t)
    offer(r, n)                = n where a bank with 1 <= n <= D - 1 dice unset
                                 is offered to the next player, else 0
    may_take_over(r, s)        = take-over exists and s >= its minimum
    rows_past_target(r, k)     = k - 1 with a final round, else 0: the totals
                                 past the target at which a turn DP may still
                                 bank (``k`` the columns of ``Values.reach``;
                                 at the last one the DP banks by decree)
    bank_changes_nothing(r, s, t)    banked_score(r, s, t) == s (at the cap)
    offer_only_overshoots(r, s, t)   every keep from an offer of t overshoots
    add_cross(r, c)            = (c + 1, False), or (0, True) at the last cross
    after_bank(r, s, t)        = (banked_score, previous = s, crosses = 0)
    after_zero_turn(r, s, p, c) (score, previous, crosses) after a turn with
                                 no bank: a cross; at the last one the fall to
                                 (p, p, 0). A fallen line (p == s, or s == 0)
                                 has nothing to lose and is unchanged
                                 (docs/rules.md's one-level memory). With a
                                 penalty P the fall is to (max(s - P, floor),
                                 p, 0) instead; a line at the floor has
                                 nothing to lose.

The functions are plain Python on purpose: the compiled modules wrap them
with ``numba.njit`` (:data:`solver.engine.turn_kernel.rules_jit` and its users), and
the code that answers one question at the table calls them as they are,
without paying for numba's import. They take only numbers and the record,
so the same text runs both ways.
"""

from __future__ import annotations

from typing import NamedTuple

from solver.model.last_turn import past_target_units

CONTINUE, WIN, OVERSHOOT = 0, 1, 2


class TurnRules(NamedTuple):
    """The fields of a game that a turn reads, in units (a record that
    compiled kernels take as one argument)."""
    dice: int
    target: int
    exact: bool
    entry: int
    forced: bool
    """Hot dice must be rolled again."""
    cap: int
    """Largest score a bank short of the target leaves, or -1."""
    take_min: int
    """Smallest score that may take over an offer, or -1: no take-over."""
    crosses: int
    """Consecutive turns without a bank that make a fall; 0: none."""
    min_bank: int
    """Smallest turn total any bank needs (0: none)."""
    penalty: int
    """Points a fall takes off (0: a fall goes back to the previous score)."""
    floor: int
    """Lowest score a penalty leaves (0 or below)."""
    rows: int
    """Turn totals a turn DP holds: ``target - floor``, and with a final
    round the totals past the target that may still be banked
    (:func:`solver.model.last_turn.past_target_units`)."""
    final_round: bool
    """Reaching the target gives the other player one last turn."""

    @classmethod
    def of(cls, rules) -> "TurnRules":
        cap = rules.score_cap_units
        return cls(dice=rules.dice, target=rules.target_units, exact=rules.exact_target,
                   entry=rules.entry_units, forced=rules.hot_dice_forced,
                   cap=-1 if cap is None else cap,
                   take_min=rules.takeover_min_units if rules.has_takeover else -1,
                   crosses=rules.crosses, min_bank=rules.min_bank_units,
                   penalty=rules.fall_penalty_units, floor=rules.floor_units,
                   rows=rules.turn_rows_units + past_target_units(rules),
                   final_round=rules.final_round)


def keep_result(r, score, turn_total, instant_win):
    if instant_win:
        return WIN
    total = score + turn_total
    if r.final_round:
        return CONTINUE
    if total == r.target or (total > r.target and not r.exact):
        return WIN
    if total > r.target:
        return OVERSHOOT
    return CONTINUE


def dice_left(r, in_hand, used):
    left = in_hand - used
    return left if left > 0 else r.dice


# These two are written with & and | so that they also take numpy arrays
# of turn totals and dice (the numpy replay asks for a whole turn at once).
def may_bank_total(r, score, turn_total):
    return (turn_total > 0) & (turn_total >= r.min_bank) \
        & ((score > 0) | (turn_total >= r.entry)) \
        & ((score + turn_total < r.target) | r.final_round)


def may_bank(r, score, turn_total, in_hand):
    return may_bank_total(r, score, turn_total) & ((in_hand != r.dice) | (not r.forced))


def banked_score(r, score, turn_total):
    new = score + turn_total
    return new if r.cap < 0 else min(new, r.cap)


def offer(r, in_hand):
    return in_hand if r.take_min >= 0 and 1 <= in_hand < r.dice else 0


def rows_past_target(r, reach_columns):
    return reach_columns - 1 if r.final_round else 0


def bank_changes_nothing(r, score, turn_total):
    """A bank that leaves the score where it is (at the cap)."""
    return banked_score(r, score, turn_total) == score


def offer_only_overshoots(r, score, offer_total):
    """An offer from which even the smallest keep (one unit) overshoots:
    taking it leaves nothing but a zero turn."""
    return keep_result(r, score, offer_total + 1, False) == OVERSHOOT


def may_take_over(r, score):
    return r.take_min >= 0 and score >= r.take_min


def add_cross(r, crosses):
    if crosses + 1 >= r.crosses:
        return 0, True
    return crosses + 1, False


def after_bank(r, score, turn_total):
    return banked_score(r, score, turn_total), score, 0


def after_zero_turn(r, score, previous, crosses):
    if r.crosses == 0:
        return score, previous, crosses
    if r.penalty > 0:
        if score == r.floor:                    # nothing left to lose
            return score, previous, crosses
        crosses, falls = add_cross(r, crosses)
        if falls:
            return max(score - r.penalty, r.floor), previous, 0
        return score, previous, crosses
    if previous == score or score == 0:
        return score, previous, crosses
    crosses, falls = add_cross(r, crosses)
    if falls:
        return previous, previous, 0
    return score, previous, crosses

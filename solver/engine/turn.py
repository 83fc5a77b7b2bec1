"""The turn DP: one player's turn, given what every way of ending it is worth.

Fix the turn start: mover in player state ``m``, waiting player in ``w``.
Let ``T = target - score[m]`` (units), ``D`` the number of dice, and

    Z         = 1 - W[w, zero_next[m]]   value of a zero turn (zero roll, overshoot)
    B(t, n)   = 1 - O(w, bank_next[m, t], t, n)
                                         value of banking t with n dice unset,
    O(w, m', t, n) = max(W[w, m'], R_{w,m'}(t, n))   if w may take over (1 <= n < D)
                   = W[w, m']                         otherwise.

Inside the turn, with ``t`` the turn total and ``n`` the dice in hand:

    R(t, n) = sum_rolls P(roll) * max( Z if the roll has no keep,
                                       max_keeps K(t + points, n - used) )
    K(t', n') = 1                  an instant win
              = reach[w, t' - T]   t' reaching the target (t' = T if exact,
                                   t' >= T otherwise): 1, a win, unless the
                                   waiting player has a last turn
              = Z                  t' > T in an exact game (overshoot)
              = A(t', D)           n' = 0 (hot dice: every die back in hand)
              = A(t', n')          otherwise
    A(t, n)   = max(B(t, n), R(t, n))   when the bank is allowed (entry met;
                                         not hot dice in a forced game; the
                                         player state has a bank_next)
              = R(t, n)                 otherwise
    W[m, w]   = R(0, D)            a turn starts by rolling every die.

With a final round (``Rules.final_round``) reaching the target does not end
the turn: for ``T <= t < T + E`` (``E``: ``rows_past_target`` of
:mod:`solver.model.turn_rules`, :func:`solver.model.last_turn.past_target_units`)
the mover may bank, and

    B(t, n)   = reach[w, t - T]          the other player's last turn fails
                                         (:func:`solver.engine.solution.final_round_reach`)

``K(t') = reach[w, E]`` from ``T + E`` up (the DP banks there), and ``A``
as above for every ``t < T + E``.

Which case applies is said by :mod:`solver.model.turn_rules` (``keep_result``:
win, overshoot or go on; ``dice_left``: hot dice; ``may_bank``: entry and
forced hot dice; ``offer``: which offers the waiting player may take). The
keeps of a roll are the game's keep rule's (:func:`solver.model.dice.keeps`: any
legal keep, or the one that sets every scoring die aside).

``t`` only grows inside a turn (every keep scores), so one pass over ``t``
from ``T - 1`` down to 0 computes everything. A bank that leaves the player
where a zero turn would (a score capped at ``target - last_turn_points``) is
worth exactly ``Z``.

The compiled kernel (:mod:`solver.engine.turn_kernel`) also returns ``dW/dZ`` for
the two-player solver: under the policy it picks, every value is affine in
``Z``, with slope the probability that the turn ends in a zero turn.

Offered turn totals can exceed ``T`` (the banker had a lower score): roll
values are computed for ``t`` up to ``roll_rows - 1``; every keep from such
a total overshoots (exact target) or wins, so those rows are all equal.

Layout, so that a keep's value is one lookup ``A[t + points, col]`` with no
branch: column 0 of ``A`` is an instant win (1 everywhere) and a keep's
column is 0 for an instant win, ``D`` for hot dice, else ``n - used``
(:class:`solver.model.dice.DiceArrays`); rows ``T`` and up are padding that
holds ``K`` past the target (1 at ``T`` and, in an at-least game, above;
``Z`` above ``T`` in an exact game). :func:`pad` gives the row count.
"""

from __future__ import annotations

import numpy as np

from solver.model.turn_rules import OVERSHOOT, keep_result, may_bank, offer, rows_past_target


def pad(rules, rows: int) -> int:
    """Rows of ``A`` for turn totals below ``rows``: room for the biggest keep."""
    from solver.model.dice import keep_table
    return rows + int(keep_table(rules).packed().keep_units.max()) + 1


def bank_rows(rules, values, score: int) -> int:
    """Turn totals below which a mover at ``score`` may bank: the target
    (``T``), and with a final round the totals past it that the turn DP
    holds (``rows_past_target``)."""
    return rules.target - score + rows_past_target(rules, values.reach.shape[1])


def bank_allowed(rules, moves, m, rows=None) -> np.ndarray:
    """``allowed[t, n]`` for ``t < rows`` (the target, unless given): whether
    the rules let the mover in state ``m`` bank ``t`` with ``n`` dice unset."""
    score = int(moves.score[m])
    T = rules.target - score
    rows = T if rows is None else rows
    allowed = may_bank(rules, score, np.arange(rows)[:, None], np.arange(rules.dice + 1)[None, :])
    allowed[:T] &= (moves.bank_next[m, :T] >= 0)[:, None]   # the player state's own entry
    allowed[:, 0] = False                   # column 0 is an instant win, not dice
    return allowed


def bank_values(rules, moves, values, m, w, Z):
    """``B[t, n]`` for ``t`` below :func:`bank_rows`: the value of banking
    ``t`` with ``n`` dice unset (module docstring), ``-inf`` where the rules
    forbid the bank. ``rules`` is a :class:`solver.model.turn_rules.TurnRules`
    record, ``moves`` and ``values`` the records of :mod:`solver.engine.turn_kernel`."""
    D = rules.dice
    score = int(moves.score[m])
    T = rules.target - score
    allowed = bank_allowed(rules, moves, m, bank_rows(rules, values, score))
    B = np.full(allowed.shape, -np.inf)
    B[T:] = values.reach[w, :len(B) - T, None]     # a final round's banks past the target
    ts = np.flatnonzero(allowed[:T].any(axis=1))
    m2 = moves.bank_next[m, ts]
    waiting = np.repeat(values.W[w, m2][:, None], D + 1, axis=1)
    offers = np.array([offer(rules, n) for n in range(D + 1)])
    row = moves.take_row[w]
    if row >= 0 and offers.any():
        cols = np.flatnonzero(offers)
        slots = moves.bank_slot[m2]
        taken = np.asarray(values.take_values[row])[slots, ts - moves.offer_first[slots]]
        taken = taken[:, offers[cols] - 1]
        waiting[:, cols] = np.maximum(waiting[:, cols], taken)
    B[ts] = 1.0 - waiting
    B[ts[m2 == moves.zero_next[m]]] = Z
    B[~allowed] = -np.inf
    return B


def turn_values(rules, dice, moves, values, m, w, Z, roll_rows, a_rows, bank=None):
    """The module's equations in plain numpy (no slopes): ``(R, A, B)``;
    ``bank`` replaces :func:`bank_values` (a model's prices of the banks).

    One answer at the table needs one turn replayed, and importing numba and
    loading its compiled kernels costs more than half a second; this version
    vectorises over every roll and keep of a row instead, in a few
    milliseconds. It also serves as an independent check of the compiled
    kernel :func:`solver.engine.turn_kernel.turn_dp`, which the solver runs."""
    D = rules.dice
    score = int(moves.score[m])
    T = rules.target - score
    B = bank_values(rules, moves, values, m, w, Z) if bank is None else bank
    R = np.zeros((roll_rows, D + 1))
    A = np.ones((a_rows, D + 1))
    reach = values.reach[w]
    end = len(B)                            # T, or past it with a final round
    for t in range(end, a_rows):
        overshoot = keep_result(rules, score, t, False) == OVERSHOOT
        A[t, 1:] = Z if overshoot else reach[min(t - T, len(reach) - 1)]
    has_keep = dice.keep_first[1:] > dice.keep_first[:-1]
    starts = dice.keep_first[:-1][has_keep]
    per_n = dice.roll_first[1:D + 1]
    top = min(roll_rows - 1, end)
    for t in range(top, -1, -1):
        best = np.full(len(dice.prob), Z)
        best[has_keep] = np.maximum.reduceat(A[t + dice.keep_units, dice.keep_col], starts)
        R[t, 1:] = np.add.reduceat(dice.prob * best, per_n)
        if t < end:
            A[t, 1:] = np.maximum(R[t, 1:], B[t, 1:])
    R[top + 1:] = R[top]
    return R, A, B

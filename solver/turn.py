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
    K(t', n') = 1                  an instant win, or t' reaching the target
                                   (t' = T if exact, t' >= T otherwise)
              = Z                  t' > T in an exact game (overshoot)
              = A(t', D)           n' = 0 (hot dice: every die back in hand)
              = A(t', n')          otherwise
    A(t, n)   = max(B(t, n), R(t, n))   when the bank is allowed (entry met;
                                         not hot dice in a forced game)
              = R(t, n)                 otherwise
    W[m, w]   = R(0, D)            a turn starts by rolling every die.

``t`` only grows inside a turn (every keep scores), so one pass over ``t``
from ``T - 1`` down to 0 computes everything. A bank that leaves the player
where a zero turn would (a score capped at ``target - last_turn_points``) is
worth exactly ``Z``.

The compiled kernel (:mod:`solver.turn_kernel`) also returns ``dW/dZ`` for
the two-player solver: under the policy it picks, every value is affine in
``Z``, with slope the probability that the turn ends in a zero turn.

Offered turn totals can exceed ``T`` (the banker had a lower score): roll
values are computed for ``t`` up to ``roll_rows - 1``; every keep from such
a total overshoots (exact target) or wins, so those rows are all equal.

Layout, so that a keep's value is one lookup ``A[t + points, col]`` with no
branch: column 0 of ``A`` is an instant win (1 everywhere) and a keep's
column is 0 for an instant win, ``D`` for hot dice, else ``n - used``
(:meth:`solver.dice.KeepTable.packed`); rows ``T`` and up are padding that
holds ``K`` past the target (1 at ``T`` and, in an at-least game, above;
``Z`` above ``T`` in an exact game). :func:`pad` gives the row count.
"""

from __future__ import annotations

import numpy as np


def pad(rules, rows: int) -> int:
    """Rows of ``A`` for turn totals below ``rows``: room for the biggest keep."""
    from .dice import keep_table
    return rows + int(keep_table(rules).packed()[3].max()) + 1


def bank_values(m, w, Z, T, forced, dice, bank_next, zero_next, take_row, W, take_values):
    """``B[t, n]`` for ``t < T``: the value of banking ``t`` with ``n`` dice
    unset (module docstring), ``-inf`` where the rules forbid the bank."""
    B = np.full((T, dice + 1), -np.inf)
    ts = np.flatnonzero(bank_next[m, :T] >= 0)
    ts = ts[ts > 0]
    m2 = bank_next[m, ts]
    offered = np.repeat(W[w, m2][:, None], dice, axis=1)
    if take_row[w] >= 0 and dice > 1:
        taken = np.asarray(take_values[take_row[w]])[m2, ts]
        offered[:, :-1] = np.maximum(offered[:, :-1], taken)
    B[ts, 1:] = 1.0 - offered
    B[ts[m2 == zero_next[m]], 1:] = Z
    if forced:
        B[:, dice] = -np.inf
    return B


def turn_values(m, w, Z, T, roll_rows, exact, forced, dice, bank_next, zero_next,
                take_row, W, take_values, roll_first, prob, keep_first, keep_units,
                keep_col, a_rows):
    """The module's equations in plain numpy (no slopes): ``(R, A, B)``.

    One answer at the table needs one turn replayed, and importing numba and
    loading its compiled kernels costs more than half a second; this version
    vectorises over every roll and keep of a row instead, in a few
    milliseconds. It also serves as an independent check of the compiled
    kernel :func:`solver.turn_kernel.turn_dp`, which the solver runs."""
    B = bank_values(m, w, Z, T, forced, dice, bank_next, zero_next, take_row, W, take_values)
    R = np.zeros((roll_rows, dice + 1))
    A = np.ones((a_rows, dice + 1))
    if exact:
        A[T + 1:, 1:] = Z
    has_keep = keep_first[1:] > keep_first[:-1]
    starts = keep_first[:-1][has_keep]
    per_n = roll_first[1:dice + 1]
    top = min(roll_rows - 1, T)
    for t in range(top, -1, -1):
        best = np.full(len(prob), Z)
        best[has_keep] = np.maximum.reduceat(A[t + keep_units, keep_col], starts)
        R[t, 1:] = np.add.reduceat(prob * best, per_n)
        if t < T:
            A[t, 1:] = np.maximum(R[t, 1:], B[t, 1:])
    R[top + 1:] = R[top]
    return R, A, B

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

For the two-player solver the kernel also returns ``dW/dZ``: under the
policy it picks, every value is affine in ``Z`` (``value = a + b Z``), and
``b`` is the probability that the turn ends in a zero turn. ``b`` is carried
alongside each value through every max (the slope of the chosen branch).

Offered turn totals can exceed ``T`` (the banker had a lower score): roll
values are computed for ``t`` up to ``roll_rows - 1``; every keep from such
a total overshoots (exact target) or wins.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def after_keep(t2, n_left, win, T, exact, dice, Z, A, dA):
    """Value and dvalue/dZ of having kept dice that bring the total to ``t2``
    with ``n_left`` dice left (the K of the module docstring)."""
    if win:
        return 1.0, 0.0
    if t2 > T and exact:
        return Z, 1.0
    if t2 >= T:
        return 1.0, 0.0
    if n_left == 0:
        n_left = dice
    return A[t2, n_left], dA[t2, n_left]


@njit(cache=True)
def bank_value(m, w, t, n, Z, dice, bank_next, zero_next, take_row, W, take_values):
    """Value of banking ``t`` with ``n`` dice unset, and its dvalue/dZ.
    The caller has checked that the bank is allowed."""
    m2 = bank_next[m, t]
    if m2 == zero_next[m]:
        return Z, 1.0
    w_value = W[w, m2]
    row = take_row[w]
    if row >= 0 and n < dice:
        taken = take_values[row, m2, t, n - 1]
        if taken > w_value:
            w_value = taken
    return 1.0 - w_value, 0.0


@njit(cache=True)
def turn_dp(m, w, Z, T, roll_rows, exact, forced, dice, bank_next, zero_next,
            take_row, W, take_values, roll_first, prob, keep_first, keep_units,
            keep_used, keep_win, R, dR, A, dA):
    """Fill R, A (and their slopes dR, dA) for the turn of mover ``m``
    against ``w`` with zero-turn value ``Z``. Rows ``t < roll_rows`` of R are
    filled, rows ``t < T`` of A. Returns ``(R(0, D), dR(0, D)/dZ)``."""
    # Past the target every keep overshoots or wins whatever t is, so the
    # rows t >= T are all equal: compute row T once and copy it.
    top = min(roll_rows - 1, T)
    for t in range(top, -1, -1):
        for n in range(1, dice + 1):
            value = 0.0
            slope = 0.0
            for r in range(roll_first[n], roll_first[n + 1]):
                k0 = keep_first[r]
                k1 = keep_first[r + 1]
                if k0 == k1:
                    best = Z
                    best_slope = 1.0
                else:
                    best = -1.0
                    best_slope = 0.0
                    for k in range(k0, k1):
                        t2 = t + keep_units[k]
                        if keep_win[k]:
                            v = 1.0
                            dv = 0.0
                        elif t2 > T and exact:
                            v = Z
                            dv = 1.0
                        elif t2 >= T:
                            v = 1.0
                            dv = 0.0
                        else:
                            n_left = n - keep_used[k]
                            if n_left == 0:
                                n_left = dice
                            v = A[t2, n_left]
                            dv = dA[t2, n_left]
                        if v > best:
                            best = v
                            best_slope = dv
                value += prob[r] * best
                slope += prob[r] * best_slope
            R[t, n] = value
            dR[t, n] = slope
        if t >= T:
            continue
        for n in range(1, dice + 1):
            A[t, n] = R[t, n]
            dA[t, n] = dR[t, n]
            if t == 0 or bank_next[m, t] < 0 or (forced and n == dice):
                continue
            b, db = bank_value(m, w, t, n, Z, dice, bank_next, zero_next, take_row, W,
                               take_values)
            if b > A[t, n]:
                A[t, n] = b
                dA[t, n] = db
    for t in range(top + 1, roll_rows):
        for n in range(1, dice + 1):
            R[t, n] = R[top, n]
            dR[t, n] = dR[top, n]
    return R[0, dice], dR[0, dice]


def scratch(rows: int, dice: int):
    """Work arrays for :func:`turn_dp`: R, dR, A, dA."""
    return tuple(np.zeros((rows, dice + 1)) for _ in range(4))

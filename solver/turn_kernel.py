"""The turn DP of :mod:`solver.turn`, compiled, with slopes, over lanes.

Same equations as :func:`solver.turn.turn_values`; besides each value it
carries ``d value / d Z`` (the probability that the turn ends in a zero turn
under the chosen policy), which the two-player solver's Newton step needs.
The keep loop is written out in full: a call per keep costs several times
the work of the keep. :func:`turn_dp` runs several movers in lanes;
:func:`turn_dp_one` is the same for a single mover.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def turn_dp(ms, w, Zs, T, roll_rows, exact, forced, dice, bank_next, zero_next,
            take_row, W, take_values, roll_first, prob, keep_first, keep_units,
            keep_col, R, dR, A, dA, values, slopes):
    """The turn DP of several movers ``ms`` (lanes) against ``w`` at once.

    The lanes share the score and the bank destinations (``bank_next``
    rows) and differ in their zero-turn value ``Zs[lane]``: a player's
    crosses and previous score change only where a zero turn leads. One
    pass over rolls and keeps serves every lane, so the index work is paid
    once. Fills ``R[t, n, lane]``, ``A[t, n, lane]`` (rows ``t < T`` and the
    padding of :mod:`solver.turn`) and their slopes dR, dA; writes
    ``values[lane] = R(0, D)`` and ``slopes[lane] = dR(0, D)/dZ``."""
    K = len(ms)
    m = ms[0]
    best = np.empty(K)
    best_slope = np.empty(K)
    value = np.empty(K)
    slope = np.empty(K)
    for t in range(A.shape[0]):
        past = exact and t > T
        for lane in range(K):
            A[t, 0, lane] = 1.0
            dA[t, 0, lane] = 0.0
            if t >= T:
                for n in range(1, dice + 1):
                    A[t, n, lane] = Zs[lane] if past else 1.0
                    dA[t, n, lane] = 1.0 if past else 0.0
    top = min(roll_rows - 1, T)
    for t in range(top, -1, -1):
        for n in range(1, dice + 1):
            for lane in range(K):
                value[lane] = 0.0
                slope[lane] = 0.0
            for r in range(roll_first[n], roll_first[n + 1]):
                k0 = keep_first[r]
                k1 = keep_first[r + 1]
                p = prob[r]
                if k0 == k1:
                    for lane in range(K):
                        value[lane] += p * Zs[lane]
                        slope[lane] += p
                    continue
                for lane in range(K):
                    best[lane] = -1.0
                for k in range(k0, k1):
                    row = t + keep_units[k]
                    col = keep_col[k]
                    for lane in range(K):
                        v = A[row, col, lane]
                        if v > best[lane]:
                            best[lane] = v
                            best_slope[lane] = dA[row, col, lane]
                for lane in range(K):
                    value[lane] += p * best[lane]
                    slope[lane] += p * best_slope[lane]
            for lane in range(K):
                R[t, n, lane] = value[lane]
                dR[t, n, lane] = slope[lane]
        if t >= T:
            continue
        for n in range(1, dice + 1):
            for lane in range(K):
                A[t, n, lane] = R[t, n, lane]
                dA[t, n, lane] = dR[t, n, lane]
            if t == 0 or bank_next[m, t] < 0 or (forced and n == dice):
                continue
            for lane in range(K):
                b, db = bank_value(ms[lane], w, t, n, Zs[lane], dice, bank_next, zero_next,
                                   take_row, W, take_values)
                if b > A[t, n, lane]:
                    A[t, n, lane] = b
                    dA[t, n, lane] = db
    for t in range(top + 1, roll_rows):
        for n in range(1, dice + 1):
            for lane in range(K):
                R[t, n, lane] = R[top, n, lane]
                dR[t, n, lane] = dR[top, n, lane]
    for lane in range(K):
        values[lane] = R[0, dice, lane]
        slopes[lane] = dR[0, dice, lane]


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
def turn_dp_one(m, w, Z, T, roll_rows, exact, forced, dice, bank_next, zero_next,
            take_row, W, take_values, roll_first, prob, keep_first, keep_units,
            keep_col, R, dR, A, dA):
    """:func:`turn_dp` for one mover, with 2-d arrays: the same loops with
    the running maxima in registers, several times faster than one lane of
    :func:`turn_dp` (games without crosses have one mover per DP).
    Returns ``(R(0, D), dR(0, D)/dZ)``."""
    for t in range(A.shape[0]):
        A[t, 0] = 1.0
        dA[t, 0] = 0.0
        if t >= T:
            past = exact and t > T
            for n in range(1, dice + 1):
                A[t, n] = Z if past else 1.0
                dA[t, n] = 1.0 if past else 0.0
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
                        v = A[t + keep_units[k], keep_col[k]]
                        if v > best:
                            best = v
                            best_slope = dA[t + keep_units[k], keep_col[k]]
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

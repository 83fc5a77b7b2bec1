"""The turn DP of :mod:`solver.turn`, compiled, with slopes, over lanes.

Same equations as :func:`solver.turn.turn_values`; besides each value it
carries ``d value / d Z`` (the probability that the turn ends in a zero turn
under the chosen policy), which the solver's Newton step needs. What a keep,
a bank and an offer do comes from :mod:`solver.turn_rules`.

Arguments travel as records: ``rules`` (:class:`solver.turn_rules.TurnRules`),
``dice`` (:class:`solver.dice.DiceArrays`), ``moves``
(:class:`solver.states.Moves`: scores, bank and zero-turn destinations,
take-over rows), ``values`` (:class:`solver.solution.Values`: ``W`` and the
take-over values) and ``work`` (:class:`TurnWork`: the DP's arrays, filled).

The keep loop is written out in full: a call per keep costs several times
the work of the keep. :func:`turn_dp` runs several movers in lanes;
:func:`turn_dp_one` is the same for a single mover, with the running maxima
in registers (several times faster than one lane).

A roll class's best keep is ``max_k A(t + points_k, col_k)``. Where some
class of ``n`` dice has a base (:class:`solver.dice.DiceArrays`: a class
whose keeps it has too), the planned loop takes the base's best and
compares only the other keeps (free-keep games: 423 comparisons per turn
total instead of 1,075); its best and slope are kept per class for the
classes built on it. Where none has (one keep per roll, the keep rule
*all*), the plain loop over the keeps runs: the planned loop's bookkeeping
made those games 7 to 11% slower (BENCHMARKS.md). The two loops are
written out side by side on purpose: one loop with the choice as a flag,
read at run time or passed as a constant to an inlined helper, cost 4 to 7%
in one kind of game or the other (paired runs, quinze-mille and
quinze-mille-free-keep to 8,000, dix-mille to 3,000).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .compiled_rules import keep_result, may_bank, offer, drop_stale_caches
from .turn_rules import OVERSHOOT

drop_stale_caches(__file__)


class TurnWork(NamedTuple):
    """The turn DP's arrays: roll values ``R[t, n(, lane)]``, after-keep
    values ``A`` (layout of :mod:`solver.turn`) and their slopes in ``Z``."""
    R: np.ndarray
    dR: np.ndarray
    A: np.ndarray
    dA: np.ndarray

    @classmethod
    def empty(cls, roll_rows: int, a_rows: int, dice: int, lanes: int = 0) -> "TurnWork":
        tail = (dice + 1,) if lanes == 0 else (dice + 1, lanes)
        return cls(np.zeros((roll_rows,) + tail), np.zeros((roll_rows,) + tail),
                   np.zeros((a_rows,) + tail), np.zeros((a_rows,) + tail))


@njit(cache=True, inline="always")
def bank_value(rules, bank_next, zero_next, bank_slot, take_row, offer_first, W, take_values,
               m, w, t, n, Z):
    """Value of banking ``t`` with ``n`` dice unset, and its dvalue/dZ. The
    caller has checked that the bank is allowed. A bank that leaves the
    player where a zero turn would (a capped score) is worth ``Z``. (The
    arrays of ``moves`` and ``values``, taken apart by the caller once per
    turn: reading them out of the records per bank costs reference counts.)"""
    m2 = bank_next[m, t]
    if m2 == zero_next[m]:
        return Z, 1.0
    w_value = W[w, m2]
    row = take_row[w]
    offered = offer(rules, n)
    if row >= 0 and offered > 0:
        slot = bank_slot[m2]
        taken = take_values[row, slot, t - offer_first[slot], offered - 1]
        if taken > w_value:
            w_value = taken
    return 1.0 - w_value, 0.0


@njit(cache=True, inline="always")
def has_bases(roll_first, class_base, D):
    """``planned[n]``: whether some class of ``n`` dice has a base, so
    that the planned loop runs for ``n`` (module docstring)."""
    planned = np.zeros(D + 1, dtype=np.bool_)
    for n in range(1, D + 1):
        planned[n] = np.any(class_base[roll_first[n]:roll_first[n + 1]] >= 0)
    return planned


@njit(cache=True)
def turn_dp(rules, dice, moves, values, ms, w, Zs, roll_rows, work, out_values, out_slopes):
    """The turn DP of several movers ``ms`` (lanes) against ``w`` at once.

    The lanes share the score and the bank destinations (``bank_next``
    rows) and differ in their zero-turn value ``Zs[lane]``: a player's
    crosses and previous score change only where a zero turn leads. One
    pass over rolls and keeps serves every lane, so the index work is paid
    once. Fills ``work`` (3-d arrays, lanes last) for rows ``t <
    roll_rows``; writes ``out_values[lane] = R(0, D)`` and
    ``out_slopes[lane] = dR(0, D)/dZ``."""
    R, dR, A, dA = work
    roll_first, prob, keep_first, keep_units, keep_col, class_base, extra_first, extra_units, \
        extra_col = dice                                            # as in turn_dp_one
    scores, bank_next, zero_next, bank_slot, take_row, offer_first = moves
    W, take_values, reach = values
    D = rules.dice
    K = len(ms)
    m = ms[0]
    score = scores[m]
    T = rules.target - score
    value = np.empty(K)
    slope = np.empty(K)
    for t in range(A.shape[0]):
        past = t >= T and keep_result(rules, score, t, False) == OVERSHOOT
        reached = reach[w, min(t - T, reach.shape[1] - 1)] if t >= T else 1.0
        for lane in range(K):
            A[t, 0, lane] = 1.0
            dA[t, 0, lane] = 0.0
            if t >= T:
                for n in range(1, D + 1):
                    A[t, n, lane] = Zs[lane] if past else reached
                    dA[t, n, lane] = 1.0 if past else 0.0
    class_best = np.empty((len(prob), K))
    class_slope = np.empty((len(prob), K))
    best = np.empty(K)
    best_slope = np.empty(K)
    planned = has_bases(roll_first, class_base, D)
    top = min(roll_rows - 1, T)
    for t in range(top, -1, -1):
        for n in range(1, D + 1):
            for lane in range(K):
                value[lane] = 0.0
                slope[lane] = 0.0
            if not planned[n]:
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
            else:
                for r in range(roll_first[n], roll_first[n + 1]):
                    k0 = extra_first[r]
                    k1 = extra_first[r + 1]
                    p = prob[r]
                    if k0 == k1:                    # the zero rolls
                        for lane in range(K):
                            value[lane] += p * Zs[lane]
                            slope[lane] += p
                        continue
                    base = class_base[r]
                    for lane in range(K):
                        best[lane] = class_best[base, lane] if base >= 0 else -1.0
                        best_slope[lane] = class_slope[base, lane] if base >= 0 else 0.0
                    for k in range(k0, k1):
                        row = t + extra_units[k]
                        col = extra_col[k]
                        for lane in range(K):
                            v = A[row, col, lane]
                            if v > best[lane]:
                                best[lane] = v
                                best_slope[lane] = dA[row, col, lane]
                    for lane in range(K):
                        class_best[r, lane] = best[lane]
                        class_slope[r, lane] = best_slope[lane]
                        value[lane] += p * best[lane]
                        slope[lane] += p * best_slope[lane]
            for lane in range(K):
                R[t, n, lane] = value[lane]
                dR[t, n, lane] = slope[lane]
        if t >= T:
            continue
        for n in range(1, D + 1):
            for lane in range(K):
                A[t, n, lane] = R[t, n, lane]
                dA[t, n, lane] = dR[t, n, lane]
            if not may_bank(rules, score, t, n) or bank_next[m, t] < 0:
                continue
            for lane in range(K):
                b, db = bank_value(rules, bank_next, zero_next, bank_slot, take_row,
                                   offer_first, W, take_values, ms[lane], w, t, n, Zs[lane])
                if b > A[t, n, lane]:
                    A[t, n, lane] = b
                    dA[t, n, lane] = db
    for t in range(top + 1, roll_rows):
        for n in range(1, D + 1):
            for lane in range(K):
                R[t, n, lane] = R[top, n, lane]
                dR[t, n, lane] = dR[top, n, lane]
    for lane in range(K):
        out_values[lane] = R[0, D, lane]
        out_slopes[lane] = dR[0, D, lane]


@njit(cache=True)
def turn_dp_one(rules, dice, moves, values, m, w, Z, roll_rows, work):
    """:func:`turn_dp` for one mover, with 2-d arrays in ``work``. Returns
    ``(R(0, D), dR(0, D)/dZ)``."""
    R, dR, A, dA = work
    # Unpacked once: reading an array out of a record inside the loops
    # costs a reference count each time.
    roll_first, prob, keep_first, keep_units, keep_col, class_base, extra_first, extra_units, \
        extra_col = dice
    scores, bank_next, zero_next, bank_slot, take_row, offer_first = moves
    W, take_values, reach = values
    D = rules.dice
    score = scores[m]
    T = rules.target - score
    for t in range(A.shape[0]):
        A[t, 0] = 1.0
        dA[t, 0] = 0.0
        if t >= T:
            past = keep_result(rules, score, t, False) == OVERSHOOT
            reached = reach[w, min(t - T, reach.shape[1] - 1)]
            for n in range(1, D + 1):
                A[t, n] = Z if past else reached
                dA[t, n] = 1.0 if past else 0.0
    class_best = np.empty(len(prob))
    class_slope = np.empty(len(prob))
    planned = has_bases(roll_first, class_base, D)
    top = min(roll_rows - 1, T)
    for t in range(top, -1, -1):
        for n in range(1, D + 1):
            value = 0.0
            slope = 0.0
            if not planned[n]:
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
                continue
            for r in range(roll_first[n], roll_first[n + 1]):
                k0 = extra_first[r]
                k1 = extra_first[r + 1]
                if k0 == k1:                        # the zero rolls
                    value += prob[r] * Z
                    slope += prob[r]
                    continue
                base = class_base[r]
                if base >= 0:
                    best = class_best[base]
                    best_slope = class_slope[base]
                else:
                    best = -1.0
                    best_slope = 0.0
                for k in range(k0, k1):
                    v = A[t + extra_units[k], extra_col[k]]
                    if v > best:
                        best = v
                        best_slope = dA[t + extra_units[k], extra_col[k]]
                class_best[r] = best
                class_slope[r] = best_slope
                value += prob[r] * best
                slope += prob[r] * best_slope
            R[t, n] = value
            dR[t, n] = slope
        if t >= T:
            continue
        for n in range(1, D + 1):
            A[t, n] = R[t, n]
            dA[t, n] = dR[t, n]
            if not may_bank(rules, score, t, n) or bank_next[m, t] < 0:
                continue
            b, db = bank_value(rules, bank_next, zero_next, bank_slot, take_row, offer_first,
                               W, take_values, m, w, t, n, Z)
            if b > A[t, n]:
                A[t, n] = b
                dA[t, n] = db
    for t in range(top + 1, roll_rows):
        for n in range(1, D + 1):
            R[t, n] = R[top, n]
            dR[t, n] = dR[top, n]
    return R[0, D], dR[0, D]

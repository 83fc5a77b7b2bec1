"""The turn DP of :mod:`solver.engine.turn`, compiled, with slopes, over lanes.

Same equations as :func:`solver.engine.turn.turn_values`; besides each value it
carries ``d value / d Z`` (the probability that the turn ends in a zero turn
under the chosen policy), which the solver's Newton step needs. What a keep,
a bank and an offer do comes from :mod:`solver.model.turn_rules`.

Arguments travel as records: ``rules`` (:class:`solver.model.turn_rules.TurnRules`),
``dice`` (:class:`solver.model.dice.DiceArrays`), ``moves``
(:class:`solver.model.states.Moves`: scores, bank and zero-turn destinations,
take-over rows), ``values`` (:class:`solver.engine.solution.Values`: ``W`` and the
take-over values) and ``work`` (:class:`TurnWork`: the DP's arrays, filled).

With a final round the DP runs on past the target to ``end = T + E`` (``E``
the turn rules' ``rows_past_target``), banking there at ``reach[w, t - T]``
(slope 0: the other player's last turn does not read ``Z``); without one
``end = T`` and nothing changes.

The keep loop is written out in full: a call per keep costs several times
the work of the keep. :func:`four_lanes` runs four movers in lanes, their
running maxima in registers (with four lanes, maxima in arrays ran 1.5 times
slower, likely reloaded after every store, BENCHMARKS.md);
:func:`many_lanes` runs any number, faster where there are ten or more;
:func:`one_lane` is the same for a single mover. They take ``slopes`` as a
compile-time constant: without slopes (the sweeps of a game with falls
reuse the last ones) a DP does half the loads and none of the slope
bookkeeping. Which keep is best is not predictable, so the slope follows
the best by a select, not a branch.

A roll class's best keep is ``max_k A(t + points_k, col_k)``. Where some
class of ``n`` dice has a base (:class:`solver.model.dice.DiceArrays`: a class
whose keeps it has too), the planned loop takes the base's best and
compares only the other keeps (free-keep games: 423 comparisons per turn
total instead of 1,075); its best and slope are kept per class for the
classes built on it. Where none has (one keep per roll, the keep rule
*all*), every class's other keeps are all of its keeps. The one-mover
kernel then runs the plain loop over the keeps: the planned loop's
bookkeeping made those games 7 to 11% slower (BENCHMARKS.md); the two
loops are written out side by side on purpose (one loop with the choice as
a flag cost 4 to 7% in one kind of game or the other). The lanes'
kernels run the planned loop alone; they too are written out side by side
on purpose: their start, bank step and finish as shared inlined helpers
made a four-lane DP 4 to 8% slower (the bank step, once a row, takes its
arrays out of the records at every call; a `/tmp` timing, 2026-12-02).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import literally, njit

from solver.model.compiled_rules import (
    drop_stale_caches,
    keep_result,
    may_bank,
    offer,
    rows_past_target,
)
from solver.model.turn_rules import OVERSHOOT

drop_stale_caches(__file__)

LANES = 4
"""Movers in one DP of :func:`four_lanes`."""


class TurnWork(NamedTuple):
    """The turn DP's arrays: roll values ``R[t, n(, lane)]``, after-keep
    values ``A`` (layout of :mod:`solver.engine.turn`) and their slopes in ``Z``."""
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
def turn_dp_lanes(rules, dice, moves, values, ms, w, Zs, roll_rows, work, out_values, out_slopes,
                  slopes):
    """The turn DP of the movers ``ms`` (lanes) against ``w`` at once, with
    ``slopes`` read at run time: :func:`four_lanes` for four of them,
    :func:`many_lanes` for any other number."""
    if len(ms) == LANES:
        if slopes:
            four_lanes(rules, dice, moves, values, ms, w, Zs, roll_rows, work, out_values,
                       out_slopes, True)
        else:
            four_lanes(rules, dice, moves, values, ms, w, Zs, roll_rows, work, out_values,
                       out_slopes, False)
    elif slopes:
        many_lanes(rules, dice, moves, values, ms, w, Zs, roll_rows, work, out_values,
                   out_slopes, True)
    else:
        many_lanes(rules, dice, moves, values, ms, w, Zs, roll_rows, work, out_values,
                   out_slopes, False)


@njit(cache=True)
def four_lanes(rules, dice, moves, values, ms, w, Zs, roll_rows, work, out_values, out_slopes,
               slopes):
    """The turn DP of four movers ``ms`` (lanes) against ``w`` at once.

    The lanes share the score and the bank destinations (``bank_next``
    rows) and differ in their zero-turn value ``Zs[lane]``: a player's
    crosses and previous score change only where a zero turn leads. One
    pass over rolls and keeps serves the four lanes, so the index work is
    paid once, and the lanes' running maxima stay in registers (a group of
    more movers runs in fours, the last four padded by the caller). Fills
    ``work`` (3-d arrays, four lanes last) for rows ``t < roll_rows``;
    writes ``out_values[lane] = R(0, D)`` and, where ``slopes`` (a
    compile-time constant), ``out_slopes[lane] = dR(0, D)/dZ``; without
    them ``work.dR`` and ``work.dA`` are not touched. (A constant
    ``slopes`` compiles its own version; called from Python, a literal
    argument would be compiled anew at every call: use
    :func:`turn_dp_lanes`.)"""
    literally(slopes)
    R, dR, A, dA = work
    roll_first, prob, keep_first, keep_units, keep_col, class_base, extra_first, extra_units, \
        extra_col = dice[:9]                                        # as in one_lane
    scores, bank_next, zero_next, bank_slot, take_row, offer_first = moves
    W, take_values, reach = values
    D = rules.dice
    m = ms[0]
    score = scores[m]
    T = rules.target - score
    end = T + rows_past_target(rules, reach.shape[1])
    for t in range(A.shape[0]):
        past = t >= T and keep_result(rules, score, t, False) == OVERSHOOT
        reached = reach[w, min(t - T, reach.shape[1] - 1)] if t >= T else 1.0
        for lane in range(LANES):
            A[t, 0, lane] = 1.0
            if slopes:
                dA[t, 0, lane] = 0.0
            if t >= end:
                for n in range(1, D + 1):
                    A[t, n, lane] = Zs[lane] if past else reached
                    if slopes:
                        dA[t, n, lane] = 1.0 if past else 0.0
    # Without bases (the keep rule *all*) every class's extra keeps are all
    # its keeps: one loop serves both kinds of game here.
    class_best = np.empty((len(prob), LANES))
    class_slope = np.empty((len(prob), LANES))
    z0, z1, z2, z3 = Zs[0], Zs[1], Zs[2], Zs[3]
    top = min(roll_rows - 1, end)
    for t in range(top, -1, -1):
        for n in range(1, D + 1):
            v0 = v1 = v2 = v3 = 0.0
            d0 = d1 = d2 = d3 = 0.0
            for r in range(roll_first[n], roll_first[n + 1]):
                k0 = extra_first[r]
                k1 = extra_first[r + 1]
                p = prob[r]
                if k0 == k1:                        # the zero rolls
                    v0 += p * z0
                    v1 += p * z1
                    v2 += p * z2
                    v3 += p * z3
                    d0 += p
                    d1 += p
                    d2 += p
                    d3 += p
                    continue
                base = class_base[r]
                b0 = b1 = b2 = b3 = -1.0
                s0 = s1 = s2 = s3 = 0.0
                if base >= 0:
                    b0, b1, b2, b3 = (class_best[base, 0], class_best[base, 1],
                                      class_best[base, 2], class_best[base, 3])
                    if slopes:
                        s0, s1, s2, s3 = (class_slope[base, 0], class_slope[base, 1],
                                          class_slope[base, 2], class_slope[base, 3])
                for k in range(k0, k1):
                    row = t + extra_units[k]
                    col = extra_col[k]
                    a0, a1, a2, a3 = A[row, col, 0], A[row, col, 1], A[row, col, 2], A[row, col, 3]
                    if slopes:
                        # Selects, not branches: which keep is best is not
                        # predictable.
                        s0 = dA[row, col, 0] if a0 > b0 else s0
                        s1 = dA[row, col, 1] if a1 > b1 else s1
                        s2 = dA[row, col, 2] if a2 > b2 else s2
                        s3 = dA[row, col, 3] if a3 > b3 else s3
                    b0, b1, b2, b3 = max(b0, a0), max(b1, a1), max(b2, a2), max(b3, a3)
                class_best[r, 0], class_best[r, 1], class_best[r, 2], class_best[r, 3] = \
                    b0, b1, b2, b3
                v0 += p * b0
                v1 += p * b1
                v2 += p * b2
                v3 += p * b3
                if slopes:
                    class_slope[r, 0], class_slope[r, 1], class_slope[r, 2], \
                        class_slope[r, 3] = s0, s1, s2, s3
                    d0 += p * s0
                    d1 += p * s1
                    d2 += p * s2
                    d3 += p * s3
            R[t, n, 0], R[t, n, 1], R[t, n, 2], R[t, n, 3] = v0, v1, v2, v3
            if slopes:
                dR[t, n, 0], dR[t, n, 1], dR[t, n, 2], dR[t, n, 3] = d0, d1, d2, d3
        if t >= end:
            continue
        for n in range(1, D + 1):
            bank = may_bank(rules, score, t, n) and (t >= T or bank_next[m, t] >= 0)
            for lane in range(LANES):
                A[t, n, lane] = R[t, n, lane]
                if slopes:
                    dA[t, n, lane] = dR[t, n, lane]
                if not bank:
                    continue
                if t >= T:
                    b, db = reach[w, t - T], 0.0
                else:
                    b, db = bank_value(rules, bank_next, zero_next, bank_slot, take_row,
                                       offer_first, W, take_values, ms[lane], w, t, n, Zs[lane])
                if b > A[t, n, lane]:
                    A[t, n, lane] = b
                    if slopes:
                        dA[t, n, lane] = db
    for t in range(top + 1, roll_rows):
        for n in range(1, D + 1):
            for lane in range(LANES):
                R[t, n, lane] = R[top, n, lane]
                if slopes:
                    dR[t, n, lane] = dR[top, n, lane]
    for lane in range(LANES):
        out_values[lane] = R[0, D, lane]
        if slopes:
            out_slopes[lane] = dR[0, D, lane]


@njit(cache=True)
def many_lanes(rules, dice, moves, values, ms, w, Zs, roll_rows, work, out_values, out_slopes,
               slopes):
    """:func:`four_lanes` for any number of lanes, their maxima in arrays:
    slower than fours for a few lanes, faster for many (the exact memory's
    groups of tens, BENCHMARKS.md), where the loop over the lanes is long
    enough to be vectorised. ``work`` has at least ``len(ms)`` lanes."""
    literally(slopes)
    R, dR, A, dA = work
    roll_first, prob, keep_first, keep_units, keep_col, class_base, extra_first, extra_units, \
        extra_col = dice[:9]                                        # as in one_lane
    scores, bank_next, zero_next, bank_slot, take_row, offer_first = moves
    W, take_values, reach = values
    D = rules.dice
    K = len(ms)
    m = ms[0]
    score = scores[m]
    T = rules.target - score
    end = T + rows_past_target(rules, reach.shape[1])
    value = np.empty(K)
    slope = np.zeros(K)
    for t in range(A.shape[0]):
        past = t >= T and keep_result(rules, score, t, False) == OVERSHOOT
        reached = reach[w, min(t - T, reach.shape[1] - 1)] if t >= T else 1.0
        for lane in range(K):
            A[t, 0, lane] = 1.0
            if slopes:
                dA[t, 0, lane] = 0.0
            if t >= end:
                for n in range(1, D + 1):
                    A[t, n, lane] = Zs[lane] if past else reached
                    if slopes:
                        dA[t, n, lane] = 1.0 if past else 0.0
    class_best = np.empty((len(prob), K))
    class_slope = np.zeros((len(prob), K))
    best = np.empty(K)
    best_slope = np.zeros(K)
    top = min(roll_rows - 1, end)
    for t in range(top, -1, -1):
        for n in range(1, D + 1):
            for lane in range(K):
                value[lane] = 0.0
                slope[lane] = 0.0
            for r in range(roll_first[n], roll_first[n + 1]):
                k0 = extra_first[r]
                k1 = extra_first[r + 1]
                p = prob[r]
                if k0 == k1:                        # the zero rolls
                    for lane in range(K):
                        value[lane] += p * Zs[lane]
                        slope[lane] += p
                    continue
                base = class_base[r]
                for lane in range(K):
                    best[lane] = class_best[base, lane] if base >= 0 else -1.0
                    if slopes:
                        best_slope[lane] = class_slope[base, lane] if base >= 0 else 0.0
                for k in range(k0, k1):
                    row = t + extra_units[k]
                    col = extra_col[k]
                    for lane in range(K):
                        v = A[row, col, lane]
                        if slopes:
                            best_slope[lane] = dA[row, col, lane] if v > best[lane] \
                                else best_slope[lane]
                        best[lane] = max(best[lane], v)
                for lane in range(K):
                    class_best[r, lane] = best[lane]
                    value[lane] += p * best[lane]
                    if slopes:
                        class_slope[r, lane] = best_slope[lane]
                        slope[lane] += p * best_slope[lane]
            for lane in range(K):
                R[t, n, lane] = value[lane]
                if slopes:
                    dR[t, n, lane] = slope[lane]
        if t >= end:
            continue
        for n in range(1, D + 1):
            bank = may_bank(rules, score, t, n) and (t >= T or bank_next[m, t] >= 0)
            for lane in range(K):
                A[t, n, lane] = R[t, n, lane]
                if slopes:
                    dA[t, n, lane] = dR[t, n, lane]
                if not bank:
                    continue
                if t >= T:
                    b, db = reach[w, t - T], 0.0
                else:
                    b, db = bank_value(rules, bank_next, zero_next, bank_slot, take_row,
                                       offer_first, W, take_values, ms[lane], w, t, n, Zs[lane])
                if b > A[t, n, lane]:
                    A[t, n, lane] = b
                    if slopes:
                        dA[t, n, lane] = db
    for t in range(top + 1, roll_rows):
        for n in range(1, D + 1):
            for lane in range(K):
                R[t, n, lane] = R[top, n, lane]
                if slopes:
                    dR[t, n, lane] = dR[top, n, lane]
    for lane in range(K):
        out_values[lane] = R[0, D, lane]
        if slopes:
            out_slopes[lane] = dR[0, D, lane]


@njit(cache=True)
def turn_dp_one(rules, dice, moves, values, m, w, Z, roll_rows, work, slopes):
    """:func:`one_lane` with ``slopes`` read at run time."""
    if slopes:
        return one_lane(rules, dice, moves, values, m, w, Z, roll_rows, work, True)
    return one_lane(rules, dice, moves, values, m, w, Z, roll_rows, work, False)


@njit(cache=True)
def one_lane(rules, dice, moves, values, m, w, Z, roll_rows, work, slopes):
    """:func:`four_lanes` for one mover, with 2-d arrays in ``work``.
    Returns ``(R(0, D), dR(0, D)/dZ)`` (the slope 0 and ``work.dR``,
    ``work.dA`` untouched where ``slopes``, a constant as in
    :func:`four_lanes`, is False)."""
    literally(slopes)
    R, dR, A, dA = work
    # Unpacked once: reading an array out of a record inside the loops
    # costs a reference count each time. (The turn DP's nine fields; the
    # keep outcomes after them are for a card's plan.)
    roll_first, prob, keep_first, keep_units, keep_col, class_base, extra_first, extra_units, \
        extra_col = dice[:9]
    scores, bank_next, zero_next, bank_slot, take_row, offer_first = moves
    W, take_values, reach = values
    D = rules.dice
    score = scores[m]
    T = rules.target - score
    end = T + rows_past_target(rules, reach.shape[1])
    for t in range(A.shape[0]):
        A[t, 0] = 1.0
        if slopes:
            dA[t, 0] = 0.0
        if t >= end:
            past = keep_result(rules, score, t, False) == OVERSHOOT
            reached = reach[w, min(t - T, reach.shape[1] - 1)]
            for n in range(1, D + 1):
                A[t, n] = Z if past else reached
                if slopes:
                    dA[t, n] = 1.0 if past else 0.0
    class_best = np.empty(len(prob))
    class_slope = np.empty(len(prob))
    planned = has_bases(roll_first, class_base, D)
    top = min(roll_rows - 1, end)
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
                            if slopes:
                                best_slope = dA[t + keep_units[k], keep_col[k]] if v > best \
                                    else best_slope
                            best = max(best, v)
                    value += prob[r] * best
                    if slopes:
                        slope += prob[r] * best_slope
                R[t, n] = value
                if slopes:
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
                best = -1.0
                best_slope = 0.0
                if base >= 0:
                    best = class_best[base]
                    if slopes:
                        best_slope = class_slope[base]
                for k in range(k0, k1):
                    v = A[t + extra_units[k], extra_col[k]]
                    if slopes:
                        best_slope = dA[t + extra_units[k], extra_col[k]] if v > best \
                            else best_slope
                    best = max(best, v)
                class_best[r] = best
                value += prob[r] * best
                if slopes:
                    class_slope[r] = best_slope
                    slope += prob[r] * best_slope
            R[t, n] = value
            if slopes:
                dR[t, n] = slope
        if t >= end:
            continue
        for n in range(1, D + 1):
            A[t, n] = R[t, n]
            if slopes:
                dA[t, n] = dR[t, n]
            if not may_bank(rules, score, t, n) or (t < T and bank_next[m, t] < 0):
                continue
            if t >= T:
                b, db = reach[w, t - T], 0.0
            else:
                b, db = bank_value(rules, bank_next, zero_next, bank_slot, take_row,
                                   offer_first, W, take_values, m, w, t, n, Z)
            if b > A[t, n]:
                A[t, n] = b
                if slopes:
                    dA[t, n] = db
    for t in range(top + 1, roll_rows):
        for n in range(1, D + 1):
            R[t, n] = R[top, n]
            if slopes:
                dR[t, n] = dR[top, n]
    return R[0, D], (dR[0, D] if slopes else 0.0)

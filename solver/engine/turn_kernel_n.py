"""The turn DP with N players: the same turn, every player's chance carried.

A turn start with N players is a tuple of player states ``(p_1, ..., p_N)``,
the mover first and the others in seat order after the mover (so ``p_N`` is
the previous player). It is stored as one *node* index, the tuple in base
``P`` (the number of player states), ``p_1`` most significant:

    node = p_1 P^(N-1) + rest,    rest = (p_2, ..., p_N) in base P.

Its value ``V[node]`` is the vector of the N players' probabilities of
winning, component ``k`` for the player ``k`` seats after the mover. The
three ways a turn ends lead to:

    zero turn   : node' = rest P + zero_next[p_1]
    bank of t   : node' = rest P + bank_next[p_1, t]   (offer (t, n) to p_2)
    win         : e_0 (the mover wins, the others lose)

and a value of ``node'`` is brought into this node's frame by the rotation
``rot(v)[k] = v[(k - 1) mod N]`` (the mover of this turn sits last there).
So, with ``Z = rot(V[zero node])`` and ``O`` the offered player's choice,

    B(t, n)  = rot(O(node', t, n)),
    O        = R_{node'}(t, n)   if p_2 may take over, the offer is real and
                                  R_{node'}(t, n)[0] > V[node'][0] + EPS,
             = V[node']          otherwise (rolling fresh wins ties),

and inside the turn :mod:`solver.engine.turn`'s equations hold with vectors, every
choice made by component 0 (the mover's own chance), with docs/rules.md's
tie-break within ``EPS``: bank rather than roll, and among keeps the most
points, then the most dice. Under the chosen policy every value is affine in
the vector ``Z`` with one scalar slope, the probability that the turn ends in
a zero turn: ``V = c + b Z``. With N = 2 this is the two-player DP
(component 1 is one minus component 0).

With a final round (``Rules.final_round``) reaching the target wins nothing
yet: the turn goes on past it, a bank ``k`` units past it is worth
``reach[rest, k]`` (the others' last turns, :mod:`solver.engine.final_round_n`),
and ``E`` units past it (the last column) the mover banks by decree.

A roll class's best keep for the mover is ``max_k A(t + points_k, col_k)[0]``;
without a plan it is taken from the best of the class's base
(:class:`solver.model.dice.DiceArrays`) and the keeps the base lacks, as in
:mod:`solver.engine.turn_kernel` (cinq-mille: 221 comparisons a turn total instead
of 326). With a plan every keep of the class is compared, in the class's
order, so that the chosen keep's index can be recorded. Both give the same
keep: the tie-break (docs/rules.md: the most points, then the most dice) orders
the keeps whatever the order they are compared in (short of a chain of
values each within EPS of the next, wider than EPS end to end).

The policy's range. Every choice compares component 0 of two values, and
under the policy each is ``c + b Z[0]``, so the policy the DP picks at
``Z`` stays its pick for every ``Z'`` with ``dz = Z'[0] - Z[0]`` in an
interval: a comparison of two choices whose difference is ``g`` with slope
``r`` (the difference of their zero-turn probabilities) keeps its outcome
while ``g + r dz`` stays on its side of the tie band ``[-EPS, EPS]`` (and,
within the band, of 0). The DP writes the intersection of these intervals
to ``work.steady`` (empty with a plan): where a new ``Z`` falls inside it,
the DP run there would take the same decisions, so its values are the
affine ``c + b Z``, and :func:`solver.engine.n_player_blocks.solve_block_n` need not
run it.

A decision may instead be *mixed* (docs/rules.md, "Cycles and equilibria"), as
a :class:`NodeMix` says: a bank decision ``(t, n)`` banks with probability
``bank_q[t, n]`` in [0, 1], a keep decision (roll class ``r`` at turn total
``t``) takes keep ``keep_alt[t, r]`` with probability ``keep_q[t, r]`` and
``keep_main[t, r]`` otherwise (-1: the best response). The DP then writes
the mover's margin (banking minus rolling; the alternative keep minus the
main one) and records every decision it takes (``banked``,
``keep_chosen``), so that a caller can see which decisions flip. Without a
plan (arrays of shape (1, 1)) every decision is the best response and
nothing is recorded.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.model.compiled_rules import (
    drop_stale_caches,
    keep_result,
    may_bank,
    offer,
    rows_past_target,
)
from solver.model.turn_rules import OVERSHOOT

drop_stale_caches(__file__)

EPS = 1e-12
"""Two choices within EPS of each other (in the mover's chance) are a tie,
settled by docs/rules.md's tie-break."""

NEAR = 1e-3
"""Keeps further apart than this (in the mover's chance) bound the policy's
range by their gap alone, without reading their slopes."""


class Seats(NamedTuple):
    """How nodes are numbered: ``players`` N, ``P`` player states, powers
    ``P^(N-1)`` (``lead``) and ``P^(N-2)`` (``middle``); and
    ``banked_states``, how many player states a bank leads to (the last
    factor of a take-over row)."""
    players: int
    P: int
    lead: int
    middle: int
    banked_states: int

    @classmethod
    def of(cls, players: int, space) -> "Seats":
        P = space.size
        return cls(players, P, P ** (players - 1), P ** (players - 2),
                   int(np.sum(space.bank_slot >= 0)))


NO_FINAL_ROUND = np.zeros((1, 1, 1))
"""``MultiValues.reach`` of a game where reaching the target wins (never read)."""


class MultiValues(NamedTuple):
    """What the N-player turn DP reads of the solved game: ``V[node, k]``
    and the take-over roll values ``take_values[take_index, t, n - 1, k]``
    of the nodes whose mover may take over and whose previous player has
    just banked (:func:`take_index`); with a final round, ``reach[rest, k]``,
    the vector of a bank ``k`` units past the target by the mover with the
    others at ``rest`` (:mod:`solver.engine.final_round_n`)."""
    V: np.ndarray
    take_values: np.ndarray
    reach: np.ndarray = NO_FINAL_ROUND


class MultiWork(NamedTuple):
    """The DP's arrays: vectors ``R[t, n, k]`` and ``A`` (after a keep, the
    layout of :mod:`solver.engine.turn`) and their slopes ``dR[t, n]``, ``dA``;
    ``steady``, the range ``[lo, hi]`` of ``Z[0]`` moves over which the
    DP's policy stays (module docstring)."""
    R: np.ndarray
    dR: np.ndarray
    A: np.ndarray
    dA: np.ndarray
    steady: np.ndarray


@njit(cache=True)
def multi_work(roll_rows, a_rows, dice, players):
    """A :class:`MultiWork` for DPs of up to ``roll_rows`` roll rows."""
    return MultiWork(np.zeros((roll_rows, dice + 1, players)), np.zeros((roll_rows, dice + 1)),
                     np.zeros((a_rows, dice + 1, players)), np.zeros((a_rows, dice + 1)),
                     np.zeros(2))


class NodeMix(NamedTuple):
    """One node's mixed decisions and the record of its decisions (module
    docstring); ``[t, n]`` for banks, ``[t, r]`` for keeps."""
    bank_q: np.ndarray
    bank_margin: np.ndarray
    banked: np.ndarray
    keep_q: np.ndarray
    keep_main: np.ndarray
    keep_alt: np.ndarray
    keep_margin: np.ndarray
    keep_chosen: np.ndarray


@njit(cache=True, inline="always")
def take_index(seats, take_row, bank_slot, node):
    """Row of ``take_values`` for ``node``, or -1: its mover may take over
    and its previous player has just banked (only such a node is offered
    anything)."""
    p1 = node // seats.lead
    pN = node % seats.P
    row = take_row[p1]
    slot = bank_slot[pN]
    if row < 0 or slot < 0:
        return -1
    middle = (node // seats.P) % seats.middle if seats.players > 2 else 0
    return (row * seats.middle + middle) * seats.banked_states + slot


@njit(cache=True, inline="always")
def rotate_into(out, v, players):
    """``out = rot(v)``: a value of the next turn start, seen from this one."""
    out[0] = v[players - 1]
    for k in range(1, players):
        out[k] = v[k - 1]


@njit(cache=True)
def zero_value(seats, zero_next, V, node, out):
    """``Z = rot(V[node after a zero turn])`` into ``out``."""
    rest = node % seats.lead
    rotate_into(out, V[rest * seats.P + zero_next[node // seats.lead]], seats.players)


@njit(cache=True)
def turn_dp_vec(rules, dice, moves, values, seats, node, Z, roll_rows, work, plan, out):
    """The turn DP of ``node`` (module docstring) given the zero-turn vector
    ``Z`` and the mixed decisions of ``plan``. Fills ``work`` for rows ``t <
    roll_rows``, writes ``V = R(0, D)`` to ``out`` and returns its slope
    ``b``. The decisions are recorded in the plan's rows up to ``min(roll_rows
    - 1, T)``, the turn totals the turn can hold; later rows are left as
    they were."""
    R, dR, A, dA = work[:4]
    bank_q, bank_margin, banked, keep_q, keep_main, keep_alt, keep_margin, keep_chosen = plan
    planned = bank_q.shape[0] > 1
    roll_first, prob, keep_first, keep_units, keep_col, class_base, extra_first, extra_units, \
        extra_col = dice[:9]
    scores, bank_next, zero_next, bank_slot, take_row = moves[:5]
    V, take_values, reach = values
    N = seats.players
    D = rules.dice
    p1 = node // seats.lead
    rest = node % seats.lead
    score = scores[p1]
    T = rules.target - score
    # With a final round the turn goes on past the target, banking at
    # reach, up to end, where it banks by decree.
    end = T + rows_past_target(rules, reach.shape[1])
    top = min(roll_rows - 1, end)
    if planned:
        # Only the rows this turn records: a plan is as long as the target,
        # and clearing all of it cost more than the DP itself.
        banked[:top + 1] = 0
        keep_chosen[:top + 1] = -1
    # Rows a keep can reach from a turn total below the target; those
    # above are never read.
    longest = 0
    for k in range(len(keep_units)):
        longest = max(longest, keep_units[k])
    for t in range(min(A.shape[0], end + longest + 1)):
        past = t >= end and keep_result(rules, score, t, False) == OVERSHOOT
        for k in range(N):
            A[t, 0, k] = 1.0 if k == 0 else 0.0
        dA[t, 0] = 0.0
        if t >= end:
            for n in range(1, D + 1):
                for k in range(N):
                    if past:
                        A[t, n, k] = Z[k]
                    elif rules.final_round:
                        A[t, n, k] = reach[rest, reach.shape[1] - 1, k]
                    else:
                        A[t, n, k] = 1.0 if k == 0 else 0.0
                dA[t, n] = 1.0 if past else 0.0
    bank = np.empty(N)
    lo, hi = -(NEAR - EPS), NEAR - EPS
    # Each roll class's best keep for the mover, for the classes built on it.
    class_best = np.empty(len(prob))
    class_units = np.empty(len(prob), dtype=np.int64)
    class_col = np.empty(len(prob), dtype=np.int64)
    for t in range(top, -1, -1):
        for n in range(1, D + 1):
            for k in range(N):
                R[t, n, k] = 0.0
            slope = 0.0
            if not planned:
                for r in range(roll_first[n], roll_first[n + 1]):
                    k0 = extra_first[r]
                    k1 = extra_first[r + 1]
                    p = prob[r]
                    base = class_base[r]
                    if k0 == k1 and base < 0:           # the zero rolls
                        for k in range(N):
                            R[t, n, k] += p * Z[k]
                        slope += p
                        continue
                    if base >= 0:
                        best, units, col = class_best[base], class_units[base], class_col[base]
                    else:
                        units, col = extra_units[k0], extra_col[k0]
                        best = A[t + units, col, 0]
                        k0 += 1
                    for kk in range(k0, k1):
                        u, c = extra_units[kk], extra_col[kk]
                        v = A[t + u, c, 0]
                        # Slopes differ by at most 1: a comparison of keeps
                        # NEAR apart holds while |dz| < NEAR - EPS, where the
                        # range starts.
                        if v < best - NEAR:
                            continue
                        if v > best + NEAR:
                            best, units, col = v, u, c
                            continue
                        gap, rate = v - best, dA[t + u, c] - dA[t + units, col]
                        if gap > EPS:
                            lo, hi = _hold(lo, hi, gap, rate, EPS, np.inf)
                            best, units, col = v, u, c
                        elif gap < -EPS:
                            lo, hi = _hold(lo, hi, gap, rate, -np.inf, -EPS)
                        elif more_points_or_dice(u, c, units, col, D, n):
                            # The tie goes to v, and the larger of the two
                            # stays the one compared with: keep gap's sign.
                            if gap >= 0.0:
                                lo, hi = _hold(lo, hi, gap, rate, 0.0, np.inf)
                                best = v
                            else:
                                lo, hi = _hold(lo, hi, gap, rate, -EPS, 0.0)
                            units, col = u, c
                        else:
                            lo, hi = _hold(lo, hi, gap, rate, -np.inf, EPS)
                    class_best[r], class_units[r], class_col[r] = best, units, col
                    row = t + units
                    for k in range(N):
                        R[t, n, k] += p * A[row, col, k]
                    slope += p * dA[row, col]
                dR[t, n] = slope
                continue
            for r in range(roll_first[n], roll_first[n + 1]):
                k0 = keep_first[r]
                k1 = keep_first[r + 1]
                p = prob[r]
                if k0 == k1:
                    for k in range(N):
                        R[t, n, k] += p * Z[k]
                    slope += p
                    continue
                chosen = k0
                best = A[t + keep_units[k0], keep_col[k0], 0]
                for kk in range(k0 + 1, k1):
                    v = A[t + keep_units[kk], keep_col[kk], 0]
                    if v > best + EPS:
                        chosen, best = kk, v
                    elif v >= best - EPS and _keeps_more(keep_units, keep_col, D, n, kk,
                                                         chosen):
                        chosen, best = kk, max(v, best)
                if planned:
                    keep_chosen[t, r] = chosen
                    if keep_q[t, r] >= 0.0:
                        main, alt, kq = keep_main[t, r], keep_alt[t, r], keep_q[t, r]
                        row, col = t + keep_units[main], keep_col[main]
                        row2, col2 = t + keep_units[alt], keep_col[alt]
                        keep_margin[t, r] = A[row2, col2, 0] - A[row, col, 0]
                        for k in range(N):
                            R[t, n, k] += p * ((1.0 - kq) * A[row, col, k] + kq * A[row2, col2, k])
                        slope += p * ((1.0 - kq) * dA[row, col] + kq * dA[row2, col2])
                        continue
                row = t + keep_units[chosen]
                col = keep_col[chosen]
                for k in range(N):
                    R[t, n, k] += p * A[row, col, k]
                slope += p * dA[row, col]
            dR[t, n] = slope
        if t >= end:
            continue
        for n in range(1, D + 1):
            for k in range(N):
                A[t, n, k] = R[t, n, k]
            dA[t, n] = dR[t, n]
            if not may_bank(rules, score, t, n):
                continue
            p1_after = bank_next[p1, t] if t < T else -1
            if t >= T:
                # A final round's bank past the target.
                for k in range(N):
                    bank[k] = reach[rest, t - T, k]
                bank_slope = 0.0
            elif p1_after == zero_next[p1]:
                # A bank that changes nothing (a capped score) is a zero turn.
                for k in range(N):
                    bank[k] = Z[k]
                bank_slope = 1.0
            else:
                after = rest * seats.P + p1_after
                chosen_row = V[after]
                offered = offer(rules, n)
                if offered > 0:
                    i = take_index(seats, take_row, bank_slot, after)
                    if i >= 0 and take_values[i, t, offered - 1, 0] > chosen_row[0] + EPS:
                        chosen_row = take_values[i, t, offered - 1]
                rotate_into(bank, chosen_row, N)
                bank_slope = 0.0
            q = bank_q[t, n] if planned else -1.0
            if q < 0.0:
                gap, rate = bank[0] - R[t, n, 0], bank_slope - dR[t, n]
                if gap >= -EPS:
                    lo, hi = _hold(lo, hi, gap, rate, -EPS, np.inf)
                    for k in range(N):
                        A[t, n, k] = bank[k]
                    dA[t, n] = bank_slope
                    if planned:
                        banked[t, n] = 1
                else:
                    lo, hi = _hold(lo, hi, gap, rate, -np.inf, -EPS)
            else:
                bank_margin[t, n] = bank[0] - R[t, n, 0]
                for k in range(N):
                    A[t, n, k] = q * bank[k] + (1.0 - q) * R[t, n, k]
                dA[t, n] = q * bank_slope + (1.0 - q) * dR[t, n]
    for t in range(top + 1, roll_rows):
        for n in range(1, D + 1):
            for k in range(N):
                R[t, n, k] = R[top, n, k]
            dR[t, n] = dR[top, n]
    for k in range(N):
        out[k] = R[0, D, k]
    if planned:
        lo, hi = 0.0, 0.0
    work.steady[0], work.steady[1] = lo, hi
    return dR[0, D]


@njit(cache=True, inline="always")
def _hold(lo, hi, gap, rate, low, high):
    """Narrow ``[lo, hi]`` to the moves ``dz`` over which the difference
    ``gap + rate dz`` of two choices stays in ``[low, high]``, where it is
    at ``dz = 0`` (module docstring, the policy's range)."""
    if rate > 0.0:
        if gap + rate * hi > high:
            hi = (high - gap) / rate
        if gap + rate * lo < low:
            lo = (low - gap) / rate
    elif rate < 0.0:
        if gap + rate * hi < low:
            hi = (low - gap) / rate
        if gap + rate * lo > high:
            lo = (high - gap) / rate
    return lo, hi


@njit(cache=True, inline="always")
def _keeps_more(keep_units, keep_col, D, n, k, than):
    """docs/rules.md's tie-break between keeps ``k`` and ``than``."""
    return more_points_or_dice(keep_units[k], keep_col[k], keep_units[than], keep_col[than],
                                D, n)


@njit(cache=True, inline="always")
def more_points_or_dice(units, col, than_units, than_col, D, n):
    """docs/rules.md's tie-break among keeps: more points, then more dice set
    aside (column ``D`` is hot dice: all ``n`` used; column 0, an instant
    win, is always alone in its roll)."""
    if units != than_units:
        return units > than_units
    used = n if col == D else n - col
    used_than = n if than_col == D else n - than_col
    return used > used_than

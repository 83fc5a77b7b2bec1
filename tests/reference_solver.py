"""A deliberately simple second solver, to check :func:`solver.game.solve`.

It is written from ``RULES.md`` alone (it borrows only the dice engine,
``solver.dice.rolls`` and ``solver.dice.keeps``, which is tested against brute
force on its own), and it shares none of the fast solver's structure: no
player-state space, no levels, no Newton step, no dropped keeps. It is plain
value iteration over every state until nothing moves.

States, in units (``points // unit``), ``T = target_units``:

* turn start ``(a, b)``: mover at score ``a``, waiting player at ``b``, for
  every ``a, b`` in ``0..T-1`` (unreachable scores included; harmless);
* inside the mover's turn ``(a, b, t, n)``: turn total ``t`` in ``0..T-1``,
  ``n`` dice in hand, about to roll them.

Unknowns: ``W[a, b]``, the mover's probability of winning at a turn start,
and ``R[a, b, t, n]``, the mover's probability of winning when about to roll
``n`` dice holding ``t`` (so ``W[a, b] = R[a, b, 0, dice]``; a take-over is
the taker's ``R`` at the offered ``(t, n)``). With ``Z = 1 - W[b, a]`` (a turn
that ends without a bank):

    R(t, n) = sum over rolls p * (Z if the roll has no legal keep, else
                                  max over its keeps of after(t + pts, n - used))
    after(t, u) (u dice unset) =
        1                          an instant-win keep
        1                          a + t >= T (target "at least")
        1 if a + t == T, Z if a + t > T       (exact target)
        R(t, dice)                 hot dice (u = 0), forced
        max(bank(t, u), R(t, u if u > 0 else dice))    otherwise
    bank(t, u) = 1 - max(W[b, s'], R[b, s', t, u] if b may take over and
                         1 <= u <= dice - 1)   allowed if a > 0 or t >= entry
    s' = a + t, or min(a + t, cap) when the last points must come in one turn.

One sweep recomputes every ``W`` and ``R`` from the previous sweep's arrays
(Jacobi). Inside one turn the turn total only grows, so ``R`` of the turn
being swept is computed from the highest ``t`` down and read at once; only
what lies outside the turn (``Z``, the opponent's start values and take-over
values) comes from the previous sweep. Sweeps stop when the largest change of
any ``W`` or ``R`` is below ``tol``.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
from numba import njit, prange

from solver.dice import keeps, rolls
from solver.rules import Rules


def roll_arrays(rules: Rules):
    """Rolls of ``n`` dice for ``n`` in ``1..dice``, as flat arrays.

    Rolls whose sets of (points in units, dice used, wins) are equal are one
    entry with their probabilities added: a keep's effect depends on nothing
    else. No keep is dropped (with an exact target fewer points can be better).
    Rolls of ``n`` dice are ``roll_first[n]..roll_first[n+1]-1``; roll ``r``
    has probability ``prob[r]`` (0 keeps: a zero roll) and keeps
    ``keep_first[r]..keep_first[r+1]-1``.
    """
    roll_first = [0, 0]
    prob, keep_first, pts, used, win = [], [0], [], [], []
    for n in range(1, rules.dice + 1):
        merged: dict[tuple, Fraction] = {}
        for counts, p in rolls(n):
            key = {(k.points // rules.unit, k.used, k.win) for k in keeps(rules, counts)}
            key = tuple(sorted(key))
            merged[key] = merged.get(key, Fraction(0)) + p
        assert sum(merged.values()) == 1
        for key, p in merged.items():
            prob.append(float(p))
            for k_pts, k_used, k_win in key:
                assert k_win or k_pts > 0
                pts.append(k_pts)
                used.append(k_used)
                win.append(k_win)
            keep_first.append(len(pts))
        roll_first.append(len(prob))
    return (np.array(roll_first, np.int64), np.array(prob), np.array(keep_first, np.int64),
            np.array(pts, np.int64), np.array(used, np.int64), np.array(win, np.bool_))


@njit(cache=True)
def bank_allowed(a, t, entry):
    return t > 0 and (a > 0 or t >= entry)


@njit(cache=True)
def bank(W, R, a, b, t, unset, dice, cap, tmin):
    """Mover's value of banking ``t`` (short of the target) with ``unset``
    dice not set aside."""
    s = a + t
    if cap >= 0 and s > cap:
        s = cap
    opp = W[b, s]
    if tmin > 0 and b >= tmin and 1 <= unset <= dice - 1:
        opp = max(opp, R[b, s, t, unset])       # the waiting player takes over if better
    return 1.0 - opp


@njit(cache=True, parallel=True)
def sweep(W, R, W_new, R_new, T, dice, exact, entry, cap, tmin, forced,
          roll_first, prob, keep_first, pts, used, win):
    """One Jacobi sweep: ``W_new``, ``R_new`` from ``W``, ``R``; returns the
    largest change."""
    change = np.zeros(T)
    for a in prange(T):
        # after[t, u]: the mover's value just after a keep that brings the
        # turn total to t and leaves u dice unset (u = 0: hot dice)
        after = np.empty((T + pts.max() + 1, dice))
        for b in range(T):
            Z = 1.0 - W[b, a]
            for t in range(T - a, after.shape[0]):
                after[t, :] = Z if (exact and a + t > T) else 1.0
            # a + t >= T is reached only by taking over; skip it for a non-taker
            top = T - 1 if (tmin > 0 and a >= tmin) else T - a - 1
            for t in range(top, -1, -1):
                for n in range(1, dice + 1):
                    value = 0.0
                    for r in range(roll_first[n], roll_first[n + 1]):
                        best = Z if keep_first[r] == keep_first[r + 1] else 0.0
                        for k in range(keep_first[r], keep_first[r + 1]):
                            v = 1.0 if win[k] else after[t + pts[k], n - used[k]]
                            best = max(best, v)
                        value += prob[r] * best
                    R_new[a, b, t, n] = value
                    change[a] = max(change[a], abs(value - R[a, b, t, n]))
                if a + t >= T:
                    continue
                for u in range(dice):
                    v = R_new[a, b, t, u if u > 0 else dice]
                    if (u > 0 or not forced) and bank_allowed(a, t, entry):
                        v = max(v, bank(W, R, a, b, t, u, dice, cap, tmin))
                    after[t, u] = v
            W_new[a, b] = R_new[a, b, 0, dice]
            change[a] = max(change[a], abs(W_new[a, b] - W[a, b]))
    return change.max()


class Reference:
    """The solved game: ``W[a, b]`` and ``R[a, b, t, n]`` indexed by scores in units."""

    def __init__(self, rules: Rules, W, R, sweeps, seconds):
        self.rules, self.W, self.R, self.sweeps, self.seconds = rules, W, R, sweeps, seconds

    @property
    def first_player_win(self) -> float:
        return float(self.W[0, 0])


def reference_solve(rules: Rules, tol: float = 1e-12, max_sweeps: int = 100_000) -> Reference:
    if rules.crosses:
        raise NotImplementedError("crosses are not modelled by the reference solver")
    started = time.perf_counter()
    T, dice = rules.target_units, rules.dice
    cap = -1 if rules.score_cap_units is None else rules.score_cap_units
    tmin = 0 if rules.takeover_min_units is None else max(1, rules.takeover_min_units)
    arrays = roll_arrays(rules)
    W, R = np.zeros((T, T)), np.zeros((T, T, T, dice + 1))
    W_new, R_new = np.zeros_like(W), np.zeros_like(R)
    for sweeps in range(1, max_sweeps + 1):
        change = sweep(W, R, W_new, R_new, T, dice, rules.exact_target, rules.entry_units,
                       cap, tmin, rules.hot_dice_forced, *arrays)
        W, W_new, R, R_new = W_new, W, R_new, R
        if change < tol:
            break
    else:
        raise RuntimeError(f"no convergence after {max_sweeps} sweeps (change {change:.3g})")
    return Reference(rules, W, R, sweeps, time.perf_counter() - started)

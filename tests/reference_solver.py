"""A deliberately simple second solver, to check :func:`solver.engine.two_player.solve`.

It is written from ``docs/rules.md`` alone (it borrows only the dice engine's
list of every legal keep, ``solver.model.dice.rolls`` and ``solver.model.dice.keeps``
under the keep rule ``any``, which is tested against brute force on its own;
the keep rule ``all`` is applied here: every scoring die set aside, the keep
with the most dice, then the most points, an instant win first), and it shares none of the fast solver's structure: no
levels, no blocks, no Newton step, no dropped keeps, and its own list of
score-sheet lines built here from the rules (not ``solver.model.states``). It is
plain value iteration over every state until nothing moves.

A player's score-sheet line is a *label* ``(s, prev, c)`` in units
(``points // unit``, ``T = target_units``):

* games without crosses: ``(s, 0, 0)``, the banked score alone;
* dix-mille (rule 4, crosses): ``s`` the banked score, ``prev`` the score
  before the player's last bank (0 if none), ``c`` the crosses, ``0 <= c <
  rules.crosses``. Taken literally from docs/rules.md, with no merging:

      turn without a bank: (s, prev, c) -> (s, prev, c + 1)   if c + 1 < crosses
                                        -> (prev, prev, 0)    at the third cross
      bank of t          : (s, prev, c) -> (s + t, s, 0)

  so after a fall ``prev == s`` and a further third cross changes nothing but
  the crosses (one-level memory). The crosses of such a *fallen* line (and of
  a line at score 0) are kept as separate labels although they cannot change
  anything; the tests check that their values agree.
* crosses that cost points (``fall_penalty`` P, ``floor`` F): ``(s, 0, c)``,

      turn without a bank: (s, 0, c) -> (s, 0, c + 1)              if c + 1 < crosses
                                     -> (max(s - P, F), 0, 0)      at the last cross
      bank of t          : (s, 0, c) -> (s + t, 0, 0)

  scores from F up (turn totals up to ``T - F``); the crosses of a line at
  the floor are kept apart although they cannot change anything.

A bank of ``t`` is allowed when ``s + t < T`` (reaching the target wins at
once, see below), ``t`` is at least the minimum bank of every turn, and the
entry is met (``s > 0`` or ``t >=`` entry); with a
last-turn rule the banked score is ``min(s + t, cap)``. The labels are those
reached from ``(0, 0, 0)`` by these two moves (breadth-first), in a list;
``zero_next[p]`` and ``bank_next[p, t]`` (-1: no bank) are the two moves as
indices into it. A label may take over when its score is at least the
take-over minimum (and above 0).

States: turn start ``(p, q)``: mover on line ``p``, waiting player on
``q``, for every pair of labels; inside the mover's turn ``(p, q, t, n)``:
turn total ``t`` in ``0..T-1``, ``n`` dice in hand, about to roll them.

Unknowns: ``W[p, q]``, the mover's probability of winning at a turn start,
and ``R[p, q, t, n]``, the mover's probability of winning when about to roll
``n`` dice holding ``t`` (so ``W[p, q] = R[p, q, 0, dice]``; a take-over is
the taker's ``R`` at the offered ``(t, n)``). With ``a = s(p)`` and ``Z = 1 -
W[q, zero_next[p]]`` (a turn that ends without a bank):

    R(t, n) = sum over rolls pr * (Z if the roll has no legal keep, else
                                   max over its keeps of after(t + pts, n - used))
    after(t, u) (u dice unset) =
        1                          an instant-win keep
        1                          a + t >= T (target "at least")
        1 if a + t == T, Z if a + t > T       (exact target)
        R(t, dice)                 hot dice (u = 0), forced
        max(bank(t, u), R(t, u if u > 0 else dice))    otherwise
    bank(t, u) = 1 - max(W[q, p'], R[q, p', t, u] if q may take over and
                         1 <= u <= dice - 1)   with p' = bank_next[p, t] >= 0

A final round (``rules.final_round``): reaching the target does not win.
From ``a + t >= T`` on the mover may bank (``t`` at least the minimum bank
and the entry, not forced hot dice), which ends the game after the waiting
player's one last turn; the mover wins unless that turn passes ``a + t``:

    bank past the target = 1 - last(q, a + t),   with m = max(1, min bank,
                                                  entry if s(q) = 0), g = f - s(q):
    last(q, f) = Q_g(dice)        if g >= m: equalling f is a bank, worth 1/2
               = P_m(dice)        else: any bank (from m) passes f
    P_need(n)  = sum over rolls pr * (0 if the roll has no legal keep, else
                 max over its keeps of (1 if it wins or pts >= need, else
                 P_{need - pts}(n - used, or dice if 0)))
    Q_r(n)     = sum over rolls pr * (0 if no keep, else max over its keeps
                 of after(r - pts, n - used)),
    after(r', u) = 1 if the keep wins or r' < 0; max(1/2 if u > 0 or hot
                   dice are not forced, Q_0(u or dice)) if r' = 0;
                   Q_{r'}(u or dice) otherwise

(passing ends the last turn at once; a tie shares the win). The mover's rows run past the target
up to ``T - a + E``, ``E`` the fewest units a turn brings with a chance
below 1e-9 (:func:`final_round_cap`), where the mover banks.

One sweep recomputes every ``W`` and ``R`` from the previous sweep's arrays
(Jacobi). Inside one turn the turn total only grows, so ``R`` of the turn
being swept is computed from the highest ``t`` down and read at once; only
what lies outside the turn (``Z``, the opponent's start values and take-over
values) comes from the previous sweep. Rows ``t >= T - a`` are reached only
by taking over: they are left at 0 (never read) for a line that may not take
over; for a taker they are an offer at or past the target, where every keep
overshoots (or wins, in an at-least game), so they are all equal and are
computed once, at ``t = T - a``, and copied. Sweeps start from ``W = R = 0``
and stop when the largest change of any ``W`` or ``R`` is below ``tol``.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from fractions import Fraction

import numpy as np
from numba import njit, prange

from solver.model.dice import keeps, rolls
from solver.model.rules import Rules


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
    free = dataclasses.replace(rules, keep_rule="any")
    for n in range(1, rules.dice + 1):
        merged: dict[tuple, Fraction] = {}
        for counts, p in rolls(n):
            options = keeps(free, counts)
            if rules.keep_rule == "all" and options:
                options = [max(options, key=lambda k: (k.win, k.used, k.points))]
            key = {(k.points // rules.unit, k.used, k.win) for k in options}
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


# ------------------------------------------------------------ score sheets

def after_zero_turn(rules: Rules, label):
    """The line after a turn that ends without a bank (module docstring)."""
    if not rules.crosses:
        return label
    s, prev, c = label
    if c + 1 < rules.crosses:
        return (s, prev, c + 1)
    if rules.fall_penalty:
        return (max(s - rules.fall_penalty // rules.unit, rules.floor // rules.unit), 0, 0)
    return (prev, prev, 0)


def after_bank(rules: Rules, label, t: int):
    """The line after banking ``t`` units, or None where the bank is not
    allowed (entry or minimum bank not met, or ``s + t`` at or past the
    target)."""
    s = label[0]
    if s + t >= rules.target_units or (s == 0 and t < rules.entry_units):
        return None
    if t * rules.unit < rules.min_bank:
        return None
    if not rules.crosses or rules.fall_penalty:
        cap = rules.score_cap_units
        return (s + t if cap is None else min(s + t, cap), 0, 0)
    return (s + t, s, 0)


def sheet_lines(rules: Rules):
    """Labels reached from ``(0, 0, 0)``, and the two moves as index arrays:
    ``(labels, zero_next, bank_next, can_take)``."""
    T = rules.target_units
    rows = T - rules.floor // rules.unit          # from the lowest score to the target
    start = (0, 0, 0)
    labels, seen, todo = [], {start}, deque([start])
    while todo:
        label = todo.popleft()
        labels.append(label)
        for nxt in [after_zero_turn(rules, label)] + [after_bank(rules, label, t)
                                                      for t in range(1, rows)]:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    index = {label: i for i, label in enumerate(labels)}
    P = len(labels)
    zero_next = np.array([index[after_zero_turn(rules, label)] for label in labels], np.int64)
    bank_next = -np.ones((P, rows), np.int64)
    for i, label in enumerate(labels):
        for t in range(1, rows):
            nxt = after_bank(rules, label, t)
            if nxt is not None:
                bank_next[i, t] = index[nxt]
    score = np.array([label[0] for label in labels], np.int64)
    if rules.takeover_min is None or rules.dice < 2:
        can_take = np.zeros(P, np.bool_)
    else:
        can_take = (score > 0) & (score * rules.unit >= rules.takeover_min)
    return labels, zero_next, bank_next, can_take


# ------------------------------------------------------------ final round

def pass_chances(rules: Rules, arrays, most: int) -> np.ndarray:
    """``P[need]``, ``need = 0 .. most`` units: the chance that one turn of
    every die brings at least ``need`` (module docstring), by recursion on
    the need (every keep scores, so the need only falls)."""
    roll_first, prob, keep_first, pts, used, win = arrays
    dice = rules.dice
    P = np.zeros((most + 1, dice + 1))
    P[0, :] = 1.0
    for need in range(1, most + 1):
        for n in range(1, dice + 1):
            value = 0.0
            for r in range(roll_first[n], roll_first[n + 1]):
                best = 0.0
                for k in range(keep_first[r], keep_first[r + 1]):
                    if win[k] or pts[k] >= need:
                        best = 1.0
                    else:
                        left = n - used[k]
                        best = max(best, P[need - pts[k], left if left > 0 else dice])
                value += prob[r] * best
            P[need, n] = value
    return P[:, dice]


def tie_chances(rules: Rules, arrays, most: int) -> np.ndarray:
    """``Q[r]``, ``r = 0 .. most`` units to equal: a last turn's chance,
    a tie counted 1/2 (module docstring), by recursion on ``r``."""
    roll_first, prob, keep_first, pts, used, win = arrays
    dice = rules.dice
    Q = np.zeros((most + 1, dice + 1))

    def after(r, u):
        if r < 0:
            return 1.0
        hot = u == 0
        rolled = Q[r, dice if hot else u]
        if r == 0 and not (hot and rules.hot_dice_forced):
            return max(0.5, rolled)
        return rolled
    for r in range(most + 1):
        for n in range(1, dice + 1):
            value = 0.0
            for i in range(roll_first[n], roll_first[n + 1]):
                best = 0.0
                for k in range(keep_first[i], keep_first[i + 1]):
                    best = max(best, 1.0 if win[k] else after(r - pts[k], n - used[k]))
                value += prob[i] * best
            Q[r, n] = value
    return Q[:, dice]


def final_round_cap(rules: Rules, arrays) -> int:
    """``E``: the fewest units one turn brings with a chance below 1e-9."""
    most = 64
    while True:
        chances = pass_chances(rules, arrays, most)
        if (chances < 1e-9).any():
            return int(np.argmax(chances < 1e-9))
        most *= 2


def final_values(rules: Rules, score, arrays, cap: int) -> np.ndarray:
    """``final[q, k]``: a bank ``k`` units past the target against line ``q``
    (module docstring)."""
    T = rules.target_units
    m = np.maximum(max(1, -(-rules.min_bank // rules.unit)),
                   np.where(score == 0, rules.entry_units, 0))[:, None]
    gap = T + np.arange(cap + 1)[None, :] - score[:, None]
    most = int(max(gap.max(), m.max()))
    shared, enough = tie_chances(rules, arrays, most), pass_chances(rules, arrays, most)
    return 1.0 - np.where(gap >= m, shared[np.maximum(gap, 0)], enough[m])


# ------------------------------------------------------------------ sweep

@njit(cache=True, parallel=True)
def sweep(W, R, W_new, R_new, score, zero_next, bank_next, can_take, T, dice, exact,
          forced, final, min_bank, entry, roll_first, prob, keep_first, pts, used, win):
    """One Jacobi sweep: ``W_new``, ``R_new`` from ``W``, ``R``; returns the
    largest change. ``final``: a final round's bank values (module
    docstring), one column when there is none."""
    P = len(score)
    past = final.shape[1] - 1
    change = np.zeros(P)
    for p in prange(P):
        a = score[p]
        # after[t, u]: the mover's value just after a keep that brings the
        # turn total to t and leaves u dice unset (u = 0: hot dice)
        after = np.empty((R.shape[2] + pts.max() + 1, dice))     # rows from the lowest score
        for q in range(P):
            Z = 1.0 - W[q, zero_next[p]]
            for t in range(T - a + past, after.shape[0]):
                after[t, :] = Z if (exact and a + t > T) else (final[q, past] if past else 1.0)
            # a + t >= T is reached only by taking over: skip it for a non-taker;
            # from t = T - a up every keep ends past the target, so those rows
            # are equal and are computed once, at t = T - a, then copied
            top = min(T - 1, T - a) if can_take[p] else T - a - 1 + past
            for t in range(top, -1, -1):
                for n in range(1, dice + 1):
                    value = 0.0
                    for r in range(roll_first[n], roll_first[n + 1]):
                        best = Z if keep_first[r] == keep_first[r + 1] else 0.0
                        for k in range(keep_first[r], keep_first[r + 1]):
                            v = 1.0 if win[k] else after[t + pts[k], n - used[k]]
                            best = max(best, v)
                        value += prob[r] * best
                    R_new[p, q, t, n] = value
                    change[p] = max(change[p], abs(value - R[p, q, t, n]))
                if a + t >= T and not past:
                    continue
                for u in range(dice):
                    v = R_new[p, q, t, u if u > 0 else dice]
                    if a + t >= T:                  # a final round's bank
                        if (u > 0 or not forced) and t >= min_bank and (a > 0 or t >= entry):
                            v = max(v, final[q, a + t - T])
                        after[t, u] = v
                        continue
                    p2 = bank_next[p, t]
                    if (u > 0 or not forced) and t > 0 and p2 >= 0:
                        opp = W[q, p2]
                        if can_take[q] and 1 <= u <= dice - 1:
                            opp = max(opp, R[q, p2, t, u])   # the waiting player takes over
                        v = max(v, 1.0 - opp)
                    after[t, u] = v
            for t in range(top + 1, T if can_take[p] else 0):
                R_new[p, q, t, :] = R_new[p, q, top, :]
            W_new[p, q] = R_new[p, q, 0, dice]
            change[p] = max(change[p], abs(W_new[p, q] - W[p, q]))
    return change.max()


class Reference:
    """The solved game: ``W[p, q]`` and ``R[p, q, t, n]`` indexed by the
    labels ``labels[p] = (score, previous, crosses)`` (module docstring)."""

    def __init__(self, rules: Rules, labels, W, R, sweeps, seconds):
        self.rules, self.labels, self.W, self.R = rules, labels, W, R
        self.sweeps, self.seconds = sweeps, seconds
        self.index = {label: i for i, label in enumerate(labels)}

    def at(self, score: int, previous: int = 0, crosses: int = 0) -> int:
        """Index of a label (KeyError if it is not reached from the start)."""
        return self.index[(score, previous, crosses)]

    @property
    def first_player_win(self) -> float:
        start = self.at(0)
        return float(self.W[start, start])


def reference_solve(rules: Rules, tol: float = 1e-12, max_sweeps: int = 100_000) -> Reference:
    started = time.perf_counter()
    T, dice = rules.target_units, rules.dice
    labels, zero_next, bank_next, can_take = sheet_lines(rules)
    score = np.array([label[0] for label in labels], np.int64)
    arrays = roll_arrays(rules)
    P = len(labels)
    cap = final_round_cap(rules, arrays) if rules.final_round else 0
    final = final_values(rules, score, arrays, cap) if rules.final_round else np.ones((P, 1))
    rows = T - rules.floor // rules.unit + cap
    W, R = np.zeros((P, P)), np.zeros((P, P, rows, dice + 1))
    W_new, R_new = np.zeros_like(W), np.zeros_like(R)
    for sweeps in range(1, max_sweeps + 1):
        change = sweep(W, R, W_new, R_new, score, zero_next, bank_next, can_take, T, dice,
                       rules.exact_target, rules.hot_dice_forced, final,
                       -(-rules.min_bank // rules.unit), rules.entry_units, *arrays)
        W, W_new, R, R_new = W_new, W, R_new, R
        if change < tol:
            break
    else:
        raise RuntimeError(f"no convergence after {max_sweeps} sweeps (change {change:.3g})")
    return Reference(rules, labels, W, R, sweeps, time.perf_counter() - started)

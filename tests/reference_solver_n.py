"""A deliberately simple N-player solver, to check the fast one
(``solver/multiplayer.py``): the two-player reference ``reference_solver.py``
with a vector of N winning probabilities in place of one number.

It reads the game as ``docs/rules.md`` ("Two or more players") does, and takes
from the two-player reference the two pieces that are one reading of the
rules sheet and are tested there (against the fast two-player solver and by
hand): the score-sheet lines ``sheet_lines`` (labels ``(s, prev, c)`` in
units, ``(s, 0, 0)`` without crosses, the moves ``zero_next`` and
``bank_next``, who may take over) and the rolls ``roll_arrays`` (built from
``solver.model.dice.rolls`` and ``solver.model.dice.keeps``, the keep rule ``all``
applied there). It shares nothing with the fast N-player solver: no levels,
no equilibrium selection, no mixed decisions; plain value iteration over
every tuple of labels until nothing moves.

Players and states. ``N`` players (2 to 4) sit in seats 1..N and play in
turn. A turn start is a tuple of N labels ``(p_1, ..., p_N)``: the mover's
line first, then the others in seat order after the mover (``p_N`` is the
previous player, ``p_2`` the next). Its value is a vector ``W[p_1..p_N]`` of
N probabilities of winning, component ``k`` for the player ``k`` seats after
the mover (component 0: the mover). Inside the mover's turn,
``R[p_1..p_N, t, n]`` is the vector when about to roll ``n`` dice holding
the turn total ``t`` (so ``W = R[., 0, dice]``; a take-over is the taker's
``R`` at the offered ``(t, n)``).

Passing the move on. After the turn the next player moves, so the next turn
start is the tuple rotated by one, the mover's new line last:
``(p_2, ..., p_N, x)``. Its value vector ``v`` is re-expressed in the
current frame by ``rot(v)[k] = v[(k - 1) mod N]`` (the mover of the current
turn is the last player of the next one). With ``a = s(p_1)`` and ``e_0 =
(1, 0, ..., 0)``:

    Z = rot(W[p_2, ..., p_N, zero_next[p_1]])          turn without a bank

    R(t, n) = sum over rolls pr * (Z if the roll has no legal keep,
                                   else after(t + pts, n - used) of the
                                   mover's chosen keep)
    after(t, u) (u dice unset) =
        e_0                        an instant-win keep
        e_0                        a + t >= T (target "at least")
        e_0 if a + t == T, Z if a + t > T      (exact target)
        R(t, dice)                 hot dice (u = 0), forced
        bank(t, u) or R(t, u if u > 0 else dice), the mover's choice
                                   (bank only when t > 0 and bank_next[p_1, t]
                                   >= 0: entry met, a + t < T; the cap of a
                                   last-1,000 game is in bank_next)
    bank(t, u) = rot(O) with x = bank_next[p_1, t] >= 0 and
        O = R[p_2, ..., p_N, x; t, u]  if p_2 may take over, 1 <= u <= dice - 1
                                          and its component 0 exceeds that of
                                          W[p_2, ..., p_N, x] by more than 1e-12
            W[p_2, ..., p_N, x]        otherwise (p_2 rolls fresh: the offer
                                          lapses, the other players never see it)

Decisions (docs/rules.md tie-break): every choice is made on component 0 of the
deciding player's frame: the mover banks when ``bank[0] >= roll[0] - 1e-12``;
among a roll's keeps the mover takes, among those whose component 0 is
within 1e-12 of the best, the one with the most points, then the most dice
(an instant win counts as the best possible); the next player takes over only
when it is better by more than 1e-12. A zero roll has no choice.

Sweeps. Each sweep recomputes every ``W`` and ``R`` (Jacobi): inside one turn
the turn total only grows, so the turn's ``R`` is computed from the highest
``t`` down and read at once, as in the two-player reference; what lies
outside the turn (``Z``, the next turn starts and their take-over values)
comes from the previous sweep. Rows ``t >= T - a`` are reached only by taking
over: left at 0 (never read) for a line that may not take over, computed once
at ``t = T - a`` and copied for a taker (every keep there overshoots or wins).
With a penalty (``fall_penalty``) scores go below 0, down to the floor, and
``R``'s rows run from the lowest score's turn total ``T - floor`` down.
Sweeps start from ``W = R = 0`` and stop when the largest change of any
component of any ``W`` or ``R`` is below ``tol``. With three players or more
the best responses can go round in a cycle (docs/rules.md: no pure equilibrium
at some levels); then the sweeps never settle, and the solver stops after
``max_sweeps`` with ``converged = False`` and marks the turn starts that
still move (``settled``). Seen here: cinq-mille to 1,500 with three players
cycles (period about 60 sweeps, changes ~1e-3) at the scores (0, 0, 850) and
(0, 850, 850) in every seat order, and so at the start (0, 0, 0).

With N = 2 this is the two-player game: component 0 is the two-player
reference's ``W`` (the tests check it) and the components add up to 1.

Given mixed decisions (``mixed``, :class:`Mixed`: a bank taken with
probability ``q`` at ``(turn start, t, u)``; a roll's keep ``alt`` taken
with probability ``q`` and ``main`` otherwise at ``(turn start, t, roll)``),
the sweeps play them as given and best responses everywhere else. A cycle
of best responses is broken where the mixed decisions are those of an
equilibrium; the tests then check the equilibrium conditions on these
values, which owe nothing to the fast solver but the probabilities.
"""

from __future__ import annotations

import itertools
import time
from contextlib import contextmanager
from functools import lru_cache
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange
from reference_solver import final_round_cap, roll_arrays, sheet_lines

from solver.model.rules import Rules

TIE = 1e-12
"""Two choices within this of each other (for the deciding player) are a tie."""


class Mixed(NamedTuple):
    """Mixed decisions, sorted by key: banks at key ``(state * T + t) * dice
    + u`` banked with probability ``bank_q``; keeps at key ``(state * T + t)
    * rolls + r`` (``rolls``: every roll of ``roll_arrays``), where ``alt``
    is taken with probability ``keep_q`` and ``main`` otherwise (indices of
    ``roll_arrays``' keeps)."""
    bank_key: np.ndarray
    bank_q: np.ndarray
    keep_key: np.ndarray
    keep_main: np.ndarray
    keep_alt: np.ndarray
    keep_q: np.ndarray

    @classmethod
    def none(cls) -> "Mixed":
        ints, floats = np.zeros(0, np.int64), np.zeros(0)
        return cls(ints, floats, ints, ints, ints, floats)


@njit(cache=True)
def find(keys, key):
    """Position of ``key`` in the sorted ``keys``, or -1."""
    i = np.searchsorted(keys, key)
    return i if i < len(keys) and keys[i] == key else -1


# ------------------------------------------------------------ final round
#
# A final round (``rules.final_round``): a bank that reaches the target ends
# the game after every other player's last turn, in seat order. Seat j
# (counted from the banker, seat 0) at score s holds turn total t; the
# seats M hold the highest score H. Its chance vector, with e_j seat j
# winning alone, by recursion on t from the top down (choices by seat j's
# own component, ties as in the sweep):
#
#   after a keep to t:  e_j                      an instant win, or the last
#                                                seat passing H (its turn ends)
#                       G[j+1](f, {j}) at f = C  another seat at C = T + (j+1)E
#                       max(bank(t), roll(t))    otherwise, the bank only where
#                                                s + t >= H (not on forced hot dice)
#   bank(t):  s + t == H   G[j+1](H, M + {j})    (the last seat: 1/(|M|+1) each)
#             s + t > H    G[j+1](s + t, {j})
#   no keep:  G[j+1](H, M)                       (the last seat: 1/|M| each)
#
# G[j](H, M) is that vector at t = 0; the mover of the game's turn banking k
# past the target is worth G[1](T + k, {0}).

@njit(cache=True)
def last_turn(s, j, N, H, top, last, bank_final, zero, dice, forced, roll_first, prob,
              keep_first, pts, used, win):
    """Seat ``j``'s vector at its last turn's start from score ``s``
    (``bank_final[f - H]``: a bank at ``f``, ``H <= f <= top``)."""
    rows = top - s + 1
    R = np.zeros((rows + 1, dice + 1, N))
    e_j = np.zeros(N)
    e_j[j] = 1.0
    value = np.empty(N)
    options = np.empty((len(pts), N))
    for t in range(rows - 1, -1, -1):
        for n in range(1, dice + 1):
            value[:] = 0.0
            for r in range(roll_first[n], roll_first[n + 1]):
                first, end = keep_first[r], keep_first[r + 1]
                if first == end:
                    value += prob[r] * zero
                    continue
                best0 = -1.0
                for k in range(first, end):
                    f = s + t + pts[k]
                    u = n - used[k]
                    if win[k] or (last and f > H):
                        options[k] = e_j
                    elif f > top:
                        options[k] = bank_final[top - H]
                    else:
                        options[k] = R[t + pts[k], u if u > 0 else dice]
                        if f >= H and not (forced and u == 0) \
                                and bank_final[f - H, j] >= options[k, j] - TIE:
                            options[k] = bank_final[f - H]
                    best0 = max(best0, options[k, j])
                chosen = -1
                for k in range(first, end):
                    if options[k, j] >= best0 - TIE and (
                            chosen < 0 or pts[k] > pts[chosen]
                            or (pts[k] == pts[chosen] and used[k] > used[chosen])):
                        chosen = k
                value += prob[r] * options[chosen]
            R[t, n] = value
    return R[0, dice].copy()


def final_vectors(rules: Rules, players: int, score, arrays, cap: int) -> np.ndarray:
    """``final[rest, k]``: the vector (banker first) of a bank ``k`` units
    past the target with the others at labels ``rest`` (base P, the next
    seat first), ``k = 0 .. cap`` (the comment above)."""
    T, N, dice = rules.target_units, players, rules.dice

    def shares(mask):
        out = np.array([float(mask >> k & 1) for k in range(N)])
        return out / out.sum()

    @lru_cache(maxsize=None)
    def column(j, mask, later):
        """G[j](H, mask) for H = T .. T + j cap, the seats from j on at ``later``."""
        last = j == N - 1
        out = np.empty((j * cap + 1, N))
        for H in range(T, T + j * cap + 1):
            if last:
                top, zero, bank_final = H, shares(mask), shares(mask | 1 << j)[None, :]
            else:
                top = T + (j + 1) * cap
                zero = column(j + 1, mask, later[1:])[H - T]
                bank_final = column(j + 1, 1 << j, later[1:])[H - T:top - T + 1].copy()
                bank_final[0] = column(j + 1, mask | 1 << j, later[1:])[H - T]
            out[H - T] = last_turn(later[0], j, N, H, top, last, bank_final, zero, dice,
                                   rules.hot_dice_forced, *arrays)
        return out

    P = len(score)
    final = np.zeros((P ** (N - 1), cap + 1, N))
    for rest, labels in enumerate(itertools.product(range(P), repeat=N - 1)):
        final[rest] = column(1, 1, tuple(int(score[i]) for i in labels))[:cap + 1]
    return final


# ------------------------------------------------------------------ sweep

@njit(cache=True)
def rotate(v, out):
    """``out`` = the next turn start's vector ``v`` in the current frame: the
    current mover is the next turn's last player."""
    N = v.shape[0]
    out[0] = v[N - 1]
    for k in range(1, N):
        out[k] = v[k - 1]


@njit(cache=True, parallel=True)
def sweep(W, R, W_new, R_new, N, score, zero_next, bank_next, can_take, T, dice, exact,
          forced, final, min_bank, mixed, roll_first, prob, keep_first, pts, used, win):
    """One Jacobi sweep: ``W_new``, ``R_new`` from ``W``, ``R``; returns, for
    each state, the largest change of any component of its ``W`` and ``R``.

    A state is the flat index ``sum_i p_i P^(N-1-i)`` of its labels (mover
    most significant), so the next turn start ``(p_2, ..., p_N, x)`` is
    ``(state % P^(N-1)) * P + x`` and the next player is ``p_2 = (state %
    P^(N-1)) // P^(N-2)``. ``final``: a final round's bank vectors
    (:func:`final_vectors`), one column when there is none."""
    P = len(score)
    past = final.shape[1] - 1
    S = W.shape[0]
    others = P ** (N - 1)           # tuples of the players after the mover
    change = np.zeros(S)
    rows = R.shape[1] + pts.max() + 1     # R's rows: from the lowest score (a floor) to T
    for state in prange(S):
        mover = state // others
        rest = state % others
        taker = rest // P ** (N - 2)    # the next player: the one an offer goes to
        a = score[mover]

        win_now = np.zeros(N)
        win_now[0] = 1.0
        Z = np.empty(N)
        rotate(W[rest * P + zero_next[mover]], Z)

        # after[t, u]: the mover's vector just after a keep that brings the
        # turn total to t and leaves u dice unset (u = 0: hot dice)
        after = np.empty((rows, dice, N))
        # a keep that takes a + t to the target or past it ends the turn at
        # once; with a final round only past + T - a, where the mover banks
        end = T - a + past
        for t in range(end, rows):
            for u in range(dice):
                after[t, u, :] = Z if (exact and a + t > T) else \
                    final[rest, past] if past else win_now
        # rows t >= T - a are reached only by taking over: skipped for a
        # non-taker; for a taker all equal, computed at t = T - a and copied
        top = min(T - 1, T - a) if can_take[mover] else end - 1
        value = np.empty(N)
        bank = np.empty(N)
        for t in range(top, -1, -1):
            for n in range(1, dice + 1):
                value[:] = 0.0
                for r in range(roll_first[n], roll_first[n + 1]):
                    first, last = keep_first[r], keep_first[r + 1]
                    if first == last:                       # zero roll
                        for k in range(N):
                            value[k] += prob[r] * Z[k]
                        continue
                    m = find(mixed.keep_key, (state * T + t) * len(prob) + r) \
                        if len(mixed.keep_key) else -1
                    if m >= 0:                              # a mixed keep, as given
                        q = mixed.keep_q[m]
                        for choice, weight in ((mixed.keep_main[m], 1.0 - q),
                                               (mixed.keep_alt[m], q)):
                            if win[choice]:
                                value[0] += prob[r] * weight
                            else:
                                for k in range(N):
                                    value[k] += prob[r] * weight * after[
                                        t + pts[choice], n - used[choice], k]
                        continue
                    # the best component 0 among the keeps ...
                    best0 = -1.0
                    for k in range(first, last):
                        v0 = 1.0 if win[k] else after[t + pts[k], n - used[k], 0]
                        best0 = max(best0, v0)
                    # ... then, among the keeps within TIE of it, the most
                    # points, then the most dice
                    chosen = -1
                    for k in range(first, last):
                        v0 = 1.0 if win[k] else after[t + pts[k], n - used[k], 0]
                        if v0 >= best0 - TIE and (
                                chosen < 0 or pts[k] > pts[chosen]
                                or (pts[k] == pts[chosen] and used[k] > used[chosen])):
                            chosen = k
                    if win[chosen]:
                        value[0] += prob[r]
                    else:
                        for k in range(N):
                            value[k] += prob[r] * after[t + pts[chosen], n - used[chosen], k]
                for k in range(N):
                    R_new[state, t, n, k] = value[k]
                    change[state] = max(change[state], abs(value[k] - R[state, t, n, k]))
            if a + t >= T and not past:
                continue
            for u in range(dice):
                roll = R_new[state, t, u if u > 0 else dice]
                if a + t >= T:
                    # a final round's bank past the target (its entry is below T)
                    if (u > 0 or not forced) and t >= min_bank \
                            and final[rest, a + t - T, 0] >= roll[0] - TIE:
                        after[t, u, :] = final[rest, a + t - T]
                    else:
                        after[t, u, :] = roll
                    continue
                x = bank_next[mover, t]
                # no bank on forced hot dice, at t = 0, or where bank_next forbids it
                if (u > 0 or not forced) and t > 0 and x >= 0:
                    nxt = rest * P + x
                    # the next player decides, on their own component 0, from
                    # the previous sweep's values; a tie rolls fresh
                    next_start = W[nxt]
                    if can_take[taker] and 1 <= u <= dice - 1 and R[nxt, t, u, 0] > W[nxt, 0] + TIE:
                        next_start = R[nxt, t, u]   # the next player takes over
                    rotate(next_start, bank)
                    m = find(mixed.bank_key, (state * T + t) * dice + u) \
                        if len(mixed.bank_key) else -1
                    if m >= 0:                      # a mixed bank, as given
                        q = mixed.bank_q[m]
                        for k in range(N):
                            after[t, u, k] = q * bank[k] + (1.0 - q) * roll[k]
                        continue
                    if bank[0] >= roll[0] - TIE:    # a tie banks
                        after[t, u, :] = bank
                        continue
                after[t, u, :] = roll
        for t in range(top + 1, T if can_take[mover] else 0):
            R_new[state, t] = R_new[state, top]
        for k in range(N):
            W_new[state, k] = R_new[state, 0, dice, k]
            change[state] = max(change[state], abs(W_new[state, k] - W[state, k]))
    return change


# ------------------------------------------------------------------ result

class ReferenceN:
    """The solved N-player game (module docstring). ``W`` has shape ``(P,) *
    N + (N,)`` and ``R`` ``(P,) * N + (T - floor, dice + 1, N)``, indexed by label
    indices, mover first; vectors are in the mover's frame (component ``k``:
    the player ``k`` seats after the mover). ``settled`` (shape ``(P,) * N``)
    is True everywhere when the sweeps converged; otherwise it marks the turn
    starts whose ``W`` and ``R`` moved by less than ``tol`` in each of the
    last ``SETTLE_WINDOW`` sweeps (those that a cycle elsewhere does not
    reach: their values are the pure-decision answer)."""

    def __init__(self, rules: Rules, players: int, labels, W, R, sweeps, converged,
                 change, settled, seconds):
        P = len(labels)
        self.rules, self.players, self.labels = rules, players, labels
        self.W = W.reshape((P,) * players + (players,))
        self.R = R.reshape((P,) * players + R.shape[1:])
        self.sweeps, self.converged, self.change, self.seconds = sweeps, converged, change, seconds
        self.settled = settled.reshape((P,) * players)
        self.index = {label: i for i, label in enumerate(labels)}

    def _indices(self, labels_tuple) -> tuple[int, ...]:
        if len(labels_tuple) != self.players:
            raise ValueError(f"{len(labels_tuple)} labels for {self.players} players")
        return tuple(self.index[tuple(label)] for label in labels_tuple)

    def values(self, labels_tuple) -> np.ndarray:
        """The N players' probabilities of winning at this turn start (no
        offer), mover first; KeyError for a label not reached from the start."""
        return self.W[self._indices(labels_tuple)].copy()

    def roll_values(self, labels_tuple, t: int, n: int) -> np.ndarray:
        """The vector ``R`` when the mover of this turn start is about to roll
        ``n`` dice holding ``t`` units (a take-over of the offer ``(t, n)``).
        Rows ``t >= T - score`` of a mover who may not take over are 0."""
        return self.R[self._indices(labels_tuple) + (t, n)].copy()

    def seat_wins(self) -> np.ndarray:
        """Each seat's probability of winning the game, seat 1 first: everyone
        at (0, 0, 0), seat 1 to move, so the start vector itself."""
        return self.values([(0, 0, 0)] * self.players)


PARALLEL_WORK = 10_000_000
"""Roll evaluations per sweep (states x turn totals x roll classes) from which
the sweeps run on every thread. Below it one thread is faster: a sweep of a
small game takes milliseconds, and the parallel loop's start and join each
sweep cost more than they save, many times more on a busy machine (a
thread waiting for a core holds up the whole sweep)."""


@contextmanager
def numba_threads(n: int | None):
    """Run numba's parallel loops on ``n`` threads inside the block (None:
    unchanged)."""
    before = numba.get_num_threads()
    numba.set_num_threads(before if n is None else min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


SETTLE_WINDOW = 100
"""Sweeps over which a state must stay still to count as settled when the
sweeps as a whole do not converge (longer than the cycles seen: ~60 sweeps)."""


def reference_solve_n(rules: Rules, players: int, tol: float = 1e-13,
                      max_sweeps: int = 1_000, mixed: Mixed | None = None) -> ReferenceN:
    """Value iteration (Jacobi) for ``players`` players until the largest
    change is below ``tol``, or ``max_sweeps`` (then ``converged`` is False);
    ``mixed`` decisions are played as given (module docstring).
    The games tried that settle needed at most 343 sweeps at ``tol = 1e-13``
    (an exact target: a player just short of it mostly rolls a zero turn, so
    a turn start that passes the move round to itself gains ~10% a sweep)."""
    if not 2 <= players <= 4:
        raise ValueError(f"players must be 2, 3 or 4, not {players}")
    started = time.perf_counter()
    T, dice, N = rules.target_units, rules.dice, players
    labels, zero_next, bank_next, can_take = sheet_lines(rules)
    score = np.array([label[0] for label in labels], np.int64)
    arrays = roll_arrays(rules)
    S = len(labels) ** N
    # turn totals from the lowest score to the target (below 0 with a penalty)
    rows = T - min(int(score.min()), 0)
    cap = final_round_cap(rules, arrays) if rules.final_round else 0
    final = final_vectors(rules, N, score, arrays, cap) if rules.final_round \
        else np.zeros((1, 1, N))
    rows += cap
    W, R = np.zeros((S, N)), np.zeros((S, rows, dice + 1, N))
    W_new, R_new = np.zeros_like(W), np.zeros_like(R)
    converged = False
    recent = np.zeros(S)        # each state's largest change over the last sweeps
    work = S * T * len(arrays[1])
    with numba_threads(None if work >= PARALLEL_WORK else 1):
        for sweeps in range(1, max_sweeps + 1):
            change = sweep(W, R, W_new, R_new, N, score, zero_next, bank_next, can_take, T,
                           dice, rules.exact_target, rules.hot_dice_forced, final,
                           rules.min_bank_units, mixed or Mixed.none(), *arrays)
            W, W_new, R, R_new = W_new, W, R_new, R
            if change.max() < tol:
                converged = True
                break
            if sweeps > max_sweeps - SETTLE_WINDOW:
                recent = np.maximum(recent, change)
    settled = np.ones(S, np.bool_) if converged else recent < tol
    return ReferenceN(rules, N, labels, W, R, sweeps, converged, float(change.max()),
                      settled, time.perf_counter() - started)

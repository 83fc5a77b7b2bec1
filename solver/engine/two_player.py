"""The two-player solver: levels, the zero-turn tie, take-over, convergence.

Unknowns: ``W[m, w]``, the probability that the player to move wins at the
start of their turn, mover in player state ``m`` and waiting player in
``w``, both playing to maximise their own chance of winning. The turn DP
(:mod:`solver.engine.turn`) gives

    W[m, w] = f_{m,w}(Z),   Z = 1 - W[w, zero_next[m]],

where ``f`` also reads ``W`` (and the take-over roll values ``R``) at the
states a bank leads to.

Order by levels. A bank raises the sum of the two banked scores; a zero turn
keeps it (or, with crosses, lowers it by a fall). So levels ``score[m] +
score[w]`` are solved from the top down, and every bank a turn DP reads is
already final. Inside a level the turn starts that share the same two scores
form a *block*, tied only through their zero-turn values: each node ``i`` of a
block has ``W_i = f_i(1 - W_{s(i)})`` with ``s(i)`` the zero-turn successor
(in the block, or outside it and known).

The tie is solved exactly by Newton's method (policy iteration): ``f_i`` is
convex and piecewise linear in its ``Z``, and under the policy the DP picks
at the current ``Z_i`` it is affine, ``f_i(Z_i) + b_i (Z - Z_i)``, with
slope ``b_i`` the probability that the turn ends in a zero turn. The
linearised system

    x_i = f_i + b_i (1 - x_{s(i)} - Z_i)     (s(i) in the block)
    x_i = f_i                               (s(i) outside)

has one unknown successor per node (a functional graph: chains that end in
one cycle), so it is solved exactly by following the successor pointers and
closing each cycle with ``x = C / (1 - D)``. Repeat with ``Z_i = 1 -
x_{s(i)}`` until the policy no longer changes (``max |x - f| <=
NEWTON_TOL``): usually two DP passes per block, starting from the solved
neighbours' values (:func:`guess_level`). Nodes of a block
whose movers share their bank destinations (they differ only in crosses or
previous score) run their turn DPs together: four lanes at a time, or all
at once where there are more than ``MOST_IN_FOURS``
(:func:`solver.engine.turn_kernel.turn_dp_lanes`).

Take-over: a bank of ``t`` with ``n`` dice unset offers them to the waiting
player, worth ``max(W[w, m'], R_{w,m'}(t, n))`` to them. ``R_{w,m'}`` belongs
to a block of a higher level, so it is final and kept in ``take_values``
while the solve runs (only for player states that may take over, and only
for the turn totals whose bank leads to ``m'``: ``PlayerSpace.offers``).

Falls (crosses) send a zero turn to a lower level, whose values are not yet
known on the way down. Then whole top-down sweeps repeat, each starting from
the previous sweep's values, until the distance to the fixed point, bounded
from the shrinking changes (:func:`error_bound`), is below ``tol``; each
sweep gives a block one Newton step (two in the first), since the next sweep
corrects its inputs anyway. A step with a stale slope ``b'`` lands at
``x`` off by about ``(b - b') dZ`` for a move ``dZ`` of its zero-turn value,
and the same fixed point solves it; so once a sweep has moved no value by
more than ``SLOPE_CHANGE`` (the policy has about settled), the later
sweeps run the DP without slopes (about 25% cheaper) and step with the last
ones computed. Without falls one sweep is exact.

Two seats under rules of their own (:mod:`solver.study.fair_start`): the space's
states carry a seat (``PlayerSpace.seat``) and only turn starts with the
players in different seats exist; reaching the target is worth
``reach[w, k]`` to the mover (``Values.reach``: 1 in every game where it
wins).
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from numba import njit, prange, set_parallel_chunksize

from solver.engine import turn_kernel
from solver.engine.convergence import error_bound, sweeps_expected
from solver.engine.solution import Solution, Values, final_round_reach
from solver.engine.turn import pad
from solver.engine.turn_kernel import LANES, TurnWork, turn_dp_lanes, turn_dp_one
from solver.model.compiled_rules import drop_stale_caches, rows_past_target
from solver.model.dice import keep_table
from solver.model.rules import Rules
from solver.model.states import PlayerSpace, player_space
from solver.model.turn_rules import TurnRules

drop_stale_caches(__file__, turn_kernel.__file__)

NEWTON_TOL = 1e-13
NEWTON_MAX_PASSES = 60
SLOPE_CHANGE = 1e-4
"""A sweep after one that moved some value by more than this recomputes
the slopes; later sweeps reuse them (module docstring)."""
MOST_IN_FOURS = 8
"""A group of more movers runs in one DP of all its lanes, not in fours
(faster from about ten lanes, BENCHMARKS.md)."""


# ---------------------------------------------------------------- structure

class Blocks(NamedTuple):
    """Turn starts grouped into blocks, blocks into levels (top level first),
    and inside a block into lane groups (one turn DP for several movers)."""
    node_m: np.ndarray
    node_w: np.ndarray
    succ_local: np.ndarray
    """Zero-turn successor as an index inside the node's block, or -1."""
    succ_m: np.ndarray
    succ_w: np.ndarray
    group_start: np.ndarray
    """Nodes ``group_start[g]`` to ``group_start[g + 1] - 1`` share the waiting
    player and the mover's bank destinations: one DP with a lane each."""
    block_start: np.ndarray
    """Groups ``block_start[b]`` to ``block_start[b + 1] - 1`` form block ``b``."""
    level_start: np.ndarray
    """Blocks ``level_start[j]`` to ``level_start[j + 1] - 1`` form level ``j``."""


def build_blocks(space: PlayerSpace) -> Blocks:
    P = space.size
    # Movers with the same bank destinations (hence the same score) can share
    # a turn DP: their turns differ only where a zero turn leads.
    _, bank_class = np.unique(np.column_stack([space.score, space.bank_next]), axis=0,
                              return_inverse=True)
    bank_class = bank_class.ravel()
    m, w = np.divmod(np.arange(P * P, dtype=np.int64), P)
    if space.seat is not None:
        # Two seats under their own rules: the players sit in different seats.
        apart = space.seat[m] != space.seat[w]
        m, w = m[apart], w[apart]
    nodes = len(m)
    sm, sw = space.score[m], space.score[w]
    level = sm + sw
    low, high = np.minimum(sm, sw), np.maximum(sm, sw)
    order = np.lexsort((m, bank_class[m], w, high, -level))
    m, w, level, low = m[order], w[order], level[order], low[order]
    position = np.full(P * P, -1, dtype=np.int64)
    position[m * P + w] = np.arange(nodes)

    def starts(new):
        return np.append(np.flatnonzero(new), len(new)).astype(np.int64)
    new_block = np.ones(nodes, dtype=bool)
    new_block[1:] = (level[1:] != level[:-1]) | (low[1:] != low[:-1])
    new_group = new_block.copy()
    new_group[1:] |= (w[1:] != w[:-1]) | (bank_class[m[1:]] != bank_class[m[:-1]])
    group_start = starts(new_group)
    block_of_node = np.cumsum(new_block) - 1
    node_block_start = starts(new_block)
    block_start = np.searchsorted(group_start, node_block_start)
    block_level = level[node_block_start[:-1]]
    new_level = np.ones(len(block_level), dtype=bool)
    new_level[1:] = block_level[1:] != block_level[:-1]
    level_start = starts(new_level)

    succ_m, succ_w = w, space.zero_next[m]
    succ_pos = position[succ_m * P + succ_w]
    same = block_of_node[succ_pos] == block_of_node
    succ_local = np.where(same, succ_pos - node_block_start[block_of_node], -1)
    return Blocks(m, w, succ_local.astype(np.int64), succ_m, succ_w, group_start,
                  block_start.astype(np.int64), level_start)


def guess_level(W: np.ndarray, up: np.ndarray, m: np.ndarray, w: np.ndarray) -> None:
    """Start Newton's method at turn starts ``(m, w)`` of one level from
    solved ones of higher levels (``u`` = ``up``, the same state one score
    up): where all exist,

        W[m, u w] + W[u m, w] - W[u m, u u w] - W[u u m, u w] + W[u u m, u u w],

    the plane through ``(m, u w)``, ``(u m, w)``, ``(u m, u w)`` corrected by
    the mixed second difference one score up; else that plane; else the
    one neighbour that exists. A good start lands in the final policy's
    piece of ``f`` more often: 30% fewer DP passes than the one neighbour
    in quinze-mille-free-keep (BENCHMARKS.md). Writes ``W[m, w]``."""
    def above(states):
        return np.where(states >= 0, up[np.maximum(states, 0)], -1)
    um, uw = above(m), above(w)
    uum, uuw = above(um), above(uw)
    guess = np.where(uw >= 0, W[m, uw], W[um, w])
    plane = (um >= 0) & (uw >= 0)
    guess[plane] += W[um, w][plane] - W[um, uw][plane]
    curved = plane & (uum >= 0) & (uuw >= 0)
    guess[curved] += (W[um, uw] - W[um, uuw] - W[uum, uw] + W[uum, uuw])[curved]
    known = (uw >= 0) | (um >= 0)
    W[m[known], w[known]] = guess[known]


# ------------------------------------------------------------------ kernels

@njit(cache=True, inline="always")
def walk(start, succ, state, path):
    """Follow successors from ``start`` over unvisited nodes (``state`` 0),
    marking them 1 and listing them in ``path``; returns the path's length
    and where on it the walk closed a cycle (-1: it ended at -1 or at a node
    already solved)."""
    length = 0
    i = start
    while i >= 0 and state[i] == 0:
        state[i] = 1
        path[length] = i
        length += 1
        i = succ[i]
    if i < 0 or state[i] != 1:
        return length, -1
    pos = 0
    while path[pos] != i:
        pos += 1
    return length, pos


@njit(cache=True)
def solve_functional(c, d, succ, x, state, path):
    """Solve ``x_i = c_i + d_i x_{succ[i]}`` (``x_i = c_i`` where succ is -1)
    when every node has one successor: walk each chain to its end or its
    cycle, close the cycle exactly, then fill the chain backwards."""
    k = len(c)
    state[:k] = 0
    for start in range(k):
        if state[start] != 0:
            continue
        length, pos = walk(start, succ, state, path)
        if pos >= 0:
            i = path[pos]
            const = 0.0
            coef = 1.0
            for j in range(length - 1, pos - 1, -1):
                node = path[j]
                const = c[node] + d[node] * const
                coef = d[node] * coef
            x[i] = const / (1.0 - coef)
            state[i] = 2
            for j in range(length - 1, pos, -1):
                node = path[j]
                x[node] = c[node] + d[node] * x[succ[node]]
                state[node] = 2
            length = pos
        for j in range(length - 1, -1, -1):
            node = path[j]
            s = succ[node]
            x[node] = c[node] + (d[node] * x[s] if s >= 0 else 0.0)
            state[node] = 2


class Newton(NamedTuple):
    """How one sweep runs Newton's method on a block: at most
    ``max_passes`` DP passes, ``a_rows`` rows of the after-keep table."""
    max_passes: int
    a_rows: int
    slope_passes: int


@njit(cache=True)
def store_offers(take_values, row, slot, first, rows, R):
    """Keep a taker's roll values ``R[t, n]`` for the offers a bank into
    ``slot`` can make (``PlayerSpace.offers``)."""
    for t in range(first, min(first + take_values.shape[2], rows)):
        for n in range(1, R.shape[1] - 1):
            take_values[row, slot, t - first, n - 1] = R[t, n]


@njit(cache=True)
def lanes_work(roll_rows, a_rows, columns, lanes):
    """The DP's arrays for ``lanes`` movers at once (zeros)."""
    return TurnWork(np.zeros((roll_rows, columns, lanes)), np.zeros((roll_rows, columns, lanes)),
                    np.zeros((a_rows, columns, lanes)), np.zeros((a_rows, columns, lanes)))


@njit(cache=True)
def solve_block(b, blocks, newton, rules, dice, moves, values, node_slope):
    """Newton's method on one block (module docstring). Returns the number of
    DP passes and the last ``max |x - f|``. Passes after the first
    ``newton.slope_passes`` run the DP without slopes and solve with the
    slopes last stored in ``node_slope``."""
    W, take_values, reach = values
    D = rules.dice
    past = rows_past_target(rules, reach.shape[1])
    g0, g1 = blocks.block_start[b], blocks.block_start[b + 1]
    n0 = blocks.group_start[g0]
    k = blocks.group_start[g1] - n0
    f = np.empty(k)
    slope = np.empty(k)
    Z = np.empty(k)
    c = np.empty(k)
    d = np.empty(k)
    x = np.empty(k)
    succ = np.empty(k, dtype=np.int64)
    state = np.empty(k, dtype=np.int64)
    path = np.empty(k, dtype=np.int64)
    work1 = TurnWork(np.zeros((rules.rows, D + 1)), np.zeros((rules.rows, D + 1)),
                     np.zeros((newton.a_rows, D + 1)), np.zeros((newton.a_rows, D + 1)))
    widest = 1
    for g in range(g0, g1):
        widest = max(widest, blocks.group_start[g + 1] - blocks.group_start[g])
    # Arrays only as wide as this block's groups need (a lane where unused).
    work = lanes_work(rules.rows, newton.a_rows, D + 1, LANES if widest > 1 else 1)
    work_wide = lanes_work(rules.rows, newton.a_rows, D + 1,
                           widest if widest > MOST_IN_FOURS else 1)
    four_m = np.empty(LANES, dtype=np.int64)
    four_Z = np.empty(LANES)
    four_f = np.empty(LANES)
    four_slope = np.empty(LANES)
    for i in range(k):
        succ[i] = blocks.succ_local[n0 + i]
    change = np.inf
    passes = 0
    while passes < newton.max_passes:
        passes += 1
        slopes = passes <= newton.slope_passes
        for i in range(k):
            if succ[i] >= 0:
                Z[i] = 1.0 - W[blocks.node_m[n0 + succ[i]], blocks.node_w[n0 + succ[i]]]
            else:
                Z[i] = 1.0 - W[blocks.succ_m[n0 + i], blocks.succ_w[n0 + i]]
        for g in range(g0, g1):
            i0 = blocks.group_start[g] - n0
            i1 = blocks.group_start[g + 1] - n0
            m = blocks.node_m[n0 + i0]
            w = blocks.node_w[n0 + i0]
            slot = moves.bank_slot[w]
            # A taker's roll values are kept for every offer a bank can make:
            # the waiting player has just banked (a bank leads to their state).
            takes = slot >= 0 and moves.take_row[m] >= 0
            rows = rules.target if takes else rules.target - moves.score[m] + past
            first = moves.offer_first[slot] if takes else 0
            if i1 - i0 == 1:
                f[i0], slope[i0] = turn_dp_one(rules, dice, moves, values, m, w, Z[i0], rows,
                                               work1, slopes)
                if takes:
                    store_offers(take_values, moves.take_row[m], slot, first, rows, work1.R)
                continue
            if i1 - i0 > MOST_IN_FOURS:
                ms = blocks.node_m[n0 + i0:n0 + i1]
                turn_dp_lanes(rules, dice, moves, values, ms, w, Z[i0:i1], rows, work_wide,
                              f[i0:i1], slope[i0:i1], slopes)
                if takes:
                    for lane in range(i1 - i0):
                        store_offers(take_values, moves.take_row[ms[lane]], slot, first, rows,
                                     work_wide.R[:, :, lane])
                continue
            # A few movers run in fours, the last four padded with its last.
            for c0 in range(i0, i1, LANES):
                c1 = min(c0 + LANES, i1)
                for lane in range(LANES):
                    i = min(c0 + lane, c1 - 1)
                    four_m[lane] = blocks.node_m[n0 + i]
                    four_Z[lane] = Z[i]
                turn_dp_lanes(rules, dice, moves, values, four_m, w, four_Z, rows, work, four_f,
                              four_slope, slopes)
                for lane in range(c1 - c0):
                    f[c0 + lane] = four_f[lane]
                    slope[c0 + lane] = four_slope[lane]
                    if takes:
                        store_offers(take_values, moves.take_row[four_m[lane]], slot, first,
                                     rows, work.R[:, :, lane])
        if slopes:
            node_slope[n0:n0 + k] = slope
        else:
            slope[:] = node_slope[n0:n0 + k]
        for i in range(k):
            if succ[i] >= 0:
                c[i] = f[i] + slope[i] * (1.0 - Z[i])
                d[i] = -slope[i]
            else:
                c[i] = f[i]
                d[i] = 0.0
        solve_functional(c, d, succ, x, state, path)
        change = 0.0
        for i in range(k):
            change = max(change, abs(x[i] - f[i]))
            W[blocks.node_m[n0 + i], blocks.node_w[n0 + i]] = x[i]
        if change <= NEWTON_TOL:
            break
    return passes, change


@njit(cache=True, parallel=True)
def solve_level(b0, b1, blocks, newton, rules, dice, moves, values, node_slope, passes,
                changes):
    for b in prange(b0, b1):
        passes[b], changes[b] = solve_block(b, blocks, newton, rules, dice, moves, values,
                                            node_slope)


# ---------------------------------------------------------------- the solve

def solve(rules: Rules, space: PlayerSpace | None = None, tol: float = 1e-12,
          max_sweeps: int = 200, progress=None, initial: np.ndarray | None = None,
          reach: np.ndarray | None = None) -> Solution:
    """Solve the two-player game on ``space`` (default: the rules' own).
    ``initial`` seeds ``W`` (else each turn start starts from its solved
    neighbours' values, :func:`guess_level`); ``reach`` is ``Values.reach``
    (None: the rules' own, :func:`solver.engine.solution.final_round_reach`).
    ``progress(done, total)`` is called after each level with counts of turn
    starts."""
    started = time.perf_counter()
    space = space or player_space(rules)
    blocks = build_blocks(space)
    P = space.size
    nodes = len(blocks.node_m)
    target = rules.target_units
    dice_arrays = keep_table(rules).packed()
    turn = TurnRules.of(rules)
    moves = space.moves()
    take_row = moves.take_row
    takers = int(np.sum(take_row >= 0))
    banked = int(np.sum(space.bank_slot >= 0))
    offer_rows = space.offers[1]
    take_values = np.zeros((max(takers, 1), banked if takers else 1, offer_rows if takers else 1,
                            max(rules.dice - 1, 1)))

    W = np.full((P, P), 0.5) if initial is None else np.array(initial, dtype=np.float64)
    reach = final_round_reach(rules, space.score) if reach is None else reach
    values = Values(W, take_values, reach)
    n_blocks = len(blocks.block_start) - 1
    passes = np.zeros(n_blocks, dtype=np.int64)
    all_passes = np.zeros(n_blocks, dtype=np.int64)
    changes = np.zeros(n_blocks)
    node_slope = np.zeros(nodes)
    has_falls = bool(np.any(space.score[space.zero_next] < space.score))
    sweeps = 0
    sweep_change = np.inf
    sweep_changes = []
    # Blocks differ a lot in size: hand them to the threads one at a time.
    chunksize = set_parallel_chunksize(1)
    while True:
        sweeps += 1
        before = W.copy() if has_falls else None
        # Without falls one sweep is exact: Newton runs to convergence. With
        # falls every sweep is one step of policy iteration on values that the
        # next sweep corrects anyway, so a block gets one DP pass (two at
        # first, when its policy is still a guess).
        passes_this_sweep = NEWTON_MAX_PASSES if not has_falls else (2 if sweeps == 1 else 1)
        for j in range(len(blocks.level_start) - 1):
            b0, b1 = blocks.level_start[j], blocks.level_start[j + 1]
            if sweeps == 1 and initial is None:
                n0, n1 = blocks.group_start[blocks.block_start[[b0, b1]]]
                guess_level(W, space.up, blocks.node_m[n0:n1], blocks.node_w[n0:n1])
            newton = Newton(passes_this_sweep, pad(rules, turn.rows),
                            passes_this_sweep if sweep_change > SLOPE_CHANGE else 0)
            solve_level(b0, b1, blocks, newton, turn, dice_arrays, moves, values, node_slope,
                        passes, changes)
            if progress is not None:
                expected = sweeps_expected(sweep_changes, tol, max_sweeps) if has_falls else 1
                progress(int(blocks.group_start[blocks.block_start[b1]]) + (sweeps - 1) * nodes,
                         nodes * max(expected, sweeps))
        all_passes += passes
        if not has_falls:
            sweep_change = 0.0
            break
        sweep_change = float(np.max(np.abs(W - before)))
        sweep_changes.append(sweep_change)
        if error_bound(sweep_changes) < tol or sweeps >= max_sweeps:
            break
    set_parallel_chunksize(chunksize)
    seconds = time.perf_counter() - started
    # Work done: rows of the turn DP run for each node, times keeps per row.
    T = target - space.score[blocks.node_m]
    rows = np.where(take_row[blocks.node_m] >= 0, np.minimum(target - 1, T), T) + 1
    node_passes = np.repeat(all_passes, np.diff(blocks.group_start[blocks.block_start]))
    stats = {
        "seconds": seconds,
        "sweeps": sweeps,
        "sweep_change": sweep_change,
        "error_bound": error_bound(sweep_changes) if has_falls else 0.0,
        "sweep_changes": sweep_changes,
        "newton_passes_mean": float(all_passes.mean() / sweeps),
        "newton_passes_max": int(passes.max()),
        "newton_change_max": float(changes.max()),
        "turn_starts": nodes,
        "turn_dp_runs": int(node_passes.sum()),
        "keep_evaluations": int(node_passes @ rows) * len(dice_arrays.keep_units),
    }
    return Solution(rules, space, W, take_row, take_values, stats, reach)

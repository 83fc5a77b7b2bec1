"""The N-player solver's blocks: the score tuples of one level that must be
solved together, and the compiled policy iteration of one block (the
equations are :mod:`solver.engine.n_player`'s). Blocks whose pure policy
cycles are settled by :mod:`solver.engine.equilibrium`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from solver.engine import turn_kernel_n, two_player
from solver.engine.turn_kernel_n import (
    NodeMix,
    multi_work,
    rotate_into,
    take_index,
    turn_dp_vec,
    zero_value,
)
from solver.engine.two_player import walk
from solver.model.compiled_rules import drop_stale_caches, rows_past_target
from solver.model.states import PlayerSpace
from solver.model.turn_rules import TurnRules

drop_stale_caches(__file__, turn_kernel_n.__file__, two_player.__file__)

NEWTON_TOL = 1e-13
PURE_PASSES = 40
"""Policy iteration passes after which a block that has not settled is
taken to cycle (two-player blocks settle in two or three)."""



class MultiBlocks(NamedTuple):
    """Nodes grouped into blocks (rotations of one score tuple), blocks into
    levels (top level first)."""
    node: np.ndarray
    succ_local: np.ndarray
    """Zero-turn successor as an index inside the node's block, or -1."""
    guess: np.ndarray
    """Nodes of higher levels whose values start this one's search:
    ``[i, 0]`` the previous player one score up, ``[i, 1]`` the mover one
    score up, ``[i, 2]`` both; -1 where there is none (:func:`start_value`)."""
    block_start: np.ndarray
    level_start: np.ndarray


class Levels:
    """The levels of the N-player nodes (the sum of the N scores, the top
    first), each level's blocks built when asked (:meth:`blocks`), so that
    a solve holds the blocks of one level at a time, not of every node:
    230 bytes a node when built all at once, which was most of a solve's
    memory (docs/cluster.md). Inside a level the blocks are ordered by
    their key, the smallest rotation of the score tuple (the scores counted
    from the lowest, as digits), and their nodes by number."""

    def __init__(self, space: PlayerSpace, players: int):
        self.space, self.players = space, players
        score = space.score
        self.low, high = int(score.min()), int(score.max())
        self.base = high - self.low + 1
        self.by_score = np.argsort(score, kind="stable")
        self.sorted_score = score[self.by_score]
        # How many nodes each sum has: the states per score, convolved N times.
        per_score = np.bincount(score - self.low)
        per_sum = per_score
        for _ in range(players - 1):
            per_sum = np.convolve(per_sum, per_score)
        present = np.flatnonzero(per_sum)[::-1]
        self.sums = present + players * self.low
        self.sizes = per_sum[present].astype(np.int64)
        """Nodes in each level, the top first."""

    def __len__(self) -> int:
        return len(self.sums)

    def nodes(self, j: int) -> np.ndarray:
        """The nodes of level ``j`` in increasing order: the tuples of
        states whose scores sum to the level's, a player at a time, keeping
        a partial tuple while the players left can still make up the sum."""
        total, N, P = int(self.sums[j]), self.players, self.space.size
        high = self.low + self.base - 1
        nodes = np.zeros(1, dtype=np.int64)
        partial = np.zeros(1, dtype=np.int64)
        for k in range(N):
            rest = N - 1 - k
            first = np.searchsorted(self.sorted_score, total - partial - rest * high, "left")
            last = np.searchsorted(self.sorted_score, total - partial - rest * self.low, "right")
            count = np.maximum(last - first, 0)
            owner = np.repeat(np.arange(len(nodes)), count)
            offset = np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count)
            state = self.by_score[np.repeat(first, count) + offset]
            nodes = nodes[owner] * P + state
            partial = partial[owner] + self.space.score[state]
        return np.sort(nodes)

    def blocks(self, j: int) -> MultiBlocks:
        """Level ``j``'s blocks (``level_start`` is ``[0, blocks]``)."""
        space, P, N = self.space, self.space.size, self.players
        nodes = self.nodes(j)
        states = np.stack(np.unravel_index(nodes, (P,) * N), axis=1)
        digits = space.score[states] - self.low
        weights = self.base ** np.arange(N - 1, -1, -1, dtype=np.int64)
        canonical = np.min([np.roll(digits, -r, axis=1) @ weights for r in range(N)], axis=0)
        order = np.lexsort((nodes, canonical))
        ordered, canonical = nodes[order], canonical[order]
        new_block = np.ones(len(order), dtype=bool)
        new_block[1:] = canonical[1:] != canonical[:-1]
        block_start = _starts(new_block)
        block_of = np.cumsum(new_block) - 1

        # The zero turn's successor, where it is in this level (a fall
        # leaves it), and then in the same block (the rotated tuple).
        lead = P ** (N - 1)
        succ = (ordered % lead) * P + space.zero_next[ordered // lead]
        at = np.minimum(np.searchsorted(nodes, succ), len(nodes) - 1)
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        succ_pos = position[at]
        same = (nodes[at] == succ) & (block_of[succ_pos] == block_of)
        succ_local = np.where(same, succ_pos - block_start[block_of], -1)

        last, first = ordered % P, ordered // lead
        last_up = space.up[last] >= 0
        first_up = space.up[first] >= 0
        prev_up = ordered - last + space.up[last]
        mover_step = (space.up[first] - first) * lead
        guess = np.stack([np.where(last_up, prev_up, -1),
                          np.where(first_up, ordered + mover_step, -1),
                          np.where(last_up & first_up, prev_up + mover_step, -1)], axis=1)
        return MultiBlocks(ordered, succ_local.astype(np.int64), guess.astype(np.int64),
                           block_start, np.array([0, len(block_start) - 1], dtype=np.int64))


def _starts(new: np.ndarray) -> np.ndarray:
    return np.append(np.flatnonzero(new), len(new)).astype(np.int64)


def build_multi_blocks(space: PlayerSpace, players: int) -> MultiBlocks:
    """Every level's blocks at once, :class:`Levels`' blocks one after the
    other: what the solve and the seat evaluation built before they walked
    the levels (the tests read it whole)."""
    levels = Levels(space, players)
    parts = [levels.blocks(j) for j in range(len(levels))]
    node_offsets = np.cumsum([0] + [len(part.node) for part in parts])
    block_counts = [len(part.block_start) - 1 for part in parts]
    block_start = np.concatenate([part.block_start[:-1] + offset
                                  for part, offset in zip(parts, node_offsets)]
                                 + [node_offsets[-1:]])
    return MultiBlocks(np.concatenate([part.node for part in parts]),
                       np.concatenate([part.succ_local for part in parts]),
                       np.concatenate([part.guess for part in parts]),
                       block_start.astype(np.int64),
                       np.cumsum([0] + block_counts).astype(np.int64))


def block_plan(nodes: int, rules, classes: int) -> NodeMix:
    """An empty plan of mixed decisions for a block of ``nodes`` nodes
    (:class:`solver.engine.turn_kernel_n.NodeMix`, one more axis): every decision
    the best response, every decision recorded."""
    rows, D = TurnRules.of(rules).rows, rules.dice
    return NodeMix(-np.ones((nodes, rows, D + 1)), np.zeros((nodes, rows, D + 1)),
                   np.zeros((nodes, rows, D + 1), dtype=np.int8),
                   -np.ones((nodes, rows, classes)), np.zeros((nodes, rows, classes), np.int64),
                   np.zeros((nodes, rows, classes), np.int64), np.zeros((nodes, rows, classes)),
                   np.zeros((nodes, rows, classes), np.int64))


def no_plan() -> NodeMix:
    """No mixed decision and no record: the pure best responses."""
    return NodeMix(-np.ones((1, 1, 1)), np.zeros((1, 1, 1)), np.zeros((1, 1, 1), np.int8),
                   -np.ones((1, 1, 1)), np.zeros((1, 1, 1), np.int64),
                   np.zeros((1, 1, 1), np.int64), np.zeros((1, 1, 1)),
                   np.zeros((1, 1, 1), np.int64))


@njit(cache=True)
def solve_functional_vec(c, d, succ, x, state, path, players):
    """Solve ``x_i = c_i + d_i rot(x_{succ[i]})`` (``x_i = c_i`` where succ is
    -1) for vectors ``c_i`` (module docstring)."""
    k = len(d)
    N = players
    state[:k] = 0
    const = np.empty(N)
    term = np.empty(N)
    turned = np.empty(N)
    for start in range(k):
        if state[start] != 0:
            continue
        length, pos = walk(start, succ, state, path)
        if pos >= 0:
            i = path[pos]
            const[:] = 0.0
            coef = 1.0
            for j in range(length - 1, pos - 1, -1):
                node = path[j]
                rotate_into(turned, const, N)
                for comp in range(N):
                    const[comp] = c[node, comp] + d[node] * turned[comp]
                coef = d[node] * coef
            # x = C + B rot^L x: sum (B rot^L)^j C over the order of rot^L.
            L = (length - pos) % N
            order = 1
            while (order * L) % N != 0:
                order += 1
            x[i, :] = const
            term[:] = const
            for _ in range(order - 1):
                for _ in range(L):
                    rotate_into(turned, term, N)
                    term[:] = turned
                for comp in range(N):
                    term[comp] *= coef
                    x[i, comp] += term[comp]
            scale = 1.0 / (1.0 - coef ** order)
            for comp in range(N):
                x[i, comp] *= scale
            state[i] = 2
            for j in range(length - 1, pos, -1):
                node = path[j]
                rotate_into(turned, x[succ[node]], N)
                for comp in range(N):
                    x[node, comp] = c[node, comp] + d[node] * turned[comp]
                state[node] = 2
            length = pos
        for j in range(length - 1, -1, -1):
            node = path[j]
            s = succ[node]
            if s >= 0:
                rotate_into(turned, x[s], N)
                for comp in range(N):
                    x[node, comp] = c[node, comp] + d[node] * turned[comp]
            else:
                x[node, :] = c[node]
            state[node] = 2


@njit(cache=True, inline="always")
def start_value(V, guess, out):
    """Where policy iteration starts a node: the plane through the solved
    values of the previous player one score up (``p``), the mover one score
    up (``m``) and both (``pm``), ``V[p] + V[m] - V[pm]``, exact where the
    values are linear in the two scores; else the one of ``p`` and ``m``
    that exists. A start in the final policy's piece saves a DP pass: 29%
    fewer than from one neighbour in 3-player cinq-mille-10000
    (BENCHMARKS.md). Where a block has several pure equilibria, the start
    decides which one policy iteration settles on."""
    p, m, pm = guess[0], guess[1], guess[2]
    if pm >= 0:
        for comp in range(len(out)):
            out[comp] = V[p, comp] + V[m, comp] - V[pm, comp]
    elif p >= 0:
        out[:] = V[p]
    elif m >= 0:
        out[:] = V[m]


@njit(cache=True)
def solve_block_n(b, blocks, seats, rules, dice, moves, values, use_guess, max_passes, a_rows,
                  plan):
    """Policy iteration on one block (module docstring), at most
    ``max_passes`` DP passes, with the block's mixed decisions ``plan``
    (:func:`block_plan`, or :func:`no_plan`). Returns the passes and the last ``max |x -
    F(Z)|`` (0 where the last step was accepted unrun); more than NEWTON_TOL
    means the block has not settled."""
    V, take_values, reach = values
    past = rows_past_target(rules, reach.shape[1])
    N = seats.players
    D = rules.dice
    n0 = blocks.block_start[b]
    k = blocks.block_start[b + 1] - n0
    f = np.empty((k, N))
    c = np.empty((k, N))
    Z = np.empty((k, N))
    x = np.empty((k, N))
    slope = np.empty(k)
    d = np.empty(k)
    succ = blocks.succ_local[n0:n0 + k]
    state = np.empty(k, dtype=np.int64)
    path = np.empty(k, dtype=np.int64)
    steady = np.empty((k, 2))
    work = multi_work(rules.rows, a_rows, D, N)
    planned = plan.bank_q.shape[1] > 1
    take = np.empty(k, dtype=np.int64)
    for i in range(k):
        take[i] = take_index(seats, moves.take_row, moves.bank_slot, blocks.node[n0 + i])
    # The slopes of the take-over rows, to carry them to a new Z unrun.
    take_slope = np.empty((k if np.any(take >= 0) else 1, rules.target, max(D - 1, 1)))
    if use_guess:
        for i in range(k):
            start_value(V, blocks.guess[n0 + i], V[blocks.node[n0 + i]])
    change = np.inf
    passes = 0
    while passes < max_passes:
        passes += 1
        for i in range(k):
            if succ[i] >= 0:
                rotate_into(Z[i], V[blocks.node[n0 + succ[i]]], N)
            else:
                zero_value(seats, moves.zero_next, V, blocks.node[n0 + i], Z[i])
        for i in range(k):
            node = blocks.node[n0 + i]
            row = take[i]
            rows = rules.target if row >= 0 else \
                rules.target - moves.score[node // seats.lead] + past
            j = i if planned else 0
            node_plan = NodeMix(plan.bank_q[j], plan.bank_margin[j], plan.banked[j],
                                plan.keep_q[j], plan.keep_main[j], plan.keep_alt[j],
                                plan.keep_margin[j], plan.keep_chosen[j])
            slope[i] = turn_dp_vec(rules, dice, moves, values, seats, node, Z[i], rows, work,
                                   node_plan, f[i])
            steady[i] = work.steady
            if row >= 0:
                for t in range(rows):
                    for n in range(1, D):
                        take_values[row, t, n - 1] = work.R[t, n]
                        take_slope[i, t, n - 1] = work.dR[t, n]
        for i in range(k):
            if succ[i] >= 0:
                for comp in range(N):
                    c[i, comp] = f[i, comp] - slope[i] * Z[i, comp]
                d[i] = slope[i]
            else:
                c[i] = f[i]
                d[i] = 0.0
        solve_functional_vec(c, d, succ, x, state, path, N)
        change = 0.0
        for i in range(k):
            for comp in range(N):
                change = max(change, abs(x[i, comp] - f[i, comp]))
            V[blocks.node[n0 + i]] = x[i]
        if change <= NEWTON_TOL:
            break
        if not planned and _within_steady(x, Z, succ, steady, N):
            # The next pass would take the same decisions (module docstring):
            # its values are x, its take-over rows this pass's moved along
            # their slopes.
            _carry_take_rows(take_values, take, take_slope, x, Z, succ, N)
            change = 0.0
            break
    return passes, change


@njit(cache=True)
def _carry_take_rows(take_values, take, take_slope, x, Z, succ, players):
    """Roll values ``R(t, n)`` of take-over rows moved from ``Z`` to the new
    ``rot(x[succ])``: ``R + dR (Z' - Z)``, exact while the policy holds."""
    moved = np.empty(players)
    for i in range(len(succ)):
        if take[i] < 0 or succ[i] < 0:
            continue
        rotate_into(moved, x[succ[i]], players)
        for comp in range(players):
            moved[comp] -= Z[i, comp]
        rows = take_values[take[i]]
        for t in range(rows.shape[0]):
            for n in range(rows.shape[1]):
                for comp in range(players):
                    rows[t, n, comp] += take_slope[i, t, n] * moved[comp]


@njit(cache=True)
def _within_steady(x, Z, succ, steady, players):
    """Whether every node's new ``Z[0]``, ``x[succ][N - 1]`` (the rotation's
    first component), lies in the range its DP's policy holds over."""
    for i in range(len(succ)):
        if succ[i] >= 0:
            dz = x[succ[i], players - 1] - Z[i, 0]
            if not steady[i, 0] <= dz <= steady[i, 1]:
                return False
    return True


@njit(cache=True, parallel=True)
def solve_level_n(b0, b1, blocks, seats, rules, dice, moves, values, use_guess, a_rows, plan,
                  passes, changes):
    # The passes as a plain integer, not the constant 40: solve_block_n is
    # then the kernel a cycling block calls from Python (BlockGame.run), not
    # a second one numba would compile for the literal.
    max_passes = np.int64(PURE_PASSES)
    for b in prange(b0, b1):
        passes[b], changes[b] = solve_block_n(b, blocks, seats, rules, dice, moves, values,
                                              use_guess, max_passes, a_rows, plan)

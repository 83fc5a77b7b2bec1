"""The model's look-ahead: the next player's turn, played over the law's values.

The model for N players (:mod:`solver.advice.duels`) prices a turn start by a law
``M`` built from the two-player table. Priced that way directly, the end of
my turn misses what the next player does with it: their whole turn, their
take-over of my offer. So the model looks one turn further, one step of the
N-player game's equations (:mod:`solver.engine.turn_kernel_n`) applied to ``M``:

    M1[node]     = the turn DP of node's mover over M:
                   Z = rot(M[node after a zero turn]),
                   B(t, n) = rot(M[node'] or M's take-over row at node'),
                   each choice by the mover's own component;
                   M1[node] = R(0, D), every player's chance
    take1[i]     = that DP's roll values R(t, n), where node's mover may
                   take over (i = take_index(node))

and the player the model advises plays their own turn over ``M1``: a zero
turn is worth ``rot(M1[node after it])``, a bank ``rot(M1[node'])`` or, where
the next player takes the offer (``take1[t, n][0] > M1[node'][0] + EPS``),
``rot(take1[t, n])``. A second step (``M2 = T M1``) lost more than one
where it was tried (quinze-mille, the exponential law: BENCHMARKS.md,
2026-12-02 evening).

Two ways to the same numbers: :func:`step` applies the equations at every
turn start (for :func:`solver.cards.seat_value.model_seat_values`, which measures
the model against an exact table); :func:`next_turns` only at the turn
starts one turn of mine leads to (advice, where ``P^N`` turn starts would
not fit). The second runs the same compiled turn DP on local arrays: the
DP reads the values of its node's successors only through ``rest P + x``
(``rest`` the other players' states, ``x`` the mover's new state) and the
take-over row of the next mover, so with the other players folded into the
arrays (``rest = 0``, one take-over row) the node is the mover's state
alone.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from solver.engine import turn_kernel_n
from solver.engine.n_player_blocks import no_plan
from solver.engine.turn import pad
from solver.engine.turn_kernel_n import (
    MultiValues,
    Seats,
    multi_work,
    take_index,
    turn_dp_vec,
    zero_value,
)
from solver.model.compiled_rules import drop_stale_caches
from solver.model.dice import keep_table
from solver.model.turn_rules import TurnRules

drop_stale_caches(__file__, turn_kernel_n.__file__)

CHUNKS = 64
"""Parallel chunks of turn starts in :func:`step`."""


def _node_plan():
    """One node's empty plan: pure best responses, nothing recorded."""
    return type(no_plan())(*(a[0] for a in no_plan()))


@njit(parallel=True, cache=True)
def _step_all(turn, dice, moves, values, seats, a_rows, plan, V1, take1, chunks):
    """``M1`` and ``take1`` of the module docstring at every turn start."""
    N = seats.players
    total = V1.shape[0]
    for c in prange(chunks):
        work = multi_work(turn.target, a_rows, turn.dice, N)
        Z = np.empty(N)
        for node in range(c * total // chunks, (c + 1) * total // chunks):
            zero_value(seats, moves.zero_next, values.V, node, Z)
            row = take_index(seats, moves.take_row, moves.bank_slot, node)
            rows = turn.target if row >= 0 else turn.target - moves.score[node // seats.lead]
            turn_dp_vec(turn, dice, moves, values, seats, node, Z, rows, work, plan, V1[node])
            if row >= 0:
                for t in range(rows):
                    for n in range(1, turn.dice):
                        take1[row, t, n - 1] = work.R[t, n]


def step(rules, space, players: int, values: MultiValues) -> MultiValues:
    """One step of the module's equations at every turn start of ``players``
    players on ``space``: ``(M1, take1)`` from ``values`` ``(M, take)``."""
    turn = TurnRules.of(rules)
    V1 = np.empty_like(values.V)
    take1 = values.take_values.copy()
    _step_all(turn, keep_table(rules).packed(), space.moves(), values, Seats.of(players, space),
              pad(rules, rules.target_units), _node_plan(), V1, take1, CHUNKS)
    return MultiValues(V1, take1)


@njit(cache=True)
def _next_turn(turn, dice, moves, values, seats, mover, Z, rows, a_rows, plan, out, R):
    """The turn DP of ``mover`` over local arrays (module docstring): its
    chance vector to ``out``, its roll values ``R(t, n)`` (rows below
    ``rows``) to ``R``."""
    work = multi_work(turn.target, a_rows, turn.dice, seats.players)
    turn_dp_vec(turn, dice, moves, values, seats, mover * seats.lead, Z, rows, work, plan, out)
    R[:rows] = work.R[:rows]


def next_turns(rules, space, players: int, mover: int, ends: np.ndarray, zero_values,
               after_values, take_entries, next_may_take: bool):
    """The next player's turn (``mover``, a player state) once for each of
    ``ends``, the states my turn can leave me in: ``(M1, R1)``, each
    player's chance in the mover's frame (me last) per end, and the mover's
    roll values ``R1[end, t, n]`` (None where the mover may not take over).

    The caller gives, per end ``e``, the law's vectors in the frame of the
    player after the mover: ``zero_values[e]`` after the mover's zero turn;
    ``after_values[e, x]`` after the mover banks into state ``x`` (the rows
    the mover's turn can reach); and, where ``next_may_take``, that player's
    take-over rows ``take_entries = (slots, ts, rows)``: ``rows[e, i, n -
    1]`` after the mover banks ``ts[i]`` into the state of bank slot
    ``slots[i]``."""
    turn = TurnRules.of(rules)
    dice = keep_table(rules).packed()
    moves = space.moves()
    may_take = moves.take_row[mover] >= 0
    # The next mover's take-over row: state 0's, the only one the DP reads.
    local_rows = np.full(space.size, -1, dtype=np.int64)
    if next_may_take:
        local_rows[0] = 0
    moves = moves._replace(take_row=local_rows)
    banked = int(np.sum(space.bank_slot >= 0))
    # lead = P, middle = 1: node = mover * P, rest = 0 (module docstring).
    seats = Seats(players, space.size, space.size, 1, banked)
    rows = rules.target_units if may_take else rules.target_units - int(space.score[mover])
    a_rows = pad(rules, rules.target_units)
    plan = _node_plan()
    D = rules.dice
    M1 = np.empty((len(ends), players))
    R1 = np.empty((len(ends), rules.target_units, D + 1, players)) if may_take else None
    unused = np.empty((rules.target_units, D + 1, players))    # roll values no one reads
    take = np.zeros((banked if next_may_take else 1, rules.target_units if next_may_take else 1,
                     max(D - 1, 1), players))
    for e in range(len(ends)):
        if next_may_take:
            slots, ts, entries = take_entries
            take[slots, ts] = entries[e]
        _next_turn(turn, dice, moves, MultiValues(after_values[e], take), seats, mover,
                   np.roll(zero_values[e], 1), rows, a_rows, plan, M1[e],
                   R1[e] if may_take else unused)
    return M1, R1

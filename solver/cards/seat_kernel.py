"""The kernels of :mod:`solver.cards.seat_value`: one turn, one block and one
level of the fixed-policy evaluation of a seat.

D plays a policy of its own, every other player the table's; D sits ``o``
seats after the mover. A turn of ``node`` is a plain expectation, every
decision being given: with ``Z = U[o - 1, node after a zero turn]``,

    R(t, n) = sum_rolls P(roll) * (Z if no keep, else K(keep chosen))
    A(t, n) = q B(t, n) + (1 - q) R(t, n)     (q: the chance of banking)
    B(t, n) = U[o - 1, node']  or, if the next player takes the offer,
              their roll value at (t, n) under the same policies
    win     = 1 if D moves (o = 0), else 0,

With a final round (``Rules.final_round``) the turn goes on past the
target ``T``: a bank ``k = t - T`` units past it is worth D's component
of the table's ``reach[rest, k]`` (:mod:`solver.engine.turn_kernel_n`:
the waiting player's last turn played by the one-turn DP,
:mod:`solver.model.last_turn`, whoever plays it, D or the table; a card's
own last turn is the one-turn DP's too), and ``E`` units past it (the
last column) the mover banks by decree, as the table's turn DP does:

    B(t, n) = reach[rest, t - T][o]        T <= t < T + E
    A(t, n) = reach[rest, E][o]            t >= T + E

and ``R(0, D)`` is affine in ``Z``: :func:`eval_turn` returns it and its
slope, and :func:`eval_block` solves a block's ``U_j = c_j + b_j
U_{s(j)}`` exactly (:func:`solver.engine.two_player.solve_functional`). The decisions
are recorded per node first (:class:`solver.engine.turn_kernel_n.NodeMix`): the
table's from its own turn DP, mixed decisions included; D's from the
two-player table against the leader, the model's turn DP, or a card
(:func:`solver.cards.kernel.card_plan`, one plan for the nodes a card reads
alike).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from solver.cards import card as card_module
from solver.cards import kernel as card_kernel
from solver.cards.kernel import card_plan, card_takes
from solver.engine import turn_kernel_n, two_player
from solver.engine.turn_kernel_n import (
    EPS,
    MultiValues,
    NodeMix,
    multi_work,
    rotate_into,
    take_index,
    turn_dp_vec,
)
from solver.engine.two_player import solve_functional
from solver.model.compiled_rules import (
    drop_stale_caches,
    keep_result,
    may_bank,
    offer,
    rows_past_target,
)
from solver.model.turn_rules import OVERSHOOT

drop_stale_caches(__file__, turn_kernel_n.__file__, two_player.__file__, card_kernel.__file__,
                  card_module.__file__)

TABLE, DUEL, CARD, MODEL = 0, 1, 2, 3
"""What D plays: the table itself (a check), the two-player policy against
the leader, a card, the turn DP over a model's values of every turn start."""


class Policies(NamedTuple):
    """Where the decisions come from: the N-player table (``table_V``,
    ``table_take``; its mixed decisions as flat arrays sorted by node) and
    the two-player table as two-component vectors (``duel_V``,
    ``duel_take``: :func:`solver.advice.duels.duel_values`), and a model's values of the
    N-player turn starts (``model_V``, ``model_take``:
    :func:`solver.advice.duels.model_values`). Flat: numba's parallel loops do not
    take records inside records."""
    table_V: np.ndarray
    table_take: np.ndarray
    mix_node: np.ndarray
    mix_kind: np.ndarray
    """0: bank (``mix_a`` is the dice), 1: keep (``mix_a`` the roll class)."""
    mix_t: np.ndarray
    mix_a: np.ndarray
    mix_main: np.ndarray
    mix_alt: np.ndarray
    mix_q: np.ndarray
    duel_V: np.ndarray
    duel_take: np.ndarray
    model_V: np.ndarray
    model_take: np.ndarray
    reach: np.ndarray
    """With a final round, the table's ``reach[rest, k]``: every player's
    chance after a bank ``k`` units past the target by the mover with the
    others at ``rest`` (:class:`solver.engine.turn_kernel_n.MultiValues`);
    :data:`solver.engine.turn_kernel_n.NO_FINAL_ROUND` without one."""


NO_MODEL = (np.zeros((1, 1)), np.zeros((1, 1, 1, 1)))
"""Values and take-over values where D plays no such policy: arrays of the
right rank."""


class Evaluation(NamedTuple):
    """``U[o, node]`` and D's take-over roll values ``take_U[o, row, t, n -
    1]``; and where D plays a model, the model's own chance at each offer
    (``model_R[row, t, n - 1]``, a roll with ``(t, n)`` in hand) and at a
    fresh start (``model_fresh[row]``), from its turn DP of the node: D
    takes an offer as advice from the model would say."""
    U: np.ndarray
    take_U: np.ndarray
    model_R: np.ndarray
    model_fresh: np.ndarray


@njit(cache=True)
def _table_plan(policies, node, plan, clear):
    """The table's mixed decisions of ``node`` into ``plan`` (whose other
    ``bank_q`` and ``keep_q`` are -1: no mixing); with ``clear``, back to -1."""
    i = np.searchsorted(policies.mix_node, node)
    while i < len(policies.mix_node) and policies.mix_node[i] == node:
        t, a = policies.mix_t[i], policies.mix_a[i]
        if policies.mix_kind[i] == 0:
            plan.bank_q[t, a] = -1.0 if clear else policies.mix_q[i]
        else:
            plan.keep_q[t, a] = -1.0 if clear else policies.mix_q[i]
            plan.keep_main[t, a] = policies.mix_main[i]
            plan.keep_alt[t, a] = policies.mix_alt[i]
        i += 1


@njit(cache=True)
def eval_turn(rules, dice, moves, seats, duel_seats, policies, evaluation, node, o, plan, Z,
              roll_rows, R, A, dR, dA, mode, card, crossed, table_from):
    """The turn of ``node`` with D ``o`` seats after the mover, under the
    decisions recorded in ``plan``, given ``Z``; returns ``(R(0, D), dR/dZ)``
    and leaves the roll values in ``R`` (``crossed`` and ``table_from``: as
    :func:`eval_block` takes them)."""
    roll_first, prob, keep_first, keep_units, keep_col = dice[:5]
    scores, bank_next, zero_next, bank_slot, take_row = moves[:5]
    U, take_U = evaluation.U, evaluation.take_U
    N = seats.players
    D = rules.dice
    p1 = node // seats.lead
    rest = node % seats.lead
    score = scores[p1]
    T = rules.target - score
    win = 1.0 if o == 0 else 0.0
    after_o = (o - 1) % N
    reach = policies.reach
    # With a final round the turn goes on past the target to end, where
    # the mover banks by decree (module docstring).
    end = T + rows_past_target(rules, reach.shape[1])
    ended = reach[rest, reach.shape[1] - 1, o] if rules.final_round else win
    for t in range(A.shape[0]):
        A[t, 0] = win
        dA[t, 0] = 0.0
        if t >= end:
            past = keep_result(rules, score, t, False) == OVERSHOOT
            for n in range(1, D + 1):
                A[t, n] = Z if past else ended
                dA[t, n] = 1.0 if past else 0.0
    top = min(roll_rows - 1, end)
    for t in range(top, -1, -1):
        for n in range(1, D + 1):
            value = 0.0
            slope = 0.0
            for r in range(roll_first[n], roll_first[n + 1]):
                p = prob[r]
                if keep_first[r] == keep_first[r + 1]:
                    value += p * Z
                    slope += p
                    continue
                main = plan.keep_chosen[t, r]
                alt = main
                q = 0.0
                if plan.keep_q[t, r] >= 0.0:
                    main, alt, q = plan.keep_main[t, r], plan.keep_alt[t, r], plan.keep_q[t, r]
                row, col = t + keep_units[main], keep_col[main]
                row2, col2 = t + keep_units[alt], keep_col[alt]
                value += p * ((1.0 - q) * A[row, col] + q * A[row2, col2])
                slope += p * ((1.0 - q) * dA[row, col] + q * dA[row2, col2])
            R[t, n] = value
            dR[t, n] = slope
        if t >= end:
            continue
        for n in range(1, D + 1):
            A[t, n] = R[t, n]
            dA[t, n] = dR[t, n]
            if not may_bank(rules, score, t, n):
                continue
            q = plan.bank_q[t, n]
            if q < 0.0:
                q = float(plan.banked[t, n])
            if q == 0.0:
                continue
            p1_after = bank_next[p1, t] if t < T else -1
            if t >= T:
                # A final round's bank past the target: the waiting
                # player's last turn.
                bank, bank_slope = reach[rest, t - T, o], 0.0
            elif p1_after == zero_next[p1]:
                bank, bank_slope = Z, 1.0
            else:
                after = rest * seats.P + p1_after
                bank, bank_slope = U[after_o, after], 0.0
                offered = offer(rules, n)
                i = take_index(seats, take_row, bank_slot, after) if offered > 0 else -1
                if i >= 0:
                    taker = after // seats.lead
                    # A card's player takes by the card, but near the end
                    # asks the table: the leader is read only for a card.
                    by_card = after_o == 0 and mode == CARD
                    leader_score = 0
                    if by_card:
                        leader_score = leader_of(seats, scores, after)[1]
                        by_card = max(scores[taker], leader_score) < table_from
                    if after_o == 0 and mode == DUEL:
                        # D takes over by the duel model: against the banker.
                        pair = taker * seats.P + p1_after
                        j = take_index(duel_seats, take_row, bank_slot, pair)
                        takes = policies.duel_take[j, t, offered - 1, 0] \
                            > policies.duel_V[pair, 0] + EPS
                    elif after_o == 0 and mode == MODEL:
                        takes = evaluation.model_R[i, t, offered - 1] \
                            > evaluation.model_fresh[i] + EPS
                    elif by_card:
                        takes = card_takes(card, rules, crossed[taker], scores[taker],
                                           leader_score, t, offered)
                    else:
                        takes = policies.table_take[i, t, offered - 1, 0] \
                            > policies.table_V[after, 0] + EPS
                    if takes:
                        bank = take_U[after_o, i, t, offered - 1]
            A[t, n] = q * bank + (1.0 - q) * R[t, n]
            dA[t, n] = q * bank_slope + (1.0 - q) * dR[t, n]
    for t in range(top + 1, roll_rows):
        for n in range(1, D + 1):
            R[t, n] = R[top, n]
    return R[0, D], dR[0, D]


@njit(cache=True)
def eval_block(b, blocks, seats, duel_seats, rules, dice, moves, policies, evaluation, a_rows,
               plans, mode, card, crossed, table_from):
    """Every pair ``(o, node)`` of block ``b``: record the decisions (in
    ``plans``, two per node, their ``bank_q`` and ``keep_q`` -1; a card's
    plan once for the nodes it reads alike), then
    solve the block's linear system exactly; returns the largest change of
    ``U``. ``mode`` says what D plays (TABLE: a check, D's chance is then
    the table's; DUEL; MODEL, the turn DP over ``policies.model_V``; CARD,
    the record ``card``, with ``crossed[p]`` state ``p``'s crosses as the
    card reads them, :func:`solver.model.states.cross_states`, and the table's
    decisions instead wherever a player's score is ``table_from`` units or
    more)."""
    U, take_U = evaluation.U, evaluation.take_U
    N = seats.players
    D = rules.dice
    n0 = blocks.block_start[b]
    k = blocks.block_start[b + 1] - n0
    target = rules.target
    # Turn totals from the lowest score (below 0 with a penalty) to the target.
    vec_work = multi_work(rules.rows, a_rows, D, N)
    duel_work = multi_work(rules.rows, a_rows, D, 2)
    R = np.zeros((rules.rows, D + 1))
    dR = np.zeros((rules.rows, D + 1))
    A = np.zeros((a_rows, D + 1))
    dA = np.zeros((a_rows, D + 1))
    Z_vec = np.empty(N)
    Z_duel = np.empty(2)
    out_vec = np.empty(N)
    out_duel = np.empty(2)
    # The duel and the model are not evaluated in a final round
    # (seat_value refuses them): no reach (numba's tuples take no
    # defaults).
    no_reach = np.zeros((1, 1, 1))
    table = MultiValues(policies.table_V, policies.table_take, policies.reach)
    duel = MultiValues(policies.duel_V, policies.duel_take, no_reach)
    model = MultiValues(policies.model_V, policies.model_take, no_reach)
    pairs = N * k
    c = np.zeros(pairs)
    d = np.zeros(pairs)
    x = np.zeros(pairs)
    succ = -np.ones(pairs, dtype=np.int64)
    state = np.empty(pairs, dtype=np.int64)
    path = np.empty(pairs, dtype=np.int64)
    rows = np.empty(k, dtype=np.int64)
    by_card = np.zeros(k, dtype=np.bool_)
    own_slot = 2 * np.arange(k) + 1
    card_reads = np.empty((k, 3), dtype=np.int64)
    plan_rows = np.empty(k, dtype=np.int64)
    for i in range(k):
        node = blocks.node[n0 + i]
        p1 = node // seats.lead
        rest = node % seats.lead
        take_row_i = take_index(seats, moves.take_row, moves.bank_slot, node)
        # With a final round the turn holds totals past the target too.
        rows[i] = target if take_row_i >= 0 else \
            target - moves.score[p1] + rows_past_target(rules, policies.reach.shape[1])
        plan_rows[i] = rows[i]
        # The table's decisions: its own turn DP, recorded.
        table_plan = _plan(plans, 2 * i)
        _table_plan(policies, node, table_plan, False)
        rotate_into(Z_vec, policies.table_V[rest * seats.P + moves.zero_next[p1]], N)
        turn_dp_vec(rules, dice, moves, table, seats, node, Z_vec, rows[i], vec_work,
                    table_plan, out_vec)
        # D's own: the two-player DP against the leader, the model's, or the card.
        leader, best = leader_of(seats, moves.score, node)
        own_plan = _plan(plans, 2 * i + 1)
        by_card[i] = mode == CARD and max(moves.score[p1], best) < table_from
        if by_card[i]:
            # The card reads only the mover's score and crosses and the
            # leader's score: the nodes of a block that differ in nothing
            # else (their previous scores, the others' crosses) share one
            # plan, made once for the most turn totals any of them needs.
            card_reads[i] = (moves.score[p1], best, crossed[p1])
            for h in range(i):      # the first alike makes the plan
                if by_card[h] and np.all(card_reads[h] == card_reads[i]):
                    own_slot[i] = own_slot[h]
                    plan_rows[h] = max(plan_rows[h], rows[i])
                    break
        elif mode == DUEL:
            pair = p1 * seats.P + leader
            rotate_into(Z_duel, policies.duel_V[leader * seats.P + moves.zero_next[p1]], 2)
            turn_dp_vec(rules, dice, moves, duel, duel_seats, pair, Z_duel, rows[i], duel_work,
                        own_plan, out_duel)
        elif mode == MODEL:
            rotate_into(Z_vec, policies.model_V[rest * seats.P + moves.zero_next[p1]], N)
            turn_dp_vec(rules, dice, moves, model, seats, node, Z_vec, rows[i], vec_work,
                        own_plan, out_vec)
            if take_row_i >= 0:
                evaluation.model_fresh[take_row_i] = out_vec[0]
                for t in range(rows[i]):
                    for n in range(1, D):
                        evaluation.model_R[take_row_i, t, n - 1] = vec_work.R[t, n, 0]
        for o in range(N):
            j = o * k + i
            s = blocks.succ_local[n0 + i]
            if s >= 0:
                succ[j] = ((o - 1) % N) * k + s
    for i in range(k):
        if by_card[i] and own_slot[i] == 2 * i + 1:
            card_plan(card, rules, dice, card_reads[i, 0], card_reads[i, 1], card_reads[i, 2],
                      plan_rows[i], _plan(plans, own_slot[i]))
    for sweep in range(2):
        for i in range(k):
            node = blocks.node[n0 + i]
            p1 = node // seats.lead
            zero_node = (node % seats.lead) * seats.P + moves.zero_next[p1]
            row = take_index(seats, moves.take_row, moves.bank_slot, node)
            if sweep == 1 and row < 0:
                continue            # the second pass only records take-over values
            for o in range(N):
                j = o * k + i
                own = o == 0 and mode != TABLE and (mode != CARD or by_card[i])
                plan = _plan(plans, own_slot[i] if own else 2 * i)
                Z = x[succ[j]] if succ[j] >= 0 else U[(o - 1) % N, zero_node]
                if sweep == 0:
                    Z = 0.0 if succ[j] >= 0 else Z
                value, slope = eval_turn(rules, dice, moves, seats, duel_seats, policies,
                                         evaluation, node, o, plan, Z, rows[i], R, A, dR, dA,
                                         mode, card, crossed, table_from)
                if sweep == 0:
                    c[j] = value
                    d[j] = slope if succ[j] >= 0 else 0.0
                    continue
                if row >= 0:
                    for t in range(rows[i]):
                        for n in range(1, D):
                            take_U[o, row, t, n - 1] = R[t, n]
        if sweep == 0:
            solve_functional(c, d, succ, x, state, path)
    change = 0.0
    for i in range(k):
        node = blocks.node[n0 + i]
        _table_plan(policies, node, _plan(plans, 2 * i), True)
        for o in range(N):
            change = max(change, abs(U[o, node] - x[o * k + i]))
            U[o, node] = x[o * k + i]
    return change


@njit(cache=True, inline="always")
def leader_of(seats, scores, node):
    """The state and score of the leader of the mover's opponents at
    ``node`` (of those level, the nearest after the mover: the seats are
    read from the last, and a tie replaces)."""
    rest = node % seats.lead
    leader = rest // seats.middle
    best = scores[leader]
    for _ in range(seats.players - 1):
        p = rest % seats.P
        rest //= seats.P
        if scores[p] >= best:
            leader, best = p, scores[p]
    return leader, best


@njit(cache=True)
def _plan(plans, i):
    return NodeMix(plans.bank_q[i], plans.bank_margin[i], plans.banked[i], plans.keep_q[i],
                   plans.keep_main[i], plans.keep_alt[i], plans.keep_margin[i],
                   plans.keep_chosen[i])


@njit(cache=True)
def block_plan_compiled(nodes, rows, D, classes):
    return NodeMix(-np.ones((nodes, rows, D + 1)), np.zeros((nodes, rows, D + 1)),
                   np.zeros((nodes, rows, D + 1), dtype=np.int8),
                   -np.ones((nodes, rows, classes)), np.zeros((nodes, rows, classes), np.int64),
                   np.zeros((nodes, rows, classes), np.int64), np.zeros((nodes, rows, classes)),
                   np.zeros((nodes, rows, classes), np.int64))


@njit(cache=True, parallel=True)
def eval_level(b0, b1, blocks, seats, duel_seats, rules, dice, moves, policies, evaluation,
               a_rows, pool, threads, mode, card, crossed, table_from, changes):
    """The blocks of one level; each thread records its plans in its own
    part of ``pool``, made for ``threads`` (allocating them per block cost
    more than the turns). ``threads`` is an argument: ``numba.config`` read
    here would be frozen into the cached kernel, and a cache compiled under
    one thread would hand two threads the same part."""
    per_thread = len(pool.banked) // threads
    for b in prange(b0, b1):
        first = numba.get_thread_id() * per_thread
        plans = NodeMix(pool.bank_q[first:first + per_thread],
                        pool.bank_margin[first:first + per_thread],
                        pool.banked[first:first + per_thread],
                        pool.keep_q[first:first + per_thread],
                        pool.keep_main[first:first + per_thread],
                        pool.keep_alt[first:first + per_thread],
                        pool.keep_margin[first:first + per_thread],
                        pool.keep_chosen[first:first + per_thread])
        changes[b] = eval_block(b, blocks, seats, duel_seats, rules, dice, moves, policies,
                                evaluation, a_rows, plans, mode, card, crossed, table_from)

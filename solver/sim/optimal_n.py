"""The optimal policy of the N-player simulator: the solver's turn DP of a
turn start, the cache of its decisions, and the record the compiled loop
(:mod:`solver.sim.game_loop_n`) reads them from, built from the solved
table (a :class:`solver.engine.solution_n.MultiSolution`).

At every turn start of an optimal seat the loop runs the solver's own turn
DP (:func:`solver.engine.turn_kernel_n.turn_dp_vec`) for the mover's node
with a recording plan (:class:`solver.engine.turn_kernel_n.NodeMix`):
``banked[t, n]`` and ``keep_chosen[t, r]`` (``r`` the roll's class in the
packed dice arrays of :func:`solver.model.dice.keep_table`) are then every
decision of the turn, and the table's mixed decisions of that node
(``bank_q``, ``keep_q``) are drawn with their probability. The taker of an
offer ``(t, n)`` takes it iff its roll value ``R[t, n, 0]`` beats a fresh
turn's ``R[0, D, 0]`` by more than ``EPS``, from the same DP. A DP costs
tens of microseconds (3-player cinq-mille to 1,500: about 50, some twenty
times the play of a turn), so the decisions of a node are kept in a
direct-mapped cache (:class:`TurnCache`: node ``i`` in slot ``i`` modulo
the slots, a new node takes the slot over); its size changes the speed,
never a game.

The DP's rows are every turn total a turn can hold (``TurnRules.rows``):
from the floor (a penalty's scores go below 0), and with a final round
past the target, where a bank is worth the table's ``reach``
(:class:`solver.engine.turn_kernel_n.MultiValues`) and the DP's last row
banks by decree. A line's player state is looked up from the lowest score
up (row ``score - floor``: numba checks no bounds, and a negative row would
read another score's state, silently).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.engine import turn_kernel_n
from solver.engine.n_player_blocks import block_plan, no_plan
from solver.engine.turn import pad
from solver.engine.turn_kernel_n import (
    EPS,
    NO_FINAL_ROUND,
    MultiValues,
    MultiWork,
    NodeMix,
    Seats,
    more_points_or_dice,
    multi_work,
    turn_dp_vec,
    zero_value,
)
from solver.model.compiled_rules import drop_stale_caches
from solver.model.dice import DiceArrays, distinct_outcomes, keep_table, rolls
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.states import Moves
from solver.model.turn_rules import TurnRules
from solver.text import _

drop_stale_caches(__file__, turn_kernel_n.__file__)

CACHE_BYTES = 64 * 2 ** 20
"""Memory for the optimal policy's decisions of recent nodes
(:class:`TurnCache`)."""


class TurnCache(NamedTuple):
    """The decisions of recent nodes, by slot: ``node[slot]`` (-1: empty),
    ``banked[slot, t, n]`` (the plan's ``banked``), ``take[slot, t, n]``
    (take an offer of ``t`` units and ``n`` dice) and ``keep[slot, t,
    choice_of[r]]`` (the plan's ``keep_chosen[t, r]``) for the roll classes
    ``r`` that have a choice (``choice_of[r]`` -1: one keep or none, as
    every class under the keep rule ``all``).

    With a final round (``by_values``) the keeps are not kept: the turn's
    rows past the target (some 16,000 points in Farkle) would make a slot
    so large that the nodes of even a small game no longer fit, and every
    turn start would run its DP again. A slot holds instead the mover's own
    chance after each choice, ``own[slot, t, n]`` (the DP's ``A[t, n, 0]``),
    a seventh of the room, from which the loop picks the keep the DP
    picked, by the DP's very comparisons (:func:`keep_by_values`)."""
    choice_of: np.ndarray
    node: np.ndarray
    banked: np.ndarray
    keep: np.ndarray
    take: np.ndarray
    own: np.ndarray
    by_values: bool


class OptimalN(NamedTuple):
    """What the optimal policy reads: the solved values (``values``, nodes
    numbered by ``seats``, turns by ``moves``), the packed dice arrays of the
    turn DP (``dice``) with ``class_of[roll]`` (the simulator's roll ->
    its class there) and ``keep_used[k]`` (dice a packed keep sets aside),
    the player state ``state_of[score - floor, previous, crosses]`` of a
    line (-1: none; axis 1 of length 1 without crosses or with a penalty,
    axis 2 without crosses), the table's mixed decisions by node
    (``mix_nodes`` sorted, node ``i``'s rows ``mix_first[i]`` to
    ``mix_first[i + 1] - 1`` of ``mix_rows`` (kind 0 bank / 1 keep, t, n
    or r, main, alt) and ``mix_q``), the DP's working arrays (``work``,
    ``plan``, ``zero``, ``out``) and the decisions of recent nodes
    (``cache``)."""
    seats: Seats
    dice: DiceArrays
    class_of: np.ndarray
    keep_used: np.ndarray
    moves: Moves
    values: MultiValues
    state_of: np.ndarray
    mix_nodes: np.ndarray
    mix_first: np.ndarray
    mix_rows: np.ndarray
    mix_q: np.ndarray
    work: MultiWork
    plan: NodeMix
    zero: np.ndarray
    out: np.ndarray
    cache: TurnCache
    plan_node: np.ndarray
    """The node whose mixed decisions the plan holds (one value; -1: none)."""


# A record passed to a compiled function that is not inlined costs an
# atomic reference count (up and down) per array it holds, per call: the
# optimal record holds some fifty, and passed at every turn start they took
# most of the loop's time (one array more: a tenth slower). So what the loop
# runs at every turn start (cached_slot) takes a few arrays; the record goes
# only to load_mixes and fill_turn, when the node changes and has mixed
# decisions, or is not in the cache. (Inlined, cached_slot and
# keep_by_values made the loop of the other policies some 5% slower: more
# code in it.)

@njit(cache=True)
def cached_slot(rules, state_of, P, score, previous, crosses, mover, cache_node, plan_node,
                has_mixes):
    """``(node, slot)`` of the mover's turn start (:func:`mover_node`): node
    -1 for a line the table lacks, ``-2 - node`` where the plan lacks the
    node's mixed decisions (:func:`load_mixes`); slot -1 where the cache
    lacks the node's decisions (:func:`fill_turn`)."""
    node = mover_node(rules, state_of, P, score, previous, crosses, mover)
    if node < 0:
        return -1, 0
    # Every node its own slot when they all fit (no hash collisions).
    slot = node % len(cache_node)
    if cache_node[slot] != node:
        slot = -1
    if has_mixes and plan_node[0] != node:
        return -2 - node, slot
    return node, slot


@njit(cache=True, inline="always")
def mover_node(rules, state_of, P, score, previous, crosses, mover):
    """The node of the turn start: every seat's player state, the mover's
    first and then the others in seat order after the mover; -1 if a line
    is not a state of the table. A line's row is ``score - floor`` (a
    penalty's scores go below 0, and numba checks no bounds: a negative row
    would read another score's state, silently); a penalty's line keeps no
    previous score (axis 1 of length 1)."""
    N = len(score)
    node = 0
    for k in range(N):
        seat = (mover + k) % N
        row = score[seat] - rules.floor
        if rules.crosses == 0:
            p = state_of[row, 0, 0]
        elif rules.penalty > 0:
            p = state_of[row, 0, crosses[seat]]
        else:
            p = state_of[row, previous[seat], crosses[seat]]
        if p < 0:
            return -1
        node = node * P + p
    return node


@njit(cache=True, inline="always")
def _set_mixes(optimal, node, on):
    """Write node's mixed decisions into the plan (``on``), or blank them."""
    nodes, rows, plan = optimal.mix_nodes, optimal.mix_rows, optimal.plan
    i = np.searchsorted(nodes, node)
    if i >= len(nodes) or nodes[i] != node:
        return
    for j in range(optimal.mix_first[i], optimal.mix_first[i + 1]):
        t, where = rows[j, 1], rows[j, 2]
        q = optimal.mix_q[j] if on else -1.0
        if rows[j, 0] == 0:
            plan.bank_q[t, where] = q
        else:
            plan.keep_q[t, where] = q
            plan.keep_main[t, where] = rows[j, 3]
            plan.keep_alt[t, where] = rows[j, 4]


@njit(cache=True)
def load_mixes(optimal, node):
    """Put the table's mixed decisions of ``node`` into the plan, in place
    of those of the node it held."""
    old = optimal.plan_node[0]
    if old == node:
        return
    if old >= 0:
        _set_mixes(optimal, old, False)
    _set_mixes(optimal, node, True)
    optimal.plan_node[0] = node


@njit(cache=True)
def fill_turn(rules, optimal, node, slot):
    """Run the turn DP of ``node`` (its mixed decisions in the plan) and
    write its decisions into the cache's ``slot``."""
    cache = optimal.cache
    zero_value(optimal.seats, optimal.moves.zero_next, optimal.values.V, node, optimal.zero)
    # Every turn total a turn can hold (TurnRules.rows: from the floor, and
    # with a final round past the target); an offer's roll value is read at
    # its turn total, below the target.
    turn_dp_vec(rules, optimal.dice, optimal.moves, optimal.values, optimal.seats, node,
                optimal.zero, rules.rows, optimal.work, optimal.plan, optimal.out)
    R, D = optimal.work.R, rules.dice
    cache.node[slot] = node
    cache.banked[slot] = optimal.plan.banked
    if cache.by_values:
        cache.own[slot] = optimal.work.A[:, :, 0]
    else:
        chosen, choice_of = optimal.plan.keep_chosen, cache.choice_of
        for t in range(rules.rows):
            for r in range(len(choice_of)):
                if choice_of[r] >= 0:
                    cache.keep[slot, t, choice_of[r]] = chosen[t, r]
    for t in range(rules.target):
        for n in range(1, D + 1):
            cache.take[slot, t, n] = R[t, n, 0] > R[0, D, 0] + EPS


@njit(cache=True)
def keep_by_values(own, slot, t, n, c, keep_first, keep_units, keep_col, D):
    """The keep of roll class ``c`` (of ``n`` dice) at turn total ``t`` that
    the turn DP chose (:func:`solver.engine.turn_kernel_n.turn_dp_vec` with
    a plan): its comparisons of the mover's own chances, in the class's
    order."""
    k0, k1 = keep_first[c], keep_first[c + 1]
    chosen = k0
    best = own[slot, t + keep_units[k0], keep_col[k0]]
    for k in range(k0 + 1, k1):
        v = own[slot, t + keep_units[k], keep_col[k]]
        if v > best + EPS:
            chosen, best = k, v
        elif v >= best - EPS and more_points_or_dice(keep_units[k], keep_col[k],
                                                      keep_units[chosen], keep_col[chosen], D, n):
            chosen, best = k, max(v, best)
    return chosen


# ------------------------------------------------------------- the records

def class_of_rolls(rules: Rules, dice) -> np.ndarray:
    """For each roll of the simulator's dice tables
    (:func:`solver.sim.dice.dice_tables`), its class in the turn DP's packed
    dice arrays: the class whose keeps have the roll's distinct outcomes
    (:func:`solver.model.dice.distinct_outcomes`)."""
    packed = keep_table(rules).packed()
    D = rules.dice
    classes = {}
    for n in range(1, D + 1):
        for c in range(packed.roll_first[n], packed.roll_first[n + 1]):
            keeps = range(packed.keep_first[c], packed.keep_first[c + 1])
            key = frozenset(("win",) if packed.keep_col[k] == 0 else
                            (int(packed.keep_units[k]), n if packed.keep_col[k] == D
                             else n - int(packed.keep_col[k])) for k in keeps)
            classes[n, key] = c
    out = np.zeros(len(dice.prob), dtype=np.int64)
    r = 0
    for n in range(1, D + 1):
        for counts, _p in rolls(n):
            key = frozenset(("win",) if win else (units, used)
                            for units, used, win in distinct_outcomes(rules, counts))
            out[r] = classes[n, key]
            r += 1
    return out


def packed_keep_used(rules: Rules) -> np.ndarray:
    """Dice set aside by each keep of the packed dice arrays."""
    packed = keep_table(rules).packed()
    n_of_class = np.repeat(np.arange(rules.dice + 1), np.diff(packed.roll_first))
    n_of_keep = np.repeat(n_of_class, np.diff(packed.keep_first))
    return np.where(packed.keep_col == rules.dice, n_of_keep,
                    n_of_keep - packed.keep_col).astype(np.int64)


def _mix_arrays(solution):
    """The table's mixed decisions by node, as :class:`OptimalN` holds them."""
    nodes = sorted(solution.mixed)
    first, rows, q = [0], [], []
    for node in nodes:
        for kind, t, *where, prob in solution.mixed[node]:
            rows.append((0, t, where[0], 0, 0) if kind == "bank" else (1, t, *where))
            q.append(prob)
        first.append(len(rows))
    return (np.array(nodes, dtype=np.int64), np.array(first, dtype=np.int64),
            np.array(rows, dtype=np.int64).reshape(-1, 5), np.array(q, dtype=np.float64))


def _state_map(rules: Rules, space) -> np.ndarray:
    """``state_of[score - floor, previous, crosses]``: the player state of a
    line, rows from the lowest score (a penalty's floor, below 0:
    :func:`mover_node`); axis 1 of length 1 where the line keeps no previous
    score (no crosses, or a penalty)."""
    rows, floor = rules.turn_rows_units, rules.floor_units
    if not rules.crosses or rules.fall_penalty:
        state_of = -np.ones((rows, 1, max(rules.crosses, 1)), dtype=np.int64)
        state_of[space.score - floor, 0, space.crosses] = np.arange(space.size)
        return state_of
    state_of = -np.ones((rows, rows, rules.crosses), dtype=np.int64)
    state_of[space.score, space.previous, space.crosses] = np.arange(space.size)
    return state_of


def optimal_record(rules: Rules, solution, dice, players: int) -> OptimalN:
    """The optimal policy's record from the table ``solution``, or a small
    stand-in of the same types when no seat plays it (so that one compiled
    loop serves every run)."""
    packed = keep_table(rules).packed()
    if solution is None:
        return _stand_in(players, packed)
    if len(packed.keep_units) >= 2 ** 15:
        raise UsageError(_("{game} has too many keeps for the simulator's cache").format(
            game=rules.name))
    # The turn DP's rows: every turn total a turn can hold (from the floor,
    # and with a final round past the target: TurnRules.rows).
    D, rows, N = rules.dice, TurnRules.of(rules).rows, players
    space = solution.space
    a_rows = pad(rules, rows)
    work = multi_work(rows, a_rows, D, N)
    values = MultiValues(np.ascontiguousarray(solution.V, dtype=np.float64),
                         np.ascontiguousarray(solution.take_values, dtype=np.float64),
                         NO_FINAL_ROUND if solution.reach is None else
                         np.ascontiguousarray(solution.reach, dtype=np.float64))
    # The solver's block plan of one node: every decision recorded.
    plan = NodeMix(*(array[0] for array in block_plan(1, rules, len(packed.prob))))
    return OptimalN(Seats.of(N, space), packed, class_of_rolls(rules, dice),
                    packed_keep_used(rules), space.moves(), values, _state_map(rules, space),
                    *_mix_arrays(solution), work, plan, np.zeros(N), np.zeros(N),
                    _turn_cache(len(solution.V), rows, D, packed, a_rows, rules.final_round),
                    -np.ones(1, dtype=np.int64))


def _stand_in(players: int, packed) -> OptimalN:
    one, N = np.zeros(1, dtype=np.int64), players
    moves = Moves(one, np.zeros((1, 1), dtype=np.int64), one, one, one, one)
    values = MultiValues(np.zeros((1, N)), np.zeros((1, 1, 1, N)))
    mixes = (one[:0], one, np.zeros((0, 5), dtype=np.int64), np.zeros(0))
    work = multi_work(1, 1, 0, N)
    return OptimalN(Seats(N, 1, 1, 1, 1), packed, one, one, moves, values,
                    -np.ones((1, 1, 1), dtype=np.int64), *mixes, work,
                    NodeMix(*(array[0] for array in no_plan())), np.zeros(N), np.zeros(N),
                    _turn_cache(1, 1, 1, packed), -np.ones(1, dtype=np.int64))


def _turn_cache(nodes: int, rows: int, D: int, packed, a_rows: int = 1,
                by_values: bool = False) -> TurnCache:
    """Room for the decisions of up to ``nodes`` nodes in CACHE_BYTES
    (keeps as int16: every game has far fewer than 2^15 packed keeps; or,
    ``by_values``, the mover's own chances of ``a_rows`` rows instead:
    :class:`TurnCache`)."""
    choice = np.diff(packed.keep_first) > 1
    choice_of = np.where(choice, np.cumsum(choice) - 1, -1).astype(np.int64)
    choices = int(choice.sum())
    # banked and take, and the keeps (int16) or the mover's own chances.
    slot_bytes = rows * 2 * (D + 1) + (a_rows * 8 * (D + 1) if by_values else rows * 2 * choices)
    slots = max(1, min(nodes, CACHE_BYTES // slot_bytes))
    keep_shape = (1, 1, choices) if by_values else (slots, rows, choices)
    own_shape = (slots, a_rows, D + 1) if by_values else (1, 1, D + 1)
    return TurnCache(choice_of, -np.ones(slots, dtype=np.int64),
                     np.zeros((slots, rows, D + 1), np.int8), np.zeros(keep_shape, np.int16),
                     np.zeros((slots, rows, D + 1), np.int8), np.zeros(own_shape), by_values)

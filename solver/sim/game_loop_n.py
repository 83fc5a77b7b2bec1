"""The compiled game loop of the N-player simulator: whole games with real dice.

Mechanics (docs/rules.md, "Two or more players"; one loop serves every policy)
-------------------------------------------------------------------------
* Seats 0..N-1 (seats 1..N to a person) move in turn, seat 0 first, every
  player at score 0. A turn rolls the dice in hand, thrown from a seeded
  splitmix64 generator (:func:`solver.sim.game_loop.throw`) and looked up in the
  simulator's dice tables (:func:`solver.sim.policies.dice_tables`). A roll
  holding an instant win wins at once; a roll without a keep is a zero roll;
  otherwise the policy picks a keep and ``keep_result`` says whether it wins,
  overshoots an exact target (a zero turn) or goes on; ``dice_left`` gives
  the dice in hand, ``may_bank`` whether the policy may bank now.
* Each player's line is (score, previous score, crosses), changed by the
  turn rules themselves: ``after_bank`` and ``after_zero_turn``, the
  one-level memory of docs/rules.md that the tables use (no paper sheet here).
* A bank offers ``offer`` dice to the **next** seat only, who may take it
  (``may_take_over``) at the start of their turn; an offer not taken is gone.
* A game still running after ``max_turns`` turns (all seats counted) is
  stopped and counted for nobody.

The policies (:mod:`solver.sim.policies`) are the two-player simulator's:
``threshold:X`` and ``expected`` read fixed tables per seat (slot ``seat``
of a :class:`solver.sim.policies.PolicyTables`: ``value``, ``bank``, ``take``,
with their two guards), ``random`` flips coins, and
``optimal`` plays the N-player table. For the optimal policy the loop runs,
at every turn start of an optimal seat, the solver's own turn DP
(:func:`solver.engine.turn_kernel_n.turn_dp_vec`) for the mover's node with a
recording plan (:class:`solver.engine.turn_kernel_n.NodeMix`): ``banked[t, n]`` and
``keep_chosen[t, r]`` (``r`` the roll's class in the packed dice arrays
of :func:`solver.model.dice.keep_table`) are then every decision of the turn, and
the table's mixed decisions of that node (``bank_q``, ``keep_q``) are drawn
with their probability. The taker of an offer ``(t, n)`` takes it iff its
roll value ``R[t, n, 0]`` beats a fresh turn's ``R[0, D, 0]`` by more than
``EPS``, from the same DP. A DP costs tens of microseconds (3-player
cinq-mille to 1,500: about 50, some twenty times the play of a turn), so
the decisions of a node are kept in a direct-mapped cache
(:class:`TurnCache`: node ``i`` in slot ``i`` modulo the slots, a new node
takes the slot over); its size changes the speed, never a game.

Randomness: one splitmix64 stream seeded from ``seed`` for the whole run
(dice, the random policy's coins and the mixed decisions' draws); the same
seed gives the same games whatever the batch sizes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.engine import turn_kernel_n
from solver.engine.turn_kernel_n import (
    EPS,
    MultiValues,
    MultiWork,
    NodeMix,
    Seats,
    turn_dp_vec,
    zero_value,
)
from solver.model.compiled_rules import (
    after_bank,
    after_zero_turn,
    bank_changes_nothing,
    dice_left,
    drop_stale_caches,
    keep_result,
    may_bank,
    may_take_over,
    offer,
    offer_only_overshoots,
)
from solver.model.dice import DiceArrays
from solver.model.states import Moves
from solver.model.turn_rules import OVERSHOOT as KEEP_OVERSHOOTS
from solver.model.turn_rules import WIN as KEEP_WINS
from solver.sim import dice as sim_dice
from solver.sim import game_loop
from solver.sim.dice import _below, _next
from solver.sim.game_loop import keep_value, throw
from solver.sim.policies import OPTIMAL, RANDOM

drop_stale_caches(__file__, game_loop.__file__, sim_dice.__file__, turn_kernel_n.__file__)

# Status of the compiled loop.
DONE, UNKNOWN_STATE = 0, 1
# Fields of the loop's state vector.
(GAME, IN_GAME, MOVER, TURNS, OFFER_T, OFFER_N, UNFINISHED, ALL_TURNS, TAKE_OVERS, FALLS,
 MIXED_DRAWS, PLAN_NODE, STATE_SIZE) = range(13)
# TAKE_OVERS, FALLS, MIXED_DRAWS: counts over the run (what was in play);
# PLAN_NODE: the node whose mixed decisions the plan holds (-1: none).


class GamesN(NamedTuple):
    """The games being played, as the compiled loop reads and writes them.
    Per seat (seat 0 first): the line ``score``, ``previous``, ``crosses``
    (units) and the games won, ``wins``."""
    state: np.ndarray
    score: np.ndarray
    previous: np.ndarray
    crosses: np.ndarray
    wins: np.ndarray
    rng: np.ndarray
    """The splitmix64 state (one value)."""
    max_turns: int

    @classmethod
    def new(cls, players: int, seed: int, max_turns: int) -> "GamesN":
        state = np.zeros(STATE_SIZE, dtype=np.int64)
        state[PLAN_NODE] = -1
        first = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
        line = [np.zeros(players, dtype=np.int64) for _ in range(4)]
        return cls(state, *line, np.array([first], dtype=np.uint64), int(max_turns))


class TurnCache(NamedTuple):
    """The decisions of recent nodes, by slot: ``node[slot]`` (-1: empty),
    ``banked[slot, t, n]`` (the plan's ``banked``), ``take[slot, t, n]``
    (take an offer of ``t`` units and ``n`` dice) and ``keep[slot, t,
    choice_of[r]]`` (the plan's ``keep_chosen[t, r]``) for the roll classes
    ``r`` that have a choice (``choice_of[r]`` -1: one keep or none, as
    every class under the keep rule ``all``)."""
    choice_of: np.ndarray
    node: np.ndarray
    banked: np.ndarray
    keep: np.ndarray
    take: np.ndarray


class OptimalN(NamedTuple):
    """What the optimal policy reads: the solved values (``values``, nodes
    numbered by ``seats``, turns by ``moves``), the packed dice arrays of the
    turn DP (``dice``) with ``class_of[roll]`` (the simulator's roll ->
    its class there) and ``keep_used[k]`` (dice a packed keep sets aside),
    the player state ``state_of[score, previous, crosses]`` of a line (-1:
    none; axes 1 and 2 of length 1 without crosses), the table's mixed
    decisions by node (``mix_nodes`` sorted, node ``i``'s rows
    ``mix_first[i]`` to ``mix_first[i + 1] - 1`` of ``mix_rows`` (kind 0
    bank / 1 keep, t, n or r, main, alt) and ``mix_q``), the DP's
    working arrays (``work``, ``plan``, ``zero``, ``out``) and the
    decisions of recent nodes (``cache``)."""
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


@njit(cache=True, inline="always")
def _uniform(rng):
    """Uniform float in [0, 1)."""
    return np.float64(_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _state_of_seat(rules, optimal, games, seat):
    if rules.crosses == 0:
        return optimal.state_of[games.score[seat], 0, 0]
    return optimal.state_of[games.score[seat], games.previous[seat], games.crosses[seat]]


@njit(cache=True)
def mover_node(rules, optimal, games, mover):
    """The node of the turn start: every seat's player state, the mover's
    first and then the others in seat order after the mover; -1 if a line
    is not a state of the table."""
    N = len(games.score)
    node = 0
    for k in range(N):
        p = _state_of_seat(rules, optimal, games, (mover + k) % N)
        if p < 0:
            return -1
        node = node * optimal.seats.P + p
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
def load_mixes(optimal, state, node):
    """Put the table's mixed decisions of ``node`` into the plan, in place
    of those of the node it held."""
    old = state[PLAN_NODE]
    if old == node:
        return
    if old >= 0:
        _set_mixes(optimal, old, False)
    _set_mixes(optimal, node, True)
    state[PLAN_NODE] = node


@njit(cache=True)
def optimal_turn(rules, optimal, games, mover):
    """The cache slot that holds the decisions of the mover's node (after
    a turn DP if it did not), with the node's mixed decisions in
    ``optimal.plan``; -1 if a line is not a state of the table."""
    node = mover_node(rules, optimal, games, mover)
    if node < 0:
        return -1
    load_mixes(optimal, games.state, node)
    cache = optimal.cache
    # Every node its own slot when they all fit (no hash collisions).
    slot = node % len(cache.node)
    if cache.node[slot] == node:
        return slot
    zero_value(optimal.seats, optimal.moves.zero_next, optimal.values.V, node, optimal.zero)
    # Rows to the target: an offer's roll value is read at its turn total.
    turn_dp_vec(rules, optimal.dice, optimal.moves, optimal.values, optimal.seats, node,
                optimal.zero, rules.target, optimal.work, optimal.plan, optimal.out)
    R, D = optimal.work.R, rules.dice
    cache.node[slot] = node
    cache.banked[slot] = optimal.plan.banked
    chosen, choice_of = optimal.plan.keep_chosen, cache.choice_of
    for t in range(rules.target):
        for r in range(len(choice_of)):
            if choice_of[r] >= 0:
                cache.keep[slot, t, choice_of[r]] = chosen[t, r]
    for t in range(rules.target):
        for n in range(1, D + 1):
            cache.take[slot, t, n] = R[t, n, 0] > R[0, D, 0] + EPS
    return slot


@njit(cache=True)
def _start_game(games):
    state = games.state
    for seat in range(len(games.score)):
        games.score[seat] = 0
        games.previous[seat] = 0
        games.crosses[seat] = 0
    state[MOVER] = 0
    state[TURNS] = 0
    state[OFFER_T] = 0
    state[OFFER_N] = 0
    state[IN_GAME] = 1


@njit(cache=True)
def _end_turn(rules, games, seat, banked, turn_total, in_hand):
    """A turn of ``seat`` that did not win ended by a bank of ``turn_total``
    with ``in_hand`` dice unset, or by a zero turn: write the line and the
    offer; the move passes to the next seat."""
    state = games.state
    state[OFFER_T] = 0
    state[OFFER_N] = 0
    score = games.score[seat]
    if banked:
        games.score[seat], games.previous[seat], games.crosses[seat] = \
            after_bank(rules, score, turn_total)
        offered = offer(rules, in_hand)
        if offered > 0:
            state[OFFER_T] = turn_total
            state[OFFER_N] = offered
    else:
        new, previous, crosses = after_zero_turn(rules, score, games.previous[seat],
                                                 games.crosses[seat])
        if new != score or (crosses == 0 and games.crosses[seat] > 0):
            state[FALLS] += 1
        games.score[seat], games.previous[seat], games.crosses[seat] = new, previous, crosses
    state[MOVER] = (seat + 1) % len(games.score)


@njit(cache=True)
def run_games_n(rules, dice, tables, optimal, games, games_end):
    """Play games until ``games.state[GAME] == games_end``; returns DONE, or
    UNKNOWN_STATE when an optimal seat meets a line the table lacks."""
    state, rng = games.state, games.rng
    power, roll_of_code, instant_win = dice.power, dice.roll_of_code, dice.instant_win
    keep_first, keep_units, keep_used, keep_win = dice.keep_first, dice.keep_units, \
        dice.keep_used, dice.keep_win
    V_all, bank_all, take_all, Zs, win_values, kinds, guards, points_from, V_late, late_from = \
        tables
    # throw() reads the state vector only to follow a script: none here.
    no_script = np.zeros(0, dtype=np.int64)
    plan = optimal.plan
    cache_banked, cache_keep, cache_take, choice_of = optimal.cache.banked, \
        optimal.cache.keep, optimal.cache.take, optimal.cache.choice_of
    class_of, packed_first, packed_units, packed_used = optimal.class_of, \
        optimal.dice.keep_first, optimal.dice.keep_units, optimal.keep_used
    D = rules.dice
    while state[GAME] < games_end:
        if state[IN_GAME] == 0:
            _start_game(games)
        if state[TURNS] >= games.max_turns:
            state[UNFINISHED] += 1
            state[IN_GAME] = 0
            state[GAME] += 1
            continue
        seat = state[MOVER]
        score = games.score[seat]
        kind = kinds[seat]
        guard = guards[seat]
        slot = 0
        if kind == OPTIMAL:
            slot = optimal_turn(rules, optimal, games, seat)
            if slot < 0:
                return UNKNOWN_STATE

        # Take over the offer, or roll all dice from 0.
        t = 0
        n = D
        offer_t = state[OFFER_T]
        offer_n = state[OFFER_N]
        if offer_n > 0 and may_take_over(rules, score):
            if kind == RANDOM:
                took = _below(rng, 2) == 1
            elif kind == OPTIMAL:
                took = cache_take[slot, offer_t, offer_n] != 0
            else:
                took = take_all[seat, offer_t, offer_n] != 0 and not (
                    guard and offer_only_overshoots(rules, score, offer_t))
            if took:
                t = offer_t
                n = offer_n
                state[TAKE_OVERS] += 1

        # The turn: roll, keep, bank or roll on.
        wins = False
        banked = False
        while True:
            r = throw(power, roll_of_code, no_script, state, rng, n)
            if instant_win[r]:
                wins = True
                break
            k0 = keep_first[r]
            k1 = keep_first[r + 1]
            if k0 == k1:
                break
            if kind == OPTIMAL:
                c = class_of[r]
                chosen = packed_first[c]
                if choice_of[c] >= 0:
                    chosen = np.int64(cache_keep[slot, t, choice_of[c]])
                if plan.keep_q[t, c] >= 0.0:
                    state[MIXED_DRAWS] += 1
                    chosen = plan.keep_alt[t, c] if _uniform(rng) < plan.keep_q[t, c] \
                        else plan.keep_main[t, c]
                if chosen < 0:
                    # A row past the DP's top (an offer at or past the
                    # target): every keep overshoots, any one will do.
                    chosen = packed_first[c]
                units, used = packed_units[chosen], packed_used[chosen]
            else:
                if kind == RANDOM:
                    chosen = k0 + _below(rng, k1 - k0)
                else:
                    chosen = k0
                    best = -np.inf
                    for k in range(k0, k1):
                        v = keep_value(rules, V_all, V_late, seat, Zs[seat], win_values[seat],
                                       score, t, n, keep_units[k], keep_used[k], keep_win[k],
                                       points_from[seat], late_from[seat])
                        if v > best:
                            best = v
                            chosen = k
                units, used = keep_units[chosen], keep_used[chosen]
            t += units
            # (A keep that wins by itself made its roll an instant win, above.)
            result = keep_result(rules, score, t, False)
            if result == KEEP_WINS:
                wins = True
                break
            if result == KEEP_OVERSHOOTS:
                break
            n = dice_left(rules, n, used)
            if may_bank(rules, score, t, n):
                if kind == RANDOM:
                    banked = _below(rng, 2) == 1
                elif kind == OPTIMAL:
                    q = plan.bank_q[t, n]
                    if q >= 0.0:
                        state[MIXED_DRAWS] += 1
                        banked = _uniform(rng) < q
                    else:
                        banked = cache_banked[slot, t, n] != 0
                else:
                    banked = bank_all[seat, t, n] != 0 and not (
                        guard and bank_changes_nothing(rules, score, t))
                if banked:
                    break

        state[TURNS] += 1
        state[ALL_TURNS] += 1
        if wins:
            games.wins[seat] += 1
            state[IN_GAME] = 0
            state[GAME] += 1
        else:
            _end_turn(rules, games, seat, banked, t, n)
    return DONE

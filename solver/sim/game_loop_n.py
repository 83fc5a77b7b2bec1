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
  With a penalty (``rules.penalty``) the K-th zero turn in a row takes
  points off, scores down to the floor, below 0; the line is then (score,
  crosses), and the table's line map is indexed from the floor up (row
  ``score - floor``: numba checks no bounds, and a negative row would read
  another score's state, silently).
* A bank offers ``offer`` dice to the **next** seat only, who may take it
  (``may_take_over``) at the start of their turn; an offer not taken is gone.
* A final round (``rules.final_round``): reaching the target does not end
  the turn; the player plays on past it by their policy and banks where
  they choose, or by decree where the turn DP's rows end (``TurnRules.rows``,
  as the solved table does). A bank at or past the target starts the other
  seats' last turns, in seat order (:mod:`solver.sim.last_turns_n`: how
  each policy plays them, who wins, a tie shared among all who hold the
  highest score).
* A game still running after ``max_turns`` turns (all seats counted) is
  stopped and counted for nobody.

The policies (:mod:`solver.sim.policies`) are the two-player simulator's:
``threshold:X`` and ``expected`` read fixed tables per seat (slot ``seat``
of a :class:`solver.sim.policies.PolicyTables`: ``value``, ``bank``, ``take``,
with their two guards), ``random`` flips coins, and ``optimal`` plays the
N-player table: at every turn start of an optimal seat, the decisions of
the solver's own turn DP for the mover's node, kept in a cache, the
table's mixed decisions drawn with their probability
(:mod:`solver.sim.optimal_n`).

Randomness: one splitmix64 stream seeded from ``seed`` for the whole run
(dice, the random policy's coins and the mixed decisions' draws); the same
seed gives the same games whatever the batch sizes and whatever the caches
hold (the loop returns for a last turn's missing tables before that turn
throws a die).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

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
from solver.model.turn_rules import OVERSHOOT as KEEP_OVERSHOOTS
from solver.model.turn_rules import WIN as KEEP_WINS
from solver.sim import dice as sim_dice
from solver.sim import game_loop, last_turns_n, optimal_n
from solver.sim.dice import _below, _next
from solver.sim.game_loop import keep_value, throw
from solver.sim.last_turns_n import (
    BANKER,
    GOES_ON,
    HOLDERS,
    MARK,
    NEED,
    SEAT,
    credit_winners,
    play_last_turn,
)
from solver.sim.optimal_n import cached_slot, fill_turn, keep_by_values, load_mixes
from solver.sim.policies import NEVER, OPTIMAL, RANDOM

drop_stale_caches(__file__, game_loop.__file__, sim_dice.__file__, last_turns_n.__file__,
                  optimal_n.__file__)

# Status of the compiled loop.
DONE, UNKNOWN_STATE, NEED_LAST_TURN = 0, 1, 2
# Fields of the loop's state vector.
(GAME, IN_GAME, MOVER, TURNS, OFFER_T, OFFER_N, UNFINISHED, ALL_TURNS, TAKE_OVERS, FALLS,
 MIXED_DRAWS, SHARED_GAMES, LAST_TURNS, STATE_SIZE) = range(14)
# TAKE_OVERS, FALLS, MIXED_DRAWS, SHARED_GAMES (a final round's ties),
# LAST_TURNS: counts over the run (what was in play).


class GamesN(NamedTuple):
    """The games being played, as the compiled loop reads and writes them.
    Per seat (seat 0 first): the line ``score``, ``previous``, ``crosses``
    (units) and the games won alone, ``wins`` (a final round's shared games:
    :class:`solver.sim.last_turns_n.FinalRoundsN`)."""
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
        first = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
        line = [np.zeros(players, dtype=np.int64) for _ in range(4)]
        return cls(state, *line, np.array([first], dtype=np.uint64), int(max_turns))


@njit(cache=True, inline="always")
def _uniform(rng):
    """Uniform float in [0, 1)."""
    return np.float64(_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# The loop's helpers below are small enough that LLVM inlines them into the
# loop, which spares the reference counts of the record's arrays per call
# (:mod:`solver.sim.optimal_n` says what those cost). A final round's start
# is written in the loop, not in _end_turn: an _end_turn that wrote it was
# no longer inlined, and every game ran a fifth slower.

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
def _final_round(rules, dice, last, state, final, scores, kinds, rng, wins, shares, max_turns):
    """The last turns of the final round under way (``final``), in seat
    order, to the game's end (its winners credited), or NEED when a last
    turn's tables are missing (``final`` then says which, and where the
    round stands; no die of that turn thrown)."""
    N = len(scores)
    while True:
        if state[TURNS] >= max_turns:
            state[UNFINISHED] += 1
            final[SEAT] = 0
            break
        seat = (final[BANKER] + final[SEAT]) % N
        state[MOVER] = seat
        ended = play_last_turn(rules, dice, last, final, scores, rng, kinds[seat] == RANDOM)
        if ended == NEED:
            return NEED
        state[TURNS] += 1
        state[ALL_TURNS] += 1
        state[LAST_TURNS] += 1
        if ended != GOES_ON:
            if credit_winners(final, ended, wins, shares) > 1:
                state[SHARED_GAMES] += 1
            break
    state[IN_GAME] = 0
    state[GAME] += 1
    return GOES_ON


@njit(cache=True)
def run_games_n(rules, dice, tables, optimal, last, games, rounds, games_end):
    """Play games until ``games.state[GAME] == games_end``; returns DONE,
    UNKNOWN_STATE when an optimal seat meets a line the table lacks, or
    NEED_LAST_TURN when a final round's last turn needs tables that ``last``
    lacks (their key in ``rounds.now``: the turn has not begun)."""
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
    cache_own, by_values, packed_col = optimal.cache.own, optimal.cache.by_values, \
        optimal.dice.keep_col
    state_of, P, plan_node, cache_node = optimal.state_of, optimal.seats.P, optimal.plan_node, \
        optimal.cache.node
    has_mixes = len(optimal.mix_nodes) > 0
    scores, previous, crosses = games.score, games.previous, games.crosses
    D, max_turns = rules.dice, games.max_turns
    wins_of, final, shares = games.wins, rounds.now, rounds.shares
    # A final round under way when the loop last returned (for a last
    # turn's tables, filled since): its last turns first.
    if final[SEAT] > 0 and _final_round(rules, dice, last, state, final, scores, kinds, rng,
                                        wins_of, shares, max_turns) == NEED:
        return NEED_LAST_TURN
    while state[GAME] < games_end:
        if state[IN_GAME] == 0:
            _start_game(games)
        if state[TURNS] >= max_turns:
            state[UNFINISHED] += 1
            state[IN_GAME] = 0
            state[GAME] += 1
            continue
        seat = state[MOVER]
        score = scores[seat]
        kind = kinds[seat]
        guard = guards[seat]
        # A final round's turn totals end where the turn DP's do: from there
        # every policy banks, as the solved table's DP does.
        bank_from = rules.rows + rules.floor - score if rules.final_round else NEVER
        slot = 0
        if kind == OPTIMAL:
            # The decisions of the mover's node (solver.sim.optimal_n): its
            # mixed decisions in the plan, its DP's in the cache's slot.
            node, slot = cached_slot(rules, state_of, P, scores, previous, crosses, seat,
                                     cache_node, plan_node, has_mixes)
            if node == -1:
                return UNKNOWN_STATE
            if node < -1:
                node = -2 - node
                load_mixes(optimal, node)
            if slot < 0:
                slot = node % len(cache_node)
                fill_turn(rules, optimal, node, slot)

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
                    if by_values:
                        chosen = keep_by_values(cache_own, slot, t, n, c, packed_first,
                                                 packed_units, packed_col, D)
                    else:
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
            if t >= bank_from:
                banked = True
                break
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
            wins_of[seat] += 1
            state[IN_GAME] = 0
            state[GAME] += 1
        else:
            _end_turn(rules, games, seat, banked, t, n)
            if banked and rules.final_round and scores[seat] >= rules.target:
                # A bank at or past the target: the other seats' last turns
                # (out of this loop: ordinary turns run no line of them).
                final[SEAT], final[BANKER], final[MARK], final[HOLDERS] = 1, seat, scores[seat], 1
                if _final_round(rules, dice, last, state, final, scores, kinds, rng, wins_of,
                                shares, max_turns) == NEED:
                    return NEED_LAST_TURN
    return DONE

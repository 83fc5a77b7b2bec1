"""The compiled game loop of the simulator: whole games with real dice.

Mechanics (one compiled loop, :func:`run_games`, serves every policy)
----------------------------------------------------------------
* A turn rolls the dice in hand (thrown one by one from a seeded
  splitmix64 generator, :mod:`solver.sim.dice`; a roll is then looked up
  as a multiset). A roll that
  holds an instant win (``rules.instant_wins``: five 1s in cinq-mille) wins
  the game at once: nobody would set it aside for less, and docs/rules.md says the
  roll wins "at any time, also before opening". A roll without a keep is a
  zero roll. Otherwise the policy picks one legal keep (under the keep rule
  ``all`` the one forced keep) and ``keep_result`` says whether it wins,
  overshoots an exact target (a zero turn) or goes on; ``dice_left`` gives
  the dice in hand (all of them after hot dice); ``may_bank`` whether the
  policy may bank now (entry, forced hot dice).
* What the end of a turn writes (banks, crosses that go back a bank or
  cost points, offers, a final round's score to pass) is
  :mod:`solver.sim.score_sheet`'s: an offer not taken at once is gone
  (``may_take_over``: whether the next player may take it, starting their
  turn holding its total and rolling its dice).
* A final round (``rules.final_round``): reaching the target does not end
  the turn; every policy banks by decree at ``target + E``, where the
  tables end (:mod:`solver.sim.final_round`), and a bank at or past the
  target gives the other player the last turn, :func:`last_turn`.
* A game that reaches ``max_turns`` turns (both players counted) is stopped
  and reported as unfinished, not counted as a win for anyone.

The loop returns to Python when it needs the optimal tables of a turn
start it has not seen (:class:`solver.sim.policies.OptimalCache` fills them);
its arguments are records: the rules (:class:`TurnRules`), the dice
(:class:`solver.sim.dice.DiceTables`), the decision tables
(:class:`solver.sim.policies.PolicyTables`), where the optimal tables are
(:class:`OptimalIndex`), the last turn's tables
(:class:`solver.sim.final_round.LastTurnTables`) and the games themselves
(:class:`solver.sim.score_sheet.Games`).

Randomness: one splitmix64 stream seeded from ``seed`` (via
``numpy.random.SeedSequence``) for the whole run, A moving first in every
game; the same seed gives the same games whatever the batch sizes and the
cache state of the optimal tables. With ``common_dice=True`` each game has
its own stream, seeded from ``seed`` and the game's number: two runs with
the same seed then throw the same dice in every game until their players
first decide differently (common random numbers: :func:`match`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.model.compiled_rules import (
    bank_changes_nothing,
    dice_left,
    drop_stale_caches,
    keep_result,
    may_bank,
    may_take_over,
    offer_only_overshoots,
)
from solver.model.turn_rules import OVERSHOOT as KEEP_OVERSHOOTS
from solver.model.turn_rules import WIN as KEEP_WINS
from solver.sim import dice as sim_dice
from solver.sim import final_round, score_sheet
from solver.sim.dice import _below, _next
from solver.sim.final_round import last_turn_goal, last_turn_keep_value
from solver.sim.policies import NEVER, OPTIMAL, RANDOM
from solver.sim.score_sheet import (
    ALL_TURNS,
    BANK,
    GAME,
    IN_GAME,
    INSTANT_WIN,
    MOVER,
    NEED_M,
    NEED_W,
    NEED_Z,
    OFFER_N,
    OFFER_T,
    OVERSHOOT,
    SCRIPT_POS,
    TIE,
    TO_PASS,
    TURNS,
    WIN,
    ZERO,
    _score,
    end_game,
    end_last_turn,
    end_turn,
    log_event,
    player_line,
    start_game,
)

drop_stale_caches(__file__, sim_dice.__file__, final_round.__file__, score_sheet.__file__)

# Status of the compiled loop.
DONE, NEED_TABLE, UNKNOWN_SCORE, SCRIPT_END = 0, 1, 2, 3


# ------------------------------------------------------------------ records

class OptimalIndex(NamedTuple):
    """Where the compiled loop finds the optimal policy's tables: the
    open-addressing hash ``hash_keys`` -> ``hash_slots`` (-1: empty) from a
    turn start's key (:meth:`solver.sim.policies.OptimalCache.key`) to its slot
    in the table store; and per seat its table's line maps
    ``state_of``/``zero_of[seat, score - floor, previous, crosses]``
    (:func:`solver.sim.policies.player_states`), number of player states and
    key base."""
    hash_keys: np.ndarray
    hash_slots: np.ndarray
    state_of: np.ndarray
    zero_of: np.ndarray
    states: np.ndarray
    key_base: np.ndarray


# --------------------------------------------------------------- the kernel
#
# A record passed to a compiled function costs an atomic reference count
# (up and down) per array it holds, per call: tens of nanoseconds, as much
# as a whole roll (measured: records passed per turn made the loop six
# times slower). So :func:`run_games` takes its records apart once per call,
# and the helpers it calls per game, turn, roll or keep take the arrays
# they read and are inlined into it (another tenth of the time).

@njit(cache=True)
def hash_at(keys, key):
    """Where ``key`` is in the open-addressing hash ``keys`` (length a power
    of two, -1 for empty), or the empty place where it would go."""
    mask = len(keys) - 1
    i = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask
    while keys[i] != key and keys[i] != -1:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def hash_put(keys, values, key, value):
    i = hash_at(keys, key)
    keys[i] = key
    values[i] = value


@njit(cache=True, inline="always")
def throw(power, roll_of_code, script, state, rng, in_hand):
    """Throw ``in_hand`` dice (the script's next ones, or from ``rng``): the
    roll's index in the dice tables, or -1 when the script ran out."""
    code = 0
    if len(script) > 0:
        pos = state[SCRIPT_POS]
        if pos + in_hand > len(script):
            return -1
        for i in range(in_hand):
            code += power[script[pos + i] - 1]
        state[SCRIPT_POS] = pos + in_hand
    else:
        z = _next(rng)
        for i in range(in_hand):
            code += power[np.int64(z % np.uint64(6))]
            z = z // np.uint64(6)
    return roll_of_code[code]


@njit(cache=True, inline="always")
def keep_value(rules, V, V_late, slot, overshoot_value, win_value, score, turn_total, in_hand,
               units, used, instant_win, points_from, late_from):
    """What a keep is worth to a table policy (:mod:`solver.sim.policies`):
    ``win_value`` if it wins, ``overshoot_value`` if it overshoots, its
    points from a turn total of ``points_from``, else ``V[slot, t', n']``
    at the turn total and dice in hand after it (``V_late`` from a turn
    total of ``late_from``). (The slot is an index,
    not a view ``V[slot]``: a view per turn is slower.)"""
    after = turn_total + units
    result = keep_result(rules, score, after, instant_win)
    if result == KEEP_WINS:
        return win_value
    if result == KEEP_OVERSHOOTS:
        return overshoot_value
    if turn_total >= points_from:
        # Ties go to the first keep of the roll: most points, then fewest
        # dice (solver.sim.policies.dice_tables), as solver.cards.card.keep_score.
        return float(units)
    if turn_total >= late_from:
        return V_late[slot, after, dice_left(rules, in_hand, used)]
    return V[slot, after, dice_left(rules, in_hand, used)]


@njit(cache=True, inline="always")
def last_turn(rules, shared, strict, least, tie_banks, power, roll_of_code, script, state, rng,
              instant_win, keep_first, keep_units, keep_used, random_play, score):
    """A final round's last turn of a player at ``score`` against the
    score to pass ``state[TO_PASS]``, played as :mod:`solver.sim.final_round`
    says (``random_play``: the random policy's way, else the one-turn DP
    of the tables ``shared``/``strict``). Returns ``(outcome, turn total)``:
    WIN once the total passes, INSTANT_WIN, TIE (a bank that equals the
    score), ZERO (a zero roll), or -1 when the script ran out."""
    goal, ties = last_turn_goal(least, score, state[TO_PASS])
    values = shared if ties else strict
    t = 0
    n = rules.dice
    while True:
        r = throw(power, roll_of_code, script, state, rng, n)
        if r < 0:
            return -1, t
        if instant_win[r]:
            return INSTANT_WIN, t
        k0 = keep_first[r]
        k1 = keep_first[r + 1]
        if k0 == k1:
            return ZERO, t
        if random_play:
            chosen = k0 + _below(rng, k1 - k0)
        else:
            chosen = k0
            best = -1.0
            for k in range(k0, k1):
                v = last_turn_keep_value(values, goal, t + keep_units[k],
                                         dice_left(rules, n, keep_used[k]))
                if v > best:
                    best = v
                    chosen = k
        t += keep_units[chosen]
        n = dice_left(rules, n, keep_used[chosen])
        if t > goal:
            return WIN, t
        if ties and t == goal and may_bank(rules, score, t, n):
            banks = _below(rng, 2) == 1 if random_play else tie_banks[n]
            if banks:
                return TIE, t


@njit(cache=True)
def run_games(rules, dice, tables, index, last, games, games_end):
    """Play games until ``games.state[GAME] == games_end``. Returns a
    status: done, need an optimal table for (NEED_M, NEED_W, NEED_Z) of
    the mover's seat, a score the solver's player space lacks, or the
    script ran out."""
    state, sheets, rng, script, log = games.state, games.sheets, games.rng, games.script, \
        games.log
    power, roll_of_code, instant_win = dice.power, dice.roll_of_code, dice.instant_win
    keep_first, keep_units, keep_used, keep_win = dice.keep_first, dice.keep_units, \
        dice.keep_used, dice.keep_win
    V_all, bank_all, take_all, Zs, wins = tables.V, tables.bank, tables.take, tables.Z, \
        tables.win
    kinds, guards, points_from = tables.kinds, tables.guards, tables.points_from
    V_late, late_from = tables.V_late, tables.late_from
    common_seed, winners, max_turns, one_level = games.common_seed, games.winners, \
        games.max_turns, games.one_level
    hash_keys, hash_slots, state_of, zero_of = index.hash_keys, index.hash_slots, \
        index.state_of, index.zero_of
    states, key_base = index.states, index.key_base
    shared, strict, least, tie_banks = last.shared, last.strict, last.least, last.tie_banks
    while state[GAME] < games_end:
        if state[IN_GAME] == 0:
            start_game(state, sheets, rng, common_seed)
        if state[TURNS] >= max_turns:
            end_game(state, winners, -1)
            continue
        seat = state[MOVER]
        score = _score(state, sheets, seat)
        kind = kinds[seat]
        guard = guards[seat]

        if state[TO_PASS] != 0:
            script_pos = state[SCRIPT_POS]
            outcome, t = last_turn(rules, shared, strict, least, tie_banks, power, roll_of_code,
                                   script, state, rng, instant_win, keep_first, keep_units,
                                   keep_used, kind == RANDOM, score)
            if outcome < 0:
                state[SCRIPT_POS] = script_pos
                return SCRIPT_END
            state[TURNS] += 1
            state[ALL_TURNS] += 1
            end_last_turn(state, sheets, log, winners, seat, outcome, t)
            continue

        # The tables to play by: the seat's own, or the optimal ones of this
        # turn start (replayed in Python the first time it comes up).
        slot = seat
        if kind == OPTIMAL:
            s_m, prev_m, c_m = player_line(rules, state, sheets, seat)
            s_w, prev_w, c_w = player_line(rules, state, sheets, 1 - seat)
            m = state_of[seat, s_m, prev_m, c_m]
            w = state_of[seat, s_w, prev_w, c_w]
            if m < 0 or w < 0:
                return UNKNOWN_SCORE
            z = zero_of[seat, s_m, prev_m, c_m]
            P = states[seat]
            key = key_base[seat] + (m * P + w) * (P + 1) + z + 1
            slot = hash_slots[hash_at(hash_keys, key)]
            if slot < 0:
                state[NEED_M] = m
                state[NEED_W] = w
                state[NEED_Z] = z
                return NEED_TABLE
        overshoot_value = Zs[slot]
        win_value = wins[slot]

        # A final round's turn totals end where the tables do: from there
        # every policy banks, as the solved table's turn DP does.
        bank_from = rules.rows + rules.floor - score if rules.final_round else NEVER

        # Take over the offer, or roll all dice from 0.
        t = 0
        n = rules.dice
        took = 0
        offer_t = state[OFFER_T]
        offer_n = state[OFFER_N]
        if offer_n > 0 and may_take_over(rules, score):
            if kind == RANDOM:
                took = _below(rng, 2)
            elif take_all[slot, offer_t, offer_n] != 0:
                took = 1
                if guard and offer_only_overshoots(rules, score, offer_t):
                    took = 0
            if took == 1:
                t = offer_t
                n = offer_n

        # The turn: roll, keep, bank or roll on.
        script_pos = state[SCRIPT_POS]
        while True:
            r = throw(power, roll_of_code, script, state, rng, n)
            if r < 0:
                state[SCRIPT_POS] = script_pos
                return SCRIPT_END
            if instant_win[r]:
                outcome = INSTANT_WIN
                break
            k0 = keep_first[r]
            k1 = keep_first[r + 1]
            if k0 == k1:
                outcome = ZERO
                break
            if kind == RANDOM:
                chosen = k0 + _below(rng, k1 - k0)
            else:
                chosen = k0
                best = -np.inf
                for k in range(k0, k1):
                    v = keep_value(rules, V_all, V_late, slot, overshoot_value, win_value, score,
                                   t, n, keep_units[k], keep_used[k], keep_win[k],
                                   points_from[slot], late_from[slot])
                    if v > best:
                        best = v
                        chosen = k
            t += keep_units[chosen]
            result = keep_result(rules, score, t, keep_win[chosen])
            if result == KEEP_WINS:
                outcome = WIN
                break
            if result == KEEP_OVERSHOOTS:
                outcome = OVERSHOOT
                break
            n = dice_left(rules, n, keep_used[chosen])
            if t >= bank_from:
                outcome = BANK
                break
            if may_bank(rules, score, t, n):
                if kind == RANDOM:
                    banks = _below(rng, 2) == 1
                else:
                    banks = bank_all[slot, t, n] != 0
                    if guard and bank_changes_nothing(rules, score, t):
                        banks = False
                if banks:
                    outcome = BANK
                    break

        state[TURNS] += 1
        state[ALL_TURNS] += 1
        if outcome == WIN or outcome == INSTANT_WIN:
            log_event(state, log, seat, outcome, t, rules.target if outcome == WIN else score,
                      took)
            end_game(state, winners, seat)
        else:
            end_turn(rules, state, sheets, log, one_level, seat, outcome, t, n, took)
    return DONE

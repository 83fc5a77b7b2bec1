"""The compiled game loop of the simulator: whole games with real dice.

Mechanics (one compiled loop, :func:`run_games`, serves every policy)
----------------------------------------------------------------
* A turn rolls the dice in hand (thrown one by one from a seeded
  splitmix64 generator; a roll is then looked up as a multiset). A roll that
  holds an instant win (``rules.instant_wins``: five 1s in cinq-mille) wins
  the game at once: nobody would set it aside for less, and docs/rules.md says the
  roll wins "at any time, also before opening". A roll without a keep is a
  zero roll. Otherwise the policy picks one legal keep (under the keep rule
  ``all`` the one forced keep) and ``keep_result`` says whether it wins,
  overshoots an exact target (a zero turn) or goes on; ``dice_left`` gives
  the dice in hand (all of them after hot dice); ``may_bank`` whether the
  policy may bank now (entry, forced hot dice).
* A bank writes ``banked_score`` on the player's sheet and erases their
  crosses (``after_bank``); ``offer`` says which dice the next player is
  offered, and ``may_take_over`` whether they may take the offer (start
  their turn holding its total and rolling its dice). An offer not taken at
  once is gone.
* Crosses (``rules.crosses > 0``, dix-mille) on the whole paper sheet: the
  sheet is the list of the player's banked scores; a turn without a bank
  (zero roll or overshoot) is a cross (``add_cross``); at the last one the
  last score is struck off the sheet (the player goes back to the score
  before their last bank, 0 if none) and the crosses are erased. Six
  crosses in a row thus go back two banks, and so on down the sheet. (The
  solver's tables use the one-level model of docs/rules.md; the simulator plays
  the paper rule, so the two can be compared. ``one_level=True`` plays the
  docs/rules.md rule instead: a player who has fallen since their last bank
  only loses their crosses at a third cross. Either way the result counts
  the games where the two rules part, ``deep_fall_games``.)
* A player back at 0 must meet the entry again (the sheet says 0).
* A game that reaches ``max_turns`` turns (both players counted) is stopped
  and reported as unfinished, not counted as a win for anyone.

The loop returns to Python when it needs the optimal tables of a turn
start it has not seen (:class:`solver.sim.policies.OptimalCache` fills them);
its arguments are records: the rules (:class:`TurnRules`), the dice
(:class:`solver.sim.policies.DiceTables`), the decision tables
(:class:`solver.sim.policies.PolicyTables`), where the optimal tables are
(:class:`OptimalIndex`) and the games themselves (:class:`Games`).

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

from solver.model.compiled_rules import (add_cross, after_bank, bank_changes_nothing, dice_left,
                                         drop_stale_caches, keep_result, may_bank, may_take_over,
                                         offer, offer_only_overshoots)
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.turn_rules import OVERSHOOT as KEEP_OVERSHOOTS
from solver.model.turn_rules import WIN as KEEP_WINS
from solver.sim.policies import OPTIMAL, RANDOM

drop_stale_caches(__file__)

MAX_TURNS = 10_000
"""A game still running after this many turns is stopped and reported."""

# Turn outcomes (and log kinds).
BANK, ZERO, OVERSHOOT, WIN, INSTANT_WIN, FALL = 0, 1, 2, 3, 4, 5
OUTCOMES = {BANK: "bank", ZERO: "zero", OVERSHOOT: "overshoot", WIN: "win",
            INSTANT_WIN: "instant-win", FALL: "fall"}
# Status of the compiled loop.
DONE, NEED_TABLE, UNKNOWN_SCORE, SCRIPT_END = 0, 1, 2, 3
# Fields of the loop's state vector.
(GAME, IN_GAME, MOVER, TURNS, OFFER_T, OFFER_N, CROSS_A, CROSS_B, LEN_A, LEN_B,
 WINS_A, UNFINISHED, NEED_M, NEED_W, SCRIPT_POS, START_A, START_B, WINNER,
 ALL_TURNS, LOG_COUNT, FALLEN_A, FALLEN_B, NEED_Z, DEEP_IN_GAME, DEEP_GAMES,
 STATE_SIZE) = range(26)
# FALLEN_A/B: the player has fallen since their last bank (table lookups
# then use the fallen state); NEED_Z: the look-ahead state asked for, or -1;
# DEEP_IN_GAME/DEEP_GAMES: this game / the games so far in which a
# fallen player's third cross struck a further score off the sheet (or
# would have, under ``one_level``): where paper sheet and docs/rules.md differ.


# ------------------------------------------------------------------ records

class Games(NamedTuple):
    """The games being played, as the compiled loop reads and writes them."""
    state: np.ndarray
    """The loop's state vector (fields ``GAME`` ... above)."""
    sheets: np.ndarray
    """``sheets[seat, entry]``: each player's banked scores, in units."""
    rng: np.ndarray
    """The splitmix64 state (one value)."""
    script: np.ndarray
    """Dice to throw in this order, or empty: thrown from ``rng``."""
    log: np.ndarray
    """One row per turn and fall: game, turn, seat, outcome, turn total,
    score after, took over (as many rows as it has)."""
    common_seed: np.ndarray
    """One value: each game its own dice stream seeded from it and the
    game's number; empty: one stream for the whole run."""
    winners: np.ndarray
    """Each game's winner (0: A, 1: B, -1: unfinished), or empty."""
    max_turns: int
    one_level: bool
    """The third cross of a fallen player changes nothing (docs/rules.md)
    instead of striking the next score off the paper sheet."""

    @classmethod
    def new(cls, rules: Rules, seed: int, max_turns: int = MAX_TURNS, start=(0, 0),
            script=None, log_size: int = 0, common_dice: bool = False, winners: int = 0,
            one_level: bool = False) -> "Games":
        state = np.zeros(STATE_SIZE, dtype=np.int64)
        for seat, points in enumerate(start):
            if points % rules.unit or not 0 <= points < rules.target:
                raise UsageError(f"start score {points} is not a score below the target")
            state[START_A + seat] = points // rules.unit
        script = np.asarray(script if script is not None else [], dtype=np.int64)
        if np.any((script < 1) | (script > 6)):
            raise UsageError("scripted dice must be 1 to 6")
        first = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
        return cls(state, np.zeros((2, int(max_turns) + 2), dtype=np.int64),
                   np.array([first], dtype=np.uint64), script,
                   np.zeros((log_size, 7), dtype=np.int64),
                   np.array([first] if common_dice else [], dtype=np.uint64),
                   np.zeros(winners, dtype=np.int8), int(max_turns), bool(one_level))

    @property
    def mover(self) -> int:
        return int(self.state[MOVER])

    @property
    def offer(self) -> tuple[int, int]:
        """(turn total, dice) offered to the mover; (0, 0): none."""
        return int(self.state[OFFER_T]), int(self.state[OFFER_N])


class OptimalIndex(NamedTuple):
    """Where the compiled loop finds the optimal policy's tables: the
    open-addressing hash ``hash_keys`` -> ``hash_slots`` (-1: empty) from a
    turn start's key (:meth:`solver.sim.policies.OptimalCache.key`) to its slot
    in the table store; and per seat its table's line maps
    ``state_of``/``zero_of[seat, score, previous, crosses]``
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

@njit(cache=True, inline="always")
def _next(rng):
    """splitmix64."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _below(rng, k):
    """Uniform integer in 0..k-1."""
    return np.int64(_next(rng) % np.uint64(k))


@njit(cache=True, inline="always")
def _score(state, sheets, seat):
    length = state[LEN_A + seat]
    return sheets[seat, length - 1] if length > 0 else 0


@njit(cache=True)
def player_line(rules, state, sheets, seat):
    """(score, previous, crosses) of ``seat`` for a table lookup: the
    previous score is the sheet's entry before the last (0 if none), or the
    score itself when the player has fallen since their last bank (module
    docstring); (score, 0, 0) in a game without crosses."""
    length = state[LEN_A + seat]
    score = sheets[seat, length - 1] if length > 0 else 0
    if rules.crosses == 0:
        return score, 0, 0
    if state[FALLEN_A + seat] != 0:
        previous = score
    elif length >= 2:
        previous = sheets[seat, length - 2]
    else:
        previous = 0
    return score, previous, state[CROSS_A + seat]


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
def _log(state, log, seat, kind, turn_total, score, took):
    row = state[LOG_COUNT]
    if row < log.shape[0]:
        log[row, 0] = state[GAME]
        log[row, 1] = state[TURNS]
        log[row, 2] = seat
        log[row, 3] = kind
        log[row, 4] = turn_total
        log[row, 5] = score
        log[row, 6] = took
        state[LOG_COUNT] = row + 1


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
def start_game(state, sheets, rng, common_seed):
    """Both players at their start scores, A to move, no offer."""
    if len(common_seed) > 0:
        rng[0] = common_seed[0] + np.uint64(state[GAME])
        rng[0] = _next(rng)
    for seat in range(2):
        start = state[START_A + seat]
        sheets[seat, 0] = start
        state[LEN_A + seat] = 1 if start > 0 else 0
        state[CROSS_A + seat] = 0
        state[FALLEN_A + seat] = 0
    state[DEEP_IN_GAME] = 0
    state[MOVER] = 0
    state[TURNS] = 0
    state[OFFER_T] = 0
    state[OFFER_N] = 0
    state[WINNER] = -1
    state[IN_GAME] = 1


@njit(cache=True, inline="always")
def _end_game(state, winners, winner):
    """The game is over: ``winner`` 0 (A), 1 (B) or -1 (stopped at the turn cap)."""
    if len(winners) > state[GAME]:
        winners[state[GAME]] = winner
    if winner < 0:
        state[UNFINISHED] += 1
    elif winner == 0:
        state[WINS_A] += 1
    state[WINNER] = winner
    state[IN_GAME] = 0
    state[GAME] += 1


@njit(cache=True, inline="always")
def _fall(state, sheets, log, one_level, seat):
    """The last cross, on the paper sheet: strike the last score off (under
    ``one_level``, not again before a new bank) and mark the player fallen."""
    length = state[LEN_A + seat]
    fallen = state[FALLEN_A + seat] != 0
    if length > 0 and fallen and state[DEEP_IN_GAME] == 0:
        state[DEEP_IN_GAME] = 1
        state[DEEP_GAMES] += 1
    if length > 0 and not (one_level and fallen):
        state[LEN_A + seat] = length - 1
    state[FALLEN_A + seat] = 1
    _log(state, log, seat, FALL, 0, _score(state, sheets, seat), 0)


@njit(cache=True, inline="always")
def end_turn(rules, state, sheets, log, one_level, seat, outcome, turn_total, in_hand, took):
    """A turn of ``seat`` that did not win ended with ``outcome`` (BANK,
    ZERO or OVERSHOOT) holding ``turn_total`` and ``in_hand`` dice: write the
    sheet, the crosses and the offer; the move passes."""
    score = _score(state, sheets, seat)
    state[OFFER_T] = 0
    state[OFFER_N] = 0
    if outcome == BANK:
        new, _, crosses = after_bank(rules, score, turn_total)
        length = state[LEN_A + seat]
        sheets[seat, length] = new
        state[LEN_A + seat] = length + 1
        state[CROSS_A + seat] = crosses
        state[FALLEN_A + seat] = 0
        offered = offer(rules, in_hand)
        if offered > 0:
            state[OFFER_T] = turn_total
            state[OFFER_N] = offered
        _log(state, log, seat, BANK, turn_total, new, took)
    else:
        _log(state, log, seat, outcome, turn_total, score, took)
        if rules.crosses > 0:
            crosses, falls = add_cross(rules, state[CROSS_A + seat])
            state[CROSS_A + seat] = crosses
            if falls:
                _fall(state, sheets, log, one_level, seat)
    state[MOVER] = 1 - seat


@njit(cache=True)
def run_games(rules, dice, tables, index, games, games_end):
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
    while state[GAME] < games_end:
        if state[IN_GAME] == 0:
            start_game(state, sheets, rng, common_seed)
        if state[TURNS] >= max_turns:
            _end_game(state, winners, -1)
            continue
        seat = state[MOVER]
        score = _score(state, sheets, seat)
        kind = kinds[seat]
        guard = guards[seat]

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
            _log(state, log, seat, outcome, t, rules.target if outcome == WIN else score, took)
            _end_game(state, winners, seat)
        else:
            end_turn(rules, state, sheets, log, one_level, seat, outcome, t, n, took)
    return DONE



"""Play whole games with real dice, to check the tables and compare policies.

The simulator has its own game loop over thrown dice and its own score
sheets; what a keep, a bank, an offer and a cross do it asks the turn rules
(:mod:`solver.compiled_rules`, over a :class:`solver.turn_rules.TurnRules`
record), which the solver asks too. The dice are
:func:`solver.policies.dice_tables` (every distinct roll and its legal
keeps, from :mod:`solver.dice`); how each player chooses is
:mod:`solver.policies` (the ``optimal`` policy reads the solved table
through :func:`solver.solution.replay`).

Mechanics (one compiled loop, :func:`_run`, serves every policy)
----------------------------------------------------------------
* A turn rolls the dice in hand (thrown one by one from a seeded
  splitmix64 generator; a roll is then looked up as a multiset). A roll that
  holds an instant win (``rules.instant_wins``: five 1s in cinq-mille) wins
  the game at once: nobody would set it aside for less, and RULES.md says the
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
  solver's tables use the one-level model of RULES.md; the simulator plays
  the paper rule, so the two can be compared. ``one_level=True`` plays the
  RULES.md rule instead: a player who has fallen since their last bank
  only loses their crosses at a third cross. Either way the result counts
  the games where the two rules part, ``deep_fall_games``.)
* A player back at 0 must meet the entry again (the sheet says 0).
* A game that reaches ``max_turns`` turns (both players counted) is stopped
  and reported as unfinished, not counted as a win for anyone.

Optimal play with crosses (dix-mille)
-------------------------------------
A table's player state comes from the paper sheet as a
:class:`solver.states.Line`: score = the last entry, previous = the entry
before it (0 if none), crosses = the current crosses, mapped by
:func:`solver.policies.player_states`. The tables use the one-level memory
of RULES.md, where a fallen player's previous score *is* their score (the
*fallen* state: nothing left to lose). So a player who has fallen since
their last bank is looked up in the fallen state ``previous = score``, even
though the sheet may still hold an older entry, which a further three
crosses will indeed strike off. ``memory="model"`` tables forget the
previous score; the policy is then the model's values with an exact
look-ahead of one turn for a mover on their last cross
(:func:`solver.policies.optimal_turn` with ``zero_to``).

The loop returns to Python when it needs the optimal tables of a turn
start it has not seen (:class:`solver.policies.OptimalCache` fills them);
its arguments are records: the rules (:class:`TurnRules`), the dice
(:class:`solver.policies.DiceTables`), the decision tables
(:class:`solver.policies.PolicyTables`), where the optimal tables are
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

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from .compiled_rules import (add_cross, after_bank, banked_score, dice_left, keep_result,
                             may_bank, may_take_over, offer, renew_stamp)
from .errors import UsageError
from .policies import (EXPECTED_TOP_POINTS, OPTIMAL, POLICY_NAMES, RANDOM,  # noqa: F401
                       DiceTables, OptimalCache, Policy, TableStore, dice_tables, expected_turn,
                       optimal_tables, parse_policy, player_states)
from .rules import Rules
from .turn_rules import OVERSHOOT as KEEP_OVERSHOOTS, WIN as KEEP_WINS, TurnRules

renew_stamp(__file__)

MAX_TURNS = 10_000
"""A game still running after this many turns is stopped and reported."""

OPTIMAL_CACHE_BYTES = 512 * 2 ** 20
"""Memory for the optimal policy's per-turn-start tables; when full the
cache is emptied and refilled on demand."""

BATCH = 1 << 14
"""Games per call of the compiled loop (a progress report after each)."""

# Turn outcomes (and log kinds).
BANK, ZERO, OVERSHOOT, WIN, INSTANT_WIN, FALL = 0, 1, 2, 3, 4, 5
OUTCOMES = {BANK: "bank", ZERO: "zero", OVERSHOOT: "overshoot", WIN: "win",
            INSTANT_WIN: "instant-win", FALL: "fall"}
# Status of the compiled loop.
_DONE, _NEED_TABLE, _UNKNOWN_SCORE, _SCRIPT_END = 0, 1, 2, 3
# Fields of the loop's state vector.
(_GAME, _IN_GAME, _MOVER, _TURNS, _OFFER_T, _OFFER_N, _CROSS_A, _CROSS_B, _LEN_A, _LEN_B,
 _WINS_A, _UNFINISHED, _NEED_M, _NEED_W, _SCRIPT_POS, _START_A, _START_B, _WINNER,
 _ALL_TURNS, _LOG_COUNT, _FALLEN_A, _FALLEN_B, _NEED_Z, _DEEP_IN_GAME, _DEEP_GAMES,
 _STATE_SIZE) = range(26)
# _FALLEN_A/B: the player has fallen since their last bank (table lookups
# then use the fallen state); _NEED_Z: the look-ahead state asked for, or -1;
# _DEEP_IN_GAME/_DEEP_GAMES: this game / the games so far in which a
# fallen player's third cross struck a further score off the sheet (or
# would have, under ``one_level``): where paper sheet and RULES.md differ.


# ------------------------------------------------------------------ records

class Games(NamedTuple):
    """The games being played, as the compiled loop reads and writes them."""
    state: np.ndarray
    """The loop's state vector (fields ``_GAME`` ... above)."""
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
    """The third cross of a fallen player changes nothing (RULES.md)
    instead of striking the next score off the paper sheet."""

    @classmethod
    def new(cls, rules: Rules, seed: int, max_turns: int = MAX_TURNS, start=(0, 0),
            script=None, log_size: int = 0, common_dice: bool = False, winners: int = 0,
            one_level: bool = False) -> "Games":
        state = np.zeros(_STATE_SIZE, dtype=np.int64)
        for seat, points in enumerate(start):
            if points % rules.unit or not 0 <= points < rules.target:
                raise UsageError(f"start score {points} is not a score below the target")
            state[_START_A + seat] = points // rules.unit
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
        return int(self.state[_MOVER])

    @property
    def offer(self) -> tuple[int, int]:
        """(turn total, dice) offered to the mover; (0, 0): none."""
        return int(self.state[_OFFER_T]), int(self.state[_OFFER_N])


class OptimalIndex(NamedTuple):
    """Where the compiled loop finds the optimal policy's tables: the
    open-addressing hash ``hash_keys`` -> ``hash_slots`` (-1: empty) from a
    turn start's key (:meth:`solver.policies.OptimalCache.key`) to its slot
    in the table store; and per seat its table's line maps
    ``state_of``/``zero_of[seat, score, previous, crosses]``
    (:func:`solver.policies.player_states`), number of player states and
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
# times slower). So :func:`_run` takes its records apart once per call,
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
    length = state[_LEN_A + seat]
    return sheets[seat, length - 1] if length > 0 else 0


@njit(cache=True)
def player_line(rules, state, sheets, seat):
    """(score, previous, crosses) of ``seat`` for a table lookup: the
    previous score is the sheet's entry before the last (0 if none), or the
    score itself when the player has fallen since their last bank (module
    docstring); (score, 0, 0) in a game without crosses."""
    length = state[_LEN_A + seat]
    score = sheets[seat, length - 1] if length > 0 else 0
    if rules.crosses == 0:
        return score, 0, 0
    if state[_FALLEN_A + seat] != 0:
        previous = score
    elif length >= 2:
        previous = sheets[seat, length - 2]
    else:
        previous = 0
    return score, previous, state[_CROSS_A + seat]


@njit(cache=True)
def _hash_at(keys, key):
    """Where ``key`` is in the open-addressing hash ``keys`` (length a power
    of two, -1 for empty), or the empty place where it would go."""
    mask = len(keys) - 1
    i = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) & mask
    while keys[i] != key and keys[i] != -1:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _hash_put(keys, values, key, value):
    i = _hash_at(keys, key)
    keys[i] = key
    values[i] = value


@njit(cache=True, inline="always")
def _log(state, log, seat, kind, turn_total, score, took):
    row = state[_LOG_COUNT]
    if row < log.shape[0]:
        log[row, 0] = state[_GAME]
        log[row, 1] = state[_TURNS]
        log[row, 2] = seat
        log[row, 3] = kind
        log[row, 4] = turn_total
        log[row, 5] = score
        log[row, 6] = took
        state[_LOG_COUNT] = row + 1


@njit(cache=True, inline="always")
def throw(power, roll_of_code, script, state, rng, in_hand):
    """Throw ``in_hand`` dice (the script's next ones, or from ``rng``): the
    roll's index in the dice tables, or -1 when the script ran out."""
    code = 0
    if len(script) > 0:
        pos = state[_SCRIPT_POS]
        if pos + in_hand > len(script):
            return -1
        for i in range(in_hand):
            code += power[script[pos + i] - 1]
        state[_SCRIPT_POS] = pos + in_hand
    else:
        z = _next(rng)
        for i in range(in_hand):
            code += power[np.int64(z % np.uint64(6))]
            z = z // np.uint64(6)
    return roll_of_code[code]


@njit(cache=True, inline="always")
def keep_value(rules, V, slot, overshoot_value, win_value, score, turn_total, in_hand, units,
               used, instant_win):
    """What a keep is worth to a table policy (:mod:`solver.policies`):
    ``win_value`` if it wins, ``overshoot_value`` if it overshoots, else
    ``V[slot, t', n']`` at the turn total and dice in hand after it. (The
    slot is an index, not a view ``V[slot]``: a view per turn is slower.)"""
    after = turn_total + units
    result = keep_result(rules, score, after, instant_win)
    if result == KEEP_WINS:
        return win_value
    if result == KEEP_OVERSHOOTS:
        return overshoot_value
    return V[slot, after, dice_left(rules, in_hand, used)]


@njit(cache=True, inline="always")
def start_game(state, sheets, rng, common_seed):
    """Both players at their start scores, A to move, no offer."""
    if len(common_seed) > 0:
        rng[0] = common_seed[0] + np.uint64(state[_GAME])
        rng[0] = _next(rng)
    for seat in range(2):
        start = state[_START_A + seat]
        sheets[seat, 0] = start
        state[_LEN_A + seat] = 1 if start > 0 else 0
        state[_CROSS_A + seat] = 0
        state[_FALLEN_A + seat] = 0
    state[_DEEP_IN_GAME] = 0
    state[_MOVER] = 0
    state[_TURNS] = 0
    state[_OFFER_T] = 0
    state[_OFFER_N] = 0
    state[_WINNER] = -1
    state[_IN_GAME] = 1


@njit(cache=True, inline="always")
def _end_game(state, winners, winner):
    """The game is over: ``winner`` 0 (A), 1 (B) or -1 (stopped at the turn cap)."""
    if len(winners) > state[_GAME]:
        winners[state[_GAME]] = winner
    if winner < 0:
        state[_UNFINISHED] += 1
    elif winner == 0:
        state[_WINS_A] += 1
    state[_WINNER] = winner
    state[_IN_GAME] = 0
    state[_GAME] += 1


@njit(cache=True, inline="always")
def _fall(state, sheets, log, one_level, seat):
    """The last cross, on the paper sheet: strike the last score off (under
    ``one_level``, not again before a new bank) and mark the player fallen."""
    length = state[_LEN_A + seat]
    fallen = state[_FALLEN_A + seat] != 0
    if length > 0 and fallen and state[_DEEP_IN_GAME] == 0:
        state[_DEEP_IN_GAME] = 1
        state[_DEEP_GAMES] += 1
    if length > 0 and not (one_level and fallen):
        state[_LEN_A + seat] = length - 1
    state[_FALLEN_A + seat] = 1
    _log(state, log, seat, FALL, 0, _score(state, sheets, seat), 0)


@njit(cache=True, inline="always")
def end_turn(rules, state, sheets, log, one_level, seat, outcome, turn_total, in_hand, took):
    """A turn of ``seat`` that did not win ended with ``outcome`` (BANK,
    ZERO or OVERSHOOT) holding ``turn_total`` and ``in_hand`` dice: write the
    sheet, the crosses and the offer; the move passes."""
    score = _score(state, sheets, seat)
    state[_OFFER_T] = 0
    state[_OFFER_N] = 0
    if outcome == BANK:
        new, _, crosses = after_bank(rules, score, turn_total)
        length = state[_LEN_A + seat]
        sheets[seat, length] = new
        state[_LEN_A + seat] = length + 1
        state[_CROSS_A + seat] = crosses
        state[_FALLEN_A + seat] = 0
        offered = offer(rules, in_hand)
        if offered > 0:
            state[_OFFER_T] = turn_total
            state[_OFFER_N] = offered
        _log(state, log, seat, BANK, turn_total, new, took)
    else:
        _log(state, log, seat, outcome, turn_total, score, took)
        if rules.crosses > 0:
            crosses, falls = add_cross(rules, state[_CROSS_A + seat])
            state[_CROSS_A + seat] = crosses
            if falls:
                _fall(state, sheets, log, one_level, seat)
    state[_MOVER] = 1 - seat


@njit(cache=True)
def _run(rules, dice, tables, index, games, games_end):
    """Play games until ``games.state[_GAME] == games_end``. Returns a
    status: done, need an optimal table for (_NEED_M, _NEED_W, _NEED_Z) of
    the mover's seat, a score the solver's player space lacks, or the
    script ran out."""
    state, sheets, rng, script, log = games.state, games.sheets, games.rng, games.script, \
        games.log
    power, roll_of_code, instant_win = dice.power, dice.roll_of_code, dice.instant_win
    keep_first, keep_units, keep_used, keep_win = dice.keep_first, dice.keep_units, \
        dice.keep_used, dice.keep_win
    V_all, bank_all, take_all, Zs, wins = tables.V, tables.bank, tables.take, tables.Z, \
        tables.win
    kinds, guards = tables.kinds, tables.guards
    common_seed, winners, max_turns, one_level = games.common_seed, games.winners, \
        games.max_turns, games.one_level
    hash_keys, hash_slots, state_of, zero_of = index.hash_keys, index.hash_slots, \
        index.state_of, index.zero_of
    states, key_base = index.states, index.key_base
    while state[_GAME] < games_end:
        if state[_IN_GAME] == 0:
            start_game(state, sheets, rng, common_seed)
        if state[_TURNS] >= max_turns:
            _end_game(state, winners, -1)
            continue
        seat = state[_MOVER]
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
                return _UNKNOWN_SCORE
            z = zero_of[seat, s_m, prev_m, c_m]
            P = states[seat]
            key = key_base[seat] + (m * P + w) * (P + 1) + z + 1
            slot = hash_slots[_hash_at(hash_keys, key)]
            if slot < 0:
                state[_NEED_M] = m
                state[_NEED_W] = w
                state[_NEED_Z] = z
                return _NEED_TABLE
        overshoot_value = Zs[slot]
        win_value = wins[slot]

        # Take over the offer, or roll all dice from 0.
        t = 0
        n = rules.dice
        took = 0
        offer_t = state[_OFFER_T]
        offer_n = state[_OFFER_N]
        if offer_n > 0 and may_take_over(rules, score):
            if kind == RANDOM:
                took = _below(rng, 2)
            elif take_all[slot, offer_t, offer_n] != 0:
                took = 1
                # Guard: when even the smallest keep (one unit) would
                # overshoot, the offer leaves nothing but a zero turn.
                if guard and keep_result(rules, score, offer_t + 1, False) == KEEP_OVERSHOOTS:
                    took = 0
            if took == 1:
                t = offer_t
                n = offer_n

        # The turn: roll, keep, bank or roll on.
        script_pos = state[_SCRIPT_POS]
        while True:
            r = throw(power, roll_of_code, script, state, rng, n)
            if r < 0:
                state[_SCRIPT_POS] = script_pos
                return _SCRIPT_END
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
                    v = keep_value(rules, V_all, slot, overshoot_value, win_value, score, t, n,
                                   keep_units[k], keep_used[k], keep_win[k])
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
                    # Guard: a bank that leaves the score where it is (at
                    # the cap) changes nothing but the turn.
                    if guard and banked_score(rules, score, t) == score:
                        banks = False
                if banks:
                    outcome = BANK
                    break

        state[_TURNS] += 1
        state[_ALL_TURNS] += 1
        if outcome == WIN or outcome == INSTANT_WIN:
            _log(state, log, seat, outcome, t, rules.target if outcome == WIN else score, took)
            _end_game(state, winners, seat)
        else:
            end_turn(rules, state, sheets, log, one_level, seat, outcome, t, n, took)
    return _DONE


# ------------------------------------------------------------------ driver

@dataclass
class SimulationResult:
    rules: str
    target: int
    policy_a: str
    policy_b: str
    games: int
    wins_a: int
    unfinished: int
    """Games stopped at the turn cap (counted for nobody)."""
    win_rate_a: float
    """A's wins over the finished games (A moves first)."""
    stderr: float
    """Binomial standard error ``sqrt(p (1 - p) / finished)``."""
    seconds: float
    seed: int
    turns_mean: float
    optimal_tables: int = 0
    """Turn starts replayed for the optimal policy."""
    optimal_seconds: float = 0.0
    winners: np.ndarray | None = None
    """With ``keep_winners``: each game's winner (0: A, 1: B, -1: unfinished)."""
    deep_fall_games: int = 0
    """Games in which a player who had fallen since their last bank reached a
    third cross again with a score on their sheet: the paper sheet strikes
    a second score off there, RULES.md's one-level memory does not (the
    only games where the two rules, and so simulator and tables, differ)."""
    common_dice: bool = False
    """Each game had its own dice stream (module docstring)."""

    @property
    def wins_b(self) -> int:
        return self.games - self.unfinished - self.wins_a

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    def to_json(self) -> dict:
        return {"game": self.rules, "target": self.target, "policy_a": self.policy_a,
                "policy_b": self.policy_b, "games": self.games, "wins_a": self.wins_a,
                "wins_b": self.wins_b, "unfinished": self.unfinished,
                "win_rate_a": self.win_rate_a, "stderr": self.stderr,
                "seconds": self.seconds, "games_per_second": self.games_per_second,
                "turns_mean": self.turns_mean, "seed": self.seed}


class _Machine:
    """Everything one run of the compiled loop needs, as its records."""

    def __init__(self, rules: Rules, policy_a, policy_b, seed: int, solution=None,
                 max_turns: int = MAX_TURNS, script=None, start=(0, 0), log_size: int = 0,
                 solution_b=None, common_dice: bool = False, winners: int = 0,
                 one_level: bool = False):
        rules.validate()
        self.rules = rules
        self.turn_rules = TurnRules.of(rules)
        self.policies = (parse_policy(policy_a), parse_policy(policy_b))
        self.dice: DiceTables = dice_tables(rules)
        self.store = TableStore(rules, 2, self.policies)
        self.seat_cache = self._seat_caches(solution, solution_b)
        self.caches = list({id(c): c for c in self.seat_cache if c is not None}.values())
        self.max_slots = 3
        if self.caches:
            if sum(c.key_span for c in self.caches) >= 2 ** 62:
                raise UsageError("too many player states for the optimal policy's cache")
            self.max_slots = max(3, min(OPTIMAL_CACHE_BYTES // self.store.slot_bytes,
                                        2 + sum(c.most_keys for c in self.caches)))
            self.store.grow(min(self.max_slots, 2 + 256))
        self.index = self._optimal_index()
        self.games = Games.new(rules, seed, max_turns, start, script, log_size, common_dice,
                               winners, one_level)

    def _seat_caches(self, solution, solution_b) -> list:
        """Each seat's optimal cache (None: not optimal); one cache per
        solved table in use, their keys apart in the shared hash."""
        rules, caches = self.rules, []
        seat_cache: list[OptimalCache | None] = [None, None]
        tables = (solution, solution if solution_b is None else solution_b)
        for seat, policy in enumerate(self.policies):
            if policy.kind != "optimal":
                continue
            table = tables[seat]
            if table is None:
                raise UsageError("the optimal policy needs a solved table (a Solution of "
                                 f"{rules.name} to {rules.target})")
            if table.rules != rules:
                raise UsageError(f"the table is for {table.rules.name} to "
                                 f"{table.rules.target}, not {rules.name} to {rules.target}")
            cache = next((c for c in caches if c.solution is table), None)
            if cache is None:
                cache = OptimalCache(table, rules, sum(c.key_span for c in caches))
                caches.append(cache)
            seat_cache[seat] = cache
        return seat_cache

    def _optimal_index(self) -> OptimalIndex:
        rules = self.rules
        rows = rules.target_units
        shape = (rows, rows, rules.crosses) if rules.crosses else (rows, 1, 1)
        if not self.caches:
            shape = (1, 1, 1)
        state_of = -np.ones((2,) + shape, dtype=np.int64)
        zero_of = -np.ones((2,) + shape, dtype=np.int64)
        states = np.zeros(2, dtype=np.int64)
        key_base = np.zeros(2, dtype=np.int64)
        for seat, cache in enumerate(self.seat_cache):
            if cache is not None:
                state_of[seat], zero_of[seat] = cache.state_of, cache.zero_of
                states[seat], key_base[seat] = cache.P, cache.base
        capacity = 1 << max(4, (2 * self.max_slots).bit_length())
        return OptimalIndex(-np.ones(capacity, dtype=np.int64), -np.ones(capacity, dtype=np.int64),
                            state_of, zero_of, states, key_base)

    @property
    def replays(self) -> int:
        return sum(c.replays for c in self.caches)

    @property
    def replay_seconds(self) -> float:
        return sum(c.seconds for c in self.caches)

    def run(self, games_end: int) -> None:
        store, index, st = self.store, self.index, self.games.state
        while True:
            status = _run(self.turn_rules, self.dice, store.record(), index, self.games,
                          games_end)
            if status == _DONE:
                return
            if status == _NEED_TABLE:
                self._make_room()
                cache = self.seat_cache[int(st[_MOVER])]
                m, w, z = (int(st[i]) for i in (_NEED_M, _NEED_W, _NEED_Z))
                cache.fill(store, store.used, m, w, z)
                _hash_put(index.hash_keys, index.hash_slots, cache.key(m, w, z), store.used)
                store.used += 1
                continue
            if status == _UNKNOWN_SCORE:
                raise RuntimeError("the simulator reached a score that the solved table "
                                   "does not hold: simulator and solver disagree")
            if status == _SCRIPT_END:
                raise UsageError("the scripted dice ran out in the middle of a turn")
            raise RuntimeError(f"unexpected status {status}")

    def _make_room(self) -> None:
        store = self.store
        if store.used < store.slots:
            return
        if store.slots < self.max_slots:
            store.grow(min(self.max_slots, 2 * store.slots))
            return
        self.index.hash_keys[:] = -1
        self.index.hash_slots[:] = -1
        for cache in self.caches:
            cache.resets += 1
        store.used = 2


def simulate(rules: Rules, policy_a, policy_b, games: int, seed: int = 0, solution=None,
             progress=None, max_turns: int = MAX_TURNS, solution_b=None,
             common_dice: bool = False, keep_winners: bool = False,
             one_level: bool = False) -> SimulationResult:
    """Play ``games`` games of ``policy_a`` (moving first) against
    ``policy_b``. ``solution`` (a :class:`solver.solution.Solution` of these
    very rules) is needed by the ``optimal`` policy; ``solution_b``, when
    given, is the table of B's ``optimal`` policy instead (to match two
    tables of one game, say the crosses model against the exact memory).
    ``progress(done, total)`` is called after each batch of games.
    ``common_dice``: each game its own dice stream (module docstring);
    ``keep_winners``: the result's ``winners`` holds each game's winner.
    ``one_level``: play the crosses as RULES.md (and the tables) do, a
    fallen player's third cross changing nothing, instead of the paper
    sheet (module docstring)."""
    if games < 1:
        raise UsageError(f"the number of games must be at least 1, not {games}")
    started = time.perf_counter()
    machine = _Machine(rules, policy_a, policy_b, seed, solution, max_turns,
                       solution_b=solution_b, common_dice=common_dice,
                       winners=games if keep_winners else 0, one_level=one_level)
    done = 0
    while done < games:
        done = min(games, done + BATCH)
        machine.run(done)
        if progress is not None:
            progress(done, games)
    seconds = time.perf_counter() - started
    st = machine.games.state
    wins_a, unfinished = int(st[_WINS_A]), int(st[_UNFINISHED])
    finished = games - unfinished
    rate = wins_a / finished if finished else math.nan
    stderr = math.sqrt(rate * (1 - rate) / finished) if finished else math.nan
    return SimulationResult(
        rules=rules.name, target=rules.target, policy_a=str(machine.policies[0]),
        policy_b=str(machine.policies[1]), games=games, wins_a=wins_a, unfinished=unfinished,
        win_rate_a=rate, stderr=stderr, seconds=seconds, seed=seed,
        turns_mean=int(st[_ALL_TURNS]) / games,
        optimal_tables=machine.replays, optimal_seconds=machine.replay_seconds,
        winners=machine.games.winners if keep_winners else None,
        deep_fall_games=int(st[_DEEP_GAMES]), common_dice=common_dice)


# ------------------------------------------------------------------ matches

@dataclass
class MatchResult:
    """X against Y in both seatings on common dice (:func:`match`). Rates
    are X's wins over finished games; standard errors in ``*_se``."""
    policy_x: str
    policy_y: str
    games: int
    seed: int
    first: SimulationResult
    """X moving first (A = X)."""
    second: SimulationResult
    """Y moving first (A = Y)."""
    win_first: float
    win_first_se: float
    win_second: float
    win_second_se: float
    win_mean: float
    """The mean of the two seatings (the first player's edge cancels)."""
    win_mean_se: float
    """From the per-game means of the two seatings (they share their dice,
    so they are not independent)."""
    paired_first: float | None = None
    """With a baseline: the mean per-game difference of X's win (0 or 1)
    as A and the baseline's A on the same dice; its standard error is the
    per-game differences' standard deviation over the square root of the
    games."""
    paired_first_se: float | None = None
    paired_second: float | None = None
    """The same for X as B against the baseline's B."""
    paired_second_se: float | None = None
    paired_mean: float | None = None
    paired_mean_se: float | None = None
    differ_first: int | None = None
    """Games whose winner differs from the baseline's, X first / second."""
    differ_second: int | None = None


def _mean_and_se(values: np.ndarray) -> tuple[float, float]:
    if len(values) == 0:
        return math.nan, math.nan
    se = float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else math.nan
    return float(values.mean()), se


def match(rules: Rules, policy_x, policy_y, games: int, seed: int, solution=None,
          solution_y=None, one_level: bool = False, baseline: SimulationResult | None = None,
          max_turns: int = MAX_TURNS, progress=None) -> MatchResult:
    """Play ``policy_x`` against ``policy_y`` in both seatings, ``games``
    games each, with common dice from the same ``seed``: game ``i`` throws
    the same dice in both seatings until the players first decide
    differently. ``solution`` is X's solved table (and Y's, unless
    ``solution_y`` is given). ``baseline``: a run of ``simulate`` with
    ``common_dice=True, keep_winners=True`` on the same seed and number of
    games (say optimal against optimal), against which X's wins are
    compared game by game (the paired differences, far sharper than two
    binomial errors). Games stopped at the turn cap are left out of the
    per-game figures."""
    if baseline is not None and (baseline.winners is None or not baseline.common_dice
                                 or baseline.games != games or baseline.seed != seed):
        raise UsageError("the baseline must be played with common_dice=True and "
                         "keep_winners=True, on the same seed and number of games")
    kw = dict(seed=seed, common_dice=True, keep_winners=True, one_level=one_level,
              max_turns=max_turns, progress=progress)
    table_y = solution if solution_y is None else solution_y
    first = simulate(rules, policy_x, policy_y, games, solution=solution, solution_b=table_y,
                     **kw)
    second = simulate(rules, policy_y, policy_x, games, solution=table_y, solution_b=solution,
                      **kw)
    x_first = (first.winners == 0).astype(np.float64)
    x_second = (second.winners == 1).astype(np.float64)
    finished_first, finished_second = first.winners >= 0, second.winners >= 0
    win_first, win_first_se = first.win_rate_a, first.stderr
    win_second = float(x_second[finished_second].mean()) if finished_second.any() else math.nan
    win_second_se = math.sqrt(win_second * (1 - win_second) / int(finished_second.sum())) \
        if finished_second.any() else math.nan
    both = finished_first & finished_second
    win_mean, win_mean_se = _mean_and_se((x_first[both] + x_second[both]) / 2)
    result = MatchResult(str(parse_policy(policy_x)), str(parse_policy(policy_y)), games, seed,
                         first, second, win_first, win_first_se, win_second, win_second_se,
                         win_mean, win_mean_se)
    if baseline is None:
        return result
    base_a = (baseline.winners == 0).astype(np.float64)
    base_b = (baseline.winners == 1).astype(np.float64)
    base_finished = baseline.winners >= 0
    one, two = finished_first & base_finished, finished_second & base_finished
    result.paired_first, result.paired_first_se = _mean_and_se(x_first[one] - base_a[one])
    result.paired_second, result.paired_second_se = _mean_and_se(x_second[two] - base_b[two])
    all_three = both & base_finished
    result.paired_mean, result.paired_mean_se = _mean_and_se(
        (x_first[all_three] - base_a[all_three] + x_second[all_three] - base_b[all_three]) / 2)
    result.differ_first = int(np.sum(first.winners != baseline.winners))
    result.differ_second = int(np.sum(second.winners != baseline.winners))
    return result


# ---------------------------------------------------- scripted games (tests)

@dataclass
class ScriptedGame:
    """The end of one game played with given dice."""
    winner: str | None
    """``"A"``, ``"B"``, or None when the game stopped at the turn cap."""
    scores: tuple[int, int]
    sheets: tuple[list[int], list[int]]
    """Each player's score sheet: their banked scores, in points."""
    crosses: tuple[int, int]
    events: list[dict] = field(default_factory=list)
    """One per turn (and per fall): player, outcome, turn total, score after,
    whether the turn began by taking over."""
    dice_used: int = 0


def scripted_events(games: Games, unit: int) -> list[dict]:
    """The log of ``games`` as events (see :class:`ScriptedGame`)."""
    return [{"turn": int(row[1]), "player": "AB"[row[2]], "outcome": OUTCOMES[int(row[3])],
             "turn_total": int(row[4]) * unit, "score": int(row[5]) * unit,
             "took_over": bool(row[6])}
            for row in games.log[:games.state[_LOG_COUNT]]]


def play_scripted(rules: Rules, policy_a, policy_b, dice, turns: int, start=(0, 0),
                  solution=None, seed: int = 0, solution_b=None) -> ScriptedGame:
    """Play one game with the dice thrown in the order given (each roll takes
    the next ``n`` values), stopping after ``turns`` turns at most. Random
    choices (the ``random`` policy) still come from ``seed``."""
    machine = _Machine(rules, policy_a, policy_b, seed, solution, max_turns=turns,
                       script=dice, start=start, log_size=4 * turns + 8,
                       solution_b=solution_b)
    machine.run(1)
    games, unit = machine.games, rules.unit
    st = games.state
    sheets = tuple([int(v) * unit for v in games.sheets[p, :st[_LEN_A + p]]] for p in range(2))
    winner = None if st[_WINNER] < 0 else "AB"[st[_WINNER]]
    return ScriptedGame(winner, (sheets[0][-1] if sheets[0] else 0,
                                 sheets[1][-1] if sheets[1] else 0),
                        sheets, (int(st[_CROSS_A]), int(st[_CROSS_B])),
                        scripted_events(games, unit), int(st[_SCRIPT_POS]))

"""Play whole games with real dice, to check the tables and compare policies.

The simulator reads RULES.md, not the solver: apart from the dice engine
(:func:`solver.dice.rolls` and :func:`solver.dice.keeps`, which list the
distinct rolls and the legal keeps of each) it has its own turn loop over
thrown dice, and its own score sheets. Only the ``optimal`` policy reads the
solver, through :func:`solver.solution.replay` of a :class:`solver.solution.Solution`.

Mechanics (one compiled loop, :func:`_run`, serves every policy)
----------------------------------------------------------------
* A turn rolls the dice in hand (thrown one by one from a seeded
  splitmix64 generator; a roll is then looked up as a multiset). A roll that
  holds an instant win (``rules.instant_wins``: five 1s in cinq-mille) wins
  the game at once: nobody would set it aside for less, and RULES.md says the
  roll wins "at any time, also before opening". A roll without a keep is a
  zero roll. Otherwise the policy picks one legal keep, ``t += points``,
  ``n -= dice kept``, and:
  - at-least target: ``s + t >= target`` wins at once (the bank is legal: the
    target is above the entry);
  - exact target: ``s + t == target`` wins, ``s + t > target`` ends the turn
    as a zero turn (overshoot);
  - ``n == 0`` is hot dice: ``n = dice``; if ``rules.hot_dice_forced`` the
    player must roll again, else they may bank or roll;
  - the bank is legal when the entry is met (``s > 0`` or ``t >= entry``) and
    not on forced hot dice. The policy banks or rolls.
* A bank writes ``s + t`` on the player's sheet, or ``min(s + t, cap)`` with
  ``rules.score_cap_units`` (cinq-mille-last1000: a player at the cap may
  still bank, and stays there). It erases the player's crosses. A bank with
  ``1 <= n <= dice - 1`` dice unset is offered to the next player.
* Take-over: the next player, when ``rules.takeover_min_units`` is set and
  their score is at least that (hence entered), may start their turn holding
  the offered total and rolling the offered dice instead of all dice from 0.
  An offer not taken at once is gone.
* Crosses (``rules.crosses > 0``, dix-mille) on the whole paper sheet: the
  sheet is the list of the player's banked scores; a turn without a bank
  (zero roll or overshoot) is a cross; at the ``crosses``-th consecutive
  cross the last score is struck off the sheet (the player goes back to the
  score before their last bank, 0 if none) and the crosses are erased. Six
  crosses in a row thus go back two banks, and so on down the sheet. (The
  solver's tables use the one-level model of RULES.md; the simulator plays
  the paper rule, so the two can be compared. ``one_level=True`` plays the
  RULES.md rule instead: a player who has fallen since their last bank
  only loses their crosses at a third cross. Either way the result counts
  the games where the two rules part, ``deep_fall_games``.)
* A player back at 0 must meet the entry again (the sheet says 0).
* A game that reaches ``max_turns`` turns (both players counted) is stopped
  and reported as unfinished, not counted as a win for anyone.

Policies (data fed to the same loop)
------------------------------------
Every non-random policy is a *table policy*: a keep is the argmax of
``value(t', n')`` over the legal keeps (first in the order: instant win, most
points, fewest dice; a keep that wins is worth ``win``, an overshoot
``overshoot``); ``bank[t, n]`` says bank when the bank is legal; ``take[t, n]``
says take an offer of ``t`` units with ``n`` dice.

* ``threshold:X`` -- value = turn total (so: a winning keep if any, else the
  most points that do not overshoot an exact target); bank as soon as the
  turn total is at least ``X`` points and the bank is legal; take an offer
  when its total is at least ``X``. Two guards (also for ``expected``): no
  bank at the score cap (it would change nothing: the last points must then
  come in one turn), and no take-over of an offer that already reaches an
  exact target (RULES.md: nothing but a zero turn is left).
* ``expected`` -- maximise the expected points banked this turn, ignoring
  both scores: a DP over (turn total, dice in hand) with bank value ``t``,
  zero roll 0, hot dice forced where the rules force them, totals beyond
  :data:`EXPECTED_TOP_POINTS` banked; the target, the entry, the cap and the
  crosses are ignored by the DP (an instant win counts as the target's
  points). At the table a winning keep is taken, an overshooting keep is
  worth 0, the entry and the forced hot dice are obeyed (the bank is simply
  not legal then) and the two guards above apply. Take an offer when its
  expected points ``R(t, n)`` beat a fresh turn's ``R(0, dice)``.
* ``random`` -- every legal keep with equal probability; bank or roll with
  probability 1/2 each when the bank is legal; take an offer with
  probability 1/2.
* ``optimal`` -- the solved table. For the mover in player state ``m``
  against ``w``, :func:`solver.solution.replay` gives ``(Z, R, A, B)``;
  value = ``A`` (win 1, overshoot ``Z``), bank when the bank value
  ``B[t, n]`` is at least ``R[t, n]``, take when ``R[t, n]`` beats the
  value of a fresh turn (``W[m, w]``, or ``R[0, dice]`` under a look-ahead,
  below). These tables are computed the first time a turn start
  ``(m, w, zero_to)`` comes up (the compiled loop returns to Python to ask
  for them) and cached, so the optimal policy runs in the same compiled loop
  as the others. Each seat may read its own solved table (``solution`` for
  A, ``solution_b`` for B), so that two tables of one game can be matched.

Optimal play with crosses (dix-mille)
-------------------------------------
A table's player state comes from the paper sheet as a
:class:`solver.states.Line`: score = the last entry, previous = the entry
before it (0 if none), crosses = the current crosses, mapped by
:func:`solver.states.player_state` (built once per table into an array
``[score, previous, crosses] -> (state, zero_to)`` that the compiled loop
reads). The sheet is the whole paper sheet (a fall strikes one entry off,
and six crosses in a row go back two banks), but the tables use the
one-level memory of RULES.md, where a fallen player's previous score *is*
their score (the *fallen* state: nothing left to lose). So a player who has
fallen since their last bank is looked up in the fallen state
``previous = score``, even though the simulator's sheet may still hold an
older entry, which a further three crosses will indeed strike off. Table
and simulator thus differ only after six zero turns of one player without
a bank in between; the simulator plays the paper rule and so measures that
difference.

* ``memory="exact"`` tables: the state is (score, previous, crosses), and a
  zero turn leads where the table says.
* ``memory="model"`` tables forget the previous score (only the fallen
  state is told apart); the policy is the model's values with an exact
  look-ahead of one turn: a mover on their last cross who has not fallen
  replays their turn with the zero-turn value of the *true* fall,
  ``zero_to = space.find(previous, previous)`` (:func:`replay` with
  ``zero_to``), exactly as the advice does. The decision tables are then
  cached per ``(m, w, zero_to)``.

Randomness: one splitmix64 stream seeded from ``seed`` (via
``numpy.random.SeedSequence``) for the whole run, A moving first in every
game; the same seed gives the same games whatever the batch sizes and the
cache state of the optimal tables. With ``common_dice=True`` each game has
its own stream, seeded from ``seed`` and the game's number: two runs with
the same seed then throw the same dice in every game until their players
first decide differently (common random numbers, to compare two policies
game by game; ``keep_winners=True`` returns each game's winner).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
from numba import njit

from .dice import keeps, rolls
from .errors import UsageError
from .rules import Rules
from .solution import replay

MAX_TURNS = 10_000
"""A game still running after this many turns is stopped and reported."""

EXPECTED_TOP_POINTS = 100_000
"""The ``expected`` policy's DP banks every turn total above this."""

OPTIMAL_CACHE_BYTES = 512 * 2 ** 20
"""Memory for the optimal policy's per-turn-start tables; when full the
cache is emptied and refilled on demand."""

BATCH = 1 << 14
"""Games per call of the compiled loop (a progress report after each)."""

# Policy kinds in the compiled loop.
_TABLE, _OPTIMAL, _RANDOM = 0, 1, 2
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


# ------------------------------------------------------------------ policies

@dataclass(frozen=True)
class Policy:
    """A way to play; see the module docstring. ``threshold`` is in points."""
    kind: str
    threshold: int | None = None
    guards: bool = True
    """The two guards of ``threshold`` and ``expected`` (off only in tests
    of the mechanics)."""

    def __str__(self) -> str:
        return f"threshold:{self.threshold}" if self.kind == "threshold" else self.kind


POLICY_NAMES = ("optimal", "threshold:X", "expected", "random")


def parse_policy(text: str) -> Policy:
    """``optimal``, ``threshold:X`` (X points, an integer >= 0), ``expected``
    or ``random``."""
    if isinstance(text, Policy):
        return text
    word = str(text).strip().lower()
    if word in ("optimal", "expected", "random"):
        return Policy(word)
    if word.startswith("threshold:"):
        value = word.split(":", 1)[1].strip()
        try:
            points = int(value)
        except ValueError:
            raise UsageError(f"policy {text!r}: the threshold must be a whole number of "
                             f"points, as in threshold:300") from None
        if points < 0:
            raise UsageError(f"policy {text!r}: the threshold must not be negative")
        return Policy("threshold", points)
    raise UsageError(f"unknown policy {text!r}; known policies: {', '.join(POLICY_NAMES)}")


# --------------------------------------------------------------- dice tables

@dataclass(frozen=True)
class DiceTables:
    """Every distinct roll of 1..dice dice and all its legal keeps.

    A thrown roll is found by its code ``sum(power[face - 1])`` with
    ``power[f] = (dice + 1) ** f``: ``roll_of_code[code]``. Roll ``r`` has
    probability ``prob[r]``, ``dice_of[r]`` dice, ``instant_win[r]`` and keeps
    ``keep_first[r]`` to ``keep_first[r + 1] - 1`` (points in units, dice
    used), ordered instant win first, then most points, then fewest dice."""
    power: np.ndarray
    roll_of_code: np.ndarray
    prob: np.ndarray
    dice_of: np.ndarray
    instant_win: np.ndarray
    keep_first: np.ndarray
    keep_units: np.ndarray
    keep_used: np.ndarray
    keep_win: np.ndarray


_DICE_CACHE: dict = {}


def dice_tables(rules: Rules) -> DiceTables:
    key = (rules.dice, rules.unit, rules.scoring, rules.straights, rules.instant_wins)
    if key in _DICE_CACHE:
        return _DICE_CACHE[key]
    D = rules.dice
    power = (D + 1) ** np.arange(6, dtype=np.int64)
    roll_of_code = -np.ones((D + 1) ** 6, dtype=np.int64)
    prob, dice_of, instant, first, units, used, wins = [], [], [], [0], [], [], []
    for n in range(1, D + 1):
        for counts, p in rolls(n):
            roll_of_code[int(np.dot(counts, power))] = len(prob)
            options = sorted(keeps(rules, counts), key=lambda k: (not k.win, -k.points, k.used))
            prob.append(float(p))
            dice_of.append(n)
            instant.append(any(k.win for k in options))
            for k in options:
                units.append(k.points // rules.unit)
                used.append(k.used)
                wins.append(k.win)
            first.append(len(units))
    tables = DiceTables(power, roll_of_code, np.array(prob), np.array(dice_of, dtype=np.int64),
                        np.array(instant, dtype=np.bool_), np.array(first, dtype=np.int64),
                        np.array(units, dtype=np.int64), np.array(used, dtype=np.int64),
                        np.array(wins, dtype=np.bool_))
    _DICE_CACHE[key] = tables
    return tables


# ------------------------------------------------------ the expected policy

@njit(cache=True)
def _expected_dp(dice, forced, top, win_units, prob, dice_of, instant_win, keep_first,
                 keep_units, keep_used):
    """Expected points banked from (turn total t, about to roll n dice),
    maximising them: ``R[t, n]``; ``V[t, n]`` after a keep (bank or roll)."""
    R = np.zeros((top + 1, dice + 1))
    V = np.zeros((top + 1, dice + 1))
    for t in range(top, -1, -1):
        for r in range(len(prob)):
            n = dice_of[r]
            if instant_win[r]:
                best = t + win_units
            elif keep_first[r] == keep_first[r + 1]:
                best = 0.0
            else:
                best = -1.0
                for k in range(keep_first[r], keep_first[r + 1]):
                    t2 = t + keep_units[k]
                    n2 = n - keep_used[k]
                    if n2 == 0:
                        n2 = dice
                    v = t2 if t2 > top else V[t2, n2]
                    if v > best:
                        best = v
            R[t, n] += prob[r] * best
        for n in range(1, dice + 1):
            V[t, n] = R[t, n]
            if t > 0 and not (forced and n == dice) and t > V[t, n]:
                V[t, n] = t
    return R, V


@lru_cache(maxsize=16)
def expected_turn(rules: Rules):
    """``(R, V)`` of the ``expected`` policy in units, rows 0 to
    :data:`EXPECTED_TOP_POINTS` / unit (or the target, if larger)."""
    d = dice_tables(rules)
    top = max(rules.target, EXPECTED_TOP_POINTS) // rules.unit
    return _expected_dp(rules.dice, rules.hot_dice_forced, top, rules.target_units,
                        d.prob, d.dice_of, d.instant_win, d.keep_first, d.keep_units,
                        d.keep_used)


def _fixed_tables(policy: Policy, rules: Rules):
    """(value, bank, take, overshoot value, win value) of a table policy."""
    rows, D = rules.target_units, rules.dice
    t = np.arange(rows)[:, None] * np.ones(D + 1)
    if policy.kind == "threshold":
        x = -(-policy.threshold // rules.unit)
        return t.copy(), (t >= x).astype(np.uint8), (t >= x).astype(np.uint8), -1.0, 1e300
    if policy.kind == "expected":
        R, V = expected_turn(rules)
        bank = (t >= R[:rows]).astype(np.uint8)
        take = (R[:rows] > R[0, D]).astype(np.uint8)
        return V[:rows].copy(), bank, take, 0.0, 1e300
    # random: tables unused
    return np.zeros((rows, D + 1)), np.zeros((rows, D + 1), np.uint8), \
        np.zeros((rows, D + 1), np.uint8), 0.0, 1.0


# ------------------------------------------------------- the optimal policy

def player_states(rules: Rules, space):
    """``(state, zero_to)`` arrays indexed ``[score, previous, crosses]``
    (units; axes 1 and 2 have length 1 in a game without crosses): the
    player state and the look-ahead state (-1: none) of every score-sheet
    line, from :func:`solver.states.player_state`; -1 where the line cannot
    occur in ``space``."""
    from .states import Line, player_state
    rows, unit = rules.target_units, rules.unit
    if not rules.crosses:
        state = -np.ones((rows, 1, 1), dtype=np.int64)
        state[np.asarray(space.score), 0, 0] = np.arange(space.size)
        return state, -np.ones_like(state)
    C = rules.crosses
    state = -np.ones((rows, rows, C), dtype=np.int64)
    zero_to = -np.ones((rows, rows, C), dtype=np.int64)
    first = max(rules.entry_units, 1)
    for s in range(rows):
        for prev in [0] + list(range(first, s + 1)):
            for c in range(C):
                try:
                    m, z = player_state(rules, space, Line(s * unit, c, prev * unit), "player")
                except UsageError:
                    continue
                z = -1 if z is None else z
                state[s, prev, c] = m
                zero_to[s, prev, c] = z
    return state, zero_to


class _OptimalCache:
    """Decision tables of the optimal policy of one solved table per turn
    start (m, w, zero_to), in the slots 2.. of the shared slot store (slots
    0 and 1 hold the fixed tables of players A and B); the slot of a turn
    start is found in the machine's hash of keys (:meth:`key`)."""

    def __init__(self, solution, rules: Rules, base: int = 0):
        self.solution = solution
        space = solution.space
        self.space = space
        self.rules = rules
        self.P = space.size
        self.base = base
        """Offset of this table's keys (two tables share one hash)."""
        self.W = np.asarray(solution.W)
        self.replays = 0
        self.resets = 0
        self.seconds = 0.0

    @cached_property
    def _maps(self):
        return player_states(self.rules, self.space)

    @property
    def state_of(self) -> np.ndarray:
        return self._maps[0]

    @property
    def zero_of(self) -> np.ndarray:
        return self._maps[1]

    @property
    def key_span(self) -> int:
        return self.P * self.P * (self.P + 1)

    @property
    def most_keys(self) -> int:
        """A bound on the turn starts (with look-ahead) that can come up."""
        lookahead = self.rules.target_units if self.space.memory == "model" else 0
        return self.P * self.P * (1 + lookahead)

    def key(self, m: int, w: int, z: int) -> int:
        """Same as the compiled loop's: ``z`` is the look-ahead state or -1."""
        return self.base + (m * self.P + w) * (self.P + 1) + z + 1

    def fill(self, store, slot: int, m: int, w: int, z: int = -1) -> None:
        started = time.perf_counter()
        rules, space, W = self.rules, self.space, self.W
        D, rows = rules.dice, rules.target_units
        zero_to = None if z < 0 else int(z)
        Z, R, A, B = replay(self.solution, m, w, compiled=True, zero_to=zero_to)
        R, A = np.asarray(R)[:rows], np.asarray(A)[:rows]
        store.V[slot] = A
        store.Z[slot] = Z
        store.win[slot] = 1.0
        # Bank where it is allowed and worth at least rolling on.
        T = rows - int(space.score[m])
        bank = np.zeros((rows, D + 1), dtype=np.uint8)
        bank[:T] = B >= R[:T]
        store.bank[slot] = bank
        # Take over when it beats a fresh turn (under a look-ahead the fresh
        # turn is worth the replayed R[0, D], not the model's W[m, w]).
        fresh = W[m, w] if zero_to is None else R[0, D]
        take = np.zeros((rows, D + 1), dtype=np.uint8)
        take[:, 1:D] = R[:, 1:D] > fresh
        store.take[slot] = take
        self.replays += 1
        self.seconds += time.perf_counter() - started


def optimal_tables(solution, m: int, w: int, zero_to: int | None = None):
    """The ``optimal`` policy's tables at the turn start of mover ``m``
    against ``w`` (player states; ``zero_to``: the look-ahead state of a
    model table, as :func:`solver.states.player_state` gives it), for
    inspection and tests: ``(value, bank, take, Z)``, indexed ``[t, n]``
    (turn total in units, dice)."""
    store = _Store(solution.rules, 3)
    _OptimalCache(solution, solution.rules).fill(store, 2, m, w,
                                                 -1 if zero_to is None else zero_to)
    return store.V[2], store.bank[2].astype(bool), store.take[2].astype(bool), float(store.Z[2])


class _Store:
    """Decision tables by slot: value V, bank, take (uint8), overshoot value
    Z and win value per slot."""

    def __init__(self, rules: Rules, slots: int):
        rows, D = rules.target_units, rules.dice
        self.V = np.zeros((slots, rows, D + 1))
        self.bank = np.zeros((slots, rows, D + 1), dtype=np.uint8)
        self.take = np.zeros((slots, rows, D + 1), dtype=np.uint8)
        self.Z = np.zeros(slots)
        self.win = np.ones(slots)
        self.used = 2

    @property
    def slots(self) -> int:
        return len(self.Z)

    @property
    def slot_bytes(self) -> int:
        return self.V[0].nbytes + self.bank[0].nbytes + self.take[0].nbytes + 16

    def grow(self, slots: int) -> None:
        for name in ("V", "bank", "take", "Z", "win"):
            old = getattr(self, name)
            new = np.zeros((slots,) + old.shape[1:], dtype=old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)


# --------------------------------------------------------------- the kernel

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


@njit(cache=True)
def _score(sheets, st, p):
    length = st[_LEN_A + p]
    return sheets[p, length - 1] if length > 0 else 0


@njit(cache=True)
def _line(sheets, st, p, crosses):
    """(score, previous, crosses) of player ``p`` for a table lookup: the
    previous score is the entry before the last (0 if none), or the score
    itself when the player has fallen since their last bank (module
    docstring); (score, 0, 0) in a game without crosses."""
    length = st[_LEN_A + p]
    s = sheets[p, length - 1] if length > 0 else 0
    if crosses == 0:
        return s, 0, 0
    if st[_FALLEN_A + p] != 0:
        prev = s
    elif length >= 2:
        prev = sheets[p, length - 2]
    else:
        prev = 0
    return s, prev, st[_CROSS_A + p]


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


@njit(cache=True)
def _log(log, st, p, kind, t, score, took):
    c = st[_LOG_COUNT]
    if c < log.shape[0]:
        log[c, 0] = st[_GAME]
        log[c, 1] = st[_TURNS]
        log[c, 2] = p
        log[c, 3] = kind
        log[c, 4] = t
        log[c, 5] = score
        log[c, 6] = took
        st[_LOG_COUNT] = c + 1


@njit(cache=True)
def _turn(s, t, n, slot, kind, guards, st, rng, script,
          dice, target, exact, entry, forced, cap,
          power, roll_of_code, instant_win, keep_first, keep_units, keep_used,
          V, bank_table, Zs, win_values):
    """Play one turn of a player at score ``s`` holding ``t`` units and ``n``
    dice. Returns (outcome, t, n); outcome -1: the script ran out."""
    while True:
        code = 0
        if len(script) > 0:
            pos = st[_SCRIPT_POS]
            if pos + n > len(script):
                return -1, t, n
            for i in range(n):
                code += power[script[pos + i] - 1]
            st[_SCRIPT_POS] = pos + n
        else:
            z = _next(rng)
            for i in range(n):
                code += power[np.int64(z % np.uint64(6))]
                z = z // np.uint64(6)
        r = roll_of_code[code]
        if instant_win[r]:
            return INSTANT_WIN, t, n
        k0 = keep_first[r]
        k1 = keep_first[r + 1]
        if k0 == k1:
            return ZERO, t, n
        if kind == _RANDOM:
            chosen = k0 + _below(rng, k1 - k0)
        else:
            chosen = k0
            best = -np.inf
            for k in range(k0, k1):
                total = s + t + keep_units[k]
                if total == target or (total > target and not exact):
                    v = win_values[slot]
                elif total > target:
                    v = Zs[slot]
                else:
                    left = n - keep_used[k]
                    v = V[slot, t + keep_units[k], left if left > 0 else dice]
                if v > best:
                    best = v
                    chosen = k
        t += keep_units[chosen]
        n -= keep_used[chosen]
        if s + t == target or (s + t > target and not exact):
            return WIN, t, n
        if s + t > target:
            return OVERSHOOT, t, n
        hot = n == 0
        if hot:
            n = dice
        if (s > 0 or t >= entry) and not (forced and hot):
            if kind == _RANDOM:
                banks = _below(rng, 2) == 1
            else:
                banks = bank_table[slot, t, n] != 0
                if guards and cap >= 0 and s >= cap:
                    banks = False
            if banks:
                return BANK, t, n


@njit(cache=True)
def _run(games_end, max_turns, st, sheets, rng, script, log,
         dice, target, exact, entry, forced, crosses, cap, take_min,
         power, roll_of_code, instant_win, keep_first, keep_units, keep_used,
         kinds, guards, hash_keys, hash_slots, state_of, zero_of, seat_P, seat_base,
         V, bank_table, take_table, Zs, win_values, common_seed, winners, one_level):
    """Play games until ``st[_GAME] == games_end``. Returns a status: done,
    need an optimal table for (st[_NEED_M], st[_NEED_W], st[_NEED_Z]) of
    the mover's seat, a score the solver's player space lacks, or the
    script ran out. ``common_seed`` (one value, or none): seed each game's
    own dice stream from it and the game's number. ``winners`` (if not
    empty) gets each game's winner (0: A, 1: B, -1: unfinished).
    ``one_level``: the third cross of a fallen player changes nothing
    (RULES.md) instead of striking the next score off the paper sheet."""
    while st[_GAME] < games_end:
        if st[_IN_GAME] == 0:
            if len(common_seed) > 0:
                rng[0] = common_seed[0] + np.uint64(st[_GAME])
                rng[0] = _next(rng)
            for p in range(2):
                start = st[_START_A + p]
                sheets[p, 0] = start
                st[_LEN_A + p] = 1 if start > 0 else 0
                st[_CROSS_A + p] = 0
                st[_FALLEN_A + p] = 0
            st[_DEEP_IN_GAME] = 0
            st[_MOVER] = 0
            st[_TURNS] = 0
            st[_OFFER_T] = 0
            st[_OFFER_N] = 0
            st[_WINNER] = -1
            st[_IN_GAME] = 1
        if st[_TURNS] >= max_turns:
            if len(winners) > st[_GAME]:
                winners[st[_GAME]] = -1
            st[_UNFINISHED] += 1
            st[_IN_GAME] = 0
            st[_GAME] += 1
            continue
        p = st[_MOVER]
        s = _score(sheets, st, p)
        kind = kinds[p]
        slot = p
        if kind == _OPTIMAL:
            s_m, prev_m, c_m = _line(sheets, st, p, crosses)
            s_w, prev_w, c_w = _line(sheets, st, 1 - p, crosses)
            m = state_of[p, s_m, prev_m, c_m]
            w = state_of[p, s_w, prev_w, c_w]
            if m < 0 or w < 0:
                return _UNKNOWN_SCORE
            z = zero_of[p, s_m, prev_m, c_m]
            P = seat_P[p]
            key = seat_base[p] + (m * P + w) * (P + 1) + z + 1
            slot = hash_slots[_hash_at(hash_keys, key)]
            if slot < 0:
                st[_NEED_M] = m
                st[_NEED_W] = w
                st[_NEED_Z] = z
                return _NEED_TABLE
        t = 0
        n = dice
        took = 0
        offer_t = st[_OFFER_T]
        offer_n = st[_OFFER_N]
        script_pos = st[_SCRIPT_POS]
        if offer_n > 0 and take_min > 0 and s >= take_min:
            if kind == _RANDOM:
                took = _below(rng, 2)
            elif take_table[slot, offer_t, offer_n] != 0:
                took = 1
                if guards[p] and exact and s + offer_t >= target:
                    took = 0
            if took == 1:
                t = offer_t
                n = offer_n
        outcome, t, n = _turn(s, t, n, slot, kind, guards[p], st, rng, script,
                              dice, target, exact, entry, forced, cap,
                              power, roll_of_code, instant_win, keep_first, keep_units,
                              keep_used, V, bank_table, Zs, win_values)
        if outcome < 0:
            st[_SCRIPT_POS] = script_pos
            return _SCRIPT_END
        st[_OFFER_T] = 0
        st[_OFFER_N] = 0
        st[_TURNS] += 1
        st[_ALL_TURNS] += 1
        if outcome == WIN or outcome == INSTANT_WIN:
            _log(log, st, p, outcome, t, target if outcome == WIN else s, took)
            st[_WINNER] = p
            if p == 0:
                st[_WINS_A] += 1
            if len(winners) > st[_GAME]:
                winners[st[_GAME]] = p
            st[_IN_GAME] = 0
            st[_GAME] += 1
            continue
        if outcome == BANK:
            new = s + t
            if cap >= 0 and new > cap:
                new = cap
            length = st[_LEN_A + p]
            sheets[p, length] = new
            st[_LEN_A + p] = length + 1
            st[_CROSS_A + p] = 0
            st[_FALLEN_A + p] = 0
            if 1 <= n <= dice - 1:
                st[_OFFER_T] = t
                st[_OFFER_N] = n
            _log(log, st, p, BANK, t, new, took)
        else:
            _log(log, st, p, outcome, t, s, took)
            if crosses > 0:
                st[_CROSS_A + p] += 1
                if st[_CROSS_A + p] >= crosses:
                    st[_CROSS_A + p] = 0
                    if st[_LEN_A + p] > 0 and st[_FALLEN_A + p] != 0 \
                            and st[_DEEP_IN_GAME] == 0:
                        st[_DEEP_IN_GAME] = 1
                        st[_DEEP_GAMES] += 1
                    if st[_LEN_A + p] > 0 and not (one_level and st[_FALLEN_A + p] != 0):
                        st[_LEN_A + p] -= 1
                    st[_FALLEN_A + p] = 1
                    _log(log, st, p, FALL, 0, _score(sheets, st, p), 0)
        st[_MOVER] = 1 - p
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
    """Everything one run of the compiled loop needs."""

    def __init__(self, rules: Rules, policy_a, policy_b, seed: int, solution=None,
                 max_turns: int = MAX_TURNS, script=None, start=(0, 0), log_size: int = 0,
                 solution_b=None, common_dice: bool = False, winners: int = 0,
                 one_level: bool = False):
        rules.validate()
        self.rules = rules
        self.policies = (parse_policy(policy_a), parse_policy(policy_b))
        self.max_turns = int(max_turns)
        self.dice = dice_tables(rules)
        self.store = _Store(rules, 2)
        # One optimal cache per solved table in use; seat_cache[p]: seat p's.
        self.caches: list[_OptimalCache] = []
        self.seat_cache: list[_OptimalCache | None] = [None, None]
        tables = (solution, solution if solution_b is None else solution_b)
        for p, policy in enumerate(self.policies):
            if policy.kind != "optimal":
                continue
            table = tables[p]
            if table is None:
                raise UsageError("the optimal policy needs a solved table (a Solution of "
                                 f"{rules.name} to {rules.target})")
            if table.rules != rules:
                raise UsageError(f"the table is for {table.rules.name} to "
                                 f"{table.rules.target}, not {rules.name} to {rules.target}")
            cache = next((c for c in self.caches if c.solution is table), None)
            if cache is None:
                base = sum(c.key_span for c in self.caches)
                cache = _OptimalCache(table, rules, base)
                self.caches.append(cache)
            self.seat_cache[p] = cache
        rows = rules.target_units
        shape = (rows, rows, rules.crosses) if rules.crosses else (rows, 1, 1)
        if not self.caches:
            shape = (1, 1, 1)
        self.state_of = -np.ones((2,) + shape, dtype=np.int64)
        self.zero_of = -np.ones((2,) + shape, dtype=np.int64)
        self.seat_P = np.zeros(2, dtype=np.int64)
        self.seat_base = np.zeros(2, dtype=np.int64)
        for p, cache in enumerate(self.seat_cache):
            if cache is not None:
                self.state_of[p], self.zero_of[p] = cache.state_of, cache.zero_of
                self.seat_P[p], self.seat_base[p] = cache.P, cache.base
        self.max_slots = 3
        if self.caches:
            if sum(c.key_span for c in self.caches) >= 2 ** 62:
                raise UsageError("too many player states for the optimal policy's cache")
            per_slot = self.store.slot_bytes
            self.max_slots = max(3, min(OPTIMAL_CACHE_BYTES // per_slot,
                                        2 + sum(c.most_keys for c in self.caches)))
            self.store.grow(min(self.max_slots, 2 + 256))
        capacity = 1 << max(4, (2 * self.max_slots).bit_length())
        self.hash_keys = -np.ones(capacity, dtype=np.int64)
        self.hash_slots = -np.ones(capacity, dtype=np.int64)
        for p, policy in enumerate(self.policies):
            if policy.kind != "optimal":
                V, bank, take, over, win = _fixed_tables(policy, rules)
                self.store.V[p], self.store.bank[p], self.store.take[p] = V, bank, take
                self.store.Z[p], self.store.win[p] = over, win
        self.kinds = np.array([{"optimal": _OPTIMAL, "random": _RANDOM}.get(p.kind, _TABLE)
                               for p in self.policies], dtype=np.int64)
        self.guards = np.array([p.guards for p in self.policies], dtype=np.bool_)
        self.st = np.zeros(_STATE_SIZE, dtype=np.int64)
        for p, points in enumerate(start):
            if points % rules.unit or not 0 <= points < rules.target:
                raise UsageError(f"start score {points} is not a score below the target")
            self.st[_START_A + p] = points // rules.unit
        self.sheets = np.zeros((2, self.max_turns + 2), dtype=np.int64)
        first = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
        self.rng = np.array([first], dtype=np.uint64)
        self.common_seed = np.array([first] if common_dice else [], dtype=np.uint64)
        self.winners = np.zeros(winners, dtype=np.int8)
        self.one_level = bool(one_level)
        self.script = np.asarray(script if script is not None else [], dtype=np.int64)
        if np.any((self.script < 1) | (self.script > 6)):
            raise UsageError("scripted dice must be 1 to 6")
        self.log = np.zeros((log_size, 7), dtype=np.int64)

    @property
    def replays(self) -> int:
        return sum(c.replays for c in self.caches)

    @property
    def replay_seconds(self) -> float:
        return sum(c.seconds for c in self.caches)

    def run(self, games_end: int) -> None:
        rules, d, store = self.rules, self.dice, self.store
        cap = rules.score_cap_units
        take_min = rules.takeover_min_units if rules.dice > 1 else None
        while True:
            status = _run(games_end, self.max_turns, self.st, self.sheets, self.rng,
                          self.script, self.log,
                          rules.dice, rules.target_units, rules.exact_target,
                          rules.entry_units, rules.hot_dice_forced, rules.crosses,
                          -1 if cap is None else cap, -1 if take_min is None else take_min,
                          d.power, d.roll_of_code, d.instant_win, d.keep_first,
                          d.keep_units, d.keep_used, self.kinds, self.guards,
                          self.hash_keys, self.hash_slots, self.state_of, self.zero_of,
                          self.seat_P, self.seat_base,
                          store.V, store.bank, store.take, store.Z, store.win,
                          self.common_seed, self.winners, self.one_level)
            if status == _DONE:
                return
            if status == _NEED_TABLE:
                self._make_room()
                cache = self.seat_cache[int(self.st[_MOVER])]
                m, w, z = (int(self.st[i]) for i in (_NEED_M, _NEED_W, _NEED_Z))
                cache.fill(store, store.used, m, w, z)
                _hash_put(self.hash_keys, self.hash_slots, cache.key(m, w, z), store.used)
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
        self.hash_keys[:] = -1
        self.hash_slots[:] = -1
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
    st = machine.st
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
        winners=machine.winners if keep_winners else None,
        deep_fall_games=int(st[_DEEP_GAMES]))


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


def play_scripted(rules: Rules, policy_a, policy_b, dice, turns: int, start=(0, 0),
                  solution=None, seed: int = 0, solution_b=None) -> ScriptedGame:
    """Play one game with the dice thrown in the order given (each roll takes
    the next ``n`` values), stopping after ``turns`` turns at most. Random
    choices (the ``random`` policy) still come from ``seed``."""
    machine = _Machine(rules, policy_a, policy_b, seed, solution, max_turns=turns,
                       script=dice, start=start, log_size=4 * turns + 8,
                       solution_b=solution_b)
    machine.run(1)
    st, unit = machine.st, rules.unit
    sheets = tuple([int(v) * unit for v in machine.sheets[p, :st[_LEN_A + p]]] for p in range(2))
    events = []
    for row in machine.log[:st[_LOG_COUNT]]:
        events.append({"turn": int(row[1]), "player": "AB"[row[2]],
                       "outcome": OUTCOMES[int(row[3])], "turn_total": int(row[4]) * unit,
                       "score": int(row[5]) * unit, "took_over": bool(row[6])})
    winner = None if st[_WINNER] < 0 else "AB"[st[_WINNER]]
    return ScriptedGame(winner, (sheets[0][-1] if sheets[0] else 0,
                                 sheets[1][-1] if sheets[1] else 0),
                        sheets, (int(st[_CROSS_A]), int(st[_CROSS_B])), events,
                        int(st[_SCRIPT_POS]))

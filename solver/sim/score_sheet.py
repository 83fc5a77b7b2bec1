"""The score sheets of the compiled game loop (:mod:`solver.sim.game_loop`):
the loop's state vector, each player's sheet, the log, and what the end of
a turn writes on them.

* The sheet ``sheets[seat, i]`` is the list of the player's banked scores
  in units, oldest first; the score is its last entry (0 on an empty
  sheet). A bank writes ``banked_score`` and erases the crosses
  (``after_bank``); ``offer`` says which dice the next player is offered.
* Crosses that go back a bank (``rules.crosses > 0``, no penalty:
  dix-mille), on the whole paper sheet: a turn without a bank (zero roll
  or overshoot) is a cross (``add_cross``); at the last one the last score
  is struck off the sheet (the player goes back to the score before their
  last bank, 0 if none) and the crosses are erased. Six crosses in a row
  thus go back two banks, and so on down the sheet. (The solver's tables
  use the one-level model of docs/rules.md; the simulator plays the paper
  rule, so the two can be compared. ``one_level=True`` plays the
  docs/rules.md rule instead: a player who has fallen since their last
  bank only loses their crosses at a third cross. Either way the result
  counts the games where the two rules part, ``DEEP_GAMES``.) A player
  back at 0 must meet the entry again (the sheet says 0).
* Crosses that cost points (``rules.penalty > 0``: farkle-facebook,
  zilch): a turn without a bank goes to
  ``after_zero_turn(score, -1, crosses)``, the one written rule: a cross,
  and at the K-th the score falls to ``max(score - P, floor)``, written as
  a new entry on the sheet, crosses erased; a player at the floor has
  nothing to lose and keeps no crosses. Scores may be below 0.
* The tables' line maps (:func:`solver.sim.policies.player_states`) are
  indexed by score from the lowest one up: :func:`player_line` gives the
  row ``score - floor``. (numba checks no bounds, and a negative index
  would read another score's state from the end of the array, silently.)
* A final round (``rules.final_round``): a bank at or past the target
  writes the score to pass, ``TO_PASS``; the other player's next turn is
  the last one (:mod:`solver.sim.final_round`), and :func:`end_last_turn`
  ends the game after it: a pass or an instant win for the mover, a zero
  roll for the other, a bank that equals the score written on the sheet
  and the game shared (winner ``SHARED``, half a win each).
* A game that reaches ``max_turns`` turns (both players counted) is
  stopped and reported as unfinished, not counted as a win for anyone.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.model.compiled_rules import (
    add_cross,
    after_bank,
    after_zero_turn,
    drop_stale_caches,
    offer,
)
from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.sim import dice
from solver.sim.dice import _next
from solver.text import _

drop_stale_caches(__file__, dice.__file__)

MAX_TURNS = 10_000
"""A game still running after this many turns is stopped and reported."""

# Turn outcomes (and log kinds). TIE: a last turn's bank that equals the
# score to pass (a shared win).
BANK, ZERO, OVERSHOOT, WIN, INSTANT_WIN, FALL, TIE = 0, 1, 2, 3, 4, 5, 6
OUTCOMES = {BANK: "bank", ZERO: "zero", OVERSHOOT: "overshoot", WIN: "win",
            INSTANT_WIN: "instant-win", FALL: "fall", TIE: "tie"}
SHARED = 2
"""A game's winner when the win is shared (0: A, 1: B, -1: unfinished)."""
# Fields of the loop's state vector.
(GAME, IN_GAME, MOVER, TURNS, OFFER_T, OFFER_N, CROSS_A, CROSS_B, LEN_A, LEN_B,
 WINS_A, UNFINISHED, NEED_M, NEED_W, SCRIPT_POS, START_A, START_B, WINNER,
 ALL_TURNS, LOG_COUNT, FALLEN_A, FALLEN_B, NEED_Z, DEEP_IN_GAME, DEEP_GAMES,
 TO_PASS, SHARED_GAMES, STATE_SIZE) = range(28)
# FALLEN_A/B: the player has fallen since their last bank (table lookups
# then use the fallen state); NEED_Z: the look-ahead state asked for, or -1;
# DEEP_IN_GAME/DEEP_GAMES: this game / the games so far in which a
# fallen player's third cross struck a further score off the sheet (or
# would have, under ``one_level``): where paper sheet and docs/rules.md
# differ. TO_PASS: a final round's score to pass (units), 0 before one;
# SHARED_GAMES: the games shared so far.


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
    """Each game's winner (0: A, 1: B, ``SHARED``, -1: unfinished), or empty."""
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
            if points % rules.unit or not rules.floor <= points < rules.target:
                raise UsageError((_("start score {points} is not a score below the target and "
                                    "not below the floor {floor}") if rules.floor else
                                  _("start score {points} is not a score below the target"))
                                 .format(points=figure(points), floor=figure(rules.floor)))
            state[START_A + seat] = points // rules.unit
        script = np.asarray(script if script is not None else [], dtype=np.int64)
        if np.any((script < 1) | (script > 6)):
            raise UsageError(_("scripted dice must be 1 to 6"))
        first = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
        # A turn writes one entry at most (a bank or a fall), the start one.
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


@njit(cache=True, inline="always")
def _score(state, sheets, seat):
    length = state[LEN_A + seat]
    return sheets[seat, length - 1] if length > 0 else 0


@njit(cache=True)
def player_line(rules, state, sheets, seat):
    """(score row, previous, crosses) of ``seat`` for a table lookup: the
    row of the score is ``score - floor`` (module docstring); the previous
    score is the sheet's entry before the last (0 if none), or the score
    itself when the player has fallen since their last bank (crosses that
    go back a bank); previous 0 in a game without crosses or with a
    penalty, crosses 0 without crosses."""
    length = state[LEN_A + seat]
    score = sheets[seat, length - 1] if length > 0 else 0
    row = score - rules.floor
    if rules.crosses == 0:
        return row, 0, 0
    if rules.penalty > 0:
        return row, 0, state[CROSS_A + seat]
    if state[FALLEN_A + seat] != 0:
        previous = score
    elif length >= 2:
        previous = sheets[seat, length - 2]
    else:
        previous = 0
    return row, previous, state[CROSS_A + seat]


@njit(cache=True, inline="always")
def log_event(state, log, seat, kind, turn_total, score, took):
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
def _write(state, sheets, seat, score):
    """A new entry at the end of ``seat``'s sheet: their score now."""
    length = state[LEN_A + seat]
    sheets[seat, length] = score
    state[LEN_A + seat] = length + 1


@njit(cache=True, inline="always")
def start_game(state, sheets, rng, common_seed):
    """Both players at their start scores, A to move, no offer."""
    if len(common_seed) > 0:
        rng[0] = common_seed[0] + np.uint64(state[GAME])
        rng[0] = _next(rng)
    for seat in range(2):
        start = state[START_A + seat]
        sheets[seat, 0] = start
        state[LEN_A + seat] = 1 if start != 0 else 0
        state[CROSS_A + seat] = 0
        state[FALLEN_A + seat] = 0
    state[DEEP_IN_GAME] = 0
    state[MOVER] = 0
    state[TURNS] = 0
    state[OFFER_T] = 0
    state[OFFER_N] = 0
    state[TO_PASS] = 0
    state[WINNER] = -1
    state[IN_GAME] = 1


@njit(cache=True, inline="always")
def end_game(state, winners, winner):
    """The game is over: ``winner`` 0 (A), 1 (B), SHARED or -1 (stopped at
    the turn cap)."""
    if len(winners) > state[GAME]:
        winners[state[GAME]] = winner
    if winner < 0:
        state[UNFINISHED] += 1
    elif winner == 0:
        state[WINS_A] += 1
    elif winner == SHARED:
        state[SHARED_GAMES] += 1
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
    log_event(state, log, seat, FALL, 0, _score(state, sheets, seat), 0)


@njit(cache=True, inline="always")
def _penalty_cross(rules, state, sheets, log, seat, score):
    """A turn without a bank where crosses cost points: the cross, and at
    the K-th the fall to a new score written on the sheet."""
    after, _previous, crosses = after_zero_turn(rules, score, -1, state[CROSS_A + seat])
    state[CROSS_A + seat] = crosses
    if after != score:
        _write(state, sheets, seat, after)
        log_event(state, log, seat, FALL, 0, after, 0)


@njit(cache=True, inline="always")
def end_turn(rules, state, sheets, log, one_level, seat, outcome, turn_total, in_hand, took):
    """A turn of ``seat`` that did not win ended with ``outcome`` (BANK,
    ZERO or OVERSHOOT) holding ``turn_total`` and ``in_hand`` dice: write the
    sheet, the crosses, the offer and a final round's score to pass; the
    move passes."""
    score = _score(state, sheets, seat)
    state[OFFER_T] = 0
    state[OFFER_N] = 0
    if outcome == BANK:
        new, _previous, crosses = after_bank(rules, score, turn_total)
        _write(state, sheets, seat, new)
        state[CROSS_A + seat] = crosses
        state[FALLEN_A + seat] = 0
        offered = offer(rules, in_hand)
        if offered > 0:
            state[OFFER_T] = turn_total
            state[OFFER_N] = offered
        if rules.final_round and new >= rules.target:
            state[TO_PASS] = new
        log_event(state, log, seat, BANK, turn_total, new, took)
    else:
        log_event(state, log, seat, outcome, turn_total, score, took)
        if rules.crosses > 0:
            if rules.penalty > 0:
                _penalty_cross(rules, state, sheets, log, seat, score)
            else:
                crosses, falls = add_cross(rules, state[CROSS_A + seat])
                state[CROSS_A + seat] = crosses
                if falls:
                    _fall(state, sheets, log, one_level, seat)
    state[MOVER] = 1 - seat


@njit(cache=True, inline="always")
def end_last_turn(state, sheets, log, winners, seat, outcome, turn_total):
    """A final round's last turn of ``seat`` ended with ``outcome`` at
    ``turn_total``, and the game with it: WIN (the total passed the score)
    and INSTANT_WIN for the mover, ZERO for the other player, TIE (a bank
    equal to the score, written on the sheet) shared."""
    score = _score(state, sheets, seat)
    if outcome == TIE:
        _write(state, sheets, seat, state[TO_PASS])
        log_event(state, log, seat, TIE, turn_total, state[TO_PASS], 0)
        end_game(state, winners, SHARED)
    elif outcome == ZERO:
        log_event(state, log, seat, ZERO, turn_total, score, 0)
        end_game(state, winners, 1 - seat)
    else:
        log_event(state, log, seat, outcome, turn_total,
                  score + turn_total if outcome == WIN else score, 0)
        end_game(state, winners, seat)

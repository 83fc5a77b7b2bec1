"""One last turn: the chance to bring a number of points in a single turn.

Two rules give a player one last turn that must bring ``r`` more units: the
final round (:attr:`solver.model.rules.Rules.final_round`: once a player
banks at or past the target, the other has one turn to pass that score) and
the fair start's last turn (:mod:`solver.study.fair_start`). With ``r`` the
units that *equal* the score to beat and ``tie`` what equalling is worth
(1/2: a tie shared, docs/rules.md; 1: equalling is enough),

    V(r, n) = 1                         r < 0: passed ("at least" target;
                                         0 with an exact target: over)
    V(0, n) = tie                       exact target
            = max(tie if the player may stop (not hot dice in a forced
                  game), roll(0, n))    "at least" target
    V(r, n) = roll(r, n)                r > 0
    roll(r, n) = sum_rolls P(roll) * max(0 if the roll has no keep,
                                         max_keeps V(r - points, dice left)),

an instant-win keep being worth 1. Passing ends the turn at once (as
reaching the target does in a game without a final round).

In a final round the last turn's bank must also meet the minimum bank and,
at 0, the entry: ``m`` units. A player at ``s`` facing ``f`` (:class:`LastTurn`)

    equals at t = f - s    when f - s >= m: V(f - s - t, n), tie 1/2
    else must bring m      V(m - 1 - t, n), tie 0 (any bank from m passes f)

and the chance at the turn start is that at ``t = 0``, ``n = D``
(:func:`last_turn_win`). The player who reaches the target may roll on;
banking ``k`` units past it is worth ``1 - last_turn_win`` to them
(:func:`solver.engine.solution.final_round_reach`). The turn DP holds totals
up to :func:`past_target_units` past the target and banks there: reaching
that far and then being passed has a chance below ``P(one turn brings
E)^2 <= 1e-16``, the most the cap can cost.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from solver.model.dice import keep_table
from solver.model.errors import UsageError
from solver.text import _

CAP_CHANCE = 1e-8
"""One turn brings the totals past the target that a final-round turn DP
holds with at most this chance (:func:`past_target_units`)."""


def last_turn_values(rules, most: int, tie: float = 0.5) -> np.ndarray:
    """``V(r, n)`` for ``r = 0 .. most`` units and ``n = 0 .. D`` dice in
    hand (module docstring; column 0, an instant win, is 1)."""
    dice = keep_table(rules).packed()
    D = rules.dice
    below = int(dice.keep_units.max()) + 1          # rows r < 0, as far as a keep reaches
    V = np.empty((below + most + 1, D + 1))
    V[:below] = 0.0 if rules.exact_target else 1.0
    V[:, 0] = 1.0                                   # an instant win
    has_keep = dice.keep_first[1:] > dice.keep_first[:-1]
    starts = dice.keep_first[:-1][has_keep]
    per_n = dice.roll_first[1:D + 1]
    may_stop = np.array([not (rules.hot_dice_forced and n == D) for n in range(1, D + 1)])
    for r in range(most + 1):
        row = below + r
        if r == 0 and rules.exact_target:
            V[row, 1:] = tie
            continue
        best = np.zeros(len(dice.prob))
        best[has_keep] = np.maximum.reduceat(V[row - dice.keep_units, dice.keep_col], starts)
        V[row, 1:] = np.add.reduceat(dice.prob * best, per_n)
        if r == 0:
            V[row, 1:] = np.where(may_stop, np.maximum(V[row, 1:], tie), V[row, 1:])
    return V[below:].copy()


def last_turn_chance(rules, most: int, tie: float = 0.5) -> np.ndarray:
    """``V(r, D)`` for ``r = 0 .. most`` units: a turn of every die."""
    return last_turn_values(rules, most, tie)[:, rules.dice].copy()


def smallest_bank(rules, score):
    """``m``: the fewest units a last turn's bank needs at ``score`` (the
    minimum bank, the entry at 0, and at least one). Arrays broadcast."""
    m = max(rules.min_bank_units, 1)
    return np.where(np.asarray(score) == 0, max(m, rules.entry_units), m)


def last_turn_win(rules, score, to_pass) -> np.ndarray:
    """A final round's last turn (module docstring): the chance, ties
    counted 1/2, of a player at ``score`` (units) against ``to_pass``.
    Arrays broadcast."""
    score, to_pass = np.broadcast_arrays(np.asarray(score), np.asarray(to_pass))
    m = smallest_bank(rules, score)
    gap = to_pass - score
    most = int(max(gap.max(initial=0), m.max(initial=0)))
    shared = last_turn_chance(rules, most, tie=0.5)
    strict = last_turn_chance(rules, most, tie=0.0)
    return np.where(gap >= m, shared[np.maximum(gap, 0)], strict[m - 1])


class LastTurn:
    """One player's last turn in a final round, inside the turn: the
    chance at turn total ``t`` with ``n`` dice in hand (module docstring)."""

    def __init__(self, rules, score: int, to_pass: int):
        m = int(smallest_bank(rules, score))
        gap = to_pass - score
        self.ties = gap >= m
        """Whether a bank can equal the score (else it must bring ``m``)."""
        self.goal = gap if self.ties else m - 1
        self.values = last_turn_values(rules, self.goal, tie=0.5 if self.ties else 0.0)
        self.scores = last_turn_values(rules, 0, tie=0.0)[0]
        """``roll(0, n)``: the chance that a roll of ``n`` dice scores."""

    def left(self, turn_total: int) -> int:
        """``r``: units from ``t`` to the goal (below 0: passed)."""
        return self.goal - turn_total

    def passed(self, turn_total: int) -> bool:
        """Whether ``t`` passes the score (and ends the turn, and the game)."""
        return self.left(turn_total) < 0

    def equals(self, turn_total: int) -> bool:
        """Whether a bank of ``t`` would equal the score (a shared win)."""
        return self.ties and self.left(turn_total) == 0

    def roll(self, turn_total: int, in_hand: int) -> float:
        """The chance of rolling on (at the goal, rather than stopping:
        every scoring keep then passes)."""
        if self.passed(turn_total):
            return 1.0
        if self.equals(turn_total):
            return float(self.scores[in_hand])
        return float(self.values[self.left(turn_total), in_hand])


@lru_cache(maxsize=64)
def past_target_units(rules) -> int:
    """Totals past the target a final-round turn DP holds: the fewest units
    ``E`` that one turn brings with a chance of at most :data:`CAP_CHANCE`
    (0 without a final round)."""
    if not rules.final_round:
        return 0
    most = 64
    while most <= 1 << 20:
        chance = last_turn_chance(rules, most, tie=1.0)
        below = np.flatnonzero(chance <= CAP_CHANCE)
        if len(below):
            return int(below[0])
        most *= 4
    raise UsageError(_("{game}: one turn can bring any number of points, so a final round "
                       "has no end").format(game=rules.name))

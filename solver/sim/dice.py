"""The simulator's dice: every roll and its legal keeps as tables
(:func:`dice_tables`), and the seeded splitmix64 stream they are thrown
from (:func:`_next`, :func:`_below`; the game loops throw with
:func:`solver.sim.game_loop.throw`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.model.compiled_rules import drop_stale_caches
from solver.model.dice import keeps, rolls
from solver.model.rules import Rules

drop_stale_caches(__file__)


class DiceTables(NamedTuple):
    """Every distinct roll of 1..dice dice and all its legal keeps, as the
    simulator throws them (one record for the compiled loop).

    A thrown roll is found by its code ``sum(power[face - 1])`` with
    ``power[f] = (dice + 1) ** f``: ``roll_of_code[code]``. Roll ``r`` has
    probability ``prob[r]``, ``dice_of[r]`` dice, ``instant_win[r]`` and keeps
    ``keep_first[r]`` to ``keep_first[r + 1] - 1`` (points in units, dice
    used, instant win), ordered instant win first, then most points, then
    fewest dice."""
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
    # Every field the keeps of a roll read (solver.model.dice.keeps): two
    # games alike but in their combinations or their no-score bonus
    # (farkle-facebook and zilch) have tables of their own.
    key = (rules.dice, rules.unit, rules.scoring, rules.straights, rules.combinations,
           rules.no_score_bonus, rules.instant_wins, rules.keep_rule)
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

"""A strategy card's decisions at one turn start, compiled.

The card's rules are :mod:`solver.card`'s plain functions, compiled here as
copies (:func:`solver.compiled_rules.compiled_copies`): the rule is written
once, for the simulator and for the exact evaluation
(:mod:`solver.seat_value`), which asks :func:`card_plan` for the card's
bank or roll at every turn total and dice in hand, and its keep of every
roll class, and :func:`card_takes` for its take-over.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import card as card_module
from .compiled_rules import COMPILED_RULES, compiled_copies, drop_stale_caches

drop_stale_caches(__file__, card_module.__file__)

_CARD = compiled_copies(card_module, ("threshold_shift", "offers_finish", "chasing",
                                     "card_banks", "points_from", "keep_score",
                                     "keep_rank", "card_takes"), COMPILED_RULES)
threshold_shift, card_banks, keep_rank, card_takes = (
    _CARD[name] for name in ("threshold_shift", "card_banks", "keep_rank", "card_takes"))


@njit(cache=True)
def card_plan(card, rules, dice, score, opponent, crossed, rows, plan):
    """The card's decisions (:mod:`solver.card`) at a turn start of D at
    ``score`` against ``opponent`` (units), into ``plan``: bank or roll for
    every turn total and dice, and the keep of every roll class."""
    prob, keep_first = dice.prob, dice.keep_first
    D = rules.dice
    T = rules.target - score
    shift = threshold_shift(card, score, opponent, crossed)
    for t in range(min(rows, T)):
        for n in range(1, D + 1):
            plan.banked[t, n] = card_banks(card, rules, shift, crossed, score, opponent,
                                           t, n)
    outcome_units, outcome_col, keep_outcome = dice.outcome_units, dice.outcome_col, \
        dice.keep_outcome
    rank = np.empty(len(outcome_units))
    for t in range(rows):
        # A keep's rank is its outcome's: each outcome ranked once, not once
        # per class that offers it (a fifth of the calls with five dice).
        for j in range(len(rank)):
            rank[j] = keep_rank(card, rules, shift, crossed, score, opponent, t,
                                outcome_units[j], outcome_col[j], outcome_col[j] == 0)
        for r in range(len(prob)):
            best, chosen = -np.inf, keep_first[r]
            for k in range(keep_first[r], keep_first[r + 1]):
                value = rank[keep_outcome[k]]
                if value > best:
                    best, chosen = value, k
            plan.keep_chosen[t, r] = chosen

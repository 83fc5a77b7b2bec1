"""A strategy card's decisions at one turn start, compiled.

The card's rules are :mod:`solver.cards.card`'s plain functions, compiled here as
copies (:func:`solver.model.compiled_rules.compiled_copies`): the rule is written
once, for the simulator and for the exact evaluation
(:mod:`solver.cards.seat_kernel`), which asks :func:`card_plan` for the card's
bank or roll at every turn total and dice in hand, and its keep of every
roll class, and :func:`card_takes` for its take-over; and for the pricing
of a card at decisions another card met (:func:`card_choices`, read by
:func:`solver.cards.regret.regret_of`, and :func:`card_keep_ranks`, read by
:func:`solver.cards.bounds.keep_worth_headroom`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.cards import card as card_module
from solver.model.compiled_rules import COMPILED_RULES, compiled_copies, drop_stale_caches

drop_stale_caches(__file__, card_module.__file__)

_CARD = compiled_copies(card_module, ("threshold_shift", "offers_finish", "offers_the_leader",
                                     "chasing", "card_banks", "points_from", "keep_score",
                                     "keep_rank", "card_takes"), COMPILED_RULES)
threshold_shift, card_banks, keep_rank, card_takes = (
    _CARD[name] for name in ("threshold_shift", "card_banks", "keep_rank", "card_takes"))

KEEP, BANK, TAKE = 0, 1, 2
"""A decision's kind in :class:`solver.cards.regret.Decisions`."""


@njit(cache=True)
def card_plan(card, rules, dice, score, opponent, crossed, rows, plan):
    """The card's decisions (:mod:`solver.cards.card`) at a turn start of D at
    ``score`` against ``opponent`` (units), into ``plan``: bank or roll for
    every turn total and dice, and the keep of every roll class."""
    prob, keep_first = dice.prob, dice.keep_first
    D = rules.dice
    T = rules.target - score
    shift = threshold_shift(card, score, opponent, crossed)
    # With a final round the turn goes on past the target, and so do the
    # card's banks (``rows`` then holds the totals past it).
    for t in range(rows if rules.final_round else min(rows, T)):
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


@njit(cache=True)
def card_keep_ranks(card, rules, decisions):
    """How the card ranks each keep of ``decisions`` (a
    :class:`solver.cards.regret.Decisions`), per choice: :func:`keep_rank`,
    ``-inf`` at the choices of banks and takes."""
    kind, turn_total, first = decisions.kind, decisions.turn_total, decisions.first
    score, opponent, crossed = decisions.score, decisions.opponent, decisions.crossed
    units, left = decisions.units, decisions.left
    ranks = np.full(len(units), -np.inf)
    for i in range(len(kind)):
        if kind[i] != KEEP:
            continue
        shift = threshold_shift(card, score[i], opponent[i], crossed[i])
        for j in range(first[i], first[i + 1]):
            ranks[j] = keep_rank(card, rules, shift, crossed[i], score[i], opponent[i],
                                 turn_total[i], units[j], left[j], left[j] == 0)
    return ranks


@njit(cache=True)
def card_choices(card, rules, decisions):
    """The card's choice at each of ``decisions`` (a
    :class:`solver.cards.regret.Decisions`), as
    :func:`solver.cards.regret.card_choice` makes it at one: 0 to bank or
    take over, 1 to roll or start afresh, or the index of its keep among the
    decision's keeps (the first of the best ranked)."""
    kind, dice, turn_total = decisions.kind, decisions.dice, decisions.turn_total
    score, opponent, crossed = decisions.score, decisions.opponent, decisions.crossed
    first = decisions.first
    ranks = card_keep_ranks(card, rules, decisions)
    chosen = np.empty(len(kind), np.int64)
    for i in range(len(kind)):
        mine, theirs, crosses, total = score[i], opponent[i], crossed[i], turn_total[i]
        if kind[i] == TAKE:
            chosen[i] = 0 if card_takes(card, rules, crosses, mine, theirs, total, dice[i]) \
                else 1
        elif kind[i] == BANK:
            shift = threshold_shift(card, mine, theirs, crosses)
            chosen[i] = 0 if card_banks(card, rules, shift, crosses, mine, theirs, total,
                                        dice[i]) else 1
        else:
            chosen[i] = np.argmax(ranks[first[i]:first[i + 1]])
    return chosen

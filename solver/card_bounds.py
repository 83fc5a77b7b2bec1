"""How near the end a card of bank thresholds could come: a bound.

At the decisions to bank or roll a card met near the end (either player
within :data:`solver.card_regret.NEAR_END` of the target), each priced by
the table (``B`` the bank, ``R`` the roll: :mod:`solver.card_regret`), a
card whose bank rule is a row of turn totals for every cell of the score
(dice in hand, the player's crosses, and both players' distances to the
target in steps of ``step`` points) gives up at least

    bound(step) = 1/games * sum over cells c of
                  min over thresholds h of sum over decisions d in c of
                  [ max(B_d, R_d) - (B_d if t_d >= h else R_d) ],

``t_d`` the turn total at ``d``. Each cell's threshold is the best for the
very decisions it is priced at (fitted in sample), so the bound flatters
such a card, the more so the smaller the cells; and it is first order, as
:func:`solver.card_regret.regret_of` is: that card's own games would meet
other decisions. Beside the card's regret at the same decisions it says
whether bank rows of any size could bring the card near the end to the
goal: with cells of a few hundred points such a "card" is already a table
of thousands of thresholds.
"""

from __future__ import annotations

import numpy as np

from .card_kernel import BANK
from .card_regret import Decisions, distance_band, near_end

CELL_STEPS = (50, 200, 500, 1000)
"""Sizes of the cells (points of each player's distance) worth comparing:
from one cell per score to a few hundred cells in a game."""


def near_end_banks(rules, decisions: Decisions) -> np.ndarray:
    """The indices of ``decisions`` that are banks near the end (as
    :func:`solver.card_regret.near_end` reads a player's distance)."""
    near_at = np.array([near_end(distance_band(rules, to_go))
                        for to_go in range(rules.target_units + 1)])
    near = (near_at[rules.target_units - decisions.score]
            | near_at[rules.target_units - decisions.opponent])
    return np.flatnonzero((decisions.kind == BANK) & near)


def bank_threshold_bound(rules, decisions: Decisions, games: int, step: int) -> tuple[float, int]:
    """The module docstring's ``bound(step)`` per game at the banks near the
    end of ``decisions`` (``games`` games), and the number of cells it
    fits."""
    banks = near_end_banks(rules, decisions)
    if not len(banks):
        return 0.0, 0
    step_units = step // rules.unit
    bank_value = decisions.value[decisions.first[banks]]       # choice 0: bank, 1: roll
    roll_value = decisions.value[decisions.first[banks] + 1]
    best = np.maximum(bank_value, roll_value)
    cell = np.stack([decisions.dice[banks], decisions.crossed[banks],
                     (rules.target_units - decisions.score[banks]) // step_units,
                     (rules.target_units - decisions.opponent[banks]) // step_units])
    turn_total = decisions.turn_total[banks]
    order = np.lexsort((turn_total, *cell[::-1]))
    cell, turn_total = cell[:, order], turn_total[order]
    lost_banking, lost_rolling = (best - bank_value)[order], (best - roll_value)[order]
    new_cell = np.r_[True, np.any(cell[:, 1:] != cell[:, :-1], axis=0)]
    cell_start = np.flatnonzero(new_cell)
    # A threshold h banks from the first decision of the cell with t >= h:
    # the cut may fall before any decision whose turn total differs from the
    # one before it in the cell, or after the cell's last (never bank).
    cut = new_cell | np.r_[True, turn_total[1:] != turn_total[:-1]]
    rolling = np.r_[0.0, np.cumsum(lost_rolling)]      # lost rolling before position i
    banking = np.r_[0.0, np.cumsum(lost_banking)]
    cell_of = np.cumsum(new_cell) - 1
    cell_end = np.r_[cell_start[1:], len(turn_total)]
    positions = np.flatnonzero(cut)
    owner = cell_of[positions]
    # lost with the cut at position i of cell c: rolled before i, banked from i
    at_cut = (rolling[positions] - rolling[cell_start[owner]]
              + banking[cell_end[owner]] - banking[positions])
    never = rolling[cell_end] - rolling[cell_start]
    first_cut = np.searchsorted(owner, np.arange(len(cell_start)))
    cheapest = np.minimum(np.minimum.reduceat(at_cut, first_cut), never)
    return float(cheapest.sum() / games), len(cell_start)

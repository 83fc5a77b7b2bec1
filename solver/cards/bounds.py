"""How near a card of more rules could come: bounds and headroom.

At the decisions a card met (:mod:`solver.cards.regret`: each choice priced
by the table) two questions are cheap to answer: what a card would give up
there with a far finer rule of one kind, and hence whether more rules of
that kind could bring it to a goal. Both are first order, as
:func:`solver.cards.regret.regret_of` is: the finer card's own games would
meet other decisions.

**Bank thresholds.** A card whose bank rule is one threshold for every
cell of the score (dice in hand, the player's crosses, and both players'
distances to the target in steps of ``step`` points) gives up in its
banks at least

    bound(step) = 1/games * sum over cells c of
                  min over thresholds h of sum over decisions d in c of
                  [ max(B_d, R_d) - (B_d if t_d >= h else R_d) ],

``B`` the bank, ``R`` the roll, ``t_d`` the turn total at ``d``: near the
end only (either player within :data:`solver.cards.regret.NEAR_END` of the
target), or everywhere. Each cell's threshold is the best for the very
decisions it is priced at (fitted in sample), so the bound flatters such
a card, the more so the smaller the cells; with cells of a few hundred
points such a "card" is already a table of thousands of thresholds.

**Keeps.** The card ranks keep ``k`` at ``d`` by ``rank_k``
(:func:`solver.cards.kernel.card_keep_ranks`). A card that adds a
correction ``c[cell, n]`` for the ``n`` dice a keep leaves, one row per
cell of :data:`KEEP_CELLS` (dice thrown, the turn total, both players'
distances, whether the player leads or has entered), gives up

    headroom = 1/games * sum over keeps d of
               [ max_k V_dk - V_dk* ],   k* = argmax_k rank_k + c[cell(d), n_k],

the corrections fitted by coordinate descent (steps of :data:`STEP`
points within :data:`REACH` of 0, one dice count at a time, from no
correction: so it never gives up more than the card at the games it is
fitted to) to one set of games, and priced over those (flattering) and
over another set (checked: what the rows would be worth to a card).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.cards.kernel import BANK, KEEP, card_keep_ranks
from solver.cards.regret import Decisions, card_regret, distance_band, near_end
from solver.model.turn_rules import TurnRules

CELL_STEPS = (50, 200, 500, 1000)
"""Sizes of the cells (points of each player's distance) worth comparing:
from one cell per score to a few hundred cells in a game."""

TURN_TOTALS = (0, 500, 1500, 3000)
"""The bands of the turn total before a keep (points): the turn's first
roll (0), then below 500, below 1,500, below 3,000 and more."""

KEEP_CELLS = {
    "dice thrown": ("dice",),
    "and the turn total": ("dice", "turn_total"),
    "and the score": ("dice", "turn_total", "distances", "lead", "entered"),
}
"""The cells of :func:`keep_worth_headroom` worth comparing, each finer
than the one before: a row per dice thrown (five or six rows); per band
of :data:`TURN_TOTALS` too (about twenty); and per band of both players'
distances (:func:`solver.cards.regret.distance_band`), lead and entry too
(hundreds)."""

STEP, REACH = 25, 500
"""The corrections' grid (points)."""


class Sample(NamedTuple):
    """A card's decisions over a set of games, and how many games."""
    decisions: Decisions
    games: int

    @classmethod
    def played(cls, solution, card, games: int, seed: int) -> "Sample":
        """The decisions ``card`` meets over ``games`` games of ``seed``
        against the table's player (:func:`solver.cards.regret.card_regret`)."""
        from solver.cards.regret import decisions  # a name this module's arguments take
        visits = []
        card_regret(solution, card, games, seed, visits)
        return cls(decisions(solution, visits), games)


class Headroom(NamedTuple):
    """What :func:`keep_worth_headroom` finds, in win probability per game."""
    cells: int
    fitted: tuple
    """The card's regret in keeps, and the corrected card's, at the games
    the corrections are fitted to."""
    checked: tuple
    """The same at the other games."""
    corrections: dict
    """Each cell's row (a tuple of :func:`keep_cells`' integers): the
    correction in units per dice left, 0 to the game's dice."""

    @property
    def won_back(self) -> float:
        """What the corrections win back at the other games."""
        return self.checked[0] - self.checked[1]


def finer_card_loss(loss: float, card_banks: float, keeps: Headroom, banks: float) -> float:
    """What a card that gives up ``loss`` would give up, first order, with
    the rows of ``keeps`` and bank thresholds that lose ``banks`` where its
    own banks lose ``card_banks`` (each per game, at the same decisions)."""
    return loss - keeps.won_back - (card_banks - banks)


def _by_distance(rules, units: np.ndarray, of_band) -> np.ndarray:
    """``of_band`` of each score's band of
    :func:`solver.cards.regret.distance_band` (``units``: the scores)."""
    at = np.array([of_band(distance_band(rules, to_go))
                   for to_go in range(rules.target_units + 1)])
    return at[rules.target_units - units]


def _distance_bands(rules, units: np.ndarray) -> np.ndarray:
    """Each score's band as a code: the band's limit, 0 for farther than
    them all."""
    return _by_distance(rules, units, lambda band: band or 0)


def bank_decisions(rules, decisions: Decisions, near_end_only: bool = True) -> np.ndarray:
    """The indices of ``decisions`` that are banks, only those near the end
    (as :func:`solver.cards.regret.near_end` reads a player's distance)
    where ``near_end_only``."""
    banks = decisions.kind == BANK
    if not near_end_only:
        return np.flatnonzero(banks)
    near = (_by_distance(rules, decisions.score, near_end)
            | _by_distance(rules, decisions.opponent, near_end))
    return np.flatnonzero(banks & near)


def bank_threshold_bound(rules, decisions: Decisions, games: int, step: int,
                         near_end_only: bool = True) -> tuple[float, int]:
    """The module docstring's ``bound(step)`` per game at the banks of
    :func:`bank_decisions` (``games`` games), and the number of cells it
    fits."""
    banks = bank_decisions(rules, decisions, near_end_only)
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


def turn_total_bands(rules, turn_totals: np.ndarray) -> np.ndarray:
    """The band of :data:`TURN_TOTALS` of each turn total (units): 0 for
    the turn's first roll, 1 below 500, and so on."""
    turn_totals = np.asarray(turn_totals)
    above = np.searchsorted(np.array(TURN_TOTALS[1:]) // rules.unit, turn_totals, side="right")
    return np.where(turn_totals > 0, 1 + above, 0)


def keep_cells(rules, decisions: Decisions, features) -> np.ndarray:
    """For every decision, its cell of ``features`` (names of
    :data:`KEEP_CELLS`' tuples), a row of integers."""
    columns = {
        "dice": lambda: [decisions.dice],
        "turn_total": lambda: [turn_total_bands(rules, decisions.turn_total)],
        "distances": lambda: [_distance_bands(rules, decisions.score),
                              _distance_bands(rules, decisions.opponent)],
        "lead": lambda: [decisions.score > decisions.opponent],
        "entered": lambda: [decisions.score > 0],
    }
    return np.stack([column for name in features for column in columns[name]()],
                    axis=1).astype(np.int64)


def _padded(decisions: Decisions, ranks: np.ndarray, keeps: np.ndarray):
    """The ``keeps`` (indices of decisions) with their choices in rows of
    one length (a short row padded with choices never taken): rank, dice
    left and value of each, and the decision's best value."""
    counts = decisions.first[keeps + 1] - decisions.first[keeps]
    columns = np.arange(counts.max())
    valid = columns[None, :] < counts[:, None]
    choice = np.where(valid, decisions.first[keeps][:, None] + columns[None, :],
                      decisions.first[keeps][:, None])
    return (np.where(valid, ranks[choice], -np.inf), decisions.left[choice],
            decisions.value[choice], decisions.best[keeps])


def _chosen(padded, correction: np.ndarray) -> np.ndarray:
    rank, left, _, _ = padded
    return np.argmax(rank + correction[left], axis=1)


def _lost(padded, correction: np.ndarray) -> float:
    _, _, value, best = padded
    return float((best - value[np.arange(len(best)), _chosen(padded, correction)]).sum())


def _lost_on_grid(padded, correction: np.ndarray, left: int, grid: np.ndarray) -> np.ndarray:
    """What the decisions of ``padded`` lose with ``correction[left]`` set to
    each value of ``grid``, the others as they are, all at once. The keeps
    leaving ``left`` dice move together: the best of them wins where it
    ranks above the best of the others, that is where the correction
    exceeds the gap between the two (strict: where they tie, the first in
    its row wins, which :func:`_fit_correction` checks)."""
    rank, lefts, value, best = padded
    ranked = rank + correction[lefts]
    moving = lefts == left
    ranked_moving = np.where(moving, rank, -np.inf)
    ranked_other = np.where(moving, -np.inf, ranked)
    rows = np.arange(len(best))
    lost_moving = best - value[rows, np.argmax(ranked_moving, axis=1)]
    lost_other = best - value[rows, np.argmax(ranked_other, axis=1)]
    # inf: no keep leaves ``left`` dice; -inf: every keep does.
    with np.errstate(invalid="ignore"):
        gap = ranked_other.max(axis=1) - ranked_moving.max(axis=1)
    # A keep that wins on both sides: the first in its row, at any correction.
    tied = np.flatnonzero(np.isnan(gap))
    gap[tied] = np.where(moving[tied, np.argmax(ranked[tied], axis=1)], -np.inf, np.inf)
    order = np.argsort(gap)
    gap, lost_moving, lost_other = gap[order], lost_moving[order], lost_other[order]
    # With the correction c, rows with gap < c lose lost_moving, the rest lost_other.
    moved = np.searchsorted(gap, grid, side="left")
    moving_sum = np.r_[0.0, np.cumsum(np.where(gap == np.inf, 0.0, lost_moving))]
    other_sum = np.r_[0.0, np.cumsum(np.where(gap == -np.inf, 0.0, lost_other))]
    return moving_sum[moved] + other_sum[-1] - other_sum[moved]


def _fit_correction(padded, dice: int, step: float, reach: float) -> np.ndarray:
    """A correction per dice left (0 to ``dice``) that the decisions of
    ``padded`` lose least with: coordinate descent from none, each dice
    count's best value on the grid found at once (:func:`_lost_on_grid`)
    and kept only where the decisions, chosen again, lose less."""
    correction = np.zeros(dice + 1)
    lost = _lost(padded, correction)
    present = np.unique(padded[1])
    grid = np.arange(-reach, reach + step / 2, step)
    improved = True
    while improved:
        improved = False
        for left in present:
            kept = correction[left]
            correction[left] = grid[np.argmin(_lost_on_grid(padded, correction, left, grid))]
            trial = _lost(padded, correction)
            if trial < lost - 1e-15:
                lost, improved = trial, True
            else:
                correction[left] = kept
    return correction


def keep_worth_headroom(rules, card, fit: Sample, check: Sample, features) -> Headroom:
    """The module docstring's ``headroom`` of ``card`` with a row of
    corrections per cell of ``features`` (one of :data:`KEEP_CELLS`),
    fitted to ``fit``'s keeps and priced there and at ``check``'s."""
    compiled, turn = card.compiled(rules), TurnRules.of(rules)
    # The card's ranks are in units; the corrections' grid is in points.
    step, reach = STEP / rules.unit, REACH / rules.unit
    none = np.zeros(rules.dice + 1)
    corrections, lost = {}, np.zeros((2, 2))      # (fit, check) x (card, corrected)
    for row, sample in enumerate((fit, check)):
        keeps = np.flatnonzero(sample.decisions.kind == KEEP)
        ranks = card_keep_ranks(compiled, turn, sample.decisions)
        cells, cell_of = np.unique(keep_cells(rules, sample.decisions, features)[keeps],
                                   axis=0, return_inverse=True)
        for index, cell in enumerate(map(tuple, cells)):
            padded = _padded(sample.decisions, ranks, keeps[cell_of.ravel() == index])
            if sample is fit:
                corrections[cell] = _fit_correction(padded, rules.dice, step, reach)
            # A cell the fitted games never met has no correction.
            lost[row] += _lost(padded, none), _lost(padded, corrections.get(cell, none))
    return Headroom(len(corrections), tuple(lost[0] / fit.games), tuple(lost[1] / check.games),
                    corrections)

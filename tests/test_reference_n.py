"""The N-player reference solver (tests/reference_solver_n.py) checked on its own.

With two players the N-player game is the two-player game of docs/rules.md, so its
component 0 (the mover's probability of winning) must be the two-player
reference solver's ``W`` (tests/reference_solver.py, an independent
implementation with one number per state and ``1 - W`` for the waiting
player), at every turn start and at every take-over value ``R``. With three
and four players there is no second implementation: the checks are that
every game ends with exactly one winner (the components add up to 1), one
value by hand, and the stopping rule.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np
import pytest
from reference_solver import reference_solve
from reference_solver_n import numba_threads, reference_solve_n

from solver.model.rules import get_rules

TOL = 1e-10

CASES = {
    "pig-30": lambda: get_rules("pig", 30),
    "cinq-mille-1500": lambda: get_rules("cinq-mille", 1500),
    "cinq-mille-last1000-2000": lambda: get_rules("cinq-mille-last1000", 2000),
    "cinq-mille-exact-1000": lambda: get_rules("cinq-mille-exact", 1000),
    # take-over from 500 (the entry), so that it is in play below 5,000
    "quinze-mille-takeover500-1000": lambda: dataclasses.replace(
        get_rules("quinze-mille"), takeover_min=500).with_target(1000),
    # crosses with the previous-score memory: at 500 a player can bank 350
    # then 50 more, and fall back from 400 to 350 (and take over once entered)
    "dix-mille-500": lambda: get_rules("dix-mille", 500),
    "dix-mille-free-keep-500": lambda: get_rules("dix-mille-free-keep", 500),
}

THREE_PLAYERS = ["pig-20", "cinq-mille-1000", "quinze-mille-takeover500-800", "dix-mille-450"]
CASES.update({
    "pig-20": lambda: get_rules("pig", 20),
    "cinq-mille-1000": lambda: get_rules("cinq-mille", 1000),
    "quinze-mille-takeover500-800": lambda: dataclasses.replace(
        get_rules("quinze-mille"), takeover_min=500).with_target(800),
    "dix-mille-450": lambda: get_rules("dix-mille", 450),
})
TWO_PLAYERS = [case for case in CASES if case not in THREE_PLAYERS]


@lru_cache(maxsize=None)
def solved(case, players):
    return reference_solve_n(CASES[case](), players)


@lru_cache(maxsize=None)
def two_player_reference(case):
    # one thread: these games are small (reference_solver_n.PARALLEL_WORK)
    with numba_threads(1):
        return reference_solve(CASES[case]())


@pytest.mark.parametrize("case", TWO_PLAYERS)
def test_two_players_is_the_two_player_reference(case):
    """Expected numbers: the two-player reference solver's W[p, q] and
    R[p, q, t, n] (tests/reference_solver.py, an independent implementation,
    value iteration to a change below 1e-12), at every pair of labels and
    every (t, n); the N-player solver's component 0 must agree to 1e-10 and
    its component 1 must be 1 minus component 0."""
    mine, theirs = solved(case, 2), two_player_reference(case)
    assert mine.converged
    assert mine.labels == theirs.labels
    assert np.abs(mine.W[..., 0] - theirs.W).max() <= TOL
    assert np.abs(mine.W[..., 1] - (1 - theirs.W)).max() <= TOL
    assert np.abs(mine.R[..., 0] - theirs.R).max() <= TOL


def test_the_takeover_cases_take_over():
    """The take-over cases really have offers worth taking: somewhere a
    taker's roll value R at an offer (t, n), 1 <= n <= dice - 1, beats rolling
    fresh by more than 1e-12 (with two and with three players)."""
    for case, players in [("quinze-mille-takeover500-1000", 2), ("dix-mille-500", 2),
                          ("quinze-mille-takeover500-800", 3), ("dix-mille-450", 3)]:
        ref = solved(case, players)
        dice = ref.rules.dice
        start = ref.W[..., 0][..., None, None]
        assert (ref.R[..., 1:dice, 0] > start + 1e-12).any(), case


@pytest.mark.parametrize("case", THREE_PLAYERS)
def test_three_players_one_winner(case):
    """Expected: 1. A game ends with exactly one winner, and it ends with
    probability 1 under the solved decisions, so at every turn start the
    three players' probabilities of winning add up to 1, and so does every
    roll value R that is computed (turn totals below the target for the
    mover; the rows at or past it are computed only for a mover who may take
    over, else left at 0)."""
    ref = solved(case, 3)
    assert ref.converged
    assert np.abs(ref.W.sum(-1) - 1).max() <= TOL
    assert (ref.W >= -TOL).all()
    T = ref.rules.target_units
    sums = ref.R[..., 1:, :].sum(-1)          # (P, P, P, T, dice)
    for p, label in enumerate(ref.labels):
        below = T - label[0]
        assert np.abs(sums[p, :, :, :below] - 1).max() <= TOL
        rest = sums[p, :, :, below:]
        assert (np.abs(rest - 1) <= TOL).all() or (rest == 0).all()


def test_four_players_one_winner():
    """Expected: 1, as for three players: pig to 10 with four players."""
    ref = reference_solve_n(get_rules("pig", 10), 4)
    assert ref.converged
    assert np.abs(ref.W.sum(-1) - 1).max() <= TOL
    start = ref.index[(0, 0, 0)]
    assert np.array_equal(ref.seat_wins(), ref.W[start, start, start, start])


def test_three_players_by_hand_pig_to_2():
    """Expected numbers by hand (docs/rules.md pig and "Two or more players"):
    pig to 2, three players at 0. A roll of 2-6 wins at once, a 1 passes the
    move on to the next player (a zero turn; nobody ever banks short of 2).
    So the start vector w (mover first) satisfies w = (5/6, 0, 0) + 1/6
    (w[2], w[0], w[1]): the mover becomes the last player of the next turn.
    Then w[0] = 5/6 + w[2]/6, w[1] = w[0]/6, w[2] = w[1]/6, so w = (36, 6,
    1) / 43."""
    ref = reference_solve_n(get_rules("pig", 2), 3)
    assert ref.converged
    assert ref.seat_wins() == pytest.approx(np.array([36, 6, 1]) / 43, abs=1e-12)
    # the same vector: the start value, and the roll value of 1 die from 0
    start = ((0, 0, 0),) * 3
    assert np.array_equal(ref.values(start), ref.seat_wins())
    assert np.array_equal(ref.roll_values(start, 0, 1), ref.seat_wins())


def test_stops_after_max_sweeps():
    """Expected: with too few sweeps to converge, the solver stops there and
    says so (a game with a cycle never converges), and marks no state as
    settled that is still moving."""
    ref = reference_solve_n(get_rules("pig", 10), 3, max_sweeps=5)
    assert not ref.converged and ref.sweeps == 5 and ref.change > 1e-13
    assert not ref.settled.all()
    assert reference_solve_n(get_rules("pig", 10), 3).settled.all()

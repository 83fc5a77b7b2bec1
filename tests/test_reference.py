"""The fast solver against the deliberately simple one (tests/reference_solver.py).

The reference solver is written from RULES.md alone, runs plain value
iteration over every state until the largest change is below 1e-12, and is
compared with ``solver.game.solve`` at every turn start of the fast solver
(and every take-over value where the game has take-over) to 1e-9.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np
import pytest

from solver.game import solve
from solver.rules import get_rules

from reference_solver import reference_solve

TOL = 1e-9

CASES = {
    "pig-30": lambda: get_rules("pig", 30),
    "cinq-mille-1500": lambda: get_rules("cinq-mille", 1500),
    "cinq-mille-2000": lambda: get_rules("cinq-mille", 2000),
    "cinq-mille-exact-1500": lambda: get_rules("cinq-mille-exact", 1500),
    "cinq-mille-last1000-1500": lambda: get_rules("cinq-mille-last1000", 1500),
    "cinq-mille-last1000-2000": lambda: get_rules("cinq-mille-last1000", 2000),
    "cinq-mille-10000-2500": lambda: get_rules("cinq-mille-10000", 2500),
    "quinze-mille-2000": lambda: get_rules("quinze-mille", 2000),
    "quinze-mille-3000": lambda: get_rules("quinze-mille", 3000),
    # take-over games, built as data
    "quinze-mille-takeover500-2000": lambda: dataclasses.replace(
        get_rules("quinze-mille"), takeover_min=500).with_target(2000),
    "dix-mille-nocross-1000": lambda: dataclasses.replace(
        get_rules("dix-mille"), crosses=0).with_target(1000),
}
TAKEOVER = [c for c in CASES if CASES[c]().has_takeover]


@lru_cache(maxsize=None)
def fast(case):
    return solve(CASES[case]())


@lru_cache(maxsize=None)
def reference(case):
    return reference_solve(CASES[case]())


def start_error(sol, ref) -> float:
    score = sol.space.score
    return float(np.abs(sol.W - ref.W[np.ix_(score, score)]).max())


def takeover_error(sol, ref) -> float:
    """Largest difference of ``take_values`` (every t < target, n in 1..dice-1)
    from the reference's roll values R of the taker."""
    dice, target = sol.rules.dice, sol.rules.target_units
    score = sol.space.score
    worst = 0.0
    for m in np.flatnonzero(sol.take_row >= 0):
        fast_values = sol.take_values[sol.take_row[m]][:, :target, :dice - 1]
        ref_values = ref.R[score[m]][score][:, :target, 1:dice]
        worst = max(worst, float(np.abs(fast_values - ref_values).max()))
    return worst


def test_the_takeover_cases_have_takers():
    """The two take-over games built as data really let some player take over."""
    assert TAKEOVER == ["quinze-mille-takeover500-2000", "dix-mille-nocross-1000"]
    for case in TAKEOVER:
        assert (fast(case).take_row >= 0).any()


@pytest.mark.parametrize("case", list(CASES))
def test_start_values(case):
    """Expected numbers: the reference solver's W (value iteration to a change
    below 1e-12 over all scores in [0, target)), read at the fast solver's
    turn-start states by score; they must agree to 1e-9."""
    assert start_error(fast(case), reference(case)) <= TOL


@pytest.mark.parametrize("case", TAKEOVER)
def test_takeover_values(case):
    """Expected numbers: the reference solver's roll values R(t, n) of the
    taker (its turn started at the offered t with the n offered dice), for
    every t below the target and 1 <= n <= dice - 1; agreement to 1e-9."""
    assert takeover_error(fast(case), reference(case)) <= TOL


def test_reference_by_hand_fifty_short_in_an_exact_game():
    """Expected number by hand (RULES.md: any legal keep may be chosen; a keep
    past an exact target is a zero turn; five 1s win cinq-mille at once).
    cinq-mille-exact to 1,500, mover at 1,450 (29 units), opponent at 1,300:
    the mover wins on this roll with a single 5 (any roll holding a 5) or five
    1s, p = 1 - (5/6)^5 + (1/6)^5; anything else is a zero turn, so
    W[29, 26] = p + (1 - p) (1 - W[26, 29])."""
    ref = reference("cinq-mille-exact-1500")
    p = 1 - (5 / 6) ** 5 + (1 / 6) ** 5
    assert ref.W[29, 26] == pytest.approx(p + (1 - p) * (1 - ref.W[26, 29]), abs=1e-11)


def test_reference_pig_100_published_value():
    """Expected number: Neller and Presser, "Optimal Play of the Dice Game
    Pig" (2004): the first player wins Pig to 100 with probability 0.5305927
    under optimal play. Skipped if the reference solver needs over 30 s."""
    ref = reference_solve(get_rules("pig"))
    if ref.seconds > 30:
        pytest.skip(f"reference solver took {ref.seconds:.0f} s for pig to 100")
    assert ref.first_player_win == pytest.approx(0.5305927, abs=1e-6)

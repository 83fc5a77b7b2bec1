"""The turn played alone for the most points (solver.engine.solo), against
a slow recursion written here over every roll (it borrows only the dice
engine's list of keeps, as tests/reference_solver.py does)."""

import dataclasses
import json
from fractions import Fraction
from functools import lru_cache

import pytest
from conftest import farkle

from solver.engine.solo import points_policy
from solver.model.dice import keeps, rolls
from solver.model.rules import get_rules


def slow_points(rules, cap_units):
    """E(0, D) by memoised recursion over every distinct roll, in points;
    at ``cap_units`` the turn is banked, and an instant win ends the turn
    with its turn total."""
    dice, unit = rules.dice, rules.unit

    @lru_cache(maxsize=None)
    def value(t, n):
        if t >= cap_units:
            return t
        roll = 0.0
        for counts, p in rolls(n):
            options = keeps(rules, counts)
            if not options:
                continue
            # A roll that wins at once is the win (it ends the turn, banked).
            options = [k for k in options if k.win] or options
            best = 0.0
            for k in options:
                left = n - k.used
                after = t + k.points // unit
                best = max(best, after if k.win else value(after, left if left else dice))
            roll += float(p) * best
        forced = rules.hot_dice_forced and n == dice
        may_bank = t > 0 and t * unit >= rules.min_bank and not forced
        return max(t, roll) if may_bank else roll

    return value(0, dice) * unit


def test_pig_holds_at_20_for_8_14_points():
    """Pig's turn played for points holds at 20 (rolling at t gains
    (20 - t) / 6: Neller and Presser's "hold at 20", the policy that
    maximises a turn's expected points), worth 8.1418 points a turn by the
    exact recursion with fractions written here."""
    @lru_cache(maxsize=None)
    def exact(t):
        if t >= 100:
            return Fraction(t)
        roll = sum(Fraction(1, 6) * exact(t + face) for face in range(2, 7))
        return max(Fraction(t), roll) if t > 0 else roll
    policy = points_policy(get_rules("pig"))
    assert policy.points_per_turn == pytest.approx(float(exact(0)), abs=1e-9)
    assert policy.points_per_turn == pytest.approx(8.1418, abs=5e-5)
    assert policy.bank_from(1) == 20


@pytest.mark.parametrize("name, extra", [("cinq-mille", {}), ("dix-mille", {}),
                                         ("cinq-mille", {"min_bank": 500})])
def test_points_per_turn_equal_the_slow_recursion(name, extra):
    rules = dataclasses.replace(get_rules(name), **extra)
    cap = 8000
    fast = points_policy(rules, cap_points=cap).points_per_turn
    assert fast == pytest.approx(slow_points(rules, cap // rules.unit), rel=1e-12)


def test_hot_dice_that_must_be_rolled_are_never_banked():
    """dix-mille forces a roll of all five dice after hot dice: no turn
    total banks with five in hand; with a free hot dice rule it would."""
    forced = points_policy(get_rules("dix-mille"))
    assert forced.bank_from(5) is None and forced.bank_from(1) is not None
    free = points_policy(dataclasses.replace(get_rules("dix-mille"), hot_dice_forced=False))
    assert free.bank_from(5) is not None
    assert free.points_per_turn >= forced.points_per_turn


def test_farkle_solve_objective_points():
    """``farkle solve GAME --objective points`` as a person runs it: the
    same points a turn as the library, the thresholds in points, and one
    line for an option that does not apply."""
    out = json.loads(farkle("solve", "dix-mille", "--objective", "points", "--json",
                            check=0).stdout)
    policy = points_policy(get_rules("dix-mille"))
    assert out["objective"] == "points"
    assert out["points_per_turn"] == pytest.approx(policy.points_per_turn, rel=1e-15)
    assert out["bank_from"]["5"] is None and out["bank_from"]["1"] == policy.bank_from(1)
    text = farkle("solve", "pig", "--objective", "points", check=0).stdout
    assert "8.142" in text and "1: 20" in text
    refused = farkle("solve", "pig", "--objective", "points", "--players", "3", check=2)
    assert len(refused.stderr.strip().splitlines()) == 1


def test_with_a_penalty_the_long_run_average_equals_the_best_thresholds():
    """Pig alone, three zero turns in a row costing 10: the long-run points
    a turn of relative value iteration (solver.engine.solo) against a brute
    force over every policy "hold at X_c" (X_c the threshold after c zero
    turns in a row, 1 to 40 each), each priced exactly by its chain of
    zero-turn counts. (Holding at a threshold is optimal in Pig: a turn's
    value grows with its total.)"""
    import dataclasses
    import itertools

    import numpy as np
    rules = dataclasses.replace(get_rules("pig"), crosses=3, fall_penalty=10, floor=-30)
    top = 40
    # q[X], e[X]: chance to bank, and expected banked points, holding at X.
    q, e = np.zeros(top + 1), np.zeros(top + 1)
    for hold in range(1, top + 1):
        reach, points = np.zeros(hold + 6), np.zeros(hold + 6)
        reach[hold:], points[hold:] = 1.0, np.arange(hold, hold + 6)
        for t in range(hold - 1, -1, -1):
            reach[t] = sum(reach[t + f] for f in range(2, 7)) / 6
            points[t] = sum(points[t + f] for f in range(2, 7)) / 6
        q[hold], e[hold] = reach[0], points[0]
    best = -np.inf
    for x0, x1, x2 in itertools.product(range(1, top + 1), repeat=3):
        b = q[[x0, x1, x2]]
        share = np.array([1.0, 1 - b[0], (1 - b[0]) * (1 - b[1])])
        reward = e[[x0, x1, x2]] - np.array([0, 0, 10 * (1 - b[2])])
        best = max(best, float(share @ reward / share.sum()))
    assert points_policy(rules).points_per_turn == pytest.approx(best, abs=1e-9)
    # Without the penalty: Neller's hold at 20, 8.1418 points a turn.
    assert best < 8.1418

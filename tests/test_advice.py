"""Advice against the simple test solver (tests/reference_solver.py).

Every expected number is read from the reference solver's W (start values)
and R (roll values) at a small target, combined by the rules of docs/rules.md
(bank: 1 - the waiting player's start value at the new score; a keep: the
better of banking and rolling after it)."""

import dataclasses
from functools import lru_cache

import pytest
from reference_solver import reference_solve

from solver.advice.advisor import Advisor, Line
from solver.engine.two_player import solve
from solver.model.errors import UsageError
from solver.model.rules import get_rules

CINQ = get_rules("cinq-mille", 1500)
TAKEOVER = dataclasses.replace(get_rules("quinze-mille"), takeover_min=500).with_target(2000)


@lru_cache(maxsize=None)
def pair(rules):
    return Advisor(solve(rules)), reference_solve(rules)


def choice(advice, action, keep=None):
    return next(c.win for c in advice.choices if c.action == action and
                (keep is None or c.keep == keep))


def test_game_start_is_the_first_player_win():
    advisor, ref = pair(CINQ)
    advice = advisor.bank_or_roll(0, 0, 0, 5)
    assert [c.action for c in advice.choices] == ["roll"]
    assert advice.best.win == pytest.approx(advisor.solution.first_player_win, abs=1e-12)
    assert advice.best.win == pytest.approx(ref.W[ref.at(0), ref.at(0)], abs=1e-9)


def test_bank_or_roll_equals_reference():
    advisor, ref = pair(CINQ)
    me, opp = ref.at(16), ref.at(18)                     # 800 against 900
    advice = advisor.bank_or_roll(800, 900, 300, 2)
    assert choice(advice, "roll") == pytest.approx(ref.R[me, opp, 6, 2], abs=1e-9)
    assert choice(advice, "bank") == pytest.approx(1 - ref.W[opp, ref.at(22)], abs=1e-9)
    # Before the opening (750) there is no bank to offer.
    early = advisor.bank_or_roll(0, 800, 400, 3)
    assert [c.action for c in early.choices] == ["roll"]
    assert early.best.win == pytest.approx(ref.R[ref.at(0), ref.at(16), 8, 3], abs=1e-9)


def test_keep_values_equal_reference():
    advisor, ref = pair(CINQ)
    me, opp = ref.at(16), ref.at(18)
    advice = advisor.keep(800, 900, 300, 3, [1, 5, 2])
    assert {tuple(c.keep) for c in advice.choices} == {(1, 5), (1,), (5,)}

    def after(t, n):                                     # bank or roll, the better
        return max(ref.R[me, opp, t, n], 1 - ref.W[opp, ref.at(16 + t)])
    assert choice(advice, "keep", [1]) == pytest.approx(after(8, 2), abs=1e-9)
    assert choice(advice, "keep", [1, 5]) == pytest.approx(after(9, 1), abs=1e-9)
    assert choice(advice, "keep", [5]) == pytest.approx(after(7, 2), abs=1e-9)
    assert advice.best.win == max(c.win for c in advice.choices)


def test_zero_roll_and_win_keeps():
    advisor, ref = pair(CINQ)
    zero = advisor.keep(800, 900, 300, 3, [2, 3, 4])
    assert zero.best.action == "zero"
    assert zero.best.win == pytest.approx(1 - ref.W[ref.at(18), ref.at(16)], abs=1e-9)
    # 1,450 with 0 set aside: a 5 reaches 1,500 and wins.
    win = advisor.keep(1450, 900, 0, 5, [5, 2, 3, 4, 6])
    assert win.best.then == "win" and win.best.win == 1.0


def test_take_over_equals_reference():
    advisor, ref = pair(TAKEOVER)
    advice = advisor.take_or_fresh(1000, 1500, 800, 5)
    assert choice(advice, "take") == pytest.approx(ref.R[ref.at(20), ref.at(30), 16, 5],
                                                   abs=1e-9)
    assert choice(advice, "fresh") == pytest.approx(ref.W[ref.at(20), ref.at(30)], abs=1e-9)
    assert advice.best.action == "take"


@pytest.mark.parametrize("call", [
    lambda a: a.bank_or_roll(825, 900, 0, 5),            # not a multiple of 50
    lambda a: a.bank_or_roll(1500, 900, 0, 5),           # at the target
    lambda a: a.bank_or_roll(800, 900, 700, 2),          # turn total past the target
    lambda a: a.bank_or_roll(800, 900, 100, 6),          # too many dice
    lambda a: a.bank_or_roll(800, 900, 0, 3),            # total 0 with dice set aside
    lambda a: a.bank_or_roll(100, 900, 100, 3),          # 100 is below the opening
    lambda a: a.keep(800, 900, 100, 3, [1, 2]),          # wrong number of dice
    lambda a: a.keep(800, 900, 100, 3, [1, 2, 7]),       # not a die
    lambda a: a.bank_or_roll(Line(800, crosses=1), 900, 100, 3),   # no crosses here
    lambda a: a.take_or_fresh(800, 900, 300, 2),         # no take-over in cinq-mille
])
def test_impossible_positions_are_refused(call):
    advisor, _ = pair(CINQ)
    with pytest.raises(UsageError):
        call(advisor)


def test_take_over_refusals():
    advisor, _ = pair(TAKEOVER)
    with pytest.raises(UsageError):
        advisor.take_or_fresh(0, 1500, 800, 5)           # the taker must have 500
    with pytest.raises(UsageError):
        advisor.take_or_fresh(1000, 700, 800, 5)         # more than the banker has
    with pytest.raises(UsageError):
        advisor.take_or_fresh(1000, 1500, 800, 6)        # no die would be unset


DIX = get_rules("dix-mille", 700)


@lru_cache(maxsize=None)
def dix_tables():
    from solver.tables.make import solve_game
    return solve_game(DIX, "exact"), solve_game(DIX, "model"), reference_solve(DIX)


def test_dix_mille_exact_memory_advice_equals_reference():
    """Score-sheet lines (score, previous, crosses) of the exact table against
    the reference solver's R and W at the same lines (target 700, units of 50)."""
    exact, _, ref = dix_tables()
    advisor = Advisor(exact)
    me, opp = Line(400, crosses=2, previous=0), Line(350, crosses=1, previous=0)
    m, w = ref.at(8, 0, 2), ref.at(7, 0, 1)
    advice = advisor.bank_or_roll(me, opp, 100, 4)
    assert choice(advice, "roll") == pytest.approx(ref.R[m, w, 2, 4], abs=1e-9)
    # Banking 100 leaves 500 with previous 400 and no cross; the opponent may
    # take over 100 with 4 dice, so they get the better of that and rolling.
    after = ref.at(10, 8, 0)
    opponent = max(ref.W[w, after], ref.R[w, after, 2, 4])
    assert choice(advice, "bank") == pytest.approx(1 - opponent, abs=1e-9)
    with pytest.raises(UsageError):                       # the previous score is needed
        advisor.bank_or_roll(Line(400, crosses=2), opp, 100, 4)


def test_model_looks_one_turn_ahead_with_the_true_previous_score():
    """On the last cross, the model's answer uses the true fall; it equals
    the model's own value exactly when the true previous score is the
    model's estimate (no look-ahead needed)."""
    _, model, _ = dix_tables()
    advisor = Advisor(model)
    space = model.space
    s = 12                                                 # 600 points
    estimate = int(space.fall_to[s]) * DIX.unit
    own = model.W[space.find(s, None, 2), space.find(7, None, 0)]
    same = advisor.bank_or_roll(Line(600, 2, estimate), Line(350), 0, 5).best.win
    assert same == pytest.approx(own, abs=1e-12)
    other = 350 if estimate != 350 else 0
    moved = advisor.bank_or_roll(Line(600, 2, other), Line(350), 0, 5).best.win
    assert abs(moved - own) > 1e-6
    # A fallen line (previous = score) is a state of the model too.
    assert advisor.bank_or_roll(Line(600, 0, 600), Line(350), 0, 5).best.win > 0

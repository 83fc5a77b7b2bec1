"""The paper's analysis (solver/analysis.py) against independent sources.

* reachable turn totals: a brute force over ordered rolls and subsets of
  their dice, scored here from the rules' scoring table (not the dice
  engine's keep lists);
* offers, unusable offers, intervals: small cases worked out by hand;
* bank and take-over decisions, the fair head start and the banking map:
  recomputed from the values of the independent value-iteration solver
  (tests/reference_solver.py), with the bank formula of docs/rules.md written out
  here;
* the Newton summary: the solver's documented schedule (two passes per
  block in the first sweep, one after).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
from reference_solver import reference_solve

from solver.engine.two_player import solve
from solver.model.rules import GAMES, get_rules
from solver.study import analysis
from solver.tables.make import solve_game

# --------------------------------------------------------- brute force


def _scores(rules, dice) -> int | None:
    """Points of keeping exactly these dice, from the scoring table (None:
    not a legal keep). docs/rules.md: one straight whole and alone, or face by
    face with every count in the table."""
    counts = Counter(dice)
    for faces, points in rules.straights:
        if sorted(dice) == sorted(faces):
            return points
    total = 0
    for face, c in counts.items():
        values = rules.scoring[face - 1]
        if c > len(values) or values[c - 1] == 0:
            return None
        total += values[c - 1]
    return total


@lru_cache(maxsize=None)
def _outcomes(rules, n) -> frozenset:
    """(units, dice used) of the keeps a roll of ``n`` dice allows, over all
    6**n ordered rolls and all their subsets of dice."""
    found = set()
    for roll in itertools.product(range(1, 7), repeat=n):
        legal = []
        for size in range(1, n + 1):
            for idx in itertools.combinations(range(n), size):
                points = _scores(rules, [roll[i] for i in idx])
                if points is not None:
                    legal.append((size, points))
        if not legal:
            continue
        if rules.keep_rule == "all":            # most dice, then most points
            legal = [max(legal)]
        found |= {(points // rules.unit, size) for size, points in legal}
    return frozenset(found)


def _brute_reach(rules) -> np.ndarray:
    T, D = rules.target_units, rules.dice
    reach = np.zeros((T, D + 1), dtype=bool)
    todo = [(0, D)]
    reach[0, D] = True
    while todo:
        t, n = todo.pop()
        for units, used in _outcomes(rules, n):
            t2, n2 = t + units, (n - used) or D
            if t2 < T and not reach[t2, n2]:
                reach[t2, n2] = True
                todo.append((t2, n2))
    return reach


@pytest.mark.parametrize("name", ["dix-mille", "dix-mille-free-keep"])
def test_reachable_totals_are_the_brute_force_s(name):
    rules = get_rules(name, 1500)
    assert np.array_equal(analysis.reachable(rules), _brute_reach(rules))


def test_reachable_by_hand():
    reach = analysis.reachable(get_rules("dix-mille", 1000))       # units of 50
    assert reach[1, 4] and reach[2, 4] and reach[2, 3]            # one 5; one 1; 5 5
    assert not reach[1, 3]                                        # 50 with 2 dice set aside
    assert not reach[1, 5]                                        # hot dice need 5 dice kept
    assert reach.shape == (20, 6)
    # From a score of 900 the turn stops at 1,000: only totals below 100.
    assert analysis.reachable(get_rules("dix-mille", 1000), 18).shape[0] == 2


def test_offers_by_hand():
    rules = get_rules("dix-mille", 2000)                          # entry 350 = 7 units
    can = analysis.offers(rules, 8)                               # banker now at 400
    # 400 from 0 (the entry bank) or 50 from 350; nothing from 50..300.
    assert set(np.flatnonzero(can.any(axis=1))) == {1, 8}
    assert can[1, 4] and not can[1, 3]                            # 50 leaves 4 dice
    assert not can[:, 5].any() and not can[:, 0].any()            # hot dice offer nothing
    assert not analysis.offers(rules, 0).any()


def test_unusable_offer_by_hand():
    rules = GAMES["quinze-mille"]                                 # exactly 15,000 = 300 units
    assert analysis.unusable_offer(rules, 280, 20)                # 14,000 + 1,000 + 50 > 15,000
    assert not analysis.unusable_offer(rules, 280, 19)            # a single 5 hits 15,000
    assert not analysis.unusable_offer(GAMES["cinq-mille"], 90, 20)   # at least: it wins


def test_runs_by_hand():
    yes = np.array([False, True, True, False, True, True])
    assert analysis.runs(yes, np.array([0, 1, 2, 3, 4])) == [(1, 2), (4, 4)]
    # 3 is not a total where the question is asked: no break there.
    assert analysis.runs(yes, np.array([1, 2, 4, 5])) == [(1, 5)]
    assert analysis.runs(yes, np.array([0, 3])) == []


def test_a_rule_is_a_threshold_only_up_to_the_top():
    assert analysis.Rule(((3, 9),), 9).is_threshold
    assert not analysis.Rule(((3, 8),), 9).is_threshold
    assert not analysis.Rule(((3, 4), (6, 9)), 9).is_threshold
    assert analysis.Rule((), 9).smallest is None


# ------------------------------------------------- against the reference

TAKE_CASE = dataclasses.replace(GAMES["quinze-mille"], takeover_min=500).with_target(2000)


@lru_cache(maxsize=None)
def _solved(rules):
    return solve(rules), reference_solve(rules)


def _reference_banks(rules, ref, p, q, t, n) -> float:
    """docs/rules.md's bank, from the reference's arrays: 1 - max(W[q, p'],
    R[q, p', t, n] where q may take over an offer of n dice)."""
    s = ref.labels[p][0]
    p2 = ref.at(s + t)
    waiting = ref.W[q, p2]
    takes = (rules.takeover_min is not None and ref.labels[q][0] > 0
             and ref.labels[q][0] * rules.unit >= rules.takeover_min and 1 <= n < rules.dice)
    if takes:
        waiting = max(waiting, ref.R[q, p2, t, n])
    return 1.0 - waiting


@pytest.mark.parametrize("rules", [TAKE_CASE, get_rules("cinq-mille-exact", 1500)],
                         ids=["takeover", "exact"])
def test_bank_rules_are_the_reference_s(rules):
    sol, ref = _solved(rules)
    space = sol.space
    checked = 0
    for m, w in itertools.product(range(space.size), repeat=2):
        s, o = int(space.score[m]), int(space.score[w])
        p, q = ref.at(s), ref.at(o)
        got = analysis.bank_rules(sol, m, w, compiled=False)
        reach = analysis.reachable(rules, s)
        for n, rule in got.items():
            banked = {t for lo, hi in rule.intervals for t in range(lo, hi + 1) if reach[t, n]}
            for t in range(1, rules.target_units - s):
                if not reach[t, n] or (s == 0 and t < rules.entry_units) \
                        or (n == rules.dice and rules.hot_dice_forced):
                    assert t not in banked
                    continue
                bank = _reference_banks(rules, ref, p, q, t, n)
                roll = ref.R[p, q, t, n]
                if abs(bank - roll) > 1e-9:       # a tie is the tie-break's call
                    assert (t in banked) == (bank > roll), (s, o, t, n)
                    checked += 1
    assert checked > 1000


def test_take_rules_are_the_reference_s():
    rules = TAKE_CASE
    sol, ref = _solved(rules)
    space = sol.space
    checked = taken = 0
    for m, w in itertools.product(range(space.size), repeat=2):
        s, o = int(space.score[m]), int(space.score[w])
        if not space.can_take[m]:
            continue
        p, q = ref.at(s), ref.at(o)
        can = analysis.offers(rules, o)
        for n, rule in analysis.take_rules(sol, m, w, compiled=False).items():
            took = {t for lo, hi in rule.intervals for t in range(lo, hi + 1) if can[t, n]}
            for t in np.flatnonzero(can[:rules.target_units - s, n]):
                diff = ref.R[p, q, t, n] - ref.W[p, q]
                if abs(diff) > 1e-9:
                    assert (t in took) == (diff > 0), (s, o, t, n)
                    checked += 1
                    taken += diff > 0
    assert checked > 200 and 0 < taken < checked


def test_komi_is_the_reference_s():
    rules = get_rules("pig", 30)
    sol, ref = _solved(rules)
    start = ref.at(0)
    h = next(s for s in range(1, rules.target_units) if ref.W[start, ref.at(s)] <= 0.5)
    got = analysis.komi(sol)
    assert got["h"] == h and got["h_before"] == h - 1
    assert got["p"] == pytest.approx(ref.W[start, ref.at(h)], abs=1e-9)
    assert got["p_before"] > 0.5


def test_pig_bank_map_is_the_reference_s():
    rules = get_rules("pig", 30)
    sol, ref = _solved(rules)
    scores, smallest, threshold, step = analysis.bank_maps(sol)
    assert step == 1 and list(scores) == list(range(30))
    for i, j in itertools.product(range(30), repeat=2):
        p, q = ref.at(i), ref.at(j)
        banks = [t for t in range(1, 30 - i)
                 if _reference_banks(rules, ref, p, q, t, 1) >= ref.R[p, q, t, 1] - 1e-12]
        assert smallest[1][i, j] == (banks[0] if banks else -1), (i, j)


# -------------------------------------------------------- the solver's run

def test_newton_summary_of_a_game_with_crosses():
    sol = solve_game(get_rules("dix-mille", 700))          # the crosses model: sweeps
    summary = analysis.newton_passes(sol.stats)
    assert summary["sweeps"] == sol.stats["sweeps"] > 1
    assert summary["per_block"] == summary["sweeps"] + 1    # two passes, then one a sweep
    assert "mean" not in summary                            # no mean above its max


def test_newton_summary_of_a_game_without_crosses():
    summary = analysis.newton_passes(solve(get_rules("cinq-mille", 1500)).stats)
    assert summary["sweeps"] == 1 and 1 <= summary["mean"] <= summary["max"]


# ----------------------------------------------------------- house rules

def test_house_variants_change_one_rule_each():
    base = GAMES["dix-mille"]
    variants = dict(analysis.house_variants(base, GAMES))
    assert variants["keep any scoring dice"] == GAMES["dix-mille-free-keep"]
    assert variants["no take-over and no crosses"].takeover_min is None
    assert variants["no take-over and no crosses"].crosses == 0
    for label, rules in variants.items():
        changed = [f for f in analysis.PLAY_FIELDS if getattr(rules, f) != getattr(base, f)]
        assert len(changed) == (2 if " and " in label else 1), label
        assert rules.target == base.target and rules.scoring == base.scoring


def test_house_variants_keep_the_reduced_target_and_named_games():
    base = GAMES["cinq-mille"].with_target(3000)
    variants = dict(analysis.house_variants(base, GAMES))
    assert variants["the last 1,000 points in one turn"].name == "cinq-mille-last1000"
    assert all(r.target == 3000 for r in variants.values())
    assert "no take-over" not in variants and "no crosses" not in variants


def test_unusable_banks_by_hand():
    rules = GAMES["quinze-mille"]                                 # 300 units, exactly
    scores = np.array([100, 280])
    # Against 280 an offer of 20 or more is worthless (280 + 20 + one 5 > 300);
    # against 100 none is. Mover 280 never banks 2 dice against 100.
    two = np.array([[5, 25], [-1, 10]])                           # 25 vs 280: unusable
    three = np.array([[-1, 20], [-1, -1]])                        # 20 vs 280: exactly 300 - 280
    six = np.array([[50, 50], [50, 50]])                          # hot dice: no offer
    got = analysis.unusable_banks(rules, scores, {2: two, 3: three, 6: six})
    assert got == {"cells": 4, "hits": 2, "ahead": 2, "exact": 1}

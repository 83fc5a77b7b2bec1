"""The dice engine against brute force over every ordered roll.

Expected numbers come from enumerating all 6**n ordered rolls and all 2**n
subsets of dice positions with the scoring of docs/rules.md written out here
independently, and from the rule sheets' worked examples."""

import dataclasses
import itertools
from collections import Counter
from fractions import Fraction

import pytest

from solver.model.dice import Keep, counts_of, keep_table, keeps, keeps_of_dice, odds, rolls
from solver.model.rules import GAMES, get_rules


def brute_keep_points(rules, dice):
    """(points, win) of keeping exactly ``dice`` from one roll, or None if
    that is not a legal keep: one whole straight, or every face counted."""
    counts = Counter(dice)
    for faces, points in rules.straights:
        if sorted(dice) == sorted(faces):
            return points, False
    whole = max((points for shape, points in rules.combinations
                 if sorted(counts.values(), reverse=True) == list(shape)), default=None)
    by_face = _by_face(rules, counts)
    if whole is None:
        return by_face
    return max(by_face or (0, False), (whole, False))


def _by_face(rules, counts):
    total, win = 0, False
    for face, count in counts.items():
        if (face, count) in rules.instant_wins:
            win = True
            continue
        values = rules.scoring[face - 1]
        if count > len(values) or values[count - 1] == 0:
            return None
        total += values[count - 1]
    return total, win


def brute_keeps(rules, roll):
    """Every legal keep of ``roll`` under the keep rule ``any``; under
    ``all`` (docs/rules.md: every scoring die set aside, at its highest count)
    the one with the most dice, then the most points."""
    found = {}
    for size in range(1, len(roll) + 1):
        for positions in itertools.combinations(range(len(roll)), size):
            dice = tuple(sorted(roll[i] for i in positions))
            scored = brute_keep_points(rules, dice)
            if scored is not None:
                found[dice] = max(found.get(dice, scored), scored)
    if not found and rules.no_score_bonus and len(roll) == rules.dice:
        found[tuple(sorted(roll))] = (rules.no_score_bonus, False)   # Zilch's "no scoring dice"
    if rules.keep_rule == "all" and found:
        dice = max(found, key=lambda d: (found[d][1], len(d), found[d][0]))
        return {dice: found[dice]}
    return found


# Farkle's whole-roll combinations (issue 67) on six dice, with the free
# keep: three pairs, two triplets, four of a kind with a pair, and a pair
# shape that a four and a pair also fill.
COMBINATIONS = dataclasses.replace(
    GAMES["quinze-mille-free-keep"], name="combinations",
    combinations=(((2, 2, 2), 750), ((3, 3), 2500), ((4, 2), 1500), ((2, 2), 50)))


# Zilch's bonus for six dice that score nothing, on five dice to keep it quick.
NO_SCORE = dataclasses.replace(GAMES["cinq-mille"], name="no-score", no_score_bonus=500,
                               instant_wins=())


@pytest.mark.parametrize("name", [*GAMES, "combinations", "no-score"])
def test_rolls_and_keeps_equal_brute_force(name):
    rules = {"combinations": COMBINATIONS, "no-score": NO_SCORE}.get(name) or get_rules(name)
    for n in range(1, rules.dice + 1):
        probability = Counter()
        expected_keeps = {}
        for roll in itertools.product(range(1, 7), repeat=n):
            counts = counts_of(roll)
            probability[counts] += Fraction(1, 6 ** n)
            if counts not in expected_keeps:
                expected_keeps[counts] = brute_keeps(rules, roll)
        engine = dict(rolls(n))
        assert engine == dict(probability)
        for counts, expected in expected_keeps.items():
            got = {k.dice: (k.points, k.win) for k in keeps(rules, counts)}
            # A win keep's points are not used; compare legality and win flag.
            assert got.keys() == expected.keys()
            for dice, (points, win) in got.items():
                assert win == expected[dice][1]
                if not win:
                    assert points == expected[dice][0]


@pytest.mark.parametrize("name", ["dix-mille", "quinze-mille", "dix-mille-free-keep",
                                  "quinze-mille-free-keep", "cinq-mille", "pig"])
def test_solver_keep_table_groups_rolls_by_their_keep_outcomes(name):
    """Each class of the solver's table carries the summed probability of
    the rolls whose distinct (dice used, points) keeps, from the full keep
    list, are the class's keeps."""
    rules = get_rules(name)
    table = keep_table(rules)
    for n in range(1, rules.dice + 1):
        expected = Counter()
        for counts, prob in rolls(n):
            options = keeps(rules, counts)
            if any(k.win for k in options):
                key = ("win",)
            else:
                key = tuple(sorted({(k.used, k.points // rules.unit) for k in options}))
            expected[key] += prob
        got = Counter()
        for r, prob in enumerate(table.roll_prob[n]):
            k0, k1 = table.keep_start[n][r], table.keep_start[n][r + 1]
            if table.keep_win[n][k0:k1].any():
                key = ("win",)
            else:
                key = tuple(sorted(zip(table.keep_used[n][k0:k1].tolist(),
                                       table.keep_units[n][k0:k1].tolist())))
            assert key not in got
            got[key] = prob
        assert got.keys() == expected.keys()
        for key, prob in expected.items():
            assert got[key] == pytest.approx(float(prob), abs=1e-15)


@pytest.mark.parametrize("name", ["dix-mille", "quinze-mille", "dix-mille-free-keep",
                                  "quinze-mille-free-keep", "cinq-mille", "pig"])
def test_class_bases_give_each_class_its_own_keeps(name):
    """A class's base is an earlier class of the same dice whose keeps it
    has too, and its base's keeps (along the chain of bases) with its own
    extra keeps are exactly its keeps. Under free keep most classes have a
    base; under the keep rule *all* (one keep per roll) none can."""
    rules = get_rules(name)
    dice = keep_table(rules).packed()

    def outcomes(first, units, cols, r):
        return {(int(units[k]), int(cols[k])) for k in range(first[r], first[r + 1])}
    based = 0
    for n in range(1, rules.dice + 1):
        for r in range(dice.roll_first[n], dice.roll_first[n + 1]):
            own = outcomes(dice.keep_first, dice.keep_units, dice.keep_col, r)
            extra = outcomes(dice.extra_first, dice.extra_units, dice.extra_col, r)
            base = int(dice.class_base[r])
            if base < 0:
                assert extra == own
                continue
            based += 1
            assert dice.roll_first[n] <= base < r
            inherited = outcomes(dice.keep_first, dice.keep_units, dice.keep_col, base)
            assert inherited and inherited <= own
            assert extra == own - inherited
    assert (based > 0) == (rules.keep_rule == "any" and rules.dice > 1)


@pytest.mark.parametrize("name", ["dix-mille-free-keep", "quinze-mille-free-keep", "pig"])
def test_each_keep_points_to_its_outcome_listed_once(name):
    """DiceArrays.keep_outcome: every keep's (points, column) is its
    outcome's, and the outcomes are the distinct pairs over all classes,
    each once (which the card's plan ranks, one call per outcome)."""
    dice = keep_table(get_rules(name)).packed()
    outcome = dice.keep_outcome
    assert list(dice.outcome_units[outcome]) == list(dice.keep_units)
    assert list(dice.outcome_col[outcome]) == list(dice.keep_col)
    pairs = list(zip(dice.outcome_units.tolist(), dice.outcome_col.tolist()))
    assert sorted(set(pairs)) == sorted(pairs) == \
        sorted(set(zip(dice.keep_units.tolist(), dice.keep_col.tolist())))


def test_planned_keep_loop_equals_the_plain_loop():
    """The turn DP's planned loop (a class's best from its base's) gives
    the roll values of the plain loop over every keep, which the kernels
    run when no class has a base: the same turn DPs from the same values,
    for one mover, four lanes and five (the kernel for any number), with
    and without slopes."""
    import numpy as np

    from solver.engine.turn import pad
    from solver.engine.turn_kernel import LANES, TurnWork, turn_dp_lanes, turn_dp_one
    from solver.engine.two_player import solve
    from solver.model.turn_rules import TurnRules
    rules = get_rules("cinq-mille", 1500)
    solution = solve(rules)
    dice = keep_table(rules).packed()
    plain = dice._replace(class_base=np.full_like(dice.class_base, -1),
                          extra_first=dice.keep_first, extra_units=dice.keep_units,
                          extra_col=dice.keep_col)
    T, D, turn = rules.target_units, rules.dice, TurnRules.of(rules)
    moves, values = solution.space.moves(solution.take_row), solution.values()
    rng = np.random.default_rng(3)
    for m, w in rng.integers(solution.space.size, size=(20, 2)):
        one = [TurnWork.empty(T, pad(rules, T), D) for _ in range(3)]
        four = [TurnWork.empty(T, pad(rules, T), D, lanes=LANES) for _ in range(3)]
        five = [TurnWork.empty(T, pad(rules, T), D, lanes=5) for _ in range(3)]
        Zs = np.array([0.37, 0.6, 0.1, 0.9, 0.5])
        for arrays, i, slopes in zip((dice, plain, dice), range(3), (True, True, False)):
            turn_dp_one(turn, arrays, moves, values, m, w, 0.37, T, one[i], slopes)
            for work in (four[i], five[i]):
                lanes = work.R.shape[2]
                turn_dp_lanes(turn, arrays, moves, values, np.full(lanes, m), w, Zs[:lanes], T,
                              work, np.empty(lanes), np.empty(lanes), slopes)
        for work in (one, four, five):
            assert np.array_equal(work[0].R, work[1].R)
            assert np.array_equal(work[0].dR, work[1].dR)
            assert np.array_equal(work[0].R, work[2].R)
        for work in (four, five):
            assert np.array_equal(work[0].R[..., 0], one[0].R)
            assert np.array_equal(work[0].dR[..., 0], one[0].dR)
        assert np.array_equal(four[0].R, five[0].R[..., :LANES])


def test_zero_roll_probabilities():
    """Published values for the 1-and-5 scoring: 5 dice 25/324, 6 dice 5/162."""
    five = {row["dice"]: row["zero"] for row in odds(get_rules("dix-mille"))}
    six = {row["dice"]: row["zero"] for row in odds(get_rules("quinze-mille"))}
    assert five[5] == Fraction(25, 324)
    assert six[6] == Fraction(5, 162)
    assert five[1] == Fraction(2, 3)


def points_of(rules, dice):
    return {k.dice: k.points for k in keeps_of_dice(rules, dice)}[tuple(sorted(dice))]


def test_rule_sheet_examples():
    dix, quinze, cinq = (get_rules(n) for n in ("dix-mille", "quinze-mille", "cinq-mille"))
    # Three 1s over two rolls: 100 + 200, never 1000 (all three sheets).
    assert points_of(dix, [1]) + points_of(dix, [1, 1]) == 300
    # Four 1s: 1100 in cinq-mille (a triple and a single), 2000 in quinze-mille.
    assert points_of(cinq, [1, 1, 1, 1]) == 1100
    assert points_of(quinze, [1, 1, 1, 1]) == 2000
    # dix-mille: five 1s are one combination, 5000; a square of 2s is 2000.
    assert points_of(dix, [1, 1, 1, 1, 1]) == 5000
    assert points_of(dix, [2, 2, 2, 2]) == 2000
    # quinze-mille sheet: 1 1 1 6 6 2 scores 1000; six 3s are 2400.
    assert max(k.points for k in keeps_of_dice(quinze, [1, 1, 1, 6, 6, 2])) == 1000
    assert points_of(quinze, [3] * 6) == 2400
    # cinq-mille: four 2s keep at most three; five 1s win; five 5s are 5000.
    assert max(k.used for k in keeps_of_dice(cinq, [2, 2, 2, 2, 3])) == 3
    assert keeps_of_dice(cinq, [1] * 5)[0].win
    assert points_of(cinq, [5] * 5) == 5000
    # Straights are kept whole: 1500 in dix-mille, 500 in cinq-mille.
    assert points_of(dix, [2, 3, 4, 5, 6]) == 1500
    assert points_of(cinq, [1, 2, 3, 4, 5]) == 500
    assert points_of(quinze, [1, 2, 3, 4, 5, 6]) == 3000


def test_keeps_are_sorted_most_points_first():
    options = keeps_of_dice(get_rules("dix-mille-free-keep"), [1, 1, 1, 2, 5])
    assert (options[0].dice, options[0].points) == ((1, 1, 1, 5), 1050)
    assert (options[-1].dice, options[-1].points) == ((5,), 50)
    assert keeps_of_dice(get_rules("dix-mille-free-keep"), [2, 3, 4, 6, 6]) == ()


def test_keep_rule_all_sets_every_scoring_die_aside():
    """Seeds 000 and 001: the scoring dice are set aside, all of them. The
    quinze-mille sheet's case 4: 1 1 1 6 6 2 brings its whole 1,000."""
    dix, quinze = get_rules("dix-mille"), get_rules("quinze-mille")
    assert keeps_of_dice(quinze, [1, 1, 1, 6, 6, 2]) == (Keep((1, 1, 1), 1000),)
    assert keeps_of_dice(dix, [1, 1, 1, 2, 5]) == (Keep((1, 1, 1, 5), 1050),)
    # A straight sets all five dice aside, not its 1 and 5.
    assert keeps_of_dice(dix, [1, 2, 3, 4, 5]) == (Keep((1, 2, 3, 4, 5), 1500),)
    # Four 2s and a 5: every die scores.
    assert keeps_of_dice(dix, [2, 2, 2, 2, 5]) == (Keep((2, 2, 2, 2, 5), 2050),)
    assert keeps_of_dice(dix, [2, 3, 4, 6, 6]) == ()


def test_combinations_by_hand():
    """Worked by hand from the shapes: two triplets of 1s and 5s are 2,500
    (not 1,000 + 500), three pairs 750 whatever the faces, 6-6-6-6-2-2 the
    four with a pair (1,500) and, as two pairs of the shape (2, 2), also
    2-2-6-6 for 50; a roll with no such shape keeps nothing new."""
    def best(roll):
        return {k.dice: k.points for k in keeps_of_dice(COMBINATIONS, roll)}
    assert best((1, 1, 1, 5, 5, 5))[(1, 1, 1, 5, 5, 5)] == 2500
    assert best((2, 3, 3, 4, 4, 2))[(2, 2, 3, 3, 4, 4)] == 750
    four = best((6, 6, 6, 6, 2, 2))
    assert four[(2, 2, 6, 6, 6, 6)] == 1500 and four[(2, 2, 6, 6)] == 50
    assert (2, 2, 6, 6, 6, 6) not in best((6, 6, 6, 6, 2, 3))

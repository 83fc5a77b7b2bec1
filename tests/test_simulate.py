"""The simulator (solver.sim.simulate, solver.sim.policies): mechanics with scripted
dice, policies, matches, and whole games against the solved tables.

Where an expected number comes from is said in each test: docs/rules.md for the
mechanics (scores worked out by hand from its tables), the solver for the
win probabilities (``Solution.first_player_win``, checked within 4 binomial
standard errors), and the classic Pig result for the expected-points policy.
"""

import dataclasses
import math

import numpy as np
import pytest

from solver.advice.advisor import Advisor
from solver.engine.two_player import solve
from solver.model.dice import keeps_of_dice
from solver.model.errors import UsageError
from solver.model.rules import get_rules
from solver.sim.policies import Policy, expected_turn, optimal_tables, parse_policy
from solver.sim.simulate import _Machine, match, play_scripted, scripted_events, simulate
from solver.tables.make import solve_game

DIX = get_rules("dix-mille")
CINQ = get_rules("cinq-mille")
QUINZE = get_rules("quinze-mille")

ZERO5 = [2, 3, 4, 6, 6]        # no 1, no 5, no triple, no straight: a zero roll of 5 dice
ZERO6 = [2, 3, 4, 6, 6, 2]     # the same with 6 dice (two 2s are no keep)


def test_the_zero_rolls_used_below_are_zero_rolls():
    """docs/rules.md, "Points of a keep": none of these dice scores."""
    assert keeps_of_dice(DIX, ZERO5) == ()
    assert keeps_of_dice(CINQ, ZERO5) == ()
    assert keeps_of_dice(QUINZE, ZERO6) == ()


# ---------------------------------------------------------------- mechanics

def outcomes(game, player=None):
    return [(e["player"], e["outcome"], e["turn_total"], e["score"]) for e in game.events
            if player is None or e["player"] == player]


def test_dix_mille_sheet_falls_back_two_banks_after_six_crosses():
    """docs/rules.md dix-mille 4, read on the whole paper sheet (issue 6): A banks
    1000 (three 1s) then 500 (three 5s): sheet 1000, 1500. Three zero turns
    strike 1500 off (back to 1000), three more strike 1000 off (back to 0)."""
    dice = [1, 1, 1, 2, 3] + ZERO5 + [5, 5, 5, 2, 3] + ZERO5 + (ZERO5 + ZERO5) * 6
    game = play_scripted(DIX, "threshold:350", "threshold:350", dice, turns=16)
    assert game.winner is None
    falls = [e for e in game.events if e["outcome"] == "fall" and e["player"] == "A"]
    assert [(e["turn"], e["score"]) for e in falls] == [(9, 1000), (15, 0)]
    assert game.sheets[0] == [] and game.scores == (0, 0)
    assert game.crosses == (0, 2)   # B: 8 zero turns = two falls (on an empty sheet) + 2


def test_dix_mille_a_bank_erases_the_crosses():
    """docs/rules.md dix-mille 4: only *consecutive* crosses count. A: bank 1000,
    two zero turns, bank 500, two zero turns: four crosses, never three in a
    row, so no fall; the sheet reads 1000, 1500."""
    dice = [1, 1, 1, 2, 3] + ZERO5 + ZERO5 + ZERO5 + ZERO5 + ZERO5 \
        + [5, 5, 5, 2, 3] + ZERO5 + ZERO5 + ZERO5 + ZERO5 + ZERO5
    game = play_scripted(DIX, "threshold:350", "threshold:350", dice, turns=12)
    assert not any(e["outcome"] == "fall" and e["player"] == "A" for e in game.events)
    assert game.sheets[0] == [1000, 1500]
    assert game.crosses[0] == 2


def test_three_ones_over_two_rolls_are_100_plus_200():
    """docs/rules.md "keep": combinations count inside one roll only. A at 1000
    rolls 1-2-3-4-6 (keeps the 1: 100), then 1-1-2-3 (keeps 1-1: 200), and
    banks at threshold 300: 1000 + 300 = 1300, not 1000 + 1000."""
    game = play_scripted(CINQ, "threshold:300", "threshold:300", [1, 2, 3, 4, 6, 1, 1, 2, 3],
                         turns=1, start=(1000, 0))
    assert outcomes(game) == [("A", "bank", 300, 1300)]
    assert game.dice_used == 9


def test_an_overshoot_in_an_exact_game_is_a_zero_turn():
    """docs/rules.md cinq-mille-exact / dix-mille 1: at 4,950 every keep of
    1-1-2-3-4 (100 or 200) passes 5,000: the turn ends at once as a zero
    turn and the score stays (threshold keeps the most points, 1-1, when
    every keep overshoots). In dix-mille the same at 9,950 is also a cross."""
    game = play_scripted(get_rules("cinq-mille-exact"), "threshold:300", "threshold:300",
                         [1, 1, 2, 3, 4], turns=1, start=(4950, 0))
    assert outcomes(game) == [("A", "overshoot", 200, 4950)]
    assert game.scores == (4950, 0)
    game = play_scripted(DIX, "random", "threshold:300", [1, 1, 2, 3, 4], turns=1,
                         start=(9950, 0))
    assert outcomes(game)[0][1] == "overshoot" and game.crosses == (1, 0)


def test_hitting_an_exact_target_wins():
    """docs/rules.md cinq-mille-exact: at 4,900 the 1 of 1-2-3-4-6 makes exactly 5,000."""
    game = play_scripted(get_rules("cinq-mille-exact"), "threshold:300", "threshold:300",
                         [1, 2, 3, 4, 6], turns=1, start=(4900, 0))
    assert game.winner == "A" and outcomes(game) == [("A", "win", 100, 5000)]


def test_threshold_avoids_an_overshoot_when_it_can():
    """threshold keeps the most points that do not overshoot: at 4,800 in
    cinq-mille-exact 1-1-2-3-4 is kept as 1-1 (200, exactly 5,000: a win),
    and at 4,850 as one 1 (100: 4,950 would do; the threshold is not met, so
    it rolls the 4 dice left, here a zero roll)."""
    exact = get_rules("cinq-mille-exact")
    game = play_scripted(exact, "threshold:300", "threshold:300", [1, 1, 2, 3, 4], turns=1,
                         start=(4800, 0))
    assert game.winner == "A"
    game = play_scripted(exact, "threshold:300", "threshold:300",
                         [1, 1, 2, 3, 4] + [2, 3, 4, 6], turns=1, start=(4850, 0))
    assert outcomes(game) == [("A", "zero", 100, 4850)]


def test_the_forced_keep_overshoots_where_a_free_keep_would_not():
    """docs/rules.md quinze-mille case 4 (keep rule ``all``): at 14,500 the roll
    1 1 1 6 6 2 sets 1-1-1 aside, 1,000 points: 15,500 passes the target and
    the turn is lost. Under the free keep threshold:300 keeps 1-1 (200, the
    most points that do not overshoot) and rolls the 4 dice left (a zero
    roll here). dix-mille the same: at 9,500, 1 1 1 6 2 overshoots (a
    cross); free, A keeps 1-1, then the 1 of 1-3-4 (300) and banks 9,800."""
    game = play_scripted(QUINZE, "threshold:300", "threshold:300", [1, 1, 1, 6, 6, 2],
                         turns=1, start=(14_500, 0))
    assert outcomes(game) == [("A", "overshoot", 1000, 14_500)]
    game = play_scripted(get_rules("quinze-mille-free-keep"), "threshold:300", "threshold:300",
                         [1, 1, 1, 6, 6, 2] + [2, 3, 4, 6], turns=1, start=(14_500, 0))
    assert outcomes(game) == [("A", "zero", 200, 14_500)]
    game = play_scripted(DIX, "threshold:300", "threshold:300", [1, 1, 1, 6, 2], turns=1,
                         start=(9500, 0))
    assert outcomes(game) == [("A", "overshoot", 1000, 9500)] and game.crosses == (1, 0)
    game = play_scripted(get_rules("dix-mille-free-keep"), "threshold:300", "threshold:300",
                         [1, 1, 1, 6, 2] + [1, 3, 4], turns=1, start=(9500, 0))
    assert outcomes(game) == [("A", "bank", 300, 9800)] and game.sheets[0] == [9500, 9800]
    # The same at a small target: dix-mille to 2,000 at 1,500.
    small = DIX.with_target(2000)
    game = play_scripted(small, "threshold:300", "threshold:300", [1, 1, 1, 6, 2], turns=1,
                         start=(1500, 0))
    assert outcomes(game) == [("A", "overshoot", 1000, 1500)]


def test_take_over():
    """docs/rules.md quinze-mille 4 (take-over from 5,000). A at 5,000 keeps
    1-1-5 (250) of 1-1-5-2-3-4, then the 5 of 5-2-3 (300) and banks 300 with
    2 dice unset. B at 6,000 takes over (offer 300 >= threshold 300), rolls
    the 2 dice 1-2, keeps the 1 (400) and banks: 6,400, leaving 1 die. A
    takes that over, rolls a 1 (500, hot dice, forced), rolls all 6: zero.
    A keeps 5,300 (no crosses in quinze-mille)."""
    dice = [1, 1, 5, 2, 3, 4] + [5, 2, 3] + [1, 2] + [1] + ZERO6
    game = play_scripted(QUINZE, "threshold:300", "threshold:300", dice, turns=3,
                         start=(5000, 6000))
    assert [(e["player"], e["outcome"], e["turn_total"], e["score"], e["took_over"])
            for e in game.events] == [("A", "bank", 300, 5300, False),
                                      ("B", "bank", 400, 6400, True),
                                      ("A", "zero", 500, 5300, True)]
    assert game.dice_used == len(dice)


def test_no_take_over_below_the_minimum():
    """docs/rules.md quinze-mille 4: B at 4,000 may not take over; B rolls 6
    fresh dice (here a zero roll): 6 + 3 + 6 dice thrown."""
    dice = [1, 1, 5, 2, 3, 4] + [5, 2, 3] + ZERO6
    game = play_scripted(QUINZE, "threshold:300", "threshold:300", dice, turns=2,
                         start=(5000, 4000))
    assert [e["took_over"] for e in game.events] == [False, False]
    assert game.dice_used == 15 and game.scores == (5300, 4000)


def test_last1000_cap():
    """docs/rules.md cinq-mille-last1000: A at 3,800 banks 300 (1-1-5-5):
    min(4,100, 4,000) = 4,000; at 4,000 a bank of 300 is legal and leaves
    4,000; 1-1-1 (1,000) then reaches 5,000 and wins. (A plays threshold:300
    without its guard against useless banks; see the next test.)"""
    rules = get_rules("cinq-mille-last1000")
    plain = Policy("threshold", 300, guards=False)
    dice = [1, 1, 5, 5, 2] + ZERO5 + [1, 1, 5, 5, 2] + ZERO5 + [1, 1, 1, 2, 3]
    game = play_scripted(rules, plain, "threshold:300", dice, turns=5, start=(3800, 0))
    assert outcomes(game, "A") == [("A", "bank", 300, 4000), ("A", "bank", 300, 4000),
                                   ("A", "win", 1000, 5000)]
    assert game.winner == "A" and game.sheets[0] == [3800, 4000, 4000]


def test_threshold_does_not_bank_at_the_cap():
    """The guard of threshold:X (module docstring): at the cap a bank changes
    nothing, so A at 4,000 rolls the 1 die left after 1-1-5-5 (a 2: zero)."""
    rules = get_rules("cinq-mille-last1000")
    game = play_scripted(rules, "threshold:300", "threshold:300", [1, 1, 5, 5, 2, 2], turns=1,
                         start=(4000, 0))
    assert outcomes(game) == [("A", "zero", 300, 4000)]


def test_five_ones_win_at_once_even_before_opening():
    """docs/rules.md cinq-mille 4: five 1s in one roll win at once, also at 0.
    Five 5s are 5,000 points: they reach the target and win too."""
    game = play_scripted(CINQ, "threshold:300", "threshold:300", [1, 1, 1, 1, 1], turns=1)
    assert game.winner == "A" and outcomes(game)[0][1] == "instant-win"
    game = play_scripted(CINQ, "threshold:300", "threshold:300", [5, 5, 5, 5, 5], turns=1)
    assert game.winner == "A" and outcomes(game) == [("A", "win", 5000, 5000)]


def test_hot_dice_forced_or_optional():
    """docs/rules.md: 1-1-1-5-5 is 1,100 with every die set aside. In dix-mille
    (forced) A must roll 5 again (zero roll: a cross); in cinq-mille
    (optional) A banks: 1,000 + 1,100 = 2,100, and a bank with no die unset
    offers nothing."""
    game = play_scripted(DIX, "threshold:300", "threshold:300", [1, 1, 1, 5, 5] + ZERO5,
                         turns=1, start=(1000, 0))
    assert outcomes(game) == [("A", "zero", 1100, 1000)] and game.crosses == (1, 0)
    game = play_scripted(CINQ, "threshold:300", "threshold:300", [1, 1, 1, 5, 5], turns=1,
                         start=(1000, 0))
    assert outcomes(game) == [("A", "bank", 1100, 2100)]


def test_entry_threshold():
    """docs/rules.md dix-mille 2 (entry 350): at 0, 250 (1-1-5) then 300 (a 5)
    may not be banked, so A rolls the last die: a 5 (350, hot dice, forced),
    then a zero roll. Entered (at 50), the same dice bank 300 after the
    second roll."""
    dice = [1, 1, 5, 2, 3] + [5, 3] + [5] + ZERO5
    game = play_scripted(DIX, "threshold:300", "threshold:300", dice, turns=1)
    assert outcomes(game) == [("A", "zero", 350, 0)]
    game = play_scripted(DIX, "threshold:300", "threshold:300", dice[:7], turns=1,
                         start=(50, 0))
    assert outcomes(game) == [("A", "bank", 300, 350)]


def test_scripted_dice_that_run_out_are_an_error():
    with pytest.raises(UsageError):
        play_scripted(CINQ, "threshold:300", "threshold:300", [1, 2, 3, 4, 6], turns=1)


# ------------------------------------------------------------------ policies

def test_parse_policy():
    assert parse_policy("threshold:300") == Policy("threshold", 300)
    assert str(parse_policy(" Optimal ")) == "optimal"
    assert parse_policy("expected").kind == "expected"
    assert parse_policy("random").kind == "random"
    for bad in ("threshold:abc", "threshold:-50", "threshold", "greedy", ""):
        with pytest.raises(UsageError):
            parse_policy(bad)


def test_expected_policy_holds_at_20_in_pig():
    """Maximising the expected points of a Pig turn is "hold at 20" (Neller
    and Presser 2004): rolling at t is worth (t + 4) 5/6 + ..., which is
    below t from t = 20 on (equal at 20)."""
    R, V = expected_turn(get_rules("pig"))
    t = np.arange(100)
    bank = t >= R[:100, 1]
    assert list(t[bank & (t > 0)][:3]) == [20, 21, 22] and not bank[1:20].any()
    assert R[20, 1] == pytest.approx(20.0)


def test_optimal_policy_errors():
    with pytest.raises(UsageError, match="solved table"):
        simulate(DIX, "optimal", "threshold:300", 10)
    with pytest.raises(UsageError, match="solved table"):
        simulate(CINQ, "optimal", "threshold:300", 10)
    pig = get_rules("pig")
    pig_table = solve(pig)
    with pytest.raises(UsageError, match="table is for"):
        simulate(get_rules("pig", 50), "optimal", "random", 10, solution=pig_table)
    with pytest.raises(UsageError, match="table is for"):       # B's own table
        simulate(get_rules("pig", 50), "random", "optimal", 10, solution_b=pig_table)


# --------------------------------------------------------------- whole games

def test_same_seed_same_result_and_progress():
    calls = []
    one = simulate(CINQ, "threshold:300", "expected", 40_000, seed=7,
                   progress=lambda done, total: calls.append((done, total)))
    two = simulate(CINQ, "threshold:300", "expected", 40_000, seed=7)
    other = simulate(CINQ, "threshold:300", "expected", 40_000, seed=8)
    assert (one.wins_a, one.unfinished) == (two.wins_a, two.unfinished)
    assert one.wins_a != other.wins_a
    assert calls[-1] == (40_000, 40_000) and len(calls) >= 2
    assert one.stderr == pytest.approx(math.sqrt(one.win_rate_a * (1 - one.win_rate_a) / 40_000))


def test_random_policies_finish_every_game():
    """Random play in every game, dix-mille crosses and exact targets
    included, ends (far below the turn cap)."""
    for name in ("dix-mille", "quinze-mille", "cinq-mille-exact", "cinq-mille-last1000"):
        result = simulate(get_rules(name), "random", "random", 2000, seed=1)
        assert result.unfinished == 0 and result.wins_a + result.wins_b == 2000


def test_turn_cap_is_reported():
    """Pig at threshold:300 never banks before 100 points in one turn, so
    nearly no game ends within 2 turns: those are counted as unfinished."""
    result = simulate(get_rules("pig"), "threshold:300", "threshold:300", 1000, max_turns=2)
    assert result.unfinished > 900
    assert result.wins_a + result.wins_b + result.unfinished == 1000


SMALL_GAMES = {
    "cinq-mille-1500": get_rules("cinq-mille", 1500),
    "cinq-mille-2000": get_rules("cinq-mille", 2000),
    "cinq-mille-exact-2000": get_rules("cinq-mille-exact", 2000),
    "cinq-mille-last1000-2000": get_rules("cinq-mille-last1000", 2000),
    # quinze-mille at 2,000 with take-over from 500, so that take-over happens.
    "quinze-mille-2000-takeover-500": dataclasses.replace(QUINZE, takeover_min=500)
    .with_target(2000),
    "pig": get_rules("pig"),
}


@pytest.fixture(scope="module")
def solutions():
    return {name: solve(rules) for name, rules in SMALL_GAMES.items()}


@pytest.mark.parametrize("name", SMALL_GAMES)
def test_optimal_self_play_matches_the_table(name, solutions):
    """The table's first-player win probability (solver.engine.two_player.solve) lies
    within 4 standard errors of 100,000 simulated games."""
    solution = solutions[name]
    result = simulate(SMALL_GAMES[name], "optimal", "optimal", 100_000, seed=11,
                      solution=solution)
    assert result.unfinished == 0
    assert abs(result.win_rate_a - solution.first_player_win) < 4 * result.stderr


@pytest.mark.parametrize("name", SMALL_GAMES)
@pytest.mark.parametrize("opponent", ["threshold:300", "expected"])
def test_optimal_beats_simple_policies(name, opponent, solutions):
    """Both seatings on common dice, 30,000 games each: the optimal player
    wins more than half of the games by more than 3 standard errors (the
    seatings cancel the first player's edge)."""
    rules, solution = SMALL_GAMES[name], solutions[name]
    result = match(rules, "optimal", opponent, 30_000, seed=21, solution=solution)
    assert (result.win_mean - 0.5) / result.win_mean_se > 3


def test_optimal_decisions_agree_with_the_advisor(solutions):
    """The optimal policy's bank and take-over tables give the Advisor's
    best answer wherever the Advisor's two values differ."""
    rules = SMALL_GAMES["quinze-mille-2000-takeover-500"]
    solution = solutions["quinze-mille-2000-takeover-500"]
    advisor = Advisor(solution)
    space, unit, D = solution.space, rules.unit, rules.dice
    rng = np.random.default_rng(5)
    checked_bank = checked_take = 0
    for _ in range(25):
        m, w = (int(x) for x in rng.integers(space.size, size=2))
        me, opp = int(space.score[m]) * unit, int(space.score[w]) * unit
        _, bank, take, _ = optimal_tables(solution, m, w)
        for _ in range(20):
            t = int(rng.integers(1, rules.target_units - space.score[m]))
            n = int(rng.integers(1, D + 1))
            values = {c.action: c.win for c in advisor.bank_or_roll(me, opp, t * unit, n).choices}
            if "bank" in values and abs(values["bank"] - values["roll"]) > 1e-12:
                assert bank[t, n] == (values["bank"] > values["roll"])
                checked_bank += 1
            elif "bank" not in values:
                assert not bank[t, n]
        if space.can_take[m]:
            for _ in range(20):
                banker = int(rng.integers(space.size))
                t = int(rng.integers(1, rules.target_units))
                if space.bank_next[banker, t] != w:
                    continue
                n = int(rng.integers(1, D))
                values = {c.action: c.win
                          for c in advisor.take_or_fresh(me, opp, t * unit, n).choices}
                if abs(values["take"] - values["fresh"]) > 1e-12:
                    assert take[t, n] == (values["take"] > values["fresh"])
                    checked_take += 1
    assert checked_bank > 100 and checked_take > 5


def test_two_tables_and_common_dice():
    """Each seat may read its own table (``solution_b``); the same table on
    both seats through ``solution_b`` plays the very same games. With
    ``common_dice`` a game's dice do not depend on the games before it, so
    a game played alone gives the same winner as in a longer run."""
    rules, solution = SMALL_GAMES["cinq-mille-1500"], solve(SMALL_GAMES["cinq-mille-1500"])
    one = simulate(rules, "optimal", "optimal", 3000, seed=4, solution=solution)
    two = simulate(rules, "optimal", "optimal", 3000, seed=4, solution=solution,
                   solution_b=solve(rules))
    assert one.wins_a == two.wins_a
    mixed = simulate(rules, "threshold:300", "optimal", 3000, seed=4, common_dice=True,
                     solution=None, solution_b=solution, keep_winners=True)
    assert mixed.wins_a == int(np.sum(mixed.winners == 0))
    again = simulate(rules, "threshold:300", "optimal", 10, seed=4, common_dice=True,
                     solution_b=solution, keep_winners=True)
    assert list(again.winners) == list(mixed.winners[:10])


def test_match_seatings_and_paired_differences(solutions):
    """match plays both seatings on common dice. Optimal against itself,
    compared game by game with optimal self-play on the same dice (the
    baseline), differs in no game: paired difference 0, standard error 0.
    X against Y and Y against X play the very same games, seats swapped:
    X's rate first is 1 - Y's rate second, and the means add up to 1. The
    mean's standard error comes from the per-game means of the seatings."""
    rules, solution = SMALL_GAMES["cinq-mille-1500"], solutions["cinq-mille-1500"]
    n = 4000
    base = simulate(rules, "optimal", "optimal", n, seed=9, solution=solution,
                    common_dice=True, keep_winners=True)
    same = match(rules, "optimal", "optimal", n, seed=9, solution=solution, baseline=base)
    assert same.paired_first == same.paired_second == same.paired_mean == 0.0
    assert same.paired_first_se == same.paired_second_se == same.paired_mean_se == 0.0
    assert same.differ_first == same.differ_second == 0
    assert same.win_first == base.win_rate_a and same.win_second == 1 - base.win_rate_a
    xy = match(rules, "threshold:300", "optimal", n, seed=9, solution=solution, baseline=base)
    yx = match(rules, "optimal", "threshold:300", n, seed=9, solution=solution)
    assert xy.win_first == pytest.approx(1 - yx.win_second, abs=1e-15)
    assert xy.win_second == pytest.approx(1 - yx.win_first, abs=1e-15)
    assert xy.win_mean == pytest.approx(1 - yx.win_mean, abs=1e-15)
    assert xy.win_mean_se == pytest.approx(yx.win_mean_se, abs=1e-15)
    means = ((xy.first.winners == 0).astype(float) + (xy.second.winners == 1)) / 2
    assert xy.win_mean_se == pytest.approx(means.std(ddof=1) / math.sqrt(n))
    # threshold:300 loses to optimal, game by game on the same dice.
    first_gain = (xy.first.winners == 0).astype(float) - (base.winners == 0)
    assert xy.paired_first == pytest.approx(first_gain.mean()) and xy.paired_first < 0
    assert xy.paired_first_se == pytest.approx(first_gain.std(ddof=1) / math.sqrt(n))
    assert xy.differ_first == int(np.sum(xy.first.winners != base.winners)) > 0
    with pytest.raises(UsageError, match="baseline"):
        match(rules, "optimal", "optimal", n, seed=10, solution=solution, baseline=base)


# --------------------------------------------- dix-mille: tables with crosses

DIX_SMALL = {700: get_rules("dix-mille", 700), 1000: get_rules("dix-mille", 1000)}


@pytest.fixture(scope="module")
def dix_tables():
    """The exact memory and the crosses model (solver.engine.memory) at 700 and 1,000."""
    return {(target, memory): solve_game(rules, memory)
            for target, rules in DIX_SMALL.items() for memory in ("exact", "model")}


def sheet_lines(game, player, rules):
    """Each turn start's Line of ``player`` in a scripted game, rebuilt from
    the log (the module docstring's mapping, written again here): the
    previous score is the sheet's entry before the last, or the score after
    a fall since the last bank."""
    from solver.model.states import Line
    sheet, crosses, fallen, lines = [], 0, False, [Line(0, 0, 0)]
    for e in game.events:
        if e["player"] != player:
            continue
        if e["outcome"] == "bank":
            sheet, crosses, fallen = sheet + [e["score"]], 0, False
        elif e["outcome"] == "fall":
            sheet, crosses, fallen = sheet[:-1], 0, True
            lines[-1] = None            # the fall belongs to the turn logged just before
        else:
            crosses += 1
        score = sheet[-1] if sheet else 0
        previous = score if fallen else (sheet[-2] if len(sheet) > 1 else 0)
        lines.append(Line(score, crosses if crosses < rules.crosses else 0, previous))
    return [line for line in lines if line is not None]


@pytest.mark.parametrize("memory", ["exact", "model"])
def test_dix_mille_lines_map_to_table_states(memory, dix_tables):
    """The scripted game of the six-crosses test, at 1,000, B playing the
    table: A banks 600 (1-5-5-5) then 350 (sheet 600, 950), falls back to
    600 (the fallen state, previous = score), then to 0 (the paper sheet).
    B starts at 500 (sheet: 500) and only rolls zero rolls, so B's last
    cross looks ahead to the fall to 0 in the model. Every turn start that B
    asked a table for is (B's line, A's line) as solver.model.states.player_state
    maps them (the model lacks a fallen state at 600: its (600, no memory)
    state stands in)."""
    from solver.model.states import Line, player_state
    rules, solution = DIX_SMALL[1000], dix_tables[(1000, memory)]
    a_dice = [[1, 5, 5, 5, 2], [1, 1, 5, 2, 3, 1, 2]] + [ZERO5] * 6
    dice = []
    for turn in a_dice:
        dice += turn + ZERO5
    machine = _Machine(rules, "threshold:350", "optimal", 0, solution_b=solution,
                       max_turns=2 * len(a_dice), script=dice, start=(0, 500), log_size=64)
    machine.run(1)
    from solver.sim.score_sheet import LEN_A
    from solver.sim.simulate import ScriptedGame
    events = scripted_events(machine.games, rules.unit)
    game = ScriptedGame(None, (0, 0), ([], []), (0, 0), events)
    assert [(e["outcome"], e["score"]) for e in events if e["player"] == "A"] == \
        [("bank", 600), ("bank", 950)] + [("zero", 950)] * 3 + [("fall", 600)] \
        + [("zero", 600)] * 3 + [("fall", 0)]
    assert machine.games.sheets[0, :machine.games.state[LEN_A]].tolist() == []
    a_lines = sheet_lines(game, "A", rules)[1:]          # A's line when B starts a turn
    b_lines = [Line(500, c, 0) for c in (0, 1, 2)] + [Line(0, 0, 0)] * 5
    assert a_lines[1] == Line(950, 0, 600) and a_lines[4] == Line(600, 0, 600)
    cache = machine.seat_cache[1]
    expected = set()
    space = solution.space
    for b, a in zip(b_lines, a_lines):
        m, zero_to = player_state(rules, space, b, "B")
        try:
            w, _ = player_state(rules, space, a, "A")
        except Exception:
            # The model has no fallen state at 600, hence neither a state for
            # A's fallen line nor a look-ahead for A at 950 on their last
            # cross (player_state raises; A's look-ahead is not needed here).
            assert memory == "model" and a.previous == 600
            w = space.find(a.score // 50, None, a.crosses)
        expected.add(cache.key(m, w, -1 if zero_to is None else zero_to))
    hash_keys = machine.index.hash_keys
    assert set(hash_keys[hash_keys >= 0].tolist()) == expected
    if memory == "model":
        # B at 500 on their last cross (A at 950 with one cross): look-ahead to 0.
        assert cache.key(space.find(10, 0, 2), space.find(19, 12, 1), space.find(0)) in expected


@pytest.mark.parametrize("target", DIX_SMALL)
def test_dix_mille_optimal_self_play_matches_the_exact_table(target, dix_tables):
    """The exact-memory table's first-player win probability lies within 4
    standard errors of 200,000 games of optimal self-play, on the paper
    sheet. The paper sheet and docs/rules.md's one-level memory part only in
    games where a fallen player reaches a third cross again before a bank
    (``deep_fall_games``; under the keep rule ``all``, whose forced keeps
    overshoot more often, measured at about 1 game in 21 at 700 and at
    1,000; under the free keep it was 1 in 6,700 and 1 in 1,300): with
    common dice, the two rules give the same winner in every other game."""
    rules, solution = DIX_SMALL[target], dix_tables[(target, "exact")]
    n = 200_000
    paper = simulate(rules, "optimal", "optimal", n, seed=11, solution=solution,
                     common_dice=True, keep_winners=True)
    level = simulate(rules, "optimal", "optimal", n, seed=11, solution=solution,
                     common_dice=True, keep_winners=True, one_level=True)
    for result in (paper, level):
        assert result.unfinished == 0
        assert abs(result.win_rate_a - solution.first_player_win) < 4 * result.stderr
    assert 0 < paper.deep_fall_games == level.deep_fall_games < n / 15
    differ = int(np.sum(paper.winners != level.winners))
    assert differ <= paper.deep_fall_games
    assert abs(paper.wins_a - level.wins_a) <= differ


@pytest.mark.parametrize("target", DIX_SMALL)
def test_dix_mille_model_tables_play_and_beat_threshold(target, dix_tables):
    """The crosses model (with its one-turn look-ahead) plays whole games;
    its self-play is near the exact table's value (within 0.01), and it
    beats threshold:300 over both seatings by more than 3 standard errors."""
    rules, model = DIX_SMALL[target], dix_tables[(target, "model")]
    selfplay = simulate(rules, "optimal", "optimal", 50_000, seed=3, solution=model)
    assert selfplay.unfinished == 0
    assert abs(selfplay.win_rate_a - dix_tables[(target, "exact")].first_player_win) < 0.01
    result = match(rules, "optimal", "threshold:300", 30_000, seed=21, solution=model)
    assert (result.win_mean - 0.5) / result.win_mean_se > 3


def test_dix_mille_model_decisions_agree_with_the_advisor(dix_tables):
    """Under the look-ahead (a player on their last cross, previous score
    known), the optimal policy's bank and take tables give the Advisor's
    best answer for the same Lines wherever its two values differ."""
    from solver.model.states import Line, player_state
    rules, solution = DIX_SMALL[1000], dix_tables[(1000, "model")]
    advisor = Advisor(solution)
    space, unit, D = solution.space, rules.unit, rules.dice
    checked_bank = checked_take = 0
    for me in (Line(750, 2, 350), Line(900, 2, 400), Line(800, 2, 0), Line(600, 1, 0),
               Line(550, 0, 550)):
        for opp in (Line(0), Line(500, 1, 0), Line(900, 0, 350)):
            m, zero_to = player_state(rules, space, me, "me")
            w, _ = player_state(rules, space, opp, "opp")
            assert (zero_to is not None) == (me.crosses == 2)
            _, bank, take, _ = optimal_tables(solution, m, w, zero_to)
            for t in range(1, rules.target_units - me.score // unit):
                for n in range(1, D + 1):
                    values = {c.action: c.win
                              for c in advisor.bank_or_roll(me, opp, t * unit, n).choices}
                    if "bank" in values and abs(values["bank"] - values["roll"]) > 1e-12:
                        assert bank[t, n] == (values["bank"] > values["roll"])
                        checked_bank += 1
            if opp.score >= 350:
                for t in range(1, opp.score // unit + 1):
                    if not np.any(space.bank_next[:, t] == w):
                        continue
                    for n in range(1, D):
                        values = {c.action: c.win for c in
                                  advisor.take_or_fresh(me, opp, t * unit, n).choices}
                        if abs(values["take"] - values["fresh"]) > 1e-12:
                            assert take[t, n] == (values["take"] > values["fresh"])
                            checked_take += 1
    assert checked_bank > 100 and checked_take > 20


def test_a_full_optimal_cache_is_emptied_and_refilled(dix_tables, monkeypatch):
    """Two tables (model for A, exact for B) in a cache of a few dozen
    turn starts: emptied and refilled many times, the games are the same."""
    import solver.sim.simulate
    rules = DIX_SMALL[700]
    model, exact = dix_tables[(700, "model")], dix_tables[(700, "exact")]
    roomy = simulate(rules, "optimal", "optimal", 4_000, seed=5, solution=model,
                     solution_b=exact)
    monkeypatch.setattr(solver.sim.simulate, "OPTIMAL_CACHE_BYTES", 40 * 1300)
    tight = simulate(rules, "optimal", "optimal", 4_000, seed=5, solution=model,
                     solution_b=exact)
    assert tight.optimal_tables > 10 * roomy.optimal_tables
    assert tight.wins_a == roomy.wins_a

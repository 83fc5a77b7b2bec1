"""The fast solver against the deliberately simple one (tests/reference_solver.py).

The reference solver is written from docs/rules.md alone, runs plain value
iteration over every state until the largest change is below 1e-12, and is
compared with ``solver.engine.two_player.solve`` at every turn start of the fast solver
(and every take-over value where the game has take-over) to 1e-9.

dix-mille with crosses (rule 4, exact one-level memory) is solved by the fast
solver on ``solver.model.states.memory_space``; the reference builds its own
score-sheet lines (score, previous score, crosses) from docs/rules.md, keeping the
crosses of a fallen line (previous == score, or score 0) as separate lines,
and is compared at every crosses of those.
"""

from __future__ import annotations

import dataclasses
import itertools
from functools import lru_cache

import numpy as np
import pytest
from reference_solver import after_bank, after_zero_turn, reference_solve

from solver.engine.two_player import solve
from solver.model.rules import get_rules
from solver.model.states import memory_space

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
    "quinze-mille-free-keep-2000": lambda: get_rules("quinze-mille-free-keep", 2000),
    # take-over games, built as data
    "quinze-mille-takeover500-2000": lambda: dataclasses.replace(
        get_rules("quinze-mille"), takeover_min=500).with_target(2000),
    "quinze-mille-free-keep-takeover500-2000": lambda: dataclasses.replace(
        get_rules("quinze-mille-free-keep"), takeover_min=500).with_target(2000),
    "dix-mille-nocross-1000": lambda: dataclasses.replace(
        get_rules("dix-mille"), crosses=0).with_target(1000),
    # a minimum bank on every turn (issue 67), beside the entry
    "cinq-mille-minbank300-1000": lambda: dataclasses.replace(
        get_rules("cinq-mille"), min_bank=300, entry=500).with_target(1000),
    "pig-minbank30-40": lambda: dataclasses.replace(get_rules("pig"), min_bank=30).with_target(40),
    # Crosses that cost points: three zero turns in a row lose 10 (Pig) or
    # 300 (a Farkle), scores down to a floor below zero.
    "pig-penalty10-floor-20-25": lambda: dataclasses.replace(
        get_rules("pig"), crosses=3, fall_penalty=10, floor=-20).with_target(25),
    "farkle-penalty300-floor-300-600": lambda: dataclasses.replace(
        get_rules("farkle-acg2017"), crosses=3, fall_penalty=300, floor=-300).with_target(600),
    # The Farkle presets: combinations over the whole roll, hot dice optional.
    "farkle-cardgames-1000": lambda: get_rules("farkle-cardgames", 1000),
    "farkle-acg2017-1000": lambda: get_rules("farkle-acg2017", 1000),
    # A final round (issue 67): the turn goes on past the target, the other
    # player has one last turn to pass; with an entry and a minimum bank.
    "pig-final-30": lambda: dataclasses.replace(get_rules("pig"), final_round=True,
                                                min_bank=10).with_target(30),
    "farkle-final-entry300-600": lambda: dataclasses.replace(
        get_rules("farkle-cardgames"), final_round=True, entry=300).with_target(600),
    # dix-mille as it is: crosses with the exact previous-score memory
    "dix-mille-700": lambda: get_rules("dix-mille", 700),
    "dix-mille-800": lambda: get_rules("dix-mille", 800),
    "dix-mille-free-keep-700": lambda: get_rules("dix-mille-free-keep", 700),
}
TAKEOVER = [c for c in CASES if CASES[c]().has_takeover]
CROSSES = [c for c in CASES if CASES[c]().crosses and not CASES[c]().fall_penalty]
PENALTY = [c for c in CASES if CASES[c]().fall_penalty]


@lru_cache(maxsize=None)
def fast(case):
    rules = CASES[case]()
    exact = rules.crosses and not rules.fall_penalty
    return solve(rules, space=memory_space(rules) if exact else None)


@lru_cache(maxsize=None)
def reference(case):
    return reference_solve(CASES[case]())


def fallen(sol) -> np.ndarray:
    """Fast-solver states whose crosses cannot matter (merged there): a
    fallen line (previous == score) or score 0."""
    space = sol.space
    return (space.previous == space.score) | (space.score == 0)


def reference_lines(sol, ref, fallen_crosses: int = 0) -> np.ndarray:
    """The reference's line for each state of the fast solver: the same
    (score, previous, crosses), with ``fallen_crosses`` crosses on a fallen
    line; the score alone in a game without crosses."""
    space = sol.space
    if not sol.rules.crosses:
        return np.array([ref.at(int(s)) for s in space.score])
    if sol.rules.fall_penalty:
        floor = sol.rules.floor_units
        return np.array([ref.at(int(s), 0, fallen_crosses if s == floor else int(c))
                         for s, c in zip(space.score, space.crosses)])
    lines = []
    for s, prev, c, down in zip(space.score, space.previous, space.crosses, fallen(sol)):
        if down:
            assert c == 0
            lines.append(ref.at(int(s), int(s), fallen_crosses))
        else:
            lines.append(ref.at(int(s), int(prev), int(c)))
    return np.array(lines)


def line_pairs(sol, ref):
    """(mover lines, waiting lines) for every choice of the crosses on a
    fallen line, mover's and waiting player's chosen apart."""
    crosses = range(max(sol.rules.crosses, 1))
    for cm, cw in itertools.product(crosses, crosses):
        yield reference_lines(sol, ref, cm), reference_lines(sol, ref, cw)


def start_error(sol, ref) -> float:
    worst = 0.0
    for mine, theirs in line_pairs(sol, ref):
        worst = max(worst, float(np.abs(sol.W - ref.W[np.ix_(mine, theirs)]).max()))
    return worst


def takeover_error(sol, ref) -> float:
    """Largest difference of ``take_values`` (every row kept: the turn
    totals from each banked state's first offer, below the target; n in
    1..dice-1) from the reference's roll values R of the taker."""
    dice, target = sol.rules.dice, sol.rules.target_units
    first, rows = sol.space.offers
    t = first[:, None] + np.arange(rows)[None, :]           # [banked state, row]
    kept = t < target
    worst = 0.0
    for mine, theirs in line_pairs(sol, ref):
        banked = np.flatnonzero(sol.space.bank_slot >= 0)
        for m in np.flatnonzero(sol.take_row >= 0):
            fast_values = sol.take_values[sol.take_row[m]][..., :dice - 1]
            ref_R = ref.R[mine[m]][theirs[banked]]
            ref_values = np.take_along_axis(ref_R, np.minimum(t, target - 1)[:, :, None], axis=1)
            worst = max(worst, float(np.abs(fast_values - ref_values[..., 1:dice])[kept].max()))
    return worst


def test_the_takeover_cases_have_takers():
    """The two take-over games built as data really let some player take over."""
    assert TAKEOVER == ["quinze-mille-takeover500-2000",
                        "quinze-mille-free-keep-takeover500-2000", "dix-mille-nocross-1000",
                        "dix-mille-700", "dix-mille-800", "dix-mille-free-keep-700"]
    for case in TAKEOVER:
        assert (fast(case).take_row >= 0).any()


def test_exact_memory_keeps_one_offer_per_banked_state():
    """A state that remembers the previous score is reached by one bank
    only, of its score minus the previous one (rule 4's memory): the
    take-over values keep one turn total per banked state, not one per
    turn total below the target."""
    sol = fast("dix-mille-800")
    first, rows = sol.space.offers
    banked = np.flatnonzero(sol.space.bank_slot >= 0)
    assert rows == 1 and sol.take_values.shape[2] == 1
    assert np.array_equal(first, sol.space.score[banked] - sol.space.previous[banked])


@pytest.mark.parametrize("case", list(CASES))
def test_start_values(case):
    """Expected numbers: the reference solver's W (value iteration to a change
    below 1e-12 over every score-sheet line reached from the start), read at
    the fast solver's turn-start states line by line (a fallen line at each of
    its crosses, mover's and waiting player's apart); agreement to 1e-9."""
    assert start_error(fast(case), reference(case)) <= TOL


@pytest.mark.parametrize("case", TAKEOVER)
def test_takeover_values(case):
    """Expected numbers: the reference solver's roll values R(t, n) of the
    taker (its turn started at the offered t with the n offered dice), for
    every t kept (from each banked state's first offer, below the target)
    and 1 <= n <= dice - 1; agreement to 1e-9."""
    assert takeover_error(fast(case), reference(case)) <= TOL


@pytest.mark.parametrize("case", CROSSES)
def test_same_score_sheet_lines(case):
    """Expected: the reference's lines, built from docs/rules.md rule 4 by
    following banks and zero turns from (0, 0, 0), are the fast solver's
    states once the crosses of a fallen line (or of score 0) are merged; and
    every line's next line after a zero turn and after each bank agrees."""
    sol, ref = fast(case), reference(case)
    ref_merged = {(s, s, 0) if prev == s else (s, prev, c) for s, prev, c in ref.labels}
    space = sol.space
    fast_labels = set(zip(space.score.tolist(), space.previous.tolist(),
                          space.crosses.tolist()))
    assert fast_labels == ref_merged
    assert (space.score[space.previous != space.score] > 0).all()

    def merged(label):
        return None if label is None else (label[0], label[0], 0) if label[0] == label[1] else label

    labels = list(zip(space.score.tolist(), space.previous.tolist(), space.crosses.tolist()))
    for p, label in enumerate(labels):
        assert labels[space.zero_next[p]] == merged(after_zero_turn(sol.rules, label))
        for t in range(1, sol.rules.target_units):
            nxt = merged(after_bank(sol.rules, label, t))
            q = space.bank_next[p, t]
            assert (labels[q] if q >= 0 else None) == nxt, (label, t)


@pytest.mark.parametrize("case", CROSSES)
def test_crosses_of_a_fallen_line_change_nothing(case):
    """Expected: in the reference, a fallen line's value (and its roll values)
    is the same with 0, 1 or 2 crosses, against every line: its third cross
    leaves it where it is."""
    ref = reference(case)
    for (s, prev, c), p in ref.index.items():
        if prev == s and c > 0:
            p0 = ref.at(s, s, 0)
            assert np.abs(ref.W[p] - ref.W[p0]).max() <= 1e-11
            assert np.abs(ref.W[:, p] - ref.W[:, p0]).max() <= 1e-11
            assert np.abs(ref.R[p] - ref.R[p0]).max() <= 1e-11


@pytest.mark.parametrize("case, p", [
    # Free keep: any roll of 5 dice holding a 5 wins (keep one 5).
    ("dix-mille-free-keep-700", 1 - (5 / 6) ** 5),
    # Every scoring die set aside: only a roll whose scoring dice are exactly
    # one 5 wins: one 5 (5 places), no 1, the other four dice from 2 3 4 6
    # with no face three times (256 - 48 - 4 = 204) and not 2 3 4 6 (a
    # straight with the 5: 24), so 5 x 180 of the 6^5 rolls.
    ("dix-mille-700", 5 * 180 / 6 ** 5),
])
def test_reference_by_hand_third_cross_falls_to_previous_score(case, p):
    """Expected numbers by hand (docs/rules.md dix-mille rules 1 and 4). Target
    700 (14 units). A mover at 650 needs exactly 50 points: a roll of 5 dice
    that allows it wins, with probability p; every other roll is a zero turn
    (no keep, or a keep past 700), and no bank is possible before a keep.
    So W[mover, q] = p + (1 - p) (1 - W[q, mover after a zero turn]),
    where after the zero turn (650, prev, c) becomes (650, prev, c + 1), and at
    the third cross (prev, prev, 0): the previous score, crosses erased."""
    ref = reference(case)
    waiting = ref.at(9, 0, 1)              # 450, entered from 0, one cross
    cases = [((13, 7, 0), (13, 7, 1)), ((13, 7, 1), (13, 7, 2)),
             ((13, 7, 2), (7, 7, 0)), ((13, 12, 2), (12, 12, 0)),
             ((13, 0, 2), (0, 0, 0))]
    for mover, after_zero in cases:
        expected = p + (1 - p) * (1 - ref.W[waiting, ref.at(*after_zero)])
        assert ref.W[ref.at(*mover), waiting] == pytest.approx(expected, abs=1e-11)


def test_reference_by_hand_fifty_short_in_an_exact_game():
    """Expected number by hand (docs/rules.md: any legal keep may be chosen; a keep
    past an exact target is a zero turn; five 1s win cinq-mille at once).
    cinq-mille-exact to 1,500, mover at 1,450 (29 units), opponent at 1,300:
    the mover wins on this roll with a single 5 (any roll holding a 5) or five
    1s, p = 1 - (5/6)^5 + (1/6)^5; anything else is a zero turn, so
    W[29, 26] = p + (1 - p) (1 - W[26, 29])."""
    ref = reference("cinq-mille-exact-1500")
    p = 1 - (5 / 6) ** 5 + (1 / 6) ** 5
    mover, waiting = ref.at(29), ref.at(26)
    assert ref.W[mover, waiting] == pytest.approx(
        p + (1 - p) * (1 - ref.W[waiting, mover]), abs=1e-11)


def test_reference_pig_100_published_value():
    """Expected number: Neller and Presser, "Optimal Play of the Dice Game
    Pig" (2004): the first player wins Pig to 100 with probability 0.5305927
    under optimal play. Skipped if the reference solver needs over 30 s."""
    ref = reference_solve(get_rules("pig"))
    if ref.seconds > 30:
        pytest.skip(f"reference solver took {ref.seconds:.0f} s for pig to 100")
    assert ref.first_player_win == pytest.approx(0.5305927, abs=1e-6)


def test_a_minimum_bank_changes_the_game():
    """The minimum-bank cases are not the game without it in disguise: the
    reference's start value moves when ``min_bank`` is dropped, and no
    score a bank below it would make is reached (in Pig to 40 with a
    minimum bank of 30, no line scores 1 to 29). (In Pig to 30 the
    minimums 5 to 28 all leave the value as it is.)"""
    for case in ("cinq-mille-minbank300-1000", "pig-minbank30-40"):
        rules = CASES[case]()
        free = reference_solve(dataclasses.replace(rules, min_bank=0))
        assert abs(reference(case).first_player_win - free.first_player_win) > 1e-4
    scores = {label[0] for label in reference("pig-minbank30-40").labels}
    assert not scores & set(range(1, 30))


@pytest.mark.parametrize("case", PENALTY)
def test_crosses_at_the_floor_change_nothing(case):
    """The reference keeps a line at the floor apart for each number of
    crosses; a penalty takes nothing there, so their values agree (the fast
    solver keeps one line: tests above compare it with each)."""
    ref = reference(case)
    floor = ref.rules.floor_units
    lines = [ref.at(floor, 0, c) for c in range(ref.rules.crosses)]
    assert len(lines) == ref.rules.crosses
    for line in lines[1:]:
        assert np.abs(ref.W[line] - ref.W[lines[0]]).max() <= 1e-11
        assert np.abs(ref.W[:, line] - ref.W[:, lines[0]]).max() <= 1e-11

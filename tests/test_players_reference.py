"""The N-player solver against the N-player reference solver.

``tests/reference_solver_n.py`` is plain value iteration over every tuple of
score-sheet lines, written from docs/rules.md with none of the fast solver's
structure (no levels, no blocks, no policy iteration, no equilibrium
selection). Where its sweeps converge the equilibrium it finds is pure, and
the fast solver must give the same vector at every turn start and every
take-over value, to 1e-9. Where best responses cycle (3-player cinq-mille
to 1,500) value iteration does not converge; there the turn starts it
settles (those no cycle reaches) must still agree; and given the fast
solver's mixed decisions, the reference converges, each mixing player is
indifferent in its values, and the two agree everywhere."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from reference_solver import roll_arrays, sheet_lines
from reference_solver_n import Mixed, numba_threads, reference_solve_n

from solver.engine.n_player import solve_players
from solver.model.dice import keep_table
from solver.model.rules import get_rules
from solver.model.states import player_space


def take_over_from_500(name, target):
    return dataclasses.replace(get_rules(name), takeover_min=500).with_target(target)


CASES = {
    # 3 players, every game: take-over (from 500, the entry) and crosses in play.
    ("pig", 3): lambda: get_rules("pig", 20),
    ("cinq-mille", 3): lambda: get_rules("cinq-mille", 1000),
    ("cinq-mille-exact", 3): lambda: get_rules("cinq-mille-exact", 1000),
    ("cinq-mille-last1000", 3): lambda: get_rules("cinq-mille-last1000", 1500),
    ("quinze-mille", 3): lambda: take_over_from_500("quinze-mille", 800),
    ("quinze-mille-free-keep", 3): lambda: take_over_from_500("quinze-mille-free-keep", 800),
    ("dix-mille", 3): lambda: get_rules("dix-mille", 450),
    # A penalty (issue 67): scores below 0, down to the floor.
    ("farkle-penalty", 3): lambda: dataclasses.replace(
        get_rules("farkle-acg2017"), crosses=3, fall_penalty=100, floor=-100).with_target(200),
    # A final round (issue 67): every other player's last turn, in seat order
    # (few dice, so that the reference's last turns stay small).
    ("farkle-final", 3): lambda: dataclasses.replace(
        get_rules("farkle-acg2017"), final_round=True, dice=3, entry=150).with_target(300),
    ("farkle-final", 4): lambda: dataclasses.replace(
        get_rules("farkle-acg2017"), final_round=True, dice=2).with_target(250),
    # 4 players.
    ("pig", 4): lambda: get_rules("pig", 12),
    ("cinq-mille", 4): lambda: get_rules("cinq-mille", 900),
}


def fast_state(space, label):
    """The fast solver's player state of a reference label (s, prev, c)."""
    s, prev, c = label
    if space.memory == "penalty" and s == space.score.min():
        c = 0           # at the floor the reference keeps crosses that cannot matter
    return space.find(s, prev if space.memory == "exact" else None, c)


def compare(rules, players, settled_only=False):
    space = player_space(rules, "exact")
    fast = solve_players(rules, players, space=space)
    with numba_threads(1):
        # Where value iteration cycles, 200 sweeps show which turn starts
        # settle (they stay still over the last 100).
        ref = reference_solve_n(rules, players, max_sweeps=200 if settled_only else 1_000)
    assert settled_only or ref.converged
    state_of = [fast_state(space, label) for label in ref.labels]
    worst_value = worst_take = 0.0
    compared = 0
    for index in itertools.product(range(len(ref.labels)), repeat=players):
        if not ref.settled[index]:
            continue
        node = fast.node_of([state_of[i] for i in index])
        worst_value = max(worst_value, float(np.max(np.abs(ref.W[index] - fast.V[node]))))
        compared += 1
        row = fast.take_index(node)
        if row >= 0:
            banker = ref.labels[index[-1]][0]
            for t in range(1, banker + 1):
                for n in range(1, rules.dice):
                    worst_take = max(worst_take, float(np.max(np.abs(
                        ref.R[index + (t, n)] - fast.take_values[row, t, n - 1]))))
    return fast, ref, worst_value, worst_take, compared


@pytest.mark.parametrize("case", list(CASES), ids=[f"{g}-{n}p" for g, n in CASES])
def test_fast_equals_reference_where_the_equilibrium_is_pure(case):
    rules = CASES[case]()
    fast, ref, worst_value, worst_take, compared = compare(rules, case[1])
    assert not fast.mixed, "a pure case: no block needed mixing"
    assert compared == len(ref.labels) ** case[1]
    assert worst_value < 1e-9 and worst_take < 1e-9


def test_take_over_is_in_play_in_the_three_player_cases():
    """The quinze-mille case tests take-over only if some offer a bank can
    make is worth taking: count them (the player who may take over, over a
    fresh turn, by their own chance)."""
    fast = solve_players(CASES["quinze-mille", 3](), 3)
    space = fast.space
    worth = 0
    for node in range(len(fast.V)):
        row = fast.take_index(node)
        if row < 0:
            continue
        banker = int(space.score[fast.states_of(node)[-1]])
        offers = fast.take_values[row, 1:banker + 1, :, 0]
        worth += int(np.sum(offers > fast.V[node, 0]))
    assert worth > 0


def test_where_best_responses_cycle_the_settled_turn_starts_agree():
    """3-player cinq-mille to 1,500: value iteration cycles (no pure
    equilibrium at one score tuple); every turn start it settles agrees with
    the fast solver, and those are most of them."""
    fast, ref, worst_value, worst_take, compared = compare(get_rules("cinq-mille", 1500), 3,
                                                           settled_only=True)
    assert not ref.converged and fast.mixed
    assert compared > 0.5 * len(ref.labels) ** 3
    assert worst_value < 1e-9 and worst_take < 1e-9


def reference_mixed(fast, labels, arrays) -> Mixed:
    """The fast solver's mixed decisions in the reference's indices: turn
    starts by label, banks by dice left unset, keeps by the roll whose keeps
    are the class's and by their (points, dice left)."""
    rules, space = fast.rules, fast.space
    D, T, P = rules.dice, rules.target_units, len(labels)
    ref_index = {fast_state(space, label): i for i, label in enumerate(labels)}
    ref_first, _, ref_keep_first, pts, used, win = arrays
    dice = keep_table(rules).packed()

    def left(units, col):       # a keep as (units, dice left; -1 for a win)
        return (units, -1 if col == 0 else col if col < D else 0)
    banks, keeps = {}, {}
    for node, entries in fast.mixed.items():
        state = 0
        for p in fast.states_of(node):
            state = state * P + ref_index[p]
        for kind, t, *rest in entries:
            if kind == "bank":
                n, q = rest
                banks[(state * T + t) * D + (n if n < D else 0)] = q
                continue
            r, main, alt, q = rest
            n = int(np.searchsorted(dice.roll_first, r, side="right")) - 1
            wanted = {left(dice.keep_units[k], dice.keep_col[k])
                      for k in range(dice.keep_first[r], dice.keep_first[r + 1])}
            for ref_roll in range(ref_first[n], ref_first[n + 1]):
                ks = range(ref_keep_first[ref_roll], ref_keep_first[ref_roll + 1])
                own = {(pts[k], -1 if win[k] else n - used[k]) for k in ks}
                if own == wanted:
                    break
            else:
                raise AssertionError(f"no reference roll for class {r}")
            find = {(pts[k], -1 if win[k] else n - used[k]): k for k in ks}
            keeps[(state * T + t) * len(arrays[1]) + ref_roll] = (
                find[left(dice.keep_units[main], dice.keep_col[main])],
                find[left(dice.keep_units[alt], dice.keep_col[alt])], q)
    bank_keys, keep_keys = sorted(banks), sorted(keeps)
    return Mixed(np.array(bank_keys, np.int64), np.array([banks[k] for k in bank_keys]),
                 np.array(keep_keys, np.int64),
                 *(np.array([keeps[k][i] for k in keep_keys], np.int64) for i in (0, 1)),
                 np.array([keeps[k][2] for k in keep_keys]))


def test_where_best_responses_cycle_the_reference_meets_the_same_equilibrium():
    """docs/rules.md's "Cycles and equilibria", checked independently: at
    3-player cinq-mille to 1,500 the fast solver mixes a bank and a keep.
    Given those probabilities and nothing else, the reference plays best
    responses everywhere else; its value iteration must now converge, each
    mixing player must be indifferent between the two choices in the
    reference's own values (1e-10), and the two solvers must agree at every
    turn start to 1e-11 (the issue asks 1e-6; measured 1.3e-13; moving the
    keep's probability by 0.1% moves values by about 1.5e-9)."""
    rules = get_rules("cinq-mille", 1500)
    space = player_space(rules, "exact")
    fast = solve_players(rules, 3, space=space)
    labels, _, bank_next, _ = sheet_lines(rules)
    arrays = roll_arrays(rules)
    mixed = reference_mixed(fast, labels, arrays)
    assert len(mixed.bank_key) and len(mixed.keep_key)
    with numba_threads(1):
        ref = reference_solve_n(rules, 3, mixed=mixed)
    assert ref.converged
    P, T, D = len(labels), rules.target_units, rules.dice
    state_of = [fast_state(space, label) for label in labels]
    worst = max(float(np.max(np.abs(ref.W[index] - fast.V[fast.node_of(
        [state_of[i] for i in index])]))) for index in itertools.product(range(P), repeat=3))
    assert worst < 1e-11

    def indices(state):
        return (state // P ** 2, state // P % P, state % P)

    def after(index, t, u):
        """The mover's chance just after a keep to turn total t with u dice
        unset (u = 0: hot dice), from the reference's values."""
        if labels[index[0]][0] + t >= T:
            return 1.0
        roll = ref.R[index + (t, u or D)][0]
        x = bank_next[index[0], t]
        if t > 0 and x >= 0:
            return max(roll, ref.W[index[1:] + (x,)][-1])
        return roll
    for key, q in zip(mixed.bank_key, mixed.bank_q):
        state, rest = divmod(int(key), T * D)
        t, u = divmod(rest, D)
        index = indices(state)
        bank = ref.W[index[1:] + (bank_next[index[0], t],)][-1]
        assert 0 < q < 1 and abs(bank - ref.R[index + (t, u or D)][0]) < 1e-10
    _, _, _, pts, used, win = arrays
    for key, main, alt, q in zip(mixed.keep_key, mixed.keep_main, mixed.keep_alt,
                                 mixed.keep_q):
        state, rest = divmod(int(key), T * len(arrays[1]))
        t, r = divmod(rest, len(arrays[1]))
        n = int(np.searchsorted(arrays[0], r, side="right")) - 1
        index = indices(state)
        main_value, alt_value = (1.0 if win[k] else after(index, t + pts[k], n - used[k])
                                 for k in (main, alt))
        assert 0 < q < 1 and abs(main_value - alt_value) < 1e-10

"""The N-player solver against the N-player reference solver.

``tests/reference_solver_n.py`` is plain value iteration over every tuple of
score-sheet lines, written from RULES.md with none of the fast solver's
structure (no levels, no blocks, no policy iteration, no equilibrium
selection). Where its sweeps converge the equilibrium it finds is pure, and
the fast solver must give the same vector at every turn start and every
take-over value, to 1e-9. Where best responses cycle (3-player cinq-mille
to 1,500) value iteration does not converge; there the turn starts it
settles (those no cycle reaches) must still agree, and the cycling ones are
checked for the equilibrium conditions in ``tests/test_players.py``."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from solver.multiplayer import solve_players
from solver.rules import get_rules
from solver.states import player_space

from reference_solver_n import numba_threads, reference_solve_n


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
    # 4 players.
    ("pig", 4): lambda: get_rules("pig", 12),
    ("cinq-mille", 4): lambda: get_rules("cinq-mille", 900),
}


def fast_state(space, label):
    """The fast solver's player state of a reference label (s, prev, c)."""
    s, prev, c = label
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

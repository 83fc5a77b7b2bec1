"""The fast solver: Pig's published optimum, Bellman residuals of stored
tables, and table files that are either complete or absent."""

from pathlib import Path

import h5py
import numpy as np
import pytest

from solver.engine.solution import bellman_residual, replay
from solver.engine.two_player import solve
from solver.model.rules import get_rules
from solver.tables.files import read_table, write_table

REPO_TABLES = Path(__file__).resolve().parent.parent / "tables"


def test_pig_first_player_wins_0_5305927():
    """Neller and Presser, "Optimal Play of the Dice Game Pig" (2004): 0.5305927."""
    solution = solve(get_rules("pig"))
    assert solution.first_player_win == pytest.approx(0.5305927, abs=1e-6)


def test_committed_cinq_mille_table_has_a_small_bellman_residual():
    """Replay the turn DP (numpy engine, independent of the compiled kernel
    that made the table) at 300 random turn starts of the committed table."""
    table = read_table(REPO_TABLES / "cinq-mille.h5", expect=get_rules("cinq-mille"))
    assert bellman_residual(table, samples=300, seed=1) < 1e-9


def test_take_over_table_has_a_small_bellman_residual(tmp_path):
    """A take-over game (quinze-mille with take-over from 500, to 2,000):
    stored start values and take-over values both replay to within 1e-9,
    with the take-over values read lazily from the file."""
    import dataclasses
    rules = dataclasses.replace(get_rules("quinze-mille"), takeover_min=500).with_target(2000)
    solution = solve(rules)
    path = tmp_path / "q.h5"
    write_table(solution, path, 1e-12, 0.0)
    table = read_table(path, expect=rules, lazy_take=True)
    assert not isinstance(table.take_values, np.ndarray)
    assert bellman_residual(table, samples=200, seed=2) < 1e-9
    # Take-over matters: at 1,000 against 1,500, taking over 800 with 5
    # dice beats a fresh turn, and taking over 50 with 1 die does not.
    m = table.space.index_of_score(20)
    w = table.space.index_of_score(30)
    _, R, _, _ = replay(table, m, w)
    assert R[16, 5] > table.W[m, w] > R[1, 1]


def test_compiled_and_numpy_turn_engines_agree():
    rules = get_rules("cinq-mille-exact", 2000)
    solution = solve(rules)
    rng = np.random.default_rng(0)
    for m, w in rng.integers(solution.space.size, size=(30, 2)):
        _, R1, A1, B1 = replay(solution, m, w, compiled=False)
        _, R2, A2, B2 = replay(solution, m, w, compiled=True)
        assert np.max(np.abs(R1 - R2)) < 1e-13 and np.max(np.abs(A1 - A2)) < 1e-13


def test_interrupted_write_leaves_no_table(tmp_path, monkeypatch):
    solution = solve(get_rules("pig", 20))
    path = tmp_path / "pig-20.h5"

    def fail(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(h5py.Group, "create_dataset", fail)
    with pytest.raises(KeyboardInterrupt):
        write_table(solution, path, 1e-12, 0.0)
    assert list(tmp_path.iterdir()) == []


def test_symmetry_and_bounds():
    """Every value is a probability, and at equal scores the mover's value
    is above the waiting player's (moving first is worth something here)."""
    solution = solve(get_rules("cinq-mille", 2000))
    assert np.all((solution.W >= 0) & (solution.W <= 1))
    assert solution.first_player_win > 0.5


def test_newton_start_is_exact_on_a_quadratic():
    """``guess_level``'s five-point start (the plane through three solved
    neighbours, corrected by the mixed second difference) reproduces any
    quadratic in the two scores exactly, by Taylor's theorem; the plane
    alone misses the ``m * w`` term by one. Pig's scores are one unit apart,
    so ``up`` is one score up everywhere."""
    from solver.engine.two_player import guess_level
    from solver.model.states import player_space
    space = player_space(get_rules("pig"))
    s = space.score.astype(float)
    quadratic = (0.3 + 0.01 * s[:, None] - 0.02 * s[None, :] + 1e-4 * s[:, None] ** 2
                 - 3e-4 * s[:, None] * s[None, :] + 2e-4 * s[None, :] ** 2)
    # As the solver does: a level at a time from the top, each guess read
    # from the guesses above it (the two top scores keep the true values).
    m, w = np.meshgrid(np.arange(space.size - 2), np.arange(space.size - 2), indexing="ij")
    m, w = m.ravel(), w.ravel()
    W = quadratic.copy()
    W[m, w] = 0.5
    level = s[m] + s[w]
    for value in np.unique(level)[::-1]:
        guess_level(W, space.up, m[level == value], w[level == value])
    assert np.max(np.abs(W - quadratic)) < 1e-12
    # Where a neighbour two scores up is missing, the plane is used: it
    # misses the mixed term -3e-4 * (1 * 1).
    top = np.array([space.size - 2]), np.array([0])
    W[top] = 0.5
    guess_level(W, space.up, *top)
    assert W[top] == pytest.approx(quadratic[top] + 3e-4, abs=1e-12)

"""When sweeps have converged: the distance to the fixed point, bounded from
the changes of the last sweeps.

A sweep that maps the values ``x`` to ``G(x)`` with ``|G(x) - G(y)| <= q |x
- y|`` (a contraction with factor ``q < 1``) leaves its result within

    |x_k - x*| <= |x_k - x_{k-1}| q / (1 - q)

of the fixed point ``x*``. ``q`` is not known; the ratios of successive
changes estimate it. The two-player solver, the N-player solver and the
evaluation of a fixed policy (:mod:`solver.cards.seat_value`) all stop on
:func:`error_bound`.
"""

from __future__ import annotations

import numpy as np


def _last_ratios(changes: list[float]) -> list[float]:
    """The ratios of the last three successive changes (of those after a
    nonzero one)."""
    return [b / a for a, b in zip(changes[-4:-1], changes[-3:]) if a > 0]


def error_bound(changes: list[float]) -> float:
    """Distance to the fixed point after sweeps whose largest changes were
    ``changes``: for a contraction with factor ``q``, at most ``change * q /
    (1 - q)``; ``q`` is taken as the largest ratio of the last three
    successive changes (and the bound is the change itself until there are
    enough of them, or where ``q`` is not clearly below 1)."""
    if len(changes) < 4:
        return changes[-1] if changes else np.inf
    q = max(_last_ratios(changes))
    if q >= 0.5:
        return changes[-1]
    return changes[-1] * q / (1.0 - q)


def settled_ratio(changes: list[float], spread: float = 0.05) -> float | None:
    """The ratio of successive changes when it has settled (the last three
    within ``spread`` of each other, and below 0.9): the factor by which a
    linear iteration dominated by one direction shrinks its error; else None."""
    if len(changes) < 4 or min(changes[-4:]) <= 0.0:
        return None
    ratios = _last_ratios(changes)
    if max(ratios) >= 0.9 or max(ratios) - min(ratios) > spread * max(ratios):
        return None
    return ratios[-1]


FIRST_GUESS_SWEEPS = 12
"""Sweeps a solve with falls is taken to need before two sweeps have shown
how fast it converges (dix-mille's model at 10,000 needs about that many)."""


def sweeps_expected(changes: list[float], tol: float, max_sweeps: int) -> int:
    """How many sweeps a solve with falls will have run when it stops, as
    far as the changes so far tell: with the last ratio ``q`` of successive
    changes, the error bound ``change * q^k / (1 - q)`` falls below ``tol``
    after ``k`` more sweeps. Before two changes, :data:`FIRST_GUESS_SWEEPS`.
    Only a progress bar reads it."""
    done = len(changes)
    if done < 2 or changes[-2] <= 0 or changes[-1] <= 0:
        return min(max(FIRST_GUESS_SWEEPS, done + 1), max_sweeps)
    q = min(max(changes[-1] / changes[-2], 0.05), 0.95)
    more = np.log(tol * (1 - q) / changes[-1]) / np.log(q)
    return int(min(max(done + 1, done + np.ceil(more)), max_sweeps))


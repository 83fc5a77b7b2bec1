"""One player alone, playing a turn for the most points it can expect
(Busche's E(S, N); issue 67's ``--objective points``).

No opponent and no target: the player has entered, holds ``t`` points set
aside (units) and ``n`` dice about to be rolled or banked, and values a
turn by the points it banks (0 after a zero roll):

    E(t, n) = max(t  where the bank is allowed, R(t, n))
    R(t, n) = sum over the roll classes c of n dice  P(c) *
              (0 if c has no keep, else max over its keeps k of E(t + points_k, col_k))

with ``col_k`` the dice left (all ``D`` after hot dice) and ``E(t', 0) =
t'`` for an instant-win keep: a roll that wins at once is taken as the win
(its other keeps are not offered, as in every table), which ends a turn
played alone with its turn total banked. A bank
is allowed at ``t > 0``, ``t >= min_bank`` and not with every die in hand
when hot dice must be rolled (the turn rules' ``may_bank`` without a score
or a target). A keep only adds points, so ``E`` is computed from a cap
down: at the cap the turn is banked, and the solve checks that banking was
already best for every dice count well below it. ``E(0, D)`` is the
expected points of a turn played for them.

The other objective of a player alone, the fewest turns from 0 to the
target (``--objective turns``), is :mod:`solver.engine.solo_turns`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.model.dice import keep_table
from solver.model.rules import Rules


@dataclass(frozen=True)
class PointsPolicy:
    """The turn played for points: ``value[t, n]`` (points) and ``bank[t,
    n]`` (True: bank with ``t`` units set aside and ``n`` dice in hand),
    ``t`` in units up to ``cap``."""
    rules: Rules
    value: np.ndarray
    bank: np.ndarray

    @property
    def points_per_turn(self) -> float:
        return float(self.value[0, self.rules.dice])

    def bank_from(self, dice: int) -> int | None:
        """The smallest turn total (points) from which the turn is banked
        with ``dice`` in hand, whatever lies above it; None if never."""
        rolls = np.flatnonzero(~self.bank[:, dice])
        first = 0 if len(rolls) == 0 else int(rolls[-1]) + 1
        return None if first >= len(self.bank) else first * self.rules.unit


def points_policy(rules: Rules, cap_points: int | None = None) -> PointsPolicy:
    """The turn that maximises the expected points banked (module
    docstring); ``cap_points`` defaults to 20 turns' worth of the largest
    keep on every die."""
    table = keep_table(rules).packed()
    dice, unit = rules.dice, rules.unit
    largest = int(table.keep_units.max()) if len(table.keep_units) else 1
    cap = (cap_points // unit) if cap_points else 20 * largest * dice
    value = np.zeros((cap + largest + 1, dice + 1))
    totals = np.arange(len(value), dtype=float)
    value[:, 0] = totals                      # an instant win ends the turn
    value[cap:, 1:] = totals[cap:, None]      # at the cap the turn is banked
    bank = np.ones((cap + 1, dice + 1), dtype=bool)
    may_bank = (np.arange(cap + 1)[:, None] > 0) & \
        (np.arange(cap + 1)[:, None] >= rules.min_bank_units) & \
        ~((np.arange(dice + 1)[None, :] == dice) & rules.hot_dice_forced)
    classes = [(table.roll_first[n], table.roll_first[n + 1]) for n in range(1, dice + 1)]
    for t in range(cap - 1, -1, -1):
        for n, (first, last) in enumerate(classes, start=1):
            k0, k1 = table.keep_first[first], table.keep_first[last]
            after = value[t + table.keep_units[k0:k1], table.keep_col[k0:k1]]
            starts = table.keep_first[first:last] - k0
            has_keep = np.diff(table.keep_first[first:last + 1]) > 0
            best = np.zeros(last - first)
            best[has_keep] = np.maximum.reduceat(after, starts[has_keep])
            roll = float(table.prob[first:last] @ best)
            banks = may_bank[t, n] and t >= roll
            bank[t, n] = banks
            value[t, n] = t if banks else roll
    bank[cap] = may_bank[cap]                 # at the cap: bank where allowed
    below = max(cap - largest, 0)         # one keep below the cap
    if not (bank | ~may_bank)[below:cap, 1:].all():
        raise ValueError(f"the cap of {cap * unit} points is too low for {rules.name}: "
                         f"some turn totals near it still roll")
    return PointsPolicy(rules, value[:cap + 1] * unit, bank)

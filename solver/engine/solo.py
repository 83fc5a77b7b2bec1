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

With a penalty (``fall_penalty`` P after ``crosses`` K zero turns in a
row) one turn no longer stands alone: a zero turn costs the next ones. The
objective is then Busche's for Zilch, the long-run average of the points a
turn banks, penalties charged, with a turn policy for each number ``c`` of
zero turns in a row before it. With ``g`` the average and ``h(c)`` the
relative values (``h(0) = 0``):

    g + h(c) = E_c(0, D),   E_c as E above with a bank worth t + h(0) and a
               zero roll worth Z_c = h(c + 1)     (c + 1 < K)
                                  = h(0) - P      (c + 1 = K)

solved by relative value iteration: ``g = E_0(0, D)``, ``h(c) = E_c(0, D) -
g``, repeated until ``h`` moves by less than 1e-12 points (a few dozen
rounds: only ``K`` numbers move). ``points_per_turn`` is then ``g``.

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
    ``t`` in units up to ``cap``; with a penalty, those of a turn after no
    zero turn, and ``average`` the long-run points a turn (module
    docstring; None without a penalty)."""
    rules: Rules
    value: np.ndarray
    bank: np.ndarray
    average: float | None = None
    by_crosses: tuple = ()
    """With a penalty, ``(value, bank)`` for each number of zero turns in a
    row before the turn."""

    @property
    def points_per_turn(self) -> float:
        if self.average is not None:
            return self.average
        return float(self.value[0, self.rules.dice])

    def bank_from(self, dice: int, crosses: int = 0) -> int | None:
        """The smallest turn total (points) from which the turn is banked
        with ``dice`` in hand, whatever lies above it; None if never."""
        bank = self.by_crosses[crosses][1] if self.by_crosses else self.bank
        below_cap = bank[:-1, dice]                # the cap's row banks by decree
        rolls = np.flatnonzero(~below_cap)
        first = 0 if len(rolls) == 0 else int(rolls[-1]) + 1
        return None if first >= len(below_cap) else first * self.rules.unit


def points_policy(rules: Rules, cap_points: int | None = None) -> PointsPolicy:
    """The turn that maximises the expected points banked, or with a
    penalty their long-run average (module docstring); ``cap_points``: the
    turn total at which a turn is banked (by default the smaller of 20
    turns' worth of the largest keep and 40,000 points)."""
    table = keep_table(rules).packed()
    largest = int(table.keep_units.max()) if len(table.keep_units) else 1
    # Twenty turns' worth of the largest keep, but no more than 40,000
    # points (Zilch's six 1s would make it 960,000).
    cap = (cap_points // rules.unit) if cap_points else \
        min(20 * largest * rules.dice, 40_000 // rules.unit)
    if not rules.fall_penalty:
        value, bank = _turn_for_points(rules, table, cap, 0.0)
        return PointsPolicy(rules, value * rules.unit, bank)
    K, penalty = rules.crosses, rules.fall_penalty_units
    relative = np.zeros(K)                     # h(c), units; h(0) = 0
    for _ in range(100):
        zero = [relative[c + 1] if c + 1 < K else relative[0] - penalty for c in range(K)]
        turns = [_turn_for_points(rules, table, cap, zero[c], zero_share=True)
                 for c in range(K)]
        # Each turn is affine in its zero value under the policy just
        # chosen: E_c = r_c + s_c Z_c, s_c its chance of a zero turn. Those
        # policies' g and h solve a linear system exactly (policy iteration).
        start = np.array([value[0, rules.dice] for value, _, _ in turns])
        share = np.array([shares[0, rules.dice] for _, _, shares in turns])
        points = start - share * np.array(zero)
        system, right = np.zeros((K, K)), points.copy()    # unknowns g, h(1)..h(K-1)
        for c in range(K):
            system[c, 0] = 1.0
            if c > 0:
                system[c, c] += 1.0
            if c + 1 < K:
                system[c, c + 1] -= share[c]
            else:
                right[c] -= share[c] * penalty
        solved = np.linalg.solve(system, right)
        average, moved = solved[0], np.concatenate(([0.0], solved[1:]))
        if np.max(np.abs(moved - relative)) * rules.unit < 1e-12:
            break
        relative = moved
    else:
        raise ValueError(f"{rules.name}: the average points a turn did not settle")
    return PointsPolicy(rules, turns[0][0] * rules.unit, turns[0][1],
                        float(average) * rules.unit,
                        tuple((value * rules.unit, bank) for value, bank, _ in turns))


def _turn_for_points(rules: Rules, table, cap: int, zero_value: float,
                     zero_share: bool = False):
    """``(E, bank)`` of the module docstring in units, a zero roll worth
    ``zero_value`` (0 without a penalty); with ``zero_share`` also each
    state's chance of ending in a zero roll under the policy chosen."""
    dice = rules.dice
    largest = int(table.keep_units.max()) if len(table.keep_units) else 1
    value = np.zeros((cap + largest + 1, dice + 1))
    share = np.zeros_like(value)               # 0 wherever the turn is banked
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
            best = np.full(last - first, float(zero_value))
            best[has_keep] = np.maximum.reduceat(after, starts[has_keep])
            roll = float(table.prob[first:last] @ best)
            banks = may_bank[t, n] and t >= roll
            bank[t, n] = banks
            value[t, n] = t if banks else roll
            if zero_share and not banks:
                # The share where a best keep leads (the largest among equals).
                lengths = np.diff(table.keep_first[first:last + 1])[has_keep]
                best_of_keep = np.repeat(best[has_keep], lengths)
                ahead = share[t + table.keep_units[k0:k1], table.keep_col[k0:k1]]
                chosen = np.ones(last - first)        # a zero roll: a zero turn
                chosen[has_keep] = np.maximum.reduceat(
                    np.where(after == best_of_keep, ahead, -1.0), starts[has_keep])
                share[t, n] = float(table.prob[first:last] @ chosen)
    bank[cap] = may_bank[cap]                 # at the cap: bank where allowed
    below = max(cap - largest, 0)             # one keep below the cap
    # Dice that cannot roll a zero (Zilch's six, with its bonus) roll on at
    # any total; the cap only ends turns that reach it.
    risky = [True] + [bool(np.any(np.diff(table.keep_first[first:last + 1]) == 0))
                      for first, last in classes]
    if not (bank | ~may_bank)[below:cap][:, risky][:, 1:].all():
        raise ValueError(f"the cap of {cap * rules.unit} points is too low for {rules.name}: "
                         f"some turn totals near it still roll")
    if zero_share:
        return value[:cap + 1], bank, share[:cap + 1]
    return value[:cap + 1], bank

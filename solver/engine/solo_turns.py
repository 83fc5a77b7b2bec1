"""One player alone, playing to reach the target in the fewest turns
(issue 67's ``--objective turns``).

The player starts from a banked score of 0 and plays every turn by the
game's own rules (the entry, ``min_bank``, an exact target where a keep
past it is a zero turn, hot dice forced or not, an instant win, a score
capped at ``target - last_turn_points``), minimising the expected number
of turns until the target is reached. There is no opponent: take-over,
which needs one, is ignored. Games with crosses are refused: a fall sends
the player back to the score before the last bank, so a score's value
would depend on where the player came from (module's end, "Crosses").

Equations (all quantities in units; :mod:`solver.model.turn_rules` says
what a keep, a bank and a zero turn do, with ``r`` its record, ``D`` the
dice and ``S`` the target). ``T(s)`` is the expected number of turns from
a banked score ``s`` at the start of a turn, ``T(S) = 0``. A turn from
``s`` under a turn policy ``pi`` ends at a banked score ``s' >= s`` with
probability ``P_pi(s' | s)`` (``s' = s``: a zero turn, or a bank that a
capped score leaves where it was; ``s' = S``: the target reached), so

    T(s) = 1 + min over turn policies pi of  sum_{s'} P_pi(s' | s) T(s')

with ``T(s)`` itself on the right through the zero turn. Write ``x`` for
that zero-turn value; inside the turn, with ``t`` the turn total and ``n``
the dice about to be rolled (or banked),

    V(t, n)   = min(T(banked_score(s, t)),  R(t, n))   if may_bank(r, s, t, n)
              = R(t, n)                                 otherwise
    R(t, n)   = sum over the roll classes c of n dice  P(c) *
                (x if c has no keep, else min over its keeps k of K(t + points_k, k))
    K(t', k)  = 0                      an instant win, or keep_result WIN
              = x                      keep_result OVERSHOOT (a zero turn)
              = V(t', dice_left(r, n, used_k))   otherwise (CONTINUE)
    F_s(x)    = 1 + R(0, D)             (a turn starts by rolling every die)

with ``T(banked_score(s, t)) = x`` where the bank leaves the score at ``s``.
Every keep scores, so ``V`` is one pass over ``t`` from the top down, and
``T(s) = F_s(T(s))``. Scores are solved from the top down (a turn never
lowers the score), each as the fixed point ``x = F_s(x)``. Under a fixed
policy ``F_s(x) = 1 + a + b x`` with ``b`` the probability that the turn is
a zero turn; ``F_s`` is their minimum: increasing, concave, piecewise
linear, with slope ``b < 1`` wherever the target can be reached. The DP
carries each value's slope in ``x`` (``dV/dx``: the probability of a zero
turn from there under the chosen policy), and Newton's step is that
policy's own fixed point,

    x_{k+1} = (1 + a_k) / (1 - b_k),   a_k = F_s(x_k) - 1 - b_k x_k,

which is policy iteration: the line is above the concave ``F_s``, so from
the first step on ``x_k`` comes down to the fixed point and stops when a
policy repeats (steps below 1e-12 relative). It starts from the value
two scores above predict (about two DP passes a score). Where every turn
policy of a score has ``b = 1`` the target cannot be reached from it:
``T(s) = inf``.

The number of turns ``N`` that the policy needs is a Markov chain on the
banked scores with the matrix ``P(s' | s)`` of the chosen policies (a
forward pass of each score's turn carries the probability of every turn
state); ``P(N = k)`` is the mass that reaches ``S`` at step ``k``, and
``sum_k k P(N = k) = T(0)``.

Crosses: a zero turn adds a cross and the last one sends the player back
to the previous score ``p``, so the player state is ``(s, p, c)`` and a
fall ties a score to every higher one it was banked from. Each score
still has a one-variable DP (``T(s, p, c) = 1 + V_s(zero-turn value)``,
the same function ``V_s`` for every ``p`` and ``c``), but the fixed point
of a fallen line ``T(s, s, 0)`` goes through ``V_{s'}`` of every higher
``s'`` it may be banked to, once per cross: not modelled here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.model.dice import keep_table
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.turn_rules import OVERSHOOT, TurnRules, banked_score, keep_result, may_bank
from solver.text import N_, _, number

STEP = 1e-12
"""Newton stops when a step moves ``T(s)`` by less than this, relative."""

TAIL = 1e-12
"""The distribution of the number of turns stops when less probability
than this is left."""


@dataclass(frozen=True)
class TurnsPolicy:
    """The turns played alone for the fewest expected turns:
    ``expected[s]`` is ``T(s)`` for a banked score of ``s`` units
    (``expected[S] = 0``; NaN at scores a capped game never reaches) and
    ``moves[s, s']`` the probability that a turn from ``s`` ends at
    ``s'`` under the policy (None unless asked for)."""
    rules: Rules
    expected: np.ndarray
    moves: np.ndarray | None
    dp_passes: int
    """Turn DPs run (Newton's steps over every score)."""

    @property
    def expected_turns(self) -> float:
        return float(self.expected[0])

    def distribution(self, tail: float = TAIL) -> np.ndarray:
        """``P(N = k)`` for ``k = 0, 1, ...``: the number of turns from 0,
        until less than ``tail`` of the probability is left."""
        if self.moves is None:
            raise ValueError("the policy was solved without its moves (transitions=True)")
        return turns_distribution(self.moves, tail)


MAX_TARGET_UNITS = 2000
"""The largest target solved, in units: the work grows as its square
(quinze-mille's 300 units take about 2 s; 2,000 would take minutes)."""


def check_turns_rules(rules: Rules, asked_by: str = N_("the fewest-turns objective")) -> None:
    """One line for a game the turns objective does not model, naming
    what asked for it (``--objective turns``, ``odds --turns``)."""
    if rules.crosses > 0:
        raise UsageError(_("{asked_by} is not modelled with crosses").format(
            asked_by=_(asked_by)))
    if rules.target_units > MAX_TARGET_UNITS:
        raise UsageError(_("{asked_by} solves targets up to {most} times the unit ({points} "
                           "points in {game}), not {given}").format(
            asked_by=_(asked_by), most=number(MAX_TARGET_UNITS),
            points=number(MAX_TARGET_UNITS * rules.unit), game=rules.name,
            given=number(rules.target)))


def turns_policy(rules: Rules, transitions: bool = False) -> TurnsPolicy:
    """Solve ``T(s)`` for every score from the top down (module
    docstring); with ``transitions`` also the matrix of the policy's turns,
    for :meth:`TurnsPolicy.distribution`."""
    check_turns_rules(rules)
    solver = _ScoreSolver(rules)
    target = rules.target_units
    cap = solver.r.cap
    top = target - 1 if cap < 0 else min(cap, target - 1)
    expected = np.full(target + 1, np.nan)
    expected[target] = 0.0
    moves = np.zeros((target + 1, target + 1)) if transitions else None
    if moves is not None:
        moves[target, target] = 1.0
    passes = 0
    for score in range(top, -1, -1):
        guess = _first_guess(expected, score, top)
        value, used, choices = solver.fixed_point(score, guess, expected)
        expected[score] = value
        passes += used
        if moves is not None and np.isfinite(value):
            moves[score] = solver.turn_ends(score, choices)
    if not np.isfinite(expected[0]):
        raise UsageError(_("{game}: the target of {target} cannot be reached from 0 by these "
                           "rules").format(game=rules.name, target=number(rules.target)))
    return TurnsPolicy(rules, expected, moves, passes)


def _first_guess(expected, score, top) -> float:
    """Newton's start at ``score``: the line through the two scores above
    (the values change slowly from one score to the next), else 1."""
    above = expected[score + 1:min(score + 3, top + 1)]
    above = above[np.isfinite(above)]
    if len(above) == 2:
        return max(1.0, 2 * above[0] - above[1])
    return float(above[0]) if len(above) else 1.0


def turns_distribution(moves: np.ndarray, tail: float = TAIL) -> np.ndarray:
    """``P(N = k)``, ``k = 0, 1, ...``: the Markov chain of banked scores
    from 0, ``moves[s, s']`` a turn's law, the last score the target."""
    target = len(moves) - 1
    where = np.zeros(target + 1)
    where[0] = 1.0
    probabilities = [0.0]
    left = 1.0
    while left >= tail:
        where = where @ moves
        probabilities.append(float(where[target]))
        where[target] = 0.0
        left = float(where.sum())
        if len(probabilities) > 1_000_000:
            raise ValueError("the number of turns has no end: a score never moves")
    return np.array(probabilities)


def done_within(probabilities: np.ndarray, turns: int) -> float:
    """``P(N <= turns)`` from the law ``P(N = k)``."""
    return float(probabilities[:turns + 1].sum())


def turns_percentile(probabilities: np.ndarray, q: float) -> int:
    """The fewest turns ``n`` with ``P(N <= n) >= q`` (a rounding's worth
    of slack, so that a law summing to 1 - 1e-16 still has its 100th)."""
    done = np.cumsum(probabilities)
    return int(min(np.searchsorted(done, q - 1e-12), len(done) - 1))


class _ScoreSolver:
    """One score's turn DP (module docstring) over the dice arrays of
    :class:`solver.model.dice.DiceArrays`, a row of turn totals at a time,
    every roll class of every dice count at once."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.r = TurnRules.of(rules)
        table = keep_table(rules).packed()
        self.dice = rules.dice
        self.prob = table.prob
        self.keep_units = table.keep_units
        self.keep_col = table.keep_col            # 0: an instant win
        classes = len(table.prob)
        self.has_keep = table.keep_first[1:] > table.keep_first[:-1]
        self.starts = table.keep_first[:-1][self.has_keep]
        self.keep_class = np.repeat(np.arange(classes), np.diff(table.keep_first))
        self.keep_index = np.arange(len(self.keep_units))
        self.per_dice = table.roll_first[1:self.dice + 1]
        self.class_dice = np.repeat(np.arange(1, self.dice + 1), np.diff(table.roll_first[1:]))
        self.largest = int(self.keep_units.max())

    def fixed_point(self, score, guess, expected):
        """``T(score)`` by Newton's steps from ``guess``: (value, DP
        passes, the last pass's choices)."""
        x, passes = guess, 0
        while True:
            value, slope, choices = self.turn(score, x, expected)
            passes += 1
            if not np.isfinite(value):
                return np.inf, passes, choices
            if slope > 1.0 - 1e-12:
                # Every policy near x is a zero turn for sure: move on to a
                # larger x, where a policy that gets somewhere is cheaper.
                if x > 1e15:
                    return np.inf, passes, choices
                x = 2.0 * x + 1e3
                continue
            step = (value - slope * x) / (1.0 - slope) - x
            x += step
            if abs(step) <= STEP * max(1.0, x) or passes > 200:
                return x, passes, choices

    def turn(self, score, x, expected):
        """``F(x)`` at ``score``, its slope in ``x``, and the policy's
        choices: ``(bank[t, n - 1], best keep[t, class])``."""
        r, D = self.r, self.dice
        rows = r.target - score            # turn totals that go on: 0 .. rows - 1
        V = np.zeros((rows + self.largest, D + 1))
        dV = np.zeros_like(V)
        # Column 0 is an instant win (0 turns left); rows from `rows` up are
        # past the target: a win, or an overshoot (a zero turn) when exact.
        for t in range(rows, len(V)):
            if keep_result(r, score, t, False) == OVERSHOOT:
                V[t, 1:], dV[t, 1:] = x, 1.0
        totals = np.arange(rows)
        allowed = may_bank(r, score, totals[:, None], np.arange(1, D + 1)[None, :])
        allowed = np.broadcast_to(allowed, (rows, D))
        banked = np.array([banked_score(r, score, t) for t in totals], dtype=np.int64)
        bank_value = np.where(banked == score, x, expected[np.minimum(banked, r.target)])
        bank_slope = (banked == score).astype(float)
        bank = np.zeros((rows, D), dtype=bool)
        chosen = np.zeros((rows, int(self.has_keep.sum())), dtype=np.int64)
        best = np.empty(len(self.prob))
        best_slope = np.empty(len(self.prob))
        for t in range(rows - 1, -1, -1):
            at = t + self.keep_units
            after, after_slope = V[at, self.keep_col], dV[at, self.keep_col]
            best[:] = x                        # a zero roll
            best_slope[:] = 1.0
            best[self.has_keep] = np.minimum.reduceat(after, self.starts)
            # The first keep that reaches its class's best: its slope is the
            # slope of the class's value under this policy.
            first = np.minimum.reduceat(
                np.where(after == best[self.keep_class], self.keep_index, len(after)),
                self.starts)
            best_slope[self.has_keep] = after_slope[first]
            chosen[t] = first
            roll = np.add.reduceat(self.prob * best, self.per_dice)
            roll_slope = np.add.reduceat(self.prob * best_slope, self.per_dice)
            # A tie banks: the turn ends with the same expected turns.
            banks = allowed[t] & (bank_value[t] <= roll)
            bank[t] = banks
            V[t, 1:] = np.where(banks, bank_value[t], roll)
            dV[t, 1:] = np.where(banks, bank_slope[t], roll_slope)
        return 1.0 + V[0, D], dV[0, D], (bank, chosen)

    def turn_ends(self, score, choices) -> np.ndarray:
        """The law of the banked score a turn from ``score`` ends at, under
        the policy's ``choices``: a forward pass carrying the probability
        of each (turn total, dice in hand)."""
        r, D = self.r, self.dice
        bank, chosen = choices
        rows = r.target - score
        mass = np.zeros((rows + self.largest, D + 1))
        mass[0, D] = 1.0
        ends = np.zeros(r.target + 1)
        zero_turn = 0.0
        units, cols = self.keep_units, self.keep_col
        for t in range(rows):
            here = mass[t, 1:]
            if not here.any():
                continue
            banks = here * bank[t]
            if banks.any():
                ends[banked_score(r, score, t)] += banks.sum()
            rolling = (here - banks)[self.class_dice - 1] * self.prob
            zero_turn += rolling[~self.has_keep].sum()
            keeps = chosen[t]
            np.add.at(mass, (t + units[keeps], cols[keeps]), rolling[self.has_keep])
        past = [keep_result(r, score, t, False) for t in range(rows, len(mass))]
        overshoot = np.array(past, dtype=np.int64) == OVERSHOOT
        won = mass[:, 0].sum() + mass[rows:, 1:][~overshoot].sum()
        ends[score] += zero_turn + mass[rows:, 1:][overshoot].sum()
        ends[r.target] += won
        return ends

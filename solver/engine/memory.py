"""Games with crosses (dix-mille rule 4): which player states to solve.

The third consecutive cross sends a player back to the score before their
last bank, so the exact player state is (score, previous score, crosses):
about 57,000 states per player at 10,000 and 3.3e9 turn starts, out of
reach. Two ways are offered (``memory=``):

``exact``
    Every (score, previous, crosses) state (:func:`solver.model.states.memory_space`).
    Exact, and solvable at small targets (tests, and the measure of the model).

``model``
    Crosses kept, previous score forgotten (:func:`solver.model.states.model_space`):
    the third cross at score ``s`` sends the player to the fallen state of
    ``fall_to[s]``, an estimate of the previous score of a player now at
    ``s``. About 765 states per player at 10,000.

The estimate is made from play, without sampling. Solve the game without
crosses; for each score ``x``, follow the optimal turn of a player at ``x``
against an opponent at ``x`` forwards (:func:`bank_distribution`) to get the
probability ``P(bank = t | x)`` of ending the turn by banking ``t``. A player
now at ``s`` came from ``x = s - t`` with weight ``P(bank = s - x | x)``
(a flat prior over the scores ``x``), so

    fall_to[s] = sum_x x P(bank = s - x | x) / sum_x P(bank = s - x | x),

rounded to the nearest score a previous score can be (0, or from the entry
up to ``s - 1`` units). The solve of the model starts from the game without
crosses (each state at its score's value), which the sweeps then correct.

Advice for a real position uses the true previous score one turn ahead: the
zero-turn value of a player on their last cross is that of falling to the
true previous score (:mod:`solver.advice.advisor`).
"""

from __future__ import annotations

import numpy as np

from solver.engine.solution import Solution, replay
from solver.model.dice import keep_table
from solver.model.rules import Rules
from solver.model.turn_rules import CONTINUE, TurnRules, keep_result, may_bank

MEMORIES = ("exact", "model")


def bank_distribution(solution: Solution, m: int, w: int) -> np.ndarray:
    """``P(the turn ends by banking t)`` for ``t`` in units, when the mover
    ``m`` plays the optimal turn against ``w``: the turn followed forwards,
    mass at (turn total, dice in hand) flowing through each roll class to
    its best keep, then to a bank or the next roll."""
    rules = solution.rules
    turn = TurnRules.of(rules)
    dice = keep_table(rules).packed()
    _, R, A, B = replay(solution, m, w)
    score = int(solution.space.score[m])
    T = rules.target_units - score
    to_roll = np.zeros((T + 1, rules.dice + 1))
    to_roll[0, rules.dice] = 1.0
    banked = np.zeros(T + 1)
    for t in range(T):
        for n in range(1, rules.dice + 1):
            mass = to_roll[t, n]
            if mass == 0.0:
                continue
            for r in range(dice.roll_first[n], dice.roll_first[n + 1]):
                k0, k1 = dice.keep_first[r], dice.keep_first[r + 1]
                if k0 == k1:
                    continue
                values = A[t + dice.keep_units[k0:k1], dice.keep_col[k0:k1]]
                k = k0 + int(np.argmax(values))
                t2, col = t + int(dice.keep_units[k]), int(dice.keep_col[k])
                if keep_result(turn, score, t2, col == 0) != CONTINUE:
                    continue
                if may_bank(turn, score, t2, col) and B[t2, col] >= R[t2, col]:
                    banked[t2] += mass * dice.prob[r]
                else:
                    to_roll[t2, col] += mass * dice.prob[r]
    return banked


def estimate_fall_to(rules: Rules, crossless: Solution) -> np.ndarray:
    """``fall_to[s]`` (units) for every score, from the game without crosses
    (module docstring)."""
    space = crossless.space
    target = rules.target_units
    weight = np.zeros((target, target))          # weight[s, x]
    for x_state, x in enumerate(space.score):
        banked = bank_distribution(crossless, x_state, x_state)[:target - x]
        weight[x + np.arange(1, len(banked)), x] = banked[1:]
    scores = np.arange(target)
    fall_to = np.zeros(target, dtype=np.int64)
    for s in range(1, target):
        allowed = (scores == 0) | ((scores >= rules.entry_units) & (scores < s))
        total = weight[s].sum()
        mean = weight[s] @ scores / total if total > 0 else max(s - rules.entry_units, 0)
        candidates = scores[allowed]
        fall_to[s] = candidates[np.argmin(np.abs(candidates - mean))]
    return fall_to

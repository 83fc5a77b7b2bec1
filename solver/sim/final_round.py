"""A final round's last turn in the simulator: the tables its players read
and the value of a keep (the compiled loop, :func:`solver.sim.game_loop.last_turn`,
throws the dice and ends the game).

The rule (docs/rules.md, "Final round"; :mod:`solver.model.last_turn`):
once a bank reaches the target, the other player, at ``s``, has one last
turn to pass the banked score ``f``. With ``m`` the fewest units the bank
needs (``smallest_bank``: the minimum bank, at 0 the entry too),

    ties = f - s >= m        a bank may equal the score (a shared win)
    goal = f - s if ties else m - 1

and at turn total ``t`` with ``n`` dice in hand (:class:`solver.model.last_turn.LastTurn`):
``t > goal`` passes and ends the turn and the game at once (a win); an
instant-win keep wins; a zero roll ends the game for the other player;
``t == goal`` (with ``ties``) may be banked where ``may_bank`` allows it,
and the win is shared; no other bank is allowed.

How each policy plays the last turn
-----------------------------------
* ``random`` -- as in any turn: every keep alike, and at an equal total,
  where the bank is allowed, a bank or a roll with probability 1/2 each
  (no other bank is allowed: the bots of ``farkle play`` do the same).
* every other policy (``optimal``, ``threshold:X``, ``expected``) -- the
  one-turn DP, ``V(r, n)`` of :func:`solver.model.last_turn.last_turn_values`
  (tie 1/2 when ``ties``, else 0): the keep that maximises
  ``V(goal - t', n')`` (1 once ``t'`` passes; the simulator's keep order
  breaks ties: instant win, most points, fewest dice), and at an equal
  total a bank when 1/2 is at least the chance that the dice in hand
  score (``V(0, n)`` with tie 0, the roll that would pass),
  :mod:`solver.advice.final_round`'s choice (bank before roll within
  1e-12). A threshold or the expected points say nothing of a turn that
  must pass a given score, and none of them would bank short of it to
  lose: the best chance to pass is what a player of any of them aims at,
  and what the table's values (:func:`solver.engine.solution.final_round_reach`)
  assume of the other player.

Before the last turn, the turn of the player who reaches the target goes
on past it with the policy's own tables (:func:`solver.sim.policies.table_rows`
hold totals past the target), and every policy banks by decree where the
solved table's turn DP does: at ``target + E`` (``TurnRules.rows``,
:func:`solver.model.last_turn.past_target_units`), a total one turn
reaches with a chance below 1e-8.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.advice.final_round import SHARED as SHARED_WIN
from solver.model.compiled_rules import drop_stale_caches
from solver.model.last_turn import last_turn_values, smallest_bank
from solver.model.rules import Rules
from solver.sim.policies import table_rows

drop_stale_caches(__file__)

TIE_TOLERANCE = 1e-12
"""A bank and a roll within this of each other: the bank (as advice)."""


class LastTurnTables(NamedTuple):
    """What the last turn's players read (one record for the compiled
    loop; single rows in a game without a final round)."""
    shared: np.ndarray
    """``V(r, n)``, a tie worth 1/2, for ``r`` = 0 .. the most the loop
    can need (:func:`solver.sim.policies.table_rows`)."""
    strict: np.ndarray
    """``V(r, n)``, a tie worth 0 (the bank must bring ``m``)."""
    least: np.ndarray
    """``m`` at score 0 and at any other score."""
    tie_banks: np.ndarray
    """``tie_banks[n]``: at an equal total with ``n`` dice in hand, bank
    (1/2) rather than roll (the chance ``V(0, n)`` that the dice score)."""


@lru_cache(maxsize=16)
def last_turn_tables(rules: Rules) -> LastTurnTables:
    D = rules.dice
    if not rules.final_round:
        none = np.zeros((1, D + 1))
        return LastTurnTables(none, none, np.ones(2, dtype=np.int64),
                              np.zeros(D + 1, dtype=np.bool_))
    # The score to pass is below table_rows (the largest keep past the
    # bank by decree), and so is every goal.
    most = table_rows(rules)
    scores = last_turn_values(rules, 0, tie=0.0)[0]
    return LastTurnTables(last_turn_values(rules, most, tie=SHARED_WIN),
                          last_turn_values(rules, most, tie=0.0),
                          np.array([smallest_bank(rules, 0), smallest_bank(rules, 1)],
                                   dtype=np.int64),
                          SHARED_WIN >= scores - TIE_TOLERANCE)


@njit(cache=True, inline="always")
def last_turn_goal(least, score, to_pass):
    """``(goal, ties)`` of a player at ``score`` against ``to_pass``
    (module docstring)."""
    m = least[0] if score == 0 else least[1]
    gap = to_pass - score
    if gap >= m:
        return gap, True
    return m - 1, False


@njit(cache=True, inline="always")
def last_turn_keep_value(values, goal, after, dice_after):
    """What a keep to turn total ``after`` with ``dice_after`` dice in hand
    is worth to the one-turn DP: 1 once it passes, else ``V(goal -
    after, dice_after)`` (``values``: the shared or the strict table)."""
    left = goal - after
    if left < 0:
        return 1.0
    return values[left, dice_after]

"""A solved game in memory, the replay of one turn from it, and the check
of its values by replays (the Bellman residual).

Light on purpose (no numba): answering one question at the table imports
this, not the solver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from solver.engine.turn import bank_values, pad, turn_values
from solver.model.dice import keep_table
from solver.model.last_turn import last_turn_win, past_target_units
from solver.model.rules import Rules
from solver.model.states import PlayerSpace
from solver.model.turn_rules import TurnRules


class Values(NamedTuple):
    """What the turn DP reads of the solved game (one record for the
    compiled kernels): start values ``W[m, w]``, take-over values
    ``take_values[take_row[w], bank_slot[m], t - offer_first[bank_slot[m]],
    n - 1]`` (``PlayerSpace.offers``), and ``reach[w,
    k]``, what reaching the target ``k`` units past it is worth to the mover
    while ``w`` waits (past the last column: the last column's value). It
    is 1 wherever reaching the target wins; less where the waiting player
    still has a last turn (:func:`final_round_reach`,
    :mod:`solver.study.fair_start`). In a game with a final round the turn
    goes on past the target and ``reach[w, k]`` is a bank's value there."""
    W: np.ndarray
    take_values: np.ndarray
    reach: np.ndarray


def reach_wins(states: int) -> np.ndarray:
    """``Values.reach`` of a game where reaching the target wins."""
    return np.ones((states, 1))


def final_round_reach(rules: Rules, score: np.ndarray) -> np.ndarray:
    """``Values.reach`` of the game's own rules for players at ``score``
    (units): 1 where reaching the target wins; with a final round, banking
    ``k`` units past the target against a player at ``s`` is worth

        reach[w, k] = 1 - last_turn_win(s, target + k)      k = 0 .. E

    (:mod:`solver.model.last_turn`: the other player's last turn, a tie
    counted half a win), ``E`` the totals the turn DP holds past the
    target (:func:`solver.model.last_turn.past_target_units`)."""
    if not rules.final_round:
        return reach_wins(len(score))
    past = past_target_units(rules)
    to_pass = rules.target_units + np.arange(past + 1)[None, :]
    return 1.0 - last_turn_win(rules, np.asarray(score)[:, None], to_pass)


class SolvedGame:
    """What every solved game answers, whatever its number of players:
    ``rules``, ``players``, and :attr:`seat_wins`, each seat's chance at the
    game start (seat 1 first). :class:`Solution` is the two-player game,
    :class:`solver.engine.solution_n.MultiSolution` the N-player one."""

    @property
    def seat_wins(self) -> np.ndarray:
        raise NotImplementedError

    @property
    def first_player_win(self) -> float:
        return float(self.seat_wins[0])


@dataclass
class Solution(SolvedGame):
    """The solved two-player game: the win probabilities at every turn start."""
    rules: Rules
    space: PlayerSpace
    W: np.ndarray
    """``W[m, w]``: the mover's probability of winning at turn start."""
    take_row: np.ndarray
    """Row of ``take_values`` for each player state that may take over, else -1."""
    take_values: np.ndarray
    """``take_values[take_row[w], bank_slot[m], t - offer_first[bank_slot[m]],
    n - 1]``: ``R_{w,m}(t, n)``, the value to ``w`` of taking over turn total
    ``t`` (units) with ``n`` dice from ``m``, who has just banked
    (``space.bank_slot``, ``space.offers``)."""
    stats: dict = field(default_factory=dict)
    reach: np.ndarray | None = None
    """``Values.reach``; None until :meth:`values` works out the game's own
    (:func:`final_round_reach`)."""

    def values(self) -> Values:
        if self.reach is None:      # worked out once: a final round's takes a few ms
            self.reach = final_round_reach(self.rules, self.space.score)
        return Values(self.W, self.take_values, self.reach)

    players = 2

    @property
    def seat_wins(self) -> np.ndarray:
        start = self.space.index_of_score(0)
        first = float(self.W[start, start])
        return np.array([first, 1.0 - first])


def replay(solution: Solution, m: int, w: int, compiled: bool = False,
           zero_to: int | None = None):
    """Re-run the turn DP of mover ``m`` against ``w`` from the stored values.
    Returns ``(Z, R, A, B)``: the zero-turn value, roll values ``R[t, n]``
    (rows up to the target, for take-over), after-keep values ``A[t, n]``
    (laid out as :mod:`solver.engine.turn` says: ``A[t + points, col]`` is a keep's
    value) and bank values ``B[t, n]`` (``-inf`` where banking is not
    allowed). ``compiled`` picks the numba kernel (fast once loaded) over
    the numpy one (no compilation: best for a single answer). ``zero_to``
    replaces the mover's state after a zero turn (the true fall of a
    player whose previous score the model forgets)."""
    rules, space = solution.rules, solution.space
    turn = TurnRules.of(rules)
    rows = turn.rows                       # to the target (and past it), from the lowest score
    Z = 1.0 - float(solution.W[w, space.zero_next[m] if zero_to is None else zero_to])
    moves = space.moves(solution.take_row)
    values = solution.values()
    dice = keep_table(rules).packed()
    if not compiled:
        return (Z, *turn_values(turn, dice, moves, values, m, w, Z, rows, pad(rules, rows)))
    from solver.engine.turn_kernel import TurnWork, turn_dp_one
    if not isinstance(solution.take_values, np.ndarray):
        # The kernel wants an array: the waiting player's row alone will do.
        row = solution.take_row[w]
        take_row = np.full(space.size, -1, dtype=np.int64)
        take_row[w] = 0 if row >= 0 else -1
        moves = moves._replace(take_row=take_row)
        values = values._replace(take_values=np.asarray(solution.take_values[max(row, 0)])[None])
    work = TurnWork.empty(rows, pad(rules, rows), rules.dice)
    turn_dp_one(turn, dice, moves, values, m, w, Z, rows, work, False)
    # The row already read above serves the bank values too (no second read).
    B = bank_values(turn, moves, values, m, w, Z)
    return Z, work.R, work.A, B


def bellman_residual(solution: Solution, samples: int = 300, seed: int = 0,
                     compiled: bool = False) -> float:
    """Largest difference between stored values and one more turn DP from
    them, over the game start and ``samples`` random turn starts: the start
    value ``W[m, w]`` and, for a taker, every offer's value. The
    default numpy replay is an implementation independent of the kernel
    that solved the game."""
    rng = np.random.default_rng(seed)
    P = solution.space.size
    start = solution.space.index_of_score(0)
    nodes = [(start, start)] + [tuple(rng.integers(P, size=2)) for _ in range(samples)]
    worst = 0.0
    dice = solution.rules.dice
    for m, w in nodes:
        _, R, _, _ = replay(solution, int(m), int(w), compiled=compiled)
        worst = max(worst, abs(R[0, dice] - solution.W[m, w]))
        row, slot = solution.take_row[m], solution.space.bank_slot[w]
        if row >= 0 and slot >= 0:
            # Offers a bank can make: t from the slot's first offer up to
            # the banker's score (tables keep no others).
            first = int(solution.space.offers[0][slot])
            offers = int(solution.space.score[w]) + 1 - first
            # An offer is worth max(fresh start, roll value) to the taker;
            # a table keeps the roll value only where it is the larger
            # (solver.tables.take_codes).
            fresh = solution.W[m, w]
            stored = np.maximum(np.asarray(solution.take_values[row, slot])[:offers], fresh)
            replayed = np.maximum(R[first:first + offers, 1:dice], fresh)
            worst = max(worst, float(np.max(np.abs(replayed - stored))))
    return worst

"""A solved N-player game in memory, and the replay of one turn from it.

Light on purpose (no numba), like :mod:`solver.engine.solution`: an answer at the
table imports this, not the solver. The replay is the N-player turn DP of
:mod:`solver.engine.turn_kernel_n` in numpy: vectors ``R[t, n, k]``, ``A`` and
``B``, every choice by component 0 (the mover) with docs/rules.md's tie-break,
mixed bank decisions (:mod:`solver.engine.equilibrium`) as the table stores them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from solver.engine.solution import SolvedGame
from solver.engine.turn import pad
from solver.model.dice import keep_table
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.states import PlayerSpace
from solver.model.turn_rules import (
    OVERSHOOT,
    TurnRules,
    keep_result,
    may_bank,
    offer,
    rows_past_target,
)
from solver.text import _

EPS = 1e-12
"""The tie of :mod:`solver.engine.turn_kernel_n` (the same number, for the replay)."""
MAX_PLAYERS = 6
"""docs/rules.md's games are for 2 to 6 players."""


def check_player_count(players: int) -> None:
    """Refuse a number of players docs/rules.md does not define."""
    if not 2 <= players <= MAX_PLAYERS:
        raise UsageError(_("players must be 2 to {most}, not {given}").format(
            most=MAX_PLAYERS, given=players))


@dataclass
class MultiSolution(SolvedGame):
    """A solved N-player game: every player's chance at every turn start."""
    rules: Rules
    space: PlayerSpace
    players: int
    V: np.ndarray
    """``V[node, k]``: the chance of the player ``k`` seats after the mover
    (:mod:`solver.engine.turn_kernel_n` numbers the nodes); an h5py dataset where a
    table is read lazily (advice reads one slice a turn)."""
    take_values: np.ndarray
    """``take_values[take_index(node), t, n - 1, k]``: the roll values of a
    node whose mover may take over, after the previous player's bank."""
    mixed: dict = field(default_factory=dict)
    """Mixed decisions per node: ``("bank", t, n, q)``, bank with
    probability ``q``; ``("keep", t, r, main, alt, q)``, from roll class
    ``r`` keep ``alt`` with probability ``q``, else ``main``
    (:mod:`solver.engine.equilibrium`)."""
    equilibria: list = field(default_factory=list)
    """Per block that needed mixing: what :mod:`solver.engine.equilibrium` found."""
    stats: dict = field(default_factory=dict)
    reach: np.ndarray | None = None
    """With a final round, ``reach[rest, k]``: every player's chance after
    the mover banks ``k`` units past the target with the others at ``rest``
    (:mod:`solver.engine.final_round_n`; kept in the table, as it takes a
    while to compute); None otherwise."""

    @property
    def P(self) -> int:
        return self.space.size

    def node_of(self, states) -> int:
        """The node of player states, the mover's first."""
        node = 0
        for s in states:
            node = node * self.P + int(s)
        return node

    def states_of(self, node: int) -> list[int]:
        out = []
        for _seat in range(self.players):
            node, s = divmod(node, self.P)
            out.append(s)
        return out[::-1]

    def start_state(self) -> int:
        return self.space.find(0, 0, 0)

    @property
    def seat_wins(self) -> np.ndarray:
        """Each seat's chance at the game start, seat 1 first."""
        return np.array(self.V[self.node_of([self.start_state()] * self.players)], dtype=float)

    @cached_property
    def _take_rows(self) -> np.ndarray:
        return self.space.take_rows()

    @cached_property
    def _banked_states(self) -> int:
        return int(np.sum(self.space.bank_slot >= 0))

    def take_index(self, node: int) -> int:
        """:func:`solver.engine.turn_kernel_n.take_index`, in Python."""
        P, N = self.P, self.players
        states = self.states_of(node)
        row = self._take_rows[states[0]]
        slot = self.space.bank_slot[states[-1]]
        if row < 0 or slot < 0:
            return -1
        middle = (node // P) % (P ** (N - 2)) if N > 2 else 0
        return (int(row) * P ** (N - 2) + middle) * self._banked_states + int(slot)


def rotate(v: np.ndarray) -> np.ndarray:
    """A value of the next turn start seen from this one: ``rot(v)[k] =
    v[k - 1]`` (the mover of this turn sits last there)."""
    return np.roll(v, 1, axis=-1)


def replay_n(solution: MultiSolution, node: int, zero_to: int | None = None):
    """The turn DP of ``node`` from the stored values: ``(Z, R, A, B, mix)``
    with vectors ``R[t, n]`` (rows to the target from the lowest score), ``A`` (the layout of
    :mod:`solver.engine.turn`), ``B[t, n]`` (NaN where the bank is not allowed)
    and ``mix[t, n]``, the probability of banking at a mixed decision (-1
    elsewhere; mixed keeps are applied, not returned)."""
    rules, space, N, P = solution.rules, solution.space, solution.players, solution.P
    turn = TurnRules.of(rules)
    dice = keep_table(rules).packed()
    D, target, rows = rules.dice, rules.target_units, turn.rows
    states = solution.states_of(node)
    p1, rest = states[0], node % P ** (N - 1)
    score = int(space.score[p1])
    T = target - score
    # With a final round the turn goes on past the target to end, banking
    # at reach (solver.engine.turn_kernel_n).
    reach = solution.reach[rest] if rules.final_round else np.ones((1, N))
    end = T + rows_past_target(turn, len(reach))
    zero_state = space.zero_next[p1] if zero_to is None else zero_to
    # Every turn start this turn leads to is (rest, x): one slice of V (a
    # table read lazily from its file reads only that).
    after_values = np.asarray(solution.V[rest * P:(rest + 1) * P], dtype=float)
    Z = rotate(after_values[zero_state])
    win = np.zeros(N)
    win[0] = 1.0
    mix = -np.ones((rows, D + 1))
    keep_mixes: dict[int, list] = {}
    for kind, t, *where, q in solution.mixed.get(node, []):
        if kind == "bank":
            mix[t, where[0]] = q
        else:
            keep_mixes.setdefault(t, []).append((*where, q))

    B = np.full((rows, D + 1, N), np.nan)
    take_row = space.take_rows()
    taken_rows: dict[int, np.ndarray] = {}
    for t in range(1, end):
        for n in range(1, D + 1):
            if not may_bank(turn, score, t, n):
                continue
            if t >= T:
                B[t, n] = reach[t - T]
                continue
            after_state = space.bank_next[p1, t]
            if after_state == space.zero_next[p1]:
                B[t, n] = Z
                continue
            after = rest * P + after_state
            chosen = after_values[after_state]
            offered = offer(turn, n)
            if offered and take_row[states[1]] >= 0:
                i = solution.take_index(after)
                if i not in taken_rows:
                    taken_rows[i] = np.asarray(solution.take_values[i], dtype=float)
                taken = taken_rows[i][t, offered - 1]
                if taken[0] > chosen[0] + EPS:
                    chosen = taken
            B[t, n] = rotate(chosen)

    a_rows = pad(rules, rows)
    A = np.zeros((a_rows, D + 1, N))
    A[:, 0] = win
    for t in range(end, a_rows):
        A[t, 1:] = Z if keep_result(turn, score, t, False) == OVERSHOOT \
            else reach[-1] if rules.final_round else win
    R = np.zeros((rows, D + 1, N))
    # Per roll class, its keeps; the chosen one by docs/rules.md's tie-break.
    has_keep = dice.keep_first[1:] > dice.keep_first[:-1]
    first = dice.keep_first[:-1][has_keep]
    segment = np.repeat(np.arange(len(first)), np.diff(dice.keep_first)[has_keep])
    n_of_class = np.repeat(np.arange(D + 1), np.diff(dice.roll_first))
    n_of_keep = np.repeat(n_of_class, np.diff(dice.keep_first))
    used = np.where(dice.keep_col == D, n_of_keep, n_of_keep - dice.keep_col)
    preference = dice.keep_units * (D + 1) + used
    top = min(rows - 1, end)
    for t in range(top, -1, -1):
        options = A[t + dice.keep_units, dice.keep_col]
        own = options[:, 0]
        best = np.maximum.reduceat(own, first)
        tied = own >= best[segment] - EPS
        favourite = np.maximum.reduceat(np.where(tied, preference, -1), first)
        chosen = np.flatnonzero(tied & (preference == favourite[segment]))
        outcome = np.repeat(Z[None, :], len(dice.prob), axis=0)
        outcome[has_keep] = options[chosen]
        for r, main, alt, q in keep_mixes.get(t, []):
            outcome[r] = (1 - q) * A[t + dice.keep_units[main], dice.keep_col[main]] \
                + q * A[t + dice.keep_units[alt], dice.keep_col[alt]]
        weighted = dice.prob[:, None] * outcome
        R[t, 1:] = np.add.reduceat(weighted, dice.roll_first[1:D + 1], axis=0)
        if t < end:
            for n in range(1, D + 1):
                A[t, n] = R[t, n]
                if np.isnan(B[t, n, 0]):
                    continue
                q = mix[t, n]
                if q >= 0:
                    A[t, n] = q * B[t, n] + (1 - q) * R[t, n]
                elif B[t, n, 0] >= R[t, n, 0] - EPS:
                    A[t, n] = B[t, n]
    R[top + 1:] = R[top]
    return Z, R, A, B, mix


def bellman_residual_n(solution: MultiSolution, samples: int = 200, seed: int = 0) -> float:
    """Largest difference between stored values and one more turn DP from
    them (:func:`replay_n`, numpy: independent of the compiled kernel that
    solved the game), over the game start, every node with a mixed
    decision and ``samples`` random nodes; where the node's mover may take
    over, its stored take-over values too."""
    rng = np.random.default_rng(seed)
    start = solution.node_of([solution.start_state()] * solution.players)
    nodes = [start, *solution.mixed, *(int(v) for v in rng.integers(len(solution.V), size=samples))]
    worst = 0.0
    D = solution.rules.dice
    for node in nodes:
        R = replay_n(solution, node)[1]
        worst = max(worst, float(np.max(np.abs(R[0, D] - solution.V[node]))))
        i = solution.take_index(node)
        if i >= 0:
            banker = solution.states_of(node)[-1]
            offers = int(solution.space.score[banker]) + 1
            stored = np.asarray(solution.take_values[i, :offers])
            worst = max(worst, float(np.max(np.abs(R[:offers, 1:D] - stored))))
    return worst

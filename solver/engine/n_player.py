"""The N-player solver: levels, the zero-turn cycle, take-over, equilibria.

Unknowns: ``V[node]``, every player's probability of winning at a turn
start (:mod:`solver.engine.turn_kernel_n` numbers the nodes and states the turn
DP). The DP gives, for each node ``i``,

    V_i = F_i(Z_i),    Z_i = rot(V_{s(i)}),   s(i) = node after a zero turn,

and under the policy it picks ``F_i`` is affine: ``F_i(Z) = c_i + b_i Z``,
``b_i`` the probability of a zero turn.

Order by levels, as with two players: a bank raises the sum of the N banked
scores, a zero turn keeps it (or lowers it, by a fall). So levels are solved
from the top down and every bank a DP reads is final. Inside a level the
nodes whose score tuples are rotations of one another form a *block*: the
move goes round it by zero turns. A block is solved by policy iteration:
run every node's DP at the current ``Z_i``, then solve the linearised system

    x_i = c_i + b_i rot(x_{s(i)})   (s(i) in the block),   x_i = V_i (outside)

exactly, starting from values extrapolated from solved neighbours
(:func:`start_value`). Each node has one successor, so the system is a
functional graph: a chain is filled backwards from its end; a cycle of
length ``L`` closes as
``x = C + B rot^L(x)``, and since ``rot^L`` has order ``m = N / gcd(L, N)``,

    x = (sum_{j < m} (B rot^L)^j C) / (1 - B^m).

Stop when the DPs' policy is the one the system was solved under. A pass
that only confirms it is not run: each DP also gives the range of
``Z_i[0]`` over which its decisions hold (:mod:`solver.engine.turn_kernel_n`, the
policy's range), and where every new ``Z_i = rot(x_{s(i)})`` falls inside
its node's range, the next DPs would take the same decisions, so their
values would be ``x`` itself. The take-over roll values of the pass are
then moved to the new ``Z`` along their slopes, ``R + dR (Z' - Z)``. In
3-player cinq-mille-10000 this saves 38% of the DPs (BENCHMARKS.md).

With two players (zero-sum) this is Newton's method on convex functions and
settles in two or three passes. With three or more players the game is not
zero-sum and the best responses can go round a cycle without settling; such
a block is handed to :mod:`solver.engine.equilibrium`, which mixes the decisions
that flip and selects by the logit path (docs/rules.md, "Cycles and
equilibria").

Take-over: a bank offers ``(t, n)`` to the next player, who takes it by
their roll value ``R_{node'}(t, n)``; ``node'`` is in a higher level, so its
roll values are final when a lower level needs them. They are kept (as
``take_values``) for the nodes whose mover may take over and whose
previous player has just banked.

Falls (crosses) send a zero turn to a lower level: then whole top-down
sweeps repeat until the distance to the fixed point is below ``tol``, as in
:mod:`solver.engine.two_player`, each block solved to its fixed point in every sweep.

The sweeps are written once (:func:`run_sweeps`), given how to solve a
level's blocks: here the compiled kernel, a block a thread; on a Dask
cluster, chunks of blocks as tasks (:mod:`solver.tables.cluster`), from a
checkpoint that lets a solve resume.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import set_parallel_chunksize

from solver.engine.convergence import error_bound, sweeps_expected
from solver.engine.equilibrium import settle_block
from solver.engine.final_round_n import final_round_reach_n
from solver.engine.n_player_blocks import NEWTON_TOL, Levels, MultiBlocks, no_plan, solve_level_n
from solver.engine.solution_n import MultiSolution
from solver.engine.turn import pad
from solver.engine.turn_kernel_n import MultiValues, Seats
from solver.model.dice import keep_table
from solver.model.rules import Rules
from solver.model.states import PlayerSpace, player_space
from solver.model.turn_rules import TurnRules, rows_past_target

# ---------------------------------------------------------------- the solve

@dataclass
class Level:
    """One level's blocks (numbered from 0 in the level) and their work:
    nodes and DP rows per block, for the statistics and the cluster's
    chunks."""
    j: int
    blocks: MultiBlocks
    sizes: np.ndarray
    rows: np.ndarray

    @property
    def count(self) -> int:
        """How many blocks."""
        return len(self.blocks.block_start) - 1

    def nodes(self, b0: int = 0, b1: int | None = None) -> np.ndarray:
        """The nodes of blocks ``b0 <= b < b1`` (all by default)."""
        start = self.blocks.block_start
        return self.blocks.node[start[b0]:start[self.count if b1 is None else b1]]


@dataclass
class Setup:
    """What every sweep reads, built once from the rules: the levels, the
    compiled turn rules, the dice, the final round's values (``reach``).
    A level's blocks are built when it is solved (:meth:`level`), the last
    one kept."""
    rules: Rules
    space: PlayerSpace
    players: int
    seats: Seats
    levels_of: Levels
    turn: TurnRules
    dice: object
    moves: object
    reach: np.ndarray
    a_rows: int
    has_falls: bool
    take_shape: tuple
    _last: Level | None = None

    @classmethod
    def of(cls, rules: Rules, players: int, space: PlayerSpace | None = None,
           reach: np.ndarray | None = None) -> Setup:
        """``reach``: the final round's values where already computed
        (:func:`solver.engine.final_round_n.final_round_reach_n`)."""
        space = space or player_space(rules, "exact")
        N = players
        seats = Seats.of(N, space)
        target = rules.target_units
        turn = TurnRules.of(rules)
        moves = space.moves()
        takers = int(np.sum(moves.take_row >= 0))
        take_rows = takers * seats.middle * seats.banked_states
        take_shape = (max(take_rows, 1), target if takers else 1, max(rules.dice - 1, 1), N)
        if reach is None:
            reach = final_round_reach_n(rules, space, N)
        return cls(rules, space, N, seats, Levels(space, N), turn, keep_table(rules).packed(),
                   moves, reach, pad(rules, turn.rows),
                   bool(np.any(space.score[space.zero_next] < space.score)), take_shape)

    @property
    def levels(self) -> int:
        return len(self.levels_of)

    @property
    def nodes(self) -> int:
        return self.space.size ** self.players

    def level(self, j: int) -> Level:
        """Level ``j`` (the top level is 0), its blocks built."""
        if self._last is None or self._last.j != j:
            self._last = None                   # one level's blocks held at a time
            blocks = self.levels_of.blocks(j)
            # Work per node and DP pass: the rows of its turn DP (to the
            # target for a node whose roll values are kept for take-over).
            past = rows_past_target(self.turn, self.reach.shape[1])
            node_rows = np.minimum(self.turn.rows, 1 + self.rules.target_units + past
                                   - self.space.score[blocks.node // self.seats.lead])
            self._last = Level(j, blocks, np.diff(blocks.block_start),
                               np.add.reduceat(node_rows, blocks.block_start[:-1]))
        return self._last

    def level_nodes(self, j: int) -> np.ndarray:
        """The nodes of level ``j``, in increasing order (without building
        its blocks)."""
        return self.levels_of.nodes(j)

    def nodes_above(self, j: int) -> int:
        """How many nodes the levels before ``j`` hold (the progress)."""
        return int(self.levels_of.sizes[:j].sum())

    def start_values(self) -> tuple[np.ndarray, np.ndarray]:
        """``V`` and ``take_values`` before the first sweep."""
        return (np.full((self.nodes, self.players), 1.0 / self.players),
                np.zeros(self.take_shape))

    def solution(self, V: np.ndarray, take_values: np.ndarray) -> MultiSolution:
        return MultiSolution(self.rules, self.space, self.players, V, take_values,
                             reach=self.reach if self.rules.final_round else None)

    def solve_blocks(self, values: MultiValues, level: Level, b0: int, b1: int,
                     first_sweep: bool, passes: np.ndarray, changes: np.ndarray) -> None:
        """Policy iteration on blocks ``b0 <= b < b1`` of ``level``, in
        ``values`` (the compiled kernel, a block a thread): each block reads
        the values of higher levels, its own nodes' and, with falls, lower
        levels' of the previous sweep, and writes only its own nodes' values
        and take-over rows, so the blocks of a level may run in any order and
        any grouping with the same result."""
        solve_level_n(b0, b1, level.blocks, self.seats, self.turn, self.dice, self.moves,
                      values, first_sweep, self.a_rows, no_plan(), passes, changes)


@dataclass
class SweepState:
    """How far the sweeps have come: sweep ``sweeps`` (1 the first) is done
    up to level ``level`` (the next to solve); ``change``, the largest move
    of a value in it so far; the work done. What a checkpoint records
    (:mod:`solver.tables.checkpoint`)."""
    sweeps: int = 0
    level: int = 0
    sweep_changes: list = field(default_factory=list)
    change: float = 0.0
    total_passes: int = 0
    rows_run: int = 0


def cycling_blocks(changes: np.ndarray) -> np.ndarray:
    """The blocks whose policy iteration did not settle (their last change
    above NEWTON_TOL): the best responses cycle, and
    :func:`solver.engine.equilibrium.settle_block` mixes them."""
    return np.flatnonzero(changes > NEWTON_TOL)


def run_sweeps(setup: Setup, solution: MultiSolution, solve_blocks, tol: float = 1e-12,
               max_sweeps: int = 200, progress=None, state: SweepState | None = None,
               level_done=None, settle=None) -> SweepState:
    """The sweeps, top level first, until they converge (without falls,
    one): ``solve_blocks(level, b0, b1, first_sweep, passes, changes)``
    solves blocks ``b0 <= b < b1`` of a :class:`Level` into ``solution.V``
    and ``solution.take_values`` (:meth:`Setup.solve_blocks` here, chunks
    on a cluster in :mod:`solver.tables.cluster`); then ``settle(level,
    blocks)`` settles the level's blocks that cycle (here, one after the
    other, by :func:`settle_blocks`; they are independent, as the level's
    blocks are). From ``state``, where a solve resumes, and
    ``level_done(state)`` after each level. ``progress(done, total,
    levels=(levels done, levels, sweep))`` after each level, ``done`` and
    ``total`` in turn starts (every sweep's)."""
    if settle is None:
        def settle(level, blocks):
            settle_blocks(setup, solution, level, blocks)
    state = state or SweepState()
    V = solution.V
    while True:
        if state.level == 0:
            state.sweeps += 1
            state.change = 0.0
            # A sweep settles every cycling block again (its inputs moved):
            # what the last sweep found is what the table keeps.
            solution.mixed.clear()
            solution.equilibria.clear()
        for j in range(state.level, setup.levels):
            level = setup.level(j)
            passes = np.zeros(level.count, dtype=np.int64)
            changes = np.zeros(level.count)
            # Only the level's own nodes move while it is solved.
            nodes = level.nodes() if setup.has_falls else None
            before = V[nodes] if setup.has_falls else None
            solve_blocks(level, 0, level.count, state.sweeps == 1, passes, changes)
            state.total_passes += int(passes @ level.sizes)
            state.rows_run += int(passes @ level.rows)
            settle(level, cycling_blocks(changes))
            if setup.has_falls:
                state.change = max(state.change, float(np.max(np.abs(V[nodes] - before))))
            state.level = j + 1
            if level_done is not None:
                level_done(state)
            # After the level is recorded: the bar shows what a resumed
            # solve would not do again.
            if progress is not None:
                done = setup.nodes_above(j + 1) + (state.sweeps - 1) * len(V)
                expected = (sweeps_expected(state.sweep_changes, tol, max_sweeps)
                            if setup.has_falls else 1)
                progress(done, len(V) * max(expected, state.sweeps),
                         levels=(state.level, setup.levels, state.sweeps))
        if not setup.has_falls:
            break
        state.sweep_changes.append(state.change)
        if error_bound(state.sweep_changes) < tol or state.sweeps >= max_sweeps:
            break
        state.level = 0
    return state


def settle_blocks(setup: Setup, solution: MultiSolution, level: Level, blocks) -> None:
    """Settle ``blocks`` of ``level``, whose best responses cycle
    (:func:`solver.engine.equilibrium.settle_block`), in block order: their
    values into ``solution.V``, their mixed decisions and equilibria
    recorded in ``solution``."""
    for b in blocks:
        settle_block(solution, level.blocks, int(b), setup.turn, setup.dice, setup.moves,
                     setup.a_rows)


def sweep_stats(setup: Setup, state: SweepState, solution: MultiSolution,
                seconds: float) -> dict:
    """The solve's statistics, as the table keeps them."""
    return {
        "seconds": seconds,
        "players": setup.players,
        "sweeps": state.sweeps,
        "sweep_changes": state.sweep_changes,
        "error_bound": error_bound(state.sweep_changes) if setup.has_falls else 0.0,
        "turn_starts": setup.nodes,
        "turn_dp_runs": state.total_passes,
        "keep_evaluations": state.rows_run * len(setup.dice.keep_units),
        "mixed_blocks": len(solution.equilibria),
    }


def solve_players(rules: Rules, players: int, space: PlayerSpace | None = None,
                  tol: float = 1e-12, max_sweeps: int = 200, progress=None) -> MultiSolution:
    """Solve the game with ``players`` players (3 or more; two players is
    :func:`solver.engine.two_player.solve`, which this equals there). On a
    Dask cluster: :func:`solver.tables.cluster.solve_players_cluster`."""
    started = time.perf_counter()
    setup = Setup.of(rules, players, space)
    V, take_values = setup.start_values()
    solution = setup.solution(V, take_values)
    values = MultiValues(V, take_values, setup.reach)

    def solve_blocks(level, b0, b1, first_sweep, passes, changes):
        setup.solve_blocks(values, level, b0, b1, first_sweep, passes, changes)

    chunksize = set_parallel_chunksize(1)
    try:
        state = run_sweeps(setup, solution, solve_blocks, tol, max_sweeps, progress)
    finally:
        set_parallel_chunksize(chunksize)
    solution.stats = sweep_stats(setup, state, solution, time.perf_counter() - started)
    return solution

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
"""

from __future__ import annotations

import time

import numpy as np
from numba import set_parallel_chunksize

from solver.engine.convergence import error_bound, sweeps_expected
from solver.engine.equilibrium import settle_block
from solver.engine.final_round_n import final_round_reach_n
from solver.engine.n_player_blocks import NEWTON_TOL, build_multi_blocks, no_plan, solve_level_n
from solver.engine.solution_n import MultiSolution
from solver.engine.turn import pad
from solver.engine.turn_kernel_n import MultiValues, Seats
from solver.model.dice import keep_table
from solver.model.rules import Rules
from solver.model.states import PlayerSpace, player_space
from solver.model.turn_rules import TurnRules, rows_past_target

# ---------------------------------------------------------------- the solve

def solve_players(rules: Rules, players: int, space: PlayerSpace | None = None,
                  tol: float = 1e-12, max_sweeps: int = 200, progress=None) -> MultiSolution:
    """Solve the game with ``players`` players (3 or more; two players is
    :func:`solver.engine.two_player.solve`, which this equals there)."""
    started = time.perf_counter()
    space = space or player_space(rules, "exact")
    N = players
    seats = Seats.of(N, space)
    blocks = build_multi_blocks(space, N)
    target = rules.target_units
    dice = keep_table(rules).packed()
    turn = TurnRules.of(rules)
    moves = space.moves()
    takers = int(np.sum(moves.take_row >= 0))
    take_rows = takers * seats.middle * seats.banked_states
    take_values = np.zeros((max(take_rows, 1), target if takers else 1,
                            max(rules.dice - 1, 1), N))
    V = np.full((space.size ** N, N), 1.0 / N)
    reach = final_round_reach_n(rules, space, N)
    values = MultiValues(V, take_values, reach)
    n_blocks = len(blocks.block_start) - 1
    passes = np.zeros(n_blocks, dtype=np.int64)
    changes = np.zeros(n_blocks)
    a_rows = pad(rules, turn.rows)
    has_falls = bool(np.any(space.score[space.zero_next] < space.score))
    solution = MultiSolution(rules, space, N, V, take_values,
                             reach=reach if rules.final_round else None)
    sweeps, sweep_changes, total_passes, rows_run = 0, [], 0, 0
    # Work per node and DP pass: the rows of its turn DP (to the target for
    # a node whose roll values are kept for take-over).
    past = rows_past_target(turn, reach.shape[1])
    node_rows = np.minimum(turn.rows, 1 + target + past - space.score[blocks.node // seats.lead])
    block_rows = np.add.reduceat(node_rows, blocks.block_start[:-1])
    block_sizes = np.diff(blocks.block_start)
    chunksize = set_parallel_chunksize(1)
    try:
        while True:
            sweeps += 1
            before = V.copy() if has_falls else None
            # A sweep settles every cycling block again (its inputs moved):
            # what the last sweep found is what the table keeps.
            solution.mixed.clear()
            solution.equilibria.clear()
            for j in range(len(blocks.level_start) - 1):
                b0, b1 = blocks.level_start[j], blocks.level_start[j + 1]
                solve_level_n(b0, b1, blocks, seats, turn, dice, moves, values, sweeps == 1,
                              a_rows, no_plan(), passes, changes)
                total_passes += int(passes[b0:b1] @ block_sizes[b0:b1])
                rows_run += int(passes[b0:b1] @ block_rows[b0:b1])
                for b in np.flatnonzero(changes[b0:b1] > NEWTON_TOL) + b0:
                    settle_block(solution, blocks, int(b), turn, dice, moves, a_rows)
                if progress is not None:
                    done = int(blocks.block_start[b1]) + (sweeps - 1) * len(V)
                    expected = (sweeps_expected(sweep_changes, tol, max_sweeps) if has_falls
                                else 1)
                    progress(done, len(V) * max(expected, sweeps))
            if not has_falls:
                break
            sweep_changes.append(float(np.max(np.abs(V - before))))
            if error_bound(sweep_changes) < tol or sweeps >= max_sweeps:
                break
    finally:
        set_parallel_chunksize(chunksize)
    solution.stats = {
        "seconds": time.perf_counter() - started,
        "players": N,
        "sweeps": sweeps,
        "sweep_changes": sweep_changes,
        "error_bound": error_bound(sweep_changes) if has_falls else 0.0,
        "turn_starts": len(V),
        "turn_dp_runs": total_passes,
        "keep_evaluations": rows_run * len(dice.keep_units),
        "mixed_blocks": len(solution.equilibria),
    }
    return solution

"""What a seat wins by playing another policy against the table's players.

One player, *D*, plays a policy of their own (the race-of-duels model,
:mod:`solver.advice.duels`: the turn DP over the model's values ``M1`` of every
turn start, the next player's turn looked ahead; the two-player policy:
the two-player table against the leader; or a strategy card,
:mod:`solver.cards.card`); every other player plays
the table's equilibrium (with two players: the two-player table). The
exact chance of D winning is a fixed-policy evaluation over the turn
starts, with D's place as part of the state:

    U[o, node] = chance that D wins, D sitting o seats after the mover.

Every decision is given, so a turn is a plain expectation (no max),
:mod:`solver.cards.seat_kernel`'s equations; the decisions are D's where D
moves (``o = 0``; the model's take-over decision is its turn DP's; the
two-player policy prices the offer against the player who made it; a
card's is the card's rule, or the table's at turn starts where a score is
within ``table_within`` of the target: the card until then, ``farkle
advise`` after) and the table's elsewhere, its mixed decisions included.
The equations have the solver's structure: levels from the top down, and
inside a block ``U_j = c_j + b_j U_{s(j)}`` over the pairs ``(o, node)`` with
``s(o, node) = (o - 1, node after a zero turn)``, one successor each, solved
exactly (:func:`solver.engine.two_player.solve_functional`); with falls, sweeps until
nothing moves, from the table's own chances. The policies being fixed, the
sweeps are a linear iteration ``U <- G U + h``; once the ratio of
successive changes settles at ``q`` (:func:`solver.engine.convergence.settled_ratio`) the
error lies mostly along G's leading direction, and one step
``U <- U + (U - U_prev) q / (1 - q)`` jumps to its limit (Aitken's
extrapolation); the distance left is then measured afresh. D in seat ``s``
at the game start is ``U[s - 1, start]``.

With a final round (``Rules.final_round``; a card or the table, not the
duel nor the model) a turn goes on past the target, and a bank ``k``
units past it is worth D's part of the table's ``reach[rest, k]``
(:func:`solver.engine.solution.final_round_reach` with two players, the
N-player table's ``reach`` with more): the waiting players' last turns
are the one-turn DP's whoever plays them, D included, so the table's
values of them are D's too. Past the target a card banks by its own rule
(:func:`solver.cards.card.card_banks`).
"""

from __future__ import annotations

import numba
import numpy as np

from solver.advice.duels import duel_values, model_values
from solver.cards.seat_kernel import (
    CARD,
    DUEL,
    MODEL,
    NO_MODEL,
    TABLE,
    Evaluation,
    Policies,
    block_plan_compiled,
    eval_level,
)
from solver.engine.convergence import error_bound, settled_ratio
from solver.engine.n_player_blocks import Levels
from solver.engine.turn import pad
from solver.engine.turn_kernel_n import NO_FINAL_ROUND, MultiValues, Seats
from solver.model.dice import keep_table
from solver.model.errors import UsageError
from solver.model.states import cross_states
from solver.model.turn_rules import TurnRules
from solver.text import N_, _


def _mix_arrays(solution):
    entries = sorted((node, entry) for node, items in solution.mixed.items() for entry in items)
    columns = [[], [], [], [], [], [], []]
    for node, (kind, t, *rest) in entries:
        a, main, alt, q = (rest[0], 0, 0, rest[1]) if kind == "bank" else rest
        for column, value in zip(columns, (node, kind == "keep", t, a, main, alt, q)):
            column.append(value)
    ints = [np.array(c, dtype=np.int64) for c in columns[:6]]
    return (*ints, np.array(columns[6], dtype=float))


def duel_seat_values(solution, duel_solution, tol: float = 1e-12, max_sweeps: int = 200,
                     model: bool = True) -> np.ndarray:
    """D's chance in each seat (seat 1 first) when D plays the two-player
    policy against the leader (``duel_solution``: the two-player table of
    the same rules, on the same player states) and everyone else the
    N-player ``solution``; with ``model=False`` D plays the table too (a
    check of the evaluation)."""
    space = solution.space
    if duel_solution.space.size != space.size or \
            not np.array_equal(duel_solution.space.score, space.score):
        raise ValueError("the duel table must be on the N-player table's player states")
    _no_final_round(solution.rules, N_("the two-player policy"))
    duel = duel_values(duel_solution)
    policies = Policies(np.asarray(solution.V), np.asarray(solution.take_values),
                        *_mix_arrays(solution), duel.V, duel.take_values, *NO_MODEL,
                        NO_FINAL_ROUND)
    start = solution.node_of([solution.start_state()] * solution.players)
    return _evaluate(solution.rules, space, solution.players, policies,
                     DUEL if model else TABLE, None, start, tol, max_sweeps)


def model_seat_values(solution, two, values: MultiValues | None = None, tol: float = 1e-12,
                      max_sweeps: int = 200) -> np.ndarray:
    """D's chance in each seat (seat 1 first) when D plays the race-of-duels
    model (:mod:`solver.advice.duels`, from ``two``, the two-player
    table of the same rules on the same player states) and everyone else
    the N-player ``solution``; or the turn DP over other ``values`` of every
    turn start."""
    _no_final_round(solution.rules, N_("the race-of-duels model"))
    values = model_values(two, solution.players) if values is None else values
    policies = Policies(np.asarray(solution.V), np.asarray(solution.take_values),
                        *_mix_arrays(solution), *NO_MODEL, values.V, values.take_values,
                        NO_FINAL_ROUND)
    start = solution.node_of([solution.start_state()] * solution.players)
    return _evaluate(solution.rules, solution.space, solution.players, policies, MODEL, None,
                     start, tol, max_sweeps)


def card_seat_values(solution, card, tol: float = 1e-12, max_sweeps: int = 200,
                     table_within: int = 0) -> np.ndarray:
    """D's chance as the first and as the second player when D plays
    ``card`` (a :class:`solver.cards.record.Card`) against the two-player table
    ``solution`` (a :class:`solver.engine.solution.Solution`); ``card=None``: D
    plays the table too (a check: the table's own values). With
    ``table_within`` points, D plays the card until either player is within
    that of the target and the table from then on (``farkle advise``)."""
    rules, space = solution.rules, solution.space
    duel = duel_values(solution)
    no_mix = [np.zeros(0, dtype=np.int64)] * 6 + [np.zeros(0)]
    policies = Policies(duel.V, duel.take_values, *no_mix, duel.V, duel.take_values, *NO_MODEL,
                        _two_player_reach(solution))
    start_state = space.index_of_score(0)
    start = start_state * space.size + start_state
    return _evaluate(rules, space, 2, policies, TABLE if card is None else CARD,
                     None if card is None else card.compiled(rules), start, tol, max_sweeps,
                     table_within)


def card_seat_values_n(solution, card, tol: float = 1e-12, max_sweeps: int = 200) -> np.ndarray:
    """D's chance in each seat (seat 1 first) when D plays ``card`` against
    the leader (the card reads the leader's score as the other player's)
    and everyone else the N-player ``solution``
    (:class:`solver.engine.solution_n.MultiSolution`); ``card=None``: D plays
    the table too (a check: the table's own seat values)."""
    table_V, table_take = np.asarray(solution.V), np.asarray(solution.take_values)
    # The duel's arrays are read only where D plays the duel: the table's
    # stand in for them.
    reach = np.asarray(solution.reach) if solution.rules.final_round else NO_FINAL_ROUND
    policies = Policies(table_V, table_take, *_mix_arrays(solution), table_V, table_take,
                        *NO_MODEL, reach)
    start = solution.node_of([solution.start_state()] * solution.players)
    return _evaluate(solution.rules, solution.space, solution.players, policies,
                     TABLE if card is None else CARD,
                     None if card is None else card.compiled(solution.rules), start, tol,
                     max_sweeps)


def _two_player_reach(solution) -> np.ndarray:
    """The two-player table's ``Values.reach`` (what a bank ``k`` units
    past the target is worth to the mover against ``w``) as the vectors
    ``reach[w, k]`` of :class:`solver.engine.turn_kernel_n.MultiValues`:
    the mover's chance, then the waiting player's."""
    if not solution.rules.final_round:
        return NO_FINAL_ROUND
    reach = np.asarray(solution.values().reach)
    return np.ascontiguousarray(np.stack([reach, 1.0 - reach], axis=-1))


def _no_final_round(rules, what: str) -> None:
    """A UsageError where ``rules`` have a final round: ``what`` does not
    play one (its turn DP ends a game at the target)."""
    if rules.final_round:
        raise UsageError(_("{game}: {what} is not evaluated with a final round").format(
            game=rules.name, what=_(what)))


def _evaluate(rules, space, N, policies, mode, card, start, tol, max_sweeps,
              table_within: int = 0) -> np.ndarray:
    """The sweeps of the module's equations; D's chance in each seat. With
    ``table_within`` points, a card's player plays the table once any
    player is within that of the target."""
    from solver.cards.record import Card
    seats, duel_seats = Seats.of(N, space), Seats.of(2, space)
    levels = Levels(space, N)
    dice = keep_table(rules).packed()
    turn = TurnRules.of(rules)
    moves = space.moves()
    if card is None:       # numba wants a record of the card's type all the same
        card = Card(rules.name, (0,) * rules.dice).compiled(rules)
    take_shape = policies.table_take.shape[:3]
    modelled = mode == MODEL and rules.has_takeover
    # The table's own chances are the first guess: the policies differ little.
    evaluation = Evaluation(np.ascontiguousarray(policies.table_V.T), np.zeros((N,) + take_shape),
                            np.zeros(take_shape if modelled else (1, 1, 1)),
                            np.zeros(take_shape[0] if modelled else 1))
    # With a final round a turn holds totals past the target too.
    a_rows = pad(rules, turn.rows)
    # A score no player holds (the target and past it are not states) where
    # the card plays throughout.
    table_from = rules.target_units - table_within // rules.unit if table_within \
        else rules.target_units + 1
    has_falls = bool(np.any(space.score[space.zero_next] < space.score))
    crossed = cross_states(rules, space)
    sweep_changes = []
    threads = numba.config.NUMBA_NUM_THREADS
    # The plans of a thread's block: made for the largest block seen so far,
    # made anew where a level has a larger one.
    pool, room = None, 0
    for _sweep in range(max_sweeps):
        before = evaluation.U.copy() if has_falls else None
        change = 0.0
        # A level's blocks at a time (230 bytes a node if all were held).
        for j in range(len(levels)):
            blocks = levels.blocks(j)
            sizes = np.diff(blocks.block_start)
            if sizes.max() > room:
                pool, room = None, int(sizes.max())
                pool = block_plan_compiled(2 * room * threads, turn.rows, rules.dice,
                                           len(dice.prob))
            changes = np.zeros(len(sizes))
            eval_level(0, len(sizes), blocks, seats, duel_seats, turn, dice, moves,
                       policies, evaluation, a_rows, pool, threads, mode, card, crossed,
                       table_from, changes)
            change = max(change, float(changes.max()))
        sweep_changes.append(change)
        if not has_falls or error_bound(sweep_changes) < tol:
            break
        q = settled_ratio(sweep_changes)
        if q is not None:
            # The policies are fixed, so the sweeps are a linear iteration whose
            # error, once the ratio settles, is mostly along one direction:
            # jump to its limit, then measure the distance afresh.
            evaluation.U[:] += (evaluation.U - before) * (q / (1.0 - q))
            sweep_changes.clear()
    return evaluation.U[:, start].copy()

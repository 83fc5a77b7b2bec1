"""Making a table: solve a game (any memory), check it, write it; and what
that is expected to cost.

``solve_game`` solves a game without crosses directly and a game with
crosses either with the exact previous-score memory or with the crosses
model of :mod:`solver.engine.memory` (its fall estimates come from the game without
crosses, which also seeds the model's sweeps). ``solve_and_write`` adds the
Bellman-residual check and the atomic write of :mod:`solver.tables.files`.

The solve-time estimate is turn starts x rows x keeps of a turn DP, about
2.2 DP passes per turn start (1.5 with more players; with crosses, as 7
passes: see ``estimated_solve_seconds``), at the rate measured on the
project's 2-core machine (BENCHMARKS.md, keep evaluations per second).
"""

from __future__ import annotations

import dataclasses
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from solver.model.errors import UsageError
from solver.engine.memory import MEMORIES, estimate_fall_to
from solver.model.rules import Rules
from solver.model.states import player_space

SOLVE_RATE = float(os.environ.get("FARKLE_SOLVE_RATE", 7.0e8))
PLAYER_COST = 1.0
"""Cost of the N-player DP per player, relative to the two-player DP's."""
MAX_PLAYER_BYTES = 12e9
"""Largest N-player solve attempted (start and take-over values in memory)."""
"""Keep evaluations per second of the solver on the project's 2-core
machine; ``$FARKLE_SOLVE_RATE`` tells the estimates another machine's."""


def solve_game(rules: Rules, memory: str = "model", progress=None, tol: float = 1e-12):
    """Solve any game: without crosses directly; with crosses, the exact
    memory or the model (module docstring)."""
    from solver.engine.two_player import solve
    if not rules.crosses:
        return solve(rules, tol=tol, progress=progress)
    if memory not in MEMORIES:
        raise UsageError(f"unknown memory {memory!r}: use {' or '.join(MEMORIES)}")
    if memory == "exact":
        return solve(rules, space=player_space(rules, "exact"), tol=tol, progress=progress)
    crossless = solve(dataclasses.replace(rules, crosses=0), tol=tol)
    fall_to = estimate_fall_to(rules, crossless)
    space = player_space(rules, "model", fall_to)
    at_score = np.searchsorted(crossless.space.score, space.score)
    initial = crossless.W[np.ix_(at_score, at_score)]
    return solve(rules, space=space, tol=tol, progress=progress, initial=initial)


def solve_and_write(rules: Rules, out: Path | None = None, tolerance: float = 1e-12,
                    memory: str | None = None, progress=None, players: int = 2):
    """Solve, check the Bellman residual, write the table; returns
    ``(solution, path, residual)``."""
    from solver.tables.files import write_table
    from solver.tables.paths import user_table_path
    if players == 2:
        from solver.engine.solution import bellman_residual
        solution = solve_game(rules, memory or "model", tol=tolerance, progress=progress)
        residual = bellman_residual(solution)
    else:
        from solver.engine.solution_n import bellman_residual_n
        solution = solve_players_game(rules, players, memory, tol=tolerance, progress=progress)
        residual = bellman_residual_n(solution)
    path = out or user_table_path(rules, memory, players)
    write_table(solution, path, tolerance, residual)
    return solution, path, residual


def check_players(rules: Rules, players: int, memory: str | None = None) -> None:
    """Refuse a number of players outside 2 to 6, and an N-player game out
    of reach exactly: its start values alone would pass MAX_PLAYER_BYTES
    (the exact memory is the only one with three or more players)."""
    from solver.engine.solution_n import check_player_count
    check_player_count(players)
    if players == 2:
        return
    if memory == "model":
        raise UsageError("with three or more players the table keeps every previous score "
                         "(--memory exact); the crosses model is for two players")
    if not in_reach(rules, players):
        size = estimated_table_bytes(rules, "exact", players, compressed=False)
        raise UsageError(f"{rules.name} to {rules.target} with {players} players is out of "
                         f"reach exactly (about {size / 1e9:.0f} GB of values); try a smaller "
                         f"--target")


def in_reach(rules: Rules, players: int) -> bool:
    """Whether the exact game of ``players`` fits: two players always do,
    more while their start values stay within MAX_PLAYER_BYTES."""
    if players == 2:
        return True
    # A bound that answers without building the states (1 s for dix-mille at
    # 10,000): every score from the entry up is a player state, and with
    # crosses so is (at least half of) every pair of such a score and a lower
    # previous one.
    entered = rules.target_units - rules.entry_units
    states = max(entered + 1, entered * (entered - 1) // 4 if rules.crosses else 0)
    if 8 * players * states ** players > MAX_PLAYER_BYTES:
        return False
    return estimated_table_bytes(rules, "exact", players, compressed=False) <= MAX_PLAYER_BYTES


def solve_players_game(rules: Rules, players: int, memory: str | None = None, progress=None,
                       tol: float = 1e-12):
    """The N-player game, exactly (:mod:`solver.engine.n_player`)."""
    from solver.engine.n_player import solve_players
    check_players(rules, players, memory)
    return solve_players(rules, players, player_space(rules, "exact"), tol=tol,
                         progress=progress)


def estimated_table_bytes(rules: Rules, memory: str | None = None, players: int = 2,
                          compressed: bool = True) -> int:
    """A rough table size: the start values, and the take-over values of the
    offers a bank can make (about half of every taker x banked state x turn
    total x dice), compressed to about 0.2 of their bytes with two players
    (coded: solver.tables.take_codes) and 0.45 with more (BENCHMARKS.md).
    The banked states (where a bank leads) are the scores alone with
    crosses: a bank erases them. The exact memory of two players keeps one
    turn total per banked state (``PlayerSpace.offers``). With N players
    every node holds N values, and the take-over values are kept per taker,
    banker and the N - 2 players between."""
    states = _state_count(rules, memory if players == 2 else "exact")
    size = 8 * states ** players * (1 if players == 2 else players)
    if rules.has_takeover:
        taking = sum(1 for s in range(rules.target_units) if s >= rules.takeover_min_units)
        takers = taking * states // rules.target_units
        banked = rules.target_units if rules.crosses else states
        # Rows per banked state, and the share of them a bank can make.
        offer_rows, made = rules.target_units, 0.5
        if players == 2 and rules.crosses and memory == "exact":
            space = _exact_space(rules)
            banked, offer_rows, made = int(np.sum(space.bank_slot >= 0)), space.offers[1], 1.0
        rows = takers * banked * states ** (players - 2)
        ratio = (0.2 if players == 2 else 0.45) * made if compressed else 1
        size += int(ratio * 8 * rows * offer_rows
                    * (rules.dice - 1) * (1 if players == 2 else players))
    return size


def _state_count(rules: Rules, memory: str | None) -> int:
    if rules.crosses and memory != "exact":
        return 1 + 4 * rules.target_units          # (score, crosses) and fallen
    return _exact_space(rules).size


@lru_cache(maxsize=4)
def _exact_space(rules: Rules):
    """The exact memory's player states, built once for the estimates
    (0.8 s for dix-mille at 10,000)."""
    return player_space(rules, "exact")


def estimated_solve_seconds(rules: Rules, memory: str | None = None, players: int = 2) -> float:
    """A rough solve time on the project's machine (module docstring)."""
    from solver.model.dice import keep_table
    states = _state_count(rules, memory if players == 2 else "exact")
    dice = keep_table(rules).packed()
    # A roll class costs about as much as a keep (its probability, its
    # zero-roll test): under the keep rule "all" a class has one keep. A
    # class with a base compares only its extra keeps (solver.engine.turn_kernel).
    work_per_row = len(dice.prob) + len(dice.extra_units)
    # Newton runs about 2.2 DP passes a turn start with two players (2.16
    # in quinze-mille, BENCHMARKS.md), about 1.5 with more (1.49 in
    # 3-player cinq-mille-10000: most steps are accepted without the pass
    # that would confirm them); with crosses, 16 to 24 sweeps of one pass
    # each, but four movers share a DP and the settled sweeps skip the
    # slopes: as 7 passes at the one-mover rate (143 s and 180 s measured for
    # dix-mille-free-keep and dix-mille, BENCHMARKS.md 2026-12-02). With N
    # players the DP carries N values and runs a full Newton per block each
    # sweep.
    passes = 7 if rules.crosses else 2.2 if players == 2 else 1.5
    per_player = 1.0 if players == 2 else PLAYER_COST * players
    return passes * per_player * states ** players * rules.target_units * work_per_row / 2 \
        / SOLVE_RATE

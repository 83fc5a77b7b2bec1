"""What making a table will cost, before it is made: its size, the memory
of its solve, the time on this machine, and whether an N-player game is
in reach at all; each refusal one line.

The solve-time estimate is turn starts x rows x keeps of a turn DP, about
2.2 DP passes per turn start (1.5 with more players; with crosses, as 7
passes: see ``estimated_solve_seconds``), at the rate measured on the
project's 2-core machine (BENCHMARKS.md, keep evaluations per second),
corrected by what this machine's own solves took against their estimates
(:mod:`solver.tables.calibration`).
Player states are counted from the rules, not built, so an absurd target
is refused at once.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from solver.model.errors import UsageError
from solver.model.last_turn import past_target_units
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.model.states import first_bank_units
from solver.tables import calibration
from solver.text import N_, _, number

SOLVE_RATE = float(os.environ.get("FARKLE_SOLVE_RATE", 7.0e8))
"""Keep evaluations per second of the solver on the project's 2-core
machine; ``$FARKLE_SOLVE_RATE`` tells the estimates another machine's."""
PLAYER_COST = 0.45
"""Cost of the N-player DP per player, relative to the two-player DP's."""
ROW_COST, ROW_COST_PLAYERS = 150, 80
"""The fixed cost of a roll class's row in a turn DP, in keep evaluations
(its probability, its zero-roll test, the row's bookkeeping), with two
players and with more. With PLAYER_COST and the passes of
``estimated_solve_seconds``, fitted to the solves measured on 2026-12-06
(two players: quinze-mille 20.8 s, quinze-mille-free-keep 32.5 s, both
dix-milles; more: 3-player Pig 13 s and cinq-mille 30 s), whose
estimates they put within 1.5 times the measured time (BENCHMARKS.md;
4-player Pig to 80 is over-estimated 1.6 times). What a machine's own
solves took corrects them there (solver.tables.calibration)."""
MAX_PLAYER_BYTES = 12e9
"""Largest N-player solve attempted (start and take-over values in memory)."""


def check_players(rules: Rules, players: int, memory: str | None = None) -> None:
    """Refuse a number of players outside 2 to 6, and an N-player game out
    of reach exactly: its start values alone would pass MAX_PLAYER_BYTES
    (the exact memory is the only one with three or more players)."""
    from solver.engine.solution_n import check_player_count
    check_player_count(players)
    if players == 2:
        return
    if rules.final_round and rules.min_bank:
        # solver.engine.final_round_n: its last turns' DP is over the score.
        raise UsageError(_("{game}: a final round with a minimum bank is solved for two "
                           "players only (for now)").format(game=rules.name))
    if memory == "model":
        raise UsageError(_("with three or more players the table keeps every previous score "
                           "(--memory exact); the crosses model is for two players"))
    if not in_reach(rules, players):
        size = estimated_table_bytes(rules, "exact", players, compressed=False)
        raise UsageError(_("{game} to {target} with {players} players is out of reach "
                           "exactly (about {size} GB of values); try a smaller --target").format(
                               game=rules.name, target=figure(rules.target), players=players,
                               size=figure(round(size / 1e9))))


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
    banker and the N - 2 players between; a final round's ``reach`` holds N
    values per state of the others and total past the target."""
    states = _state_count(rules, memory if players == 2 else "exact")
    size = 8 * states ** players * (1 if players == 2 else players)
    if rules.has_takeover:
        taking = sum(1 for s in range(rules.target_units) if s >= rules.takeover_min_units)
        takers = taking * states // rules.target_units
        banked = rules.target_units if rules.crosses else states
        # Rows per banked state, and the share of them a bank can make.
        offer_rows, made = rules.target_units, 0.5
        if players == 2 and rules.crosses and memory == "exact":
            # A state (s, p, 0) is reached by one turn total, s - p.
            banked, offer_rows, made = _exact_counts(rules)[1], 1, 1.0
        rows = takers * banked * states ** (players - 2)
        ratio = (0.2 if players == 2 else 0.45) * made if compressed else 1
        size += int(ratio * 8 * rows * offer_rows
                    * (rules.dice - 1) * (1 if players == 2 else players))
    if rules.final_round and players > 2:
        # reach: a vector per other players' states and total past the target
        ratio = 0.45 if compressed else 1
        size += int(ratio * 8 * players * states ** (players - 1)
                    * (past_target_units(rules) + 1))
    return size


def _state_count(rules: Rules, memory: str | None) -> int:
    if rules.fall_penalty:
        # (score, crosses) from the floor up (the floor's line alone)
        return 1 + rules.crosses * (rules.target_units - rules.floor_units - 1)
    if rules.crosses and memory != "exact":
        # (score, crosses) and fallen
        return 1 + (rules.crosses + 1) * rules.target_units
    return _exact_counts(rules)[0]


def _exact_counts(rules: Rules) -> tuple[int, int]:
    """``(states, banked)``: the exact memory's player states and those a
    bank leads to, counted from the rules (a game to any target at once;
    the states are :func:`solver.model.states.check_line`'s lines, and
    tests/test_bad_input.py counts them against ``player_space``). Without
    crosses: 0 and every score from the first bank up to the cap. With
    crosses: (s, p, c) for every bank from p (0 or a score) to s and every
    cross c, and the fallen (p, p) from which a bank is still possible."""
    target, first = rules.target_units, first_bank_units(rules)
    if rules.fall_penalty:
        # (score, crosses) from the floor up; a bank of at least the
        # minimum leads to every score from floor + minimum, crosses 0.
        step = max(rules.min_bank_units, 1)
        return _state_count(rules, None), target - rules.floor_units - step
    if not rules.crosses:
        cap = rules.score_cap_units
        cap = target - 1 if cap is None else cap
        return 1 + cap - min(first, cap) + 1, cap - min(first, cap) + 1
    step = max(rules.min_bank_units, 1)
    above = max(0, target - step - first)        # scores p that still bank to p + step
    banks = (target - first) + above * (above + 1) // 2
    return 1 + above + rules.crosses * banks, banks


BASE_BYTES = 250_000_000
"""Memory of a solve before its arrays: the interpreter, numpy, numba, h5py
and the compiled kernels (the peak of Pig to 100: 264 MB, BENCHMARKS.md)."""
NODE_BYTES = 120
"""Bytes a turn start (a pair of player states) takes while the two-player
solver builds its blocks (tracemalloc: 115 in dix-mille's exact memory to
2,500, 148 in Pig to 2,000)."""
BANK_BYTES = 130
"""Bytes a (score, turn total) bank takes while the player states are
built in Python (tracemalloc: 129 in Pig to 2,000)."""


def estimated_solve_bytes(rules: Rules, memory: str | None = None, players: int = 2) -> int:
    """A rough peak memory of a solve, from the rules alone (nothing is
    built): what the process holds before, the player states as they are
    built, the blocks of turn starts (with two players; with more, a
    level's blocks at a time, which the values dwarf), and the start and
    take-over values (``estimated_table_bytes`` uncompressed). Against the
    peaks measured (BENCHMARKS.md): quinze-mille 0.94 GB for 0.86,
    dix-mille 1.32 for 1.39, 4-player Pig to 70 1.04 for 0.99, 4-player
    cinq-mille to 3,000 0.39 for 0.34."""
    memory = memory if players == 2 else "exact"
    target = rules.target_units
    states = _state_count(rules, memory)
    scores = _exact_counts(dataclasses.replace(rules, crosses=0))[0]
    building = BANK_BYTES * scores * target // 2 + 8 * states * target
    per_node = NODE_BYTES if players == 2 else 0
    return (BASE_BYTES + building + per_node * states ** players
            + estimated_table_bytes(rules, memory, players, compressed=False))


def available_memory() -> int | None:
    """Bytes of memory this machine can still give: MemAvailable of
    /proc/meminfo (Linux), else the free physical pages (os.sysconf);
    within a memory cgroup's limit where one is set (v2 or v1). None where
    none of them is known."""
    free = None
    try:
        with open("/proc/meminfo") as file:
            for line in file:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if free is None:
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, OSError, ValueError):
            return None
    for limit, used in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                         "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            free = min(free, int(Path(limit).read_text()) - int(Path(used).read_text()))
        except (OSError, ValueError):
            pass                            # none here, or "max": no limit
    return free


def check_memory(rules: Rules, memory: str | None = None, players: int = 2) -> None:
    """Refuse, before anything is allocated, a solve whose estimated peak
    (``estimated_solve_bytes``) is more than the memory this machine can
    still give (``available_memory``): one line with both."""
    needed, free = estimated_solve_bytes(rules, memory, players), available_memory()
    if free is None or needed <= free:
        return
    message = N_("{game} to {target} needs about {needed} of memory to solve and this "
                 "machine has {free} free: try a smaller --target") if players == 2 else \
        N_("{game} to {target} with {players} players needs about {needed} of memory to "
           "solve and this machine has {free} free: try a smaller --target")
    raise UsageError(_(message).format(game=rules.name, target=number(rules.target),
                                       players=players, needed=_gigabytes(needed),
                                       free=_gigabytes(free)))


def _gigabytes(size: int) -> str:
    return _("{size} GB").format(size=number(size / 1e9, 1 if size < 1e10 else 0))


def estimated_solve_seconds(rules: Rules, memory: str | None = None, players: int = 2,
                            calibrated: bool = True) -> float:
    """A rough solve time (module docstring): on the project's machine, or
    ``calibrated`` on this one by the solves it has timed
    (:mod:`solver.tables.calibration`)."""
    from solver.model.dice import keep_table
    states = _state_count(rules, memory if players == 2 else "exact")
    dice = keep_table(rules).packed()
    # A class with a base compares only its extra keeps
    # (solver.engine.turn_kernel); under the keep rule "all" a class has
    # one keep. Each roll class's row also costs a fixed ROW_COST.
    row_cost = ROW_COST if players == 2 else ROW_COST_PLAYERS
    work_per_row = len(dice.prob) + len(dice.extra_units) + row_cost
    # Newton runs about 2.2 DP passes a turn start with two players (2.16
    # in quinze-mille, BENCHMARKS.md), about 1.5 with more (1.49 in
    # 3-player cinq-mille-10000: most steps are accepted without the pass
    # that would confirm them). With crosses, 16 to 24 sweeps of one pass
    # each, but four movers share a DP and the settled sweeps skip the
    # slopes: as 6.5 passes with two players (dix-mille 24 sweeps, 256 s;
    # dix-mille-free-keep 16 sweeps, 222 s: BENCHMARKS.md 2026-12-06).
    # With N players the DP carries N values and runs a full Newton per
    # block each sweep: PLAYER_COST a player; crosses cost 3.5 times as
    # much again and the offers of a take-over 4 times (one point each,
    # 2026-12-06: 3-player quinze-mille to 3,000 with take-over 19.9 s,
    # 3-player dix-mille to 600, both, 8.7 s).
    if players == 2:
        passes, per_player = (6.5 if rules.crosses else 2.2), 1.0    # a penalty falls too
    else:
        passes = 1.5 * (3.5 if rules.crosses else 1.0) * (4.0 if rules.has_takeover else 1.0)
        per_player = PLAYER_COST * players
    # A turn DP's rows: half the target on average, and with a final round
    # every turn start's rows past the target as well.
    rows = rules.target_units / 2 + past_target_units(rules)
    seconds = passes * per_player * states ** players * rows * work_per_row / SOLVE_RATE
    if calibrated:
        seconds *= calibration.factor(calibration.kind_of(rules, memory, players))
    return seconds


# ------------------------------------------------------- through a cluster
# Fitted to 4-player cinq-mille to 1,500, 2,000 and 2,500 through local:2
# (benchmarks/cluster_scale.py, docs/cluster.md "How far it goes"; the two
# cores shared with other jobs, load 4 to 7: upper bounds).

CLUSTER_UNIT_SECONDS = 5.9e-9
"""Seconds a level waits on its tasks per estimated DP row and unit of a
row's work (keeps compared plus ROW_COST_PLAYERS, times PLAYER_COST a
player), for one worker: the kernel, the page faults of the values a task
maps, a worker's first setup, and the wait for the slowest task (5.65e-9
in the tasks, times 1.04)."""
CLUSTER_LEVEL_SECONDS = 0.047
"""Seconds a level costs besides its tasks' work, sweep by sweep: the round
trip through the scheduler, the tasks' start, the client's writes and record."""
CLUSTER_START_SECONDS, CLUSTER_NODE_SECONDS = 4.0, 1e-6
"""The rest of a solve where no block cycles: the local cluster's start, the
kernel loaded, the end (4.1 s in 4-player cinq-mille to 1,500); and per turn start,
the client's blocks and checkpoint (Setup.of: 0.9 us a turn start)."""
SETTLE_SECONDS = 0.5
"""Seconds of one worker to settle a block whose best responses cycle
(:func:`solver.engine.equilibrium.settle_block`: 0.49 s each for the 30 of
4-player cinq-mille to 2,000, 0.52 s for the 62 of 2,500, when the client
settled them one after the other); a level's are shared by the workers."""
CYCLING_SHARE = 2.0e-4
"""The share of blocks whose best responses cycle, sweep by sweep: the least
known term (4-player cinq-mille: none of 16,456 blocks to 1,500, 30 of
114,426 to 2,000, 62 of 420,246 to 2,500; 4-player Pig to 40, none)."""
WORKER_BASE_BYTES = 200_000_000
"""A worker before its setup: Python, numpy, numba, Dask (215 MB measured
with 65,536 turn starts)."""
SWEEPS_WITH_FALLS = 16
"""Sweeps of a game with falls (3-player dix-mille to 600: 16)."""


def estimated_cluster(rules: Rules, players: int, workers: int,
                      cycling: int | None = None) -> dict:
    """What the N-player solve of ``rules`` would cost through a cluster of
    ``workers`` Dask workers of one core, as the cluster path is built today
    (docs/cluster.md, "How far it goes"):

        seconds = start + node_s * nodes + (row_s * rows + settle_s * cycling) / workers
                  + level_s * levels * sweeps

    ``rows`` the DP rows (``passes * nodes * rows a node``, the passes and
    rows of :func:`estimated_solve_seconds`), ``row_s`` a row's cost
    (CLUSTER_UNIT_SECONDS times the row's work), ``levels`` the distinct
    sums of the players' scores, ``cycling`` the blocks whose best
    responses cycle (CYCLING_SHARE of the blocks, about ``nodes / N``, each
    sweep; ``cycling`` given, that count), settled as tasks too; the
    client's own, its setup and checkpoint (``node_s``). Bytes: ``V`` (8 N a
    turn start), the take-over values (:func:`estimated_table_bytes`,
    uncompressed), the checkpoint (both), and a worker's peak: at most its
    base and all of V mapped (a level's values are scattered across V's
    pages; a level's blocks are small beside them). Tasks: ``workers`` a
    level and sweep."""
    from solver.model.dice import keep_table
    N = players
    nodes = _state_count(rules, "exact") ** N
    dice = keep_table(rules).packed()
    work = (len(dice.prob) + len(dice.extra_units) + ROW_COST_PLAYERS) * PLAYER_COST * N
    passes = 1.5 * (3.5 if rules.crosses else 1.0) * (4.0 if rules.has_takeover else 1.0)
    rows = passes * nodes * (rules.target_units / 2 + past_target_units(rules))
    sweeps = SWEEPS_WITH_FALLS if rules.crosses or rules.fall_penalty else 1
    levels = _levels(rules, N)
    V_bytes = 8 * N * nodes
    take_bytes = estimated_table_bytes(rules, "exact", N, compressed=False) - V_bytes
    if cycling is None:
        cycling = round(CYCLING_SHARE * nodes / N * sweeps)
    client = CLUSTER_START_SECONDS + CLUSTER_NODE_SECONDS * nodes
    seconds = (client + (CLUSTER_UNIT_SECONDS * work * rows + SETTLE_SECONDS * cycling) / workers
               + CLUSTER_LEVEL_SECONDS * levels * sweeps)
    return {"nodes": nodes, "rows": rows, "levels": levels, "sweeps": sweeps,
            "tasks": levels * sweeps * workers, "seconds": seconds, "cycling": cycling,
            "client_seconds": client,
            "V_bytes": V_bytes, "take_values_bytes": take_bytes,
            "checkpoint_bytes": V_bytes + take_bytes,
            "worker_bytes": WORKER_BASE_BYTES + V_bytes}


def _levels(rules: Rules, players: int) -> int:
    """The distinct sums of ``players`` scores, each 0 or from the first bank
    to the target (from the floor with a penalty): the levels."""
    low = rules.floor_units if rules.fall_penalty else first_bank_units(rules)
    high = rules.target_units - 1
    # k players have banked, the others are at 0: the sums k low to k high.
    covered = sorted((k * low, k * high) for k in range(players + 1))
    count, end = 0, None
    for a, b in covered:
        if end is None or a > end:
            count += b - a + 1
            end = b
        elif b > end:
            count += b - end
            end = b
    return count

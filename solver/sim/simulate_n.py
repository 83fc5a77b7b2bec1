"""Play whole games with N players (2 to 6), to check the N-player tables and
compare policies.

The game loop is :mod:`solver.sim.game_loop_n` (its docstring says how a game
goes and how each policy plays); this module builds its records from the
rules, the policies (:mod:`solver.sim.policies`: ``optimal``, ``threshold:X``,
``expected``, ``random``) and the solved table (a
:class:`solver.engine.solution_n.MultiSolution` of these rules and players),
runs it in batches and reports every seat's win rate with its binomial
standard error.

This loop plays two seats as well (the very games of the two-player
simulator, tests/test_simulate_n.py), but two-player tables are
:class:`solver.engine.solution.Solution`: ``farkle simulate --players 2`` runs
:mod:`solver.sim.simulate`, and :func:`two_player_result` presents its result
in this module's form.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from solver.engine.n_player_blocks import block_plan, no_plan
from solver.engine.solution_n import check_player_count
from solver.engine.turn import pad
from solver.engine.turn_kernel_n import MultiValues, NodeMix, Seats, multi_work
from solver.model.dice import distinct_outcomes, keep_table, rolls
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.states import Moves
from solver.model.turn_rules import TurnRules
from solver.sim.dice import dice_tables
from solver.sim.game_loop_n import (
    ALL_TURNS,
    DONE,
    FALLS,
    MIXED_DRAWS,
    TAKE_OVERS,
    UNFINISHED,
    GamesN,
    OptimalN,
    TurnCache,
    run_games_n,
)
from solver.sim.policies import Policy, TableStore, parse_policy
from solver.sim.score_sheet import MAX_TURNS
from solver.sim.simulate import check_games_and_seed, check_simulated, win_rate_and_se

BATCH = 1 << 12
"""Games per call of the compiled loop (a progress report after each)."""
CACHE_BYTES = 64 * 2 ** 20
"""Memory for the optimal policy's decisions of recent nodes
(:class:`solver.sim.game_loop_n.TurnCache`)."""


# ------------------------------------------------------------------ results

@dataclass
class SimulationN:
    """Games of N seats; lists are per seat, seat 1 (moving first) first."""
    rules: str
    target: int
    seats: list[str]
    """Each seat's policy."""
    games: int
    wins: list[int]
    unfinished: int
    """Games stopped at the turn cap (counted for nobody)."""
    seconds: float
    seed: int
    turns: int = 0
    """Turns played, all games and seats."""
    take_overs: int = 0
    falls: int = 0
    mixed_draws: int = 0
    """Decisions drawn at a mixed decision of the table."""
    predicted: list[float] | None = None
    """The table's ``seat_wins`` when every seat plays it, else None."""
    shared: int = 0
    """Games whose win was shared between the two seats (a final round's
    tie: two players only), half a win each."""

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def finished(self) -> int:
        return self.games - self.unfinished

    @property
    def win_rates(self) -> list[float]:
        """Each seat's wins over the finished games, a shared game half a win."""
        return [win_rate_and_se(w, self.shared, self.finished)[0] for w in self.wins]

    @property
    def stderr(self) -> list[float]:
        """Standard error of each win rate: binomial, ``sqrt(p (1 - p) /
        finished)``, without shared games
        (:func:`solver.sim.simulate.win_rate_and_se`)."""
        return [win_rate_and_se(w, self.shared, self.finished)[1] for w in self.wins]

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    def to_json(self) -> dict:
        return {"game": self.rules, "target": self.target, "players": self.players,
                "seats": self.seats, "games": self.games, "wins": self.wins,
                "win_rates": self.win_rates, "stderr": self.stderr,
                "predicted": self.predicted, "unfinished": self.unfinished,
                "seed": self.seed, "seconds": self.seconds,
                "games_per_second": self.games_per_second,
                "turns_mean": self.turns / self.games if self.games else math.nan,
                "take_overs": self.take_overs, "falls": self.falls,
                "mixed_draws": self.mixed_draws, "shared": self.shared}

    def describe(self) -> list[str]:
        """The result as lines of text: one per seat, with the table's
        prediction and the gap in standard errors."""
        lines = [f"{self.rules} to {self.target}, {self.players} players, {self.games} games, "
                 f"seed {self.seed}"]
        width = max(len(s) for s in self.seats)
        for seat, (policy, rate, se) in enumerate(zip(self.seats, self.win_rates, self.stderr)):
            line = f"seat {seat + 1} ({policy}){'':<{width - len(policy)}}  wins " \
                   f"{100 * rate:6.2f}% +- {100 * se:.2f}%"
            if self.predicted is not None:
                predicted = self.predicted[seat]
                gap = (rate - predicted) / se if se else 0.0
                line += f"   table {100 * predicted:6.2f}% ({gap:+.1f} standard errors)"
            lines.append(line)
        lines.append("(+- one standard error)")
        if self.shared:
            lines.append(f"{self.shared} games shared (a final round's tie), half a win each")
        if self.unfinished:
            lines.append(f"{self.unfinished} games stopped at the turn cap and are not counted")
        return lines


def two_player_result(result, solution=None) -> SimulationN:
    """A :class:`solver.sim.simulate.SimulationResult` as a :class:`SimulationN`;
    ``solution`` (the two-player table) gives the prediction when both seats
    play it."""
    both_optimal = result.policy_a == result.policy_b == "optimal"
    predicted = None
    if both_optimal and solution is not None:
        first = solution.first_player_win
        predicted = [first, 1.0 - first]
    return SimulationN(result.rules, result.target, [result.policy_a, result.policy_b],
                       result.games, [result.wins_a, result.wins_b], result.unfinished,
                       result.seconds, result.seed, round(result.turns_mean * result.games),
                       predicted=predicted, shared=result.shared)


# ------------------------------------------------------------------- input

def seat_policies(players: int, seats: list[str] | None, a: str | None = None,
                  b: str | None = None) -> list[Policy] | None:
    """The policies of ``--seat`` (one per seat, seat 1 first), checked; None
    when the two-player options ``--a``/``--b`` are to be used instead."""
    check_player_count(players)
    if seats and (a is not None or b is not None):
        raise UsageError("--seat and --a/--b do not mix: give --seat once per seat "
                         "(or --a and --b with two players)")
    if not seats:
        if players != 2:
            raise UsageError(f"with {players} players give --seat POLICY once per seat "
                             f"({players} times, seat 1 first)")
        if a is None or b is None:
            raise UsageError("give --a POLICY and --b POLICY (or --seat twice)")
        return None
    if len(seats) != players:
        raise UsageError(f"--seat is given {len(seats)} time{'s' if len(seats) != 1 else ''} "
                         f"for {players} players (once per seat, seat 1 first)")
    policies = [parse_policy(text) for text in seats]
    check_card_seats(policies)
    return policies


def check_card_seats(policies: list[Policy]) -> None:
    """A UsageError where a card sits at a table of more than two: the
    compiled loop has no card of its own (its chance with N players is
    measured exactly: :func:`solver.cards.seat_value.card_seat_values_n`)."""
    if len(policies) > 2 and any(p.kind == "card" for p in policies):
        raise UsageError("the card policy plays two-player games only (its chance with more "
                         "players: farkle card GAME --players N)")


# ------------------------------------------------------------- the records

def class_of_rolls(rules: Rules, dice) -> np.ndarray:
    """For each roll of the simulator's dice tables (:func:`dice_tables`),
    its class in the turn DP's packed dice arrays: the class whose keeps
    have the roll's distinct outcomes (:func:`solver.model.dice.distinct_outcomes`)."""
    packed = keep_table(rules).packed()
    D = rules.dice
    classes = {}
    for n in range(1, D + 1):
        for c in range(packed.roll_first[n], packed.roll_first[n + 1]):
            keeps = range(packed.keep_first[c], packed.keep_first[c + 1])
            key = frozenset(("win",) if packed.keep_col[k] == 0 else
                            (int(packed.keep_units[k]), n if packed.keep_col[k] == D
                             else n - int(packed.keep_col[k])) for k in keeps)
            classes[n, key] = c
    out = np.zeros(len(dice.prob), dtype=np.int64)
    r = 0
    for n in range(1, D + 1):
        for counts, _ in rolls(n):
            key = frozenset(("win",) if win else (units, used)
                            for units, used, win in distinct_outcomes(rules, counts))
            out[r] = classes[n, key]
            r += 1
    return out


def packed_keep_used(rules: Rules) -> np.ndarray:
    """Dice set aside by each keep of the packed dice arrays."""
    packed = keep_table(rules).packed()
    n_of_class = np.repeat(np.arange(rules.dice + 1), np.diff(packed.roll_first))
    n_of_keep = np.repeat(n_of_class, np.diff(packed.keep_first))
    return np.where(packed.keep_col == rules.dice, n_of_keep,
                    n_of_keep - packed.keep_col).astype(np.int64)


def _mix_arrays(solution):
    """The table's mixed decisions by node, as :class:`OptimalN` holds them."""
    nodes = sorted(solution.mixed)
    first, rows, q = [0], [], []
    for node in nodes:
        for kind, t, *where, prob in solution.mixed[node]:
            rows.append((0, t, where[0], 0, 0) if kind == "bank" else (1, t, *where))
            q.append(prob)
        first.append(len(rows))
    return (np.array(nodes, dtype=np.int64), np.array(first, dtype=np.int64),
            np.array(rows, dtype=np.int64).reshape(-1, 5), np.array(q, dtype=np.float64))


def _state_map(rules: Rules, space) -> np.ndarray:
    """``state_of[score, previous, crosses]``: the player state of a line."""
    rows = rules.target_units
    if not rules.crosses:
        state_of = -np.ones((rows, 1, 1), dtype=np.int64)
        state_of[space.score, 0, 0] = np.arange(space.size)
        return state_of
    state_of = -np.ones((rows, rows, rules.crosses), dtype=np.int64)
    state_of[space.score, space.previous, space.crosses] = np.arange(space.size)
    return state_of


def optimal_record(rules: Rules, solution, dice, players: int) -> OptimalN:
    """The optimal policy's record from the table ``solution``, or a small
    stand-in of the same types when no seat plays it (so that one compiled
    loop serves every run)."""
    packed = keep_table(rules).packed()
    if solution is None:
        return _stand_in(players, packed)
    if len(packed.keep_units) >= 2 ** 15:
        raise UsageError(f"{rules.name} has too many keeps for the simulator's cache")
    D, rows, N = rules.dice, rules.target_units, players
    space = solution.space
    a_rows = pad(rules, rows)
    work = multi_work(rows, a_rows, D, N)
    values = MultiValues(np.ascontiguousarray(solution.V, dtype=np.float64),
                         np.ascontiguousarray(solution.take_values, dtype=np.float64))
    # The solver's block plan of one node: every decision recorded.
    plan = NodeMix(*(array[0] for array in block_plan(1, rules, len(packed.prob))))
    return OptimalN(Seats.of(N, space), packed, class_of_rolls(rules, dice),
                    packed_keep_used(rules), space.moves(), values, _state_map(rules, space),
                    *_mix_arrays(solution), work, plan, np.zeros(N), np.zeros(N),
                    _turn_cache(len(solution.V), rows, D, packed))


def _stand_in(players: int, packed) -> OptimalN:
    one, N = np.zeros(1, dtype=np.int64), players
    moves = Moves(one, np.zeros((1, 1), dtype=np.int64), one, one, one, one)
    values = MultiValues(np.zeros((1, N)), np.zeros((1, 1, 1, N)))
    mixes = (one[:0], one, np.zeros((0, 5), dtype=np.int64), np.zeros(0))
    work = multi_work(1, 1, 0, N)
    return OptimalN(Seats(N, 1, 1, 1, 1), packed, one, one, moves, values,
                    -np.ones((1, 1, 1), dtype=np.int64), *mixes, work,
                    NodeMix(*(array[0] for array in no_plan())), np.zeros(N), np.zeros(N),
                    _turn_cache(1, 1, 1, packed))


def _turn_cache(nodes: int, rows: int, D: int, packed) -> TurnCache:
    """Room for the decisions of up to ``nodes`` nodes in CACHE_BYTES
    (keeps as int16: every game has far fewer than 2^15 packed keeps)."""
    choice = np.diff(packed.keep_first) > 1
    choice_of = np.where(choice, np.cumsum(choice) - 1, -1).astype(np.int64)
    slot_bytes = rows * (2 * (D + 1) + 2 * int(choice.sum()))
    slots = max(1, min(nodes, CACHE_BYTES // slot_bytes))
    return TurnCache(choice_of, -np.ones(slots, dtype=np.int64),
                     np.zeros((slots, rows, D + 1), np.int8),
                     np.zeros((slots, rows, int(choice.sum())), np.int16),
                     np.zeros((slots, rows, D + 1), np.int8))


def _check_table(rules: Rules, solution, players: int) -> None:
    from solver.engine.solution_n import MultiSolution
    if solution is None:
        raise UsageError(f"the optimal policy needs a solved table of {rules.name} to "
                         f"{rules.target} with {players} players")
    if not isinstance(solution, MultiSolution) or solution.players != players:
        raise UsageError(f"the table is not one of {players} players")
    if solution.rules != rules:
        raise UsageError(f"the table is for {solution.rules.name} to "
                         f"{solution.rules.target}, not {rules.name} to {rules.target}")


# ------------------------------------------------------------------ driver

def simulate_n(rules: Rules, policies, games: int, seed: int = 0, solution=None,
               progress=None, max_turns: int = MAX_TURNS) -> SimulationN:
    """Play ``games`` games, seat ``i`` playing ``policies[i]`` (seat 1
    first). ``solution`` (a :class:`solver.engine.solution_n.MultiSolution`
    of these rules and as many players) is needed by the ``optimal``
    policy. ``progress(done, total)`` is called after each batch."""
    rules.validate()
    policies = [parse_policy(p) for p in policies]
    N = len(policies)
    check_player_count(N)
    check_card_seats(policies)
    check_games_and_seed(games, seed)
    check_simulated(rules, N, policies, n_player_loop=True)
    optimal = any(p.kind == "optimal" for p in policies)
    if optimal:
        _check_table(rules, solution, N)
    started = time.perf_counter()
    dice = dice_tables(rules)
    tables = TableStore(rules, N, policies).record()
    record = optimal_record(rules, solution if optimal else None, dice, N)
    state = GamesN.new(N, seed, max_turns)
    turn = TurnRules.of(rules)
    done = 0
    while done < games:
        done = min(games, done + BATCH)
        if run_games_n(turn, dice, tables, record, state, done) != DONE:
            raise RuntimeError("the simulator reached a player state that the solved table "
                               "does not hold: simulator and solver disagree")
        if progress is not None:
            progress(done, games)
    st = state.state
    everyone_optimal = all(p.kind == "optimal" for p in policies)
    return SimulationN(
        rules.name, rules.target, [str(p) for p in policies], games,
        [int(w) for w in state.wins], int(st[UNFINISHED]), time.perf_counter() - started,
        seed, int(st[ALL_TURNS]), int(st[TAKE_OVERS]), int(st[FALLS]), int(st[MIXED_DRAWS]),
        [float(v) for v in solution.seat_wins] if everyone_optimal else None)

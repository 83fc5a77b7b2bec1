"""Play whole games with real dice, to check the tables and compare policies.

The simulator has its own game loop over thrown dice and its own score
sheets; what a keep, a bank, an offer and a cross do it asks the turn rules
(:mod:`solver.model.compiled_rules`, over a :class:`solver.model.turn_rules.TurnRules`
record), which the solver asks too. The dice are
:func:`solver.sim.dice.dice_tables` (every distinct roll and its legal
keeps, from :mod:`solver.model.dice`); how each player chooses is
:mod:`solver.sim.policies` (the ``optimal`` policy reads the solved table
through :func:`solver.engine.solution.replay`).

The game loop itself is :mod:`solver.sim.game_loop`, its score sheets
:mod:`solver.sim.score_sheet`, a final round's last turn
:mod:`solver.sim.final_round`.

Optimal play with crosses (dix-mille)
-------------------------------------
A table's player state comes from the paper sheet as a
:class:`solver.model.states.Line`: score = the last entry, previous = the entry
before it (0 if none), crosses = the current crosses, mapped by
:func:`solver.sim.policies.player_states`. The tables use the one-level memory
of docs/rules.md, where a fallen player's previous score *is* their score (the
*fallen* state: nothing left to lose). So a player who has fallen since
their last bank is looked up in the fallen state ``previous = score``, even
though the sheet may still hold an older entry, which a further three
crosses will indeed strike off. ``memory="model"`` tables forget the
previous score; the policy is then the model's values with an exact
look-ahead of one turn for a mover on their last cross
(:func:`solver.sim.policies.optimal_turn` with ``zero_to``).

A penalty and a final round
---------------------------
A penalty (``fall_penalty``) plays ``after_zero_turn`` on the sheet,
scores down to the floor, below 0 (:mod:`solver.sim.score_sheet`); the
table's line is (score, crosses). A final round plays past the target and
gives the other player a last turn (:mod:`solver.sim.final_round`); a
last-turn bank equal to the score shares the game (``shared``), half a win
each in ``win_rate_a``, its standard error and :func:`match`. The card
policy plays a final round (:class:`solver.sim.policies.CardCache`: past
the target by the card's ``past_lead``, its last turn by the one-turn DP),
not yet a penalty.

Randomness: as :mod:`solver.sim.game_loop` says; ``common_dice=True`` gives
each game its own dice stream, so that two runs with the same seed throw the
same dice in every game until their players first decide differently
(common random numbers, as :func:`match` uses).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.model.turn_rules import TurnRules
from solver.sim.dice import DiceTables, dice_tables
from solver.sim.final_round import last_turn_tables
from solver.sim.game_loop import (
    DONE,
    NEED_TABLE,
    SCRIPT_END,
    UNKNOWN_SCORE,
    OptimalIndex,
    hash_put,
    run_games,
)
from solver.sim.policies import CardCache, OptimalCache, TableStore, parse_policy
from solver.sim.score_sheet import (
    ALL_TURNS,
    CROSS_A,
    CROSS_B,
    DEEP_GAMES,
    LEN_A,
    LOG_COUNT,
    MAX_TURNS,
    MOVER,
    NEED_M,
    NEED_W,
    NEED_Z,
    OUTCOMES,
    SCRIPT_POS,
    SHARED,
    SHARED_GAMES,
    UNFINISHED,
    WINNER,
    WINS_A,
    Games,
)
from solver.text import _, number

OPTIMAL_CACHE_BYTES = 512 * 2 ** 20
"""Memory for the optimal policy's per-turn-start tables; when full the
cache is emptied and refilled on demand."""

BATCH = 1 << 14
"""Games per call of the compiled loop (a progress report after each)."""

MAX_GAMES = 10 ** 9
"""The most games one run plays (a day or more at the simulator's speed)."""


def check_games_and_seed(games: int, seed: int | None) -> None:
    """A UsageError for a number of games outside 1 to MAX_GAMES, or a
    negative seed (numpy's seeds are 0 or more)."""
    if not 1 <= games <= MAX_GAMES:
        raise UsageError(_("the number of games must be 1 to {most}, not {given}").format(
            most=number(MAX_GAMES), given=number(games)))
    if seed is not None and seed < 0:
        raise UsageError(_("the seed must be 0 or more, not {given}").format(given=seed))


# ------------------------------------------------------------------ driver

@dataclass
class SimulationResult:
    rules: str
    target: int
    policy_a: str
    policy_b: str
    games: int
    wins_a: int
    """Games A won outright."""
    unfinished: int
    """Games stopped at the turn cap (counted for nobody)."""
    win_rate_a: float
    """A's wins over the finished games (A moves first), a shared game
    counting half: ``(wins_a + shared / 2) / finished``."""
    stderr: float
    """Standard error of ``win_rate_a`` (:func:`win_rate_and_se`)."""
    seconds: float
    seed: int
    turns_mean: float
    optimal_tables: int = 0
    """Turn starts replayed for the optimal policy."""
    optimal_seconds: float = 0.0
    winners: np.ndarray | None = None
    """With ``keep_winners``: each game's winner (0: A, 1: B, 2: shared, -1:
    unfinished)."""
    deep_fall_games: int = 0
    """Games in which a player who had fallen since their last bank reached a
    third cross again with a score on their sheet: the paper sheet strikes
    a second score off there, docs/rules.md's one-level memory does not (the
    only games where the two rules, and so simulator and tables, differ)."""
    common_dice: bool = False
    """Each game had its own dice stream (module docstring)."""
    shared: int = 0
    """Games shared: a final round's last turn banked a score equal to the
    score to pass (half a win each)."""

    @property
    def wins_b(self) -> int:
        """Games B won outright."""
        return self.games - self.unfinished - self.wins_a - self.shared

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    def to_json(self) -> dict:
        return {"game": self.rules, "target": self.target, "policy_a": self.policy_a,
                "policy_b": self.policy_b, "games": self.games, "wins_a": self.wins_a,
                "wins_b": self.wins_b, "unfinished": self.unfinished,
                "win_rate_a": self.win_rate_a, "stderr": self.stderr,
                "seconds": self.seconds, "games_per_second": self.games_per_second,
                "turns_mean": self.turns_mean, "seed": self.seed, "shared": self.shared}


def win_rate_and_se(wins: int, shared: int, finished: int) -> tuple[float, float]:
    """A player's win rate ``p = (wins + shared / 2) / finished`` and its
    standard error from the per-game outcomes (1, 1/2, 0): ``sqrt(v /
    finished)``, ``v = (wins + shared / 4) / finished - p^2``, the binomial
    ``sqrt(p (1 - p) / finished)`` without shared games."""
    if not finished:
        return math.nan, math.nan
    if not shared:
        rate = wins / finished
        return rate, math.sqrt(rate * (1 - rate) / finished)
    rate = (wins + shared / 2) / finished
    variance = max((wins + shared / 4) / finished - rate * rate, 0.0)
    return rate, math.sqrt(variance / finished)


class _Machine:
    """Everything one run of the compiled loop needs, as its records."""

    def __init__(self, rules: Rules, policy_a, policy_b, seed: int, solution=None,
                 max_turns: int = MAX_TURNS, script=None, start=(0, 0), log_size: int = 0,
                 solution_b=None, common_dice: bool = False, winners: int = 0,
                 one_level: bool = False):
        rules.validate()
        self.rules = rules
        self.turn_rules = TurnRules.of(rules)
        self.policies = (parse_policy(policy_a), parse_policy(policy_b))
        self.last_turn = last_turn_tables(rules)
        self.dice: DiceTables = dice_tables(rules)
        self.store = TableStore(rules, 2, self.policies)
        self.seat_cache = self._seat_caches(solution, solution_b)
        self.caches = list({id(c): c for c in self.seat_cache if c is not None}.values())
        self.max_slots = 3
        if self.caches:
            if sum(c.key_span for c in self.caches) >= 2 ** 62:
                raise UsageError(_("too many player states for the optimal policy's cache"))
            self.max_slots = max(3, min(OPTIMAL_CACHE_BYTES // self.store.slot_bytes,
                                        2 + sum(c.most_keys for c in self.caches)))
            self.store.grow(min(self.max_slots, 2 + 256))
        self.index = self._optimal_index()
        self.games = Games.new(rules, seed, max_turns, start, script, log_size, common_dice,
                               winners, one_level)

    def _seat_caches(self, solution, solution_b) -> list:
        """Each seat's optimal cache (None: not optimal); one cache per
        solved table in use, their keys apart in the shared hash."""
        rules, caches = self.rules, []
        seat_cache: list[OptimalCache | None] = [None, None]
        tables = (solution, solution if solution_b is None else solution_b)
        for seat, policy in enumerate(self.policies):
            if not policy.needs_table:
                continue
            table = tables[seat]
            if table is None:
                raise UsageError(_("the {policy} policy needs a solved table (a Solution of "
                                   "{game} to {target})").format(
                    policy=policy.kind, game=rules.name, target=figure(rules.target)))
            if table.rules != rules:
                raise UsageError(_("the table is for {game} to {target}, not {wanted} to "
                                   "{wanted_target}").format(
                    game=table.rules.name, target=figure(table.rules.target),
                    wanted=rules.name, wanted_target=figure(rules.target)))
            base = sum(c.key_span for c in caches)
            if policy.kind == "card":
                from solver.cards.store import card_for
                cache = CardCache(table, rules, card_for(rules)[0], base)
            else:
                cache = next((c for c in caches if c.solution is table
                              and not isinstance(c, CardCache)), None)
                cache = cache or OptimalCache(table, rules, base)
            if cache not in caches:
                caches.append(cache)
            seat_cache[seat] = cache
        return seat_cache

    def _optimal_index(self) -> OptimalIndex:
        # Every table of one game has line maps of one shape (player_states).
        shape = self.caches[0].state_of.shape if self.caches else (1, 1, 1)
        state_of = -np.ones((2,) + shape, dtype=np.int64)
        zero_of = -np.ones((2,) + shape, dtype=np.int64)
        states = np.zeros(2, dtype=np.int64)
        key_base = np.zeros(2, dtype=np.int64)
        for seat, cache in enumerate(self.seat_cache):
            if cache is not None:
                state_of[seat], zero_of[seat] = cache.state_of, cache.zero_of
                states[seat], key_base[seat] = cache.P, cache.base
        capacity = 1 << max(4, (2 * self.max_slots).bit_length())
        return OptimalIndex(-np.ones(capacity, dtype=np.int64), -np.ones(capacity, dtype=np.int64),
                            state_of, zero_of, states, key_base)

    @property
    def replays(self) -> int:
        return sum(c.replays for c in self.caches)

    @property
    def replay_seconds(self) -> float:
        return sum(c.seconds for c in self.caches)

    def run(self, games_end: int) -> None:
        store, index, st = self.store, self.index, self.games.state
        while True:
            status = run_games(self.turn_rules, self.dice, store.record(), index,
                               self.last_turn, self.games, games_end)
            if status == DONE:
                return
            if status == NEED_TABLE:
                self._make_room()
                cache = self.seat_cache[int(st[MOVER])]
                m, w, z = (int(st[i]) for i in (NEED_M, NEED_W, NEED_Z))
                cache.fill(store, store.used, m, w, z)
                hash_put(index.hash_keys, index.hash_slots, cache.key(m, w, z), store.used)
                store.used += 1
                continue
            if status == UNKNOWN_SCORE:
                raise RuntimeError("the simulator reached a score that the solved table "
                                   "does not hold: simulator and solver disagree")
            if status == SCRIPT_END:
                raise UsageError(_("the scripted dice ran out in the middle of a turn"))
            raise RuntimeError(f"unexpected status {status}")

    def _make_room(self) -> None:
        store = self.store
        if store.used < store.slots:
            return
        if store.slots < self.max_slots:
            store.grow(min(self.max_slots, 2 * store.slots))
            return
        self.index.hash_keys[:] = -1
        self.index.hash_slots[:] = -1
        for cache in self.caches:
            cache.resets += 1
        store.used = 2


def simulate(rules: Rules, policy_a, policy_b, games: int, seed: int = 0, solution=None,
             progress=None, max_turns: int = MAX_TURNS, solution_b=None,
             common_dice: bool = False, keep_winners: bool = False,
             one_level: bool = False) -> SimulationResult:
    """Play ``games`` games of ``policy_a`` (moving first) against
    ``policy_b``. ``solution`` (a :class:`solver.engine.solution.Solution` of these
    very rules) is needed by the ``optimal`` policy; ``solution_b``, when
    given, is the table of B's ``optimal`` policy instead (to match two
    tables of one game, say the crosses model against the exact memory).
    ``progress(done, total)`` is called after each batch of games.
    ``common_dice``: each game its own dice stream (module docstring);
    ``keep_winners``: the result's ``winners`` holds each game's winner.
    ``one_level``: play the crosses as docs/rules.md (and the tables) do, a
    fallen player's third cross changing nothing, instead of the paper
    sheet (module docstring)."""
    check_games_and_seed(games, seed)
    started = time.perf_counter()
    machine = _Machine(rules, policy_a, policy_b, seed, solution, max_turns,
                       solution_b=solution_b, common_dice=common_dice,
                       winners=games if keep_winners else 0, one_level=one_level)
    done = 0
    while done < games:
        done = min(games, done + BATCH)
        machine.run(done)
        if progress is not None:
            progress(done, games)
    seconds = time.perf_counter() - started
    st = machine.games.state
    wins_a, unfinished, shared = int(st[WINS_A]), int(st[UNFINISHED]), int(st[SHARED_GAMES])
    rate, stderr = win_rate_and_se(wins_a, shared, games - unfinished)
    return SimulationResult(
        rules=rules.name, target=rules.target, policy_a=str(machine.policies[0]),
        policy_b=str(machine.policies[1]), games=games, wins_a=wins_a, unfinished=unfinished,
        win_rate_a=rate, stderr=stderr, seconds=seconds, seed=seed,
        turns_mean=int(st[ALL_TURNS]) / games,
        optimal_tables=machine.replays, optimal_seconds=machine.replay_seconds,
        winners=machine.games.winners if keep_winners else None,
        deep_fall_games=int(st[DEEP_GAMES]), common_dice=common_dice, shared=shared)


# ------------------------------------------------------------------ matches

@dataclass
class MatchResult:
    """X against Y in both seatings on common dice (:func:`match`). Rates
    are X's wins over finished games; standard errors in ``*_se``."""
    policy_x: str
    policy_y: str
    games: int
    seed: int
    first: SimulationResult
    """X moving first (A = X)."""
    second: SimulationResult
    """Y moving first (A = Y)."""
    win_first: float
    win_first_se: float
    win_second: float
    win_second_se: float
    win_mean: float
    """The mean of the two seatings (the first player's edge cancels)."""
    win_mean_se: float
    """From the per-game means of the two seatings (they share their dice,
    so they are not independent)."""
    paired_first: float | None = None
    """With a baseline: the mean per-game difference of X's win (0 or 1)
    as A and the baseline's A on the same dice; its standard error is the
    per-game differences' standard deviation over the square root of the
    games."""
    paired_first_se: float | None = None
    paired_second: float | None = None
    """The same for X as B against the baseline's B."""
    paired_second_se: float | None = None
    paired_mean: float | None = None
    paired_mean_se: float | None = None
    differ_first: int | None = None
    """Games whose winner differs from the baseline's, X first / second."""
    differ_second: int | None = None


def won(winners: np.ndarray, seat: int) -> np.ndarray:
    """Each game's worth to ``seat``: 1 a win, 1/2 shared, 0 else."""
    return (winners == seat) + 0.5 * (winners == SHARED)


def _mean_and_se(values: np.ndarray) -> tuple[float, float]:
    if len(values) == 0:
        return math.nan, math.nan
    se = float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else math.nan
    return float(values.mean()), se


def match(rules: Rules, policy_x, policy_y, games: int, seed: int, solution=None,
          solution_y=None, one_level: bool = False, baseline: SimulationResult | None = None,
          max_turns: int = MAX_TURNS, progress=None) -> MatchResult:
    """Play ``policy_x`` against ``policy_y`` in both seatings, ``games``
    games each, with common dice from the same ``seed``: game ``i`` throws
    the same dice in both seatings until the players first decide
    differently. ``solution`` is X's solved table (and Y's, unless
    ``solution_y`` is given). ``baseline``: a run of ``simulate`` with
    ``common_dice=True, keep_winners=True`` on the same seed and number of
    games (say optimal against optimal), against which X's wins are
    compared game by game (the paired differences, far sharper than two
    binomial errors). Games stopped at the turn cap are left out of the
    per-game figures."""
    if baseline is not None and (baseline.winners is None or not baseline.common_dice
                                 or baseline.games != games or baseline.seed != seed):
        raise UsageError(_("the baseline must be played with common_dice=True and "
                           "keep_winners=True, on the same seed and number of games"))
    kw = dict(seed=seed, common_dice=True, keep_winners=True, one_level=one_level,
              max_turns=max_turns, progress=progress)
    table_y = solution if solution_y is None else solution_y
    first = simulate(rules, policy_x, policy_y, games, solution=solution, solution_b=table_y,
                     **kw)
    second = simulate(rules, policy_y, policy_x, games, solution=table_y, solution_b=solution,
                      **kw)
    x_first, x_second = won(first.winners, 0), won(second.winners, 1)
    finished_first, finished_second = first.winners >= 0, second.winners >= 0
    win_first, win_first_se = first.win_rate_a, first.stderr
    win_second, win_second_se = win_rate_and_se(second.wins_b, second.shared,
                                                second.games - second.unfinished)
    both = finished_first & finished_second
    win_mean, win_mean_se = _mean_and_se((x_first[both] + x_second[both]) / 2)
    result = MatchResult(str(parse_policy(policy_x)), str(parse_policy(policy_y)), games, seed,
                         first, second, win_first, win_first_se, win_second, win_second_se,
                         win_mean, win_mean_se)
    if baseline is None:
        return result
    base_a, base_b = won(baseline.winners, 0), won(baseline.winners, 1)
    base_finished = baseline.winners >= 0
    one, two = finished_first & base_finished, finished_second & base_finished
    result.paired_first, result.paired_first_se = _mean_and_se(x_first[one] - base_a[one])
    result.paired_second, result.paired_second_se = _mean_and_se(x_second[two] - base_b[two])
    all_three = both & base_finished
    result.paired_mean, result.paired_mean_se = _mean_and_se(
        (x_first[all_three] - base_a[all_three] + x_second[all_three] - base_b[all_three]) / 2)
    result.differ_first = int(np.sum(first.winners != baseline.winners))
    result.differ_second = int(np.sum(second.winners != baseline.winners))
    return result


# ---------------------------------------------------- scripted games (tests)

@dataclass
class ScriptedGame:
    """The end of one game played with given dice."""
    winner: str | None
    """``"A"``, ``"B"``, ``"shared"`` (a final round's tie), or None when the
    game stopped at the turn cap."""
    scores: tuple[int, int]
    sheets: tuple[list[int], list[int]]
    """Each player's score sheet: their banked scores, in points."""
    crosses: tuple[int, int]
    events: list[dict] = field(default_factory=list)
    """One per turn (and per fall): player, outcome, turn total, score after,
    whether the turn began by taking over."""
    dice_used: int = 0


def scripted_events(games: Games, unit: int) -> list[dict]:
    """The log of ``games`` as events (see :class:`ScriptedGame`)."""
    return [{"turn": int(row[1]), "player": "AB"[row[2]], "outcome": OUTCOMES[int(row[3])],
             "turn_total": int(row[4]) * unit, "score": int(row[5]) * unit,
             "took_over": bool(row[6])}
            for row in games.log[:games.state[LOG_COUNT]]]


def play_scripted(rules: Rules, policy_a, policy_b, dice, turns: int, start=(0, 0),
                  solution=None, seed: int = 0, solution_b=None) -> ScriptedGame:
    """Play one game with the dice thrown in the order given (each roll takes
    the next ``n`` values), stopping after ``turns`` turns at most. Random
    choices (the ``random`` policy) still come from ``seed``."""
    machine = _Machine(rules, policy_a, policy_b, seed, solution, max_turns=turns,
                       script=dice, start=start, log_size=4 * turns + 8,
                       solution_b=solution_b)
    machine.run(1)
    games, unit = machine.games, rules.unit
    st = games.state
    sheets = tuple([int(v) * unit for v in games.sheets[p, :st[LEN_A + p]]] for p in range(2))
    winner = None if st[WINNER] < 0 else ("A", "B", "shared")[st[WINNER]]
    return ScriptedGame(winner, (sheets[0][-1] if sheets[0] else 0,
                                 sheets[1][-1] if sheets[1] else 0),
                        sheets, (int(st[CROSS_A]), int(st[CROSS_B])),
                        scripted_events(games, unit), int(st[SCRIPT_POS]))

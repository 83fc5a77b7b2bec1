"""The exact chance of a deterministic policy in every seat against the
table's players, and where it loses: a fixed-policy evaluation of our own.

Player D plays the policy in seat ``d``; every other seat plays the table
(its decisions from the replayed turn DP, :func:`solver.engine.solution.replay`
or :func:`solver.engine.solution_n.replay_n`: bank where ``B >= R - EPS``,
the keep of the highest own chance, ties to the most points then dice,
the table's mixed decisions with their probabilities). Every decision is
then fixed, and the game is a Markov chain; instead of solving for values
backwards this walks the chain forwards, carrying the probability of
reaching each turn start (its *occupancy* ``y``):

* Turn starts are the score tuples ``s`` (units, by seat) and the mover
  ``m``. A turn from ``(s, m)`` ends in a win, a bank to a higher score,
  or a *stay* (a zero turn, an overshoot, a bank at the cap: the scores
  unchanged, the next mover). Its end law is walked roll by roll over
  ``(turn total, dice)`` in increasing totals, with the exact roll
  probabilities and the engine's forced keeps.
* Tuples are taken in increasing total score (a bank raises it); a tuple's
  inflow ``x_m`` goes round its movers by stays, ``y_m = x_m + stay_{m-1}
  y_{m-1}`` (indices mod N), solved in closed form: ``y_0 = (sum_k
  x_{-k} prod_{j=1..k} stay_{-j}) / (1 - prod_m stay_m)``, then forwards.
* D's chance ``U_d`` is the occupancy of D's turns times their win
  probability, summed.

The same occupancies give the regret decomposition of
:mod:`solver.cards.regret` exactly, not by sampling. Against the table's
fixed players the table's own values are D's optimal values (two
players: the zero-sum optimum; more: the table is an equilibrium, so its
policy is a best reply), and the performance difference lemma gives

    W_d - U_d = sum over D's decision points x of  occ_d(x) regret(x),
    regret(x) = max_c Q(x, c) - Q(x, policy's choice),

``Q`` the table's chance for D after each choice (``B``, ``R`` or a
keep's ``A``) and ``occ_d(x)`` the probability of reaching ``x``. Both
sides are computed; they agree to rounding (a check of the evaluation).

The policy is asked once at every decision point the walk reaches (the
mover in their true seat), so it must be deterministic: a sample of points
is asked twice, and a policy that answers two ways is refused
(:class:`NotExact`). The evaluation holds where a player's state is their
score: no crosses, no take-over, no final round (:func:`why_not_exact`);
elsewhere the referee simulates.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from solver.engine.solution import replay
from solver.engine.solution_n import EPS, replay_n
from solver.model.dice import keeps, rolls
from solver.model.messages import Message
from solver.model.turn_rules import (
    OVERSHOOT,
    WIN,
    TurnRules,
    banked_score,
    dice_left,
    keep_result,
    may_bank,
)
from solver.play.game import BANK, KEEP, PlayerLine, Table
from solver.text import N_

ASK_TWICE_EVERY = 97
"""One decision point in this many (and the first 50) is asked twice."""


class NotExact(Exception):
    """The policy or the game is outside the exact evaluation (the reason)."""


class Point(NamedTuple):
    """One of D's decision points and the table's values there."""
    scores: tuple
    """Every seat's score (points), D's seat first, then seat order."""
    seat: int
    kind: str
    turn_total: int
    dice: int
    roll: tuple | None
    options: tuple
    """``bank``/``roll``, or the kept dice of each keep."""
    values: tuple
    """D's chance after each option (the table's)."""
    chosen: int
    best: int

    @property
    def regret(self) -> float:
        return self.values[self.best] - self.values[self.chosen]


@dataclass
class Exact:
    """What :func:`evaluate` finds: per seat (seat 1 first) D's chance, the
    table's, and the sum of occupancy times regret; D's costly points
    with their occupancy per seat."""
    chances: list
    optimal: list
    regret_sums: list
    points: int
    costly: list
    """``(Point, occupancy by seat)`` where the regret is above 1e-12."""


def why_not_exact(rules) -> str | None:
    """Why a game's rules are outside the exact evaluation, or None."""
    if rules.crosses:
        return Message(N_("crosses make a player's state more than a score"))
    if rules.has_takeover:
        return Message(N_("a take-over makes a turn start more than the scores"))
    if rules.final_round:
        return Message(N_("a final round makes a turn start more than the scores"))
    return None


def decision_points(rules, players: int) -> int:
    """An upper bound on D's decision points in every seat: turn starts
    times the (turn total, dice, roll) a turn can ask at."""
    T, D = rules.target_units, rules.dice
    per_total = sum(1 + sum(1 for counts, _ in rolls(n) if len(keeps(rules, counts)) > 1)
                    for n in range(1, D + 1))
    return players * T ** (players - 1) * (T * (T + 1) // 2) * per_total


class TurnEnd(NamedTuple):
    win: float
    stay: float
    banks: tuple
    """``(new score, probability)``."""
    visits: tuple
    """``(index of D's Point, probability of reaching it in the turn)``."""


class Evaluation:
    """The walk of :func:`evaluate` (module docstring)."""

    def __init__(self, solution, ask, probe):
        self.solution, self.ask, self.probe = solution, ask, probe
        self.rules = rules = solution.rules
        self.turn = TurnRules.of(rules)
        self.N = solution.players
        self.points: list[Point] = []
        self.asked = 0
        self.table_turns = {}
        self.d_turns = {}
        self._rolls = {n: self._roll_table(n) for n in range(1, rules.dice + 1)}
        self._classes = None
        self._index = {}
        self.arrays = lru_cache(maxsize=4096)(self._arrays)

    # ------------------------------------------------------------ the table
    def _roll_table(self, n: int):
        """Per roll of ``n`` dice: dice, probability, class index in the
        packed dice arrays' order, and each keep with its (units, column)."""
        rules, turn = self.rules, self.turn
        out = []
        for counts, prob in rolls(n):
            dice = tuple(f for f, c in zip(range(1, 7), counts) for _ in range(c))
            options = tuple((keep, keep.points // rules.unit,
                             0 if keep.win else dice_left(turn, n, keep.used))
                            for keep in keeps(rules, counts))
            out.append((dice, float(prob), options))
        return out

    def _class_of(self, n: int, i: int) -> int:
        """The packed class of roll ``i`` of ``n`` dice (for mixed keeps)."""
        if self._classes is None:
            from solver.sim.dice import dice_tables
            from solver.sim.optimal_n import class_of_rolls
            self._classes = class_of_rolls(self.rules, dice_tables(self.rules))
        return int(self._classes[sum(len(rolls(k)) for k in range(1, n)) + i])

    def _arrays(self, scores: tuple):
        """The table's turn of the mover at ``scores`` (units, mover
        first): ``(R, A, B, bank mix, keep mixes)``, vectors mover first."""
        solution, space = self.solution, self.solution.space
        states = [space.index_of_score(s) for s in scores]
        if self.N == 2:
            _, R, A, B = replay(solution, *states, compiled=True)
            both = [np.stack([np.asarray(x, float), 1.0 - np.asarray(x, float)], axis=-1)
                    for x in (R, A, B)]
            R, A, B = both
            B[~np.isfinite(B[..., 0])] = np.nan
            return R, A, B, None, {}
        node = solution.node_of(states)
        _, R, A, B, mix = replay_n(solution, node)
        packed = None
        keep_mixes = {}
        for kind, t, *where, q in solution.mixed.get(node, []):
            if kind == "keep":
                if packed is None:
                    from solver.model.dice import keep_table
                    packed = keep_table(self.rules).packed()
                r, main, alt = where
                keep_mixes[t, r] = tuple((int(packed.keep_units[k]), int(packed.keep_col[k]))
                                         for k in (main, alt)) + (q,)
        return R, A, B, mix, keep_mixes

    # ------------------------------------------------------------ one turn
    def turn_end(self, scores: tuple, seat: int, d: int | None) -> TurnEnd:
        """The end law of the mover's turn at ``scores`` (units, mover
        first): D's (in seat ``seat``) when ``d`` is not None, else the
        table's (cached either way)."""
        key = scores if d is None else (scores, seat)
        cache = self.table_turns if d is None else self.d_turns
        if key not in cache:
            cache[key] = self._walk(scores, seat, d is not None)
        return cache[key]

    def _walk(self, scores, seat, is_d) -> TurnEnd:
        rules, turn, D = self.rules, self.turn, self.rules.dice
        s = scores[0]
        R, A, B, mix, keep_mixes = self.arrays(scores)
        rows = max(rules.target_units - s, 1)
        mass = [defaultdict(float) for _ in range(rows)]
        mass[0][D] = 1.0
        win = stay = 0.0
        banks = defaultdict(float)
        visits = defaultdict(float)
        for t in range(rows):
            for n, m in sorted(mass[t].items()):
                for i, (dice, prob, options) in enumerate(self._rolls[n]):
                    w = m * prob
                    if not options:
                        stay += w
                        continue
                    for (keep, units, col), share in self._keeps(
                            scores, seat, is_d, t, n, i, dice, options, A, keep_mixes, w, visits):
                        w2 = w * share
                        t2 = t + units
                        result = keep_result(turn, s, t2, keep.win)
                        if result == WIN:
                            win += w2
                            continue
                        if result == OVERSHOOT:
                            stay += w2
                            continue
                        banked = 0.0
                        if may_bank(turn, s, t2, col):
                            banked = self._bank(scores, seat, is_d, t2, col, R, B, mix, w2,
                                                visits)
                        if banked:
                            after = banked_score(turn, s, t2)
                            if after == s:
                                stay += w2 * banked
                            else:
                                banks[after] += w2 * banked
                        if banked < 1.0:
                            mass[t2][col] += w2 * (1.0 - banked)
        return TurnEnd(win, stay, tuple(banks.items()), tuple(visits.items()))

    def _keeps(self, scores, seat, is_d, t, n, i, dice, options, A, keep_mixes, w, visits):
        """``((keep, units, col), share)`` of the keep made from roll ``i``:
        the engine's forced keeps, D's answer, or the table's."""
        turn, s, D = self.turn, scores[0], self.rules.dice
        winning = [o for o in options if o[0].win]
        if winning:
            return [(winning[0], 1.0)]
        if len(options) == 1 or all(keep_result(turn, s, t + units, False) == OVERSHOOT
                                    for _, units, _ in options):
            return [(options[0], 1.0)]
        values = [float(A[t + units, col, 0]) for _, units, col in options]
        if is_d:
            answer = self._ask(scores, seat, KEEP, t, n, dice)
            chosen = next((j for j, o in enumerate(options) if o[0].dice == tuple(answer)),
                          None)
            if chosen is None:
                raise NotExact(Message(N_("the policy kept {answer} from {dice}: not a legal "
                                          "keep"), answer=answer, dice=dice))
            self._visit(scores, seat, KEEP, t, n, dice, tuple(o[0].dice for o in options),
                        values, chosen, w, visits)
            return [(options[chosen], 1.0)]
        if (t, self._class_of(n, i) if keep_mixes else -1) in keep_mixes:
            main, alt, q = keep_mixes[t, self._class_of(n, i)]
            pick = {outcome: next(o for o in options if (o[1], o[2]) == outcome)
                    for outcome in (main, alt)}
            return [(pick[main], 1.0 - q), (pick[alt], q)]
        best = max(values)
        tied = [j for j, v in enumerate(values) if v >= best - EPS]

        def preference(j):              # replay_n's: the most points, then dice
            _, units, col = options[j]
            return units * (D + 1) + (n if col in (0, D) else n - col)
        return [(options[max(tied, key=preference)], 1.0)]

    def _bank(self, scores, seat, is_d, t, n, R, B, mix, w, visits) -> float:
        """The probability that the mover banks at ``(t, n)``."""
        values = (float(B[t, n, 0]), float(R[t, n, 0]))
        if is_d:
            answer = self._ask(scores, seat, BANK, t, n, None)
            if answer not in ("bank", "roll"):
                raise NotExact(Message(N_("the policy answered {answer} to bank or roll"),
                                       answer=repr(answer)))
            chosen = 0 if answer == "bank" else 1
            self._visit(scores, seat, BANK, t, n, None, ("bank", "roll"), values, chosen, w,
                        visits)
            return 1.0 - chosen
        if mix is not None and mix[t, n] >= 0:
            return float(mix[t, n])
        return 1.0 if values[0] >= values[1] - EPS else 0.0

    # ------------------------------------------------------------ D's points
    def _ask(self, scores, seat, phase, t, n, roll):
        unit, N = self.rules.unit, self.N
        lines = [PlayerLine()] * N
        for k, s in enumerate(scores):
            lines[(seat + k) % N] = PlayerLine(s * unit, s * unit)
        self.probe.state = Table(lines, in_hand=n, mover=seat, phase=phase,
                                 turn_total=t * unit, roll=roll)
        answer = self.ask(self.probe)
        self.asked += 1
        if self.asked <= 50 or self.asked % ASK_TWICE_EVERY == 0:
            again = self.ask(self.probe)
            if _normal(again) != _normal(answer):
                raise NotExact(Message(N_("the policy answered {answer} and then {again} at "
                                          "one position: it is not deterministic"),
                                       answer=_normal(answer), again=_normal(again)))
        return _normal(answer)

    def _visit(self, scores, seat, kind, t, n, roll, options, values, chosen, w, visits):
        key = (scores, seat, kind, t, n, roll)
        index = self._index.get(key)
        if index is None:
            best = max(range(len(values)), key=lambda j: (values[j], -j))
            unit = self.rules.unit
            index = len(self.points)
            self._index[key] = index
            self.points.append(Point(tuple(x * unit for x in scores), seat, kind, t * unit, n,
                                     roll, options, tuple(values), chosen, best))
        visits[index] += w

    # ------------------------------------------------------------ the game
    def seat(self, d: int) -> tuple[float, np.ndarray]:
        """D's chance in seat ``d`` and the occupancy of each Point."""
        N = self.N
        occ = defaultdict(float)
        buckets: dict[int, dict] = defaultdict(dict)
        buckets[0][(0,) * N] = _inflow(N, 0, 1.0)
        chance = 0.0
        while buckets:
            total = min(buckets)
            for scores, x in buckets.pop(total).items():
                ends = [self.turn_end(scores[m:] + scores[:m], m, d if m == d else None)
                        for m in range(N)]
                for m, y in enumerate(_round(x, [e.stay for e in ends])):
                    if y <= 0.0:
                        continue
                    end = ends[m]
                    if m == d:
                        chance += y * end.win
                        for index, reach in end.visits:
                            occ[index] += y * reach
                    for after, p in end.banks:
                        new = scores[:m] + (after,) + scores[m + 1:]
                        row = buckets[total + after - scores[m]]
                        if new not in row:
                            row[new] = _inflow(N, 0, 0.0)
                        row[new][(m + 1) % N] += y * p
        occupancy = np.zeros(len(self.points))
        for index, value in occ.items():
            occupancy[index] = value
        return chance, occupancy


def _inflow(N: int, mover: int, mass: float) -> np.ndarray:
    x = np.zeros(N)
    x[mover] = mass
    return x


def _round(x: np.ndarray, stay: list) -> np.ndarray:
    """The occupancy of each mover of a tuple from its inflow ``x``, the
    turns going round by stays (module docstring)."""
    N = len(x)
    through = 1.0
    first = x[0]
    for k in range(1, N):
        through *= stay[-k]
        first += through * x[-k]
    loop = through * stay[0]
    if loop >= 1.0:                 # nobody can ever bank or win: the game never ends
        return np.zeros(N)
    y = np.zeros(N)
    y[0] = first / (1.0 - loop)
    for m in range(1, N):
        y[m] = x[m] + stay[m - 1] * y[m - 1]
    return y


def _normal(answer):
    return answer if isinstance(answer, str) else tuple(sorted(int(d) for d in answer))


def evaluate(solution, ask, probe) -> Exact:
    """D's exact chance in every seat (module docstring). ``ask(game)``
    answers the decision due in the engine's game ``game`` (the referee's
    probe, whose table is set to each decision point in turn)."""
    evaluation = Evaluation(solution, ask, probe)
    chances, occupancies = [], []
    for d in range(solution.players):
        chance, occupancy = evaluation.seat(d)
        chances.append(float(chance))
        occupancies.append(occupancy)
    points = evaluation.points
    regrets = np.array([p.regret for p in points])
    by_seat = np.zeros((solution.players, len(points)))
    for d, occupancy in enumerate(occupancies):
        by_seat[d, :len(occupancy)] = occupancy
    costly = [(points[i], by_seat[:, i].tolist()) for i in np.flatnonzero(regrets > 1e-12)]
    return Exact(chances, [float(x) for x in solution.seat_wins],
                 (by_seat @ regrets).tolist() if len(points) else [0.0] * solution.players,
                 len(points), costly)

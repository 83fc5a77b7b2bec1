"""The simulator's policies: how each player chooses, as tables that the
compiled game loop (:mod:`solver.sim.simulate`) reads.

Every non-random policy is a *table policy*: a keep is the argmax of
``value(t', n')`` over the legal keeps (first in the order: instant win, most
points, fewest dice; a keep that wins is worth ``win``, an overshoot
``overshoot``: :func:`solver.sim.simulate.keep_value`); ``bank[t, n]`` says bank
when the bank is legal; ``take[t, n]`` says take an offer of ``t`` units with
``n`` dice. (Under the keep rule ``all`` a roll has one keep: only bank and
take are choices.)

* ``threshold:X`` -- value = turn total (so: a winning keep if any, else the
  most points that do not overshoot an exact target); bank as soon as the
  turn total is at least ``X`` points and the bank is legal; take an offer
  when its total is at least ``X``. Two guards (also for ``expected``): no
  bank that leaves the score where it is (at the score cap: the last points
  must then come in one turn), and no take-over of an offer from which
  every keep overshoots (docs/rules.md: nothing but a zero turn is left).
* ``expected`` -- maximise the expected points banked this turn, ignoring
  both scores: a DP over (turn total, dice in hand) with bank value ``t``,
  zero roll 0, hot dice forced where the rules force them, totals beyond
  :data:`EXPECTED_TOP_POINTS` banked; the target, the entry, the cap and the
  crosses are ignored by the DP (an instant win counts as the target's
  points). At the table a winning keep is taken, an overshooting keep is
  worth 0, the entry and the forced hot dice are obeyed (the bank is simply
  not legal then) and the two guards above apply. Take an offer when its
  expected points ``R(t, n)`` beat a fresh turn's ``R(0, dice)``.
* ``random`` -- every legal keep with equal probability; bank or roll with
  probability 1/2 each when the bank is legal; take an offer with
  probability 1/2.
* ``optimal`` -- the solved table. For the mover in player state ``m``
  against ``w``, :func:`solver.engine.solution.replay` gives ``(Z, R, A, B)``;
  value = ``A`` (win 1, overshoot ``Z``), bank when the bank value
  ``B[t, n]`` is at least ``R[t, n]``, take when ``R[t, n]`` beats the
  value of a fresh turn (``W[m, w]``, or ``R[0, dice]`` under a look-ahead:
  :func:`optimal_turn`). The game loop asks for these tables the first time
  a turn start ``(m, w, zero_to)`` comes up and keeps them in slots of a
  :class:`TableStore` (:class:`OptimalCache`).

The tables of both seats and of the optimal turn starts live in one
:class:`TableStore`: slot 0 and 1 hold the fixed tables of players A and B,
slots 2.. the optimal policy's. The loop reads them as one
:class:`PolicyTables` record. Their rows are the turn totals
:func:`table_rows`: from the lowest score to the target (below 0 with a
penalty), and with a final round past it.

A final round's last turn is not played from these tables
(:mod:`solver.sim.final_round` says how each policy plays it: the card
as the optimal policy, by the one-turn DP). The card (:class:`CardCache`)
fills the same rows: with a final round it banks past the target by its
``past_lead`` rule (:func:`solver.cards.card.card_banks`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.cards.card import (
    card_banks,
    card_situation,
    card_takes,
    chasing,
    keep_score,
    points_from,
)
from solver.engine.solution import replay
from solver.engine.turn import pad
from solver.model.compiled_rules import dice_left, drop_stale_caches, may_bank
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.states import cross_states
from solver.model.turn_rules import TurnRules
from solver.sim.dice import dice_tables
from solver.text import _

drop_stale_caches(__file__)

EXPECTED_TOP_POINTS = 100_000
"""The ``expected`` policy's DP banks every turn total above this."""

# Policy kinds in the compiled loop.
TABLE, OPTIMAL, RANDOM = 0, 1, 2


@dataclass(frozen=True)
class Policy:
    """A way to play; see the module docstring. ``threshold`` is in points."""
    kind: str
    threshold: int | None = None
    guards: bool = True
    """The two guards of ``threshold`` and ``expected`` (off only in tests
    of the mechanics)."""

    def __str__(self) -> str:
        return f"threshold:{self.threshold}" if self.kind == "threshold" else self.kind

    @property
    def code(self) -> int:
        """The policy's kind in the compiled loop (a card, like the table,
        has tables per turn start: OPTIMAL)."""
        return {"optimal": OPTIMAL, "card": OPTIMAL, "random": RANDOM}.get(self.kind, TABLE)

    @property
    def needs_table(self) -> bool:
        """Plays from the solved table's player states (the card reads the
        scores through them)."""
        return self.kind in ("optimal", "card")


POLICY_NAMES = ("optimal", "card", "threshold:X", "expected", "random")


def parse_policy(text: str) -> Policy:
    """``optimal``, ``threshold:X`` (X points, an integer >= 0), ``expected``
    or ``random``."""
    if isinstance(text, Policy):
        return text
    word = str(text).strip().lower()
    if word in ("optimal", "card", "expected", "random"):
        return Policy(word)
    if word.startswith("threshold:"):
        value = word.split(":", 1)[1].strip()
        try:
            points = int(value)
        except ValueError:
            raise UsageError(_("policy {policy}: the threshold must be a whole number of "
                               "points, as in threshold:300").format(policy=repr(text))) from None
        if points < 0:
            raise UsageError(_("policy {policy}: the threshold must not be negative").format(
                policy=repr(text)))
        return Policy("threshold", points)
    raise UsageError(_("unknown policy {policy}; known policies: {policies}").format(
        policy=repr(text), policies=", ".join(POLICY_NAMES)))


# ------------------------------------------------------ the expected policy

@njit(cache=True)
def _expected_dp(rules, dice, top, win_units):
    """Expected points banked from (turn total t, about to roll n dice),
    maximising them: ``R[t, n]``; ``V[t, n]`` after a keep (bank or roll).
    ``rules`` is the game's record with the target beyond ``top`` and no
    entry (:func:`expected_turn`), so that the bank rule only says: some
    points, and not on forced hot dice."""
    D = rules.dice
    R = np.zeros((top + 1, D + 1))
    V = np.zeros((top + 1, D + 1))
    for t in range(top, -1, -1):
        for r in range(len(dice.prob)):
            n = dice.dice_of[r]
            if dice.instant_win[r]:
                best = t + win_units
            elif dice.keep_first[r] == dice.keep_first[r + 1]:
                best = 0.0
            else:
                best = -1.0
                for k in range(dice.keep_first[r], dice.keep_first[r + 1]):
                    after = t + dice.keep_units[k]
                    left = dice_left(rules, n, dice.keep_used[k])
                    # Beyond the DP's top row the turn is taken as banked.
                    v = after if after > top else V[after, left]
                    if v > best:
                        best = v
            R[t, n] += dice.prob[r] * best
        for n in range(1, D + 1):
            V[t, n] = R[t, n]
            if may_bank(rules, 0, t, n) and t > V[t, n]:
                V[t, n] = t
    return R, V


def table_rows(rules: Rules) -> int:
    """Turn totals (units) the decision tables hold: those a turn DP holds
    (``TurnRules.rows``: to the target from the lowest score, the floor or
    0, and with a final round the totals past the target up to where the
    DP banks by decree, as the loop then does), and with a final round the
    largest keep more (:func:`solver.engine.turn.pad`), so that a keep
    from the last of those totals finds its value in the table."""
    rows = TurnRules.of(rules).rows
    return pad(rules, rows) if rules.final_round else rows


@lru_cache(maxsize=16)
def expected_turn(rules: Rules):
    """``(R, V)`` of the ``expected`` policy in units, rows 0 to
    :data:`EXPECTED_TOP_POINTS` / unit (or the tables' rows, if more)."""
    top = max(EXPECTED_TOP_POINTS // rules.unit, table_rows(rules))
    # The DP ignores both scores: no entry, and a target it never reaches.
    ignoring_scores = TurnRules.of(rules)._replace(target=top + 1, entry=0, cap=-1)
    return _expected_dp(ignoring_scores, dice_tables(rules), top, rules.target_units)


def fixed_tables(policy: Policy, rules: Rules):
    """(value, bank, take, overshoot value, win value) of a table policy
    that does not depend on the scores (threshold, expected; random: unused),
    :func:`table_rows` rows."""
    rows, D = table_rows(rules), rules.dice
    t = np.arange(rows)[:, None] * np.ones(D + 1)
    if policy.kind == "threshold":
        x = -(-policy.threshold // rules.unit)
        return t.copy(), (t >= x).astype(np.uint8), (t >= x).astype(np.uint8), -1.0, 1e300
    if policy.kind == "expected":
        R, V = expected_turn(rules)
        bank = (t >= R[:rows]).astype(np.uint8)
        take = (R[:rows] > R[0, D]).astype(np.uint8)
        return V[:rows].copy(), bank, take, 0.0, 1e300
    return np.zeros((rows, D + 1)), np.zeros((rows, D + 1), np.uint8), \
        np.zeros((rows, D + 1), np.uint8), 0.0, 1.0


# ---------------------------------------------------------- the table store

class PolicyTables(NamedTuple):
    """The decision tables by slot, as the compiled loop reads them:
    value ``V[slot, t, n]``, ``bank``, ``take`` (uint8), overshoot value
    ``Z[slot]`` and win value ``win[slot]``; and per seat the policy kind
    (``kinds``: TABLE, OPTIMAL, RANDOM) and whether its guards are on;
    ``points_from[slot]``: the turn total from which a keep is worth its
    points alone (a card's :func:`solver.cards.card.points_from`; :data:`NEVER`
    elsewhere); ``late_from[slot]``: the turn total from which the keeps are
    ranked by ``V_late[slot, t, n]`` instead (a card's ``late_from``, whose
    dice left are worth another row; :data:`NEVER` elsewhere, and
    ``V_late`` a single entry per slot where no seat plays a card)."""
    V: np.ndarray
    bank: np.ndarray
    take: np.ndarray
    Z: np.ndarray
    win: np.ndarray
    kinds: np.ndarray
    guards: np.ndarray
    points_from: np.ndarray
    V_late: np.ndarray
    late_from: np.ndarray


NEVER = np.iinfo(np.int64).max
"""A turn total no turn reaches."""


class TableStore:
    """Decision tables by slot (module docstring), growable; ``used``: the
    slots filled so far."""

    def __init__(self, rules: Rules, slots: int, policies=()):
        rows, D = table_rows(rules), rules.dice
        self.V = np.zeros((slots, rows, D + 1))
        self.bank = np.zeros((slots, rows, D + 1), dtype=np.uint8)
        self.take = np.zeros((slots, rows, D + 1), dtype=np.uint8)
        self.Z = np.zeros(slots)
        self.win = np.ones(slots)
        self.points_from = np.full(slots, NEVER, dtype=np.int64)
        late_shape = (rows, D + 1) if any(p.kind == "card" for p in policies) else (1, 1)
        self.V_late = np.zeros((slots,) + late_shape)
        self.late_from = np.full(slots, NEVER, dtype=np.int64)
        self.used = 2
        self.kinds = np.array([p.code for p in policies], dtype=np.int64)
        self.guards = np.array([p.guards for p in policies], dtype=np.bool_)
        for seat, policy in enumerate(policies):
            if not policy.needs_table:
                self.V[seat], self.bank[seat], self.take[seat], self.Z[seat], self.win[seat] = \
                    fixed_tables(policy, rules)

    @property
    def slots(self) -> int:
        return len(self.Z)

    @property
    def slot_bytes(self) -> int:
        return self.V[0].nbytes + self.V_late[0].nbytes + self.bank[0].nbytes + \
            self.take[0].nbytes + 32

    def grow(self, slots: int) -> None:
        for name in ("V", "bank", "take", "Z", "win", "points_from", "V_late", "late_from"):
            old = getattr(self, name)
            new = np.full((slots,) + old.shape[1:],
                          NEVER if name in ("points_from", "late_from") else 0,
                          dtype=old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)

    def record(self) -> PolicyTables:
        """The tables as one record (again after :meth:`grow`)."""
        return PolicyTables(self.V, self.bank, self.take, self.Z, self.win, self.kinds,
                            self.guards, self.points_from, self.V_late, self.late_from)


# ------------------------------------------------------- the optimal policy

def player_states(rules: Rules, space):
    """``(state, zero_to)`` arrays indexed ``[score - floor, previous,
    crosses]`` (units; axis 1 has length 1 in a game without crosses or
    with a penalty, axis 2 without crosses): the player state and the
    look-ahead state (-1: none) of every score-sheet line, from
    :func:`solver.model.states.player_state`; -1 where the line cannot
    occur in ``space``. Scores below 0 (a penalty's) are rows too: the
    row of score ``s`` is ``s - floor`` (the loop's
    :func:`solver.sim.score_sheet.player_line`)."""
    from solver.model.states import Line, player_state
    rows, unit, floor = rules.turn_rows_units, rules.unit, rules.floor_units
    if not rules.crosses:
        state = -np.ones((rows, 1, 1), dtype=np.int64)
        state[np.asarray(space.score) - floor, 0, 0] = np.arange(space.size)
        return state, -np.ones_like(state)
    C = rules.crosses
    if rules.fall_penalty:
        # No previous score; at the floor every count of crosses is the
        # floor's one line (player_state says so).
        state = -np.ones((rows, 1, C), dtype=np.int64)
        for s in range(floor, rules.target_units):
            for c in range(C):
                try:
                    state[s - floor, 0, c] = player_state(rules, space, Line(s * unit, c),
                                                          "player")[0]
                except UsageError:
                    continue
        return state, -np.ones_like(state)
    state = -np.ones((rows, rows, C), dtype=np.int64)
    zero_to = -np.ones((rows, rows, C), dtype=np.int64)
    first = max(rules.entry_units, 1)
    for s in range(rows):
        for prev in [0] + list(range(first, s + 1)):
            for c in range(C):
                try:
                    m, z = player_state(rules, space, Line(s * unit, c, prev * unit), "player")
                except UsageError:
                    continue
                state[s, prev, c] = m
                zero_to[s, prev, c] = -1 if z is None else z
    return state, zero_to


class OptimalTurn(NamedTuple):
    """The optimal policy at one turn start: the replay's zero-turn value
    ``Z``, roll values ``R``, after-keep values ``A`` and bank values ``B``
    (:func:`solver.engine.solution.replay`, rows up to the target), the value of a
    fresh turn, and the decisions: ``bank[t, n]``, ``take[t, n]``."""
    Z: float
    R: np.ndarray
    A: np.ndarray
    B: np.ndarray
    fresh: float
    bank: np.ndarray
    take: np.ndarray


def optimal_turn(solution, m: int, w: int, zero_to: int = -1) -> OptimalTurn:
    """The optimal policy of mover ``m`` against ``w`` (player states;
    ``zero_to``: the look-ahead state of a model table, or -1), in
    :func:`table_rows` rows."""
    rules = solution.rules
    D, rows = rules.dice, table_rows(rules)
    Z, R, A, B = replay(solution, m, w, compiled=True, zero_to=None if zero_to < 0 else zero_to)
    R, A, B = np.asarray(R)[:rows], np.asarray(A)[:rows], np.asarray(B)
    # Bank where it is allowed (B is -inf elsewhere) and worth at least
    # rolling on: below the target, and with a final round past it (B's rows).
    bank = np.zeros((rows, D + 1), dtype=np.uint8)
    bank[:len(B)] = B >= R[:len(B)]
    # Take over when it beats a fresh turn (under a look-ahead the fresh turn
    # is worth the replayed R[0, D], not the model's W[m, w]).
    fresh = float(solution.W[m, w]) if zero_to < 0 else float(R[0, D])
    take = np.zeros((rows, D + 1), dtype=np.uint8)
    take[:len(R), 1:D] = R[:, 1:D] > fresh
    return OptimalTurn(float(Z), R, A, B, fresh, bank, take)


class OptimalCache:
    """The optimal policy of one solved table, per turn start (m, w,
    zero_to), in the slots 2.. of a :class:`TableStore`; the slot of a turn
    start is found in the game loop's hash of keys (:meth:`key`)."""

    def __init__(self, solution, rules: Rules, base: int = 0):
        self.solution = solution
        self.space = solution.space
        self.rules = rules
        self.P = self.space.size
        self.base = base
        """Offset of this table's keys (two tables share one hash)."""
        self.replays = 0
        self.resets = 0
        self.seconds = 0.0

    @cached_property
    def _maps(self):
        return player_states(self.rules, self.space)

    @property
    def state_of(self) -> np.ndarray:
        return self._maps[0]

    @property
    def zero_of(self) -> np.ndarray:
        return self._maps[1]

    @property
    def key_span(self) -> int:
        return self.P * self.P * (self.P + 1)

    @property
    def most_keys(self) -> int:
        """A bound on the turn starts (with look-ahead) that can come up."""
        lookahead = self.rules.target_units if self.space.memory == "model" else 0
        return self.P * self.P * (1 + lookahead)

    def key(self, m: int, w: int, z: int) -> int:
        """Same as the compiled loop's: ``z`` is the look-ahead state or -1."""
        return self.base + (m * self.P + w) * (self.P + 1) + z + 1

    def fill(self, store: TableStore, slot: int, m: int, w: int, z: int = -1) -> None:
        started = time.perf_counter()
        turn = optimal_turn(self.solution, m, w, z)
        store.V[slot] = turn.A
        store.Z[slot] = turn.Z
        store.win[slot] = 1.0
        store.bank[slot] = turn.bank
        store.take[slot] = turn.take
        self.replays += 1
        self.seconds += time.perf_counter() - started


class CardCache(OptimalCache):
    """The ``card`` policy (:mod:`solver.cards.card`) per turn start, in the
    slots of a :class:`TableStore` like the optimal policy's: keeps ranked
    by points plus the card's worth of each die left (a win first, an
    overshoot last), banks and take-overs by the card's rule."""

    def __init__(self, solution, rules: Rules, card, base: int = 0):
        super().__init__(solution, rules, base)
        self.card = card.compiled(rules)
        self.turn = TurnRules.of(rules)
        self.crossed = cross_states(rules, solution.space)
        self.takes_by_scores: dict[tuple[int, int], np.ndarray] = {}

    def takes(self, crossed: int, score: int, opponent: int) -> np.ndarray:
        """The card's take-over of every offer ``[t, n]`` at ``score``
        (with ``crossed``) against ``opponent``: the same for every turn
        start there, so made once."""
        key = (crossed, score, opponent)
        if key not in self.takes_by_scores:
            T, D = self.turn.target, self.turn.dice
            # The tables' rows (past the target with a final round, from
            # the floor with a penalty); offers come from totals short of T.
            take = np.zeros((table_rows(self.rules), D + 1), dtype=np.uint8)
            for t in range(T):
                for n in range(1, D + 1):
                    take[t, n] = card_takes(self.card, self.turn, crossed, score, opponent,
                                            t, n)
            self.takes_by_scores[key] = take
        return self.takes_by_scores[key]

    def fill(self, store: TableStore, slot: int, m: int, w: int, z: int = -1) -> None:
        card, turn = self.card, self.turn
        T, D = turn.target, turn.dice
        score, opponent = int(self.space.score[m]), int(self.space.score[w])
        here = card_situation(card, score, opponent, int(self.crossed[m]))
        rows = store.V.shape[1]
        bank = np.zeros((rows, D + 1), dtype=np.uint8)
        # From T - score on no bank is allowed, but with a final round,
        # past the target (where the loop banks by decree at the tables' end).
        for t in range(rows if turn.final_round else min(rows, T - score)):
            for n in range(1, D + 1):
                bank[t, n] = card_banks(card, turn, *here, t, n)
        t, n = np.arange(rows)[:, None], np.arange(D + 1)[None, :]
        # V[t', n'] ranks the keeps of one roll as keep_score does: their
        # turn totals differ by their points. From points_from[slot] on the
        # loop ranks them by points alone, so V leaves that rule out.
        standing = (score == 0, score > opponent, chasing(card, T, score, opponent))
        store.V[slot] = keep_score(card, 0, 0, t, n, bank, T - score - t, *standing)
        # From late_from set aside before the roll the dice left are worth
        # another row: a table of its own, ranked from that turn total.
        if card.late_from > 0:
            store.V_late[slot] = keep_score(card, 0, card.late_from, t - card.late_from, n,
                                            bank, T - score - t, *standing)
        store.late_from[slot] = card.late_from if card.late_from > 0 else NEVER
        store.Z[slot] = -1e300
        store.win[slot] = 1e300
        store.bank[slot] = bank
        store.take[slot] = self.takes(int(self.crossed[m]), score, opponent)
        store.points_from[slot] = points_from(card, T, score, opponent) or NEVER
        self.replays += 1


def optimal_tables(solution, m: int, w: int, zero_to: int | None = None):
    """The ``optimal`` policy's tables at the turn start of mover ``m``
    against ``w`` (player states; ``zero_to``: the look-ahead state of a
    model table, as :func:`solver.model.states.player_state` gives it), for
    inspection and tests: ``(value, bank, take, Z)``, indexed ``[t, n]``
    (turn total in units, dice)."""
    turn = optimal_turn(solution, m, w, -1 if zero_to is None else zero_to)
    return turn.A, turn.bank.astype(bool), turn.take.astype(bool), turn.Z

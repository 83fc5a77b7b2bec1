"""Answers at the table: bank or roll, which dice to keep, take over or not.

Every answer replays the turn DP (:func:`solver.game.replay`) of the
player's turn from the stored start values, so it is exact: the value of
rolling is ``R(t, n)``, of banking ``B(t, n)``, of a keep ``K(t + points,
n - used)`` and of taking over an offer ``R(t, n)`` at a turn start, all as
in :mod:`solver.turn`. One replay per (mover, waiting) pair is cached.

Library use::

    from solver.advice import Advisor
    advisor = Advisor.for_game("cinq-mille", compiled=True)   # tables/cinq-mille.h5
    advisor.bank_or_roll(me=1500, opp=2000, turn=600, dice=2)
    advisor.keep(me=1500, opp=2000, turn=0, dice=5, roll=[1, 1, 5, 3, 2])
    advisor.take_or_fresh(me=6000, opp=3000, offer=1200, offer_dice=2)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .dice import counts_of, keeps
from .errors import UsageError
from .solution import Solution, replay


@dataclass
class Choice:
    action: str
    win: float
    keep: list[int] | None = None
    then: str | None = None
    """After a keep: ``bank``, ``roll``, ``win`` or ``zero`` (overshoot)."""
    points: int | None = None

    def to_json(self) -> dict:
        out = {"action": self.action, "win": self.win}
        if self.keep is not None:
            out["keep"] = self.keep
            out["points"] = self.points
            out["then"] = self.then
        return out


@dataclass
class Advice:
    choices: list[Choice]
    note: str | None = None
    position: dict = field(default_factory=dict)

    @property
    def best(self) -> Choice:
        return self.choices[0]

    def to_json(self) -> dict:
        out = {"action": self.best.action, "win": self.best.win,
               "choices": [c.to_json() for c in self.choices], "position": self.position}
        if self.best.keep is not None:
            out["keep"] = self.best.keep
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Line:
    """A player's line on the score sheet, in points."""
    score: int
    crosses: int = 0
    previous: int | None = None
    """The score before their last bank (equal to the score after a fall);
    only games with crosses have it."""


def player_state(rules, space, line: Line | int, who: str) -> tuple[int, int | None]:
    """``(state, zero_to)`` of a score-sheet line, or a UsageError saying
    why it cannot be. ``zero_to`` is the true state after a zero turn where
    the model's estimate would be used instead (last cross before a fall),
    else None."""
    line = line if isinstance(line, Line) else Line(line)
    score, previous, unit = line.score, line.previous, rules.unit
    if score % unit:
        raise UsageError(f"{who} score {score} is not a multiple of {unit}")
    if not 0 <= score < rules.target:
        raise UsageError(f"{who} score {score} must be at least 0 and below the "
                         f"target {rules.target}")
    if not rules.crosses:
        if line.crosses or previous is not None:
            raise UsageError(f"{rules.name} has no crosses and no previous score")
        try:
            return space.index_of_score(score // unit), None
        except KeyError:
            raise UsageError(f"{who} score {score} cannot occur in {rules.name} "
                             f"(entry {rules.entry})") from None
    if not 0 <= line.crosses < rules.crosses:
        raise UsageError(f"{who} crosses must be 0 to {rules.crosses - 1}, not {line.crosses}")
    last_cross = line.crosses == rules.crosses - 1
    if previous is None and score == 0:
        previous = 0
    if previous is None and (space.memory == "exact" or last_cross):
        raise UsageError(f"{who} previous score (before the last bank) is needed here")
    if previous is not None and (previous % unit or not 0 <= previous <= score
                                 or 0 < previous < rules.entry):
        raise UsageError(f"{who} previous score {previous} is impossible with a score of "
                         f"{score} (0, or from {rules.entry} up to the score)")
    p_units = None if previous is None else previous // unit
    try:
        state = space.find(score // unit, p_units, line.crosses)
    except KeyError:
        raise UsageError(f"{who} score {score} with previous {previous} and {line.crosses} "
                         f"crosses cannot occur in {rules.name}") from None
    zero_to = None
    if space.memory == "model" and last_cross and p_units < score // unit:
        zero_to = space.find(p_units, p_units)
    return state, zero_to


def turn_state(rules, me: int, turn: int, dice: int) -> tuple[int, int]:
    """(turn total in units, dice in hand), or a UsageError saying why not."""
    if not 1 <= dice <= rules.dice:
        raise UsageError(f"dice in hand must be 1 to {rules.dice} in {rules.name}, not {dice}")
    if turn % rules.unit or turn < 0:
        raise UsageError(f"turn total {turn} is not a non-negative multiple of {rules.unit}")
    if me + turn >= rules.target:
        raise UsageError(f"turn total {turn} takes the score {me} to the target "
                         f"{rules.target} or past it: the turn is already over")
    if turn == 0 and dice != rules.dice:
        raise UsageError(f"with a turn total of 0 the player holds all {rules.dice} dice")
    return turn // rules.unit, dice


class Advisor:
    """Exact advice from one solved game.

    ``compiled=False`` replays turns with numpy: no compilation, a few
    milliseconds an answer, best for one question per process (the CLI).
    ``compiled=True`` uses the numba kernel: about half a second to load it
    once, then well under a millisecond an answer (a program that asks
    many)."""

    def __init__(self, solution: Solution, compiled: bool = False):
        self.solution = solution
        self.rules = solution.rules
        self.space = solution.space
        self.compiled = compiled
        self._replay = lru_cache(maxsize=256)(self._replay_uncached)

    @classmethod
    def for_game(cls, name: str, target: int | None = None, memory: str | None = None,
                 compiled: bool = False) -> "Advisor":
        from .rules import get_rules
        from .tables import default_path, read_table
        rules = get_rules(name, target)
        return cls(read_table(default_path(rules, memory), expect=rules,
                              lazy_take=not compiled), compiled)

    # ------------------------------------------------------------ positions
    def _players(self, me, opp) -> tuple[int, int, int | None]:
        m, zero_to = player_state(self.rules, self.space, me, "my")
        w, _ = player_state(self.rules, self.space, opp, "opponent")
        return m, w, zero_to

    def _turn(self, me, turn: int, dice: int) -> tuple[int, int]:
        score = me.score if isinstance(me, Line) else me
        return turn_state(self.rules, score, turn, dice)

    def _replay_uncached(self, m: int, w: int, zero_to: int | None):
        return replay(self.solution, m, w, compiled=self.compiled, zero_to=zero_to)

    def _position(self, **kw) -> dict:
        plain = {k: dataclasses.asdict(v) if isinstance(v, Line) else v for k, v in kw.items()}
        return {"game": self.rules.name, "target": self.rules.target, **plain}

    # -------------------------------------------------------------- answers
    def bank_or_roll(self, me, opp, turn: int, dice: int) -> Advice:
        """Bank or roll with ``turn`` points set aside and ``dice`` in hand.
        ``me`` and ``opp`` are scores, or :class:`Line` values in games with
        crosses."""
        m, w, zero_to = self._players(me, opp)
        t, n = self._turn(me, turn, dice)
        _, R, _, B = self._replay(m, w, zero_to)
        choices = [Choice("roll", float(R[t, n]))]
        if B[t, n] > -np.inf:
            choices.append(Choice("bank", float(B[t, n])))
        choices.sort(key=lambda c: -c.win)
        return Advice(choices, position=self._position(me=me, opp=opp, turn=turn, dice=dice))

    def keep(self, me, opp, turn: int, dice: int, roll) -> Advice:
        """Which dice of ``roll`` (thrown with ``dice`` in hand and ``turn``
        points set aside before it) to keep, and what to do next."""
        rules = self.rules
        m, w, zero_to = self._players(me, opp)
        t, n = self._turn(me, turn, dice)
        roll = list(roll)
        if len(roll) != n:
            raise UsageError(f"the roll has {len(roll)} dice but {n} are in hand")
        if any(d not in (1, 2, 3, 4, 5, 6) for d in roll):
            raise UsageError("every die must be 1 to 6")
        Z, R, A, B = self._replay(m, w, zero_to)
        position = self._position(me=me, opp=opp, turn=turn, dice=dice, roll=sorted(roll))
        options = keeps(rules, counts_of(roll))
        if not options:
            return Advice([Choice("zero", Z)], note="zero roll: no die scores, the turn is lost",
                          position=position)
        T = rules.target_units - int(self.space.score[m])
        choices = []
        for option in options:
            t2 = t + option.points // rules.unit
            n2 = n - option.used or rules.dice
            value = float(A[t2, 0 if option.win else n2])
            if option.win or T == t2 or (T < t2 and not rules.exact_target):
                then = "win"
            elif T < t2:
                then = "zero"
            else:
                then = "bank" if B[t2, n2] >= R[t2, n2] else "roll"
            choices.append(Choice("keep", float(value), list(option.dice), then, option.points))
        choices.sort(key=lambda c: (-c.win, -c.points))
        return Advice(choices, position=position)

    def take_or_fresh(self, me, opp, offer: int, offer_dice: int) -> Advice:
        """At a turn start: take over ``offer`` points with ``offer_dice``
        dice from the previous player, or roll every die from 0."""
        rules = self.rules
        m, w, zero_to = self._players(me, opp)
        if not rules.has_takeover:
            raise UsageError(f"{rules.name} has no take-over")
        if not self.space.can_take[m]:
            raise UsageError(f"a player at {self.space.score[m] * rules.unit} may not take over in {rules.name} "
                             f"(needs at least {rules.takeover_min} and to be entered)")
        if not 1 <= offer_dice < rules.dice:
            raise UsageError(f"an offer leaves 1 to {rules.dice - 1} dice, not {offer_dice}")
        t = offer // rules.unit
        opp_score = opp.score if isinstance(opp, Line) else opp
        if offer <= 0 or offer % rules.unit or offer > opp_score \
                or not np.any(self.space.bank_next[:, t] == w):
            raise UsageError(f"an offer of {offer} is impossible with the opponent at {opp_score}: "
                             f"no bank of {offer} leaves them there")
        _, R, _, _ = self._replay(m, w, zero_to)
        choices = [Choice("fresh", float(R[0, rules.dice])),
                   Choice("take", float(R[t, offer_dice]))]
        choices.sort(key=lambda c: -c.win)
        return Advice(choices, position=self._position(
            me=me, opp=opp, offer=[offer, offer_dice]))

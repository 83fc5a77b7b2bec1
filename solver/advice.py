"""Answers at the table: bank or roll, which dice to keep, take over or not.

Every answer replays the turn DP (:func:`solver.game.replay`) of the
player's turn from the stored start values, so it is exact: the value of
rolling is ``R(t, n)``, of banking ``B(t, n)``, of a keep ``K(t + points,
n - used)`` and of taking over an offer ``R(t, n)`` at a turn start, all as
in :mod:`solver.turn`. One replay per (mover, waiting) pair is cached.

Library use::

    from solver.advice import Advisor
    advisor = Advisor.for_game("cinq-mille")        # loads tables/cinq-mille.h5
    advisor.bank_or_roll(me=1500, opp=2000, turn=600, dice=2)
    advisor.keep(me=1500, opp=2000, turn=0, dice=5, roll=[1, 1, 5, 3, 2])
    advisor.take_or_fresh(me=6000, opp=3000, offer=1200, offer_dice=2)
"""

from __future__ import annotations

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


def player_state(rules, space, points: int, who: str) -> int:
    """The player state of a banked score, or a UsageError saying why not."""
    if points % rules.unit:
        raise UsageError(f"{who} score {points} is not a multiple of {rules.unit}")
    if not 0 <= points < rules.target:
        raise UsageError(f"{who} score {points} must be at least 0 and below the "
                         f"target {rules.target}")
    try:
        return space.index_of_score(points // rules.unit)
    except KeyError:
        raise UsageError(f"{who} score {points} cannot occur in {rules.name} "
                         f"(entry {rules.entry})") from None


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
    """Exact advice from one solved game."""

    def __init__(self, solution: Solution):
        self.solution = solution
        self.rules = solution.rules
        self.space = solution.space
        self._replay = lru_cache(maxsize=64)(self._replay_uncached)

    @classmethod
    def for_game(cls, name: str, target: int | None = None) -> "Advisor":
        from .rules import get_rules
        from .tables import default_path, read_table
        rules = get_rules(name, target)
        return cls(read_table(default_path(rules), expect=rules))

    # ------------------------------------------------------------ positions
    def _state(self, points: int, who: str) -> int:
        return player_state(self.rules, self.space, points, who)

    def _turn(self, me: int, turn: int, dice: int) -> tuple[int, int]:
        return turn_state(self.rules, me, turn, dice)

    def _replay_uncached(self, m: int, w: int):
        return replay(self.solution, m, w)

    def _position(self, **kw) -> dict:
        return {"game": self.rules.name, "target": self.rules.target, **kw}

    # -------------------------------------------------------------- answers
    def start_value(self, me: int, opp: int) -> float:
        return float(self.solution.W[self._state(me, "my"), self._state(opp, "opponent")])

    def bank_or_roll(self, me: int, opp: int, turn: int, dice: int) -> Advice:
        m, w = self._state(me, "my"), self._state(opp, "opponent")
        t, n = self._turn(me, turn, dice)
        _, R, _, B = self._replay(m, w)
        choices = [Choice("roll", float(R[t, n]))]
        if B[t, n] > -np.inf:
            choices.append(Choice("bank", float(B[t, n])))
        choices.sort(key=lambda c: -c.win)
        return Advice(choices, position=self._position(me=me, opp=opp, turn=turn, dice=dice))

    def keep(self, me: int, opp: int, turn: int, dice: int, roll) -> Advice:
        rules = self.rules
        m, w = self._state(me, "my"), self._state(opp, "opponent")
        t, n = self._turn(me, turn, dice)
        roll = list(roll)
        if len(roll) != n:
            raise UsageError(f"the roll has {len(roll)} dice but {n} are in hand")
        if any(d not in (1, 2, 3, 4, 5, 6) for d in roll):
            raise UsageError("every die must be 1 to 6")
        Z, R, A, B = self._replay(m, w)
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

    def take_or_fresh(self, me: int, opp: int, offer: int, offer_dice: int) -> Advice:
        rules = self.rules
        m, w = self._state(me, "my"), self._state(opp, "opponent")
        if not rules.has_takeover:
            raise UsageError(f"{rules.name} has no take-over")
        if not self.space.can_take[m]:
            raise UsageError(f"a player at {me} may not take over in {rules.name} "
                             f"(needs at least {rules.takeover_min} and to be entered)")
        if not 1 <= offer_dice < rules.dice:
            raise UsageError(f"an offer leaves 1 to {rules.dice - 1} dice, not {offer_dice}")
        t = offer // rules.unit
        if offer <= 0 or offer % rules.unit or offer > opp \
                or not np.any(self.space.bank_next[:, t] == w):
            raise UsageError(f"an offer of {offer} is impossible with the opponent at {opp}: "
                             f"no bank of {offer} leaves them there")
        _, R, _, _ = self._replay(m, w)
        choices = [Choice("fresh", float(self.solution.W[m, w])),
                   Choice("take", float(R[t, offer_dice]))]
        choices.sort(key=lambda c: -c.win)
        return Advice(choices, position=self._position(
            me=me, opp=opp, offer=[offer, offer_dice]))

"""Answers at the table: bank or roll, which dice to keep, take over or not.

Every answer replays the turn DP (:func:`solver.solution.replay`) of the
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
from .states import Line, player_state
from .turn_rules import CONTINUE, WIN, TurnRules, dice_left, keep_result


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
        self.turn = TurnRules.of(self.rules)
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
        turn = self.turn
        score = int(self.space.score[m])
        choices = []
        for option in options:
            t2 = t + option.points // rules.unit
            n2 = dice_left(turn, n, option.used)
            result = keep_result(turn, score, t2, option.win)
            value = float(A[t2, 0 if option.win else n2])
            if result != CONTINUE:
                then = "win" if result == WIN else "zero"
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

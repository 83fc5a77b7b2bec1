"""Answers at the table: bank or roll, which dice to keep, take over or not.

Every answer replays the turn DP (:func:`solver.engine.solution.replay`) of the
player's turn from the stored start values, so it is exact: the value of
rolling is ``R(t, n)``, of banking ``B(t, n)``, of a keep ``K(t + points,
n - used)`` and of taking over an offer ``R(t, n)`` at a turn start, all as
in :mod:`solver.engine.turn`. One replay per turn start is cached.

With three or more players the table is a
:class:`solver.engine.solution_n.MultiSolution` and the replay is
:func:`solver.engine.solution_n.replay_n`. Every value is then the vector of
all players' chances, me first and the opponents in seat order after me
(the last one is the previous player, whose bank makes the offer); with two
players that vector is ``(v, 1 - v)``. A decision where the table's
equilibrium mixes (:mod:`solver.engine.equilibrium`) is answered with its
probability.

Library use::

    from solver.advice.choose import advisor_for
    from solver.model.rules import get_rules
    advisor = advisor_for(get_rules("cinq-mille"), compiled=True)   # tables/cinq-mille.h5
    advisor.bank_or_roll(me=1500, opp=2000, turn=600, dice=2)
    advisor.keep(me=1500, opp=2000, turn=0, dice=5, roll=[1, 1, 5, 3, 2])
    advisor.take_or_fresh(me=6000, opp=3000, offer=1200, offer_dice=2)
    # three players: the opponents in seat order after me
    advisor.bank_or_roll(me=1500, opp=[2000, 500], turn=600, dice=2)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from solver.advice import final_round
from solver.engine.solution import Solution, replay
from solver.engine.solution_n import MultiSolution
from solver.model.dice import counts_of, keeps
from solver.model.errors import UsageError
from solver.model.last_turn import past_target_units
from solver.model.messages import Message, Number, figure
from solver.model.states import Line, check_roll, check_turn, player_state
from solver.model.turn_rules import CONTINUE, WIN, TurnRules, dice_left, keep_result
from solver.text import N_, _, ngettext, number


@dataclass
class Choice:
    action: str
    win: float
    keep: list[int] | None = None
    then: str | None = None
    """After a keep: ``bank``, ``roll``, ``win`` or ``zero`` (overshoot)."""
    points: int | None = None
    wins: list[float] | None = None
    """Every player's chance after this choice, me first."""

    def to_json(self) -> dict:
        out = {"action": self.action, "win": self.win}
        if self.wins is not None:
            out["wins"] = self.wins
        if self.keep is not None:
            out["keep"] = self.keep
            out["points"] = self.points
            out["then"] = self.then
        return out


def _choice(action: str, values, **kw) -> Choice:
    """A choice worth the vector ``values`` (me first)."""
    wins = [float(v) for v in values]
    return Choice(action, wins[0], wins=wins, **kw)


@dataclass
class Advice:
    choices: list[Choice]
    note: str | None = None
    position: dict = field(default_factory=dict)
    mixed: float | None = None
    """Where the table's equilibrium mixes this decision: the probability
    of banking (or of the alternative keep)."""
    model: str | None = None
    """Where the answer comes from a model, not an exact table: its name."""

    @property
    def best(self) -> Choice:
        return self.choices[0]

    def to_json(self) -> dict:
        # "objective": what the chances answer (solo objectives are farkle
        # solve's, not advice's).
        out = {"action": self.best.action, "win": self.best.win, "objective": "win",
               "choices": [c.to_json() for c in self.choices], "position": self.position}
        if self.best.keep is not None:
            out["keep"] = self.best.keep
        if self.note:
            out["note"] = self.note
        if self.mixed is not None:
            out["mixed"] = self.mixed
        if self.model is not None:
            out["model"] = self.model
        return out


def turn_state(rules, me: int, turn: int, dice: int) -> tuple[int, int]:
    """(turn total in units, dice in hand), or a UsageError saying why not."""
    check_turn(rules, turn, dice)
    past = past_target_units(rules) * rules.unit      # a final round's banks past the target
    if past and me + turn >= rules.target + past:
        raise UsageError(_("turn total {turn} takes the score {me} {past} or more past the "
                           "target {target}, farther than the table holds: bank").format(
            turn=figure(turn), me=figure(me), past=number(past), target=figure(rules.target)))
    if not past and me + turn >= rules.target:
        raise UsageError(_("turn total {turn} takes the score {me} to the target {target} or "
                           "past it: the turn is already over").format(
            turn=figure(turn), me=figure(me), target=figure(rules.target)))
    return turn // rules.unit, dice


class Advisor:
    """Exact advice from one solved game (two players or more).

    ``compiled=False`` replays turns with numpy: no compilation, a few
    milliseconds an answer, best for one question per process (the CLI).
    ``compiled=True`` uses the numba kernel (two players): about half a
    second to load it once, then well under a millisecond an answer (a
    program that asks many)."""

    def __init__(self, solution: Solution | MultiSolution, compiled: bool = False):
        self.solution = solution
        self.rules = solution.rules
        self.space = solution.space
        self.players = solution.players
        self.turn = TurnRules.of(self.rules)
        self.compiled = compiled
        self._replay = lru_cache(maxsize=256)(self._replay_uncached)

    # ------------------------------------------------------------ positions
    def _start(self, me, opp) -> tuple[tuple, int | None]:
        """The turn start with me to move: ``(key, zero_to)``, ``key`` the
        player states, me first, then the opponents in seat order."""
        opps = self._opponents(opp)
        m, zero_to = player_state(self.rules, self.space, me, "my")
        names = ["opponent"] if len(opps) == 1 else \
            [f"opponent {i + 1}" for i in range(len(opps))]
        others = [player_state(self.rules, self.space, o, name)[0]
                  for o, name in zip(opps, names)]
        return (m, *others), zero_to

    def _turn(self, me, turn: int, dice: int) -> tuple[int, int]:
        score = me.score if isinstance(me, Line) else me
        return turn_state(self.rules, score, turn, dice)

    def _replay_uncached(self, key: tuple, zero_to: int | None):
        """``(Z, R, A, B, mix)`` of the turn, as vectors (me first); ``B``
        is NaN where the bank is not allowed, ``mix[t, n]`` the probability
        of banking where the equilibrium mixes (else -1)."""
        if self.players > 2:
            from solver.engine.solution_n import replay_n
            return replay_n(self.solution, self.solution.node_of(key), zero_to)
        Z, R, A, B = replay(self.solution, *key, compiled=self.compiled, zero_to=zero_to)
        B = np.where(B > -np.inf, B, np.nan)
        return (*(_both(x) for x in (np.float64(Z), R, A, B)), None)

    def _position(self, **kw) -> dict:
        plain = {k: _plain(v) for k, v in kw.items()}
        return {"game": self.rules.name, "target": self.rules.target,
                "players": self.players, **plain}

    # -------------------------------------------------------------- answers
    def bank_or_roll(self, me, opp, turn: int, dice: int) -> Advice:
        """Bank or roll with ``turn`` points set aside and ``dice`` in hand.
        ``me`` and ``opp`` are scores, or :class:`Line` values in games with
        crosses; ``opp`` is a list (in seat order after me) with three or
        more players."""
        if final_round.is_last_turn(self.rules, opp) and self.players > 2:
            choices = [_choice(action, wins) for action, wins in final_round.bank_or_roll_n(
                self.rules, _score(me), self._opps(opp), turn, dice)]
            return Advice(choices, position=final_round.position(
                self.rules, _plain(me), _plain(opp), turn, dice))
        if final_round.is_last_turn(self.rules, opp):
            choices = [_choice(action, (win, 1.0 - win)) for action, win in
                       final_round.bank_or_roll(self.rules, _score(me), _score(opp), turn, dice)]
            return Advice(choices, position=final_round.position(
                self.rules, _plain(me), _plain(opp), turn, dice))
        key, zero_to = self._start(me, opp)
        t, n = self._turn(me, turn, dice)
        _z, R, _a, B, mix = self._replay(key, zero_to)
        choices = [_choice("roll", R[t, n])]
        if not np.isnan(B[t, n, 0]):
            choices.append(_choice("bank", B[t, n]))
        choices.sort(key=lambda c: -c.win)
        advice = Advice(choices, position=self._position(me=me, opp=opp, turn=turn, dice=dice))
        if mix is not None and mix[t, n] >= 0:
            advice.mixed = float(mix[t, n])
            advice.note = Message(N_(
                "the players' best replies go round in a cycle here: the table's equilibrium "
                "banks with probability {probability} (either choice gives you the same "
                "chance)"), probability=Number(float(mix[t, n]), 3))
        return advice

    def keep(self, me, opp, turn: int, dice: int, roll) -> Advice:
        """Which dice of ``roll`` (thrown with ``dice`` in hand and ``turn``
        points set aside before it) to keep, and what to do next."""
        rules = self.rules
        if final_round.is_last_turn(rules, opp):
            return self._last_turn_keep(me, opp, turn, dice, list(roll))
        key, zero_to = self._start(me, opp)
        t, n = self._turn(me, turn, dice)
        roll = list(roll)
        check_roll(roll, n)
        Z, R, A, B, mix = self._replay(key, zero_to)
        position = self._position(me=me, opp=opp, turn=turn, dice=dice, roll=sorted(roll))
        options = keeps(rules, counts_of(roll))
        if not options:
            return Advice([_choice("zero", Z)],
                          note=Message(N_("zero roll: no die scores, the turn is lost")),
                          position=position)
        turn = self.turn
        score = int(self.space.score[key[0]])
        choices = []
        for option in options:
            t2 = t + option.points // rules.unit
            n2 = dice_left(turn, n, option.used)
            result = keep_result(turn, score, t2, option.win)
            if result != CONTINUE:
                then = "win" if result == WIN else "zero"
            elif t2 >= len(B):                  # past a final round's rows: the DP banks
                then = "bank"
            else:
                then = "bank" if B[t2, n2, 0] >= R[t2, n2, 0] - TIE else "roll"
            choices.append(_choice("keep", A[t2, 0 if option.win else n2], keep=list(option.dice),
                                   then=then, points=option.points))
        # docs/rules.md's tie-break: the most points, then the most dice.
        choices.sort(key=lambda c: (-round(c.win, 12), -c.points, -len(c.keep)))
        return Advice(choices, position=position)

    def _last_turn_keep(self, me, opp, turn: int, dice: int, roll) -> Advice:
        """:meth:`keep` in a final round's last turn (:mod:`solver.advice.final_round`)."""
        position = final_round.position(self.rules, _plain(me), _plain(opp), turn, dice,
                                         roll=sorted(roll))
        if self.players > 2:
            options, zero = final_round.keep_n(self.rules, _score(me), self._opps(opp), turn,
                                               dice, roll)
        else:
            options = [(kept, points, (win, 1.0 - win), then) for kept, points, win, then
                       in final_round.keep(self.rules, _score(me), _score(opp), turn, dice,
                                           roll)]
            zero = (0.0, 1.0)
        if not options:
            return Advice([_choice("zero", zero)],
                          note=Message(N_("zero roll: no die scores, the last turn is lost")),
                          position=position)
        return Advice([_choice("keep", wins, keep=kept, then=then, points=points)
                       for kept, points, wins, then in options], position=position)

    def _opponents(self, opp) -> list:
        """The opponents (scores or lines) in seat order after me, one per
        other player, or a UsageError."""
        opps = list(opp) if isinstance(opp, (list, tuple)) else [opp]
        if len(opps) != self.players - 1:
            raise UsageError(ngettext(
                "the table is for {players} players: give {count} opponent (--opp in seat order "
                "after you), not {given}",
                "the table is for {players} players: give {count} opponents (--opp in seat "
                "order after you), not {given}", self.players - 1).format(
                players=self.players, count=self.players - 1, given=len(opps)))
        return opps

    def _opps(self, opp) -> list[int]:
        """The opponents' scores, in seat order after me."""
        return [_score(o) for o in self._opponents(opp)]

    def take_or_fresh(self, me, opp, offer: int, offer_dice: int) -> Advice:
        """At a turn start: take over ``offer`` points with ``offer_dice``
        dice from the previous player (the last of ``opp``), or roll every
        die from 0."""
        rules = self.rules
        key, zero_to = self._start(me, opp)
        m, banker = key[0], key[-1]
        if not rules.has_takeover:
            raise UsageError(_("{game} has no take-over").format(game=rules.name))
        if not self.space.can_take[m]:
            raise UsageError(_("a player at {score} may not take over in {game} (needs at least "
                               "{least} and to be entered)").format(
                score=figure(int(self.space.score[m]) * rules.unit), game=rules.name,
                least=figure(rules.takeover_min)))
        if not 1 <= offer_dice < rules.dice:
            raise UsageError(_("an offer leaves 1 to {most} dice, not {given}").format(
                most=rules.dice - 1, given=offer_dice))
        t = offer // rules.unit
        last = (list(opp) if isinstance(opp, (list, tuple)) else [opp])[-1]
        banker_score = last.score if isinstance(last, Line) else last
        if offer <= 0 or offer % rules.unit or offer > banker_score \
                or not np.any(self.space.bank_next[:, t] == banker):
            raise UsageError(_("an offer of {offer} is impossible with the previous player at "
                               "{score}: no bank of {offer} leaves them there").format(
                offer=figure(offer), score=figure(banker_score)))
        R = self._replay(key, zero_to)[1]
        choices = [_choice("fresh", R[0, rules.dice]), _choice("take", R[t, offer_dice])]
        choices.sort(key=lambda c: -c.win)
        return Advice(choices, position=self._position(
            me=me, opp=opp, offer=[offer, offer_dice]))


def lines_of(me: int, crosses: int, previous: int | None, opps: list[int],
             opp_crosses: list[int] | None = None, opp_previous: list[int] | None = None):
    """The position's lines from its numbers (``farkle advise``'s options,
    the page's questions): my Line, and the opponents' in seat order after
    me (one Line with two players); the opponents' crosses and previous
    scores, where given, are lists in the same order."""
    columns = {}
    for option, values in (("--opp-crosses", opp_crosses), ("--opp-previous", opp_previous)):
        if values is not None and len(values) != len(opps):
            raise UsageError(ngettext(
                "{option} is given {count} times for {opponents} opponent (once per --opp, in "
                "the same order)",
                "{option} is given {count} times for {opponents} opponents (once per --opp, in "
                "the same order)", len(opps) if len(opps) > 1 else 1).format(option=option, count=len(values),
                                                     opponents=len(opps)))
        columns[option] = values or [None] * len(opps)
    lines = [Line(score, crosses or 0, previous) for score, crosses, previous
             in zip(opps, columns["--opp-crosses"], columns["--opp-previous"])]
    return Line(me, crosses, previous), lines[0] if len(lines) == 1 else lines


TIE = 1e-12
"""docs/rules.md's tie: bank rather than roll within it."""


def _both(values):
    """A two-player value ``v`` as the vector ``(v, 1 - v)``."""
    values = np.asarray(values, dtype=float)
    return np.stack([values, 1.0 - values], axis=-1)


def _score(value) -> int:
    """A score given as a number or a :class:`Line`."""
    return value.score if isinstance(value, Line) else int(value)


def _plain(value):
    if isinstance(value, Line):
        return dataclasses.asdict(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value

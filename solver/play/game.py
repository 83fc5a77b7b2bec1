"""One game at the table, with the exact cost of every decision.

A :class:`Game` holds the score sheet (each player's score, crosses and
previous score; the take-over offer on the table) and the turn in progress,
and moves through the phases of a turn:

    TAKE   an offer is on the table and the mover may take it over: take or fresh
    ROLL   dice are due: thrown from the game's generator, or entered by hand
    KEEP   the roll has more than one keep that matters: which one
    BANK   the turn goes on after a keep: bank or roll (or only roll, when
           :func:`~solver.model.turn_rules.may_bank` says no: the entry, forced hot dice)
    OVER   somebody won (or, in a final round, two shared the win)

A final round (``Rules.final_round``): a bank at or past the target gives
every other player, in seat order, one last turn to pass the highest score
(``Table.to_pass``, held by ``Table.holders``). The last of them to play
ends the game as soon as they pass it (:class:`~solver.model.last_turn.LastTurn`
says when), and their only bank is one that equals it; a player before
the last may roll on past it and bank any total that reaches it (equal:
one more holder; more: the new score to pass). After the last turn the
holders win, the win shared where there are several (``winner`` None and
``sharers`` at OVER).

What a keep, a bank, a zero turn, a fall and an offer do is asked of
:mod:`solver.model.turn_rules` alone. A roll with no keep is a zero roll; a roll
holding an instant-win keep wins at once; a roll with a single keep (always
so under the keep rule ``all``), or whose keeps all overshoot, is kept
without asking.

Every decision (take, keep, bank) is priced by :class:`solver.advice.advisor.Advisor`
for the mover's position: each choice's probability of winning; the best one
(ties within :data:`TIE` broken as docs/rules.md says: bank before roll, fresh
before take, then the most points and dice); the cost of the choice made is
``best - chosen``. Bots answer the same questions (:class:`solver.play.bots.OptimalBot` from
the advice, the others from :mod:`solver.sim.policies`' tables). The sheet
follows docs/rules.md's one-level memory: a fallen player's previous score is
their score (:func:`~solver.model.turn_rules.after_zero_turn`).

Every accepted entry can be undone (the state before it is kept). Decisions
go to an optional JSON-lines log, rewritten when an undo removes one.
Nothing here reads or prints: :mod:`solver.play.terminal` does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from solver.advice.advisor import Advice, Advisor
from solver.model.dice import Keep, counts_of, keeps
from solver.model.last_turn import LastTurn
from solver.model.states import Line
from solver.model.turn_rules import (
    OVERSHOOT,
    WIN,
    TurnRules,
    after_bank,
    after_zero_turn,
    dice_left,
    keep_result,
    may_bank,
    may_bank_total,
    may_take_over,
    offer,
)
from solver.play.records import (  # noqa: F401 (the game's records, imported from here too)
    BANK,
    KEEP,
    OVER,
    ROLL,
    TAKE,
    TIE,
    Decision,
    DecisionLog,
    Event,
    PlayerLine,
    PlayError,
    Review,
    Table,
    best_choice,
)
from solver.text import _, language, ngettext, number


class Game:
    """A game between ``players`` seats (module docstring); ``bots`` maps a
    seat (0-based) to its bot (:func:`solver.play.bots.make_bots`), the
    other seats are people. Dice are thrown from
    ``numpy.random.default_rng(seed)``."""

    def __init__(self, advisor: Advisor, players: int = 2, bots: dict | None = None,
                 seed: int | None = None, log: Path | None = None):
        self.advisor = advisor
        self.rules = advisor.rules
        self.turn = TurnRules.of(self.rules)
        self.players = players
        self.dice_rng = np.random.default_rng(seed)
        self.bots = dict(bots or {})
        self.state = Table([PlayerLine() for _ in range(players)], in_hand=self.rules.dice)
        self.history: list[Table] = []
        self.log = DecisionLog(log) if log is not None else None

    # ------------------------------------------------------------ queries
    def units(self, points: int) -> int:
        return points // self.rules.unit

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def mover(self) -> int:
        return self.state.mover

    def is_bot(self, seat: int) -> bool:
        return seat in self.bots

    def line(self, seat: int) -> Line:
        """A seat's line as the Advisor reads it."""
        line = self.state.lines[seat]
        if not self.rules.crosses:
            return Line(line.score)
        if not self.rules.falls_back:           # crosses that cost points: no previous score
            return Line(line.score, line.crosses)
        return Line(line.score, line.crosses, line.previous)

    def _me_and_opponents(self):
        """The Advisor's question: the mover's line and the others' in seat
        order after the mover (one line with two players)."""
        mover = self.state.mover
        others = [self.line((mover + k) % self.players) for k in range(1, self.players)]
        return self.line(mover), others[0] if self.players == 2 else others

    def options(self) -> tuple[Keep, ...]:
        """The legal keeps of the roll on the table."""
        return keeps(self.rules, counts_of(self.state.roll)) if self.state.roll else ()

    def bank_refusal(self) -> str | None:
        """Why the mover may not bank now (BANK phase), or None."""
        state = self.state
        score = self.units(state.lines[state.mover].score)
        total = self.units(state.turn_total)
        if state.to_pass is not None and not (
                self._reaches_mark(total) and may_bank(self.turn, score, total, state.in_hand)):
            if self._plays_last():
                return _("the last turn ends by passing {score} (or by equalling it)").format(
                    score=_points(state.to_pass))
            return _("a bank in the last turn reaches {score} at least").format(
                score=_points(state.to_pass))
        if may_bank(self.turn, score, total, state.in_hand):
            return None
        if total < self.turn.min_bank:
            return _("no bank below {least} ({points} set aside)").format(
                least=_points(self.rules.min_bank), points=_points(state.turn_total))
        if not may_bank_total(self.turn, score, total):
            return _("no bank before the entry of {entry} ({points} set aside)").format(
                entry=_points(self.rules.entry), points=_points(state.turn_total))
        return _("hot dice: all {n} dice must be rolled again").format(n=self.rules.dice)

    def advice(self) -> Advice | None:
        """Every choice of the decision now due, with its win probability
        (None when nothing is to be decided)."""
        state = self.state
        me, opponent = self._me_and_opponents()
        if state.phase == TAKE:
            return self.advisor.take_or_fresh(me, opponent, *state.offer)
        if state.phase == KEEP:
            return self.advisor.keep(me, opponent, state.turn_total, state.in_hand, state.roll)
        if state.phase == BANK and self.bank_refusal() is None:
            return self.advisor.bank_or_roll(me, opponent, state.turn_total, state.in_hand)
        return None

    def chances(self) -> list[float | None]:
        """Every seat's chance of winning at the turn start now (seat
        order): the best of the offer and a fresh roll, else a fresh roll.
        A model's advice (no ``wins``) knows the mover's chance only."""
        state = self.state
        me, opponent = self._me_and_opponents()
        if state.phase == TAKE:
            best = best_choice(self.advisor.take_or_fresh(me, opponent, *state.offer))
        else:
            best = self.advisor.bank_or_roll(me, opponent, 0, self.rules.dice).best
        mine_first = best.wins or [best.win] + [None] * (self.players - 1)
        return [mine_first[(seat - state.mover) % self.players] for seat in range(self.players)]

    def review(self, seat: int, top: int = 3) -> Review:
        mine = [d for d in self.state.decisions if d.seat == seat]
        costly = sorted((d for d in mine if d.cost > 0), key=lambda d: -d.cost)
        return Review(seat, len(mine), sum(d.cost for d in mine), tuple(costly[:top]))

    # ------------------------------------------------------------ entries
    def throw(self) -> list[Event]:
        """Throw the dice in hand from the game's generator."""
        return self.enter_roll(self.dice_rng.integers(1, 7, size=self.state.in_hand))

    def enter_roll(self, dice) -> list[Event]:
        """The dice of the roll now due (thrown, or entered by hand)."""
        state = self.state
        if state.phase != ROLL:
            raise PlayError(_("no roll is due now"))
        dice = tuple(int(d) for d in dice)
        bad = [d for d in dice if not 1 <= d <= 6]
        if bad:
            raise PlayError(_("a die shows 1 to 6, not {face}").format(face=bad[0]))
        if len(dice) != state.in_hand:
            raise PlayError(ngettext("{n} dice are rolled: enter {n}, not {given}",
                                     "{n} dice are rolled: enter {n}, not {given}",
                                     state.in_hand).format(n=state.in_hand, given=len(dice)))
        self._save()
        return self._rolled(tuple(sorted(dice)))

    def choose(self, answer) -> list[Event]:
        """The mover's answer: ``take``/``fresh`` at TAKE, the dice of a
        keep at KEEP, ``bank``/``roll`` at BANK."""
        state = self.state
        if state.phase == TAKE and answer not in ("take", "fresh"):
            raise PlayError(_("take over the offer (t) or roll fresh (f)"))
        if state.phase == BANK:
            if answer not in ("bank", "roll"):
                raise PlayError(_("bank (b) or roll (r)"))
            if answer == "bank" and self.bank_refusal():
                raise PlayError(self.bank_refusal())
        if state.phase == KEEP:
            answer = self._legal_keep(answer)
        if state.phase not in (TAKE, KEEP, BANK):
            raise PlayError(_("nothing to choose now"))
        advice = self.advice()
        self._save()
        events = []
        if advice is not None:
            events.append(self._decided(advice, answer))
        if state.phase == TAKE:
            if answer == "take":
                events.append(Event("take", state.mover, state.offer[0], count=state.offer[1]))
                state.turn_total, state.in_hand = state.offer
            else:
                events.append(Event("fresh", state.mover))
            state.offer = None
            state.phase = ROLL
        elif state.phase == KEEP:
            events += self._keep(answer, forced=False)
        elif answer == "bank":
            events += self._end_turn(banked=True)
        else:
            state.phase = ROLL
        return events

    def bot_move(self) -> list[Event]:
        """The mover is a bot: its answer to the question now due."""
        return self.choose(self.bots[self.state.mover].answer(self))

    def undo(self) -> bool:
        """Back to the state before the last accepted entry (False: none)."""
        if not self.history:
            return False
        made = len(self.state.decisions)
        self.state = self.history.pop()
        if self.log is not None and len(self.state.decisions) != made:
            self.log.rewrite(self.state.decisions)
        return True

    # ---------------------------------------------------------- the turn
    def _save(self) -> None:
        self.history.append(self.state.copy())

    def _legal_keep(self, dice) -> Keep:
        dice = tuple(sorted(int(d) for d in dice))
        bad = [d for d in dice if not 1 <= d <= 6]
        if bad:
            raise PlayError(_("a die shows 1 to 6, not {face}").format(face=bad[0]))
        if not dice:
            raise PlayError(_("keep at least one scoring die"))
        roll = self.state.roll
        if any(dice.count(face) > roll.count(face) for face in set(dice)):
            raise PlayError(_("{dice} is not in the roll {roll}").format(dice=_show(dice),
                                                                        roll=_show(roll)))
        for keep in self.options():
            if keep.dice == dice:
                return keep
        raise PlayError(_("{dice} is not a keep: every kept die must score").format(
            dice=_show(dice)))

    def _decided(self, advice: Advice, answer) -> Event:
        state = self.state
        if isinstance(answer, Keep):
            chosen = next(c for c in advice.choices if tuple(c.keep) == answer.dice)
        else:
            chosen = next(c for c in advice.choices if c.action == answer)
        decision = Decision(state.mover, state.turn_number, state.phase, advice.position,
                            chosen, best_choice(advice), tuple(advice.choices))
        state.decisions.append(decision)
        if self.log is not None:
            self.log.append(decision)
        return Event("decision", state.mover, decision=decision)

    def _rolled(self, roll: tuple[int, ...]) -> list[Event]:
        state = self.state
        state.roll = roll
        events = [Event("roll", state.mover, state.turn_total, roll)]
        options = self.options()
        if not options:
            return events + [Event("zero", state.mover, state.turn_total)] \
                + self._end_turn(banked=False)
        winning = [keep for keep in options if keep.win]
        if winning:
            return events + self._keep(winning[0], forced=True)
        score = self.units(state.lines[state.mover].score)
        overshoots = [keep_result(self.turn, score, self.units(state.turn_total + keep.points),
                                  False) == OVERSHOOT for keep in options]
        if len(options) == 1 or all(overshoots):
            return events + self._keep(options[0], forced=True)
        state.phase = KEEP
        return events

    def _keep(self, keep: Keep, forced: bool) -> list[Event]:
        state = self.state
        mover, score = state.mover, state.lines[state.mover].score
        total = state.turn_total + keep.points
        events = [Event("keep", mover, keep.points, keep.dice, forced=forced)]
        state.roll = None
        result = keep_result(self.turn, self.units(score), self.units(total), keep.win)
        last_turn = self._last_turn() if state.to_pass is not None and self._plays_last() \
            else None
        # A win, or the final round's last turn that passes the score: it
        # ends there, and the game.
        if result == WIN or (last_turn is not None and last_turn.passed(self.units(total))):
            state.winner, state.phase, state.turn_total = mover, OVER, total
            # The sheet ends with the winning turn written in.
            line = state.lines[mover]
            state.lines[mover] = PlayerLine(score + total, score, line.crosses)
            return events + [Event("win", mover, total, keep.dice, score=score + total)]
        if result == OVERSHOOT:
            return events + [Event("overshoot", mover, total)] + self._end_turn(banked=False)
        state.turn_total = total
        state.in_hand = dice_left(self.turn, state.in_hand, keep.used)
        # A last turn's bank reaches the score to pass (the last one's only
        # bank equals it).
        state.phase = ROLL if state.to_pass is not None \
            and not self._reaches_mark(self.units(total)) else BANK
        return events

    def _last_turn(self) -> LastTurn:
        """The mover's last turn of a final round (``to_pass`` set)."""
        state = self.state
        return LastTurn(self.rules, self.units(state.lines[state.mover].score),
                        self.units(state.to_pass))

    def _plays_last(self) -> bool:
        """Whether the mover's is the final round's last turn of all."""
        return (self.state.mover + 1) % self.players == self.state.banker

    def _reaches_mark(self, total: int) -> bool:
        """Whether a bank of ``total`` units in this last turn would reach
        the score to pass (the last one to play: equal it)."""
        if self._plays_last():
            return self._last_turn().equals(total)
        state = self.state
        return self.units(state.lines[state.mover].score) + total >= self.units(state.to_pass)

    def _end_turn(self, banked: bool) -> list[Event]:
        state = self.state
        mover, line, unit = state.mover, state.lines[state.mover], self.rules.unit
        if state.to_pass is not None:
            return self._end_last_turn(banked)
        before = (self.units(line.score), self.units(line.previous), line.crosses)
        state.offer = None
        if banked:
            after = after_bank(self.turn, before[0], self.units(state.turn_total))
            offered = offer(self.turn, state.in_hand)
            if offered:
                state.offer = (state.turn_total, offered)
            events = [Event("bank", mover, state.turn_total, count=offered,
                            score=after[0] * unit)]
        else:
            after = after_zero_turn(self.turn, *before)
            events = []
            if after != before:
                # A cross adds one; the last one is a fall and erases them.
                kind = "cross" if after[2] > 0 else "fall"
                events.append(Event(kind, mover, count=after[2], score=after[0] * unit))
        state.lines[mover] = PlayerLine(after[0] * unit, after[1] * unit, after[2])
        if banked and self.rules.final_round and after[0] * unit >= self.rules.target:
            state.to_pass, state.banker, state.holders = after[0] * unit, mover, (mover,)
            events.append(Event("last-turn", (mover + 1) % self.players, score=state.to_pass))
        self._next_turn()
        taker = self.units(state.lines[state.mover].score)
        if state.offer is not None and may_take_over(self.turn, taker):
            state.phase = TAKE
        else:
            state.offer = None
            state.phase = ROLL
        return events

    def _next_turn(self) -> None:
        state = self.state
        state.mover = (state.mover + 1) % self.players
        state.turn_number += 1
        state.turn_total, state.in_hand, state.roll = 0, self.rules.dice, None

    def _end_last_turn(self, banked: bool) -> list[Event]:
        """A final round's last turn ends without passing the score (the
        last one to play) or by a bank or a zero roll (module docstring)."""
        state = self.state
        mover = state.mover
        line = state.lines[mover]
        events = []
        if banked:
            score = line.score + state.turn_total
            state.lines[mover] = PlayerLine(score, line.score, line.crosses)
            if score > state.to_pass:
                state.to_pass, state.holders = score, (mover,)
            else:
                state.holders += (mover,)
            if self._plays_last():              # equal to the score: the win is shared
                events.append(Event("tie", mover, state.turn_total, score=score))
            else:
                events.append(Event("bank", mover, state.turn_total, score=score))
        if not self._plays_last():
            self._next_turn()
            state.phase = ROLL
            return events + [Event("last-turn", state.mover, score=state.to_pass)]
        state.phase, state.roll = OVER, None
        if len(state.holders) == 1:
            state.winner = state.holders[0]
            return events + [Event("win", state.winner, score=state.to_pass)]
        if not banked:
            events.append(Event("shared", mover, score=state.to_pass, seats=state.holders))
        return events


def _show(dice) -> str:
    return " ".join(map(str, dice))


def _points(value: int) -> str:
    """Points in a message: ``10 000`` in French, ``10000`` in English (as
    the game has always written them; :func:`solver.play.screen.points`)."""
    return str(value) if language() == "en" else number(value)

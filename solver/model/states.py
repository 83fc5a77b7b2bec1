"""Player states: what a player's line on the score sheet holds, and how a
turn changes it.

A player state ``p`` is a label (score, previous score, crosses), scores in
units. A turn ends in one of three ways, and this module says where each
leaves the player:

    bank turn total t :  p -> bank_next[p, t]   (-1: bank not allowed)
    zero turn         :  p -> zero_next[p]      (zero roll or overshoot)
    reach the target  :  the game is won

The solver only reads these arrays, so a house rule about the score sheet is
a new way to fill them, not a change to the solver. Three ways exist:

* scores alone (no crosses): ``(s, -1, 0)``; a zero turn changes nothing, a
  bank leads to ``min(s + t, cap)``.
* ``memory="exact"`` (dix-mille rule 4): ``(s, prev, c)`` with ``prev`` the
  score before the last bank and ``c`` the crosses. A zero turn adds a cross;
  the third sends the player to ``(prev, prev, 0)``. A bank leads to
  ``(s + t, s, 0)``. A *fallen* state ``(s, s, 0)`` has nothing left to lose,
  so its crosses do not matter and are not counted (nor at score 0).
* ``memory="model"``: ``(s, -1, c)`` and the fallen states ``(s, s, 0)``; the
  previous score is forgotten and the third cross sends the player to the
  fallen state of a fixed per-score estimate ``fall_to[s]`` of it.
* crosses that cost points (``fall_penalty`` P, memory ``"penalty"``):
  ``(s, -1, c)`` with ``s`` from the floor F up; the last cross leads to
  ``(max(s - P, F), -1, 0)``, a line at the floor is unchanged. Scores below
  0 need turn totals above the target: ``bank_next`` has
  ``target - F`` columns (``Rules.turn_rows_units``).

States are those reachable from ``(0, ., 0)`` by banks and zero turns (and,
in the model, from every fallen state: a real player may have fallen to any
score).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from solver.model import turn_rules
from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.model.turn_rules import TurnRules
from solver.text import N_, _


class Moves(NamedTuple):
    """Where a turn leads, per player state (one record for the compiled
    kernels): ``score``, ``bank_next``, ``zero_next``, ``bank_slot`` and
    ``offer_first`` of a :class:`PlayerSpace`, and ``take_row``, the row of
    the take-over values of each state that may take over (-1: none)."""
    score: np.ndarray
    bank_next: np.ndarray
    zero_next: np.ndarray
    bank_slot: np.ndarray
    take_row: np.ndarray
    offer_first: np.ndarray


@dataclass(frozen=True)
class PlayerSpace:
    score: np.ndarray
    """Banked score of each player state, in units."""
    previous: np.ndarray
    """Score before the last bank (units), or -1 where the state does not
    remember it; equal to the score in a fallen state."""
    crosses: np.ndarray
    zero_next: np.ndarray
    """Player state after a turn that ends without a bank."""
    bank_next: np.ndarray
    """``bank_next[p, t]``: player state after banking ``t`` units; -1 where
    the bank is not allowed (entry not met) or would reach the target."""
    can_take: np.ndarray
    """True where the player may take over an offered turn total."""
    bank_slot: np.ndarray
    """Index of each state among the states a bank leads to (-1 for the
    others): only a player who has just banked makes an offer, so the
    take-over values are kept for these states alone (in dix-mille, a
    quarter of them: a bank erases the crosses)."""
    up: np.ndarray
    """A state like ``p`` with the next higher score (-1 at the top): the
    solver starts its search for a turn start's value from a neighbour's."""
    memory: str = "none"
    fall_to: np.ndarray | None = None
    """The model's fall estimate per score (units), where it applies."""
    index: dict = field(default_factory=dict)
    """(score, previous, crosses) -> state."""
    seat: np.ndarray | None = None
    """The seat each state belongs to, where the two seats play under rules
    of their own (:mod:`solver.study.fair_start`); None: the seats are alike."""

    @property
    def size(self) -> int:
        return len(self.score)

    def take_rows(self) -> np.ndarray:
        """Row of each state in the take-over values: takers in order, -1
        for the others."""
        take_row = -np.ones(self.size, dtype=np.int64)
        takers = np.flatnonzero(self.can_take)
        take_row[takers] = np.arange(len(takers))
        return take_row

    @cached_property
    def offers(self) -> tuple[np.ndarray, int]:
        """``(offer_first, offer_rows)``: per bank slot, the smallest turn
        total of a bank that leads there, and the most turn totals that lead
        to one slot. The take-over values of a slot are kept for those turn
        totals alone (row ``t - offer_first[slot]``): a state that remembers
        the previous score is reached by one turn total only, so the exact
        memory of dix-mille keeps one row instead of one per turn total."""
        m, t = np.nonzero(self.bank_next >= 0)
        slot = self.bank_slot[self.bank_next[m, t]]
        slots = int(np.sum(self.bank_slot >= 0))
        first = np.full(slots, self.bank_next.shape[1], dtype=np.int64)
        last = np.full(slots, -1, dtype=np.int64)
        np.minimum.at(first, slot, t)
        np.maximum.at(last, slot, t)
        return first, int(np.max(last - first, initial=0)) + 1

    def moves(self, take_row: np.ndarray | None = None) -> Moves:
        return Moves(self.score, self.bank_next, self.zero_next, self.bank_slot,
                     self.take_rows() if take_row is None else take_row, self.offers[0])

    def index_of_score(self, units: int) -> int:
        """The state of a score in a space without crosses, the start state
        (score 0), or in a penalty space the score's line without crosses."""
        hits = np.flatnonzero((self.score == units) & (self.crosses == 0))
        if len(hits) != 1:
            raise KeyError(units)
        return int(hits[0])

    def find(self, score: int, previous: int | None = None, crosses: int = 0) -> int:
        """The state of a score-sheet line (units); KeyError if there is none.
        ``previous == score`` (or a score of 0) means the fallen state;
        ``previous`` is not looked at where the space forgets it."""
        if self.memory == "none":
            label = (score, -1, 0)
        elif self.memory == "penalty":
            label = (score, -1, crosses)
        elif previous == score or score == 0:
            label = (score, score, 0)
        elif self.memory == "exact":
            label = (score, previous, crosses)
        else:
            label = (score, -1, crosses)
        return self.index[label]


def _build(rules: Rules, starts, zero, bank, memory: str, fall_to=None) -> PlayerSpace:
    """Enumerate the states reachable from ``starts`` through ``zero(label)``
    and ``bank(score, t)`` (None: not allowed) and fill the arrays. A bank
    depends on the score alone (it erases crosses and sets the previous
    score), so each score's banks are worked out once."""
    target = rules.target_units
    banks = {}

    def banks_of(score):                    # a score below 0 needs more than the target
        if score not in banks:
            banks[score] = [bank(score, t) for t in range(target - score)]
        return banks[score]
    labels = set(starts)
    frontier = list(starts)
    while frontier:
        label = frontier.pop()
        for nxt in [zero(label)] + banks_of(label[0]):
            if nxt is not None and nxt not in labels:
                labels.add(nxt)
                frontier.append(nxt)
    order = sorted(labels)
    index = {label: i for i, label in enumerate(order)}
    P = len(order)
    bank_next = -np.ones((P, rules.turn_rows_units), dtype=np.int64)
    rows = {score: [-1 if nxt is None else index[nxt] for nxt in destinations]
            for score, destinations in banks.items()}
    for i, label in enumerate(order):
        row = rows[label[0]]
        bank_next[i, :len(row)] = row
    score = np.array([label[0] for label in order], dtype=np.int64)
    # up: same kind of state (fallen, or same previous and crosses), next score.
    kind = [("fallen" if label[1] == label[0] else label[1], label[2]) for label in order]
    up = -np.ones(P, dtype=np.int64)
    last_of_kind: dict = {}
    for i in range(P - 1, -1, -1):
        up[i] = last_of_kind.get(kind[i], -1)
        last_of_kind[kind[i]] = i
    turn = TurnRules.of(rules)
    can_take = np.array([turn_rules.may_take_over(turn, int(x)) for x in score], dtype=np.bool_)
    banked = np.unique(bank_next[bank_next >= 0])
    bank_slot = -np.ones(P, dtype=np.int64)
    bank_slot[banked] = np.arange(len(banked))
    return PlayerSpace(
        score=score,
        previous=np.array([label[1] for label in order], dtype=np.int64),
        crosses=np.array([label[2] for label in order], dtype=np.int64),
        zero_next=np.array([index[zero(label)] for label in order], dtype=np.int64),
        bank_next=bank_next, can_take=can_take, bank_slot=bank_slot, up=up, memory=memory,
        fall_to=fall_to, index=index)


def _bank_to_score(turn: TurnRules, first_bank_bonus: int = 0):
    """A bank of a space that forgets the previous score: ``(s, t)`` to the
    label of the banked score, or None where the bank is not allowed.
    ``first_bank_bonus`` (units) is added to a player's first bank (a head
    start counted once entered, :mod:`solver.study.fair_start`); a first bank
    that it would carry to the target is not allowed."""
    def bank(s, t):
        bonus = first_bank_bonus if s == 0 else 0
        if not turn_rules.may_bank_total(turn, s, t) or s + t + bonus >= turn.target:
            return None
        return (turn_rules.banked_score(turn, s, t + bonus), -1, 0)
    return bank


def score_space(rules: Rules, first_bank_bonus: int = 0) -> PlayerSpace:
    """Player states that are banked scores alone (games without crosses)."""
    return _build(rules, [(0, -1, 0)], lambda label: label,
                  _bank_to_score(TurnRules.of(rules), first_bank_bonus), "none")


def memory_space(rules: Rules) -> PlayerSpace:
    """dix-mille rule 4 exactly: (score, previous score, crosses)."""
    turn = TurnRules.of(rules)

    def bank(s, t):
        return turn_rules.after_bank(turn, s, t) if turn_rules.may_bank_total(turn, s, t) \
            else None
    return _build(rules, [(0, 0, 0)], lambda label: turn_rules.after_zero_turn(turn, *label),
                  bank, "exact")


def model_space(rules: Rules, fall_to, first_bank_bonus: int = 0) -> PlayerSpace:
    """Crosses kept, previous score forgotten: the third cross at score ``s``
    falls to the fallen state of ``fall_to[s]`` (units)."""
    turn = TurnRules.of(rules)

    def zero(label):
        s, prev, c = label
        if prev == s:                       # fallen: nothing to lose
            return label
        c, falls = turn_rules.add_cross(turn, c)
        return (int(fall_to[s]), int(fall_to[s]), 0) if falls else (s, -1, c)

    # Every fallen state, not only those the estimates lead to: a real player
    # may have fallen to any score, and advice must be able to say so.
    fallen = [(int(x), int(x), 0) for x in score_space(rules).score]
    return _build(rules, fallen, zero, _bank_to_score(turn, first_bank_bonus), "model",
                  np.asarray(fall_to, dtype=np.int64))


def penalty_space(rules: Rules) -> PlayerSpace:
    """Crosses that cost points (``fall_penalty``): (score, -1, crosses),
    scores from the floor up; the fall's destination is known from the
    score, so no previous score is kept and nothing is estimated."""
    turn = TurnRules.of(rules)
    return _build(rules, [(0, -1, 0)], lambda label: turn_rules.after_zero_turn(turn, *label),
                  _bank_to_score(turn), "penalty")


def player_space(rules: Rules, memory: str = "model", fall_to=None) -> PlayerSpace:
    """The player states of a game: scores alone without crosses; with
    crosses that cost points, scores and crosses; with crosses that go back
    to the previous score, ``memory`` picks the exact states or the model."""
    if not rules.crosses:
        return score_space(rules)
    if rules.fall_penalty:
        return penalty_space(rules)
    if memory == "exact":
        return memory_space(rules)
    if memory == "model":
        if fall_to is None:
            raise UsageError(_("the crosses model needs its fall estimates (fall_to)"))
        return model_space(rules, fall_to)
    raise UsageError(_("unknown memory {memory}: use {memories}").format(
        memory=repr(memory), memories=_("exact or model")))


NO_CROSS, CROSSED, LAST_CROSS = 0, 1, 2
"""A player's crosses as a card reads them (:func:`cross_states`)."""


def cross_state(rules: Rules, score: int, crosses: int, previous: int | None) -> int:
    """``LAST_CROSS`` on the last cross with a fall ahead, ``CROSSED`` with
    an earlier cross and a fall ahead, else ``NO_CROSS`` (scores in units).
    A fall is ahead unless the player has fallen (``previous`` equal to
    ``score``) or stands where a fall cannot go lower: 0, or with a
    penalty the floor; a previous score not remembered (None, or -1 in a
    space that forgets it) leaves the fall ahead."""
    lowest = rules.floor_units if rules.fall_penalty else 0
    if not rules.crosses or crosses == 0 or score == lowest or previous == score:
        return NO_CROSS
    return LAST_CROSS if crosses == rules.crosses - 1 else CROSSED


def cross_states(rules: Rules, space: PlayerSpace) -> np.ndarray:
    """:func:`cross_state` of every state of ``space``."""
    return np.array([cross_state(rules, int(s), int(c), int(p)) for s, c, p in
                     zip(space.score, space.crosses, space.previous)], dtype=np.int64)


# ------------------------------------------------- score-sheet lines

@dataclass(frozen=True)
class Line:
    """A player's line on the score sheet, in points."""
    score: int
    crosses: int = 0
    previous: int | None = None
    """The score before their last bank (equal to the score after a fall);
    only games with crosses have it."""


def first_bank_units(rules: Rules) -> int:
    """The smallest score a first bank leaves (units): the entry, the
    minimum bank and one unit, whichever is largest."""
    return max(rules.entry_units, rules.min_bank_units, 1)


def check_turn(rules: Rules, turn: int, dice: int) -> None:
    """A UsageError where a turn total (points) and dice in hand cannot be
    a position inside a turn, whatever the scores."""
    if not 1 <= dice <= rules.dice:
        raise UsageError(_("dice in hand must be 1 to {most} in {game}, not {given}").format(
            most=rules.dice, game=rules.name, given=dice))
    if turn % rules.unit or turn < 0:
        raise UsageError(_("turn total {turn} is not a non-negative multiple of {unit}").format(
            turn=figure(turn), unit=figure(rules.unit)))
    if turn == 0 and dice != rules.dice:
        raise UsageError(_("with a turn total of 0 the player holds all {dice} dice").format(
            dice=rules.dice))


def check_roll(roll, in_hand: int) -> None:
    """A UsageError where ``roll`` cannot be a throw of ``in_hand`` dice."""
    if len(roll) != in_hand:
        raise UsageError(_("the roll has {count} dice but {dice} are in hand").format(
            count=len(roll), dice=in_hand))
    if any(d not in (1, 2, 3, 4, 5, 6) for d in roll):
        raise UsageError(_("every die must be 1 to 6"))


SCORE, CROSSES, PREVIOUS = "score", "crosses", "previous"
_WHOSE = {
    ("my", SCORE): N_("my score {score}"),
    ("opponent", SCORE): N_("opponent score {score}"),
    ("opponent N", SCORE): N_("opponent {n} score {score}"),
    ("player", SCORE): N_("player score {score}"),
    (None, SCORE): N_("{who} score {score}"),
    ("my", CROSSES): N_("my crosses"),
    ("opponent", CROSSES): N_("opponent crosses"),
    ("opponent N", CROSSES): N_("opponent {n} crosses"),
    ("player", CROSSES): N_("player crosses"),
    (None, CROSSES): N_("{who} crosses"),
    ("my", PREVIOUS): N_("my previous score"),
    ("opponent", PREVIOUS): N_("opponent previous score"),
    ("opponent N", PREVIOUS): N_("opponent {n} previous score"),
    ("player", PREVIOUS): N_("player previous score"),
    (None, PREVIOUS): N_("{who} previous score"),
}
"""A line's score, crosses or previous score named in a message, by whose
line it is: ``who`` is "my", "opponent", "opponent 2" (the advisor's
opponents in seat order) or "player"."""


def _whose(who: str, what: str, score: int | None = None) -> str:
    """``my score 1500``, ``opponent 2 crosses``: :data:`_WHOSE` in the
    reader's language."""
    kind, n = who, ""
    if who.startswith("opponent ") and who[9:].isdigit():
        kind, n = "opponent N", who[9:]
    template = _WHOSE.get((kind, what), _WHOSE[None, what])
    return _(template).format(who=who, n=n, score=figure(score) if score is not None else "")


def _bad_crosses(rules: Rules, line: Line, who: str) -> UsageError:
    return UsageError(_("{crosses} must be 0 to {most}, not {given}").format(
        crosses=_whose(who, CROSSES), most=rules.crosses - 1, given=line.crosses))


def _cannot_occur(rules: Rules, who: str, score: int, line: Line | None = None,
                  previous: int | None = None) -> UsageError:
    """A line no play of ``rules`` reaches: its score (with its previous
    score and crosses, where ``line`` is given)."""
    if line is None:
        return UsageError(_("{score} cannot occur in {game} (entry {entry})").format(
            score=_whose(who, SCORE, score), game=rules.name, entry=figure(rules.entry)))
    return UsageError(_("{score} with previous {previous} and {crosses} crosses cannot occur "
                        "in {game}").format(score=_whose(who, SCORE, score),
                                            previous=figure(previous) if previous is not None
                                            else "None", crosses=line.crosses, game=rules.name))


def check_line(rules: Rules, line: Line | int, who: str, memory: str | None = None) -> None:
    """A UsageError where a score-sheet line cannot occur in ``rules``,
    worked out from the rules alone: no player space is built, so a line of
    a game to any target is checked at once (before a table is made for
    it). ``memory`` is the table's (``"none"``, ``"exact"`` or ``"model"``),
    or None where the table decides (a table not yet chosen): a previous
    score is then asked for only where every memory needs it (the last
    cross before a fall). The states of :func:`player_space` are exactly
    the lines this lets through (tests/test_bad_input.py)."""
    line = line if isinstance(line, Line) else Line(line)
    score, previous, unit = line.score, line.previous, rules.unit
    if score % unit:
        raise UsageError(_("{score} is not a multiple of {unit}").format(
            score=_whose(who, SCORE, score), unit=figure(unit)))
    if not rules.floor <= score < rules.target:
        raise UsageError(_("{score} must be at least {floor} and below the target "
                           "{target}").format(score=_whose(who, SCORE, score),
                                              floor=figure(rules.floor),
                                              target=figure(rules.target)))
    first, target = first_bank_units(rules), rules.target_units
    s = score // unit
    if rules.fall_penalty:
        # Any score from the floor up: a penalty reaches below every bank.
        if previous is not None:
            raise UsageError(_("{game} keeps no previous score: a fall costs {points} "
                               "points").format(game=rules.name,
                                                points=figure(rules.fall_penalty)))
        if not 0 <= line.crosses < rules.crosses:
            raise _bad_crosses(rules, line, who)
        return
    if not rules.crosses:
        if line.crosses or previous is not None:
            raise UsageError(_("{game} has no crosses and no previous score").format(
                game=rules.name))
        # Every score from the first bank up is reached; a capped game's
        # banks stop at the cap (turn_rules.banked_score).
        cap = rules.score_cap_units
        cap = target - 1 if cap is None else cap
        if s and not min(first, cap) <= s <= cap:
            raise _cannot_occur(rules, who, score)
        return
    if not 0 <= line.crosses < rules.crosses:
        raise _bad_crosses(rules, line, who)
    last_cross = line.crosses == rules.crosses - 1
    if previous is None and score == 0:
        previous = 0
    if previous is None and (memory == "exact" or last_cross):
        raise UsageError(_("{previous} (before the last bank) is needed here").format(
            previous=_whose(who, PREVIOUS)))
    if previous is not None and (previous % unit or not 0 <= previous <= score
                                 or 0 < previous < rules.entry):
        raise UsageError(_("{previous} {given} is impossible with a score of {score} (0, or "
                           "from {entry} up to the score)").format(
            previous=_whose(who, PREVIOUS), given=figure(previous), score=figure(score),
            entry=figure(rules.entry)))
    # A bank of t units leads from p to p + t, t at least the minimum bank
    # (the first bank, from 0, at least the entry too). The exact memory
    # keeps the previous score: it is 0 or a score a bank leads to, and a
    # fallen line (p == s) needs a bank still possible from there. The
    # model forgets it but for the fall of a last cross, to a score that
    # can occur.
    step = max(rules.min_bank_units, 1)
    p = None if previous is None else previous // unit
    possible = s == 0 or s >= first
    if s and p is not None and 0 < p < s and (memory == "exact" or last_cross):
        possible = possible and p >= first
    if s and p is not None and memory == "exact":
        possible = possible and (p + step < target if p == s else p == 0 or s - p >= step)
    if not possible:
        raise _cannot_occur(rules, who, score, line, previous)


def player_state(rules, space, line: Line | int, who: str) -> tuple[int, int | None]:
    """``(state, zero_to)`` of a score-sheet line, or a UsageError saying
    why it cannot be (:func:`check_line`). ``zero_to`` is the true state
    after a zero turn where the model's estimate would be used instead
    (last cross before a fall), else None."""
    line = line if isinstance(line, Line) else Line(line)
    check_line(rules, line, who, space.memory if rules.crosses else "none")
    score, previous, unit = line.score, line.previous, rules.unit
    if not rules.crosses:
        try:
            return space.index_of_score(score // unit), None
        except KeyError:
            raise _cannot_occur(rules, who, score) from None
    crosses = line.crosses
    if rules.fall_penalty and score == rules.floor:
        crosses = 0                             # nothing left to lose: one line
    if previous is None and score == 0:
        previous = 0
    p_units = None if previous is None else previous // unit
    try:
        state = space.find(score // unit, p_units, crosses)
    except KeyError:
        raise _cannot_occur(rules, who, score, line, previous) from None
    zero_to = None
    last_cross = line.crosses == rules.crosses - 1
    if space.memory == "model" and last_cross and p_units < score // unit:
        zero_to = space.find(p_units, p_units)
    return state, zero_to

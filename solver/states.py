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

States are those reachable from ``(0, ., 0)`` by banks and zero turns (and,
in the model, from every fallen state: a real player may have fallen to any
score).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import UsageError
from .rules import Rules


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
    up: np.ndarray
    """A state like ``p`` with the next higher score (-1 at the top): the
    solver starts its search for a turn start's value from a neighbour's."""
    memory: str = "none"
    fall_to: np.ndarray | None = None
    """The model's fall estimate per score (units), where it applies."""
    index: dict = field(default_factory=dict)
    """(score, previous, crosses) -> state."""

    @property
    def size(self) -> int:
        return len(self.score)

    def index_of_score(self, units: int) -> int:
        """The state of a score in a space without crosses, or the start
        state (score 0)."""
        hits = np.flatnonzero(self.score == units)
        if len(hits) != 1:
            raise KeyError(units)
        return int(hits[0])

    def find(self, score: int, previous: int | None = None, crosses: int = 0) -> int:
        """The state of a score-sheet line (units); KeyError if there is none.
        ``previous == score`` (or a score of 0) means the fallen state;
        ``previous`` is not looked at where the space forgets it."""
        if self.memory == "none":
            label = (score, -1, 0)
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

    def banks_of(score):
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
    bank_next = -np.ones((P, target), dtype=np.int64)
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
    takeover = rules.takeover_min_units
    can_take = score >= takeover if rules.has_takeover else np.zeros(P, dtype=np.bool_)
    return PlayerSpace(
        score=score,
        previous=np.array([label[1] for label in order], dtype=np.int64),
        crosses=np.array([label[2] for label in order], dtype=np.int64),
        zero_next=np.array([index[zero(label)] for label in order], dtype=np.int64),
        bank_next=bank_next, can_take=can_take, up=up, memory=memory, fall_to=fall_to,
        index=index)


def _bank_allowed(rules: Rules, s: int, t: int) -> bool:
    return t > 0 and (s > 0 or t >= rules.entry_units) and s + t < rules.target_units


def score_space(rules: Rules) -> PlayerSpace:
    """Player states that are banked scores alone (games without crosses)."""
    cap = rules.score_cap_units

    def bank(s, t):
        if not _bank_allowed(rules, s, t):
            return None
        return (s + t if cap is None else min(s + t, cap), -1, 0)
    return _build(rules, [(0, -1, 0)], lambda label: label, bank, "none")


def memory_space(rules: Rules) -> PlayerSpace:
    """dix-mille rule 4 exactly: (score, previous score, crosses)."""
    def zero(label):
        s, prev, c = label
        if prev == s:                       # fallen, or at 0: nothing to lose
            return label
        if c + 1 < rules.crosses:
            return (s, prev, c + 1)
        return (prev, prev, 0)

    def bank(s, t):
        return (s + t, s, 0) if _bank_allowed(rules, s, t) else None
    return _build(rules, [(0, 0, 0)], zero, bank, "exact")


def model_space(rules: Rules, fall_to) -> PlayerSpace:
    """Crosses kept, previous score forgotten: the third cross at score ``s``
    falls to the fallen state of ``fall_to[s]`` (units)."""
    def zero(label):
        s, prev, c = label
        if prev == s:
            return label
        if c + 1 < rules.crosses:
            return (s, -1, c + 1)
        return (int(fall_to[s]), int(fall_to[s]), 0)

    def bank(s, t):
        return (s + t, -1, 0) if _bank_allowed(rules, s, t) else None
    # Every fallen state, not only those the estimates lead to: a real player
    # may have fallen to any score, and advice must be able to say so.
    fallen = [(int(x), int(x), 0) for x in score_space(rules).score]
    return _build(rules, fallen, zero, bank, "model", np.asarray(fall_to, dtype=np.int64))


def player_space(rules: Rules, memory: str = "model", fall_to=None) -> PlayerSpace:
    """The player states of a game: scores alone without crosses; with
    crosses, ``memory`` picks the exact states or the model."""
    if not rules.crosses:
        return score_space(rules)
    if memory == "exact":
        return memory_space(rules)
    if memory == "model":
        if fall_to is None:
            raise UsageError("the crosses model needs its fall estimates (fall_to)")
        return model_space(rules, fall_to)
    raise UsageError(f"unknown memory {memory!r}: use exact or model")

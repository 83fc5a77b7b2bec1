"""Player states: what a player's line on the score sheet holds, and how a
turn changes it.

A player state ``p`` carries a banked score (in units). A turn ends in one
of three ways, and this module says where each leaves the player:

    bank turn total t :  p -> bank_next[p, t]   (-1: bank not allowed)
    zero turn         :  p -> zero_next[p]      (zero roll or overshoot)
    reach the target  :  the game is won

Without crosses a player state is just the score, ``zero_next[p] = p`` and
``bank_next[p, t]`` is the state of score ``min(s + t, cap)``. The solver
only reads these arrays, so a richer state (crosses, previous score) is a
new way to fill them, not a change to the solver.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import UsageError
from .rules import Rules


@dataclass(frozen=True)
class PlayerSpace:
    score: np.ndarray
    """Banked score of each player state, in units."""
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

    @property
    def size(self) -> int:
        return len(self.score)

    def index_of_score(self, units: int) -> int:
        hits = np.flatnonzero(self.score == units)
        if len(hits) != 1:
            raise KeyError(units)
        return int(hits[0])


def reachable_scores(rules: Rules) -> list[int]:
    """Scores (units) that a player can have at the start of a turn: 0, and
    every score that a chain of legal banks from 0 reaches below the target."""
    target = rules.target_units
    cap = rules.score_cap_units
    seen = {0}
    frontier = [0]
    while frontier:
        s = frontier.pop()
        smallest_bank = rules.entry_units if s == 0 else 1
        for t in range(max(1, smallest_bank), target - s):
            new = s + t if cap is None else min(s + t, cap)
            if new not in seen:
                seen.add(new)
                frontier.append(new)
    return sorted(seen)


def score_space(rules: Rules) -> PlayerSpace:
    """Player states that are banked scores alone (games without crosses)."""
    scores = np.array(reachable_scores(rules), dtype=np.int64)
    target = rules.target_units
    cap = rules.score_cap_units
    where = -np.ones(target, dtype=np.int64)
    where[scores] = np.arange(len(scores))
    bank_next = -np.ones((len(scores), target), dtype=np.int64)
    for p, s in enumerate(scores):
        first = rules.entry_units if s == 0 else 1
        for t in range(max(1, first), target - s):
            bank_next[p, t] = where[s + t if cap is None else min(s + t, cap)]
    takeover = rules.takeover_min_units
    can_take = np.zeros(len(scores), dtype=np.bool_)
    if rules.has_takeover:
        can_take = scores >= takeover
    return PlayerSpace(score=scores, zero_next=np.arange(len(scores), dtype=np.int64),
                       bank_next=bank_next, can_take=can_take,
                       up=np.append(np.arange(1, len(scores)), -1).astype(np.int64))


def player_space(rules: Rules) -> PlayerSpace:
    if rules.crosses:
        raise UsageError(f"{rules.name} has crosses, which the solver does not model yet")
    return score_space(rules)

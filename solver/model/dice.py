"""The dice: distinct rolls, their probabilities, and the legal keeps of each.

A roll of ``n`` dice is a multiset, written as face counts ``c[1..6]`` with
``sum(c) = n``; its probability is the multinomial

    P(c) = n! / (c1! c2! ... c6!) / 6**n .

A *keep* is a non-empty sub-multiset ``k <= c`` of one roll in which every
die counts (docs/rules.md, "Points of a keep"): either one straight or one
combination (dice whose face counts, largest first, are a listed shape such
as three pairs (2, 2, 2)) kept whole and alone, or, face by face, ``sum_f
scoring[f][k_f]`` where every ``k_f > 0`` has an entry (or is an instant
win). Where dice can be read more than one way, the keep is worth the most. :func:`keeps` lists every distinct
legal keep; :func:`keep_table` gives the solver, for each number of dice in
hand, flat arrays of roll classes and the distinct outcomes of their keeps.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from solver.model.rules import Rules

FACES = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Keep:
    dice: tuple[int, ...]
    """The kept dice, sorted."""
    points: int
    win: bool = False
    """True when this keep wins the game at once (five 1s in cinq-mille)."""

    @property
    def used(self) -> int:
        return len(self.dice)


@lru_cache(maxsize=None)
def rolls(n: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Every distinct roll of ``n`` dice as (face counts, exact probability)."""
    out = []
    for combo in itertools.combinations_with_replacement(FACES, n):
        counts = tuple(combo.count(f) for f in FACES)
        ways = math.factorial(n)
        for c in counts:
            ways //= math.factorial(c)
        out.append((counts, Fraction(ways, 6 ** n)))
    return tuple(out)


def counts_of(dice) -> tuple[int, ...]:
    return tuple(sum(1 for d in dice if d == f) for f in FACES)


def _face_is_keepable(rules: Rules, face: int, count: int) -> bool:
    values = rules.scoring[face - 1]
    return (count <= len(values) and values[count - 1] > 0) or (face, count) in rules.instant_wins


@lru_cache(maxsize=None)
def keeps(rules: Rules, counts: tuple[int, ...]) -> tuple[Keep, ...]:
    """The legal keeps of the roll with these face counts: under the keep
    rule ``any`` every distinct one, most points first (an instant win first
    of all); under ``all`` the one keep that sets every scoring die aside
    (an instant win, else the most dice, then the most points)."""
    options = _every_keep(rules, counts)
    if rules.keep_rule == "all" and options:
        return (min(options, key=lambda k: (not k.win, -k.used, -k.points, k.dice)),)
    return options


def _every_keep(rules: Rules, counts: tuple[int, ...]) -> tuple[Keep, ...]:
    found: dict[tuple[int, ...], Keep] = {}
    for faces, points in rules.straights:
        if all(counts[f - 1] >= 1 for f in faces) and len(faces) == len(set(faces)):
            dice = tuple(sorted(faces))
            found[dice] = Keep(dice, points)
    for shape, points in rules.combinations:
        for dice in _dice_of_shape(counts, shape):
            if dice not in found or found[dice].points < points:
                found[dice] = Keep(dice, points)
    choices = []
    for face in FACES:
        options = [0] + [k for k in range(1, counts[face - 1] + 1)
                         if _face_is_keepable(rules, face, k)]
        choices.append(options)
    for kept in itertools.product(*choices):
        if not any(kept):
            continue
        points = 0
        win = False
        for face, k in zip(FACES, kept):
            if k == 0:
                continue
            if (face, k) in rules.instant_wins:
                win = True
            else:
                points += rules.scoring[face - 1][k - 1]
        dice = tuple(f for f, k in zip(FACES, kept) for _ in range(k))
        keep = Keep(dice, points, win)
        old = found.get(dice)
        if old is None or (keep.win, keep.points) > (old.win, old.points):
            found[dice] = keep
    if not found and rules.no_score_bonus and sum(counts) == rules.dice:
        # Every die rolled and none scores: all of them, for the bonus.
        every = tuple(f for f in FACES for _ in range(counts[f - 1]))
        found[every] = Keep(every, rules.no_score_bonus)
    return tuple(sorted(found.values(), key=lambda k: (not k.win, -k.points, -k.used, k.dice)))


def _dice_of_shape(counts: tuple[int, ...], shape: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every sub-multiset of the roll ``counts`` whose face counts, largest
    first, are ``shape``: one distinct face for each part."""
    out = set()
    for faces in itertools.permutations(FACES, len(shape)):
        if all(counts[face - 1] >= part for face, part in zip(faces, shape)):
            out.add(tuple(sorted(face for face, part in zip(faces, shape)
                                 for _ in range(part))))
    return out


def keeps_of_dice(rules: Rules, dice) -> tuple[Keep, ...]:
    return keeps(rules, counts_of(dice))


@dataclass(frozen=True, eq=False)
class KeepTable:
    """Roll classes of ``n`` dice and their keeps' outcomes, as flat arrays.

    The turn DP only needs, per roll, the distinct (points, dice used) of its
    keeps (or the instant win). Rolls with the same such list are one
    *class* whose probability is their sum: less work than going roll by
    roll. For ``n`` in 1..dice, class ``r`` has probability
    ``roll_prob[n][r]`` and keeps ``keep_start[n][r]`` to
    ``keep_start[n][r+1] - 1`` of ``keep_units[n]`` (points in units),
    ``keep_used[n]`` (dice kept) and ``keep_win[n]`` (instant win). The class
    with no keep holds the zero rolls.
    """
    roll_prob: tuple[np.ndarray, ...]
    keep_start: tuple[np.ndarray, ...]
    keep_units: tuple[np.ndarray, ...]
    keep_used: tuple[np.ndarray, ...]
    keep_win: tuple[np.ndarray, ...]

    @lru_cache(maxsize=None)
    def packed(self) -> "DiceArrays":
        """Every dice count in one set of arrays, for the turn DP (the
        layout of :mod:`solver.engine.turn`)."""
        dice = len(self.roll_prob) - 1
        roll_first = np.zeros(dice + 2, dtype=np.int64)
        keep_first = [np.zeros(1, dtype=np.int64)]
        cols = []
        for n in range(1, dice + 1):
            roll_first[n + 1] = roll_first[n] + len(self.roll_prob[n])
            keep_first.append(self.keep_start[n][1:] + keep_first[-1][-1])
            left = n - self.keep_used[n]
            cols.append(np.where(self.keep_win[n], 0, np.where(left == 0, dice, left)))
        roll_first[0] = roll_first[1]
        keep_first = np.concatenate(keep_first)
        keep_units = np.concatenate(self.keep_units[1:]).astype(np.int64)
        keep_col = np.concatenate(cols).astype(np.int64)
        outcomes, keep_outcome = np.unique(np.stack([keep_units, keep_col], axis=1), axis=0,
                                           return_inverse=True)
        return DiceArrays(roll_first, np.concatenate(self.roll_prob[1:]), keep_first,
                          keep_units, keep_col,
                          *_class_bases(roll_first, keep_first, keep_units, keep_col),
                          keep_outcome.reshape(-1).astype(np.int64),
                          np.ascontiguousarray(outcomes[:, 0]),
                          np.ascontiguousarray(outcomes[:, 1]))


class DiceArrays(NamedTuple):
    """The roll classes of every dice count, as the turn DP reads them (one
    record for the compiled kernels). The classes of ``n`` dice are
    ``roll_first[n]`` to ``roll_first[n + 1] - 1``; class ``r`` has
    probability ``prob[r]`` and keeps ``keep_first[r]`` to ``keep_first[r +
    1] - 1``, each worth ``keep_units[k]`` and leaving the dice of column
    ``keep_col[k]``: the dice left in hand, ``D`` after hot dice, 0 for an
    instant win."""
    roll_first: np.ndarray
    prob: np.ndarray
    keep_first: np.ndarray
    keep_units: np.ndarray
    keep_col: np.ndarray
    class_base: np.ndarray
    """An earlier class of the same dice whose keeps' outcomes are all
    among class ``r``'s (-1: none); its best keep is a candidate for
    ``r``'s, which then needs only its other keeps, ``extra_first[r]`` to
    ``extra_first[r + 1] - 1`` of ``extra_units`` and ``extra_col``
    (:func:`_class_bases`)."""
    extra_first: np.ndarray
    extra_units: np.ndarray
    extra_col: np.ndarray
    keep_outcome: np.ndarray
    """Keep ``k``'s outcome, ``(outcome_units, outcome_col)[keep_outcome[k]]``:
    its points and column, each pair once over every class (71 for the 398
    keeps of five dice in a free-keep game). A policy that ranks keeps by
    their outcome ranks each outcome once (:func:`solver.cards.kernel.card_plan`)."""
    outcome_units: np.ndarray
    outcome_col: np.ndarray


def _class_bases(roll_first, keep_first, keep_units, keep_col):
    """A base class for each class, and the keeps the base does not have.

    A roll with one more scoring die can keep what the roll without it
    could, and more: the 115 classes of six dice in a free-keep game have
    683 keeps, but taking each class's best as ``max(best of its base, its
    other keeps)`` needs only 245 comparisons. The base is the largest
    earlier class whose outcomes the class contains (classes come fewest
    keeps first, :func:`keep_table`)."""
    class_base = np.full(roll_first[-1], -1, dtype=np.int64)
    extras = []
    for n in range(1, len(roll_first) - 1):
        outcomes = {}
        for r in range(roll_first[n], roll_first[n + 1]):
            keeps = range(keep_first[r], keep_first[r + 1])
            outcomes[r] = {(int(keep_units[k]), int(keep_col[k])) for k in keeps}
            # (The zero rolls' class, with no keep, is no use as a base.)
            bases = [b for b in range(roll_first[n], r)
                     if outcomes[b] and outcomes[b] <= outcomes[r]]
            if bases:
                class_base[r] = max(bases, key=lambda b: len(outcomes[b]))
            # In the class's own keep order: the kernels keep the first best.
            extras += [[(int(keep_units[k]), int(keep_col[k])) for k in keeps
                        if class_base[r] < 0
                        or (keep_units[k], keep_col[k]) not in outcomes[class_base[r]]]]
    extra_first = np.cumsum([0] + [len(e) for e in extras]).astype(np.int64)
    flat = [pair for e in extras for pair in e]
    return (class_base, extra_first, np.array([u for u, _ in flat], dtype=np.int64),
            np.array([c for _, c in flat], dtype=np.int64))


def distinct_outcomes(rules: Rules, counts: tuple[int, ...]) -> tuple[tuple[int, int, bool], ...]:
    """(units, dice used, win) of a roll's keeps, each outcome once: an
    instant win alone, else every distinct (points, dice used). Fewer points
    for the same dice can be the better keep (an exact target, or a smaller
    offer to a player who may take over), so no keep is dropped for that."""
    outcomes = set()
    for keep in keeps(rules, counts):
        if keep.win:
            return ((0, keep.used, True),)
        outcomes.add((keep.points // rules.unit, keep.used, False))
    return tuple(sorted(outcomes, key=lambda k: (k[1], k[0])))


@lru_cache(maxsize=None)
def keep_table(rules: Rules) -> KeepTable:
    probs, starts, units, used, wins = [np.zeros(0)], [np.zeros(1, np.int64)], \
        [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0, np.bool_)]
    for n in range(1, rules.dice + 1):
        classes: dict[tuple, Fraction] = {}
        for counts, prob in rolls(n):
            key = distinct_outcomes(rules, counts)
            classes[key] = classes.get(key, Fraction(0)) + prob
        # Fewest keeps first: a class's base (DiceArrays) comes before it.
        classes = dict(sorted(classes.items(), key=lambda item: len(item[0])))
        flat = [k for key in classes for k in key]
        probs.append(np.array([float(p) for p in classes.values()]))
        starts.append(np.cumsum([0] + [len(key) for key in classes]).astype(np.int64))
        units.append(np.array([k[0] for k in flat], dtype=np.int64))
        used.append(np.array([k[1] for k in flat], dtype=np.int64))
        wins.append(np.array([k[2] for k in flat], dtype=np.bool_))
    return KeepTable(tuple(probs), tuple(starts), tuple(units), tuple(used), tuple(wins))


def odds(rules: Rules) -> list[dict]:
    """For each number of dice in hand: the probability of a zero roll, of
    hot dice (some keep uses every die), and the expected points of the
    best single keep (most points, 0 on a zero roll; an instant win counted
    at its dice's points)."""
    out = []
    for n in range(1, rules.dice + 1):
        zero = hot = Fraction(0)
        best = Fraction(0)
        for counts, prob in rolls(n):
            ks = keeps(rules, counts)
            if not ks:
                zero += prob
                continue
            if any(k.used == n for k in ks):
                hot += prob
            best += prob * max(k.points for k in ks)
        out.append({"dice": n, "zero": zero, "hot": hot, "best_points": best})
    return out

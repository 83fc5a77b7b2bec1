"""Where a strategy card's loss goes: its regret, decision by decision.

The card's player D plays against the two-player table's player. Against
that fixed opponent D faces a Markov decision process whose optimal value
is the table's ``W`` and whose optimal action values are the table's own
turn arrays (:func:`solver.engine.solution.replay`): ``K(k) = A[t + points_k,
col_k]`` for a keep, ``B(t, n)`` for a bank, ``R(t, n)`` for a roll. By the
performance difference lemma (Kakade and Langford 2002),

    W(start) - U_card(start) = E_card [ sum over D's decisions d of
                                        regret(d) ],
    regret(keep)  = max_k K(k) - K(card's keep)
    regret(bank)  = max(B, R)(t, n) - (B if the card banks else R)(t, n),
    regret(take)  = max(W, R(t, n)) - (R(t, n) if the card takes else W)

the expectation over games played by the card against the table, with
real dice. A take is the choice, at the start of a turn, between an offer
of ``t`` points with ``n`` dice (rolling them on from ``t``: ``R(t, n)``) and
a fresh turn (the table's ``W``), where the game has take-over; the bank
values ``B`` already price the table's player taking over the card's
offers as the table does. So games sampled with the card's play give an unbiased
estimate of the loss split by decision: by kind (keep or bank), by the dice
in hand, by the score situation and by both players' distances to the
target. Their sum checks itself against the
exact loss of :func:`solver.cards.seat_value.card_seat_values`.

The same decisions, kept (``visits``), price any other card: its regret at
them, ``regret_of``, is the first-order estimate of its loss (the same sum
over the first card's games, not its own). It is exact for the card that
played them and near it for a card that changes few of their decisions;
a search over cards (:mod:`solver.cards.fit.screen`) moves fields by it,
plays the new card's games again, and leaves the last word to the exact
evaluation. The decisions are packed once into arrays (:class:`Decisions`)
and the card chooses at all of them in one compiled loop
(:func:`solver.cards.kernel.card_choices`): a million decisions priced in
a fraction of a second, so a search may price over many games.

Where a game has crosses, a player's state is a state of the table's
space (score, crosses and what the table remembers of the previous score):
a zero turn moves it as the table does (``zero_next``: the crosses model's
fall, for a model table), and the card's last-cross rule reads it
(:func:`solver.model.states.cross_states`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from solver.cards.card import card_banks, card_situation, card_takes, keep_rank
from solver.cards.kernel import BANK, KEEP, TAKE, card_choices
from solver.engine.solution import replay
from solver.model.dice import keep_table
from solver.model.states import cross_states
from solver.model.turn_rules import OVERSHOOT, WIN, TurnRules, keep_result, may_take_over, offer


class Decision(NamedTuple):
    """What a regret is filed under."""
    kind: str
    """``keep``, ``bank`` (bank or roll) or ``take`` (take over or start
    afresh)."""
    dice: int
    """Dice in hand: thrown (a keep), left to roll (a bank) or offered (a
    take)."""
    where: str
    """The score situation (:func:`situation`)."""
    distances: tuple
    """The player's and the other player's bands of distance to the target
    (:func:`distance_band`)."""


class Visit(NamedTuple):
    """A decision the card's player met, with the table's value of every
    choice there: ``(bank, roll)``, ``(take, fresh)``, or one per keep."""
    kind: str
    dice: int
    mover: int
    """The card's player's state (the table's space)."""
    other: int
    turn_total: int
    """Before the keep's roll, at the bank, or offered."""
    values: tuple
    keeps: tuple = ()
    """``(points, dice_left)`` of each keep (units), as ``values``."""

    def regret(self, choice: int) -> float:
        return max(self.values) - self.values[choice]


def card_choice(card, turn, shift, last, score, opponent, visit: Visit) -> int:
    """The card's choice at ``visit`` (an index of its ``values``), in the
    situation ``shift, last, score, opponent`` of
    :func:`solver.cards.card.card_situation`, for the sampled games. The pricing
    of another card (:func:`regret_of`) asks the compiled
    :func:`solver.cards.kernel.card_choices`, which makes the same choices
    (a test prices a card at its own decisions at its sampled loss)."""
    if visit.kind == "take":
        return 0 if card_takes(card, turn, last, score, opponent, visit.turn_total,
                               visit.dice) else 1
    if visit.kind == "bank":
        return 0 if card_banks(card, turn, shift, last, score, opponent, visit.turn_total,
                               visit.dice) else 1
    ranks = [keep_rank(card, turn, shift, last, score, opponent, visit.turn_total, units,
                       left, left == 0) for units, left in visit.keeps]
    return int(np.argmax(ranks))


KIND_LABELS = {"keep": "keep", "bank": "bank or roll", "take": "take over or start afresh"}
"""A decision kind as a table's reader reads it."""


@dataclass
class Regret:
    """The sampled regret: ``total[decision]`` summed over games (divide by
    ``games``), with each game's whole regret in ``per_game``."""
    games: int
    total: dict = field(default_factory=lambda: defaultdict(float))
    per_game: list = field(default_factory=list)
    per_game_far: list = field(default_factory=list)
    """Each game's regret in decisions before the end (:func:`near_end`
    for neither player)."""

    def loss(self) -> tuple[float, float]:
        """The estimated loss and its standard error."""
        return _mean_and_error(self.per_game)

    def seat_losses(self) -> tuple[float, float]:
        """The mean regret of the games the card's player moved first (the
        even games) and of those it moved second."""
        return (float(np.mean(self.per_game[0::2])), float(np.mean(self.per_game[1::2])))

    def loss_far_from_end(self) -> tuple[float, float]:
        """The regret of the decisions far from the end, and its standard
        error: the loss of a player who plays the card until either player
        is within :data:`NEAR_END` of the target and the table from then on
        (``farkle advise``). The two play alike until then and the table's
        choices cost nothing, so where scores never fall back (no crosses)
        this is an unbiased estimate of that player's loss; with falls, a
        player sent back from the end plays the card again from scores the
        card's own games reach otherwise, and it is near it."""
        return _mean_and_error(self.per_game_far)

    def by(self, *fields: str) -> dict:
        """The mean regret per game by some fields of :class:`Decision`."""
        out = defaultdict(float)
        for decision, total in self.total.items():
            out[tuple(getattr(decision, f) for f in fields)] += total / self.games
        return dict(out)


def _mean_and_error(per_game: list) -> tuple[float, float]:
    x = np.asarray(per_game)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x)))


def situation(rules, score: int, opponent: int, bands: int = 4) -> str:
    """A label for the score situation (units): how far the player is from
    the target, in ``bands`` bands, and whether they lead."""
    gap = opponent - score
    lead = "behind" if gap > 0 else "level" if gap == 0 else "ahead"
    band = min(bands - 1, bands * score // rules.target_units)
    return f"{lead}, own score in band {band + 1}/{bands}"


def card_regret(solution, card, games: int, seed: int = 1, visits: list | None = None) -> Regret:
    """Sample ``games`` games of ``card`` (a :class:`solver.cards.record.Card`)
    against ``solution``'s player, the card's player D first in every second
    game; returns the regret by decision (module docstring), and appends
    each decision of D to ``visits`` (a :class:`Visit`) if given."""
    rules = solution.rules
    turn = TurnRules.of(rules)
    space = solution.space
    crossed = cross_states(rules, space)
    dice = keep_table(rules).packed()
    compiled = card.compiled(rules)
    # The table's turn arrays per turn start, computed once each.
    turns = lru_cache(maxsize=None)(lambda m, w: replay(solution, m, w, compiled=True))
    rng = np.random.default_rng(seed)
    D = rules.dice
    cumulative = [np.cumsum(dice.prob[dice.roll_first[n]:dice.roll_first[n + 1]])
                  for n in range(D + 1)]
    result = Regret(games)
    start = space.index_of_score(0)

    def roll(n):
        r = int(np.searchsorted(cumulative[n], rng.random() * cumulative[n][-1], side="right"))
        return int(dice.roll_first[n]) + min(r, len(cumulative[n]) - 1)

    def play_turn(m, w, card_plays, regret, offer_total, offer_dice):
        """One turn of the mover ``m``, offered ``offer_total`` with
        ``offer_dice`` (0: no offer); returns ``'won'``, or the mover's next
        state and the offer it leaves (total, dice)."""
        Z, R, A, B = turns(m, w)
        score, opponent = int(space.score[m]), int(space.score[w])
        where = situation(rules, score, opponent)
        distances = (distance_band(rules, rules.target_units - score),
                     distance_band(rules, rules.target_units - opponent))
        here = card_situation(compiled, score, opponent, int(crossed[m]))
        t, n = 0, D
        if offer_dice and may_take_over(turn, score):
            visit = Visit("take", offer_dice, m, w, offer_total,
                          (R[offer_total, offer_dice], solution.W[m, w]))
            if card_plays:
                takes = card_choice(compiled, turn, *here, visit) == 0
                regret(Decision("take", offer_dice, where, distances), visit, 0 if takes else 1)
            else:
                takes = visit.values[0] > visit.values[1]
            if takes:
                t, n = offer_total, offer_dice
        while True:
            r = roll(n)
            keeps = range(dice.keep_first[r], dice.keep_first[r + 1])
            if len(keeps) == 0:
                return int(space.zero_next[m]), 0, 0
            values = [A[t + dice.keep_units[k], dice.keep_col[k]] for k in keeps]
            if card_plays:
                visit = Visit("keep", n, m, w, t, tuple(values), tuple(
                    (int(dice.keep_units[k]), int(dice.keep_col[k])) for k in keeps))
                choice = card_choice(compiled, turn, *here, visit)
                regret(Decision("keep", n, where, distances), visit, choice)
            else:
                choice = int(np.argmax(values))
            chosen = keeps[choice]
            units, col = int(dice.keep_units[chosen]), int(dice.keep_col[chosen])
            outcome = keep_result(turn, score, t + units, col == 0)
            if outcome == WIN:
                return "won"
            if outcome == OVERSHOOT:
                return int(space.zero_next[m]), 0, 0
            t, n = t + units, col
            if B[t, n] == -np.inf:
                continue
            if card_plays:
                visit = Visit("bank", n, m, w, t, (B[t, n], R[t, n]))
                banks = card_choice(compiled, turn, *here, visit) == 0
                regret(Decision("bank", n, where, distances), visit, 0 if banks else 1)
            else:
                banks = B[t, n] >= R[t, n]
            if banks:
                return int(space.bank_next[m, t]), t, offer(turn, n)

    for game in range(games):
        game_regret = [0.0, 0.0]         # every decision's, those far from the end

        def regret(decision, visit, choice):
            value = visit.regret(choice)
            result.total[decision] += value
            game_regret[0] += value
            if not any(near_end(band) for band in decision.distances):
                game_regret[1] += value
            if visits is not None:
                visits.append(visit)
        states = [start, start]          # D, then the table's player
        mover = game % 2                 # D first in even games
        offer_total = offer_dice = 0
        while True:
            me, other = states[mover], states[1 - mover]
            after = play_turn(me, other, mover == 0, regret, offer_total, offer_dice)
            if after == "won":
                break
            states[mover], offer_total, offer_dice = after
            mover = 1 - mover
        result.per_game.append(game_regret[0])
        result.per_game_far.append(game_regret[1])
    return result


def choices_at(solution, card, visits: list):
    """``(visit, score, opponent, choice)`` for each of ``visits`` (another
    card's decisions, :func:`card_regret`): ``card``'s choice there, with
    the scores (units) it was made at."""
    rules, space = solution.rules, solution.space
    turn = TurnRules.of(rules)
    crossed = cross_states(rules, space)
    compiled = card.compiled(rules)
    for visit in visits:
        score, opponent = int(space.score[visit.mover]), int(space.score[visit.other])
        here = card_situation(compiled, score, opponent, int(crossed[visit.mover]))
        yield visit, score, opponent, card_choice(compiled, turn, *here, visit)


DISTANCES = (1000, 3000, 6000)
"""The bands of a player's distance to the target (points) by which
:func:`loss_by_distance` files a decision: those short of the game's
target, and farther."""

NEAR_END = 3000
"""Within this of the target (either player) a decision is near the end."""


def distance_limits(rules) -> list[int]:
    """The bands of :data:`DISTANCES` short of the game's target (none for
    Pig's 100)."""
    return [limit for limit in DISTANCES if limit < rules.target]


def distance_band(rules, units_to_go: int) -> int | None:
    """The band of :func:`distance_limits` a player ``units_to_go`` from
    the target is in; None: farther than them all."""
    points = units_to_go * rules.unit
    return next((limit for limit in distance_limits(rules) if points <= limit), None)


def loss_by_distance(regret: Regret) -> dict:
    """The regret per game of :func:`card_regret`'s games by ``(the
    player's band, the other player's band, kind)``, each band
    :func:`distance_band`'s: where the card's loss sits, near the end or far
    from it."""
    return {(*distances, kind): lost
            for (distances, kind), lost in regret.by("distances", "kind").items()}


def near_end(band: int | None) -> bool:
    """Whether a band of :func:`distance_band` is within :data:`NEAR_END`."""
    return band is not None and band <= NEAR_END


def loss_near_end(lost: dict, kind: str | None = None) -> float:
    """Of :func:`loss_by_distance`'s split, what is lost where either
    player is within :data:`NEAR_END` of the target (in decisions of
    ``kind`` only, if given)."""
    return sum(value for (mine, theirs, of_kind), value in lost.items()
               if (near_end(mine) or near_end(theirs)) and (kind is None or of_kind == kind))


class Decisions(NamedTuple):
    """Decisions a card met (:class:`Visit`), packed for the compiled
    pricing: one entry per decision, and its choices ``first[i]`` to
    ``first[i + 1] - 1`` (two for a bank or a take) in the per-choice
    arrays."""
    kind: np.ndarray
    """KEEP, BANK or TAKE (:mod:`solver.cards.kernel`)."""
    dice: np.ndarray
    turn_total: np.ndarray
    score: np.ndarray
    """The card's player's score (units), as ``opponent``."""
    opponent: np.ndarray
    crossed: np.ndarray
    """The player's crosses, as :func:`solver.model.states.cross_states` reads them."""
    first: np.ndarray
    units: np.ndarray
    """Per choice: a keep's points (units), 0 for a bank or a take."""
    left: np.ndarray
    """Per choice: a keep's dice left to roll."""
    value: np.ndarray
    """Per choice: the table's value of it."""
    best: np.ndarray
    """Per decision: the table's value of its best choice (computed once:
    a search prices many cards at the same decisions)."""


def decisions(solution, visits: list) -> Decisions:
    """``visits`` (:func:`card_regret`'s) packed as :class:`Decisions`."""
    space = solution.space
    crossed = cross_states(solution.rules, space)
    movers = np.array([v.mover for v in visits], dtype=np.int64)
    others = np.array([v.other for v in visits], dtype=np.int64)
    kinds = {"keep": KEEP, "bank": BANK, "take": TAKE}
    counts = [len(v.values) for v in visits]
    keeps = [v.keeps if v.kind == "keep" else ((0, 0),) * len(v.values) for v in visits]
    first = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    value = np.array([x for v in visits for x in v.values], dtype=np.float64)
    return Decisions(
        kind=np.array([kinds[v.kind] for v in visits], dtype=np.int64),
        dice=np.array([v.dice for v in visits], dtype=np.int64),
        turn_total=np.array([v.turn_total for v in visits], dtype=np.int64),
        score=space.score[movers].astype(np.int64), opponent=space.score[others].astype(np.int64),
        crossed=np.asarray(crossed)[movers].astype(np.int64),
        first=first,
        units=np.array([u for k in keeps for u, _ in k], dtype=np.int64),
        left=np.array([n for k in keeps for _, n in k], dtype=np.int64),
        value=value, best=np.maximum.reduceat(value, first[:-1]))


def regret_of(solution, card, visits, games: int) -> float:
    """The regret per game of ``card`` at ``visits`` (another card's
    decisions over ``games`` games, :func:`card_regret`, or those packed
    by :func:`decisions`, once for many cards): the first-order estimate
    of its loss (module docstring)."""
    if not isinstance(visits, Decisions):
        visits = decisions(solution, visits)
    chosen = card_choices(card.compiled(solution.rules), TurnRules.of(solution.rules), visits)
    return float((visits.best - visits.value[visits.first[:-1] + chosen]).sum() / games)

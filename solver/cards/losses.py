"""Where a strategy card loses: its loss split by decision, as data
(``scripts/where_cards_lose.py`` prints it).

:func:`where_card_loses` plays ``games`` games of the card against the
table's player (:func:`solver.cards.regret.card_regret`) and splits the
regret by kind of decision and dice in hand, beside the card's exact loss
(as stored with it where measured at the game's target; else evaluated
here). On request, finer splits:

* :func:`by_left`: the banks' regret, to an exact target, by the dice in
  hand and what the bank would leave to go (the largest shares, up to
  1,000 left);
* :func:`by_keep`: the keeps' regret by the dice thrown, the turn total
  before them, the card's keep and the best one (the largest shares), and
  how many such kinds of keep lose something and how much the largest
  hold: whether one more rule of keeps could buy much;
* :func:`by_distance`: the regret of every kind by how far each player is
  from the target (within 1,000, 3,000, 6,000 or farther): where the
  card's loss sits, near the end or far from it;
* :func:`near_end`: what the card gives up near the end (within 3,000 of
  the target, either player) by kind of decision, what a player loses who
  plays the card until then and the table after (``farkle advise``), and
  how near a bank rule of one threshold per cell of the score could come
  there, by the size of the cells (:mod:`solver.cards.bounds`: fitted to
  the same games, so flattering);
* :func:`headroom`: what far finer rules could buy the card anywhere: a
  row of corrections to its keeps' worths of dice left per cell (dice
  thrown, then the turn total, then both players' distances, the lead and
  the entry), fitted to these games and checked on those of the next
  seed, and a bank threshold per cell of the score
  (:func:`solver.cards.bounds.keep_worth_headroom` and
  :func:`solver.cards.bounds.bank_threshold_bound`, everywhere).

A game without bands of distance short of its target (Pig's 100) has no
split by distance, nor near the end, nor headroom: those are None.
Every loss is in win probability per game (a fraction, not points).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from solver.cards.bounds import (
    CELL_STEPS,
    KEEP_CELLS,
    TURN_TOTALS,
    Sample,
    bank_threshold_bound,
    finer_card_loss,
    keep_worth_headroom,
    turn_total_bands,
)
from solver.cards.regret import (
    KIND_LABELS,
    Regret,
    card_regret,
    choices_at,
    decisions,
    distance_limits,
    loss_by_distance,
    loss_near_end,
)

ROWS = 12
"""The largest shares :func:`by_left` and :func:`by_keep` list."""


@dataclass
class BankShare:
    """The banks' regret at one (dice in hand, points the bank would leave
    to go, the card's choice)."""
    dice: int
    left: int
    action: str
    """``"bank"`` or ``"roll"``: what the card did."""
    decisions: int
    lost: float


@dataclass
class KeepShare:
    """The keeps' regret at one (dice thrown, band of the turn total before
    the keep, the card's keep, the best keep)."""
    dice: int
    band: int
    """The band of :func:`solver.cards.bounds.turn_total_bands`: 0 the
    turn's first roll, then :data:`solver.cards.bounds.TURN_TOTALS`'s."""
    mine: tuple[int, int]
    """The card's keep: (units kept, dice left to roll)."""
    best: tuple[int, int]
    decisions: int
    lost: float


@dataclass
class KeepShares:
    """The largest shares of the keeps' regret, and what they hold."""
    rows: list[KeepShare]
    kinds: int
    """How many kinds of keep lose something."""
    few: int
    held_few: float
    """What the ``few`` largest kinds hold (``few``: :data:`ROWS`, or all)."""
    many: int
    held_many: float
    """What the ``many`` largest hold (``many``: 100, or all)."""
    whole: float
    """What every kind holds: the card's keeps' regret."""


@dataclass
class DistanceSplit:
    """The regret by the player's distance to the target, the other
    player's and the kind of decision."""
    bands: list[int | None]
    """The limits of the bands, nearest first; None: farther than the last."""
    lost: dict
    """(the player's band, the other's, kind) -> lost; absent: nothing."""
    near: float
    """What is lost where either player is within
    :data:`solver.cards.regret.NEAR_END` of the target."""
    whole: float

    def cell(self, mine, theirs, kind: str) -> float:
        return self.lost.get((mine, theirs, kind), 0.0)


@dataclass
class NearEnd:
    """What the card gives up near the end, and what bank thresholds per
    cell of the score could give up there."""
    near: dict[str, float]
    """Kind -> what the card's decisions of that kind lose near the end."""
    whole: float
    """The sampled loss, everywhere."""
    far: float
    far_error: float
    """What a player gives up who plays the card until near the end and the
    table after, with its standard error
    (:meth:`solver.cards.regret.Regret.loss_far_from_end`)."""
    unbiased: bool
    """Whether ``far`` is unbiased: no score falls back (a fall takes a
    player back from the end)."""
    bounds: list[tuple[int, int, float]]
    """(cell size in points, cells, lost in banks near the end) per size
    of :data:`solver.cards.bounds.CELL_STEPS`."""

    @property
    def card_banks(self) -> float:
        return self.near["bank"]


@dataclass
class Headroom:
    """What far finer keep and bank rules could buy the card."""
    seed: int
    games: int
    keeps: list[tuple[str, int, float, float]]
    """(row of :data:`solver.cards.bounds.KEEP_CELLS`, cells, lost in keeps
    fitted, checked on the next seed's games), the finest last."""
    card_keeps: tuple[float, float]
    """The card's own keeps: lost at the fitted games, at the checked ones."""
    banks: list[tuple[int, int, float]]
    """(cell size in points, cells, lost in banks everywhere)."""
    card_banks: float
    won_back: float
    """What the finest rows of corrections win back in keeps at the checked
    games."""
    takes: float | None
    """What the card's take-overs lose (None: the game has none)."""
    loss: float
    """The card's sampled loss."""
    first_order: list[tuple[int, float]]
    """(cell size in points, what a card with the finest keep rows and
    those bank thresholds would give up, first order)."""


@dataclass
class CardLosses:
    """Where a card loses, over ``games`` games of seed ``seed``."""
    game: str
    exact: float
    how: str
    """``"stored"`` (measured at the game's target) or ``"exact"`` (here)."""
    sampled: float
    stderr: float
    games: int
    seed: int
    by_kind: list[tuple[str, int, float]]
    """(kind, dice in hand, lost) where something is lost, largest first."""
    by_left: list[BankShare] | None = None
    by_keep: KeepShares | None = None
    """None where asked but no keep the card made lost anything."""
    by_distance: DistanceSplit | None = None
    near_end: NearEnd | None = None
    headroom: Headroom | None = None


def stored_loss(entry: dict, rules) -> float | None:
    """The card's exact loss as stored with it, if measured at the game's
    own target (an evaluation of dix-mille's takes an hour)."""
    loss = entry.get("loss", {})
    return loss["loss"] if loss.get("target") == rules.target else None


def where_card_loses(solution, card, entry: dict, games: int, seed: int = 1, *,
                     left: bool = False, keep: bool = False, distance: bool = False,
                     bounds: bool = False, finer: bool = False) -> CardLosses:
    """Where ``card`` loses against ``solution``'s table (module docstring):
    ``entry`` is its stored entry (``cards.json``'s), for its exact loss;
    ``left``, ``keep``, ``distance``, ``bounds`` and ``finer`` ask for
    :func:`by_left`, :func:`by_keep`, :func:`by_distance`,
    :func:`near_end` and :func:`headroom`."""
    from solver.cards.seat_value import card_seat_values
    rules = solution.rules
    exact, how = stored_loss(entry, rules), "stored"
    if exact is None:       # measured at another target, or never
        exact, how = 0.5 - float(np.mean(card_seat_values(solution, card))), "exact"
    visits = [] if left or keep or bounds or finer else None
    regret = card_regret(solution, card, games, seed, visits)
    sampled, stderr = regret.loss()
    out = CardLosses(rules.name, exact, how, sampled, stderr, games, seed,
                     [(kind, dice, lost) for (kind, dice), lost in
                      sorted(regret.by("kind", "dice").items(), key=lambda item: -item[1])
                      if lost > 0])
    if left and rules.exact_target:
        out.by_left = by_left(solution, card, visits, games)
    if keep:
        out.by_keep = by_keep(solution, card, visits, games)
    if distance:
        out.by_distance = by_distance(rules, regret)
    if bounds or finer:
        fit = Sample(decisions(solution, visits), games)      # packed once for both
    if bounds:
        out.near_end = near_end(solution, regret, fit)
    if finer:
        out.headroom = headroom(solution, card, regret, fit, seed)
    return out


def by_left(solution, card, visits, games: int, rows: int = ROWS) -> list[BankShare]:
    """The banks' regret by dice in hand and what the bank would leave to
    go, the largest ``rows`` shares up to 1,000 left."""
    rules = solution.rules
    banks = [visit for visit in visits if visit.kind == "bank"]
    lost, count = defaultdict(float), defaultdict(int)
    for visit, score, _, choice in choices_at(solution, card, banks):
        left = (rules.target_units - score - visit.turn_total) * rules.unit
        if left > 1000:
            continue
        key = (visit.dice, left, "bank" if choice == 0 else "roll")
        lost[key] += visit.regret(choice) / games
        count[key] += 1
    return [BankShare(dice, left, action, count[dice, left, action], value)
            for (dice, left, action), value in sorted(lost.items(),
                                                      key=lambda item: -item[1])[:rows]]


def by_keep(solution, card, visits, games: int, rows: int = ROWS) -> KeepShares | None:
    """The keeps' regret by dice thrown, band of the turn total before the
    keep (:data:`solver.cards.bounds.TURN_TOTALS`), the card's keep and the
    best keep there, the largest ``rows`` shares; and how many such kinds
    lose something, and what the largest ``rows`` and 100 of them hold.
    None where no keep the card made lost anything."""
    rules = solution.rules
    keeps = [visit for visit in visits if visit.kind == "keep"]
    bands = turn_total_bands(rules, [visit.turn_total for visit in keeps])
    lost, count = defaultdict(float), defaultdict(int)
    for (visit, _, _, choice), band in zip(choices_at(solution, card, keeps), bands):
        regret = visit.regret(choice)
        if regret > 0:
            best = int(np.argmax(visit.values))
            key = (visit.dice, int(band), visit.keeps[choice], visit.keeps[best])
            lost[key] += regret / games
            count[key] += 1
    if not lost:
        return None
    largest = sorted(lost.items(), key=lambda item: -item[1])
    held = np.cumsum([value for _, value in largest])     # by the largest 1, 2, ...
    few, many = min(rows, len(held)), min(100, len(held))
    return KeepShares([KeepShare(dice, band, tuple(mine), tuple(best),
                                 count[dice, band, mine, best], value)
                       for (dice, band, mine, best), value in largest[:rows]],
                      len(largest), few, float(held[few - 1]), many, float(held[many - 1]),
                      float(held[-1]))


def turn_total_labels(rules) -> list[str]:
    """How a reader names each band of :func:`by_keep`'s turn totals."""
    return ["none"] + [f"below {high:,}" if low == 0 else f"{low:,} to {high - rules.unit:,}"
                       for low, high in zip(TURN_TOTALS, TURN_TOTALS[1:])] + \
        [f"{TURN_TOTALS[-1]:,} or more"]


def by_distance(rules, regret: Regret) -> DistanceSplit | None:
    """The regret by the player's distance to the target and the other
    player's, each kind apart; None where the game has no band of distance
    short of its target."""
    limits = distance_limits(rules)
    if not limits:
        return None
    lost = loss_by_distance(regret)
    return DistanceSplit(limits + [None], lost, loss_near_end(lost), sum(lost.values()))


def near_end(solution, regret: Regret, sample: Sample) -> NearEnd | None:
    """What the card loses near the end by kind, what a player loses who
    plays the card until then and the table after
    (:meth:`solver.cards.regret.Regret.loss_far_from_end`), and
    :func:`solver.cards.bounds.bank_threshold_bound` at the decisions of
    ``sample`` (the games of ``regret``) by the size of the cells; None
    where the game has no band of distance short of its target."""
    rules = solution.rules
    if not distance_limits(rules):
        return None
    lost = loss_by_distance(regret)
    far, far_error = regret.loss_far_from_end()
    bounds = []
    for step in CELL_STEPS:
        bound, cells = bank_threshold_bound(rules, sample.decisions, sample.games, step)
        bounds.append((step, cells, bound))
    return NearEnd({kind: loss_near_end(lost, kind) for kind in KIND_LABELS},
                   sum(lost.values()), far, far_error, not rules.crosses, bounds)


def headroom(solution, card, regret: Regret, fit: Sample, seed: int) -> Headroom | None:
    """:func:`solver.cards.bounds.keep_worth_headroom` for each of its
    cells, fitted to ``fit`` (the decisions of the games of ``regret``,
    seed ``seed``) and checked on as many games of the next seed, and the
    banks with a threshold per cell of the score everywhere; then what a
    card with the finest of both would give up, first order. None where
    the game has no band of distance short of its target."""
    rules, games = solution.rules, fit.games
    if not distance_limits(rules):
        return None
    check = Sample.played(solution, card, games, seed + 1)
    keeps = []
    for label, features in KEEP_CELLS.items():
        found = keep_worth_headroom(rules, card, fit, check, features)
        keeps.append((label, found.cells, found.fitted[1], found.checked[1]))
    banks = {}
    for step in CELL_STEPS:
        banks[step] = bank_threshold_bound(rules, fit.decisions, games, step,
                                           near_end_only=False)
    card_banks = regret.by("kind").get(("bank",), 0.0)
    # The last rows of KEEP_CELLS are the finest.
    loss = regret.loss()[0]
    takes = regret.by("kind").get(("take",), 0.0) if rules.has_takeover else None
    return Headroom(seed, games, keeps, (found.fitted[0], found.checked[0]),
                    [(step, cells, bound) for step, (bound, cells) in banks.items()],
                    card_banks, found.won_back, takes, loss,
                    [(step, finer_card_loss(loss, card_banks, found, banks[step][0]))
                     for step in (500, 200, 50)])

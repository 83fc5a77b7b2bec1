"""What finer rules could buy a card (:mod:`solver.cards.bounds`): the
bound on bank thresholds near the end, checked against trying every
threshold of every cell one by one, and on a card's sampled decisions
against the thresholds anyone can name (always bank, never bank); the
keeps' corrections per cell, checked against the card's plain rule one
decision at a time, and on a card with a wrong worth of dice left."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from solver.cards.bounds import (
    KEEP_CELLS,
    Sample,
    bank_decisions,
    bank_threshold_bound,
    keep_cells,
    keep_worth_headroom,
    turn_total_bands,
)
from solver.cards.kernel import BANK, KEEP
from solver.cards.losses import where_card_loses
from solver.cards.record import Card
from solver.cards.regret import NEAR_END, card_regret, decisions
from solver.cards.store import stored_cards
from solver.model.rules import get_rules

RULES = get_rules("cinq-mille")


def _random_decisions(seed: int, count: int = 400):
    """Banks (two choices) and keeps (three) at random scores, turn totals
    with ties, and random values, packed as :class:`Decisions`."""
    rng = np.random.default_rng(seed)
    kind = rng.choice([KEEP, BANK], size=count, p=[0.3, 0.7])
    choices = np.where(kind == BANK, 2, 3)
    first = np.r_[0, np.cumsum(choices)]
    value = rng.random(first[-1])
    target = RULES.target_units
    return dict(
        kind=kind, dice=rng.integers(1, 4, count), turn_total=rng.integers(0, 8, count) * 5,
        score=rng.integers(0, target, count), opponent=rng.integers(0, target, count),
        crossed=rng.integers(0, 2, count), first=first,
        units=np.zeros(first[-1], dtype=np.int64), left=np.zeros(first[-1], dtype=np.int64),
        value=value, best=np.maximum.reduceat(value, first[:-1]))


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("step", [50, 500, 2000])
def test_the_bound_is_each_cell_s_best_threshold_found_by_trying_each(seed, step):
    """Independent of the vectorised cuts: each cell of the banks near the
    end, every threshold it could have (each turn total met there, and
    never) tried in turn, the cheapest kept."""
    from solver.cards.regret import Decisions
    packed = Decisions(**_random_decisions(seed))
    near = NEAR_END // RULES.unit
    cells = defaultdict(list)
    for i in range(len(packed.kind)):
        to_go = RULES.target_units - packed.score[i]
        other_to_go = RULES.target_units - packed.opponent[i]
        if packed.kind[i] != BANK or min(to_go, other_to_go) > near:
            continue
        bank, roll = packed.value[packed.first[i]], packed.value[packed.first[i] + 1]
        key = (packed.dice[i], packed.crossed[i], to_go // (step // RULES.unit),
               other_to_go // (step // RULES.unit))
        cells[key].append((packed.turn_total[i], max(bank, roll) - bank, max(bank, roll) - roll))
    expected = 0.0
    for decisions_here in cells.values():
        thresholds = sorted({total for total, _, _ in decisions_here}) + [np.inf]
        expected += min(sum(lost_banking if total >= threshold else lost_rolling
                            for total, lost_banking, lost_rolling in decisions_here)
                        for threshold in thresholds)
    bound, count = bank_threshold_bound(RULES, packed, 10, step)
    assert count == len(cells) > 5
    assert bound == pytest.approx(expected / 10, rel=1e-12)


@pytest.fixture(scope="module")
def sampled():
    """A card's decisions over 300 games of cinq-mille (committed table)."""
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    solution = read_table(default_path(RULES), RULES, lazy_take=False)
    visits = []
    card = Card.from_dict(stored_cards()["cinq-mille"]["card"])
    card_regret(solution, card, 300, seed=3, visits=visits)
    return decisions(solution, visits)


def test_smaller_cells_fit_no_worse_and_always_or_never_banking_is_no_better(sampled):
    """Cells of 50 points nest in cells of 200, those in 1,000 and those in
    one cell for all (10,000): the bound cannot fall as the cells grow; and
    banking always, or never, near the end (one threshold each) loses at
    least the bound of a single cell."""
    bounds = [bank_threshold_bound(RULES, sampled, 300, step)[0]
              for step in (50, 200, 1000, 10000)]
    assert all(a <= b + 1e-15 for a, b in zip(bounds, bounds[1:]))
    assert bounds[0] < bounds[-1]
    banks = bank_decisions(RULES, sampled)
    bank_value, roll_value = (sampled.value[sampled.first[banks] + choice] for choice in (0, 1))
    best = np.maximum(bank_value, roll_value)
    always, never = ((best - value).sum() / 300 for value in (bank_value, roll_value))
    assert bounds[-1] <= min(always, never)


@pytest.fixture(scope="module")
def where_it_loses():
    """:func:`solver.cards.losses.where_card_loses` for cinq-mille's stored
    card over 300 games of seed 3, every split asked (as
    ``scripts/where_cards_lose.py cinq-mille --games 300 --seed 3 --by-keep
    --by-distance --bounds --headroom`` prints it)."""
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    solution = read_table(default_path(RULES), RULES, lazy_take=False)
    entry = stored_cards()["cinq-mille"]
    return where_card_loses(solution, Card.from_dict(entry["card"]), entry, 300, 3, keep=True,
                            distance=True, bounds=True, finer=True)


def lost_in(found, kind: str) -> float:
    """The card's decisions of ``kind`` in the split by kind and dice."""
    return sum(lost for of_kind, _, lost in found.by_kind if of_kind == kind)


def test_the_bounds_and_what_the_end_costs(where_it_loses):
    """``where_cards_lose.py --bounds``: the loss near the end by kind adds
    up to the loss near the end, the loss were every choice there right is
    the rest (what the card loses before it), and the bound grows with the
    cells."""
    end = where_it_loses.near_end
    assert sum(end.near.values()) == pytest.approx(where_it_loses.by_distance.near, rel=1e-12)
    assert end.whole == pytest.approx(where_it_loses.sampled, rel=1e-12)
    assert end.far == pytest.approx(end.whole - sum(end.near.values()), rel=1e-9, abs=1e-15)
    assert end.unbiased                     # cinq-mille: no score falls back
    assert [step for step, _, _ in end.bounds] == [50, 200, 500, 1000]
    bounds = [bound for _, _, bound in end.bounds]
    assert bounds[0] <= bounds[1] <= bounds[3]
    assert end.card_banks == end.near["bank"]


def test_the_script_prints_every_split():
    """``where_cards_lose.py`` run as a person runs it, every split asked:
    it prints each of them (what they hold is checked above, on
    :mod:`solver.cards.losses`'s data)."""
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, str(root / "scripts" / "where_cards_lose.py"),
                          "cinq-mille-exact", "--games", "300", "--seed", "3", "--by-left",
                          "--by-keep", "--by-distance", "--bounds", "--headroom"],
                         capture_output=True, text=True, check=True).stdout
    for heading in ("**cinq-mille-exact**: exact loss ", "| decision | dice | lost (pp) |",
                    "| dice | left after the bank |", "| dice thrown | set aside before |",
                    "Lost (pp) by the player's distance", "Near the end (either player",
                    "| a row per | rows |", "The finest rows win back", "first order: "):
        assert heading in out, heading


@pytest.fixture(scope="module")
def two_sets():
    """cinq-mille's table, and a card whose three dice left are worth 150
    more than the stored card's, with its decisions over 300 games of seed
    3 and 300 of seed 4."""
    import dataclasses

    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    solution = read_table(default_path(RULES), RULES, lazy_take=False)
    stored = Card.from_dict(stored_cards()["cinq-mille"]["card"])
    worth = list(stored.left_worth)
    worth[2] += 150
    card = dataclasses.replace(stored, left_worth=worth)
    samples = []
    for seed in (3, 4):
        visits = []
        regret = card_regret(solution, card, 300, seed=seed, visits=visits)
        samples.append((Sample(decisions(solution, visits), 300), visits, regret))
    return solution, stored, card, samples


def test_the_corrected_keeps_priced_one_at_a_time(two_sets):
    """Independent of the compiled ranks and the padded rows: each keep of
    the checked games ranked by the card's plain rule (solver.cards.card) plus
    its cell's correction, one decision at a time, loses what
    keep_worth_headroom says, and with no correction what the sampled
    games' own regret in keeps is."""
    from solver.cards.card import card_situation, keep_rank
    from solver.model.turn_rules import TurnRules
    solution, _, card, ((fit, _, _), (check, visits, regret)) = two_sets
    found = keep_worth_headroom(RULES, card, fit, check, KEEP_CELLS["and the turn total"])
    assert found.checked[0] == pytest.approx(regret.by("kind")[("keep",)], rel=1e-12)
    compiled, turn = card.compiled(RULES), TurnRules.of(RULES)
    space, cells = solution.space, keep_cells(RULES, check.decisions,
                                              KEEP_CELLS["and the turn total"])
    lost, corrected = 0.0, 0
    for visit, cell in zip(visits, cells):
        if visit.kind != "keep":
            continue
        score, opponent = int(space.score[visit.mover]), int(space.score[visit.other])
        here = card_situation(compiled, score, opponent, 0)
        correction = found.corrections.get(tuple(cell), np.zeros(RULES.dice + 1))
        corrected += bool(correction.any())
        ranks = [keep_rank(compiled, turn, *here, visit.turn_total, units, left, left == 0)
                 + correction[left] for units, left in visit.keeps]
        lost += visit.regret(int(np.argmax(ranks)))
    assert corrected > 100
    assert found.checked[1] == pytest.approx(lost / check.games, rel=1e-12)


def test_a_wrong_worth_is_mostly_won_back(two_sets):
    """Three dice left worth 150 too much cost the card's keeps five to six
    points over these games (the stored card's worths, priced at the same
    decisions, about 0.3); a row of corrections per dice thrown, fitted to
    one set of games, wins back at least four fifths of it over the other,
    and never loses at the games it is fitted to."""
    _, stored, card, ((fit, _, _), (check, _, _)) = two_sets
    found = keep_worth_headroom(RULES, card, fit, check, KEEP_CELLS["dice thrown"])
    right = keep_worth_headroom(RULES, stored, fit, check, KEEP_CELLS["dice thrown"]).checked[0]
    damage = found.checked[0] - right
    assert damage > 0.02
    assert found.checked[1] - right <= damage / 5
    assert found.fitted[1] <= found.fitted[0]


@pytest.mark.parametrize("seed", range(5))
def test_a_correction_s_grid_priced_at_once_is_each_value_priced_alone(seed):
    """Random keeps (ranks that differ by whole and half units and, like the
    card's, by a 1,024th per die left; some choices absent, some that win
    outright), one dice count's correction moved over a grid: the losses
    the fit reads at once are those of choosing again at each value."""
    from solver.cards.bounds import _lost, _lost_on_grid
    rng = np.random.default_rng(seed)
    for _ in range(40):
        left = rng.integers(0, 4, (50, 5))
        rank = rng.integers(0, 20, (50, 5)) * 0.5 + left / 1024
        rank[:, 1:][rng.random((50, 4)) < 0.2] = -np.inf
        rank[rng.random((50, 5)) < 0.05] = np.inf          # a keep that wins
        value = rng.random((50, 5))
        padded = (rank, left, value, value.max(axis=1))
        correction = rng.integers(-4, 4, 4) * 0.5
        moved = int(rng.integers(0, 4))
        grid = np.arange(-5, 5.25, 0.5)
        one_at_a_time = []
        for point in grid:
            trial = correction.copy()
            trial[moved] = point
            one_at_a_time.append(_lost(padded, trial))
        assert _lost_on_grid(padded, correction, moved, grid) == pytest.approx(one_at_a_time,
                                                                               rel=1e-12)


def test_what_finer_rules_could_buy(where_it_loses):
    """``where_cards_lose.py --headroom``: the card's row of the keeps is the
    sum of its keeps by dice (the sampled games' own regret), no row of
    corrections loses more than the card at the games it is fitted to,
    finer cells of bank thresholds lose no more, the card's banks are its
    banks by dice, what the finest rows win back is the card's checked row
    less theirs, and what the two would leave is the card's loss less what
    each buys."""
    room = where_it_loses.headroom
    assert [label for label, *_ in room.keeps] == list(KEEP_CELLS)
    card_fitted, card_checked = room.card_keeps
    assert card_fitted == pytest.approx(lost_in(where_it_loses, "keep"), rel=1e-9)
    assert all(fitted <= card_fitted for _, _, fitted, _ in room.keeps)
    banks = {step: lost for step, _, lost in room.banks}
    assert banks[50] <= banks[200] <= banks[1000] and banks[500] <= banks[1000]
    assert room.card_banks == pytest.approx(lost_in(where_it_loses, "bank"), rel=1e-9)
    assert room.loss == where_it_loses.sampled
    finest = room.keeps[-1][3]
    assert room.won_back == pytest.approx(card_checked - finest, rel=1e-12)
    assert room.takes is None               # cinq-mille: no take-over to name
    assert [step for step, _ in room.first_order] == [500, 200, 50]
    for step, left in room.first_order:
        expected = room.loss - (card_checked - finest) - room.card_banks + banks[step]
        assert left == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("game", ["pig", "cinq-mille"])
def test_the_turn_s_first_roll_is_a_band_of_its_own(game):
    """``TURN_TOTALS`` as its docstring reads it: the turn's first roll
    (nothing set aside), then below 500, 500 to 1,499, 1,500 to 2,999,
    3,000 or more (points), in the game's units. (A first version filed
    the first roll with the totals below 500.)"""
    rules = get_rules(game)
    points = np.array([0, 1, 50, 450, 499, 500, 1499, 1500, 2999, 3000, 9000])
    points = points[points % rules.unit == 0]
    expected = {0: 0, 1: 1, 50: 1, 450: 1, 499: 1, 500: 2, 1499: 2, 1500: 3, 2999: 3, 3000: 4,
                9000: 4}
    assert list(turn_total_bands(rules, points // rules.unit)) == [expected[p] for p in points]


def test_where_keeps_lose(where_it_loses):
    """``where_cards_lose.py --by-keep``: each row is a keep the card made
    where another was better, the rows come largest first, the largest
    twelve hold the rows' sum, and all kinds together hold the card's keeps
    by dice (the sampled games' own regret in keeps)."""
    shares = where_it_loses.by_keep
    assert len(shares.rows) == 12 and shares.few == 12
    assert all(row.mine != row.best for row in shares.rows)
    lost = [row.lost for row in shares.rows]
    assert lost == sorted(lost, reverse=True)
    assert shares.kinds > 12
    assert shares.held_few == pytest.approx(sum(lost), rel=1e-12)
    assert shares.held_few <= shares.held_many <= shares.whole
    assert shares.whole == pytest.approx(lost_in(where_it_loses, "keep"), rel=1e-9)

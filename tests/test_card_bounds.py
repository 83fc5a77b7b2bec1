"""The bound on bank thresholds near the end (:mod:`solver.card_bounds`):
checked against trying every threshold of every cell one by one, and on a
card's sampled decisions against the thresholds anyone can name (always
bank, never bank)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from solver.card_bounds import bank_threshold_bound, near_end_banks
from solver.card_kernel import BANK, KEEP
from solver.card_regret import NEAR_END, card_regret, decisions
from solver.card_record import Card
from solver.card_sheet import stored_cards
from solver.rules import get_rules

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
    from solver.card_regret import Decisions
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
    from solver.tables import default_path, read_table
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
    banks = near_end_banks(RULES, sampled)
    bank_value, roll_value = (sampled.value[sampled.first[banks] + choice] for choice in (0, 1))
    best = np.maximum(bank_value, roll_value)
    always, never = ((best - value).sum() / 300 for value in (bank_value, roll_value))
    assert bounds[-1] <= min(always, never)


def test_the_script_prints_the_bounds_and_what_the_end_costs():
    """`where_cards_lose.py --bounds`, run as a person runs it: the loss
    near the end by kind adds up, the loss were every choice there right
    is the rest (what the card loses before it), and the bound grows with the cells."""
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, str(root / "scripts" / "where_cards_lose.py"),
                          "cinq-mille", "--games", "300", "--seed", "3", "--bounds"],
                         capture_output=True, text=True, check=True).stdout
    numbers = re.search(r"\): ([0-9.]+) pp of ([0-9.]+) sampled; in keeps ([0-9.]+), in banks "
                        r"([0-9.]+), in take-overs ([0-9.]+)\. The card until then and the "
                        r"table after: ([0-9.]+) ± [0-9.]+ pp \(unbiased", out)
    near, whole, keeps, banks, takes, rest = map(float, numbers.groups())
    assert keeps + banks + takes == pytest.approx(near, abs=0.0015)
    assert rest == pytest.approx(whole - near, abs=0.0015)
    rows = re.findall(r"^\| ([0-9,]+) \| ([0-9,]+) \| ([0-9.]+) \|$", out, re.MULTILINE)
    assert [step for step, _, _ in rows] == ["50", "200", "500", "1,000"]
    assert float(rows[0][2]) <= float(rows[1][2]) <= float(rows[3][2])
    assert re.search(rf"^\| the card \| \| {banks:.3f} \|$", out, re.MULTILINE)

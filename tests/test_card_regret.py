"""Where a card's loss goes (solver.card_regret): the regret sampled
decision by decision adds up to the card's exact loss, which
solver.seat_value computes another way (a fixed-policy evaluation over
every turn start, no sampling); and the per-dice worths of a keep."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver.card import Card
from solver.card_regret import card_regret
from solver.errors import UsageError
from solver.rules import get_rules
from solver.seat_value import card_seat_values
from solver.solve import solve_game


@pytest.fixture(scope="module")
def cinq1500():
    return solve_game(get_rules("cinq-mille", 1500))


# Dice left worth other than so much a die (1 die more than 2), the most
# points from 500, and a bank rule moved by the score: the keeps and the
# banks both cost something.
CARD = Card("cinq-mille", (200, 200, 450, 750, 1500), behind=50, gap_step=300, open_at=750,
            left_worth=(100, 50, 100, 200, 250), most_points_from=500, race_within=200)


@pytest.mark.parametrize("card", [CARD, Card("cinq-mille", (300,) * 5, open_at=750)],
                         ids=["fitted-like", "threshold-300"])
def test_sampled_regret_adds_up_to_the_exact_loss(cinq1500, card):
    exact = 0.5 - float(np.mean(card_seat_values(cinq1500, card)))
    regret = card_regret(cinq1500, card, games=3000, seed=5)
    sampled, stderr = regret.loss()
    assert exact > 0.005                       # a loss worth splitting
    assert abs(sampled - exact) <= 4 * stderr, (sampled, stderr, exact)
    assert stderr < 0.1 * exact
    assert min(regret.total.values()) >= -1e-12
    assert sum(regret.total.values()) / regret.games == pytest.approx(sampled, rel=1e-9)
    assert set(regret.by("kind")) == {("keep",), ("bank",)}
    assert sum(regret.by("kind", "dice").values()) == pytest.approx(sampled, rel=1e-9)


def test_a_game_with_take_over_is_refused():
    """Its offers would need a decision kind of their own (module docstring)."""
    with pytest.raises(UsageError, match="take-over"):
        card_regret(solve_game(dataclasses.replace(get_rules("quinze-mille", 2000),
                                                   takeover_min=500)),
                    Card("quinze-mille", (300,) * 6), games=1)


def test_a_card_fitted_with_one_worth_a_die_reads_as_so_much_a_die():
    old = {"game": "cinq-mille", "bank": [200, 200, 450, 750, 2100], "die_worth": 50,
           "open_at": 750}
    card = Card.from_dict(old)
    assert card.left_worth == (50, 100, 150, 200, 250)
    rules = get_rules("cinq-mille")
    assert "+ 50 for each die left to roll" in card.text(rules)
    text = CARD.text(rules)
    assert "5: 250 | 4: 200 | 3: 100 | 2: 50 | 1: 100" in text
    assert "with 500 or more set aside: the most points." in text
    assert list(card.compiled(rules).left_worth) == [0, 1, 2, 3, 4, 5]


def test_the_simulator_plays_the_same_keeps(cinq1500, monkeypatch):
    """`farkle simulate`'s card policy ranks keeps in its own loop
    (solver.game_loop.keep_value): its card's chance as first player is the
    exact evaluation's within four standard errors, for a card whose keeps
    use every feature."""
    from solver import card as card_module
    from solver.simulate import simulate
    monkeypatch.setattr(card_module, "card_for", lambda rules: (CARD, None, {}))
    result = simulate(cinq1500.rules, "card", "optimal", 40000, seed=3, solution=cinq1500)
    exact = card_seat_values(cinq1500, CARD)[0]
    assert abs(result.win_rate_a - exact) <= 4 * result.stderr, (result.win_rate_a, exact)

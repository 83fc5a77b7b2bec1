"""A card at a table of more than two: its exact chance in each seat
(:func:`solver.seat_value.card_seat_values_n`), checked against the
N-player simulator and the two-player evaluation, and what `farkle card
--players N` and `farkle simulate` say of it."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from solver.card_record import Card
from solver.card_sheet import card_for, stored_cards
from solver.errors import UsageError
from solver.multiplayer import solve_players
from solver.rules import get_rules
from solver.seat_value import card_seat_values, card_seat_values_n
from solver.simulate_n import seat_policies, simulate_n
from solver.solve import solve_game
from solver.states import player_space

RULES = get_rules("cinq-mille", 1500)


def farkle(*args):
    return subprocess.run([sys.executable, "-m", "solver.cli", *args],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def three():
    return solve_players(RULES, 3, space=player_space(RULES, "exact"))


def test_with_three_players_a_card_s_chance_is_the_simulator_s(three):
    """"threshold:300" written as a card (bank from 300 once entered, keep
    the most points) and played by the N-player simulator's own
    ``threshold:300`` in each seat against two optimal players: the exact
    chance is the simulated one within four standard errors (200,000 games
    a seat)."""
    exact = card_seat_values_n(three, Card(RULES.name, (300,) * RULES.dice,
                                           open_at=RULES.entry))
    for seat in range(3):
        seats = ["optimal"] * 3
        seats[seat] = "threshold:300"
        result = simulate_n(RULES, seat_policies(3, seats), 200_000, seed=11 + seat,
                            solution=three)
        won = result.wins[seat] / result.games
        assert abs(won - exact[seat]) <= 4 * np.sqrt(won * (1 - won) / result.games)
    # The card gives up something in every seat: the check above could fail.
    assert np.all(exact < np.asarray(three.seat_wins) - 0.01)


def test_with_two_players_it_is_the_two_player_evaluation():
    """The N-player evaluation of a card against a two-player table solved
    as an N-player one equals the two-player evaluation against the
    two-player table (policies built another way)."""
    card = card_for(get_rules("cinq-mille"))[0]
    two = solve_players(RULES, 2, space=player_space(RULES, "exact"))
    assert card_seat_values_n(two, card) == pytest.approx(
        card_seat_values(solve_game(RULES), card), abs=1e-10)


def test_the_table_evaluated_as_a_policy_is_the_table(three):
    assert card_seat_values_n(three, None) == pytest.approx(three.seat_wins, abs=1e-12)


def test_the_card_command_gives_the_loss_measured_with_that_many_players():
    """`farkle card cinq-mille --players 3` gives the stored three-player
    loss (scripts/measure_card_players.py); with four players, where none
    is measured, it says the card was measured for two."""
    measured = stored_cards()["cinq-mille"]["players"]["3"]
    assert measured["loss"] == pytest.approx(
        np.mean(np.array(measured["table_seats"]) - np.array(measured["seats"])), abs=1e-15)
    out = farkle("card", "cinq-mille", "--players", "3")
    assert out.returncode == 0, out.stderr
    assert (f"gives up {100 * measured['loss']:.2f} points of 100 against perfect play "
            "with 3") in out.stdout
    data = json.loads(farkle("card", "cinq-mille", "--players", "3", "--json").stdout)
    assert data["loss_with_players"] == measured
    four = farkle("card", "cinq-mille", "--players", "4")
    assert "fitted and measured for two" in four.stdout
    assert json.loads(farkle("card", "cinq-mille", "--players", "4", "--json").stdout)[
        "loss_with_players"] is None


def test_the_n_player_simulator_refuses_a_card_in_one_line():
    """Its compiled loop has no card: a card seat must be refused, by the
    command and by `simulate_n` itself (which once played it from the
    table without a word)."""
    out = farkle("simulate", "cinq-mille", "--players", "3", "--seat", "card", "--seat",
                 "optimal", "--seat", "optimal", "--games", "10")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "two-player games only" in out.stderr and "Traceback" not in out.stderr
    with pytest.raises(UsageError, match="two-player games only"):
        simulate_n(RULES, ["card", "optimal", "optimal"], 10, solution=None)

"""A card at a table of more than two: its exact chance in each seat
(:func:`solver.cards.seat_value.card_seat_values_n`), checked against the
N-player simulator and the two-player evaluation, and what `farkle card
--players N` and `farkle simulate` say of it."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import farkle

from solver.cards.fit import search as card_fit
from solver.cards.record import Card
from solver.cards.seat_value import card_seat_values, card_seat_values_n
from solver.cards.store import card_for, stored_cards
from solver.cards.text import card_text
from solver.engine.n_player import solve_players
from solver.model.errors import UsageError
from solver.model.rules import get_rules
from solver.model.states import player_space
from solver.sim.simulate_n import seat_policies, simulate_n
from solver.tables.make import solve_game

RULES = get_rules("cinq-mille", 1500)


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


def test_a_card_fitted_at_a_table_of_three_is_a_local_best_there():
    """``measure_card_players.py --fit`` runs the cards' search
    (``solver.cards.fit.search``) with the N-player evaluation: what it returns is
    its card's exact loss with three (one third less the card's mean
    chance) and no move the search tries from it gives up less (Pig to 30,
    the bank threshold, from a start that gives up 0.08 more)."""
    rules = get_rules("pig", 30)
    three = solve_players(rules, 3)
    start = Card(rules.name, (11,))
    fields = ["bank1"]
    card, loss, _, seats = card_fit.fit(three, 3, lambda text: None, fields=fields,
                                         start=start, seat_values=card_seat_values_n)
    exact = card_seat_values_n(three, card)
    assert seats == pytest.approx(exact, abs=1e-12)
    assert loss == pytest.approx(1 / 3 - np.mean(exact), abs=1e-12)
    assert loss < 1 / 3 - np.mean(card_seat_values_n(three, start)) - 0.01
    for name in fields:
        for value in card_fit.candidates(rules, name, card_fit.get(card, name)):
            trial = card_fit.put(card, name, value)
            assert 1 / 3 - np.mean(card_seat_values_n(three, trial)) >= loss - 1e-9, trial


def test_with_three_players_the_card_command_prints_the_card_fitted_for_three():
    """Pig has a card fitted at a table of three (`measure_card_players.py
    pig --players 3 --fit`): `farkle card pig --players 3` prints it, with
    its loss there and what the two-player card gives up there beside it;
    with two players the two-player card is printed."""
    rules = get_rules("pig")
    measured = stored_cards()["pig"]["players"]["3"]
    fitted = measured["fitted"]
    assert Card.from_dict(fitted["card"]) != card_for(rules)[0]
    out = farkle("card", "pig", "--players", "3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == (f"pig: strategy card (3 players; the other player is the leader); "
                        f"gives up {100 * fitted['loss']:.2f} points of 100 against perfect "
                        "play")
    assert any(line.startswith(f"Bank when your turn total reaches {fitted['card']['bank'][0]}")
               for line in lines)
    assert (f"(the two-player card, played against the leader, gives up "
            f"{100 * measured['loss']:.2f} points with 3)") in lines
    data = json.loads(farkle("card", "pig", "--players", "3", "--json").stdout)
    # As cards: the stored one predates fields whose defaults the JSON shows.
    assert data["fitted_for"] == 3
    assert Card.from_dict(data["card"]) == Card.from_dict(fitted["card"])
    assert data["loss"] == data["loss_with_players"] == {
        k: v for k, v in fitted.items() if k != "card"}
    assert data["two_player_card_loss_with_players"]["loss"] == measured["loss"]
    assert card_for(rules, 3)[0] == Card.from_dict(fitted["card"])
    two = json.loads(farkle("card", "pig", "--players", "2", "--json").stdout)
    assert two["fitted_for"] == 2
    assert Card.from_dict(two["card"]) == Card.from_dict(stored_cards()["pig"]["card"])


def test_a_lone_threshold_is_a_sentence_and_its_changes_follow_a_clause():
    """Pig's card with a change by the score gap ends its threshold with a
    semicolon, the change indented under it; with none, with a full stop."""
    rules = get_rules("pig")
    assert card_text(Card("pig", (24,)), rules).splitlines()[1:] == [
        "Bank when your turn total reaches 24."]
    assert card_text(Card("pig", (21,), behind=1, gap_step=7), rules).splitlines()[1:] == [
        "Bank when your turn total reaches 21;",
        "  add 1 for every 7 points you trail (take 1 off for every 7 you lead)"]
    assert "once any player is within 29" in card_text(Card("pig", (24,), race_within=29), rules, None, 3)


@pytest.fixture(scope="module")
def pig_three(tmp_path_factory):
    """Pig's table for three, solved as a person makes it (`farkle solve pig
    --players 3`) into a fresh table directory: the directory."""
    tables = tmp_path_factory.mktemp("tables")
    out = subprocess.run([sys.executable, "-m", "solver.cli", "solve", "pig", "--players", "3"],
                         capture_output=True, text=True,
                         env={**os.environ, "FARKLE_TABLES": str(tables)})
    assert out.returncode == 0, out.stderr[-500:]
    return tables


def test_the_stored_card_for_three_gives_up_what_is_stored(pig_three, monkeypatch):
    """solver/cards/cards.json's Pig card for three and its loss there are the
    exact evaluation against the table solved again (a stale file after a
    change of the card's rule fails here)."""
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    monkeypatch.setenv("FARKLE_TABLES", str(pig_three))
    rules = get_rules("pig")
    fitted = stored_cards()["pig"]["players"]["3"]["fitted"]
    solution = read_table(default_path(rules, players=3), rules, lazy_take=False,
                          expect_players=3)
    seats = card_seat_values_n(solution, Card.from_dict(fitted["card"]))
    assert fitted["seats"] == pytest.approx(list(seats), abs=1e-12)
    assert fitted["loss"] == pytest.approx(1 / 3 - seats.mean(), abs=1e-12)


def test_advise_and_the_bots_with_three_players_play_the_card_for_three(pig_three, monkeypatch):
    """`farkle advise pig --me .. --opp .. --opp .. --card`: the card's
    answer is the card fitted for three's, at a turn total where it and the
    two-player card disagree; a card bot at a game of three holds it."""
    from solver.cards.sheet import card_bank
    from solver.play.bots import make_bots
    from solver.sim.policies import parse_policy
    monkeypatch.setenv("FARKLE_TABLES", str(pig_three))
    rules = get_rules("pig")
    two, three = (card_for(rules, players)[0].compiled(rules) for players in (2, 3))
    bot = make_bots({1: parse_policy("card")}, rules, None, 3)[1]
    assert all(np.array_equal(a, b) for a, b in zip(bot.card, three))
    assert not all(np.array_equal(a, b) for a, b in zip(bot.card, two))
    me, opponents = 40, [40, 40]
    turn = next(t for t in range(1, 60)
                if card_bank(two, rules, me, opponents, t, 1)
                != card_bank(three, rules, me, opponents, t, 1))
    out = farkle("advise", "pig", "--me", me, *[a for o in opponents for a in ("--opp", o)],
                 "--turn", turn, "--card", "--json", check=0)
    banks = card_bank(three, rules, me, opponents, turn, 1)
    assert json.loads(out.stdout)["card"]["action"] == ("bank" if banks else "roll")


def test_a_card_and_the_table_evaluated_below_zero(monkeypatch):
    """The exact evaluation of a policy (solver.cards.seat_value) with
    scores below 0 (Farkle's penalty): the table played as a policy gives
    the table's own chances, and a card (farkle-acg2017's) gives up
    something in each seat, which its sampled regret estimates and the
    simulator's card policy plays."""
    rules = dataclasses.replace(get_rules("farkle-acg2017"), crosses=3, fall_penalty=200,
                                floor=-200).with_target(400)
    two = solve_game(rules)
    first = two.first_player_win
    assert card_seat_values(two, None) == pytest.approx([first, 1 - first], abs=1e-12)
    card = card_for(get_rules("farkle-acg2017"))[0]
    seats = card_seat_values(two, card)
    assert seats[0] < first and seats[1] < 1 - first
    # The sampled regret (how farkle-facebook's and zilch's cards are
    # measured at their own rules) agrees with the exact loss below 0 too.
    from solver.cards.regret import card_regret
    sampled, stderr = card_regret(two, card, 3000, seed=5).loss()
    assert abs(sampled - (0.5 - seats.mean())) <= 4 * stderr
    assert stderr < 0.1 * (0.5 - seats.mean())     # close enough to tell a wrong loss
    # And the simulator's card plays it so: its chance in each seat over
    # 40,000 games is the exact evaluation's within four standard errors.
    from solver.cards import store
    from solver.sim.simulate import simulate
    monkeypatch.setattr(store, "card_for", lambda *args, **kwargs: card_for(
        get_rules("farkle-acg2017")))
    first_seat = simulate(rules, "card", "optimal", 40000, seed=3, solution=two)
    second_seat = simulate(rules, "optimal", "card", 40000, seed=4, solution=two)
    assert abs(first_seat.win_rate_a - seats[0]) <= 4 * first_seat.stderr
    assert abs(1 - second_seat.win_rate_a - seats[1]) <= 4 * second_seat.stderr


def test_with_a_final_round_the_n_player_evaluation_reads_the_last_turns():
    """A card's N-player evaluation with a final round (Pig to 25 with one):
    with two players it is the two-player evaluation (policies and last
    turns built another way); with three, the table evaluated as a policy
    is the table, and the card's bank past the target (``past_lead_all``,
    Pig's one die being every die) is read: banking only 20 ahead past
    the target wins more in every seat than banking at once, where the
    next players' last turns pass a small lead easily."""
    rules = dataclasses.replace(get_rules("pig", 25), final_round=True)
    at_once, ahead = (Card(rules.name, (8,), past_lead=lead, past_lead_all=lead)
                      for lead in (0, 20))
    two = solve_players(rules, 2, space=player_space(rules, "exact"))
    for card in (at_once, ahead):
        assert card_seat_values_n(two, card) == pytest.approx(
            card_seat_values(solve_game(rules), card), abs=1e-10)
    three = solve_players(rules, 3, space=player_space(rules, "exact"))
    assert card_seat_values_n(three, None) == pytest.approx(three.seat_wins, abs=1e-12)
    assert np.all(card_seat_values_n(three, ahead) > card_seat_values_n(three, at_once) + 0.01)

"""The seat evaluation with four players (solver/cards/seat_value.py walks
the levels a level's blocks at a time, its plans made anew where a level
has a larger block). scripts/measure_players.py's ``--players 4`` is run
by hand (docs/players.md): in the suite its subprocess compiled the
evaluation afresh, 109 s."""


import numpy as np

from solver.cards.seat_value import card_seat_values_n, duel_seat_values, model_seat_values
from solver.engine.n_player import solve_players
from solver.engine.two_player import solve
from solver.model.rules import get_rules
from solver.model.states import player_space


def test_with_four_players_the_table_against_itself_gives_its_own_values():
    rules = get_rules("pig", 15)
    space = player_space(rules, "exact")
    four = solve_players(rules, 4, space=space)
    two = solve(rules, space=space)
    own = duel_seat_values(four, two, model=False)
    assert np.max(np.abs(own - four.seat_wins)) < 1e-12
    # The same policies by another door: the same bits.
    assert np.array_equal(card_seat_values_n(four, None), own)
    # Neither the model nor the duel wins more than the table in any seat.
    for other in (duel_seat_values(four, two), model_seat_values(four, two)):
        assert np.all(other <= four.seat_wins + 1e-12)

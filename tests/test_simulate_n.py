"""The N-player simulator (solver.sim.simulate_n, solver.sim.game_loop_n) and
``farkle simulate --players N --seat ...``.

Where each expected number comes from is said in each test: the N-player
solver (``MultiSolution.seat_wins``, solved here with ``solve_players``) for
optimal self-play, checked within 4 standard errors per seat (a penalty's
scores below 0 and a final round's last turns and shared wins included); the
two-player simulator (its own loop and score sheets) for games of two
seats, which must be the very same games; a baseline run of the same
threshold players for the optimal seat's edge.
"""

import dataclasses
import json

import numpy as np
import pytest
from conftest import farkle

from solver.engine.n_player import solve_players
from solver.engine.two_player import solve
from solver.model.rules import get_rules
from solver.model.states import player_space
from solver.sim.simulate import simulate
from solver.sim.simulate_n import simulate_n

GAMES = 40_000
"""Games per self-play run: a standard error of about 0.0025 per seat."""

# A house quinze-mille in which take-over is in play at a target small
# enough for three players (the real entry, 500, and take-over minimum,
# 5,000, leave none below 5,000).
QUINZE_TAKE_OVER = dataclasses.replace(get_rules("quinze-mille", 600), entry=100,
                                       takeover_min=100)
# A penalty at every zero turn (crosses 1): 3 points off, scores down to
# -3, so that scores below 0 (and the floor) come up in most games.
PIG_PENALTY = dataclasses.replace(get_rules("pig"), crosses=1, fall_penalty=3,
                                  floor=-3).with_target(8)
# A final round on three dice (as tests/test_players.py's): the last turns
# of two seats, and ties shared by two and by three.
FARKLE_FINAL = dataclasses.replace(get_rules("farkle-acg2017"), final_round=True, dice=3,
                                   entry=150).with_target(300)

SELF_PLAY = {
    # name: rules, players, what must come up in the games
    "pig-30-3": (get_rules("pig", 30), 3, ()),
    "pig-30-4": (get_rules("pig", 30), 4, ()),
    # Its table mixes a few decisions (docs/rules.md, "Cycles and equilibria").
    "cinq-mille-1500-3": (get_rules("cinq-mille", 1500), 3, ()),
    # Crosses and falls (one-level memory), entry 350. (Take-over exists
    # but never pays: from 350 up, an offer leaves under 150 to make.)
    "dix-mille-500-3": (get_rules("dix-mille", 500), 3, ("falls",)),
    "quinze-take-over-600-3": (QUINZE_TAKE_OVER, 3, ("take_overs",)),
    "pig-penalty-8-3": (PIG_PENALTY, 3, ("falls",)),
    "farkle-final-round-300-3": (FARKLE_FINAL, 3, ("last_turns", "shared")),
}

_SOLVED: dict = {}


def solved(rules, players):
    """The N-player table, solved once per test session."""
    key = (rules, players)
    if key not in _SOLVED:
        _SOLVED[key] = solve_players(rules, players, player_space(rules, "exact"))
    return _SOLVED[key]


@pytest.mark.parametrize("name", sorted(SELF_PLAY))
def test_optimal_self_play_wins_as_the_table_says(name):
    """Every seat's win rate in optimal self-play agrees with the solver's
    ``seat_wins`` within 4 standard errors."""
    rules, players, in_play = SELF_PLAY[name]
    solution = solved(rules, players)
    result = simulate_n(rules, ["optimal"] * players, GAMES, seed=17, solution=solution)
    assert result.unfinished == 0
    assert result.predicted == pytest.approx(list(solution.seat_wins))
    for seat in range(players):
        assert result.stderr[seat] <= 0.005
        gap = abs(result.win_rates[seat] - result.predicted[seat])
        assert gap < 4 * result.stderr[seat], (seat, result.win_rates, result.predicted)
    # Every finished game is one win, shared or not.
    assert sum(result.win_rates) == pytest.approx(1.0, abs=1e-12)
    for what in in_play:
        assert getattr(result, what) > 0, what
    if name.startswith("cinq-mille"):
        assert solution.mixed


@pytest.mark.parametrize("game, a, b", [
    ("dix-mille", "threshold:350", "expected"),       # crosses, falls, take-over
    ("dix-mille-free-keep", "random", "threshold:1000"),
    ("quinze-mille", "expected", "random"),
    ("cinq-mille-last1000", "threshold:300", "expected"),
])
def test_two_seats_play_the_two_player_simulators_games(game, a, b):
    """With two seats the loop throws the same dice for the same decisions
    as the two-player simulator (its own loop, score sheets read with
    docs/rules.md's one-level memory): the very same winners, game by game
    counted."""
    rules = get_rules(game)
    two = simulate(rules, a, b, 3000, seed=5, one_level=True)
    n = simulate_n(rules, [a, b], 3000, seed=5)
    assert n.wins == [two.wins_a, two.wins_b]
    assert n.unfinished == two.unfinished
    if game == "dix-mille":
        assert n.take_overs > 0 and n.falls > 0


def test_two_optimal_seats_play_the_two_player_tables_games():
    """The N-player table of two players (``solve_players``) played by this
    loop, and the two-player table (``solver.engine.two_player.solve``, exact memory)
    played by the two-player simulator: the same games (dix-mille to 500:
    crosses and falls)."""
    rules = get_rules("dix-mille", 500)
    space = player_space(rules, "exact")
    two = simulate(rules, "optimal", "optimal", 20_000, seed=3, solution=solve(rules, space=space),
                   one_level=True)
    n = simulate_n(rules, ["optimal", "optimal"], 20_000, seed=3,
                   solution=solve_players(rules, 2, space))
    assert n.wins == [two.wins_a, two.wins_b]


def test_an_optimal_seat_beats_threshold_players():
    """Cinq-mille to 1,500, three players: in the last seat (the worst
    placed) the optimal policy wins more often than a threshold:300 player
    does there against the same two threshold:300 players (the baseline
    run), and more often than either of them."""
    rules = get_rules("cinq-mille", 1500)
    threshold = "threshold:300"
    baseline = simulate_n(rules, [threshold] * 3, GAMES, seed=9)
    mixed = simulate_n(rules, [threshold, threshold, "optimal"], GAMES, seed=9,
                       solution=solved(rules, 3))
    edge = mixed.win_rates[2] - baseline.win_rates[2]
    assert edge > 4 * np.hypot(mixed.stderr[2], baseline.stderr[2])
    assert mixed.win_rates[2] > max(mixed.win_rates[:2])


# ---------------------------------------------------------------------- CLI

def test_cli_three_seats_json_and_text():
    """``--json`` fields per seat; the prediction is the solver's seat_wins
    (the table the command solves, the same game solved here)."""
    args = ["simulate", "pig", "--target", "30", "--players", "3", "--games", "20000",
            "--seed", "4", "--solve"] + ["--seat", "optimal"] * 3
    out = json.loads(farkle(*args, "--json", check=0).stdout)
    assert {"game", "target", "players", "seats", "games", "wins", "stderr", "predicted",
            "seed", "seconds", "unfinished"} <= set(out)
    assert (out["game"], out["target"], out["players"], out["games"], out["seed"]) == \
        ("pig", 30, 3, 20000, 4)
    assert out["seats"] == ["optimal"] * 3
    assert len(out["wins"]) == len(out["stderr"]) == 3
    assert sum(out["wins"]) + out["unfinished"] == 20000
    assert out["predicted"] == pytest.approx(list(solved(get_rules("pig", 30), 3).seat_wins))
    for wins, se, predicted in zip(out["wins"], out["stderr"], out["predicted"]):
        assert abs(wins / 20000 - predicted) < 4 * se
    text = farkle(*args, check=0).stdout.splitlines()
    assert [line.split()[:2] for line in text[1:4]] == [["seat", "1"], ["seat", "2"],
                                                       ["seat", "3"]]
    assert all("standard errors" in line for line in text[1:4])
    # Not every seat optimal: no prediction.
    other = json.loads(farkle("simulate", "pig", "--target", "30", "--players", "3",
                              "--seat", "optimal", "--seat", "threshold:20", "--seat", "random",
                              "--games", "2000", "--json", check=0).stdout)
    assert other["predicted"] is None and other["seats"][1] == "threshold:20"


def test_cli_two_seats_and_the_two_player_options():
    """``--players 2 --seat X --seat Y`` plays what ``--a X --b Y`` plays."""
    common = ["simulate", "pig", "--target", "30", "--games", "3000", "--seed", "2", "--json"]
    seats = json.loads(farkle(*common, "--players", "2", "--seat", "expected", "--seat",
                              "threshold:20", check=0).stdout)
    ab = json.loads(farkle(*common, "--a", "expected", "--b", "threshold:20", check=0).stdout)
    assert seats["wins"][0] == ab["wins_a"] and seats["predicted"] is None


@pytest.mark.parametrize("bad", [
    ["--players", "7"] + ["--seat", "random"] * 7,
    ["--players", "1", "--seat", "random"],
    ["--players", "3", "--seat", "random", "--seat", "random"],
    ["--players", "3", "--a", "random", "--b", "random"],
    ["--players", "3", "--seat", "random", "--seat", "random", "--seat", "random", "--a",
     "random"],
    ["--players", "3", "--seat", "random", "--seat", "bogus", "--seat", "random"],
])
def test_cli_bad_seats_are_one_line_and_exit_2(bad):
    result = farkle("simulate", "pig", "--target", "30", "--games", "10", *bad)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.startswith("farkle: ")

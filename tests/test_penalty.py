"""A fall that costs points (issue 67: Farkle's penalty for three zero turns
in a row, scores down to a floor below zero), through the command line as a
person uses it: a house game of farkle-acg2017 to 600, 300 points off after
three zero turns, no score below -300. The solver itself is checked against
the reference solver in tests/test_reference.py (two penalty games)."""

import json

import pytest
from conftest import farkle, solved_house

from solver.model.rules import get_rules
from solver.model.turn_rules import TurnRules, after_bank, after_zero_turn

FIELDS = {"base": '"farkle-acg2017"', "name": '"penalty-small"', "target": 600, "crosses": 3,
          "fall_penalty": 300, "floor": -300}


def house_file(**changes) -> str:
    return "".join(f"{key} = {value}\n" for key, value in {**FIELDS, **changes}.items())


HOUSE = house_file()


def test_the_penalty_rule_from_the_sheet():
    """By hand (units of 50): two crosses, then the third takes 6 units
    off and erases them; never below the floor, where nothing is lost; a
    bank erases the crosses."""
    import dataclasses
    rules = dataclasses.replace(get_rules("farkle-acg2017"), crosses=3, fall_penalty=300,
                                floor=-300).with_target(600)
    turn = TurnRules.of(rules)
    assert after_zero_turn(turn, 4, -1, 0) == (4, -1, 1)
    assert after_zero_turn(turn, 4, -1, 2) == (-2, -1, 0)
    assert after_zero_turn(turn, -4, -1, 2) == (-6, -1, 0)       # 300 off, floor -300
    assert after_zero_turn(turn, -6, -1, 2) == (-6, -1, 2)       # at the floor: nothing
    assert after_bank(turn, -3, 5)[0::2] == (2, 0)
    assert turn.rows == 12 + 6                                   # to 600 from -300


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    """The house file and the environment that reads its table."""
    return solved_house(tmp_path_factory.mktemp("penalty"), HOUSE)


def advise(house, *args):
    rules, env = house
    return farkle("advise", "--rules", rules, *args, env=env)


def test_advice_below_zero_and_with_crosses(house):
    answer = advise(house, "--me", -250, "--opp", 300, "--crosses", 2, "--turn", 150,
                    "--dice", 3, "--json")
    assert answer.returncode == 0, answer.stderr
    data = json.loads(answer.stdout)
    assert data["action"] in ("bank", "roll") and 0 < data["win"] < 1
    assert data["position"]["me"] == {"score": -250, "crosses": 2, "previous": None}
    # Crosses matter: on the last cross, a zero turn costs 300 more.
    calm = json.loads(advise(house, "--me", -250, "--opp", 300, "--turn", 150, "--dice", 3,
                             "--json").stdout)
    assert calm["win"] > data["win"]


@pytest.mark.parametrize("args, said", [
    (("--me", -350, "--opp", 0), "must be at least -300"),
    (("--me", 100, "--previous", 0, "--opp", 0), "keeps no previous score"),
    (("--me", 100, "--crosses", 3, "--opp", 0), "crosses must be 0 to 2"),
])
def test_lines_that_cannot_be_are_one_line(house, args, said):
    answer = advise(house, *args)
    assert answer.returncode == 2 and said in answer.stderr
    assert answer.stderr.count("\n") == 1 and "Traceback" not in answer.stderr


def test_simulate_plays_the_penalty_with_three_players(house):
    """``farkle simulate --players 3`` plays the penalty in the N-player loop
    (its self-play against the table: tests/test_simulate_n.py), here with
    seats that need no table: every game ends, falls below 0 included."""
    rules, env = house
    answer = farkle("simulate", "--rules", rules, "--players", 3, "--seat", "random", "--seat",
                    "threshold:300", "--seat", "expected", "--games", 2000, "--seed", 1,
                    "--json", env=env)
    assert answer.returncode == 0, answer.stderr
    data = json.loads(answer.stdout)
    assert data["falls"] > 0 and sum(data["wins"]) + data["unfinished"] == 2000


@pytest.mark.parametrize("args, said", [
    # The card policy plays a penalty (tests/test_card_players.py), given a
    # card: a house game's is fitted with farkle card --rules FILE --fit.
    (("simulate", "--a", "card", "--b", "random"), "no strategy card for"),
    (("solve", "--memory", "exact"), "--memory is for games whose crosses go back"),
])
def test_what_is_not_modelled_or_not_made_yet_says_so(house, args, said):
    rules, env = house
    answer = farkle(args[0], "--rules", rules, *args[1:], env=env)
    assert answer.returncode == 2 and said in answer.stderr, answer.stderr
    assert answer.stderr.count("\n") == 1


@pytest.mark.parametrize("change, said", [
    ({"crosses": 0}, "needs crosses"),
    ({"fall_penalty": 0}, "only bounds"),
    ({"entry": 300}, "not modelled"),
    ({"floor": 100}, "must be 0 or below"),
])
def test_house_files_that_the_penalty_cannot_take(tmp_path, change, said):
    path = tmp_path / "bad.toml"
    path.write_text(house_file(**change))
    answer = farkle("variants", "--rules", path)
    assert answer.returncode == 2 and said in answer.stderr, answer.stderr


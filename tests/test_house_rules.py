"""House rules from a TOML file (``--rules FILE``), through the command line
as a player would use it, plus the file reader itself."""

import json

import pytest
from conftest import farkle

from solver.model.house_rules import load_house_rules
from solver.model.rules import GAMES

# A cinq-mille to exactly 1,500 with a 500 opening: solves in about a second.
SMALL_HOUSE = """\
base = "cinq-mille"
target = 1500
exact_target = true
entry = 500
"""


def toml_of(fields: dict) -> str:
    """A ``farkle variants --json`` row as a TOML file, the way a user copies
    one: JSON arrays, strings and booleans are TOML too; null is false."""
    return "".join(f"{key} = {'false' if value is None else json.dumps(value)}\n"
                   for key, value in fields.items())


@pytest.fixture
def house(tmp_path):
    """Write a house-rules file; returns its path."""
    def write(text, name="house.toml"):
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


@pytest.mark.parametrize("game", list(GAMES))
def test_a_copy_of_variants_json_is_that_game(game, house):
    rows = json.loads(farkle("variants", "--json", check=0).stdout)
    row = next(r for r in rows if r["name"] == game)
    path = house(toml_of(row), name="copy.toml")
    assert load_house_rules(path) == GAMES[game]
    shown = json.loads(farkle("variants", "--rules", path, "--json", check=0).stdout)
    assert shown == [row]


def test_base_plus_changes(house):
    path = house(SMALL_HOUSE + 'takeover_min = false\nkeep_rule = "all"\n')
    rules = load_house_rules(path)
    base = GAMES["cinq-mille"]
    assert (rules.name, rules.target, rules.exact_target, rules.entry) == \
        ("house", 1500, True, 500)
    assert rules.keep_rule == "all" and rules.takeover_min is None
    # Everything not named in the file is the base's.
    assert (rules.scoring, rules.straights, rules.instant_wins, rules.dice) == \
        (base.scoring, base.straights, base.instant_wins, base.dice)
    assert "target 1500" in rules.summary


def test_name_summary_and_a_full_file_without_base(house):
    pig = GAMES["pig"]
    path = house(f"""\
name = "my-pig"
summary = "pig to 50"
dice = 1
unit = 1
target = 50
exact_target = false
entry = 0
scoring = {json.dumps([list(row) for row in pig.scoring])}
""")
    rules = load_house_rules(path)
    assert (rules.name, rules.summary, rules.target) == ("my-pig", "pig to 50", 50)
    assert rules.scoring == pig.scoring and rules.takeover_min is None


def test_takeover_min_and_target_option_reach_the_game(house):
    path = house('base = "quinze-mille"\ntakeover_min = 1000\n')
    shown = json.loads(farkle("variants", "--rules", path, "--json", check=0).stdout)
    assert shown[0]["takeover_min"] == 1000 and shown[0]["dice"] == 6
    solved = farkle("solve", "--rules", house(SMALL_HOUSE), "--target", 1000, "--json", check=0)
    assert json.loads(solved.stdout)["target"] == 1000
    assert json.loads(solved.stdout)["table"].endswith("house-1000.h5")


def test_combinations_and_a_minimum_bank_from_a_file(house):
    """Issue 67's fields as a player writes them: three pairs and two
    triplets reach ``farkle keeps``, the minimum bank ``variants``."""
    path = house('base = "quinze-mille-free-keep"\nname = "pairs"\nmin_bank = 300\n'
                 'combinations = [[[2, 2, 2], 750], [[3, 3], 2500]]\n')
    rules = load_house_rules(path)
    assert rules.combinations == (((2, 2, 2), 750), ((3, 3), 2500)) and rules.min_bank == 300
    out = json.loads(farkle("keeps", "--rules", path, 2, 2, 3, 3, 6, 6, "--json", check=0).stdout)
    assert out[0] == {"dice": [2, 2, 3, 3, 6, 6], "points": 750}
    shown = json.loads(farkle("variants", "--rules", path, "--json", check=0).stdout)[0]
    assert shown["min_bank"] == 300 and shown["combinations"] == [[[2, 2, 2], 750],
                                                                  [[3, 3], 2500]]


def test_keeps_with_rules_takes_every_number_as_a_die(house):
    # Fives worth twice cinq-mille's: one 5 is 100, two are 200.
    path = house(SMALL_HOUSE + 'scoring = [[100, 200, 1000, 1100, 0], [0, 0, 200, 0, 0], '
                 '[0, 0, 300, 0, 0], [0, 0, 400, 0, 0], [100, 200, 500, 550, 5000], '
                 '[0, 0, 600, 0, 0]]\n')
    out = json.loads(farkle("keeps", "--rules", path, 1, 5, 5, "--json", check=0).stdout)
    assert out[0] == {"dice": [1, 5, 5], "points": 300}


BAD_FILES = [
    ("unknown key", 'base = "cinq-mille"\ntargte = 1500\n', "targte"),
    ("string for an int", 'base = "cinq-mille"\ntarget = "ten"\n', "target"),
    ("bool for an int", 'base = "cinq-mille"\nentry = true\n', "entry"),
    ("float for an int", 'base = "cinq-mille"\ntarget = 1500.0\n', "target"),
    ("score off the unit", 'base = "cinq-mille"\nscoring = [[110], [], [], [], [], []]\n',
     "scoring"),
    ("target off the unit", 'base = "cinq-mille"\ntarget = 1525\n', "target"),
    ("entry at the target", 'base = "cinq-mille"\ntarget = 750\n', "entry"),
    ("empty scoring", 'base = "cinq-mille"\nscoring = [[0], [0], [0], [0], [0], [0]]\n',
     "scoring"),
    ("scoring not six faces", 'base = "cinq-mille"\nscoring = [[100]]\n', "scoring"),
    ("TOML syntax", 'base = "cinq-mille"\ntarget = = 1500\n', "line 2"),
    ("unknown base", 'base = "cinq-milles"\n', "base"),
    ("keep rule", 'base = "cinq-mille"\nkeep_rule = "some"\n', "keep_rule"),
    ("take-over true", 'base = "cinq-mille"\ntakeover_min = true\n', "takeover_min"),
    ("missing field", 'dice = 5\nunit = 50\n', "target"),
    ("straight longer than the dice", 'base = "cinq-mille"\n'
     'straights = [[[1, 2, 3, 4, 5, 6], 500]]\n', "straights"),
    ("built-in name, other rules", 'base = "cinq-mille"\nname = "cinq-mille"\nentry = 500\n',
     "name"),
    ("crosses with a capped score", 'base = "cinq-mille-last1000"\ncrosses = 3\n',
     "crosses"),
    ("combination shape not largest first", 'base = "quinze-mille"\n'
     'combinations = [[[2, 4], 1500]]\n', "combinations"),
    ("combination of more dice than the game", 'base = "cinq-mille"\n'
     'combinations = [[[2, 2, 2], 750]]\n', "combinations"),
    ("combination worth nothing", 'base = "quinze-mille"\ncombinations = [[[3, 3], 0]]\n',
     "combinations"),
    ("minimum bank off the unit", 'base = "cinq-mille"\nmin_bank = 325\n', "min_bank"),
    ("minimum bank at the target", 'base = "cinq-mille"\nmin_bank = 5000\n', "min_bank"),
]


@pytest.mark.parametrize("text, key", [case[1:] for case in BAD_FILES],
                         ids=[case[0] for case in BAD_FILES])
def test_a_bad_file_is_one_line_naming_the_key(text, key, house):
    path = house(text)
    result = farkle("odds", "--rules", path, check=2)
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert key in result.stderr
    assert str(path) in result.stderr


def test_a_missing_file_and_game_or_rules_are_one_line(house, tmp_path):
    missing = farkle("solve", "--rules", tmp_path / "nope.toml", check=2)
    assert "nope.toml" in missing.stderr and "Traceback" not in missing.stderr
    both = farkle("odds", "cinq-mille", "--rules", house(SMALL_HOUSE), check=2)
    assert "not both" in both.stderr
    neither = farkle("odds", check=2)
    assert "--rules" in neither.stderr
    for result in (missing, both, neither):
        assert len(result.stderr.strip().splitlines()) == 1


def test_solve_then_advise_a_house_game(house):
    path = house(SMALL_HOUSE)
    solved = json.loads(farkle("solve", "--rules", path, "--json", check=0).stdout)
    assert solved["game"] == "house" and solved["target"] == 1500
    assert solved["table"].endswith("house-1500.h5")
    start = json.loads(farkle("advise", "--rules", path, "--me", 0, "--opp", 0, "--json",
                              check=0).stdout)
    assert start["win"] == pytest.approx(solved["first_player_win"], abs=1e-12)
    # The opening is 500 here, not cinq-mille's 750: 550 may be banked.
    bank = json.loads(farkle("advise", "--rules", path, "--me", 0, "--opp", 1000,
                             "--turn", 550, "--dice", 1, "--json", check=0).stdout)
    assert "bank" in {choice["action"] for choice in bank["choices"]}
    # Exactly 1,500: at 1,400 a keep of 1 1 (200) overshoots.
    keep = json.loads(farkle("advise", "--rules", path, "--me", 1400, "--opp", 0,
                             "--roll", 1, 1, 3, 4, 6, "--json", check=0).stdout)
    assert keep["keep"] == [1]
    assert keep["choices"][0]["then"] == "win"


def test_advice_refuses_a_table_of_other_rules(house, tmp_path):
    table = tmp_path / "cinq-mille-1500.h5"
    farkle("solve", "cinq-mille", "--target", 1500, "--out", table, check=0)
    result = farkle("advise", "--rules", house(SMALL_HOUSE), "--table", table,
                    "--me", 0, "--opp", 0, check=2)
    assert len(result.stderr.strip().splitlines()) == 1
    # The first field of play that differs is named, with both values.
    assert "exact_target false, not true" in result.stderr


def test_an_edited_file_names_the_stale_table(house):
    path = house(SMALL_HOUSE)
    farkle("solve", "--rules", path, check=0)
    path.write_text(SMALL_HOUSE.replace("entry = 500", "entry = 600"))
    result = farkle("advise", "--rules", path, "--me", 0, "--opp", 0, check=2)
    assert "entry 500, not 600" in result.stderr
    assert f"farkle solve --rules {path}" in result.stderr

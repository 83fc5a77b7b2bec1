"""Bad input through the command line, as a person types it (issue 68):
sizes no machine holds, values that crashed, and what is said first.

Every refusal is one line on stderr, exit status 2 and no traceback, and
comes quickly: each case asserts a time well under what the bad behaviour
took (minutes and a MemoryError for the sizes, 17 s and 1.8 GB to refuse
advice on Pig to 5,000, a run without end for 2^63 games). Beside each, a
valid neighbour still works. The last tests check the arithmetic behind
the quick refusals against the player spaces it stands in for.
"""

import dataclasses
import time

import numpy as np
import pytest
from conftest import farkle

from solver.model.errors import UsageError
from solver.model.rules import GAMES, get_rules
from solver.model.states import Line, check_line, model_space, player_space, player_state
from solver.tables.estimates import _exact_counts, estimated_solve_bytes

QUICK = 15.0
"""Seconds any refusal may take here, the CLI's start included, on a busy
machine (each takes well under one alone)."""


def refused(*args, within: float = QUICK, env: dict | None = None):
    """``farkle ARGS`` refused as bad input: one line on stderr, exit 2, no
    output and no traceback, within ``within`` seconds; returns the line."""
    started = time.perf_counter()
    result = farkle(*args)
    seconds = time.perf_counter() - started
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("farkle: "), result.stderr
    assert seconds < within, f"{seconds:.1f} s to refuse {args}"
    return lines[0]


@pytest.fixture
def tables(tmp_path, monkeypatch):
    """A table directory of this test's own, so that what is left in it is
    what the test's commands left."""
    folder = tmp_path / "tables"
    monkeypatch.setenv("FARKLE_TABLES", str(folder))
    return folder


def left_in(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# ------------------------------------------------------------------ sizes

def test_a_solve_too_large_for_memory_is_refused_with_its_estimate(tables):
    # Pig to 100,000 needs 10^10 turn starts: it ran into a MemoryError.
    line = refused("solve", "pig", "--target", 100_000)
    assert "pig to 100,000 needs about" in line and "GB of memory" in line
    assert "free" in line and "--target" in line
    needed = estimated_solve_bytes(get_rules("pig", 100_000))
    assert f"{needed / 1e9:,.0f} GB" in line and needed > 1e12
    assert left_in(tables) == []
    # Its neighbour, Pig to 200, is solved.
    farkle("solve", "pig", "--target", 200, check=0)
    assert left_in(tables) == ["pig-200.h5"]


def test_advice_that_would_solve_too_large_a_table_is_refused_first(tables):
    # Advice on Pig to 20,000 ran out of memory checking its input.
    for solve in ([], ["--solve"]):
        line = refused("advise", "pig", "--target", 20_000, "--me", 0, "--opp", 0, *solve)
        assert "pig to 20,000 needs about" in line and "GB of memory" in line
    # A bad score is refused as quickly, from the rules alone.
    line = refused("advise", "pig", "--target", 20_000, "--me", 100, "--opp", 20_000)
    assert "opponent score 20000 must be at least 0 and below the target 20000" in line
    assert left_in(tables) == []


def test_advice_on_a_missing_table_is_refused_at_once(tables):
    # 17 s and 1.8 GB to check the input before saying the table is missing.
    line = refused("advise", "pig", "--target", 5000, "--me", 0, "--opp", 0, within=8)
    assert "pig has no table yet; make it with: farkle solve pig --target 5000" in line
    # Pig to 100's table is committed: the same question there is answered.
    result = farkle("advise", "pig", "--me", 50, "--opp", 60, "--turn", 10, check=0)
    assert result.stdout.startswith(("bank", "roll"))


def test_a_house_game_too_large_for_memory_is_refused(tmp_path, tables):
    rules = tmp_path / "big.toml"
    rules.write_text('base = "pig"\nname = "big"\ntarget = 100000\n')
    line = refused("solve", "--rules", rules)
    assert "big to 100,000 needs about" in line and "memory" in line
    assert left_in(tables) == []


ABSURD = [
    ("crosses", "crosses = 1000\n", "crosses must be 0 to 10, not 1000"),
    ("target", "target = 10000000000\n", "target must be at most 1,000,000"),
    ("dice", "dice = 7\n", "dice must be 1 to 6, not 7"),
    ("unit", "unit = 100000000000000000000\n", "unit must be 1 to 1000000"),
    ("scoring", "scoring = [[100000000000000000000], [], [], [], [], []]\n",
     "scoring of face 1, 1 die must be at most 1,000,000,000"),
]


@pytest.mark.parametrize("key, text, message", ABSURD, ids=[case[0] for case in ABSURD])
def test_a_rules_file_with_absurd_values_names_the_key(key, text, message, tmp_path, tables):
    path = tmp_path / "absurd.toml"
    path.write_text('base = "dix-mille"\n' + text)
    for command in (["variants"], ["solve"]):
        line = refused(*command, "--rules", path)
        assert f"absurd.toml: {message}" in line and key in line
    assert left_in(tables) == []


def test_the_neighbours_of_absurd_values_are_games(tmp_path):
    path = tmp_path / "near.toml"
    path.write_text('base = "dix-mille"\ncrosses = 10\ntarget = 1000000\n')
    result = farkle("variants", "--rules", path, "--json", check=0)
    assert '"crosses": 10' in result.stdout and '"target": 1000000' in result.stdout
    # Played to a target of its own it is solved.
    path.write_text('base = "dix-mille"\ncrosses = 2\ntarget = 800\n')
    farkle("advise", "--rules", path, "--me", 400, "--opp", 0, "--solve", check=0)


def test_a_target_on_the_line_is_bounded_too():
    line = refused("solve", "pig", "--target", 10 ** 12)
    assert "--target must be at most 1,000,000 points" in line


# ------------------------------------------------------- values that crashed

@pytest.mark.parametrize("command", [
    ("simulate", "pig", "--a", "random", "--b", "random", "--games", 10),
    ("simulate", "pig", "--seat", "random", "--seat", "random", "--seat", "random",
     "--players", 3, "--games", 10),
    ("play", "pig", "--target", 30),
])
def test_a_negative_seed_is_one_line(command):
    line = refused(*command, "--seed", -1)
    assert "--seed must be 0 or more, not -1" in line


def test_a_seed_of_zero_and_a_large_one_play():
    for seed in (0, 2 ** 70):
        result = farkle("simulate", "pig", "--a", "random", "--b", "random", "--games", 10,
                        "--seed", seed, check=0)
        assert f"seed {seed}" in result.stdout


def test_games_beyond_a_billion_are_refused():
    # 2^63 games ran on without end.
    for games in (2 ** 63, 10 ** 9 + 1, 0):
        line = refused("simulate", "pig", "--a", "random", "--b", "random", "--games", games)
        assert "--games must be 1 to 1,000,000,000" in line
    result = farkle("simulate", "pig", "--a", "random", "--b", "random", "--games", 1, check=0)
    assert "1 games" in result.stdout


BAD_NAMES = [
    ("long", "x" * 65),
    ("control character", "a\\u0007b"),
    ("newline", "a\\nb"),
    ("slash", "a/b"),
    ("space", "a b"),
    ("leading dot", ".hidden"),
    ("empty", ""),
]


@pytest.mark.parametrize("name", [case[1] for case in BAD_NAMES],
                         ids=[case[0] for case in BAD_NAMES])
def test_a_house_name_that_cannot_name_a_file_is_refused(name, tmp_path, tables):
    # A long name left a half-written table behind.
    path = tmp_path / "house.toml"
    path.write_text(f'base = "pig"\nname = "{name}"\ntarget = 30\n')
    line = refused("solve", "--rules", path)
    assert "house.toml: name must be" in line
    assert left_in(tables) == []


def test_good_names_and_stems(tmp_path, tables):
    path = tmp_path / "house.toml"
    name = "Maison-1.5_b" + "x" * 52                 # 64 characters
    path.write_text(f'base = "pig"\nname = "{name}"\ntarget = 30\n')
    farkle("solve", "--rules", path, check=0)
    assert left_in(tables) == [f"{name}-30.h5"]
    # A file's stem names the game unless it cannot name a file.
    spaced = tmp_path / "our house.toml"
    spaced.write_text('base = "pig"\ntarget = 30\n')
    line = refused("variants", "--rules", spaced)
    assert "the file's name 'our house' cannot name the table" in line
    spaced.write_text('base = "pig"\nname = "ours"\ntarget = 30\n')
    assert farkle("variants", "--rules", spaced, check=0).stdout.startswith("ours ")


def test_a_summary_is_one_line(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "pig"\nsummary = "two\\nlines"\n')
    line = refused("variants", "--rules", path)
    assert "summary must be one line of text" in line


@pytest.mark.parametrize("args", [
    ("variants", "a\nb"),
    ("variants", "--rules", "no\nfile.toml"),
    ("info", "no\ntable.h5"),
    ("advise", "pig", "--me", 0, "--opp", 0, "--table", "no\ntable.h5"),
])
def test_an_error_naming_what_was_typed_stays_one_line(args):
    # A path or an argument with a newline in it made the message two lines.
    line = refused(*args)
    assert "\\n" in line


# ------------------------------------------------------- what is said first

def test_a_missing_table_comes_before_a_missing_previous_score(tables):
    # Three players of dix-mille to 1,000: the exact table decides that the
    # previous scores are needed; its absence is said first.
    line = refused("advise", "dix-mille", "--target", 1000, "--me", 500, "--opp", 400,
                   "--opp", 0)
    assert "dix-mille with 3 players has no table yet; make it with: farkle solve " \
           "dix-mille --target 1000 --players 3" in line
    # With two players and --memory exact the line fixes the table: the
    # previous score is asked for before any solve.
    line = refused("advise", "dix-mille", "--target", 1000, "--me", 500, "--opp", 400,
                   "--memory", "exact")
    assert "my previous score (before the last bank) is needed here" in line


def test_the_table_is_made_and_then_asks_for_the_previous_scores(tmp_path, tables):
    path = tmp_path / "tiny.toml"
    path.write_text('base = "dix-mille"\nname = "tiny"\ntarget = 500\n')
    question = ("advise", "--rules", path, "--me", 400, "--opp", 350, "--opp", 0)
    result = farkle(*question, "--solve", check=2)
    # The table first (solved on the spot), then what it needs.
    assert "solving tiny with 3 players" in result.stderr
    assert result.stderr.splitlines()[-1] == \
        "farkle: my previous score (before the last bank) is needed here"
    assert left_in(tables) == ["tiny-500-3players.h5"]
    answered = farkle(*question, "--previous", 0, "--opp-previous", 0, "--opp-previous", 0,
                      check=0)
    assert "opponents" in answered.stdout


# ------------------------------------------------- the arithmetic behind them

def _games():
    dix = get_rules("dix-mille", 800)
    yield dix
    yield dataclasses.replace(dix, name="x", min_bank=200)
    yield dataclasses.replace(dix, name="x", min_bank=500, entry=300)
    yield dataclasses.replace(dix, name="x", crosses=1)
    yield dataclasses.replace(dix, name="x", crosses=2, entry=0)
    yield get_rules("pig", 30)
    yield get_rules("cinq-mille-last1000", 1500)
    yield dataclasses.replace(get_rules("cinq-mille-last1000", 1500), name="x", entry=1000)
    yield dataclasses.replace(get_rules("cinq-mille", 1500), name="x", min_bank=300)


@pytest.mark.parametrize("rules", list(_games()), ids=lambda r: f"{r.name}-{r.target}")
def test_a_line_checked_from_the_rules_is_a_player_state(rules):
    """check_line lets through exactly the lines that are states of the
    player space (exact memory, and the model's), without building it."""
    spaces = {"exact" if rules.crosses else "none": player_space(rules, "exact")}
    if rules.crosses:
        spaces["model"] = model_space(rules, np.zeros(rules.target_units, dtype=np.int64))
    unit, checked = rules.unit, 0
    for memory, space in spaces.items():
        for score in range(-unit, rules.target + unit, max(unit // 2, 1)):
            for crosses in range(max(rules.crosses, 1) + 1):
                for previous in [None, *range(-unit, score + 2 * unit, unit)]:
                    line = Line(score, crosses, previous)
                    try:
                        check_line(rules, line, "x", memory)
                        passed = True
                    except UsageError:
                        passed = False
                    if passed:
                        # It names a state of the space: no error, no KeyError.
                        player_state(rules, space, line, "x")
                    else:
                        with pytest.raises(UsageError):
                            player_state(rules, space, line, "x")
                    exists = _in_space(rules, space, line)
                    assert passed == exists, (memory, line)
                    checked += 1
    assert checked > 100


def _in_space(rules, space, line) -> bool:
    """Whether ``line`` names a state of ``space``, read off the space
    itself (its labels), not through check_line."""
    unit = rules.unit
    if line.score % unit or not 0 <= line.score < rules.target:
        return False
    s = line.score // unit
    if not rules.crosses:
        return line.crosses == 0 and line.previous is None and s in set(space.score.tolist())
    if not 0 <= line.crosses < rules.crosses:
        return False
    previous = 0 if line.previous is None and s == 0 else line.previous
    last = line.crosses == rules.crosses - 1
    if previous is None:
        if space.memory == "exact" or last:
            return False
        return (s, -1, line.crosses) in space.index
    if previous % unit or not 0 <= previous <= line.score or 0 < previous < rules.entry:
        return False
    p = previous // unit
    if p == s or s == 0:
        return (s, s, 0) in space.index
    if space.memory == "exact":
        return (s, p, line.crosses) in space.index
    return (s, -1, line.crosses) in space.index and (not last or (p, p, 0) in space.index)


def _targets():
    """Every game at its own target and smaller ones (the exact memory of
    crosses at 2,500 at most: its space is built here)."""
    for rules in GAMES.values():
        for target in (rules.target, 600, 1500, 2000):
            try:
                played = rules.with_target(target)
            except UsageError:
                continue                    # a target at or below the entry
            if not played.crosses or target <= 2500:
                yield played


@pytest.mark.parametrize("rules", list(_targets()), ids=lambda r: f"{r.name}-{r.target}")
def test_the_states_counted_from_the_rules_are_the_spaces(rules):
    """The estimates count player states without building them: the same
    counts as the exact player space (and the states a bank leads to)."""
    space = player_space(rules, "exact")
    states, banked = _exact_counts(rules)
    assert states == space.size
    assert banked == int(np.sum(space.bank_slot >= 0))


def test_estimates_are_quick_at_any_size():
    # Building Pig to 100,000's states took minutes and all the memory.
    started = time.perf_counter()
    for target in (5000, 20_000, 100_000, 1_000_000):
        assert estimated_solve_bytes(get_rules("pig", target)) > target ** 2 * 100
    assert estimated_solve_bytes(get_rules("dix-mille", 1_000_000), "exact") > 1e18
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1e-9", "1", "many"])
def test_a_tolerance_that_would_never_or_at_once_stop_is_refused(value):
    """``solve --tolerance nan`` exited 0 with a table solved to no
    tolerance; every value outside (0, 1) is one line now."""
    assert "--tolerance" in refused("solve", "pig", "--target", "30", "--tolerance", value)


def test_games_none_of_which_ends_give_no_win_rate():
    """Random play to 100,000 in Pig stops every game at the turn cap: the
    win rate was printed as nan%; now one line says why there is none, for
    two and for three seats, and a target they can reach still answers."""
    line = refused("simulate", "pig", "--target", "100000", "--a", "random", "--b", "random",
                   "--games", "1", within=60)
    assert "no game ended within 10,000 turns (1 played)" in line
    refused("simulate", "pig", "--target", "100000", "--players", "3", "--seat", "random",
            "--seat", "random", "--seat", "random", "--games", "1", within=60)
    farkle("simulate", "pig", "--target", "30", "--a", "random", "--b", "random", "--games", "20",
           check=0)

"""The farkle command: its JSON contract and its one-line errors."""

import json

import h5py
import pytest
from conftest import farkle


def test_variants_lists_every_game():
    out = json.loads(farkle("variants", "--json", check=0).stdout)
    assert {row["name"] for row in out} == {
        "dix-mille", "quinze-mille", "dix-mille-free-keep", "quinze-mille-free-keep",
        "cinq-mille", "cinq-mille-exact", "cinq-mille-last1000", "cinq-mille-10000", "pig",
        "farkle", "farkle-acg2017", "farkle-cardgames", "farkle-facebook", "zilch"}
    # Every field of every game, so that a house-rules file can copy a row.
    assert all(row["keep_rule"] in ("any", "all") and "scoring" in row for row in out)


def test_keeps_json_and_text():
    out = json.loads(farkle("keeps", "dix-mille-free-keep", 1, 1, 1, 2, 5, "--json",
                            check=0).stdout)
    assert out[0] == {"dice": [1, 1, 1, 5], "points": 1050}
    assert out[-1] == {"dice": [5], "points": 50}
    # The keep rule "all": the one keep that sets every scoring die aside.
    forced = json.loads(farkle("keeps", "dix-mille", 1, 1, 1, 2, 5, "--json", check=0).stdout)
    assert forced == [{"dice": [1, 1, 1, 5], "points": 1050}]
    assert "every scoring die" in farkle("keeps", "dix-mille", 1, 1, 1, 2, 5, check=0).stdout
    win = json.loads(farkle("keeps", "cinq-mille", 1, 1, 1, 1, 1, "--json", check=0).stdout)
    assert win[0]["win"] is True
    text = farkle("keeps", "dix-mille", 2, 3, 4, 6, 6, check=0).stdout
    assert "zero roll" in text


def test_odds_json():
    out = json.loads(farkle("odds", "quinze-mille", "--json", check=0).stdout)
    assert [row["dice"] for row in out] == [1, 2, 3, 4, 5, 6]
    assert out[5]["zero"] == pytest.approx(5 / 162)
    assert set(out[0]) >= {"dice", "zero", "hot", "best_points"}


@pytest.mark.parametrize("args", [
    ("keeps", "dix-mille", 1, 7),
    ("keeps", "dix-mille", 1, 1, 1, 1, 1, 1),
    ("keeps", "yahtzee", 1),
    ("odds", "cinq-mille", "--target", 700),
    ("odds", "cinq-mille", "--target", 1525),
    ("odds", "pig", "--target", "abc"),
    ("info", "/nonexistent.h5"),
    ("advise", "pig", "--target", 20, "--me", 25, "--opp", 0),
])
def test_bad_input_is_one_line_and_exit_2(args):
    result = farkle(*args, check=2)
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_solve_info_advise_round_trip(tmp_path):
    table = tmp_path / "pig-30.h5"
    solved = json.loads(farkle("solve", "pig", "--target", 30, "--out", table, "--json",
                               check=0).stdout)
    assert set(solved) >= {"game", "target", "first_player_win", "states", "seconds", "table"}
    assert solved["target"] == 30 and solved["table"] == str(table)
    info = json.loads(farkle("info", table, "--json", check=0).stdout)
    assert info["rules"]["name"] == "pig" and info["rules"]["target"] == 30
    assert info["bellman_residual"] < 1e-9
    advice = json.loads(farkle("advise", "pig", "--target", 30, "--table", table,
                               "--me", 0, "--opp", 0, "--json", check=0).stdout)
    # Advice at the game start is the table's first-player win probability.
    assert advice["action"] == "roll"
    assert advice["win"] == pytest.approx(solved["first_player_win"], abs=1e-12)


def test_damaged_and_foreign_tables_are_refused(tmp_path):
    table = tmp_path / "pig-30.h5"
    farkle("solve", "pig", "--target", 30, "--out", table, check=0)
    # Another game's table.
    result = farkle("advise", "pig", "--target", 40, "--table", table, "--me", 0, "--opp", 0,
                    check=2)
    assert "not pig to 40" in result.stderr
    # A damaged file: truncated.
    broken = tmp_path / "broken.h5"
    broken.write_bytes(table.read_bytes()[:1000])
    result = farkle("advise", "pig", "--target", 30, "--table", broken, "--me", 0, "--opp", 0,
                    check=2)
    assert "damaged" in result.stderr
    # A valid HDF5 file that lost its values: damaged for every command
    # (issue 68; tests/test_damaged_tables.py).
    with h5py.File(table, "a") as f:
        del f["W"]
    result = farkle("info", table, check=2)
    assert "damaged" in result.stderr
    result = farkle("advise", "pig", "--target", 30, "--table", table, "--me", 0, "--opp", 0,
                    check=2)
    assert "damaged" in result.stderr


def test_the_solve_progress_bar_never_moves_backwards(tmp_path):
    """Issue 68: dix-mille's bar grew its total sweep by sweep, so its share
    fell back. Seen at a terminal (a pseudo-terminal of 100 columns), the
    shares a solve with falls prints only grow, and the solve finishes."""
    import os
    import re
    import sys

    import pexpect
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "solve", "dix-mille", "--target",
                                           "1000"], timeout=300, encoding="utf-8",
                          dimensions=(24, 100),
                          # Every update drawn, however fast the machine.
                          env={**os.environ, "FARKLE_TABLES": str(tmp_path),
                               "TQDM_MININTERVAL": "0"})
    child.expect(pexpect.EOF)
    shares = [int(p) for p in re.findall(r"(\d+)%\|", child.before)]
    assert len(shares) >= 10 and shares == sorted(shares), shares
    assert "the first player wins" in child.before


def test_expected_sweeps_follow_the_changes():
    """The progress bar's estimate, by hand: changes of 1e-2 then 3e-3 (q =
    0.3) reach the bound 3e-3 * q^k / (1 - q) < 1e-12 at k = 19 more sweeps
    (5.0e-13; at 18, 1.7e-12), 21 in all, capped by max_sweeps; before two
    changes, the first guess."""
    from solver.engine.convergence import FIRST_GUESS_SWEEPS, sweeps_expected
    assert sweeps_expected([], 1e-12, 200) == FIRST_GUESS_SWEEPS
    assert sweeps_expected([1e-2, 3e-3], 1e-12, 200) == 21
    assert sweeps_expected([1e-2, 3e-3], 1e-12, 10) == 10

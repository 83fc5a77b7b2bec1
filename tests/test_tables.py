"""Where tables live and how a missing one is made (issue 12, items 3 to 5),
through the command line as a person uses it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pexpect
import pytest

from solver.model.rules import get_rules
from solver.tables.layout import FORMAT_VERSION
from solver.tables.make import solve_game
from solver.tables.paths import package_dir

# Estimates made as if the solver ran 1e3 keep evaluations a second: every
# table then looks slow to make (minutes), while pig really solves at once.
SLOW = "1e3"


def run(*args, env=None, check=None):
    result = subprocess.run([sys.executable, "-m", "solver.cli", *map(str, args)],
                            capture_output=True, text=True, timeout=600, env=env)
    if check is not None:
        assert result.returncode == check, result.stderr
    return result


@pytest.fixture
def home(tmp_path):
    """A user with no FARKLE_TABLES: tables go to the platform's per-user
    data directory, here under XDG_DATA_HOME."""
    env = {k: v for k, v in os.environ.items() if k != "FARKLE_TABLES"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    return env, tmp_path / "data" / "farkle-solver" / "tables"


def test_a_solved_table_goes_to_the_user_directory_not_the_package(home):
    env, user = home
    before = sorted(p.name for p in package_dir().iterdir())
    out = json.loads(run("solve", "pig", "--target", 30, "--json", env=env, check=0).stdout)
    assert Path(out["table"]) == user / "pig-30.h5"
    assert (user / "pig-30.h5").is_file()
    assert sorted(p.name for p in package_dir().iterdir()) == before
    listed = {row["game"]: row for row in json.loads(run("tables", "--json", env=env,
                                                         check=0).stdout)}
    assert listed["pig-30"]["where"] == "user" and listed["pig-30"]["status"] == "present"
    # The committed tables are still read from the package.
    assert listed["cinq-mille"]["where"] == "package"
    run("tables", "--remove", "pig-30", env=env, check=0)
    assert not (user / "pig-30.h5").exists()


def test_tables_lists_every_game_and_how_to_make_a_missing_one(home):
    env, _ = home
    rows = json.loads(run("tables", "--json", env=env, check=0).stdout)
    names = {row["game"] for row in rows}
    assert {"dix-mille", "quinze-mille", "cinq-mille", "pig"} <= names
    for row in rows:
        if row["status"] == "missing":
            assert row["command"] == f"farkle solve {row['game']}"
            assert row["estimated_seconds"] > 0 and row["estimated_bytes"] > 0


def test_removing_a_committed_table_or_an_unknown_one_is_refused(home):
    env, _ = home
    for name in ("cinq-mille", "no-such-table"):
        result = run("tables", "--remove", name, env=env, check=2)
        assert len(result.stderr.strip().splitlines()) == 1
    assert (package_dir() / "cinq-mille.h5").is_file()


def test_remove_never_reaches_outside_the_users_directory(home, tmp_path):
    """Issue 68: ``--remove ../x.h5`` or an absolute path deleted files
    elsewhere. A name that is a path is refused, and the file stays."""
    env, user = home
    user.mkdir(parents=True)
    outside = tmp_path / "precious.h5"
    outside.write_bytes(b"not yours")
    for name in (str(outside), "../../../precious.h5", "../precious", "..", "sub/precious.h5"):
        result = run("tables", "--remove", name, env=env, check=2)
        assert len(result.stderr.strip().splitlines()) == 1
        assert "not a path" in result.stderr
    assert outside.read_bytes() == b"not yours"


def test_without_a_terminal_a_slow_table_is_named_not_made(home):
    env, user = home
    env["FARKLE_SOLVE_RATE"] = SLOW
    result = run("advise", "pig", "--target", 40, "--me", 10, "--opp", 0, env=env, check=2)
    assert "farkle solve pig --target 40" in result.stderr
    assert "min" in result.stderr and "Traceback" not in result.stderr
    assert not (user / "pig-40.h5").exists()
    # --solve agrees without asking.
    result = run("advise", "pig", "--target", 40, "--me", 10, "--opp", 0, "--solve",
                 env=env, check=0)
    assert "roll" in result.stdout and (user / "pig-40.h5").is_file()


def test_on_a_terminal_farkle_asks_first(home):
    """A person at a terminal is asked, with the estimate; an answer that is
    neither yes nor no asks again; no refuses; yes solves and answers."""
    env, user = home
    env["FARKLE_SOLVE_RATE"] = SLOW
    command = [sys.executable, "-m", "solver.cli", "advise", "pig", "--target", "50",
               "--me", "10", "--opp", "0"]
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=120)
    child.expect(r"pig has no table yet: solve it now\? about \d+ min, under 1 MB \[y/N\] ")
    child.sendline("maybe")
    child.expect("please answer y or n")
    child.expect(r"\[y/N\] ")
    child.sendline("n")
    child.expect("make it with: farkle solve pig --target 50")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and not (user / "pig-50.h5").exists()

    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=120)
    child.expect(r"\[y/N\] ")
    child.sendline("y")
    child.expect("roll")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and (user / "pig-50.h5").is_file()


def test_two_solves_give_the_same_values_bit_for_bit():
    """Reproducible: the blocks of a level run on several threads in any
    order, but no block reads another of its level, so the values cannot
    depend on the order."""
    rules = get_rules("cinq-mille")
    first, second = solve_game(rules), solve_game(rules)
    assert np.array_equal(first.W, second.W)


def test_a_take_over_table_of_the_previous_layout_is_made_again(home):
    """Format 4 keeps take-over values per banked state from its first offer
    (solver.model.states.PlayerSpace.offers); a two-player take-over table of an
    older format reads its rows differently. Named with --table, it is
    refused in one line with the command that makes it again (exit 2);
    as the default table it is treated as missing: named without a
    terminal, asked about on one, and made again with --solve."""
    import h5py
    env, user = home
    env["FARKLE_SOLVE_RATE"] = SLOW
    position = ("--me", 350, "--opp", 350, "--offer", "350,2")
    run("solve", "dix-mille", "--target", 700, env=env, check=0)
    table = user / "dix-mille-700.h5"
    asked = ("advise", "dix-mille", "--target", 700, *position)
    assert "take over" in run(*asked, env=env, check=0).stdout.lower()
    with h5py.File(table, "r+") as f:
        assert "take_codes" in f
        f.attrs["format_version"] = 3

    listed = {row["game"]: row for row in json.loads(run("tables", "--json", env=env,
                                                         check=0).stdout)}
    assert listed["dix-mille-700"]["status"] == "outdated"
    assert listed["dix-mille-700"]["command"] == "farkle solve dix-mille --target 700"

    refused = run(*asked, "--table", table, env=env, check=2)
    assert refused.stderr.count("\n") == 1
    assert "older farkle-solver" in refused.stderr
    assert "make it again with: farkle solve dix-mille --target 700" in refused.stderr

    named = run(*asked, env=env, check=2)
    assert named.stderr.count("\n") == 1 and "Traceback" not in named.stderr
    assert "dix-mille has a table made by an older farkle-solver; make it with: " \
           "farkle solve dix-mille --target 700" in named.stderr

    command = [sys.executable, "-m", "solver.cli", *map(str, asked)]
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=120)
    child.expect(r"dix-mille has a table made by an older farkle-solver: solve it now\? "
                 r"about \d+ min, [^\[]+\[y/N\] ")
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2

    again = run(*asked, "--solve", env=env, check=0)
    assert "take over" in again.stdout.lower()
    with h5py.File(table) as f:
        assert int(f.attrs["format_version"]) == FORMAT_VERSION


def test_estimates_learn_what_solves_take_on_this_machine(tmp_path, monkeypatch):
    """The time estimate is the model's times the median of what this
    machine's solves of the kind took over their estimates; other machines'
    records and a damaged file count for nothing; a finished solve adds its
    own record (issue 68, point 6)."""
    from solver.tables import calibration
    from solver.tables.estimates import estimated_solve_seconds
    from solver.tables.machine import machine
    from solver.tables.make import make_table
    monkeypatch.setenv("FARKLE_TABLES", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("FARKLE_SOLVE_RATE", raising=False)
    rules = get_rules("quinze-mille")
    model = estimated_solve_seconds(rules, calibrated=False)
    assert estimated_solve_seconds(rules) == model                  # no record yet
    kind = calibration.kind_of(rules, None, 2)
    records = [{"machine": machine(), "kind": kind, "estimated": 10, "measured": m}
               for m in (20, 30, 300)]
    records.append({"machine": "another machine", "kind": kind, "estimated": 1,
                    "measured": 100})
    calibration.path().parent.mkdir(parents=True)
    calibration.path().write_text(json.dumps(records))
    assert estimated_solve_seconds(rules) == pytest.approx(3 * model)   # median of 2, 3, 30
    # Another kind of solve here, none recorded: this machine's solves of any kind.
    dix = get_rules("dix-mille")
    assert estimated_solve_seconds(dix) == pytest.approx(
        3 * estimated_solve_seconds(dix, calibrated=False))
    calibration.path().write_text("{not json")
    assert estimated_solve_seconds(rules) == model
    # A solve records what it took (those estimated under 5 s are not kept).
    monkeypatch.setattr(calibration, "LEAST_ESTIMATE", 0.0)
    pig = get_rules("pig", 60)
    make_table(pig)
    [made] = json.loads(calibration.path().read_text())
    assert made["machine"] == machine() and made["kind"] == "plain-exact-2"
    assert made["estimated"] == estimated_solve_seconds(pig, calibrated=False)
    assert 0 < made["measured"] < 60
    assert estimated_solve_seconds(rules) != model           # pig's ratio, not 1
    # A speed given by the person is taken as it is.
    monkeypatch.setenv("FARKLE_SOLVE_RATE", "7e8")
    assert estimated_solve_seconds(rules) == model
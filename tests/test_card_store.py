"""Cards fitted on the user's machine (``farkle card ... --fit``,
``solver.cards.fit.fit_here``): for a house game, another target or a table of
more players, run as a person runs them."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from solver.cards.fit.fit_here import adopted, starts
from solver.cards.record import Card
from solver.cards.seat_value import card_seat_values, card_seat_values_n
from solver.cards.store import card_path
from solver.model.house_rules import load_house_rules
from solver.model.rules import get_rules
from solver.tables.files import read_table
from solver.tables.paths import default_path

# The house game of docs/commands.md (cinq-mille opening at 500, finished on exactly
# the target), to 1,000: its table is a second's solve, its fit a few.
MAISON = 'base = "cinq-mille"\nentry = 500\nexact_target = true\ntarget = 1000\n'


def run(env, *args, check=None):
    result = subprocess.run([sys.executable, "-m", "solver.cli", *map(str, args)], env=env,
                            capture_output=True, text=True, timeout=600)
    if check is not None:
        assert result.returncode == check, result.stderr
    return result


@pytest.fixture(scope="module")
def maison(tmp_path_factory):
    """The house file, its table directory, and ``farkle card --rules
    maison.toml --fit --solve`` run there: (file, env, the run)."""
    folder = tmp_path_factory.mktemp("maison")
    rules_file = folder / "maison.toml"
    rules_file.write_text(MAISON)
    env = {**os.environ, "FARKLE_TABLES": str(folder / "tables")}
    fitted = run(env, "card", "--rules", rules_file, "--fit", "--solve", check=0)
    return rules_file, env, fitted


def test_a_house_game_has_no_card_until_one_is_fitted(tmp_path):
    """Before ``--fit``: one line naming the way to a card, exit status 2."""
    rules_file = tmp_path / "maison.toml"
    rules_file.write_text(MAISON)
    out = run({**os.environ, "FARKLE_TABLES": str(tmp_path / "tables")},
              "card", "--rules", rules_file)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "no strategy card for maison to 1,000 yet" in \
        out.stderr and "--fit" in out.stderr


def test_the_fitted_card_is_printed_with_its_exact_loss(maison, monkeypatch):
    """``--fit`` prints the card (under 15 lines) and keeps it beside the
    table; ``farkle card --rules`` prints it again, its loss the exact
    evaluation of the kept card against the house table (recomputed here),
    its start the best of the stored cards adopted and the table's first
    guess, and no worse than any of them."""
    rules_file, env, fitted = maison
    again = run(env, "card", "--rules", rules_file, check=0)
    assert again.stdout == fitted.stdout
    lines = again.stdout.splitlines()
    assert len(lines) < 15 and lines[0].startswith("maison: strategy card (two players); "
                                                   "gives up ")
    assert "(fitted on this machine from " in again.stdout
    data = json.loads(run(env, "card", "--rules", rules_file, "--json", check=0).stdout)
    rules = load_house_rules(rules_file)
    monkeypatch.setenv("FARKLE_TABLES", env["FARKLE_TABLES"])
    table = read_table(default_path(rules), rules, lazy_take=False)
    card = Card.from_dict(data["card"])
    seats = card_seat_values(table, card)
    assert data["loss"]["seats"] == pytest.approx(list(seats), abs=1e-12)
    assert data["loss"]["loss"] == pytest.approx(0.5 - seats.mean(), abs=1e-12)
    assert f"gives up {100 * data['loss']['loss']:.2f} points" in lines[0]
    assert data["fitted_here"] == str(card_path(rules))
    # threshold:200 at this target (a fifth of it, as for Pig's hold at 20).
    assert set(data["simple"]) == {"threshold:200", "bank once entered",
                                   "always keep everything"}
    start_losses = {label: 0.5 - card_seat_values(table, start).mean()
                    for label, start in starts(table).items()}
    assert data["loss"]["start"] in start_losses
    assert data["loss"]["loss"] <= min(start_losses.values()) + 1e-12


def test_simulate_and_advise_play_the_card_fitted_here(maison):
    """``farkle simulate --rules maison.toml --a card``: the card's simulated
    chance as first player is the kept card's exact first seat within four
    standard errors (40,000 games; the table's first guess, which the card
    replaced, is 5.9 points below it there: 49.02% against 54.93%);
    ``advise --card`` answers as the card."""
    rules_file, env, _ = maison
    data = json.loads(run(env, "card", "--rules", rules_file, "--json", check=0).stdout)
    out = run(env, "simulate", "--rules", rules_file, "--a", "card", "--b", "optimal",
              "--games", "40000", "--seed", "5", "--json", check=0)
    result = json.loads(out.stdout)
    assert abs(result["win_rate_a"] - data["loss"]["seats"][0]) <= 4 * result["stderr"]
    # 300 with two dice: the fitted card banks with two dice from 200.
    assert data["card"]["bank"][1] <= 300
    advice = run(env, "advise", "--rules", rules_file, "--me", "500", "--opp", "600",
                 "--turn", "300", "--dice", "2", "--card", check=0)
    assert "the card: bank" in advice.stdout


def test_an_edited_house_file_refuses_its_old_card(maison, tmp_path):
    """The card is kept with the rules it was fitted for: after the file
    changes (an opening of 350), one line says so, exit status 2; ``--fit``
    fits the new rules' card in its place."""
    import shutil
    _, shared, _ = maison
    env = {**os.environ, "FARKLE_TABLES": str(tmp_path / "tables")}
    shutil.copytree(shared["FARKLE_TABLES"], env["FARKLE_TABLES"])   # the others' stay as made
    edited = tmp_path / "maison.toml"
    edited.write_text(MAISON.replace("entry = 500", "entry = 350"))
    out = run(env, "card", "--rules", edited)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "was fitted for other rules" in out.stderr and "--fit" in out.stderr
    run(env, "solve", "--rules", edited, check=0)
    refitted = run(env, "card", "--rules", edited, "--fit", check=0)
    assert refitted.stdout.startswith("maison: strategy card (two players); gives up ")
    assert "Never bank below 350 before you enter" in refitted.stdout


def test_farkle_tables_lists_the_card_fitted_here_and_removes_it(maison, tmp_path):
    """``farkle tables`` names the card beside the house table with the
    loss ``farkle card`` prints; ``--remove`` of the table keeps the card
    (listed on its own), ``--remove NAME.card.json`` takes it away, and
    ``farkle card --rules`` then says there is none."""
    import shutil
    rules_file, shared, _ = maison
    env = {**os.environ, "FARKLE_TABLES": str(tmp_path / "tables")}
    shutil.copytree(shared["FARKLE_TABLES"], env["FARKLE_TABLES"])
    printed = run(env, "card", "--rules", rules_file, check=0).stdout.splitlines()[0]
    rows = {row["game"]: row for row in json.loads(run(env, "tables", "--json",
                                                       check=0).stdout)}
    kept = tmp_path / "tables" / "maison-1000.card.json"
    assert rows["maison-1000"]["card"]["path"] == str(kept)
    assert f"gives up {100 * rows['maison-1000']['card']['loss']:.2f} points" in printed
    assert "card" not in rows["cinq-mille"]
    listing = run(env, "tables", check=0).stdout
    assert "a strategy card fitted here (gives up " in listing and str(kept) in listing
    run(env, "tables", "--remove", "maison-1000", check=0)
    rows = {row["game"]: row for row in json.loads(run(env, "tables", "--json",
                                                       check=0).stdout)}
    assert rows["maison-1000"]["status"] == "card only"
    assert rows["maison-1000"]["card"]["path"] == str(kept)
    run(env, "tables", "--remove", kept.name, check=0)
    assert not kept.exists()
    out = run(env, "card", "--rules", rules_file)
    assert out.returncode == 2 and "no strategy card for maison to 1,000 yet" in out.stderr


def test_a_sampled_fit_keeps_a_card_measured_exactly(tmp_path, monkeypatch):
    """``farkle card dix-mille --target 1000 --fit --sampled 400`` (a game
    with falls, where an exact evaluation at 10,000 takes many minutes):
    the starts ranked and the moves scored over sampled games, the card it
    ends with measured exactly. Its printed and stored loss is the exact
    evaluation recomputed here, no worse than its start's (measured
    here too). ``--sampled`` is refused without ``--fit`` and for a table
    of three, in one line."""
    env = {**os.environ, "FARKLE_TABLES": str(tmp_path)}
    fitted = run(env, "card", "dix-mille", "--target", "1000", "--fit", "--sampled", "400",
                 "--solve", check=0)
    assert "over 400 sampled games" in fitted.stderr
    assert "measuring the card exactly" in fitted.stderr
    assert fitted.stdout.startswith("dix-mille: strategy card (two players); gives up ")
    assert "1 play of 400 sampled games; kept in " in fitted.stdout
    data = json.loads(run(env, "card", "dix-mille", "--target", "1000", "--json",
                          check=0).stdout)
    rules = get_rules("dix-mille", 1000)
    monkeypatch.setenv("FARKLE_TABLES", str(tmp_path))
    table = read_table(default_path(rules), rules, lazy_take=False)
    seats = card_seat_values(table, Card.from_dict(data["card"]))
    assert data["loss"]["loss"] == pytest.approx(0.5 - seats.mean(), abs=1e-12)
    assert f"gives up {100 * data['loss']['loss']:.2f} points" in fitted.stdout
    start = starts(table)[data["loss"]["start"]]
    assert data["loss"]["loss"] <= 0.5 - card_seat_values(table, start).mean() + 1e-12
    for extra in (("--sampled", "400"), ("--players", "3", "--fit", "--sampled", "400")):
        out = run(env, "card", "pig", "--target", "30", *extra)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert "--sampled" in out.stderr


def test_fit_is_refused_where_the_program_stores_the_card(tmp_path):
    env = {**os.environ, "FARKLE_TABLES": str(tmp_path)}
    out = run(env, "card", "pig", "--fit")
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "has a stored card for 2 players" in out.stderr
    out = run(env, "card", "pig", "--rounds", "2")
    assert out.returncode == 2 and "go with --fit" in out.stderr


def test_at_a_terminal_the_fit_shows_its_progress_and_ctrl_c_keeps_its_best_card(tmp_path):
    """At a terminal ``--fit`` tells what a round will take and each
    start's loss, then a bar of the round's moves with the best loss so far; Ctrl-C stops it with exit
    status 130 and a line saying where the best card so far is, and that
    card is printed afterwards (the file is written whole, by a rename)."""
    import io

    import pexpect
    rules_file = tmp_path / "maison.toml"
    rules_file.write_text(MAISON.replace("1000", "2500"))
    env = {**os.environ, "FARKLE_TABLES": str(tmp_path / "tables")}
    run(env, "solve", "--rules", rules_file, check=0)
    # The child gets SIGINT's default, as at a person's terminal, even
    # where this test runs in the background (test_play.spawn).
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "card", "--rules",
                                           str(rules_file), "--fit"],
                          env=env, encoding="utf-8", timeout=300, dimensions=(24, 120),
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    child.logfile_read = io.StringIO()
    child.expect(r"each card takes about [\d.]+ s to measure; a round of the search "
                 r"measures up to [\d,]+ cards \(at most [\d.]+ (s|min)\)")
    child.expect(r"start from cinq-mille-exact's card: gives up \d+\.\d{3} points")
    child.expect(r"round 1: +\d+%.*gives up \d+\.\d{3} points")
    kept = tmp_path / "tables" / "maison-2500.card.json"
    assert kept.exists()
    child.sendintr()
    child.expect(f"farkle: interrupted; the best card so far is kept in {kept}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, child.logfile_read.getvalue()
    after = run(env, "card", "--rules", rules_file, check=0)
    assert after.stdout.startswith("maison: strategy card (two players); gives up ")


def test_a_card_fitted_for_a_table_of_three(tmp_path, monkeypatch):
    """``farkle card pig --target 30 --players 3 --fit``: the card fitted
    against the three-player table (solved on the spot) is printed for
    three, its loss one third less its mean chance there, recomputed here;
    the bots of ``farkle play --players 3`` hold it (``card_for``)."""
    from solver.cards.store import card_for
    env = {**os.environ, "FARKLE_TABLES": str(tmp_path)}
    fitted = run(env, "card", "pig", "--target", "30", "--players", "3", "--fit", "--solve",
                 check=0)
    assert fitted.stdout.startswith("pig: strategy card (3 players; the other player is the "
                                    "leader); gives up ")
    data = json.loads(run(env, "card", "pig", "--target", "30", "--players", "3", "--json",
                          check=0).stdout)
    assert data["fitted_for"] == 3 and data["loss_with_players"] == data["loss"]
    rules = get_rules("pig", 30)
    monkeypatch.setenv("FARKLE_TABLES", str(tmp_path))
    table = read_table(default_path(rules, players=3), rules, lazy_take=False,
                       expect_players=3)
    card = Card.from_dict(data["card"])
    seats = card_seat_values_n(table, card)
    assert data["loss"]["loss"] == pytest.approx(1 / 3 - np.mean(seats), abs=1e-12)
    assert card_for(rules, 3)[0] == card
    # The two-player table at 30 has no card of its own: Pig's stored card,
    # fitted to 100, with a note.
    two = run(env, "card", "pig", "--target", "30", check=0)
    assert "(fitted and measured to 100; here the target is 30)" in two.stdout


def test_a_foreign_card_is_adopted_without_the_rules_its_game_lacks():
    """A start from another game's card keeps what the house game's search
    moves, sets the rest back (dix-mille-free-keep's take-over fields in
    cinq-mille, which has none) and moves its entry with the game's
    (cinq-mille-exact's no bank below 750 before entering, in a game that
    opens at 500: below 500)."""
    from solver.cards.store import stored_cards
    rules = get_rules("cinq-mille")
    dix = get_rules("dix-mille-free-keep")
    foreign = Card.from_dict(stored_cards()["dix-mille-free-keep"]["card"])
    card = adopted(foreign, rules, dix)
    assert card.game == "cinq-mille" and foreign.take_at and card.take_at == 0
    assert card.bank == foreign.bank and card.left_worth == foreign.left_worth
    assert foreign.open_at == dix.entry == 350 and card.open_at == rules.entry == 750
    exact = get_rules("cinq-mille-exact")
    opening_at_500 = dataclasses.replace(exact, name="maison", entry=500)
    card = adopted(Card.from_dict(stored_cards()["cinq-mille-exact"]["card"]), opening_at_500,
                   exact)
    assert card.open_at == 500


def test_a_fit_measures_each_card_once(tmp_path, monkeypatch):
    """The exact fit of Pig to 30 (a table of a second): its starts, then
    the cards of its search, then the simple rules, each evaluated once;
    the start it chose is not measured again, yet counts among the
    evaluations it reports."""
    import solver.cards.seat_value as seat_value
    from solver.cards.fit.fit_here import fit_card
    from solver.tables.make import solve_game
    monkeypatch.setenv("FARKLE_TABLES", str(tmp_path))
    table = solve_game(get_rules("pig", 30))
    measured = []
    evaluate = seat_value.card_seat_values

    def counted(solution, card, *args, **kwargs):
        measured.append(card)
        return evaluate(solution, card, *args, **kwargs)
    monkeypatch.setattr(seat_value, "card_seat_values", counted)
    begun_from = len(starts(table))      # after the fit, its own card is one more
    entry = fit_card(table, 1, "a test")
    assert len(measured) == begun_from + entry["evaluations"] - 1 + len(entry["simple"])
    assert entry["evaluations"] > 1 and begun_from > 1

"""The referee (solver/adapters/referee.py, exact.py): what a policy gives
up against the table, seat by seat. The exact evaluation gives the table
its own chances back, agrees with the compiled simulator of ``farkle
simulate`` (code of its own) within 4 standard errors, and checks itself
by the regret decomposition; the simulated estimate agrees with the exact
one; a policy that is not deterministic is simulated; the command's JSON
has the issue's fields, and bad input ends in one line and status 2."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import farkle

from solver.adapters.exact import NotExact, decision_points, why_not_exact
from solver.adapters.policies import from_callable
from solver.adapters.referee import player_of, referee
from solver.advice.advisor import Advisor
from solver.model.errors import UsageError
from solver.model.rules import get_rules
from solver.tables.load import ALWAYS_SOLVE, load_table

PIG_50 = get_rules("pig", 50)


def advisor(rules=PIG_50, players: int = 2) -> Advisor:
    return Advisor(load_table(rules, players, first_use=ALWAYS_SOLVE), compiled=players == 2)


def hold_at(limit):
    """A deterministic callable: bank from ``limit`` on, or when the bank
    reaches the target; keep the most points."""
    def policy(position):
        if position.phase == "bank":
            return "bank" if position.turn_total >= limit else "roll"
        return position.options[0]
    return policy


def test_the_table_gives_itself_nothing_exactly():
    for players, rules in ((2, PIG_50), (3, get_rules("pig", 20))):
        report = referee(advisor(rules, players), "optimal")
        assert report.exact
        for seat in report.seats:
            assert abs(seat.gives_up_pp) < 1e-9 and seat.stderr is None
        assert report.costliest == []


def test_exact_agrees_with_the_compiled_simulator():
    """threshold:20 against the table in Pig to 50: the referee's exact
    chances against ``farkle simulate``'s 40,000 games a seat (its own
    compiled loop), within 4 of its standard errors."""
    report = referee(advisor(), "threshold:20")
    assert report.exact
    first, second = (seat.chance for seat in report.seats)
    for a, b, expected in (("threshold:20", "optimal", first),
                           ("optimal", "threshold:20", 1.0 - second)):
        done = farkle("simulate", "pig", "--target", 50, "--a", a, "--b", b, "--games", 40_000,
                      "--seed", 3, "--json", "--solve", check=0)
        result = json.loads(done.stdout)
        assert abs(result["win_rate_a"] - expected) < 4 * result["stderr"], (result, expected)


def test_exact_agrees_with_the_compiled_simulator_where_keeps_are_chosen():
    """cinq-mille to 800 (five dice, the entry of 750): threshold:300
    keeps the most points, where the table often keeps fewer; exact
    against 40,000 compiled games a seat, and most of the loss is in keeps."""
    rules = get_rules("cinq-mille", 800)
    report = referee(advisor(rules), "threshold:300", top=10 ** 6)
    assert report.exact and max(abs(x) for x in report.check) < 1e-12
    keeps = sum(c.cost_pp for c in report.costliest if c.decision == "keep")
    assert 0.5 * report.gives_up_pp < keeps < report.gives_up_pp
    first, second = (seat.chance for seat in report.seats)
    for a, b, expected in (("threshold:300", "optimal", first),
                           ("optimal", "threshold:300", 1.0 - second)):
        done = farkle("simulate", "cinq-mille", "--target", 800, "--a", a, "--b", b, "--games",
                      40_000, "--seed", 3, "--json", "--solve", check=0)
        result = json.loads(done.stdout)
        assert abs(result["win_rate_a"] - expected) < 4 * result["stderr"], (result, expected)


def test_exact_agrees_with_the_cards_own_exact_evaluation():
    """The strategy card, refereed through the bot of ``farkle play``,
    against solver/cards/seat_value.py's compiled evaluation of the same
    card (its own equations, levels and kernels): equal to 1e-12."""
    from solver.cards.seat_value import card_seat_values
    from solver.cards.store import card_for
    report = referee(advisor(), "card")
    assert report.exact
    theirs = card_seat_values(advisor().solution, card_for(PIG_50, 2)[0])
    assert np.allclose([seat.chance for seat in report.seats], theirs, rtol=0, atol=1e-12)
    assert report.gives_up_pp > 0.1


def test_the_regret_decomposition_checks_the_exact_evaluation():
    """Per seat, W - U equals the sum of reach times regret (the
    performance difference lemma) to rounding, and the costliest list
    holds the whole loss when it is long enough."""
    report = referee(advisor(), from_callable(hold_at(15)), top=10 ** 6)
    assert report.exact and max(abs(x) for x in report.check) < 1e-12
    assert report.gives_up_pp > 1
    listed = sum(costly.cost_pp for costly in report.costliest)
    assert listed == pytest.approx(report.gives_up_pp, abs=1e-9)


def test_simulation_agrees_with_the_exact_value():
    exact = referee(advisor(), "threshold:20")
    simulated = referee(advisor(), "threshold:20", games=300, seed=5, exact_only=False)
    assert not simulated.exact
    for e, s in zip(exact.seats, simulated.seats):
        assert s.stderr > 0
        assert abs(s.gives_up_pp - e.gives_up_pp) < 4 * s.stderr
        # The regret estimate's error is a fraction of the win rate's.
        assert s.stderr < 0.3 * 100 * s.win_rate_stderr


def test_a_policy_that_is_not_deterministic_is_simulated():
    rng = np.random.default_rng(0)

    def coin(position):
        return position.options[int(rng.integers(len(position.options)))]
    report = referee(advisor(), from_callable(coin), games=20)
    assert not report.exact and "not deterministic" in report.note
    with pytest.raises(UsageError, match="not deterministic"):
        referee(advisor(), from_callable(coin), exact_only=True)
    assert not referee(advisor(), "random", games=20).exact


def test_where_the_exact_evaluation_stops():
    assert why_not_exact(get_rules("dix-mille")) == \
        "crosses make a player's state more than a score"
    assert why_not_exact(get_rules("farkle")) is not None
    assert why_not_exact(get_rules("cinq-mille")) is None
    # 2 seats x 100 opponent scores x (1 + ... + 100) turn totals, one die.
    assert decision_points(get_rules("pig"), 2) == 2 * 100 * 5050
    report = referee(advisor(), "threshold:20", games=10, limit=1000)
    assert not report.exact and "more than 1,000" in report.note


def test_an_illegal_answer_is_refused():
    with pytest.raises((UsageError, NotExact), match="legal"):
        referee(advisor(), from_callable(lambda position: "take"))


def test_openspiels_players_are_refereed():
    pytest.importorskip("pyspiel")
    from solver.adapters import openspiel_agents
    rules = get_rules("pig", 20)
    learners, played = openspiel_agents.train_q_learning(rules, 2, 0, seed=1, episodes=300)
    assert played == 300
    report = referee(advisor(rules), openspiel_agents.greedy(learners, rules, 2))
    assert report.exact and max(abs(x) for x in report.check) < 1e-12
    assert all(seat.gives_up_pp >= -1e-9 for seat in report.seats)
    mcts = referee(advisor(rules), openspiel_agents.mcts(rules, 2, simulations=5, seed=1),
                   games=3, seed=1)
    assert not mcts.exact and all(seat.stderr is not None for seat in mcts.seats)
    # OpenSpiel's C++ random bot plays one player id: one bot per seat.
    assert not referee(advisor(rules), player_of("openspiel:random", rules, 2), games=3).exact
    # An RL agent itself (its evaluation step breaks ties at random) and a
    # policy object go through OpenSpiel's own calls.
    from open_spiel.python.policy import UniformRandomPolicy

    from solver.adapters.policies import load_openspiel
    for agent in (learners[0], UniformRandomPolicy(load_openspiel(rules, 2))):
        report = referee(advisor(rules), agent, games=5, exact_only=False)
        assert len(report.seats) == 2 and all(s.gives_up_pp >= 0 for s in report.seats)


def test_the_command_json(tmp_path):
    done = farkle("referee", "pig", "--target", 50, "--policy", "threshold:20", "--json",
                  "--solve", check=0)
    report = json.loads(done.stdout)
    assert (report["game"], report["target"], report["players"], report["exact"]) == \
        ("pig", 50, 2, True)
    assert [set(seat) for seat in report["seats"]] == [
        {"seat", "chance", "optimal_chance", "gives_up_pp", "stderr"}] * 2
    assert report["seats"][0]["stderr"] is None and len(report["costliest"]) == 10
    first = report["costliest"][0]
    assert first["cost_pp"] == pytest.approx(first["reach"] * first["regret_pp"])


def test_the_command_takes_a_python_callable(tmp_path):
    (tmp_path / "my_policy.py").write_text(textwrap.dedent("""
        def hold_at_20(position):
            if position.phase == "bank":
                return "bank" if position.turn_total >= 20 else "roll"
            return position.options[0]

        def illegal(position):
            return "take"
    """))
    run = [sys.executable, "-m", "solver.cli", "referee", "pig", "--target", "50", "--json",
           "--solve", "--policy"]
    done = subprocess.run(run + ["my_policy:hold_at_20"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    mine = json.loads(done.stdout)
    ours = json.loads(farkle("referee", "pig", "--target", 50, "--policy", "threshold:20",
                             "--json", "--solve", check=0).stdout)
    assert [s["chance"] for s in mine["seats"]] == [s["chance"] for s in ours["seats"]]
    bad = subprocess.run(run + ["my_policy:illegal"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300, check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1 and "legal" in bad.stderr


@pytest.mark.parametrize("args, message", [
    (["pig", "--policy", "nosuch:thing"], "cannot import 'nosuch'"),
    (["pig", "--policy", "optimal", "--games", "1"], "--games must be at least 2"),
    (["dix-mille", "--target", "800", "--policy", "optimal", "--exact"], "crosses"),
    (["pig", "--policy", "openspiel:alpha"], "openspiel policies are"),
    (["pig", "--policy", "optimal", "--players", "7"], "--players must be 2 to 6"),
    (["pig"], "--policy"),
])
def test_the_command_refuses_bad_input(args, message):
    done = farkle("referee", *args)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("farkle: ") and message in done.stderr
    assert done.stderr.count("\n") == 1

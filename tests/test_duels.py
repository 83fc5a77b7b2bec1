"""The model of independent duels (solver.advice.duels, solver.advice.lookahead): advice
for N players where the exact table is out of reach, and what it gives up
where both exist."""

import json
import subprocess
import sys

import numpy as np
import pytest
from test_players import quinze_take_over

from solver.advice.advisor import Advisor
from solver.advice.choose import advisor_for
from solver.advice.duels import DuelsAdvisor, finish_first, model_values
from solver.advice.lookahead import step
from solver.cards.seat_value import duel_seat_values, model_seat_values
from solver.engine.n_player import solve_players
from solver.engine.solution_n import MultiSolution
from solver.engine.turn_kernel_n import MultiValues
from solver.engine.two_player import solve
from solver.model.rules import get_rules
from solver.model.states import Line, player_space


@pytest.fixture(scope="module", params=["quinze-take-over", "dix-mille-crosses"])
def game(request):
    """Small games where offers (and, in dix-mille, falls) are in play: the
    two-player table and the exact three-player one on the same states."""
    rules = quinze_take_over(1500) if request.param == "quinze-take-over" \
        else get_rules("dix-mille", 500)
    space = player_space(rules, "exact")
    return solve(rules, space=space), solve_players(rules, 3, space=space)


def positions(rules, space, count, seed):
    """Random questions of every kind at random player states: (me,
    opponents, turn, dice, roll, offer); score-sheet lines where the game
    has crosses."""
    rng = np.random.default_rng(seed)
    unit = rules.unit

    def line(state):
        if not rules.crosses:
            return int(space.score[state]) * unit
        previous = int(space.previous[state])
        return Line(int(space.score[state]) * unit, int(space.crosses[state]),
                    previous * unit if previous >= 0 else None)
    out = []
    while len(out) < count:
        me, *opps = (line(int(p)) for p in rng.integers(space.size, size=3))
        score = me.score if rules.crosses else me
        banker = opps[-1].score if rules.crosses else opps[-1]
        turn = int(rng.integers(0, (rules.target - score) // unit)) * unit
        dice = int(rng.integers(1, rules.dice + 1)) if turn else rules.dice
        roll = [int(d) for d in rng.integers(1, 7, size=dice)]
        offered = int(rng.integers(1, banker // unit + 1)) * unit if banker else None
        if rules.crosses and opps[-1].previous is not None:
            offered = banker - opps[-1].previous    # the bank that left them there
        offer = (offered, int(rng.integers(1, rules.dice)))
        out.append((me, opps, turn, dice, roll, offer))
    return out


def answers(advisor, question):
    """Every choice's chance of the three questions at one position (one
    component: the mover's), or None where the position is refused."""
    me, opp, turn, dice, roll, (offer, offer_dice) = question
    out = []
    for ask in (lambda: advisor.bank_or_roll(me, opp, turn, dice),
                lambda: advisor.keep(me, opp, turn, dice, roll),
                lambda: advisor.take_or_fresh(me, opp, offer, offer_dice)):
        try:
            advice = ask()
        except Exception:
            out.append(None)
            continue
        out.append({(c.action, tuple(c.keep or ())): c.win for c in advice.choices})
    return out


def test_the_law_against_its_integral_and_a_simulation():
    """finish_first (Gauss-Hermite) must equal the chance of finishing first
    computed two other ways: the integral by scipy's adaptive quadrature,
    and a race of normal times drawn at random (mean gaps from the duels,
    1e6 races: a standard error under 5e-4)."""
    from scipy import integrate, stats
    chances = [0.3, 0.65, 0.9]
    gaps = [np.sqrt(2) * stats.norm.ppf(q) for q in chances]
    integral = integrate.quad(lambda z: stats.norm.pdf(z) * np.prod(
        [stats.norm.cdf(g - z) for g in gaps]), -12, 12, epsabs=1e-13)[0]
    assert abs(finish_first(chances) - integral) < 1e-12
    rng = np.random.default_rng(5)
    me = rng.standard_normal(10 ** 6)
    others = [g + rng.standard_normal(10 ** 6) for g in gaps]   # later by the gap
    first = np.mean(np.all([me < o for o in others], axis=0))
    assert abs(first - finish_first(chances)) < 2e-3
    # Each duel's own chance is the law's pairwise margin: q(k, j) = P(T_k < T_j).
    assert np.mean(me < others[0]) == pytest.approx(chances[0], abs=2e-3)


def test_the_normal_functions_against_scipy():
    """solver.advice.normal's compiled Phi and Phi^-1 (the law's, without
    scipy's import) must equal scipy.special's: Phi to 1e-12 relative down
    to 1e-300, Phi^-1 to 1e-13 from p = 1e-300 to 1 - 1e-16."""
    from scipy import special

    from solver.advice.normal import ndtr, ndtri
    x = np.linspace(-37, 9, 100001)
    assert np.max(np.abs(ndtr(x) - special.ndtr(x)) / special.ndtr(x)) < 1e-12
    p = np.r_[np.logspace(-300, -1, 3000), np.linspace(0.01, 0.99, 5001),
              1 - np.logspace(-16, -1, 2000)]
    assert np.max(np.abs(ndtri(p) - special.ndtri(p))) < 1e-13
    assert list(ndtri(np.array([0.0, 0.5, 1.0]))) == [-np.inf, 0.0, np.inf]


def test_the_law_with_one_opponent_and_from_an_even_start():
    """With one opponent the law is the duel itself, exactly (the model is
    then the two-player table); from an even start each of N players gets
    1/N; a duel lost for certain gives 0, one won for certain drops out."""
    q = np.linspace(0, 1, 11)
    assert np.array_equal(finish_first([q]), q)
    for players in range(2, 7):
        assert finish_first([0.5] * (players - 1)) == pytest.approx(1 / players, abs=1e-12)
    assert finish_first([0.0, 0.7]) == 0.0
    assert finish_first([1.0, 0.7]) == pytest.approx(0.7, abs=1e-12)


def test_the_look_ahead_step_leaves_an_exact_table_as_it_is(game):
    """solver.advice.lookahead.step is one step of the N-player game's equations:
    applied to the exact three-player table's own values (a pure
    equilibrium here) it must give them back, every turn start and every
    take-over row, to 1e-10."""
    _, three = game
    assert not three.mixed
    exact = MultiValues(np.asarray(three.V), np.asarray(three.take_values))
    stepped = step(three.rules, three.space, 3, exact)
    assert np.max(np.abs(stepped.V - exact.V)) < 1e-10
    assert np.max(np.abs(stepped.take_values - exact.take_values)) < 1e-10


def test_with_two_players_the_model_is_the_two_player_table(game):
    """With one opponent the law is the duel itself and nothing is looked
    ahead: the model's advice must be the exact two-player advice."""
    two, _ = game
    exact, model = Advisor(two), DuelsAdvisor(two, 2)
    compared = 0
    for question in positions(two.rules, two.space, 60, seed=1):
        question = (question[0], question[1][-1], *question[2:])
        for a, b in zip(answers(exact, question), answers(model, question)):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.keys() == b.keys()
                assert max(abs(a[k] - b[k]) for k in a) < 1e-14
                compared += 1
    assert compared > 60


def test_the_advice_is_the_turn_dp_over_the_models_values(game):
    """Two constructions of the same model must agree: the advisor prices
    each way a turn ends from the two-player table as it goes; the other
    builds the model's value of every three-player turn start first
    (model_values) and asks the exact N-player replay over those values."""
    two, three = game
    values = model_values(two, 3)
    over_values = Advisor(MultiSolution(three.rules, three.space, 3, values.V,
                                        values.take_values))
    model = DuelsAdvisor(two, 3)
    compared = offers = 0
    for question in positions(two.rules, two.space, 80, seed=2):
        for kind, (a, b) in enumerate(zip(answers(over_values, question),
                                          answers(model, question))):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.keys() == b.keys()
                assert max(abs(a[k] - b[k]) for k in a) < 1e-12
                compared += 1
                offers += kind == 2
    assert compared > 80 and offers > 5


def test_the_models_values_evaluated_as_a_policy(game):
    """solver.cards.seat_value's MODEL mode plays the turn DP over given values:
    given the exact table's own values it must give the table's seat values
    (where no decision mixes); given the model's, the model gives up
    something in every seat, less than the two-player policy against the
    leader (measured: paper/players.json)."""
    two, three = game
    assert not three.mixed
    own = model_seat_values(three, two, values=MultiValues(np.asarray(three.V),
                                                           np.asarray(three.take_values)))
    assert np.max(np.abs(own - three.seat_wins)) < 1e-11
    loss = three.seat_wins - model_seat_values(three, two)
    duel_loss = three.seat_wins - duel_seat_values(three, two)
    assert np.all(loss > 0) and np.all(loss < duel_loss)


def test_advise_beyond_the_exact_tables_answers_from_the_model():
    """`farkle advise pig` with four --opp: no exact 5-player table, so the
    committed two-player table answers by the model, and says so."""
    opps = [10, 40, 30, 60]
    command = [sys.executable, "-m", "solver.cli", "advise", "pig",
               "--me", "50", "--turn", "20", "--dice", "1", "--json"]
    for o in opps:
        command += ["--opp", str(o)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["model"] == "duels" and "independent duels" in answer["note"]
    assert all("wins" not in c for c in answer["choices"])
    model = DuelsAdvisor(advisor_for(get_rules("pig")).solution, 5)
    expected = model.bank_or_roll(50, opps, 20, 1)
    assert [c["action"] for c in answer["choices"]] == [c.action for c in expected.choices]
    assert [c["win"] for c in answer["choices"]] == pytest.approx(
        [c.win for c in expected.choices], abs=1e-15)
    # Four opponents: finishing before all four is less likely than before
    # any one (the two-player table against each opponent alone).
    duels = [advisor_for(get_rules("pig")).bank_or_roll(50, o, 20, 1).best.win for o in opps]
    assert answer["win"] < min(duels)

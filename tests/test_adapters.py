"""OpenSpiel, PettingZoo and Gymnasium (docs/adapters.md): every game
passes each library's own conformance test, our Pig plays move for move
as OpenSpiel's own ``pig`` (code no one here wrote), their state
translates into ours, and our optimal policy wins through their engine at
the rates our tables predict (a few thousand games here; 200,000 in
scripts/check_openspiel_pig.py)."""

import itertools
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env
from open_spiel.python.algorithms.get_all_states import get_all_states
from pettingzoo.test import api_test

from solver.adapters import encoding, engine
from solver.adapters import openspiel_game as og
from solver.adapters.gym_env import FarkleEnv
from solver.adapters.openspiel_pig import OptimalPig, pig_parameters, play, position
from solver.adapters.pettingzoo_env import env as aec_env
from solver.model.errors import UsageError
from solver.model.rules import GAMES, get_rules
from solver.play.game import OVER, PlayerLine, Table
from solver.tables.load import ALWAYS_SOLVE, load_table

# Small targets: a random game ends in a few hundred moves.
SMALL = {"pig": 30, "cinq-mille": 1000, "cinq-mille-exact": 1000, "cinq-mille-last1000": 1500,
         "cinq-mille-10000": 1000, "dix-mille": 800, "dix-mille-free-keep": 800,
         "quinze-mille": 1000, "quinze-mille-free-keep": 1000, "farkle": 1000,
         "farkle-acg2017": 1000, "farkle-cardgames": 1000, "farkle-facebook": 1000,
         "zilch": 1000}
HOUSE = 'base = "cinq-mille"\nname = "house"\ntarget = 1000\nentry = 300\n'


def test_every_game_is_in_the_list():
    assert set(SMALL) == set(GAMES)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_game_passes_openspiels_random_simulation_test(name):
    players = 3 if name in ("cinq-mille", "farkle", "zilch") else 2
    game = og.load(name, target=SMALL[name], players=players, horizon=400)
    rules = game.rules
    # 4 actions and every multiset of 1 to D dice: C(D + 6, 6) - 1 of them.
    assert game.num_distinct_actions() == 4 + len(list(itertools.chain.from_iterable(
        itertools.combinations_with_replacement(range(6), k) for k in range(1, rules.dice + 1))))
    assert game.observation_tensor_size() == encoding.observation_size(rules, players)
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_a_house_rules_file_loads_by_its_path(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text(HOUSE)
    game = pyspiel.load_game(og.game_string(rules_file=path, players=2))
    assert (game.rules.entry, game.rules.target) == (300, 1000)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_chance_outcomes_are_the_dice_law():
    """Each sorted roll of 3 dice has its count among the 6^3 ordered
    rolls, over 216."""
    game = og.load("cinq-mille", target=1000)
    state = game.new_initial_state()
    state.table.state.in_hand = 3
    counts = Counter(tuple(sorted(r)) for r in itertools.product(range(1, 7), repeat=3))
    outcomes = state.chance_outcomes()
    assert len(outcomes) == len(counts) == 56
    for action, prob in outcomes:
        dice = engine.roll_outcomes(3)[action][0]
        assert Fraction(prob).limit_denominator(216) == Fraction(counts[dice], 216)


def test_every_state_to_a_depth_is_consistent():
    """OpenSpiel's get_all_states of 3-player Pig to depth 6 (its moves,
    chance's included: 4,757 states) and of dix-mille to depth 1 (252 rolls
    of 5 dice at a chance node): chance laws sum to 1, returns are zero-sum, legal
    actions are in range and two or more, the observer's tensor is the
    state's, and the information state is the observation."""
    for game, depth in ((og.load("pig", target=20, players=3), 6),
                        (og.load("dix-mille", target=800), 1)):
        states = get_all_states(game, depth_limit=depth, include_terminals=True,
                                include_chance_states=True, to_string=lambda s: s.history_str())
        assert len(states) > 200
        observer = game.make_py_observer()
        for state in states.values():
            if state.is_chance_node():
                assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1, abs=1e-12)
                continue
            if state.is_terminal():
                assert sum(state.returns()) == pytest.approx(0, abs=1e-12)
                continue
            player = state.current_player()
            assert all(0 <= a < game.num_distinct_actions() for a in state.legal_actions())
            assert len(state.legal_actions()) >= 2
            observer.set_from(state, player)
            assert np.array_equal(observer.tensor, state.observation_tensor(player))
            assert state.information_state_tensor(player) == state.observation_tensor(player)


def test_returns_are_openspiel_pigs_and_shared_wins_split_them():
    rules = get_rules("farkle", 1000)
    game = engine.new_game(rules, 3)
    game.state = Table([PlayerLine(1100), PlayerLine(1200), PlayerLine(1200)], 6,
                       phase=OVER, winner=None, holders=(1, 2))
    # (N w - 1)/(N - 1): a half share of 3 players is 0.25, a loss -0.5.
    assert engine.returns(game) == [-0.5, 0.25, 0.25]
    game.state.winner, game.state.holders = 0, ()
    assert engine.returns(game) == [1.0, -0.5, -0.5]


def test_pig_observation_layout():
    game = og.load("pig", target=100)
    state = game.new_initial_state()
    state.table.state = Table([PlayerLine(12), PlayerLine(40)], 1, mover=1, phase="bank",
                              turn_total=8)
    tensor = np.array(state.observation_tensor(0))
    assert len(tensor) == 5 + 2 + 2 * 101 + 101 + 2 + 6 == 318
    sections = dict(encoding.observation_layout(game.rules, 2))
    assert list(sections) == ["phase", "mover", "scores", "turn_total", "dice", "roll"]
    assert tensor[3] == 1                               # phase bank
    assert tensor[5 + 1] == 1                           # the mover one seat after player 0
    assert tensor[7 + 12] == tensor[7 + 101 + 40] == 1  # scores, player 0's first
    assert tensor[209 + 8] == 1 and tensor[310 + 1] == 1
    assert tensor.sum() == 6
    seen_by_1 = np.array(state.observation_tensor(1))
    assert seen_by_1[5] == 1 and seen_by_1[7 + 40] == seen_by_1[7 + 101 + 12] == 1


def _play_both(seed: int, players: int, winscore: int):
    """One random game played move for move in our python_farkle(pig) and
    OpenSpiel's pig, the same dice to both; at every decision their
    state, translated, must be ours. Returns both returns."""
    rng = np.random.default_rng(seed)
    rules = get_rules("pig", winscore)
    ours = og.load("pig", target=winscore, players=players).new_initial_state()
    theirs = pyspiel.load_game("pig", pig_parameters(rules, players)).new_initial_state()
    while not theirs.is_terminal():
        if theirs.is_chance_node():
            face = int(rng.integers(6))
            theirs.apply_action(face)
            assert ours.is_chance_node()
            ours.apply_action(face)          # our outcome i is face i + 1, as theirs
            continue
        mover, scores, total = position(theirs, players, winscore)
        if total == 0:                       # their turn start: ours rolls at once
            theirs.apply_action(0)
            continue
        if ours.is_terminal():               # we won at the roll; they may only stop
            assert theirs.legal_actions() == [1]
            theirs.apply_action(1)
            continue
        table = ours.table.state
        assert mover == ours.current_player() == table.mover
        assert scores == tuple(table.lines[(mover + k) % players].score for k in range(players))
        assert total == table.turn_total
        action = int(rng.random() < 0.25)    # stop, our bank, a quarter of the time
        theirs.apply_action(action)
        ours.apply_action(action)
    return ours.returns(), theirs.returns()


@pytest.mark.parametrize("players", [2, 3])
def test_our_pig_plays_move_for_move_as_openspiels(players):
    for seed in range(40):
        ours, theirs = _play_both(seed, players, 40)
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_pig_parameters_match_and_refuse_other_games():
    assert pig_parameters(get_rules("pig", 50), 3) == {
        "players": 3, "winscore": 50, "diceoutcomes": 6, "piglet": False, "horizon": 10 ** 9}
    with pytest.raises(UsageError, match="dice is 5, not 1"):
        pig_parameters(get_rules("cinq-mille"), 2)


def test_our_policy_reads_their_state_as_our_table_does():
    """At their states, our policy banks where our table's simulator
    policy banks (the committed two-player table)."""
    from solver.sim.policies import optimal_turn
    solution = load_table(get_rules("pig"), 2)
    policy = OptimalPig(solution)
    space = solution.space
    for me, opp, total in [(0, 0, 20), (0, 0, 21), (50, 90, 30), (90, 50, 8), (97, 0, 2)]:
        bank = optimal_turn(solution, space.index_of_score(me), space.index_of_score(opp)).bank
        assert policy.action((me, opp), total) == int(bank[total, 1])
    assert policy.action((99, 0), 1) == 1 and policy.action((0, 0), 0) == 0


@pytest.mark.parametrize("players, target, games", [(2, 100, 3000), (3, 30, 3000)])
def test_our_optimal_pig_wins_through_openspiel_as_our_tables_say(players, target, games):
    """Every seat's win rate within 4 standard errors of our table's
    chance, sqrt(p (1 - p) / games) for this many games."""
    solution = load_table(get_rules("pig", target), players, first_use=ALWAYS_SOLVE)
    result = play(solution, games, seed=7)
    assert sum(result["wins"]) == games and result["unfinished"] == 0
    assert max(abs(z) for z in result["z"]) < 4, result


# --------------------------------------------------------------- PettingZoo

@pytest.mark.parametrize("options", [
    {"game": "pig"}, {"game": "cinq-mille", "players": 3, "target": 1000},
    {"game": "farkle", "target": 1000}, {"game": "dix-mille", "target": 800}])
def test_pettingzoo_api_test(options):
    api_test(aec_env(**options), num_cycles=200)


def test_pettingzoo_game_to_the_end():
    """Rewards 0 until the end, then the returns (+1 and -1), and only the
    selected agent has a mask; the same seed plays the same game."""
    def run(seed):
        env = aec_env(game="pig", target=30)
        env.reset(seed=seed)
        rewards, seen = {agent: 0.0 for agent in env.possible_agents}, []
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            rewards[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            other = env.possible_agents[1 - env.possible_agents.index(agent)]
            assert env.observe(other)["action_mask"].sum() == 0
            seen.append(observation["observation"].tobytes())
            env.step(int(np.flatnonzero(observation["action_mask"])[-1]))
        return sorted(rewards.values()), seen
    rewards, seen = run(3)
    assert rewards == [-1.0, 1.0]
    assert run(3)[1] == seen and run(4)[1] != seen


# ---------------------------------------------------------------- Gymnasium

@pytest.mark.parametrize("options", [
    {"game": "pig"}, {"game": "pig", "opponents": "random", "seat": None},
    {"game": "cinq-mille", "target": 1000, "players": 3, "opponents": "threshold:300"},
    {"game": "farkle", "target": 1000, "opponents": "expected"}])
def test_gymnasium_check_env(options):
    check_env(FarkleEnv(**options), skip_render_check=True)


def test_gymnasium_episode_and_illegal_action():
    env = FarkleEnv(game="pig", target=30, opponents="optimal")
    observation, info = env.reset(seed=1)
    assert np.array_equal(observation["action_mask"], info["action_mask"])
    total, done = 0.0, False
    while not done:
        legal = np.flatnonzero(observation["action_mask"])
        observation, reward, done, truncated, info = env.step(int(legal[-1]))
        total += reward
        assert not truncated
    assert total in (1.0, -1.0)
    observation, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == -1.0 and info["illegal_action"]


def test_the_libraries_load_only_when_asked():
    code = ("import sys, solver, solver.cli.main, solver.adapters.referee, "
            "solver.adapters.exact; print(sorted(m for m in ('pyspiel', 'pettingzoo', "
            "'gymnasium', 'open_spiel') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.stdout.strip() == "[]", done.stderr

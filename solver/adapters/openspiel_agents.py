"""Players that OpenSpiel's own algorithms make on ``python_farkle``: its
MCTS bot, its uniform random bot, and a tabular Q-learner trained by
self-play for some seconds.

* ``openspiel:mcts``: :class:`open_spiel.python.algorithms.mcts.MCTSBot`,
  UCT with ``c = 2``, ``simulations`` simulations a decision, each leaf
  valued by one random rollout to the end of the game (OpenSpiel's
  ``RandomRolloutEvaluator``); chance nodes are sampled. It is not
  deterministic: the referee simulates it.
* ``openspiel:random``: ``pyspiel.make_uniform_random_bot``.
* ``openspiel:qlearning``: :class:`open_spiel.python.algorithms.tabular_qlearner.QLearner`,
  one per seat, trained by self-play in OpenSpiel's ``rl_environment``
  (step size 0.1, exploration epsilon 0.1, no discount, the game's
  returns as the only reward) for ``seconds`` seconds; then played
  greedily, each seat from its own table: the legal action of the highest
  Q-value, ties (and states never seen, all 0) to the lowest action id.
  That greedy policy is deterministic, so the referee evaluates it
  exactly where the game allows.
"""

from __future__ import annotations

import time

import numpy as np

from solver.adapters import encoding
from solver.adapters.openspiel_game import state_of
from solver.adapters.policies import Player, from_openspiel, load_openspiel


def mcts(rules, players: int, simulations: int = 100, seed: int = 0) -> Player:
    """OpenSpiel's MCTS bot (module docstring)."""
    from open_spiel.python.algorithms import mcts as os_mcts
    game = load_openspiel(rules, players)
    rng = np.random.RandomState(seed)
    bot = os_mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations,
                          evaluator=os_mcts.RandomRolloutEvaluator(1, rng), random_state=rng,
                          solve=False)
    return from_openspiel(bot, rules, players, f"openspiel:mcts({simulations})", False, game)


def uniform_random(rules, players: int, seed: int = 0) -> Player:
    """OpenSpiel's uniform random bot, one per seat (a C++ bot plays for
    the one player it is made for)."""
    import pyspiel
    game = load_openspiel(rules, players)
    seats = [from_openspiel(pyspiel.make_uniform_random_bot(seat, seed + seat), rules,
                            players, "openspiel:random", False, game)
             for seat in range(players)]

    def start(game_seed):
        for seat in seats:
            seat.start(game_seed)
    return Player("openspiel:random", lambda engine: seats[engine.mover].answer(engine), False,
                  start)


def train_q_learning(rules, players: int, seconds: float, seed: int = 0,
                     episodes: int | None = None):
    """Q-learners (one per seat) trained by self-play for ``seconds``
    (or ``episodes`` games): ``(learners, episodes played)``."""
    from open_spiel.python import rl_environment, rl_tools
    from open_spiel.python.algorithms import tabular_qlearner
    game = load_openspiel(rules, players)
    np.random.seed(seed)                # the learners' exploration draws from numpy's
    env = rl_environment.Environment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(seed))
    actions = env.action_spec()["num_actions"]
    learners = [tabular_qlearner.QLearner(
        player_id=p, num_actions=actions, step_size=0.1,
        epsilon_schedule=rl_tools.ConstantSchedule(0.1), discount_factor=1.0)
        for p in range(players)]
    played = 0
    deadline = time.perf_counter() + seconds
    while (played < episodes) if episodes is not None else (time.perf_counter() < deadline):
        step = env.reset()
        acted = set()
        while not step.last():
            mover = step.observations["current_player"]
            acted.add(mover)
            step = env.step([learners[mover].step(step).action])
        # The end to those who moved (a learner that never moved would keep
        # the last state as its previous one, and fail in the next game).
        for mover in sorted(acted):
            learners[mover].step(step)
        played += 1
    return learners, played


def greedy(learners, rules, players: int, name: str = "openspiel:qlearning") -> Player:
    """The learners played greedily, each seat by its own table (module
    docstring)."""
    game = load_openspiel(rules, players)

    def answer(engine):
        state = state_of(game, engine.state)
        mover = engine.mover
        values = learners[mover]._q_values.get(str(state.information_state_tensor(mover)), {})
        legal = state.legal_actions()
        best = max(legal, key=lambda a: (values.get(a, 0.0), -a))
        return encoding.answer_of(rules, best)
    return Player(name, answer, True)


def q_learning(rules, players: int, seconds: float = 60.0, seed: int = 0) -> Player:
    """``openspiel:qlearning``: trained for ``seconds``, then greedy."""
    learners, played = train_q_learning(rules, players, seconds, seed)
    return greedy(learners, rules, players,
                  f"openspiel:qlearning({played:,} self-play games, {seconds:g} s)")

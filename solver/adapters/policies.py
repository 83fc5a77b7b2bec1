"""Any policy as a player the referee can seat: a Python callable, a
PettingZoo-style agent, an OpenSpiel bot, policy or RL agent, or one of
``farkle simulate``'s policies.

A :class:`Player` answers the decision due in the play engine's game
(:class:`solver.play.game.Game`, phase TAKE, KEEP or BANK) with the
engine's answer: ``take``/``fresh``, the kept dice, ``bank``/``roll``.
What each kind of policy is shown:

* a Python callable: a :class:`Position` (the mover's view: scores in
  seat order from the mover, the turn, the legal ``options`` and their
  action ids, the observation); it returns one of ``options`` or an
  action id (:mod:`solver.adapters.encoding`);
* a PettingZoo-style agent: ``{"observation", "action_mask"}`` as the
  AEC environment gives them (:mod:`solver.adapters.pettingzoo_env`); it
  returns an action id;
* an OpenSpiel bot (``step(state)``), policy (``action_probabilities(
  state)``, sampled unless one action has probability 1) or RL agent
  (``step(time_step, is_evaluation=True)``): an OpenSpiel state of
  ``python_farkle`` at the position (:func:`solver.adapters.openspiel_game.state_of`).
  A bot must play for whichever player is to move, as OpenSpiel's Python
  MCTS bot does (a C++ bot made for one player id plays only that seat);
  an RL agent is asked as its own ``player_id``;
* ``optimal``, ``card``, ``threshold:X``, ``expected``, ``random``: the
  bots of ``farkle play`` (:mod:`solver.play.bots`).

The players OpenSpiel's algorithms make (MCTS, a trained Q-learner) are
:mod:`solver.adapters.openspiel_agents`'; a command line's name of any
of them is read by :func:`solver.adapters.referee.player_of`.

``deterministic`` is True, False or None (not known: the exact
evaluation asks twice at a sample of positions, :mod:`solver.adapters.exact`).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from solver.adapters import encoding
from solver.model.errors import UsageError
from solver.play.bots import make_bot
from solver.play.game import Game
from solver.sim.policies import parse_policy
from solver.text import _

OUR_POLICIES = ("optimal", "card", "expected", "random")


class Position(NamedTuple):
    """A decision as a Python callable policy sees it (points, not units)."""
    phase: str
    """``take``, ``keep`` or ``bank``."""
    seat: int
    """The mover, 0-based (seat 1 moves first)."""
    scores: tuple
    """Every player's score, the mover's first, then seat order."""
    turn_total: int
    dice: int
    """Dice in hand (a keep: the dice just thrown)."""
    roll: tuple | None
    offer: tuple | None
    """``(points, dice)`` the mover may take over."""
    options: tuple
    """The legal answers: ``bank``/``roll``, ``take``/``fresh``, or kept dice."""
    actions: tuple
    """The action id of each option."""
    game: Game
    """The engine's game, to read and not to move."""

    @property
    def observation(self) -> np.ndarray:
        return encoding.observation(self.game, self.seat)

    @property
    def action_mask(self) -> np.ndarray:
        return encoding.action_mask(self.game)


def position_of(game: Game) -> Position:
    state, N = game.state, game.players
    seat = state.mover
    actions = tuple(encoding.legal_actions(game))
    options = tuple(encoding.answer_of(game.rules, a) for a in actions)
    return Position(state.phase, seat,
                    tuple(state.lines[(seat + k) % N].score for k in range(N)),
                    state.turn_total, state.in_hand, state.roll, state.offer, options, actions,
                    game)


@dataclass
class Player:
    """A policy seated by the referee."""
    name: str
    answer: Callable[[Game], Any]
    deterministic: bool | None = None
    start: Callable[[int], None] = lambda seed: None
    """Called before each game with its seed (bots that keep a game's
    state, or draw from their own generator)."""


def _checked(game: Game, reply) -> Any:
    """The engine's answer for a policy's reply (an option or an action id)."""
    rules = game.rules
    legal = encoding.legal_actions(game)
    if isinstance(reply, (int, np.integer)) and not isinstance(reply, bool):
        action = int(reply)
    else:
        try:
            action = encoding.action_of(rules, reply)
        except (KeyError, TypeError, ValueError):
            action = None
    if action not in legal:
        names = ", ".join(encoding.action_name(rules, a) for a in legal)
        raise UsageError(_("the policy answered {reply} where the legal answers are {names}")
                         .format(reply=repr(reply), names=names))
    return encoding.answer_of(rules, action)


def from_callable(function, name: str | None = None, deterministic: bool | None = None
                  ) -> Player:
    """A Python callable ``function(position) -> option or action id``."""
    return Player(name or getattr(function, "__name__", "callable"),
                  lambda game: _checked(game, function(position_of(game))), deterministic)


def from_pettingzoo(agent, name: str | None = None, deterministic: bool | None = None
                    ) -> Player:
    """A PettingZoo-style agent ``agent(observation) -> action id``, the
    observation being the AEC environment's ``{"observation",
    "action_mask"}``."""
    def answer(game):
        seen = {"observation": encoding.observation(game, game.mover),
                "action_mask": encoding.action_mask(game)}
        return _checked(game, agent(seen))
    return Player(name or getattr(agent, "__name__", "agent"), answer, deterministic)


def load_openspiel(rules, players: int):
    """``python_farkle`` for ``rules`` (a game of ``farkle variants`` at
    its target, or the rules themselves)."""
    from solver.adapters.openspiel_game import FarkleGame
    return FarkleGame.for_rules(rules, players)


def from_openspiel(agent, rules, players: int, name: str | None = None,
                   deterministic: bool | None = None, game=None, seed: int = 0) -> Player:
    """An OpenSpiel bot, policy or RL agent (module docstring), deciding on
    ``python_farkle`` states of ``rules`` (``game``: that game, if made)."""
    game = game or load_openspiel(rules, players)
    from solver.adapters.openspiel_game import state_of
    rng = np.random.default_rng(seed)
    label = name or type(agent).__name__

    if hasattr(agent, "action_probabilities"):
        def answer(engine):
            probs = agent.action_probabilities(state_of(game, engine.state))
            actions = sorted(probs)
            p = np.array([probs[a] for a in actions], dtype=float)
            return _checked(engine, actions[int(rng.choice(len(actions), p=p / p.sum()))])
        return Player(label, answer, deterministic)
    from open_spiel.python import rl_agent
    if isinstance(agent, rl_agent.AbstractAgent):
        from open_spiel.python import rl_environment
        player = getattr(agent, "player_id", getattr(agent, "_player_id", 0))

        def answer(engine):
            state = state_of(game, engine.state)
            legal = [[] for _seat in range(players)]
            legal[player] = state.legal_actions()
            info = [state.information_state_tensor(engine.mover) for _seat in range(players)]
            step = rl_environment.TimeStep(
                observations={"info_state": info, "legal_actions": legal,
                              "current_player": player},
                rewards=[0.0] * players, discounts=[1.0] * players,
                step_type=rl_environment.StepType.MID)
            return _checked(engine, agent.step(step, is_evaluation=True).action)
        return Player(label, answer, deterministic)

    def answer(engine):
        return _checked(engine, agent.step(state_of(game, engine.state)))

    def start(seed_of_game):
        if hasattr(agent, "restart"):
            agent.restart()
    return Player(label, answer, deterministic, start)


def ours(text: str, rules, players: int) -> Player:
    """A policy of ``farkle simulate`` as the bot of ``farkle play``."""
    policy = parse_policy(text)
    bot_rng = np.random.default_rng(0)
    bot = make_bot(policy, rules, bot_rng, players)

    def start(seed):
        bot_rng.bit_generator.state = np.random.default_rng(seed).bit_generator.state
    return Player(str(policy), bot.answer, policy.kind != "random", start)


def load_object(spec: str):
    """``MODULE:NAME`` imported, MODULE from the current directory or the
    Python path (as ``python -m`` finds it; the installed ``farkle``
    script's own directory is not the person's)."""
    module_name, _colon, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise UsageError(_("a policy is MODULE:NAME, not {given}").format(given=repr(spec)))
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise UsageError(_("cannot import {module} for the policy: {error}").format(
            module=repr(module_name), error=error)) from None
    try:
        value = module
        for part in attribute.split("."):
            value = getattr(value, part)
    except AttributeError:
        raise UsageError(_("{module} has no {name}").format(
            module=module_name, name=repr(attribute))) from None
    return value

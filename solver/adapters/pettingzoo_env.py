"""Every game as a PettingZoo AEC environment, in the Classic
environments' conventions (``pip install ".[adapters]"``)::

    from solver.adapters.pettingzoo_env import env
    game = env(game="cinq-mille", players=3)

* Agents ``player_0`` .. ``player_{N-1}``, ``player_0`` moving first; the
  agent selected is the mover of the decision due. The dice are thrown
  inside the environment from its generator (``reset(seed=...)``), so an
  agent only ever sees decisions (a forced roll is played for it,
  :func:`solver.adapters.engine.settle`).
* Observation: ``{"observation", "action_mask"}``, the observation tensor
  of :mod:`solver.adapters.encoding` from the observing agent (a Box of
  float32, 0 to the dice count: the roll's face counts are counts) and the
  mask of its legal actions (int8; all zeros for an agent not selected).
* Actions: Discrete(4 + K), :mod:`solver.adapters.encoding`'s ids.
* Rewards: 0 until the end, then OpenSpiel's Pig's returns (+1 the winner,
  -1/(N-1) the others; a shared final-round win ``(N w - 1)/(N - 1)``).
  Every agent terminates at the end; every agent is truncated after
  ``horizon`` decisions.
* ``env()`` wraps the raw environment as Classic does: an illegal action
  ends the game with -1 for its agent (``TerminateIllegalWrapper``),
  actions are checked against the space, and the call order is enforced.
* ``render_mode``: ``"human"`` prints the observation string of the agent
  to move, ``"ansi"`` returns it.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector, wrappers

from solver.adapters import encoding, engine
from solver.adapters.openspiel_game import DEFAULTS
from solver.model.house_rules import load_house_rules
from solver.model.rules import get_rules
from solver.play.game import OVER


def rules_for(game: str = "pig", rules_file=None, target: int | None = None):
    """The rules of a game's name or a house-rules file, at ``target``."""
    rules = load_house_rules(rules_file) if rules_file else get_rules(game)
    return rules.with_target(target) if target else rules


def env(**kwargs):
    """The environment, wrapped as PettingZoo's Classic environments are."""
    raw = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):
    """A game of the Farkle family among N agents (module docstring)."""

    metadata: ClassVar[dict] = {"render_modes": ["human", "ansi"], "name": "farkle_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, game: str = "pig", players: int = 2, target: int | None = None,
                 rules_file=None, rules=None, horizon: int = DEFAULTS["horizon"],
                 render_mode: str | None = None):
        EzPickle.__init__(self, game, players, target, rules_file, rules, horizon, render_mode)
        super().__init__()
        self.rules = rules if rules is not None else rules_for(game, rules_file, target)
        self.players = players
        self.horizon = horizon
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agents = self.possible_agents[:]
        size = encoding.observation_size(self.rules, players)
        count = encoding.num_actions(self.rules)
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(low=0.0, high=float(max(1, self.rules.dice)),
                                      shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(count,), dtype=np.int8)})
            for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(count) for agent in self.possible_agents}
        self.table = None
        self.rng = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        mask = encoding.action_mask(self.table) if agent == self.agent_selection \
            and self.table.phase != OVER else \
            np.zeros(encoding.num_actions(self.rules), dtype=np.int8)
        return {"observation": encoding.observation(self.table, seat), "action_mask": mask}

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.table = engine.new_game(self.rules, self.players)
        self.decisions = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._selector = AgentSelector(self.agents)
        self._roll_on()
        self.agent_selection = self.possible_agents[self.table.mover]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        engine.apply_answer(self.table, encoding.answer_of(self.rules, int(action)))
        self.decisions += 1
        self._roll_on()
        if self.table.phase == OVER:
            for seat, value in enumerate(engine.returns(self.table)):
                self.rewards[self.possible_agents[seat]] = value
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.decisions >= self.horizon:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.table.mover]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _roll_on(self):
        while self.table.phase != OVER and engine.is_chance(self.table):
            engine.throw(self.table, self.rng)

    def render(self):
        if self.render_mode is None:
            return None
        text = encoding.observation_string(self.table, self.table.mover)
        if self.render_mode == "ansi":
            return text
        print(text)

    def close(self):
        pass

"""One seat of a game as a single-agent Gymnasium environment, the other
seats played by the project's bots (``pip install ".[adapters]"``)::

    from solver.adapters.gym_env import FarkleEnv
    env = FarkleEnv(game="pig", opponents="optimal")     # against the table

* The agent sits in ``seat`` (0: moves first; None: a seat drawn at each
  reset); the other seats play ``opponents``, a policy of ``farkle
  simulate`` (``optimal``, ``card``, ``threshold:X``, ``expected``,
  ``random``) as the bots of ``farkle play`` play it
  (:mod:`solver.play.bots`; ``optimal`` reads the game's exact table, made
  on first use when that takes under 30 s).
* Observation: ``{"observation", "action_mask"}`` as in the PettingZoo
  environment (:mod:`solver.adapters.encoding`, from the agent's seat);
  ``info["action_mask"]`` holds the mask too.
* Action: Discrete(4 + K), :mod:`solver.adapters.encoding`'s ids. An
  illegal action ends the episode with the return of a loss,
  ``-1/(N-1)``, and ``info["illegal_action"] = True``.
* Reward: 0 until the end, then the agent's return (+1 a win, -1/(N-1) a
  loss, a shared final-round win ``(N w - 1)/(N - 1)``); ``terminated``
  at the end, ``truncated`` after ``horizon`` decisions of the agent.
* The dice and the random bot draw from the environment's generator
  (``reset(seed=...)``): a seed fixes the episode for a fixed agent.
"""

from __future__ import annotations

from typing import ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from solver.adapters import encoding, engine
from solver.adapters.openspiel_game import DEFAULTS
from solver.adapters.pettingzoo_env import rules_for
from solver.play.bots import make_bot
from solver.play.game import OVER, Game
from solver.sim.policies import parse_policy


class FarkleEnv(gymnasium.Env):
    """One agent against bots (module docstring)."""

    metadata: ClassVar[dict] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, game: str = "pig", players: int = 2, target: int | None = None,
                 rules_file=None, rules=None, opponents: str = "optimal", seat: int | None = 0,
                 horizon: int = DEFAULTS["horizon"], advisor=None,
                 render_mode: str | None = None):
        self.rules = rules if rules is not None else rules_for(game, rules_file, target)
        self.players = players
        self.horizon = horizon
        self.fixed_seat = seat
        self.render_mode = render_mode
        self.policy = parse_policy(opponents)
        if advisor is None and self.policy.kind == "optimal":
            from solver.advice.choose import advisor_for
            from solver.tables.load import FirstUse
            advisor = advisor_for(self.rules, players, first_use=FirstUse())
        self.advisor = advisor or engine.NoAdvice(self.rules)
        size = encoding.observation_size(self.rules, players)
        count = encoding.num_actions(self.rules)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=float(max(1, self.rules.dice)),
                                      shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(count,), dtype=np.int8)})
        self.action_space = spaces.Discrete(count)
        self.table = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.seat = int(self.np_random.integers(self.players)) if self.fixed_seat is None \
            else self.fixed_seat
        self.table = Game(self.advisor, self.players)
        self.bots = {s: make_bot(self.policy, self.rules, self.np_random, self.players)
                     for s in range(self.players) if s != self.seat}
        self.decisions = 0
        self._play_others()
        return self._observe(), self._info()

    def step(self, action):
        action = int(action)
        if action not in encoding.legal_actions(self.table):
            loss = -1.0 / (self.players - 1)
            return self._observe(), loss, True, False, self._info(illegal_action=True)
        engine.apply_answer(self.table, encoding.answer_of(self.rules, action))
        self.decisions += 1
        self._play_others()
        over = self.table.phase == OVER
        reward = engine.returns(self.table)[self.seat] if over else 0.0
        truncated = not over and self.decisions >= self.horizon
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, over, truncated, self._info()

    def _play_others(self):
        """Dice and the bots' decisions, up to the agent's next decision."""
        table = self.table
        while table.phase != OVER:
            if engine.is_chance(table):
                engine.throw(table, self.np_random)
            elif table.mover != self.seat:
                engine.apply_answer(table, self.bots[table.mover].answer(table))
            else:
                break

    def _observe(self) -> dict:
        mask = encoding.action_mask(self.table) if self.table.phase != OVER else \
            np.zeros(self.action_space.n, dtype=np.int8)
        return {"observation": encoding.observation(self.table, self.seat),
                "action_mask": mask}

    def _info(self, **more) -> dict:
        return {"action_mask": encoding.action_mask(self.table) if self.table.phase != OVER
                else np.zeros(self.action_space.n, dtype=np.int8), "seat": self.seat, **more}

    def render(self):
        if self.render_mode is None:
            return None
        text = encoding.observation_string(self.table, self.seat)
        if self.render_mode == "ansi":
            return text
        print(text)

"""Every game and house-rules file as an OpenSpiel game: ``python_farkle``.

Importing this module registers the game with ``pyspiel`` (OpenSpiel's
Python API; ``pip install ".[openspiel]"``)::

    import pyspiel
    import solver.adapters.openspiel_game           # registers python_farkle
    game = pyspiel.load_game("python_farkle(game=cinq-mille,players=3)")

Parameters (OpenSpiel's game-string syntax; every one optional):

    game      a game of ``farkle variants``                (default pig)
    rules     a house-rules TOML file, instead of game     (default none)
    target    the target in points; 0: the game's own      (default 0)
    players   2 to 6                                        (default 2)
    horizon   player decisions after which the game stops  (default 10000)
              with every return 0, as OpenSpiel's Pig stops at its
              ``horizon``

The game type is OpenSpiel's Pig's: sequential, explicit stochastic,
perfect information, zero-sum, terminal rewards. A state holds the play
engine (:mod:`solver.adapters.engine`), which alone applies the rules:

    current player   the mover at TAKE, KEEP and BANK; chance at ROLL
    chance outcome   one per distinct roll of the dice in hand, with its
                     multinomial probability (:func:`solver.adapters.engine.roll_outcomes`)
    actions          :mod:`solver.adapters.encoding`: 0 roll, 1 bank,
                     2 fresh, 3 take, 4 + j keep ``keep_dice(D)[j]``
    returns          winner +1, others -1/(N-1); a shared final-round win
                     (N w_i - 1)/(N - 1); 0 each at the horizon
    observation and  the tensor and string of :mod:`solver.adapters.encoding`
    information      from the player asked; the game is Markov in them, so
    state            the information state is the observation

A forced roll (a bank refused: the entry, hot dice that must be rolled)
is played at once, not shown as a decision of one action.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from solver.adapters import encoding, engine
from solver.model.errors import UsageError
from solver.model.house_rules import load_house_rules
from solver.model.rules import get_rules
from solver.play.game import OVER
from solver.text import _

SHORT_NAME = "python_farkle"
MAX_PLAYERS = 6
DEFAULTS = {"game": "pig", "rules": "", "target": 0, "players": 2, "horizon": 10_000}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Farkle family (farkle-solver)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS)


def rules_of(params: dict):
    """The :class:`solver.model.rules.Rules` of a parameter set."""
    rules = load_house_rules(params["rules"]) if params.get("rules") \
        else get_rules(params.get("game", DEFAULTS["game"]))
    target = int(params.get("target", 0))
    return rules.with_target(target) if target else rules


def game_string(rules_name: str | None = None, *, rules_file=None, target: int = 0,
                players: int = 2, horizon: int = DEFAULTS["horizon"]) -> str:
    """The string ``pyspiel.load_game`` takes for a game (a file's path
    must hold no comma, parenthesis or equals sign: OpenSpiel's syntax)."""
    what = f"rules={rules_file}" if rules_file else f"game={rules_name or 'pig'}"
    return f"{SHORT_NAME}({what},target={target},players={players},horizon={horizon})"


class FarkleGame(pyspiel.Game):
    """A game of the Farkle family (module docstring)."""

    def __init__(self, params=None, rules=None):
        params = {**DEFAULTS, **(params or {})}
        players = int(params["players"])
        if not 2 <= players <= MAX_PLAYERS:
            raise UsageError(_("players must be 2 to {most}, not {given}").format(
                most=MAX_PLAYERS, given=players))
        self.rules = rules_of(params) if rules is None else rules
        self.horizon = int(params["horizon"])
        if self.horizon < 1:
            raise UsageError(_("horizon must be at least 1, not {given}").format(
                given=self.horizon))
        info = pyspiel.GameInfo(
            num_distinct_actions=encoding.num_actions(self.rules),
            max_chance_outcomes=engine.max_chance_outcomes(self.rules),
            num_players=players,
            min_utility=-1.0 / (players - 1),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.horizon)
        super().__init__(GAME_TYPE, info, params)
        self.players = players

    @classmethod
    def for_rules(cls, rules, players: int = 2, horizon: int = DEFAULTS["horizon"]):
        """The game of a :class:`~solver.model.rules.Rules` value (a house
        game too: its parameters then name it, and only this constructor
        makes it again)."""
        return cls({"game": rules.name, "target": rules.target, "players": players,
                    "horizon": horizon}, rules)

    def new_initial_state(self):
        return FarkleState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        return FarkleObserver(self)


class FarkleState(pyspiel.State):
    """A state: the engine's game, and the decisions made so far (toward
    the horizon)."""

    def __init__(self, game: FarkleGame, table=None):
        super().__init__(game)
        self.box = _Box(engine.new_game(game.rules, game.players))
        if table is not None:
            self.table.state = table.copy()
            engine.settle(self.table)
        self.horizon = game.horizon
        self.decisions = 0

    @property
    def table(self):
        """The engine's game (:class:`solver.play.game.Game`)."""
        return self.box.game

    # The OpenSpiel API.
    def current_player(self):
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if engine.is_chance(self.table):
            return pyspiel.PlayerId.CHANCE
        return self.table.mover

    def _legal_actions(self, player):
        if player != self.current_player():       # OpenSpiel's: none for the others
            return []
        return encoding.legal_actions(self.table)

    def chance_outcomes(self):
        return engine.chance_outcomes(self.table)

    def _apply_action(self, action):
        if engine.is_chance(self.table):
            engine.apply_roll(self.table, action)
            return
        engine.apply_answer(self.table, encoding.answer_of(self.table.rules, action))
        self.decisions += 1

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            dice = engine.roll_outcomes(self.table.state.in_hand)[action][0]
            return "roll " + " ".join(map(str, dice))
        return encoding.action_name(self.table.rules, action)

    def is_terminal(self):
        return self.table.phase == OVER or self.decisions >= self.horizon

    def returns(self):
        if self.table.phase != OVER:
            return [0.0] * self.table.players
        return engine.returns(self.table)

    def __str__(self):
        return encoding.observation_string(self.table, 0)



class _Box:
    """The engine's game in a state: OpenSpiel clones a Python state by
    deep-copying its attributes, and the box copies the game's table
    alone (the rules and the engine's records are shared)."""

    def __init__(self, game):
        self.game = game

    def __deepcopy__(self, memo):
        return _Box(engine.copy_game(self.game))


class FarkleObserver:
    """OpenSpiel's observer of a state: :mod:`solver.adapters.encoding`'s
    tensor (``tensor``; ``dict`` holds its sections by name) and string.
    The observation and the information state are the same."""

    def __init__(self, game: FarkleGame):
        layout = encoding.observation_layout(game.rules, game.players)
        self.tensor = np.zeros(sum(size for _name, size in layout), np.float32)
        self.dict = {}
        at = 0
        for name, size in layout:
            self.dict[name] = self.tensor[at:at + size]
            at += size

    def set_from(self, state: FarkleState, player: int):
        encoding.observation(state.table, player, self.tensor)

    def string_from(self, state: FarkleState, player: int) -> str:
        return encoding.observation_string(state.table, player)


def load(rules_name: str = "pig", **options):
    """``pyspiel.load_game`` of :func:`game_string`'s string."""
    return pyspiel.load_game(game_string(rules_name, **options))


def state_of(game: FarkleGame, table) -> FarkleState:
    """An OpenSpiel state at the engine's :class:`solver.play.records.Table`
    ``table`` (copied): how the referee shows a position to an OpenSpiel
    bot. Its history is empty: bots that read only the state (MCTS, a
    policy, a tabular agent) see the position itself."""
    return FarkleState(game, table)


pyspiel.register_game(GAME_TYPE, FarkleGame)

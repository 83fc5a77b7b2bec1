"""OpenSpiel's own Pig and ours: matching the games, translating their
state into ours, and our optimal policy playing their engine.

Our Pig (``Rules`` PIG: one die, a 1 loses the turn total, 2 to 6 add
their face, a score of the target or more wins) is OpenSpiel's ``pig``
with

    players = N,  winscore = target,  diceoutcomes = 6,  piglet = false,
    horizon = 10^9 (their default, 1000 player moves, would end a game
    with every return 0 after that many; none of our games comes near).

:func:`pig_parameters` checks the rules field by field (rules are data:
any game with these fields is Pig, whatever its name) and refuses others.
Two differences of form, neither of which changes a game:

* OpenSpiel ends a turn only by ``stop`` (action 1) or a 1; a player whose
  score and turn total reach ``winscore`` may only stop, and then wins.
  Ours wins at the roll that reaches the target. Our policy stops there.
* OpenSpiel lets a player stop with a turn total of 0 (a pass). Ours has
  no bank of 0 points; our policy rolls (action 0) there.

Their state, read through OpenSpiel's API only: ``current_player()``
(the mover, or chance) and the observation tensor of pig.cc,
``(1 + N) x (winscore + 1)`` one-hots: row 0 the turn total, row ``1 + p``
player ``p``'s score, the last bin "winscore or more". Ours: the mover's
score, the others' in seat order after the mover, the turn total, one die
(:func:`position`).

Our optimal policy reads our table: with two players the simulator's
optimal turn at every turn start (:func:`solver.sim.policies.optimal_turn`:
bank where ``B >= R``); with more, the N-player simulator's optimal turn
(:mod:`solver.sim.optimal_n`: the solver's own turn DP of the node, the
table's mixed decisions drawn with their probabilities). The dice are
drawn from their ``chance_outcomes()`` (Python's Mersenne twister, seeded); their engine applies the roll and
says who won (``returns()``: +1 for the winner).
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from solver.model.errors import UsageError
from solver.model.turn_rules import TurnRules
from solver.text import _

HORIZON = 10 ** 9
ROLL, STOP = 0, 1


def pig_parameters(rules, players: int) -> dict:
    """OpenSpiel's ``pig`` parameters for our ``rules`` (module
    docstring); a UsageError naming the first field that differs."""
    faces = tuple((f,) if f > 1 else (0,) for f in range(1, 7))
    wanted = {"dice": 1, "unit": 1, "exact_target": False, "entry": 0, "scoring": faces,
              "straights": (), "combinations": (), "no_score_bonus": 0, "instant_wins": (),
              "crosses": 0, "takeover_min": None, "last_turn_points": 0, "min_bank": 0,
              "final_round": False}
    for name, value in wanted.items():
        if getattr(rules, name) != value:
            raise UsageError(_("{game} is not OpenSpiel's pig: its {field} is {have}, not "
                               "{want}").format(game=rules.name, field=name,
                                                have=repr(getattr(rules, name)),
                                                want=repr(value)))
    return {"players": players, "winscore": rules.target, "diceoutcomes": 6,
            "piglet": False, "horizon": HORIZON}


def load_pig(rules, players: int):
    return pyspiel.load_game("pig", pig_parameters(rules, players))


def position(state, players: int, winscore: int) -> tuple[int, tuple, int]:
    """Their state at a decision as ours: ``(mover, scores in seat order
    from the mover, turn total)`` (module docstring)."""
    tensor = state.observation_tensor()
    bins = winscore + 1
    # Each row's one-hot: the index of its 1 (a search in C, not numpy).
    values = [tensor.index(1.0, row * bins, (row + 1) * bins) - row * bins
              for row in range(1 + players)]
    mover = state.current_player()
    return mover, tuple(values[1 + (mover + k) % players] for k in range(players)), values[0]


class OptimalPig:
    """Our optimal policy for Pig from our table (module docstring):
    :meth:`action` at a position, OpenSpiel's action id."""

    def __init__(self, solution, seed: int = 0):
        self.solution = solution
        self.rules = solution.rules
        self.players = solution.players
        self.rng = np.random.default_rng(seed)
        self._turns = {}
        self._record = None

    def _bank_row(self, scores: tuple):
        """``(bank[t], q[t])``: bank at turn total ``t``, and where the
        table mixes the probability of banking (else -1)."""
        row = self._turns.get(scores)
        if row is not None:
            return row
        space = self.solution.space
        states = [space.index_of_score(s) for s in scores]
        if self.players == 2:
            from solver.sim.policies import optimal_turn
            bank = optimal_turn(self.solution, *states).bank[:, 1].astype(bool)
            row = (bank, None)
        else:
            row = self._n_player_row(self.solution.node_of(states))
        self._turns[scores] = row
        return row

    def _n_player_row(self, node: int):
        from solver.sim.optimal_n import fill_turn, load_mixes, optimal_record
        if self._record is None:
            from solver.sim.dice import dice_tables
            self._record = optimal_record(self.rules, self.solution, dice_tables(self.rules),
                                          self.players)
        record = self._record
        slot = node % len(record.cache.node)
        load_mixes(record, node)
        fill_turn(TurnRules.of(self.rules), record, node, slot)
        q = record.plan.bank_q[:, 1].copy()
        return record.cache.banked[slot, :, 1].astype(bool), (q if np.any(q >= 0) else None)

    def action(self, scores: tuple, turn_total: int) -> int:
        """Roll (0) or stop (1) with ``scores`` (the mover's first) and the
        turn total."""
        if scores[0] + turn_total >= self.rules.target:
            return STOP
        if turn_total == 0:
            return ROLL
        bank, q = self._bank_row(scores)
        if q is not None and q[turn_total] >= 0:
            return STOP if self.rng.random() < q[turn_total] else ROLL
        return STOP if bank[turn_total] else ROLL


def draw(outcomes, u: float) -> int:
    """The chance outcome at ``u`` in [0, 1) of the cumulative law."""
    for action, prob in outcomes:
        u -= prob
        if u < 0.0:
            return action
    return outcomes[-1][0]


def predicted(solution) -> np.ndarray:
    """Each seat's chance by our table, seat 1 first."""
    return np.asarray(solution.seat_wins, dtype=float)


def play(solution, games: int, seed: int = 0) -> dict:
    """``games`` games of OpenSpiel's ``pig`` with our optimal policy in
    every seat: wins per seat, games stopped at the horizon, and the
    z-score of each seat's win rate against our table's prediction
    (standard error ``sqrt(p (1 - p) / games)``)."""
    rules, players = solution.rules, solution.players
    game = load_pig(rules, players)
    policy = OptimalPig(solution, seed)
    rng = random.Random(seed)
    wins = np.zeros(players, dtype=np.int64)
    unfinished = 0
    target = rules.target
    for _game in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(draw(state.chance_outcomes(), rng.random()))
            else:
                _mover, scores, total = position(state, players, target)
                state.apply_action(policy.action(scores, total))
        returns = state.returns()
        if max(returns) <= 0:
            unfinished += 1
        else:
            wins[int(np.argmax(returns))] += 1
    p = predicted(solution)
    rates = wins / games
    se = np.sqrt(p * (1 - p) / games)
    return {"games": games, "players": players, "winscore": target, "seed": seed,
            "wins": wins.tolist(), "rates": rates.tolist(), "predicted": p.tolist(),
            "stderr": se.tolist(), "z": ((rates - p) / se).tolist(), "unfinished": unfinished}

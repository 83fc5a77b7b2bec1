"""The referee: what any policy gives up, seat by seat, against players
who play the table, and its costliest decisions.

Player D plays the policy in seat ``d`` (each seat in turn); every other
seat plays the exact table (the table's decisions: the optimal bot of
``farkle play``). With ``W_d`` the table's chance of seat ``d`` (every
seat playing the table) and ``U_d`` D's chance, D gives up

    G_d = W_d - U_d      (reported in percentage points, 100 G_d).

Two ways to find it, the report saying which (``exact``):

* **Exact** (:mod:`solver.adapters.exact`), where the policy is
  deterministic, the game's turn start is its scores (no crosses,
  take-over or final round) and D's decision points number at most
  ``limit``: the policy is asked at every decision point the game reaches,
  and the fixed policy is evaluated exactly; ``stderr`` is None.
* **Simulation** otherwise: ``games`` games per seat with real dice,
  D's decisions priced by the table as the engine prices every decision
  (:class:`solver.play.records.Decision`: best minus chosen, D's own
  chance). By the performance difference lemma (:mod:`solver.cards.regret`)

      G_d = E[ sum of the regrets of D's decisions in a game ],

  so the mean of that sum over the games estimates ``G_d`` without bias,
  with the standard error ``sd / sqrt(games)``. Each game is in effect
  paired with the table's own prediction along the same dice: the win
  indicator is ``X = W_d - (regret sum) + M`` with ``M`` a martingale of
  the dice (mean 0), and the estimate leaves ``M``'s noise out, which is
  most of the win indicator's variance. The win rate itself is reported
  too (``win_rate`` and its binomial standard error), as a check.

The costliest decisions are those of the largest ``reach x regret``: the
expected number of visits per game (averaged over the seats) times the
chance given up there; they sum to the loss averaged over the seats.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from solver.adapters import engine, exact
from solver.adapters.policies import (
    OUR_POLICIES,
    Player,
    from_callable,
    from_openspiel,
    from_pettingzoo,
    load_object,
    ours,
)
from solver.advice.advisor import Advisor
from solver.advice.duels import DuelsAdvisor
from solver.model.errors import UsageError
from solver.model.messages import Message, Number
from solver.play.bots import OptimalBot
from solver.play.game import OVER, ROLL, Game
from solver.text import N_, _

DEFAULT_LIMIT = 2_000_000
"""D's decision points (every seat) an exact evaluation may ask about."""


@dataclass
class SeatResult:
    seat: int
    """1-based: seat 1 moves first."""
    chance: float
    optimal_chance: float
    gives_up_pp: float
    stderr: float | None
    """Of ``gives_up_pp`` (percentage points); None when exact."""
    win_rate: float | None = None
    win_rate_stderr: float | None = None

    def to_json(self) -> dict:
        out = {"seat": self.seat, "chance": self.chance, "optimal_chance": self.optimal_chance,
               "gives_up_pp": self.gives_up_pp, "stderr": self.stderr}
        if self.win_rate is not None:
            out.update(win_rate=self.win_rate, win_rate_stderr=self.win_rate_stderr)
        return out


@dataclass
class Costly:
    """A decision point where the policy loses (module docstring)."""
    position: dict
    decision: str
    chosen: object
    best: object
    chosen_chance: float
    best_chance: float
    reach: float
    """Expected visits per game, averaged over the seats."""
    seats: list

    @property
    def regret_pp(self) -> float:
        return 100.0 * (self.best_chance - self.chosen_chance)

    @property
    def cost_pp(self) -> float:
        return self.reach * self.regret_pp

    def to_json(self) -> dict:
        return {"position": self.position, "decision": self.decision,
                "chosen": _plain(self.chosen), "best": _plain(self.best),
                "chosen_chance": self.chosen_chance, "best_chance": self.best_chance,
                "regret_pp": self.regret_pp, "reach": self.reach, "cost_pp": self.cost_pp,
                "seats": self.seats}


@dataclass
class Report:
    game: str
    target: int
    players: int
    policy: str
    exact: bool
    seats: list
    costliest: list
    games: int | None = None
    """Games per seat (simulation)."""
    seed: int | None = None
    decision_points: int | None = None
    """Decision points asked (exact)."""
    note: str | None = None
    """Why the referee simulated, where it might have evaluated exactly."""
    seconds: float = 0.0
    check: list = field(default_factory=list)
    """Exact: per seat, ``W - U`` minus the sum of reach times regret (0
    to rounding: the evaluation checks itself)."""

    @property
    def gives_up_pp(self) -> float:
        """The loss averaged over the seats."""
        return float(np.mean([s.gives_up_pp for s in self.seats]))

    def to_json(self) -> dict:
        out = {"game": self.game, "target": self.target, "players": self.players,
               "policy": self.policy, "exact": self.exact,
               "method": "exact" if self.exact else "simulation",
               "gives_up_pp": self.gives_up_pp,
               "seats": [s.to_json() for s in self.seats],
               "costliest": [c.to_json() for c in self.costliest],
               "seconds": self.seconds}
        if self.exact:
            out["decision_points"] = self.decision_points
            out["identity_residual"] = max((abs(x) for x in self.check), default=0.0)
        else:
            out.update(games=self.games, seed=self.seed)
        if self.note:
            out["note"] = self.note
        return out


def player_of(spec: str, rules, players: int, simulations: int = 100, seed: int = 0,
              train_seconds: float = 60.0) -> Player:
    """The player a command line names (``farkle referee --policy``):

    * ``optimal``, ``card``, ``threshold:X``, ``expected``, ``random``
      (``farkle simulate``'s policies);
    * ``openspiel:mcts`` (``simulations`` a decision), ``openspiel:random``,
      ``openspiel:qlearning`` (trained ``train_seconds`` first):
      :mod:`solver.adapters.openspiel_agents`;
    * ``pettingzoo:MODULE:NAME``: an agent of the AEC observation;
    * ``MODULE:NAME``: a Python callable of a Position, or an OpenSpiel
      bot, policy or agent object."""
    if spec in OUR_POLICIES or spec.startswith("threshold:"):
        return ours(spec, rules, players)
    if spec.startswith("openspiel:"):
        kind = spec.partition(":")[2]
        if kind not in ("mcts", "random", "qlearning"):
            raise UsageError(_("the openspiel policies are mcts, random and qlearning, not "
                               "{given}").format(given=repr(kind)))
        from solver.adapters import openspiel_agents
        if kind == "mcts":
            return openspiel_agents.mcts(rules, players, simulations, seed)
        if kind == "random":
            return openspiel_agents.uniform_random(rules, players, seed)
        return openspiel_agents.q_learning(rules, players, train_seconds, seed)
    if spec.startswith("pettingzoo:"):
        return from_pettingzoo(load_object(spec.partition(":")[2]), name=spec)
    value = load_object(spec)
    if hasattr(value, "step") or hasattr(value, "action_probabilities"):
        return from_openspiel(value, rules, players, spec, seed=seed)
    if not callable(value):
        raise UsageError(_("{policy} is not a callable, an OpenSpiel bot or policy").format(
            policy=spec))
    return from_callable(value, spec)


def as_player(policy, rules, players: int) -> Player:
    """A :class:`Player` of a policy given as a Player, a command line's
    name (:func:`solver.adapters.policies.player_of`), an OpenSpiel bot,
    policy or agent, or a Python callable of a Position."""
    if isinstance(policy, Player):
        return policy
    if isinstance(policy, str):
        return player_of(policy, rules, players)
    if hasattr(policy, "step") or hasattr(policy, "action_probabilities"):
        return from_openspiel(policy, rules, players)
    if callable(policy):
        return from_callable(policy)
    raise UsageError(_("cannot referee {policy}: not a policy").format(policy=repr(policy)))


def referee(advisor, policy, games: int = 1000, seed: int = 0, exact_only: bool | None = None,
            limit: int = DEFAULT_LIMIT, top: int = 10, progress=None) -> Report:
    """Referee ``policy`` (:func:`as_player`) against the exact table of
    ``advisor`` (:class:`solver.advice.advisor.Advisor`) in every seat
    (module docstring). ``exact_only``: True, evaluate exactly or refuse;
    False, simulate; None, exactly where possible. ``progress(done,
    total)`` follows a simulation's games."""
    if isinstance(advisor, DuelsAdvisor) or not isinstance(advisor, Advisor):
        raise UsageError(_("the referee needs the exact table of the game and players "
                           "(optimal players), not a model"))
    rules, players = advisor.rules, advisor.players
    player = as_player(policy, rules, players)
    started = time.perf_counter()
    why = exact.why_not_exact(rules)
    if why is None and player.deterministic is False:
        why = Message(N_("{policy} is not deterministic"), policy=player.name)
    if why is None and exact.decision_points(rules, players) > limit:
        why = Message(N_("the game has up to {points} decision points, more than {limit} to "
                         "tabulate"), points=Number(exact.decision_points(rules, players)),
                      limit=Number(limit))
    if why is not None and exact_only:
        raise UsageError(_("no exact evaluation: {why}").format(why=why))
    if why is None and exact_only is not False:
        try:
            report = _exactly(advisor, player, top)
            report.seconds = time.perf_counter() - started
            return report
        except exact.NotExact as refusal:
            if exact_only:
                raise UsageError(_("no exact evaluation: {why}").format(why=refusal)) from None
            why = refusal.args[0] if refusal.args else ""
    report = _simulated(advisor, player, games, seed, top, progress)
    report.note = None if exact_only is False else Message(N_("simulated: {why}"), why=why)
    report.seconds = time.perf_counter() - started
    return report


def _exactly(advisor, player: Player, top: int) -> Report:
    rules, players = advisor.rules, advisor.players
    probe = Game(advisor, players)
    player.start(0)
    found = exact.evaluate(advisor.solution, player.answer, probe)
    seats = [SeatResult(d + 1, found.chances[d], found.optimal[d],
                        100.0 * (found.optimal[d] - found.chances[d]), None)
             for d in range(players)]
    merged: dict = {}
    for point, occupancy in found.costly:
        key = (point.scores, point.kind, point.turn_total, point.dice, point.roll)
        reach = sum(occupancy) / players
        if key in merged:
            merged[key].reach += reach
            merged[key].seats.append(point.seat + 1)
            continue
        merged[key] = Costly(_position(point.scores, point.turn_total, point.dice, point.roll),
                             point.kind, point.options[point.chosen], point.options[point.best],
                             point.values[point.chosen], point.values[point.best], reach,
                             [point.seat + 1])
    costliest = sorted(merged.values(), key=lambda c: -c.cost_pp)[:top]
    check = [(found.optimal[d] - found.chances[d]) - found.regret_sums[d]
             for d in range(players)]
    return Report(rules.name, rules.target, players, player.name, True, seats, costliest,
                  decision_points=found.points, check=check)


def _simulated(advisor, player: Player, games: int, seed: int, top: int, progress) -> Report:
    rules, players = advisor.rules, advisor.players
    if games < 2:
        raise UsageError(_("--games must be at least 2, not {given}").format(given=games))
    optimal = [float(x) for x in advisor.solution.seat_wins]
    seats, costs = [], defaultdict(lambda: [0.0, 0, None, set()])
    done, total = 0, games * players
    for d in range(players):
        regrets, wins = np.zeros(games), np.zeros(games)
        for g in range(games):
            game_seed = int(np.random.SeedSequence([seed, d, g]).generate_state(1)[0])
            regrets[g], wins[g] = _play(advisor, player, d, game_seed, costs)
            done += 1
            if progress is not None:
                progress(done, total)
        mean, se = float(regrets.mean()), float(regrets.std(ddof=1) / np.sqrt(games))
        rate, rate_se = float(wins.mean()), float(wins.std(ddof=1) / np.sqrt(games))
        seats.append(SeatResult(d + 1, optimal[d] - mean, optimal[d], 100.0 * mean, 100.0 * se,
                                rate, rate_se))
    costliest = []
    for (position, kind, chosen), (cost, visits, decision, where) in costs.items():
        costliest.append(Costly(position, kind, chosen, _answer(decision.best),
                                decision.chosen.win, decision.best.win, visits / total,
                                sorted(where)))
    costliest.sort(key=lambda c: -c.cost_pp)
    return Report(rules.name, rules.target, players, player.name, False, seats,
                  costliest[:top], games=games, seed=seed)


def _play(advisor, player: Player, d: int, seed: int, costs) -> tuple[float, float]:
    """One game with D in seat ``d``: D's regret summed, and D's share of
    the win; D's costly decisions added to ``costs``."""
    players = advisor.players
    game = Game(advisor, players, bots={s: OptimalBot() for s in range(players) if s != d},
                seed=seed)
    player.start(seed)
    regret = 0.0
    while game.phase != OVER:
        if game.phase == ROLL:
            game.throw()
        elif game.mover == d:
            state = game.state
            made = len(state.decisions)
            key_scores = tuple(state.lines[(d + k) % players].score for k in range(players))
            where = _position(key_scores, state.turn_total, state.in_hand, state.roll,
                              state.offer)
            game.choose(player.answer(game))
            if len(game.state.decisions) > made:
                decision = game.state.decisions[made]
                regret += decision.cost
                if decision.cost > 0:
                    key = (_key(where), decision.kind, _plain(_answer(decision.chosen)))
                    entry = costs[key]
                    entry[0] += decision.cost
                    entry[1] += 1
                    entry[2] = decision
                    entry[3].add(d + 1)
        else:
            game.bot_move()
        engine.settle(game)
    return regret, engine.shares(game)[d]


class _Frozen(dict):
    def __hash__(self):
        return hash(tuple(sorted((k, _plain(v)) for k, v in self.items())))


def _key(position: dict) -> _Frozen:
    return _Frozen(position)


def _position(scores, turn_total, dice, roll, offer=None) -> dict:
    """A decision's position as the report shows it (points; the
    policy's player first in ``scores``)."""
    out = {"scores": list(scores), "turn_total": turn_total, "dice": dice}
    if roll is not None:
        out["roll"] = list(roll)
    if offer is not None:
        out["offer"] = list(offer)
    return out


def _answer(choice):
    return tuple(choice.keep) if choice.action == "keep" else choice.action


def _plain(value):
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    return value

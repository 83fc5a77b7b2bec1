"""Play whole games with N players (2 to 6), to check the N-player tables and
compare policies.

The game loop is :mod:`solver.sim.game_loop_n` (its docstring says how a game
goes and how each policy plays); this module builds its records from the
rules, the policies (:mod:`solver.sim.policies`: ``optimal``, ``threshold:X``,
``expected``, ``random``) and the solved table (a
:class:`solver.engine.solution_n.MultiSolution` of these rules and players),
runs it in batches and reports every seat's win rate with its standard
error. A penalty's falls, scores below 0 included, and a final round's last
turns (:mod:`solver.sim.last_turns_n`, whose tables it fills when the loop
asks) are played as docs/rules.md says; a game a final round's tie leaves
to ``k`` players counts ``1/k`` of a win to each (``shares``,
:func:`seat_rate_and_se`).

This loop plays two seats as well (the very games of the two-player
simulator, tests/test_simulate_n.py), but two-player tables are
:class:`solver.engine.solution.Solution`: ``farkle simulate --players 2`` runs
:mod:`solver.sim.simulate`, and :func:`two_player_result` presents its result
in this module's form.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from solver.engine.solution_n import check_player_count
from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.model.turn_rules import TurnRules
from solver.sim.dice import dice_tables
from solver.sim.game_loop_n import (
    ALL_TURNS,
    DONE,
    FALLS,
    LAST_TURNS,
    MIXED_DRAWS,
    NEED_LAST_TURN,
    SHARED_GAMES,
    TAKE_OVERS,
    UNFINISHED,
    GamesN,
    run_games_n,
)
from solver.sim.last_turns_n import NEED_KEY, FinalRoundsN, LastTurnCache, empty_last_turns
from solver.sim.optimal_n import optimal_record
from solver.sim.policies import Policy, TableStore, parse_policy
from solver.sim.score_sheet import MAX_TURNS
from solver.sim.simulate import check_games_and_seed, win_rate_and_se
from solver.text import NBSP, _, language, ngettext

BATCH = 1 << 12
"""Games per call of the compiled loop (a progress report after each)."""


# ------------------------------------------------------------------ results

@dataclass
class SimulationN:
    """Games of N seats; lists are per seat, seat 1 (moving first) first."""
    rules: str
    target: int
    seats: list[str]
    """Each seat's policy."""
    games: int
    wins: list[int]
    unfinished: int
    """Games stopped at the turn cap (counted for nobody)."""
    seconds: float
    seed: int
    turns: int = 0
    """Turns played, all games and seats."""
    take_overs: int = 0
    falls: int = 0
    mixed_draws: int = 0
    """Decisions drawn at a mixed decision of the table."""
    predicted: list[float] | None = None
    """The table's ``seat_wins`` when every seat plays it, else None."""
    shared: int = 0
    """Games whose win was shared (a final round's tie at the highest
    score), ``1/k`` of a win to each of the ``k`` players who share it."""
    shares: list[list[int]] | None = None
    """``shares[seat][k]``: the games the seat shared with ``k - 1``
    others (k = 0 .. players; None: none shared)."""
    last_turns: int = 0
    """A final round's last turns played."""

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def finished(self) -> int:
        return self.games - self.unfinished

    @property
    def shared_wins(self) -> list[float]:
        """Each seat's wins from shared games: ``1/k`` of a game shared by ``k``."""
        if self.shares is None:
            return [0.0] * self.players
        return [sum(count / k for k, count in enumerate(row) if k) for row in self.shares]

    @property
    def win_rates(self) -> list[float]:
        """Each seat's wins over the finished games, a game shared by ``k``
        players ``1/k`` of a win."""
        return [seat_rate_and_se(w, row, self.finished)[0]
                for w, row in zip(self.wins, self._share_rows)]

    @property
    def stderr(self) -> list[float]:
        """Standard error of each win rate (:func:`seat_rate_and_se`):
        binomial, ``sqrt(p (1 - p) / finished)``, without shared games."""
        return [seat_rate_and_se(w, row, self.finished)[1]
                for w, row in zip(self.wins, self._share_rows)]

    @property
    def _share_rows(self) -> list[list[int]]:
        return self.shares if self.shares is not None else [[]] * self.players

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    def to_json(self) -> dict:
        return {"game": self.rules, "target": self.target, "players": self.players,
                "seats": self.seats, "games": self.games, "wins": self.wins,
                "win_rates": self.win_rates, "stderr": self.stderr,
                "predicted": self.predicted, "unfinished": self.unfinished,
                "seed": self.seed, "seconds": self.seconds,
                "games_per_second": self.games_per_second,
                "turns_mean": self.turns / self.games if self.games else math.nan,
                "take_overs": self.take_overs, "falls": self.falls,
                "mixed_draws": self.mixed_draws, "shared": self.shared,
                "shared_wins": self.shared_wins, "last_turns": self.last_turns}

    def describe(self) -> list[str]:
        """The result as lines of text: one per seat, with the table's
        prediction and the gap in standard errors."""
        lines = [_("{game} to {target}, {players} players, {games} games, seed {seed}").format(
            game=self.rules, target=figure(self.target), players=self.players,
            games=figure(self.games), seed=self.seed)]
        width = max(len(s) for s in self.seats)
        for seat, (policy, rate, se) in enumerate(zip(self.seats, self.win_rates, self.stderr)):
            line = _("seat {seat} ({policy}){pad}  wins {rate} +- {stderr}").format(
                seat=seat + 1, policy=policy, pad=" " * (width - len(policy)),
                rate=_percent(rate, 6), stderr=_percent(se))
            if self.predicted is not None:
                predicted = self.predicted[seat]
                gap = (rate - predicted) / se if se else 0.0
                line += _("   table {predicted} ({gap} standard errors)").format(
                    predicted=_percent(predicted, 6), gap=_decimal(f"{gap:+.1f}"))
            lines.append(line)
        lines.append(_("(+- one standard error)"))
        if self.shared:
            lines.append((_("{shared} games shared (a final round's tie), half a win each")
                          if self.players == 2 else
                          _("{shared} games shared (a final round's tie), 1/k of a win to each "
                            "of the k who share one")).format(shared=figure(self.shared)))
        if self.unfinished:
            lines.append(_("{count} games stopped at the turn cap and are not counted").format(
                count=figure(self.unfinished)))
        return lines


def _decimal(text: str) -> str:
    """A number written with a decimal point, with a decimal comma in French."""
    return text.replace(".", ",") if language() == "fr" else text


def _percent(fraction: float, width: int = 0) -> str:
    """``52.10%`` (right-aligned in ``width``), ``52,10 %`` in French."""
    text = _decimal(f"{100 * fraction:{width}.2f}")
    return text + (NBSP + "%" if language() == "fr" else "%")


def two_player_result(result, solution=None) -> SimulationN:
    """A :class:`solver.sim.simulate.SimulationResult` as a :class:`SimulationN`;
    ``solution`` (the two-player table) gives the prediction when both seats
    play it."""
    both_optimal = result.policy_a == result.policy_b == "optimal"
    predicted = None
    if both_optimal and solution is not None:
        first = solution.first_player_win
        predicted = [first, 1.0 - first]
    shares = [[0, 0, result.shared], [0, 0, result.shared]] if result.shared else None
    return SimulationN(result.rules, result.target, [result.policy_a, result.policy_b],
                       result.games, [result.wins_a, result.wins_b], result.unfinished,
                       result.seconds, result.seed, round(result.turns_mean * result.games),
                       predicted=predicted, shared=result.shared, shares=shares)


def seat_rate_and_se(wins: int, shares, finished: int) -> tuple[float, float]:
    """A seat's win rate ``p = (wins + sum_k shares[k] / k) / finished`` and
    its standard error from the per-game outcomes (1, 1/k, 0): ``sqrt(v /
    finished)``, ``v = (wins + sum_k shares[k] / k^2) / finished - p^2``
    (:func:`solver.sim.simulate.win_rate_and_se` with two players)."""
    if not any(shares[1:]):
        return win_rate_and_se(wins, 0, finished)
    if not finished:
        return math.nan, math.nan
    rate = (wins + sum(count / k for k, count in enumerate(shares) if k)) / finished
    square = (wins + sum(count / k ** 2 for k, count in enumerate(shares) if k)) / finished
    return rate, math.sqrt(max(square - rate * rate, 0.0) / finished)


# ------------------------------------------------------------------- input

def seat_policies(players: int, seats: list[str] | None, a: str | None = None,
                  b: str | None = None) -> list[Policy] | None:
    """The policies of ``--seat`` (one per seat, seat 1 first), checked; None
    when the two-player options ``--a``/``--b`` are to be used instead."""
    check_player_count(players)
    if seats and (a is not None or b is not None):
        raise UsageError(_("--seat and --a/--b do not mix: give --seat once per seat (or --a "
                           "and --b with two players)"))
    if not seats:
        if players != 2:
            raise UsageError(_("with {players} players give --seat POLICY once per seat "
                               "({players} times, seat 1 first)").format(players=players))
        if a is None or b is None:
            raise UsageError(_("give --a POLICY and --b POLICY (or --seat twice)"))
        return None
    if len(seats) != players:
        raise UsageError(ngettext(
            "--seat is given {count} time for {players} players (once per seat, seat 1 first)",
            "--seat is given {count} times for {players} players (once per seat, seat 1 first)",
            len(seats)).format(count=len(seats), players=players))
    policies = [parse_policy(text) for text in seats]
    check_card_seats(policies)
    return policies


def check_card_seats(policies: list[Policy]) -> None:
    """A UsageError where a card sits at a table of more than two: the
    compiled loop has no card of its own (its chance with N players is
    measured exactly: :func:`solver.cards.seat_value.card_seat_values_n`)."""
    if len(policies) > 2 and any(p.kind == "card" for p in policies):
        raise UsageError(_("the card policy plays two-player games only (its chance with more "
                           "players: farkle card GAME --players N)"))


def _check_table(rules: Rules, solution, players: int) -> None:
    from solver.engine.solution_n import MultiSolution
    if solution is None:
        raise UsageError(_("the optimal policy needs a solved table of {game} to {target} with "
                           "{players} players").format(game=rules.name,
                                                       target=figure(rules.target),
                                                       players=players))
    if not isinstance(solution, MultiSolution) or solution.players != players:
        raise UsageError(_("the table is not one of {players} players").format(players=players))
    if solution.rules != rules:
        raise UsageError(_("the table is for {game} to {target}, not {wanted} to "
                           "{wanted_target}").format(
            game=solution.rules.name, target=figure(solution.rules.target),
            wanted=rules.name, wanted_target=figure(rules.target)))


# ------------------------------------------------------------------ driver

def simulate_n(rules: Rules, policies, games: int, seed: int = 0, solution=None,
               progress=None, max_turns: int = MAX_TURNS) -> SimulationN:
    """Play ``games`` games, seat ``i`` playing ``policies[i]`` (seat 1
    first). ``solution`` (a :class:`solver.engine.solution_n.MultiSolution`
    of these rules and as many players) is needed by the ``optimal``
    policy. ``progress(done, total)`` is called after each batch."""
    rules.validate()
    policies = [parse_policy(p) for p in policies]
    N = len(policies)
    check_player_count(N)
    check_card_seats(policies)
    check_games_and_seed(games, seed)
    optimal = any(p.kind == "optimal" for p in policies)
    if optimal:
        _check_table(rules, solution, N)
    started = time.perf_counter()
    dice = dice_tables(rules)
    tables = TableStore(rules, N, policies).record()
    record = optimal_record(rules, solution if optimal else None, dice, N)
    state = GamesN.new(N, seed, max_turns)
    rounds = FinalRoundsN.new(N)
    turn = TurnRules.of(rules)
    # A final round's last turns read the engine's DP of each (every
    # policy but random: solver.sim.last_turns_n).
    last_turns = LastTurnCache(rules, N) if rules.final_round and any(
        p.kind != "random" for p in policies) else None
    no_last_turns = empty_last_turns(rules, N)
    done = 0
    while done < games:
        done = min(games, done + BATCH)
        while True:
            last = no_last_turns if last_turns is None else last_turns.record
            status = run_games_n(turn, dice, tables, record, last, state, rounds, done)
            if status != NEED_LAST_TURN:
                break
            last_turns.fill(int(rounds.now[NEED_KEY]))
        if status != DONE:
            raise RuntimeError("the simulator reached a player state that the solved table "
                               "does not hold: simulator and solver disagree")
        if progress is not None:
            progress(done, games)
    st = state.state
    everyone_optimal = all(p.kind == "optimal" for p in policies)
    shared = int(st[SHARED_GAMES])
    return SimulationN(
        rules.name, rules.target, [str(p) for p in policies], games,
        [int(w) for w in state.wins], int(st[UNFINISHED]), time.perf_counter() - started,
        seed, int(st[ALL_TURNS]), int(st[TAKE_OVERS]), int(st[FALLS]), int(st[MIXED_DRAWS]),
        [float(v) for v in solution.seat_wins] if everyone_optimal else None, shared,
        rounds.shares.tolist() if shared else None, int(st[LAST_TURNS]))

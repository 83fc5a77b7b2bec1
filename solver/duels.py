"""The model for N players where the exact game is out of reach: a race of duels.

A player must finish before every opponent. The two-player table ``W`` of
the same rules gives the chance ``q`` of beating each opponent alone; the
model combines them as a race of players whose times to finish are
independent and memoryless (exponential, of rates ``lambda``): then
``q(k, j) = lambda_k / (lambda_k + lambda_j)``, so the odds against ``k``
are ``lambda_j / lambda_k = (1 - q(k, j)) / q(k, j)``, and player ``k``
finishes first with chance

    M_k = 1 / (1 + sum_{j != k} (1 - q(k, j)) / q(k, j))          (0 if some q is 0)
    q(k, j) = W[x_k, x_j]          if k < j   (k plays before j this round)
            = 1 - W[x_j, x_k]      if k > j,

``k`` counting seats after the mover at the turn start ``x_0 .. x_{N-1}``.
With two players ``M`` is ``W`` itself; from an even start it gives each of
N players 1/N, where a product of the duels would give 2^-(N-1).

Only the mover's turn is played by the model; inside it the turn DP of
:mod:`solver.turn` is exact, with the ways a turn ends priced by ``M`` at
the turn start that follows (the mover ``me`` in state ``m'`` sits last
there, after the opponents ``o_1 .. o_{N-1}`` in seat order):

    Z       = M with q_j = 1 - W[o_j, m0]              m0: my state after a zero turn
    B(t, n) = M with q_1 = the two-player bank value of :mod:`solver.turn`
              against o_1 (who takes the offer as the two-player table
              does against me, the banker), q_j = 1 - W[o_j, m'] for j >= 2
    reach   = M with q_j = reach[o_j]                  (:class:`solver.solution.Values`)

An offer made to me is taken when this turn DP says so: rolling with the
offer in hand, ``R(t, n)``, beats a fresh start, ``R(0, D)``.

The model takes no fitted parameter. Where both exist,
:func:`solver.seat_value.model_seat_values` measures exactly what it gives
up against the N-player table's players, from the same ``M`` over every
turn start (:func:`model_values`). Its chances are the model's ranking of
the choices, not the N-player game's, so advice from it gives ``win`` and
no ``wins``.
"""

from __future__ import annotations

import numpy as np

from .advice import Advice, Advisor, _plain
from .solution import Solution
from .turn import bank_values, pad, turn_values
from .dice import keep_table

def duel_values(solution):
    """A two-player table as the N = 2 vectors of :mod:`solver.multi_kernel`,
    whose take-over rows are indexed by the turn total itself: a two-player
    table keeps offer ``t`` of bank slot ``s`` at row ``t - offer_first[s]``
    (:attr:`solver.states.PlayerSpace.offers`)."""
    from .multi_kernel import MultiValues     # numba: not for a single answer
    W = np.asarray(solution.W)
    V = np.stack([W.ravel(), 1.0 - W.ravel()], axis=1)
    take = np.asarray(solution.take_values)
    if solution.rules.has_takeover:
        takers, slots, offer_rows, dice = take.shape
        first = solution.space.offers[0]
        target = solution.rules.target_units
        by_total = np.zeros((takers, slots, target, dice))
        for slot in range(slots):
            rows = min(offer_rows, target - first[slot])
            by_total[:, slot, first[slot]:first[slot] + rows] = take[:, slot, :rows]
        take = by_total
    rows = take.reshape((-1,) + take.shape[2:])
    return MultiValues(V, np.stack([rows, 1.0 - rows], axis=-1))


def race(chances) -> np.ndarray:
    """``M`` of the module docstring from the chances of beating each
    opponent alone (arrays that broadcast together)."""
    against = 0.0
    for q in chances:
        q = np.asarray(q, dtype=float)
        beaten = q > 0
        against = against + np.where(beaten, (1.0 - q) / np.where(beaten, q, 1.0), np.inf)
    return 1.0 / (1.0 + against)


def _pair(W, states, k, j):
    """``q(k, j)`` of the module docstring, over arrays of player states."""
    return W[states[k], states[j]] if k < j else 1.0 - W[states[j], states[k]]


def model_values(two: Solution, players: int):
    """``M`` at every turn start of ``players`` players on ``two``'s player
    states, laid out as :class:`solver.multi_solution.MultiSolution` lays
    its values (``V[node, k]``; take-over rows indexed by the turn total):
    the model's values for :func:`solver.seat_value.model_seat_values`.
    A take-over row (taker ``x_0``, banker ``x_{N-1}``) prices the pair of
    them by the taker's two-player roll value ``R`` after taking the offer
    (0 where the table keeps no offer worth taking), the other pairs as at
    a turn start."""
    from .multi_kernel import MultiValues, Seats     # numba: not for a single answer
    W = np.asarray(two.W)
    P, N = W.shape[0], players
    nodes = np.arange(P ** N, dtype=np.int64)
    states = [(nodes // P ** (N - 1 - k)) % P for k in range(N)]
    V = np.stack([race([_pair(W, states, k, j) for j in range(N) if j != k])
                  for k in range(N)], axis=1)
    space = two.space
    if not two.rules.has_takeover:
        return MultiValues(V, np.zeros((1, 1, 1, N)))
    seats = Seats.of(N, space)
    duel = duel_values(two).take_values[..., 0]         # [taker row x slot, t, n - 1]
    take_row = space.moves().take_row
    slots = np.flatnonzero(space.bank_slot >= 0)
    middle = np.arange(seats.middle, dtype=np.int64)
    mids = [(middle // P ** (N - 3 - k)) % P for k in range(N - 2)]
    take = np.zeros((int(np.sum(take_row >= 0)) * seats.middle * len(slots),)
                    + duel.shape[1:] + (N,))
    for taker in np.flatnonzero(take_row >= 0):
        for banker in slots:
            row, slot = take_row[taker], space.bank_slot[banker]
            x = duel[row * len(slots) + slot][None]       # the taker's chance against the banker
            where = [np.full(seats.middle, taker), *mids, np.full(seats.middle, banker)]

            def beats(k, j):
                return _pair(W, where, k, j)[:, None, None]
            i0 = row * seats.middle * len(slots) + slot
            block = take[i0:i0 + seats.middle * len(slots):len(slots)]
            block[..., 0] = race([x] + [beats(0, j) for j in range(1, N - 1)])
            block[..., N - 1] = race([1.0 - x] + [beats(N - 1, j) for j in range(1, N - 1)])
            for k in range(1, N - 1):
                block[..., k] = race([beats(k, j) for j in range(N) if j != k])
    return MultiValues(V, take)


class DuelsAdvisor(Advisor):
    """Advice for N players from the two-player table, by the race-of-duels
    model (module docstring)."""

    MODEL = "duels"
    """The name advice gives the model (``model`` in JSON)."""

    def __init__(self, solution: Solution, players: int):
        super().__init__(solution)
        self.players = players
        self.two = solution

    def _replay_uncached(self, key: tuple, zero_to: int | None):
        """``(Z, R, A, B, None)`` of my turn at ``key`` (me first, then the
        opponents in seat order), each with one component: mine under the
        model."""
        two, rules = self.two, self.rules
        me, opps = key[0], key[1:]
        space = self.space
        # Each opponent's row of W: their chance moving first against each of my states.
        rows = [np.asarray(two.W[o]) for o in opps]
        moves = space.moves(two.take_row)
        values = two.values()
        target = rules.target_units
        zero_state = space.zero_next[me] if zero_to is None else zero_to
        Z = float(race([1.0 - row[zero_state] for row in rows]))
        B = bank_values(self.turn, moves, values, me, opps[0], Z)
        banks = np.flatnonzero(np.isfinite(B).any(axis=1))
        after = space.bank_next[me, banks]
        allowed = np.isfinite(B[banks])
        priced = race([np.where(allowed, B[banks], 1.0)]
                      + [1.0 - row[after][:, None] for row in rows[1:]])
        B[banks] = np.where(allowed, priced, -np.inf)
        B[banks[after == space.zero_next[me]]] = Z       # a bank that changes nothing
        reach = race([values.reach[o] for o in opps])
        R, A, B = turn_values(self.turn, keep_table(rules).packed(), moves,
                              values._replace(reach=reach[None]), me, 0, Z, target,
                              pad(rules, target), bank=B)
        B = np.where(B > -np.inf, B, np.nan)
        return (*(np.asarray(x, dtype=float)[..., None] for x in (Z, R, A, B)), None)

    def _modelled(self, advice: Advice, opp) -> Advice:
        for choice in advice.choices:
            choice.wins = None
        advice.model = self.MODEL
        advice.position["opp"] = _plain(opp)
        model_note = (f"model: no exact {self.players}-player table for {self.rules.name} to "
                      f"{self.rules.target}; these chances are a race of independent duels "
                      f"with each opponent (README)")
        advice.note = f"{advice.note}; {model_note}" if advice.note else model_note
        return advice

    def bank_or_roll(self, me, opp, turn: int, dice: int) -> Advice:
        return self._modelled(super().bank_or_roll(me, opp, turn, dice), opp)

    def keep(self, me, opp, turn: int, dice: int, roll) -> Advice:
        return self._modelled(super().keep(me, opp, turn, dice, roll), opp)

    def take_or_fresh(self, me, opp, offer: int, offer_dice: int) -> Advice:
        return self._modelled(super().take_or_fresh(me, opp, offer, offer_dice), opp)

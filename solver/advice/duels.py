"""The model for N players where the exact game is out of reach: a race of duels, one turn ahead.

A player must finish before every opponent. The two-player table ``W`` of
the same rules gives the chance ``q`` of beating each opponent alone; the
model combines them as a race of players whose times to finish are
independent and normal of one spread (Thurstone's case V): the pairwise
chance fixes the gap between two players' mean times,
``q(k, j) = Phi((mu_j - mu_k) / sqrt(2))``, and player ``k`` finishes
first with chance

    M_k = E_z[ prod_{j != k} Phi(sqrt(2) Phi^-1(q(k, j)) - z) ],   z ~ N(0, 1)
    q(k, j) = W[x_k, x_j]          if k < j   (k plays before j this round)
            = 1 - W[x_j, x_k]      if k > j,

``k`` counting seats after the mover at the turn start ``x_0 .. x_{N-1}``
(Gauss-Hermite quadrature, :data:`QUADRATURE` nodes). With two players
``M`` is ``W`` itself; from an even start it gives each of N players 1/N.
Times that are exponential instead (the odds against ``k`` add up: the
race of the first version) lose more, with the look-ahead below, in the
three games where it was measured (BENCHMARKS.md, 2026-12-02 evening).

A turn start just after the previous player's bank, where the mover may
take over, is priced the same way except for the pair (taker ``x_0``,
banker ``x_{N-1}``), whose chance is the taker's two-player roll value
``R`` after taking the offer (0 where the table keeps no offer worth
taking).

The model's player does not price the end of their turn by ``M`` directly:
the next player's turn is played out first, by the N-player turn DP over
``M`` (:mod:`solver.advice.lookahead`), and the model's values ``M1`` are what it
gives. With two players ``W`` is that step's fixed point, so the model is
the two-player table. Inside my turn the turn DP of :mod:`solver.engine.turn` is
exact, with

    Z       = M1 at the turn start after my zero turn (my component)
    B(t, n) = M1 at the turn start after my bank, or the next player's roll
              value with my offer where their turn DP takes it
    reach   = the law with q_j = reach[o_j]                  (:class:`solver.engine.solution.Values`)

and an offer made to me is taken when this turn DP says so: rolling with
the offer in hand, ``R(t, n)``, beats a fresh start, ``R(0, D)``.

The model takes no fitted parameter. Where both exist,
:func:`solver.cards.seat_value.model_seat_values` measures exactly what it gives
up against the N-player table's players, from the same ``M1`` over every
turn start (:func:`model_values`). Its chances are the model's ranking of
the choices, not the N-player game's, so advice from it gives ``win`` and
no ``wins``.
"""

from __future__ import annotations

import numpy as np

from solver.advice.advisor import Advice, Advisor, _plain
from solver.engine.solution import Solution
from solver.engine.turn import bank_allowed, bank_values, pad, turn_values
from solver.model.dice import keep_table
from solver.model.messages import Figure, Message
from solver.model.turn_rules import offer
from solver.text import N_


def duel_values(solution):
    """A two-player table as the N = 2 vectors of :mod:`solver.engine.turn_kernel_n`,
    whose take-over rows are indexed by the turn total itself: a two-player
    table keeps offer ``t`` of bank slot ``s`` at row ``t - offer_first[s]``
    (:attr:`solver.model.states.PlayerSpace.offers`)."""
    from solver.engine.turn_kernel_n import MultiValues  # numba: not for a single answer
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


QUADRATURE = 60
"""Gauss-Hermite nodes of the law's expectation over ``z``."""
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(QUADRATURE)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def finish_first(chances) -> np.ndarray:
    """``M`` of the module docstring from the chances of beating each
    opponent alone (arrays that broadcast together). One opponent: the
    chance itself, exactly."""
    chances = [np.asarray(q, dtype=float) for q in chances]
    if len(chances) == 1:
        return chances[0].copy()
    from solver.advice.normal import ndtr, ndtri  # numba: the look-ahead loads it anyway
    gaps = [np.sqrt(2.0) * ndtri(q) for q in chances]      # +-inf at q = 1 or 0
    out = 0.0
    for z, weight in zip(_NODES, _WEIGHTS):
        term = weight
        for gap in gaps:
            term = term * ndtr(gap - z)
        out = out + term
    return out


def _pair(W, states, k, j):
    """``q(k, j)`` of the module docstring, over arrays of player states."""
    return W[states[k], states[j]] if k < j else 1.0 - W[states[j], states[k]]


def law_values(W, states) -> np.ndarray:
    """The law's chance vectors ``[..., k]`` at the turn starts ``states``
    (the N players' states in seat order from the mover, arrays that
    broadcast together)."""
    N = len(states)
    return np.stack([finish_first([_pair(W, states, k, j) for j in range(N) if j != k])
                     for k in range(N)], axis=-1)


def law_take_values(W, states, duel) -> np.ndarray:
    """The law's take-over rows ``[..., k]`` (module docstring): ``states``
    from the taker to the banker, ``duel`` the taker's two-player roll value
    against the banker, with trailing axes (turn total, dice) of its own."""
    N = len(states)
    extra = (None,) * (np.ndim(duel) - np.ndim(states[0]))

    def beats(k, j):
        return _pair(W, states, k, j)[(...,) + extra]
    middle = range(1, N - 1)
    columns = [finish_first([duel] + [beats(0, j) for j in middle])]
    columns += [finish_first([beats(k, j) for j in range(N) if j != k]) for k in middle]
    columns.append(finish_first([1.0 - duel] + [beats(N - 1, j) for j in middle]))
    return np.stack(np.broadcast_arrays(*columns), axis=-1)


LAW_SLICE = 2**20
"""Turn starts whose law values :func:`model_values` makes at once."""


def model_values(two: Solution, players: int):
    """``M1`` at every turn start of ``players`` players on ``two``'s player
    states, laid out as :class:`solver.engine.solution_n.MultiSolution` lays
    its values (``V[node, k]``; take-over rows indexed by the turn total):
    the model's values for :func:`solver.cards.seat_value.model_seat_values`."""
    from solver.advice.lookahead import step
    from solver.engine.turn_kernel_n import MultiValues, Seats  # numba: not for a single answer
    W = np.asarray(two.W)
    P, N = W.shape[0], players
    V = np.empty((P ** N, N))
    # A slice of turn starts at a time: the law's pairs are temporaries of
    # a slice's size, not of V's (4-player Pig to 100: V 3.2 GB).
    for start in range(0, P ** N, LAW_SLICE):
        nodes = np.arange(start, min(start + LAW_SLICE, P ** N), dtype=np.int64)
        V[start:start + len(nodes)] = law_values(
            W, [(nodes // P ** (N - 1 - k)) % P for k in range(N)])
    space = two.space
    if not two.rules.has_takeover:
        law = MultiValues(V, np.zeros((1, 1, 1, N)))
    else:
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
                where = [np.full(seats.middle, taker), *mids, np.full(seats.middle, banker)]
                i0 = row * seats.middle * len(slots) + slot
                take[i0:i0 + seats.middle * len(slots):len(slots)] = law_take_values(
                    W, where, duel[row * len(slots) + slot][None])
        law = MultiValues(V, take)
    # With two players W is the look-ahead's fixed point: the table itself.
    return law if N == 2 else step(two.rules, space, N, law)


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
        two, rules, space = self.two, self.rules, self.space
        me, opps = key[0], key[1:]
        moves = space.moves(two.take_row)
        values = two.values()
        target = rules.target_units
        zero_state = space.zero_next[me] if zero_to is None else zero_to
        if len(opps) == 1:       # the model is the two-player table: its own prices
            Z = 1.0 - float(values.W[opps[0], zero_state])
            B = bank_values(self.turn, moves, values, me, opps[0], Z)
        else:
            Z, B = self._looked_ahead(me, opps, zero_state, moves)
        reach = finish_first([values.reach[o] for o in opps])
        R, A, B = turn_values(self.turn, keep_table(rules).packed(), moves,
                              values._replace(reach=reach[None]), me, 0, Z, target,
                              pad(rules, target), bank=B)
        B = np.where(B > -np.inf, B, np.nan)
        return (*(np.asarray(x, dtype=float)[..., None] for x in (Z, R, A, B)), None)

    def _looked_ahead(self, me: int, opps: tuple, zero_state: int, moves):
        """My ``Z`` and ``B`` (``-inf`` where the bank is not allowed) from
        ``M1``: the next player's turn played over the law's values once for
        every state my turn can leave me in
        (:func:`solver.advice.lookahead.next_turns`)."""
        from solver.advice.lookahead import next_turns
        from solver.engine.turn_kernel_n import EPS
        two, space, rules = self.two, self.space, self.rules
        W, N = np.asarray(two.W), self.players
        allowed = bank_allowed(self.turn, moves, me)
        banks = np.flatnonzero(allowed.any(axis=1))
        mine = space.bank_next[me, banks]
        ends = np.unique(np.r_[zero_state, mine])
        # The next player's turn ends: their zero turn and every bank.
        mover, others = opps[0], opps[1:]
        theirs = space.bank_next[mover, :rules.target_units - int(space.score[mover])]
        theirs_valid = np.flatnonzero(theirs >= 0)
        xs = np.unique(np.r_[space.zero_next[mover], theirs[theirs_valid]])
        after = np.zeros((len(ends), space.size, N))
        after[:, xs] = law_values(W, [*others, ends[:, None], xs[None, :]])
        zero_values = after[:, space.zero_next[mover]]
        taker_row = moves.take_row[others[0]]
        next_may_take = rules.has_takeover and taker_row >= 0
        take = None
        if next_may_take:
            # The player after the next takes over an offer of the next player's
            # bank of t into x: the law's rows at those (t, x), every offered dice.
            ts = theirs_valid[(theirs[theirs_valid] != space.zero_next[mover])
                              & (space.bank_slot[theirs[theirs_valid]] >= 0)]
            xs_t = theirs[ts]
            slots = space.bank_slot[xs_t]
            # One taker's row of the table (a table file decodes only that row),
            # read as bank_values reads it.
            row = np.asarray(two.take_values[taker_row])   # [slot, t - offer_first, n - 1]
            duel = row[slots, ts - moves.offer_first[slots]]
            rows = law_take_values(W, [*(np.full((1, 1), o) for o in others),
                                       ends[:, None], xs_t[None, :]], duel[None])
            take = (slots, ts, rows)
        M1, R1 = next_turns(rules, space, N, mover, ends, zero_values, after, take,
                            next_may_take)
        where = {int(e): i for i, e in enumerate(ends)}
        Z = float(M1[where[int(zero_state)], N - 1])
        priced = np.full(allowed.shape, -np.inf)
        for t, state in zip(banks, mine):
            chosen = M1[where[int(state)]]
            for n in np.flatnonzero(allowed[t]):
                value = chosen
                offered = offer(self.turn, n)
                if offered and R1 is not None and space.bank_slot[state] >= 0:
                    taken = R1[where[int(state)], t, offered]
                    if taken[0] > chosen[0] + EPS:
                        value = taken
                priced[t, n] = value[N - 1]
        priced[banks[mine == space.zero_next[me]]] = Z     # a bank that changes nothing
        priced[~allowed] = -np.inf
        return Z, priced

    def _modelled(self, advice: Advice, opp) -> Advice:
        for choice in advice.choices:
            choice.wins = None
        advice.model = self.MODEL
        advice.position["opp"] = _plain(opp)
        model_note = Message(N_(
            "model: no exact {players}-player table for {game} to {target}; these chances are "
            "a race of independent duels with each opponent, the next player's turn played out "
            "(docs/players.md)"), players=self.players, game=self.rules.name,
            target=Figure(self.rules.target))
        advice.note = (Message(N_("{first}; {then}"), first=advice.note, then=model_note)
                       if advice.note else model_note)
        return advice

    def bank_or_roll(self, me, opp, turn: int, dice: int) -> Advice:
        return self._modelled(super().bank_or_roll(me, opp, turn, dice), opp)

    def keep(self, me, opp, turn: int, dice: int, roll) -> Advice:
        return self._modelled(super().keep(me, opp, turn, dice, roll), opp)

    def take_or_fresh(self, me, opp, offer: int, offer_dice: int) -> Advice:
        return self._modelled(super().take_or_fresh(me, opp, offer, offer_dice), opp)

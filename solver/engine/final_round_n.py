"""The final round with N players: what a bank past the target is worth.

Once a player banks ``H >= T`` (the target; ``Rules.final_round``), every
other player, in seat order, has one last turn to pass the highest score;
the highest score then wins, a tie shared (docs/rules.md). Seats are counted
from the banker, seat 0; seats ``1 .. N - 1`` take their last turns in that
order. Seat ``j`` at score ``s_j`` holding the turn total ``t`` stands at
``x = s_j + t``, and its turn is a turn DP over ``x`` whose values are the
N seats' chances ``F``, seat ``j`` choosing by its own component (ties as
:mod:`solver.engine.turn_kernel_n`: bank rather than roll; the keep with the
most points, then the most dice). With ``M`` the seats holding ``H`` and
``e_j`` seat ``j`` winning alone:

    a zero roll          F_{j+1}(H, M)                 (seat j is out)
    an instant-win keep  e_j
    a bank at x >= H     F_{j+1}(H, M + {j})   x == H  (a tie so far)
                         F_{j+1}(x, {j})       x > H   (the new highest)
    F_N(H, M)            1/|M| for each seat of M      (no one left)

and seat ``j``'s chance at its turn start is ``F_j(H, M)[s_j] = R(s_j, D)``,
all dice in hand. The last seat's turn ends as soon as it passes ``H``
(nothing more can change it: ``e_j``), as in the two-player last turn
(:mod:`solver.model.last_turn`, which is this recursion at N = 2). A seat
before the last may roll on past ``H`` to set a higher mark, up to
``C_j = T + (j + 1) E`` (``E``: :func:`solver.model.last_turn.past_target_units`),
where it banks by decree: reaching it has a chance below 1e-8 per ``E``.

The DP runs over ``x``, not ``t``: a bank needs ``x >= H``, and there
``t >= T - s_j`` is at least one unit and, at 0, the entry (below the
target); so one DP serves every ``s_j``. A minimum bank would make the bank
depend on ``t``; it is refused with three players or more
(:func:`solver.tables.estimates.check_players`).

What the N-player solver reads (:class:`solver.engine.turn_kernel_n.MultiValues`)
is ``reach[rest, k] = F_1(T + k, {0})[s_1]`` with the others at ``rest``
(``s_2 .. s_{N-1}`` further down the chain), ``k = 0 .. E``. With two players
it is :func:`solver.engine.solution.final_round_reach` and its complement.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from solver.engine import turn_kernel_n
from solver.engine.solution import final_round_reach
from solver.engine.turn_kernel_n import EPS, NO_FINAL_ROUND, more_points_or_dice
from solver.model.compiled_rules import drop_stale_caches
from solver.model.dice import keep_table
from solver.model.last_turn import past_target_units
from solver.model.rules import Rules
from solver.model.states import PlayerSpace
from solver.model.turn_rules import TurnRules

drop_stale_caches(__file__, turn_kernel_n.__file__)


def dp_rows(dice, top: int) -> int:
    """Rows of a last turn's DP arrays: totals up to ``top`` and as far past
    it as one keep reaches."""
    return top + int(np.max(dice.keep_units)) + 2


@njit(cache=True)
def last_turn_dp(rules, dice, j, players, H, top, last, bank_values, zero, out, A, rolled):
    """Seat ``j``'s last turn facing ``H`` (module docstring): ``out[x] =
    R(x, D)`` for ``x < len(out)``. ``bank_values[x - H]`` for ``H <= x <=
    top``; past ``top`` the last seat has won, another banks at ``top``.
    ``A`` (``dp_rows`` rows) receives every ``(x, n)``'s chances after the
    seat's choice, and ``rolled``, unless it has no rows, those of rolling."""
    roll_first, prob, keep_first, keep_units, keep_col = dice[:5]
    D, N = rules.dice, players
    rows = A.shape[0]
    for x in range(rows):
        for k in range(N):
            A[x, 0, k] = 1.0 if k == j else 0.0
        if x > top:
            for n in range(1, D + 1):
                for k in range(N):
                    A[x, n, k] = (1.0 if k == j else 0.0) if last else bank_values[top - H, k]
    value = np.empty(N)
    for x in range(top, -1, -1):
        for n in range(1, D + 1):
            value[:] = 0.0
            for r in range(roll_first[n], roll_first[n + 1]):
                k0, k1 = keep_first[r], keep_first[r + 1]
                p = prob[r]
                if k0 == k1:
                    for k in range(N):
                        value[k] += p * zero[k]
                    continue
                chosen = k0
                best = A[x + keep_units[k0], keep_col[k0], j]
                for kk in range(k0 + 1, k1):
                    v = A[x + keep_units[kk], keep_col[kk], j]
                    if v > best + EPS or (v >= best - EPS and more_points_or_dice(
                            keep_units[kk], keep_col[kk], keep_units[chosen], keep_col[chosen],
                            D, n)):
                        chosen, best = kk, max(v, best)
                for k in range(N):
                    value[k] += p * A[x + keep_units[chosen], keep_col[chosen], k]
            if n == D and x < len(out):
                out[x] = value
            if rolled.shape[0]:
                rolled[x, n] = value
            A[x, n] = value
            if x >= H and not (rules.forced and n == D):
                if bank_values[x - H, j] >= value[j] - EPS:
                    A[x, n] = bank_values[x - H]


@njit(cache=True)
def shared_ends(j, players, mask, zero, tie):
    """The last seat ``j``'s ends facing the holders ``mask``: ``zero``, its
    zero roll (the holders share the win), and ``tie``, its bank equal to
    ``H`` (shared with ``j`` too)."""
    holders = 0
    for k in range(players):
        if mask >> k & 1:
            holders += 1
    for k in range(players):
        zero[k] = 1.0 / holders if mask >> k & 1 else 0.0
        tie[k] = 1.0 / (holders + 1) if (mask | 1 << j) >> k & 1 else 0.0


@njit(cache=True, parallel=True)
def _seat_level(rules, dice, j, players, target, E, mask, F_next, F):
    """``F_j(H, mask)`` for every ``H`` and every score of the seats after
    ``j`` (``F[h, later, s_j]``), from ``F_next`` (seat ``j + 1``'s, or
    nothing for the last seat)."""
    N = players
    last = j == N - 1
    scores = F.shape[2]
    later_count = F.shape[1]
    below = later_count // scores if not last else 1     # seats after j + 1
    cap = target + (j + 1) * E
    max_keep = np.max(dice.keep_units)
    for job in prange(F.shape[0] * later_count):
        h, later = job // later_count, job % later_count
        H = target + h
        zero = np.zeros(N)
        if last:
            top = H
            bank_values = np.zeros((1, N))
            shared_ends(j, N, mask, zero, bank_values[0])
        else:
            top = cap
            s_next, rest = later // below, later % below
            zero[:] = F_next[h, mask, rest, s_next]
            bank_values = np.empty((cap - H + 1, N))
            bank_values[0] = F_next[h, mask | 1 << j, rest, s_next]
            for x in range(H + 1, cap + 1):
                bank_values[x - H] = F_next[x - target, 1 << j, rest, s_next]
        A = np.empty((top + max_keep + 2, rules.dice + 1, N))
        last_turn_dp(rules, dice, j, N, H, top, last, bank_values, zero, F[h, later], A,
                     np.empty((0, 0, N)))


class SeatTurn(NamedTuple):
    """Seat ``seat``'s last turn (seats counted from the banker, seat 0)
    facing the highest score ``mark`` (units), for advice, play and the
    simulator; ``k`` below counts the N seats from the banker. Its choices
    are the DP's: a keep maximises ``value[x + points, dice left, seat]``
    (ties: :func:`solver.engine.turn_kernel_n.more_points_or_dice`); at
    ``x >= mark`` (not hot dice in a forced game) a bank is chosen where
    ``bank[x - mark, seat] >= roll[x, n, seat] - EPS``."""
    seat: int
    mark: int
    top: int
    """Past it the last seat has won and another banks by decree."""
    last: bool
    roll: np.ndarray
    """``[x, n, k]``: rolling ``n`` dice holding ``x`` (score + turn total)."""
    value: np.ndarray
    """``[x, n, k]``: the same after the choice of banking or rolling;
    ``value[x, 0]`` is an instant win."""
    bank: np.ndarray
    """``[x - mark, k]`` for ``mark <= x <= top``: a bank at ``x``."""
    zero: np.ndarray
    """``[k]``: a zero roll (the seat is out)."""


def seat_last_turn(rules: Rules, players: int, seat: int, mark: int, holders: int,
                   later: tuple[int, ...]) -> SeatTurn:
    """Seat ``seat``'s last turn facing ``mark`` held by the seats of the
    bit mask ``holders``, the seats after it at the scores ``later`` (units,
    in playing order): the module's recursion for this one state, the
    later seats' turn starts from :func:`_turn_starts` (cached)."""
    turn, dice = TurnRules.of(rules), keep_table(rules).packed()
    N, last = players, seat == players - 1
    if last:
        top = mark
        zero, bank = np.empty(N), np.empty((1, N))
        shared_ends(seat, N, holders, zero, bank[0])
    else:
        top = rules.target_units + (seat + 1) * past_target_units(rules)
        after, rest = later[0], tuple(later[1:])

        def start(mark_then: int, holders_then: int) -> np.ndarray:
            return _turn_starts(rules, N, seat + 1, mark_then, holders_then, rest)[after]

        zero = start(mark, holders)
        bank = np.array([start(mark, holders | 1 << seat)]
                        + [start(x, 1 << seat) for x in range(mark + 1, top + 1)])
    value = np.empty((dp_rows(dice, top), rules.dice + 1, N))
    roll = np.empty_like(value)
    last_turn_dp(turn, dice, seat, N, mark, top, last, bank, zero, np.empty((0, N)), value,
                 roll)
    return SeatTurn(seat, mark, top, last, roll, value, bank, zero)


@lru_cache(maxsize=1 << 14)
def _turn_starts(rules: Rules, players: int, seat: int, mark: int, holders: int,
                 later: tuple[int, ...]) -> np.ndarray:
    """``F_seat(mark, holders)[s]`` for every score ``s`` below the target
    (module docstring): the seat's chances at its turn start, all dice in
    hand (a few kB each: 4 players at 10,000 fill some 3,600 for one state)."""
    turn = seat_last_turn(rules, players, seat, mark, holders, later)
    return turn.roll[:rules.target_units, rules.dice].copy()


def chain_values(rules: Rules, players: int) -> np.ndarray:
    """``F_1(T + k, {0})[later, s_1]``, ``k = 0 .. E`` (module docstring),
    ``later`` the scores ``s_2 .. s_{N-1}`` in base ``T``, ``s_2`` first."""
    turn = TurnRules.of(rules)
    dice = keep_table(rules).packed()
    T, E, N = rules.target_units, past_target_units(rules), players
    F_next = np.zeros((1, 1, 1, 1, N))
    for j in range(N - 1, 1, -1):
        F = np.zeros((j * E + 1, 1 << j, T ** (N - 1 - j), T, N))
        for mask in range(1, 1 << j):
            _seat_level(turn, dice, j, N, T, E, mask, F_next, F[:, mask])
        F_next = F
    # Seat 1 faces the banker alone (mask {0}): only that one is kept.
    F = np.zeros((E + 1, T ** (N - 2), T, N))
    _seat_level(turn, dice, 1, N, T, E, 1, F_next, F)
    return F


def final_round_reach_n(rules: Rules, space: PlayerSpace, players: int) -> np.ndarray:
    """``MultiValues.reach`` of the game: ``reach[rest, k]``, the N seats'
    chances (the banker first) after a bank ``k`` units past the target with
    the others in the player states ``rest`` (base ``P``, the next seat
    first); :data:`NO_FINAL_ROUND` without a final round."""
    if not rules.final_round:
        return NO_FINAL_ROUND
    if players == 2:
        banker = final_round_reach(rules, space.score)
        return np.stack([banker, 1.0 - banker], axis=-1)
    F = chain_values(rules, players)                    # [k, later, s_1]
    P, N = space.size, players
    rest = np.arange(P ** (N - 1))
    states = np.stack(np.unravel_index(rest, (P,) * (N - 1)), axis=1)
    scores = space.score[states]
    later = np.zeros(len(rest), dtype=np.int64)
    for seat in range(1, N - 1):
        later = later * rules.target_units + scores[:, seat]
    return np.ascontiguousarray(F[:, later, scores[:, 0]].transpose(1, 0, 2))

"""A final round's last turns in the N-player simulator: the tables the
players read, one seat's last turn, and who wins at the end (the compiled
loop, :mod:`solver.sim.game_loop_n`, plays the turns before and calls the
last turns in seat order).

The rule (docs/rules.md, "Final round"; :mod:`solver.engine.final_round_n`):
once a player, the *banker*, banks at or past the target, every other
player, in seat order, has one last turn to pass the highest score so far,
the *mark* ``H``. Seats are counted from the banker (seat 0), as the
engine counts them; the seats holding ``H`` are a bit mask, ``holders``.
A seat at score ``s`` holding the turn total ``t`` stands at ``x = s + t``:

* a zero roll: the seat is out, ``H`` and ``holders`` stay;
* an instant-win roll: the seat wins alone, at once;
* a bank at ``x >= H`` (not with every die in hand where hot dice are
  forced): ``x == H`` joins the holders, ``x > H`` sets a new mark that this
  seat alone holds; no other bank is allowed;
* the last seat's turn ends as soon as ``x > H``: it wins alone (nothing
  after it can change that); a seat before the last may roll on past ``H``,
  and banks by decree past ``top`` (:class:`solver.engine.final_round_n.SeatTurn`:
  the engine's DP values a total there as a bank at ``top``; reaching it
  has a chance below 1e-8);
* after the last seat the holders share the game: each of ``k`` holders is
  credited ``1/k`` of a win (``shares[seat, k]`` counts such games).

How each policy plays its last turn (as the two-player simulator,
:mod:`solver.sim.final_round`): ``random`` keeps at random and, where a
bank is allowed, banks with probability 1/2 (past ``top``, by decree, as
anyone). Every other policy (``optimal``, ``threshold:X``, ``expected``)
plays the engine's DP of this last turn, :func:`solver.engine.final_round_n.seat_last_turn`
(the seat's best chance, the seats after it playing theirs: what the
N-player table's ``reach`` assumes of every seat): the keep that maximises
``value[x + points, dice left, seat]`` (within ``EPS``, the most points,
then the most dice: the engine's tie-break), a bank where ``bank[x - H,
seat] >= roll[x, n, seat] - EPS``. A threshold or the expected points say
nothing of a turn that must pass a given score.

The DP of a last turn depends on ``(seat, H, holders, the scores of the
seats after it)`` (not on the seat's own score: it runs over ``x``). The
compiled loop finds its tables by that key in an open-addressing hash
(:class:`LastTurnsN`) and returns to Python for the ones it lacks
(:class:`LastTurnCache` fills them, emptying the whole cache when it is
full): the dice thrown do not depend on what the cache holds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.engine import turn_kernel_n
from solver.engine.final_round_n import seat_last_turn
from solver.engine.turn_kernel_n import EPS
from solver.model.compiled_rules import dice_left, drop_stale_caches
from solver.model.dice import keep_table
from solver.model.last_turn import past_target_units
from solver.model.rules import Rules
from solver.sim import dice as sim_dice
from solver.sim import game_loop
from solver.sim.dice import _below
from solver.sim.game_loop import hash_at, hash_put, throw

drop_stale_caches(__file__, game_loop.__file__, sim_dice.__file__, turn_kernel_n.__file__)

# The final round's fields (``FinalRoundsN.now``): the seat now playing its
# last turn, counted from the banker (0: no final round), the banker's seat,
# the mark, its holders (bit mask from the banker), and the key of the last
# turn whose tables the loop asks for.
SEAT, BANKER, MARK, HOLDERS, NEED_KEY, FINAL_SIZE = range(6)
# What a last turn gives the loop: the tables are missing (NEED_KEY), or
# the round goes on; a game's end is the bit mask of its winners (> 0).
NEED, GOES_ON = -1, 0

LAST_TURN_BYTES = 64 * 2 ** 20
"""Memory for the last turns' tables (:class:`LastTurnCache`)."""


class FinalRoundsN(NamedTuple):
    """The final round under way, ``now`` (the fields ``SEAT`` .. ``NEED_KEY``;
    ``now[SEAT]`` 0: none), and the games shared so far, ``shares[seat, k]``:
    those the seat shared with ``k - 1`` others."""
    now: np.ndarray
    shares: np.ndarray

    @classmethod
    def new(cls, players: int) -> FinalRoundsN:
        return cls(np.zeros(FINAL_SIZE, dtype=np.int64),
                   np.zeros((players, players + 1), dtype=np.int64))


class LastTurnsN(NamedTuple):
    """The last turns' tables by slot, found through the hash ``hash_keys``
    -> ``hash_slots`` (-1: empty) from :func:`last_turn_key`: the seat's own
    chance ``value[slot, x, n]`` (the engine's ``value[x, n, seat]``) and
    the choice ``bank[slot, x, n]`` (1: bank); ``span``, the marks a key
    can hold (from the target up), ``scores``, the scores below the target
    (the base of the later seats' scores in a key), and ``past``, the
    engine's ``E`` (a seat's top is ``T + (seat + 1) E``)."""
    hash_keys: np.ndarray
    hash_slots: np.ndarray
    value: np.ndarray
    bank: np.ndarray
    span: int
    scores: int
    past: int


@njit(cache=True, inline="always")
def last_turn_key(last, final, score, players, target):
    """The key of the last turn now due (module docstring): the seat, the
    mark, the holders and the scores of the seats after it (``players -
    2`` digits, 0 past the last seat), in turn."""
    seat, banker = final[SEAT], final[BANKER]
    key = (seat * last.span + final[MARK] - target) * (1 << players) + final[HOLDERS]
    for later in range(seat + 1, seat + players - 1):
        key = key * last.scores + (score[(banker + later) % players] if later < players else 0)
    return key


@njit(cache=True, inline="always")
def _keeps_more(units, used, than_units, than_used):
    """The engine's tie-break among keeps: more points, then more dice."""
    return units > than_units or (units == than_units and used > than_used)


@njit(cache=True)
def play_last_turn(rules, dice, last, final, score, rng, random_play):
    """The last turn due (``final[SEAT]``, module docstring), played with
    the dice of ``rng``: NEED (its tables are not in ``last``: their key is
    in ``final[NEED_KEY]``, no die thrown), GOES_ON (``final`` moved to the
    next seat), or the bit mask of the game's winners, from the banker."""
    N, D = len(score), rules.dice
    seat, mark, holders = final[SEAT], final[MARK], final[HOLDERS]
    is_last = seat == N - 1
    slot = -1
    if not random_play:
        key = last_turn_key(last, final, score, N, rules.target)
        slot = last.hash_slots[hash_at(last.hash_keys, key)]
        if slot < 0:
            final[NEED_KEY] = key
            return NEED
    # The last seat's DP ends at the mark (past it: passed); a seat
    # before the last banks by decree past the top of its DP.
    top = mark if is_last else rules.target + (seat + 1) * last.past
    x = score[(final[BANKER] + seat) % N]
    n = D
    no_script = np.zeros(0, dtype=np.int64)
    passed = False
    banked = False
    while True:
        r = throw(dice.power, dice.roll_of_code, no_script, final, rng, n)
        if dice.instant_win[r]:
            return 1 << seat
        k0, k1 = dice.keep_first[r], dice.keep_first[r + 1]
        if k0 == k1:
            break
        if random_play:
            chosen = k0 + _below(rng, k1 - k0)
        else:
            values = last.value[slot]
            chosen = k0
            best = values[x + dice.keep_units[k0], dice_left(rules, n, dice.keep_used[k0])]
            for k in range(k0 + 1, k1):
                v = values[x + dice.keep_units[k], dice_left(rules, n, dice.keep_used[k])]
                if v > best + EPS or (v >= best - EPS and _keeps_more(
                        dice.keep_units[k], dice.keep_used[k], dice.keep_units[chosen],
                        dice.keep_used[chosen])):
                    chosen, best = k, max(v, best)
        x += dice.keep_units[chosen]
        n = dice_left(rules, n, dice.keep_used[chosen])
        if x > top:
            passed = is_last
            banked = not is_last
            break
        if x >= mark and not (rules.forced and n == D):
            if random_play:
                banked = _below(rng, 2) == 1
            else:
                banked = last.bank[slot, x, n] != 0
            if banked:
                break
    if passed:
        return 1 << seat
    if banked:
        if x == mark:
            final[HOLDERS] = holders | 1 << seat
        else:
            final[MARK] = x
            final[HOLDERS] = 1 << seat
    if is_last:
        return final[HOLDERS]
    final[SEAT] = seat + 1
    return GOES_ON


@njit(cache=True)
def credit_winners(final, winners, wins, shares):
    """The game ends with the seats of ``winners`` (a bit mask from the
    banker) holding the highest score: one a win, ``k`` of them ``1/k``
    each (``shares[seat, k]``); returns ``k``. The final round is over."""
    N = len(wins)
    k = 0
    for seat in range(N):
        k += winners >> seat & 1
    for seat in range(N):
        if winners >> seat & 1:
            player = (final[BANKER] + seat) % N
            if k == 1:
                wins[player] += 1
            else:
                shares[player, k] += 1
    final[SEAT] = 0
    return k


# --------------------------------------------------------------- the tables

def _marks(rules: Rules, players: int) -> int:
    """The marks a key holds, from the target up: the last seat can face a
    bank past the top of the seat before it, ``T + (N - 1) E``, by one keep."""
    return (players - 1) * past_target_units(rules) + int(keep_table(rules).packed()
                                                          .keep_units.max()) + 1


def empty_last_turns(rules: Rules, players: int, slots: int = 0) -> LastTurnsN:
    """A record of ``slots`` slots (none: a game without a final round, or
    with no table to read)."""
    rows = 1
    if slots:
        # The engine's DP rows (dp_rows) for the highest top: past the
        # farthest mark by a keep, and a keep more.
        keep = int(keep_table(rules).packed().keep_units.max())
        rows = rules.target_units + _marks(rules, players) + 2 * keep + 2
    capacity = 1 << max(4, (2 * max(slots, 1)).bit_length())
    return LastTurnsN(-np.ones(capacity, dtype=np.int64), -np.ones(capacity, dtype=np.int64),
                      np.zeros((slots, rows, rules.dice + 1)),
                      np.zeros((slots, rows, rules.dice + 1), dtype=np.int8),
                      _marks(rules, players) if slots else 1, max(rules.target_units, 1),
                      past_target_units(rules))


class LastTurnCache:
    """The last turns' tables, filled on the loop's demand from the
    engine's :func:`solver.engine.final_round_n.seat_last_turn`; up to
    LAST_TURN_BYTES of them, then emptied and filled again."""

    def __init__(self, rules: Rules, players: int):
        self.rules, self.players = rules, players
        one = empty_last_turns(rules, players, 1)
        slot_bytes = one.value[0].nbytes + one.bank[0].nbytes
        self.max_slots = max(1, LAST_TURN_BYTES // slot_bytes)
        self.record = empty_last_turns(rules, players, min(64, self.max_slots))
        self.used = 0

    def decode(self, key: int) -> tuple[int, int, int, tuple[int, ...]]:
        """``(seat, mark, holders, later)`` of a key (:func:`last_turn_key`)."""
        N, record = self.players, self.record
        digits = []
        for _ in range(N - 2):
            key, score = divmod(key, record.scores)
            digits.append(score)
        key, holders = divmod(key, 1 << N)
        seat, mark = divmod(key, record.span)
        return seat, mark + self.rules.target_units, holders, tuple(digits[::-1][:N - 1 - seat])

    def fill(self, key: int) -> None:
        """Put the tables of the last turn ``key`` in a slot: its seat's own
        chances and the DP's bank decisions."""
        seat, mark, holders, later = self.decode(key)
        turn = seat_last_turn(self.rules, self.players, seat, mark, holders, later)
        if turn.top != (mark if seat == self.players - 1 else
                        self.rules.target_units + (seat + 1) * self.record.past) \
                or len(turn.value) > self.record.value.shape[1]:
            raise RuntimeError(f"the last turn's DP (to {turn.top}, {len(turn.value)} rows) is "
                               f"not the one the simulator's tables hold")
        if self.used == len(self.record.value):
            self._make_room()
        record, slot = self.record, self.used
        record.value[slot, :len(turn.value)] = turn.value[:, :, seat]
        bank = record.bank[slot]
        bank[:] = 0
        # Where a bank is allowed (x >= mark; the loop does not ask with
        # every die in hand where hot dice are forced), the DP's choice.
        x = np.arange(mark, turn.top + 1)
        bank[x, 1:] = turn.bank[x - mark, seat, None] >= turn.roll[x, 1:, seat] - EPS
        hash_put(record.hash_keys, record.hash_slots, key, slot)
        self.used += 1

    def _make_room(self) -> None:
        slots = len(self.record.value)
        if slots < self.max_slots:
            bigger = empty_last_turns(self.rules, self.players, min(self.max_slots, 2 * slots))
            bigger.value[:slots] = self.record.value
            bigger.bank[:slots] = self.record.bank
            for key, slot in zip(self.record.hash_keys, self.record.hash_slots):
                if key >= 0:
                    hash_put(bigger.hash_keys, bigger.hash_slots, key, slot)
            self.record = bigger
            return
        self.record.hash_keys[:] = -1
        self.record.hash_slots[:] = -1
        self.used = 0

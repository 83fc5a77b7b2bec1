"""Fair starts: rules that give the second player something back, and what
each leaves of the first player's advantage.

Moving first is worth one to three points of win probability. A head start
in points overshoots wherever the smallest score a player can hold is the
entry (the paper's Section 5), so three other mechanisms a table can use
are measured here, each a change to the second seat's rules:

    second_entry e      the second player enters with e points (the first
                        with the game's entry)
    first_bank_bonus h  the second player's first bank counts h more points:
                        a head start counted only once entered (a first bank
                        it would carry to the target is not allowed)
    last_turn           when the first player reaches the target, the second
                        has one last turn: passing the first player's total
                        wins, equalling it draws (half a win each), else the
                        first player wins. An instant win (five 1s) ends the
                        game at once; reaching the target ends a turn.

The seats play under different rules, so a player state carries its seat:
the space is the game's states for seat 0 followed by seat 1's, built with
its own entry and first-bank bonus (``PlayerSpace.seat``), and only turn
starts with the players in different seats exist. The solver's turn rules
take the lower entry; each seat's own is its states' ``bank_next`` (-1
where a bank is not allowed), which the turn DP also reads. The last turn
enters through ``Values.reach`` (:mod:`solver.engine.solution`):

    reach[w, k] = 1 - L(target + k - score[w])   w in seat 1: the first player
                                                  reached target + k
                = 1                              w in seat 0: the second
                                                  player's reach ends the game

with ``L(r)`` the second player's best chance (wins plus half the draws)
of one turn that must bring ``r`` more units to equal: ``V(r, D)`` of
:mod:`solver.model.last_turn` with a tie worth 1/2. With every mechanism off, the solve is
the game itself (a test checks it to 1e-12).

The first player's share (wins plus half the draws) is the value of the
turn start with both players at 0, the first to move.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from solver.model.dice import keep_table
from solver.model.errors import UsageError
from solver.model.last_turn import last_turn_chance
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.model.states import PlayerSpace, model_space, score_space
from solver.text import _


@dataclass(frozen=True)
class FairStart:
    """The second seat's rules, in points."""
    second_entry: int | None = None
    """The second player's entry; None: the game's."""
    first_bank_bonus: int = 0
    """Points added to the second player's first bank."""
    last_turn: bool = False
    """The second player has a last turn after the first reaches the target."""

    def label(self, rules: Rules) -> str:
        parts = []
        if self.second_entry is not None:
            parts.append(f"second player enters with {self.second_entry:,} (not {rules.entry:,})")
        if self.first_bank_bonus:
            parts.append(f"second player's first bank counts {self.first_bank_bonus:,} more")
        if self.last_turn:
            parts.append("second player has a last turn")
        return "; ".join(parts) or "no fair start"


def check(rules: Rules, fair: FairStart) -> None:
    if rules.final_round:
        raise UsageError(_("{game} has a final round: the second player's last turn is already "
                           "a rule of the game").format(game=rules.name))
    if fair.second_entry is not None:
        if fair.second_entry % rules.unit or not 0 <= fair.second_entry < rules.target:
            raise UsageError(_("second entry {entry} must be a multiple of {unit} below the "
                               "target").format(entry=figure(fair.second_entry),
                                                unit=figure(rules.unit)))
    if fair.first_bank_bonus % rules.unit or not 0 <= fair.first_bank_bonus < rules.target:
        raise UsageError(_("first-bank bonus {bonus} must be a multiple of {unit} below the "
                           "target").format(bonus=figure(fair.first_bank_bonus),
                                            unit=figure(rules.unit)))


# ------------------------------------------------------------- the space

def seated_space(seat0: PlayerSpace, seat1: PlayerSpace) -> PlayerSpace:
    """One space holding both seats' states, seat 0 first."""
    offset = seat0.size

    def moved(a):
        return np.where(a >= 0, a + offset, a)
    bank_next = np.vstack([seat0.bank_next, moved(seat1.bank_next)])
    banked = np.unique(bank_next[bank_next >= 0])
    bank_slot = -np.ones(offset + seat1.size, dtype=np.int64)
    bank_slot[banked] = np.arange(len(banked))
    return PlayerSpace(
        score=np.concatenate([seat0.score, seat1.score]),
        previous=np.concatenate([seat0.previous, seat1.previous]),
        crosses=np.concatenate([seat0.crosses, seat1.crosses]),
        zero_next=np.concatenate([seat0.zero_next, moved(seat1.zero_next)]),
        bank_next=bank_next,
        can_take=np.concatenate([seat0.can_take, seat1.can_take]),
        bank_slot=bank_slot,
        up=np.concatenate([seat0.up, moved(seat1.up)]),
        memory=seat0.memory, fall_to=seat0.fall_to, index=seat0.index,
        seat=np.repeat(np.array([0, 1]), [seat0.size, seat1.size]))


def seat_spaces(rules: Rules, fair: FairStart, fall_to=None) -> tuple[PlayerSpace, PlayerSpace]:
    """Each seat's states under its own rules (scores alone, or the crosses
    model with its fall estimates)."""
    second = rules if fair.second_entry is None else \
        dataclasses.replace(rules, entry=fair.second_entry)
    bonus = fair.first_bank_bonus // rules.unit
    if rules.crosses:
        return model_space(rules, fall_to), model_space(second, fall_to, bonus)
    return score_space(rules), score_space(second, bonus)


# ------------------------------------------------------------- last turn

def reach_values(rules: Rules, space: PlayerSpace) -> np.ndarray:
    """``Values.reach`` of the last-turn rule (module docstring)."""
    target = rules.target_units
    reach_past = int(keep_table(rules).packed().keep_units.max()) + 1
    chance = last_turn_chance(rules, target + reach_past)
    reach = np.ones((space.size, reach_past))
    second = np.flatnonzero(space.seat == 1)
    needed = target + np.arange(reach_past)[None, :] - space.score[second][:, None]
    reach[second] = 1.0 - chance[needed]
    return reach


# ------------------------------------------------------------- the solve

def solve_fair_start(rules: Rules, fair: FairStart, tol: float = 1e-12):
    """Solve the game with the second seat's rules; returns ``(share,
    solution)``, share being the first player's wins plus half the draws."""
    from solver.engine.memory import estimate_fall_to
    from solver.engine.two_player import solve
    check(rules, fair)
    fall_to = initial = crossless = None
    if rules.crosses:
        # As solve.solve_game does: the game without crosses gives the
        # model's fall estimates and seeds its sweeps.
        crossless = solve(dataclasses.replace(rules, crosses=0), tol=tol)
        fall_to = estimate_fall_to(rules, crossless)
    seat0, seat1 = seat_spaces(rules, fair, fall_to)
    space = seated_space(seat0, seat1)
    if crossless is not None:
        at_score = np.searchsorted(crossless.space.score, space.score)
        initial = crossless.W[np.ix_(at_score, at_score)]
    reach = reach_values(rules, space) if fair.last_turn else None
    entry = rules.entry if fair.second_entry is None else min(rules.entry, fair.second_entry)
    solution = solve(dataclasses.replace(rules, entry=entry), space=space, tol=tol, reach=reach,
                     initial=initial)
    start0, start1 = seat0.index_of_score(0), seat0.size + seat1.index_of_score(0)
    return float(solution.W[start0, start1]), solution


def fairest(rules: Rules, field: str, largest: int, tol: float = 1e-12):
    """The value of ``field`` (``second_entry`` or ``first_bank_bonus``),
    a multiple of the unit from 0 to ``largest`` points, whose first-player
    share is closest to 1/2. The share falls as the second seat gains (a
    lower entry, a larger bonus), so a bisection finds where it crosses 1/2.
    Returns ``{value: share}`` for every value solved, and the fairest."""
    unit = rules.unit
    if field == "second_entry":                      # k steps of gain for the second seat
        value_of, top = (lambda k: largest - k * unit), (largest - unit) // unit
    else:
        value_of, top = (lambda k: k * unit), largest // unit
    shares = {}

    def share(k):
        value = value_of(k)
        if value not in shares:
            shares[value] = solve_fair_start(rules, FairStart(**{field: value}), tol)[0]
        return shares[value]
    # Wanted: share(low) > 1/2 >= share(high). At k = 0 the seats are alike,
    # and moving first is an advantage in every game here.
    low, high = 0, top
    if share(top) > 0.5:
        return shares, value_of(top)
    while high - low > 1:
        middle = (low + high) // 2
        if share(middle) > 0.5:
            low = middle
        else:
            high = middle
    return shares, value_of(min((low, high), key=lambda k: abs(share(k) - 0.5)))

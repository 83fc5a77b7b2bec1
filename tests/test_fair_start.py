"""Fair starts (solver.study.fair_start): the two-seat solve against the game
itself, and against a brute-force Pig solver written here from the rules of
the mechanisms alone."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from solver.model.rules import PIG, get_rules
from solver.study.fair_start import FairStart, fairest, last_turn_chance, solve_fair_start
from solver.tables.make import solve_game


@pytest.mark.parametrize("name, target", [
    ("pig", 60), ("cinq-mille", 2000), ("cinq-mille-last1000", 2500),
    ("quinze-mille", 2000), ("dix-mille", 1000)])
def test_no_mechanism_is_the_game_itself(name, target):
    """Two seats under the same rules: the first player's chance is the
    game's (take-over across the seats, the cap, the crosses model)."""
    rules = get_rules(name, target)
    share, _ = solve_fair_start(rules, FairStart())
    assert share == pytest.approx(solve_game(rules).first_player_win, abs=1e-12)


def brute_force_pig(rules, entries, bonus, last_turn, tol=1e-14):
    """Pig with one die, seat by seat, by value iteration over (seat, mover's
    score, other's score, turn total): a face of 1 ends the turn with
    nothing; the mover banks when allowed by their seat's entry (their first
    bank counting ``bonus[seat]`` more, and not allowed if that reaches the
    target); reaching the target ends the turn; with ``last_turn`` the
    second seat then has one turn to pass (equal: half) the first's total.
    Returns the first player's share at (0, 0)."""
    T, exact = rules.target, rules.exact_target

    def last(need):                         # the second player's last turn
        chance = {}
        for r in range(-6, need + 1):
            if r < 0:
                chance[r] = 0.0 if exact else 1.0
            elif r == 0 and exact:
                chance[r] = 0.5
            else:
                roll = sum(chance[r - f] for f in range(2, 7)) / 6
                chance[r] = max(roll, 0.5) if r == 0 else roll
        return chance[need]

    W = np.full((2, T, T), 0.5)
    while True:
        new = np.empty_like(W)
        for seat, a, b in itertools.product(range(2), range(T), range(T)):
            Z = 1.0 - W[1 - seat, b, a]
            value = {}
            for t in range(T - a + 6, -1, -1):
                if a + t >= T:
                    if exact and a + t > T:
                        value[t] = Z
                    elif last_turn and seat == 0:
                        value[t] = 1.0 - last(a + t - b)
                    else:
                        value[t] = 1.0
                    continue
                roll = (Z + sum(value[t + f] for f in range(2, 7))) / 6
                gained = t + (bonus[seat] if a == 0 else 0)
                may_bank = t > 0 and (a > 0 or t >= entries[seat]) and a + gained < T
                value[t] = max(roll, 1.0 - W[1 - seat, b, a + gained]) if may_bank else roll
            new[seat, a, b] = value[0]
        change = np.max(np.abs(new - W))
        W = new
        if change < tol:
            return W[0, 0, 0]


@pytest.mark.parametrize("fair, exact", [
    (FairStart(second_entry=3), False), (FairStart(first_bank_bonus=4), False),
    (FairStart(last_turn=True), False), (FairStart(last_turn=True), True),
    (FairStart(second_entry=2, first_bank_bonus=3, last_turn=True), True)])
def test_pig_against_brute_force(fair, exact):
    rules = dataclasses.replace(PIG, target=14, entry=6, exact_target=exact)
    entries = (6, 6 if fair.second_entry is None else fair.second_entry)
    expected = brute_force_pig(rules, entries, (0, fair.first_bank_bonus), fair.last_turn)
    assert solve_fair_start(rules, fair)[0] == pytest.approx(expected, abs=1e-11)


def test_last_turn_chance_of_one_die():
    """Pig's last turn, worked by hand. Equalling needs 0 more: stop for a
    draw (1/2) or roll for a pass (a face 2-6, 5/6). 1 more: a face 2-6
    (5/6). 2 more: a 2 equals (then 5/6 as above), a 3-6 passes:
    (5/6 + 4) / 6 = 29/36."""
    chance = last_turn_chance(PIG, 2)
    assert chance == pytest.approx([5 / 6, 5 / 6, 29 / 36], abs=1e-15)


def test_fairest_second_entry_brackets_one_half():
    """The search returns the entry whose share is nearest 1/2 among the
    two that bracket it."""
    rules = get_rules("cinq-mille", 2000)
    shares, best = fairest(rules, "second_entry", rules.entry)
    above = min((v for v, s in shares.items() if s > 0.5), default=None)
    below = max((v for v, s in shares.items() if s <= 0.5), default=None)
    assert above is not None and below is not None and above - below == rules.unit
    assert best in (above, below)
    assert abs(shares[best] - 0.5) == min(abs(shares[above] - 0.5), abs(shares[below] - 0.5))

"""Fair starts surveyed for the paper and the README: every mechanism of
:mod:`solver.study.fair_start` for a game, and the one nearest one half
(``scripts/measure_fair_start.py`` writes them to ``paper/fair_start.json``;
the paper's section on fair starts reads it).

For each game this solves the game with the second seat's rules changed and
records the first player's share (wins plus half the draws) under each
mechanism:

* the second player enters lower: the entry, from the game's down to one
  unit, whose share is nearest 1/2 (a bisection; every entry solved is
  kept);
* a head start counted only once entered: the bonus to the second player's
  first bank, from 0 up to twice the entry (Pig: 20 points), nearest 1/2;
* the second player's last turn (no parameter).

Each game is solved as its table is, but dix-mille is searched without its
crosses and only the fairest mechanism solved with the crosses model (see
:func:`measure_game`).
"""

from __future__ import annotations

import dataclasses
import time

from solver.model.rules import get_rules
from solver.study.fair_start import FairStart, fairest, solve_fair_start

GAMES = ["pig", "cinq-mille", "cinq-mille-exact", "cinq-mille-last1000", "cinq-mille-10000",
         "quinze-mille", "dix-mille"]
"""The games of the paper's table of head starts, in its order."""
NO_ENTRY_LARGEST_BONUS = 20
"""Units of the largest bonus searched in a game without an entry to scale
it by: Pig's fair head start is 5 points (the paper's table), so 20 leaves
room; Farkle's (units of 50) is 200 points, within 1,000."""


def measure(rules, tol: float = 1e-12) -> dict:
    """Every mechanism of one game."""
    started = time.perf_counter()
    result = {"game": rules.name, "entry": rules.entry, "unit": rules.unit, "tolerance": tol}
    result["last_turn"] = solve_fair_start(rules, FairStart(last_turn=True), tol)[0]
    largest = {"first_bank_bonus": 2 * rules.entry if rules.entry
               else NO_ENTRY_LARGEST_BONUS * rules.unit}
    if rules.entry > rules.unit:
        largest["second_entry"] = rules.entry
    for field, most in largest.items():
        shares, best = fairest(rules, field, most, tol)
        result[field] = {"best": best, "shares": {str(k): v for k, v in sorted(shares.items())}}
    result["seconds"] = time.perf_counter() - started
    return result


def measure_game(name: str) -> dict:
    """A game with crosses is searched without them (a fair-start solve of
    dix-mille with the crosses model is about twice its table's, some
    twelve minutes here); the crosses model is then solved once, for the
    mechanism nearest one half at the value found, to a tolerance of
    1e-10 (``with_crosses``)."""
    rules = get_rules(name)
    if not rules.crosses:
        return measure(rules)
    started = time.perf_counter()
    result = measure(dataclasses.replace(rules, crosses=0))
    result["game"] = name
    result["without_crosses"] = True
    mechanism, value, _ = nearest_half(result)
    fair = FairStart(**{mechanism: True if value is None else value})
    result["with_crosses"] = {"mechanism": mechanism, "value": value,
                              "share": solve_fair_start(rules, fair, 1e-10)[0]}
    result["seconds"] = time.perf_counter() - started
    return result


def nearest_half(result: dict) -> tuple[str, int | None, float]:
    """(mechanism, parameter, share) nearest 1/2 for one game's result
    (:func:`measure_game`'s)."""
    options = [("last_turn", None, result["last_turn"])]
    for field in ("second_entry", "first_bank_bonus"):
        if field in result:
            best = result[field]["best"]
            options.append((field, best, result[field]["shares"][str(best)]))
    return min(options, key=lambda option: abs(option[2] - 0.5))

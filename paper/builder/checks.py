"""The paper's checks of the solver that need no table: the dice odds
against a brute-force count over every ordered roll, and the fast solver
against the reference solver of the tests (``tests/reference_solver.py``)
at small cases. :mod:`paper.builder.build` runs them and
:mod:`paper.builder.sections` reports them."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

from solver.model.dice import FACES, keep_table, odds, rolls
from solver.model.rules import GAMES, Rules

ROOT = Path(__file__).resolve().parents[2]

def brute_zero_rolls(rules: Rules, n: int) -> Fraction:
    """Zero-roll probability of ``n`` dice over all 6**n ordered rolls, from
    the scoring table alone (some face count scores, or a whole straight)."""
    zero = 0
    for roll in itertools.product(FACES, repeat=n):
        counts = Counter(roll)
        scores = any(k <= len(rules.scoring[f - 1]) and rules.scoring[f - 1][k - 1] > 0
                     or (f, k) in rules.instant_wins
                     for f, c in counts.items() for k in range(1, c + 1))
        straight = any(all(counts[f] >= 1 for f in faces) for faces, _ in rules.straights)
        zero += not (scores or straight)
    return Fraction(zero, 6 ** n)


def dice_checks() -> list[dict]:
    out = []
    for name in ("pig", "cinq-mille", "dix-mille", "quinze-mille"):
        rules = GAMES[name]
        for row in odds(rules):
            n = row["dice"]
            out.append({"name": name, "n": n, "zero": row["zero"],
                        "brute": brute_zero_rolls(rules, n), "hot": row["hot"],
                        "best": row["best_points"], "rolls": len(rolls(n)),
                        "classes": len(keep_table(rules).roll_prob[n])})
    return out


def from_tests(name: str):
    """``tests/NAME.py`` as a module (the reference solvers and their
    comparisons are the tests' code, not the package's): loaded from its
    file, into ``sys.modules`` under its name, where the tests' own imports
    of each other and numba's cache find it."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def run_reference_cases(cases) -> list[dict] | None:
    """``tests/test_reference.py``'s comparison of the fast solver with the
    reference one (``tests/reference_solver.py``) at each case."""
    try:
        from_tests("reference_solver")       # test_reference imports it by name
        ref = from_tests("test_reference")
    except Exception as error:          # pytest or the reference solver missing
        print(f"reference solver not available: {error}", file=sys.stderr)
        return None
    out = []
    for case in cases:
        fast, slow = ref.fast(case), ref.reference(case)
        out.append({"case": case, "states": fast.space.size, "sweeps": slow.sweeps,
                    "start_error": ref.start_error(fast, slow),
                    "take_error": ref.takeover_error(fast, slow)
                    if fast.rules.has_takeover else None})
    return out

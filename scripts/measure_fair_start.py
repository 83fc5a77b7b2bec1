"""Fair starts, measured for the paper and the README.

    python scripts/measure_fair_start.py [--json-out paper/fair_start.json] [GAME ...]

For each game (default: those of the paper's table of head starts) this
solves the game with the second seat's rules changed
(:mod:`solver.study.fair_start`) and records the first player's share (wins plus
half the draws) under each mechanism:

* the second player enters lower: the entry, from the game's down to one
  unit, whose share is nearest 1/2 (a bisection; every entry solved is
  kept);
* a head start counted only once entered: the bonus to the second player's
  first bank, from 0 up to twice the entry (Pig: 20 points), nearest 1/2;
* the second player's last turn (no parameter).

Each game is solved as its table is, but dix-mille is searched without its
crosses and only the fairest mechanism solved with the crosses model (see
:func:`measure_game`).
Writes JSON (the paper's section on fair starts reads it) and prints a
markdown table with the machine and the command.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from machine import machine  # noqa: E402
from paper_fair_start import nearest_half  # noqa: E402

GAMES = ["pig", "cinq-mille", "cinq-mille-exact", "cinq-mille-last1000", "cinq-mille-10000",
         "quinze-mille", "dix-mille"]
PIG_LARGEST_BONUS = 20
"""Pig has no entry to scale the bonus by: its fair head start in points is
5 (the paper's table), so 20 leaves room."""


def measure(rules, tol: float = 1e-12) -> dict:
    """Every mechanism of one game."""
    from solver.study.fair_start import FairStart, fairest, solve_fair_start
    started = time.perf_counter()
    result = {"game": rules.name, "entry": rules.entry, "unit": rules.unit, "tolerance": tol}
    result["last_turn"] = solve_fair_start(rules, FairStart(last_turn=True), tol)[0]
    largest = {"first_bank_bonus": 2 * rules.entry if rules.entry else PIG_LARGEST_BONUS}
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
    import dataclasses
    from solver.study.fair_start import FairStart, solve_fair_start
    from solver.model.rules import get_rules
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=GAMES)
    parser.add_argument("--json-out", type=Path, default=ROOT / "paper" / "fair_start.json")
    args = parser.parse_args(argv)
    old = json.loads(args.json_out.read_text()) if args.json_out.exists() else {}
    results = {r["game"]: r for r in old.get("games", [])}
    for name in args.games:
        results[name] = measure_game(name)
        results[name]["command"] = f"python scripts/measure_fair_start.py {name}"
        print(f"{name}: {results[name]['seconds']:.0f} s", file=sys.stderr, flush=True)
    ordered = [results[name] for name in GAMES if name in results]
    data = {"machine": machine(),
            # Every game's result, however many runs made them, is what the
            # command without arguments makes (each result names its own run).
            "command": "python scripts/measure_fair_start.py",
            "games": ordered}
    tmp = args.json_out.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(args.json_out)
    print(f"Machine: {data['machine']}. Command: `{data['command']}`.\n")
    print("| game | last turn | second entry | share | first-bank bonus | share | fairest |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in ordered:
        entry = r.get("second_entry")
        bonus = r["first_bank_bonus"]
        mechanism, value, share = nearest_half(r)
        print(f"| {r['game']} | {r['last_turn']:.4f} | "
              + (f"{entry['best']} | {entry['shares'][str(entry['best'])]:.4f}" if entry
                 else "- | -")
              + f" | {bonus['best']} | {bonus['shares'][str(bonus['best'])]:.4f} | "
              f"{mechanism} {'' if value is None else value} ({share:.4f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fair starts, measured for the paper and the README.

    python scripts/measure_fair_start.py [--json-out paper/fair_start.json] [GAME ...]

For each game (default: those of the paper's table of head starts)
:func:`solver.study.fair_start_survey.measure_game` solves the game with the
second seat's rules changed and records the first player's share (wins
plus half the draws) under each mechanism (its module docstring says
which). Writes JSON (the paper's section on fair starts reads it) and
prints a markdown table with the machine and the command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from solver.study.fair_start_survey import GAMES, measure_game, nearest_half
from solver.tables.machine import machine

ROOT = Path(__file__).resolve().parent.parent


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

"""Benchmark of the N-player solver: time, peak memory, table size and work
rate of exact solves with three players and more.

    python benchmarks/bench_players.py SPEC [SPEC ...] [--out DIR] [--json FILE]

A SPEC is ``GAME,PLAYERS[,TARGET][,FIELD=VALUE...]``: a game of `farkle
variants`, the number of players, a target (default: the game's own) and
changed rule fields (house rules, e.g. ``takeover_min=500`` for take-over
once entered). Each solve runs in a fresh process (its peak resident memory
is its own; numba's compile cache is warmed by a small solve first) and
writes its table (to ``--out DIR``, else a scratch directory). Prints a
markdown table for BENCHMARKS.md.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from solver.tables.machine import machine

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import dataclasses, json, resource, sys, time
from pathlib import Path
from solver.engine.n_player import solve_players
from solver.model.rules import get_rules
from solver.tables.make import solve_and_write
from solver.tables.files import equilibria_summary
from solver.tables.paths import table_name
game, players, target, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
changes = json.loads(sys.argv[5])
rules = get_rules(game)
if changes:
    rules = dataclasses.replace(rules, **changes)
if target != "-":
    rules = rules.with_target(int(target))
solve_players(get_rules("pig", 12), 3)            # load the compiled kernels
started = time.perf_counter()
solution, path, residual = solve_and_write(rules, out / table_name(rules, None, players),
                                           players=players)
total = time.perf_counter() - started
print(json.dumps({"game": rules.name, "changes": changes, "target": rules.target,
                  "players": players, "seat_wins": [float(v) for v in solution.seat_wins],
                  **solution.stats, "total_seconds": total, "residual": residual,
                  "bytes": path.stat().st_size, "equilibria": equilibria_summary(solution),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def parse_spec(spec: str):
    parts = spec.split(",")
    game, players = parts[0], int(parts[1])
    target = parts[2] if len(parts) > 2 and "=" not in parts[2] else "-"
    changes = {}
    for part in parts[2:]:
        if "=" in part:
            field, value = part.split("=", 1)
            changes[field] = json.loads(value)
    return game, players, target, changes


def run(spec: str, out: Path) -> dict:
    game, players, target, changes = parse_spec(spec)
    args = [sys.executable, "-c", CHILD, game, str(players), target, str(out),
            json.dumps(changes)]
    result = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"{spec}: {result.stderr.strip().splitlines()[-1]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def row(r: dict) -> str:
    rate = r["keep_evaluations"] / r["seconds"]
    cores = os.cpu_count() or 1
    house = "".join(f", {k}={v}" for k, v in r["changes"].items())
    wins = " / ".join(f"{v:.4f}" for v in r["seat_wins"])
    eq = r["equilibria"]
    return (f"| {r['game']}{house} | {r['players']} | {r['target']} | {wins} | "
            f"{r['seconds']:.1f} | {r['peak_mb']:.0f} | {r['bytes'] / 1e6:.1f} | "
            f"{r['turn_starts']:,} | {r['sweeps']} | {rate:.2e} | {rate / cores / 1e9:.2f} | "
            f"{eq['levels_mixed']} / {eq['mixed_decisions']} | "
            f"{eq['other_equilibria']} ({eq['largest_move_of_other_equilibria']:.0e}) |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--out", type=Path, help="where the tables go (default: scratch)")
    parser.add_argument("--json", type=Path, help="append each result as a JSON line")
    args = parser.parse_args(argv)
    print(f"Machine: {machine()}\n")
    print("| game | players | target | seats win | solve s | peak MB | table MB | "
          "turn starts | sweeps | evaluations/s | per core vs 1e9/s | mixed levels / "
          "decisions | other equilibria (move) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for spec in args.specs:
            r = run(spec, args.out or Path(scratch))
            print(row(r), flush=True)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()

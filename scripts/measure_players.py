"""More players, measured for the paper and the README.

    python scripts/measure_players.py [--json-out paper/players.json] [--quick]
    python scripts/measure_players.py --players 4 [--case pig:60] [--table T.h5]
        [--json-out /tmp/players4.json]

For each case of SEAT_CASES this solves the game exactly with 2, 3 (and 4)
players (:func:`solver.engine.n_player.solve_players`; with two players it is
the two-player game, which ``tests/test_players.py`` checks) and records:

(a) each seat's chance at the game start, the seconds of the solve and
    what the equilibria needed (:func:`solver.tables.files.equilibria_summary`);
(b) how banking moves with more opponents: at the game start (everyone at
    0) and at an even middle position (everyone at the same score, about
    half the target), the smallest turn total at which the mover banks,
    per number of dice in hand ("never": no bank before the target);
(c) for the cases of DUEL_CASES, what two policies that need only the
    two-player table give up in the three-player game: the two-player
    policy played against the leader (the *duel*,
    :func:`solver.cards.seat_value.duel_seat_values`), and the race-of-duels
    model that advice uses beyond the exact tables
    (:mod:`solver.advice.duels`, :func:`solver.cards.seat_value.model_seat_values`):
    each seat's exact chance when that seat plays the policy and the others
    the table (an exact evaluation, no sampling), and the share of
    bank-or-roll decisions that differ, over every allowed bank decision of
    ``--sample`` random turn starts (uniform over turn starts and
    decisions, not weighted by how often play reaches them).

Writes everything as JSON (the paper's section on more players reads it)
and prints markdown tables with the machine and the command.

With ``--players 4``, only (c), with four players: the cases of
FOUR_PLAYER_DUEL_CASES (or those named by ``--case GAME:TARGET``) solved
here, and the tables given by ``--table`` (an N-player table file, as
``farkle solve GAME --players 4`` writes it) read instead of solved; each
row also gives the solve's seconds (0 for a table read), the duel's and
the model's evaluation seconds and the process's peak memory so far. The
paper's JSON is the three-player run's; write these elsewhere.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

from solver.tables.machine import machine

SEAT_CASES = [("pig", 100, (2, 3)), ("pig", 40, (2, 3, 4)), ("cinq-mille", 5000, (2, 3)),
              ("cinq-mille", 2000, (2, 3, 4))]
DUEL_CASES = [("pig", 100), ("cinq-mille", 2000), ("cinq-mille", 5000), ("dix-mille", 700),
              ("quinze-mille", 3000, {"takeover_min": 500}),
              ("quinze-mille", 3000, {"takeover_min": 1000})]
"""(game, target[, changed rule fields]): what the policies made from the
two-player table cost with three players, at the largest targets where the
exact three-player game was solved (BENCHMARKS.md); quinze-mille with
take-over from 500 (the entry), so that take-over is in play at a target
this small, and from 1,000, a case the model's design was not tried on
first."""
FOUR_PLAYER_DUEL_CASES = [("pig", 60), ("pig", 80), ("cinq-mille", 2500)]
"""The same with four players, where the exact game solves in one process
(Pig to 80: 31 minutes in all, 7.5 GB at the peak, docs/players.md); a
larger table, made through the cluster path (docs/cluster.md), is read
with ``--table``."""
QUICK_SEAT_CASES = [("pig", 40, (2, 3, 4)), ("cinq-mille", 1500, (2, 3))]
QUICK_DUEL_CASES = [("cinq-mille", 1500)]


def first_banks(solution, states) -> dict[int, int | None]:
    """Smallest turn total (points) at which the mover banks, per dice in
    hand, at the turn start of ``states``."""
    from solver.engine.solution_n import replay_n
    _, R, _, B, mix = replay_n(solution, solution.node_of(states))
    rules = solution.rules
    out = {}
    for n in range(1, rules.dice + 1):
        banks = [t for t in range(len(B)) if not np.isnan(B[t, n, 0])
                 and (B[t, n, 0] >= R[t, n, 0] - 1e-12 or mix[t, n] > 0)]
        out[n] = banks[0] * rules.unit if banks else None
    return out


def decisions_differ(solution, two, samples: int, seed: int = 0) -> dict[str, int]:
    """Allowed bank decisions (``decisions``) of ``samples`` random turn
    starts, and how many of them the duel against the leader (``duel``) and
    the model (``model``) decide otherwise than the exact table (module
    docstring)."""
    from solver.advice.duels import DuelsAdvisor
    from solver.engine.solution import replay
    from solver.engine.solution_n import replay_n
    rng = np.random.default_rng(seed)
    space = solution.space
    model = DuelsAdvisor(two, solution.players)
    out = {"decisions": 0, "duel": 0, "model": 0}
    for node in rng.integers(len(solution.V), size=samples):
        states = solution.states_of(int(node))
        scores = space.score[states]
        leader = states[1 + int(np.argmax(scores[1:]))]
        _, R, _, B, mix = replay_n(solution, int(node))
        _, R2, _, B2 = replay(two, states[0], leader)
        _, RM, _, BM, _ = model._replay(tuple(int(p) for p in states), None)
        rows = B2.shape[0]
        allowed = ~np.isnan(B[:rows, :, 0]) & (mix[:rows] < 0)
        exact = B[:rows, :, 0] >= R[:rows, :, 0] - 1e-12
        out["duel"] += int(np.sum((exact != (B2 >= R2[:rows])) & allowed))
        out["model"] += int(np.sum((exact != (BM[:rows, :, 0] >= RM[:rows, :, 0] - 1e-12))
                                   & allowed))
        out["decisions"] += int(np.sum(allowed))
    return out


def solve_case(game: str, target: int, players: int, changes: dict | None = None):
    import dataclasses

    from solver.engine.n_player import solve_players
    from solver.model.rules import get_rules
    from solver.model.states import player_space
    rules = get_rules(game, target)
    if changes:
        rules = dataclasses.replace(rules, **changes)
    space = player_space(rules, "exact")
    started = time.perf_counter()
    solution = solve_players(rules, players, space=space)
    return solution, time.perf_counter() - started


DUEL_HEADER = ("| game | target | exact seats | lost by the duel (pp) | lost by the model (pp) | "
               "bank decisions that differ (duel / model) | evaluation s (model) |")


def duel_row(solution, game: str, target: int, changes: dict, sample: int,
             timed: bool = False) -> tuple[dict, str]:
    """Part (c) of the module docstring for one N-player ``solution``: its
    JSON row and its markdown line; with ``timed``, the duel's evaluation
    seconds too."""
    from solver.cards.seat_value import duel_seat_values, model_seat_values
    from solver.engine.two_player import solve
    two = solve(solution.rules, space=solution.space)
    started = time.perf_counter()
    duel = duel_seat_values(solution, two)
    duel_seconds = time.perf_counter() - started
    started = time.perf_counter()
    model = model_seat_values(solution, two)
    seconds = time.perf_counter() - started
    differ = decisions_differ(solution, two, sample)
    loss, model_loss = solution.seat_wins - duel, solution.seat_wins - model
    total = differ["decisions"]
    row = {"game": game, "target": target, "players": solution.players, "changes": changes,
           "exact": [float(v) for v in solution.seat_wins],
           "duel": [float(v) for v in duel],
           "loss": [float(v) for v in loss], "differ": differ["duel"],
           "model": [float(v) for v in model],
           "model_loss": [float(v) for v in model_loss],
           "model_differ": differ["model"],
           "decisions": total, "seconds": seconds, "sample": sample}
    if timed:
        row["duel_seconds"] = duel_seconds
    house = "".join(f", {k} {v}" for k, v in changes.items())
    line = (f"| {game}{house} | {target} | "
            f"{' / '.join(f'{v:.4f}' for v in solution.seat_wins)} | "
            f"{' / '.join(f'{100 * v:.3f}' for v in loss)} | "
            f"{' / '.join(f'{100 * v:.3f}' for v in model_loss)} | "
            f"{100 * differ['duel'] / max(total, 1):.1f}% / "
            f"{100 * differ['model'] / max(total, 1):.1f}% of {total:,} | {seconds:.0f} |")
    return row, line


def peak_gb() -> float:
    """The process's peak resident memory so far, GB (Linux counts KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def four_players(args, argv) -> int:
    """``--players 4`` (module docstring)."""
    from solver.tables.files import read_table
    cases = [(game, int(target)) for game, target in
             (case.rsplit(":", 1) for case in args.case)] or \
        ([] if args.table else FOUR_PLAYER_DUEL_CASES)
    command = "python scripts/measure_players.py " + " ".join(argv or sys.argv[1:])
    out = {"machine": machine(), "command": command.strip(), "duel": []}
    print(f"Machine: {machine()}\nCommand: `{out['command']}`\n")
    print(DUEL_HEADER + " evaluation s (duel) | solve s | peak GB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    jobs = [(game, target, None) for game, target in cases] + \
        [(None, None, path) for path in args.table]
    for game, target, path in jobs:
        if path is None:
            solution, solve_seconds = solve_case(game, target, args.players)
        else:
            solution, solve_seconds = read_table(path, lazy_take=False), 0.0
            game, target = solution.rules.name, solution.rules.target
        if solution.players != args.players:
            raise SystemExit(f"{path}: a table for {solution.players} players")
        row, line = duel_row(solution, game, target, {}, args.sample, timed=True)
        row.update(solve_seconds=solve_seconds, peak_gb=peak_gb(),
                   table=None if path is None else str(path))
        out["duel"].append(row)
        print(f"{line} {row['duel_seconds']:.0f} | {solve_seconds:.0f} | {row['peak_gb']:.2f} |",
              flush=True)
        del solution
    if args.json_out:
        args.json_out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--quick", action="store_true", help="small cases, for a look")
    parser.add_argument("--sample", type=int, default=2000)
    parser.add_argument("--players", type=int, choices=(3, 4), default=3,
                        help="3: everything (the paper's); 4: the duel and the model only")
    parser.add_argument("--case", action="append", default=[], metavar="GAME:TARGET",
                        help="with --players 4: solve this case instead of the list's")
    parser.add_argument("--table", action="append", default=[], type=Path,
                        help="with --players 4: a table file read instead of solved")
    args = parser.parse_args(argv)
    if args.players != 3:
        return four_players(args, argv)
    from solver.tables.files import equilibria_summary
    seat_cases = QUICK_SEAT_CASES if args.quick else SEAT_CASES
    duel_cases = QUICK_DUEL_CASES if args.quick else DUEL_CASES
    command = "python scripts/measure_players.py " + " ".join(argv or sys.argv[1:])
    out = {"machine": machine(), "command": command.strip(), "seats": [], "duel": []}
    print(f"Machine: {machine()}\nCommand: `{out['command']}`\n")
    print("| game | target | players | seats win (seat 1 first) | solve s | mixed levels | "
          "first bank at the start, per dice | first bank at the middle, per dice |")
    print("|---|---|---|---|---|---|---|---|")
    solved = {}
    for game, target, counts in seat_cases:
        for players in counts:
            solution, seconds = solve_case(game, target, players)
            solved[game, target, players] = solution
            start = solution.start_state()
            scores = solution.space.score
            middle_score = int(scores[scores >= solution.rules.target_units // 2].min())
            middle = solution.space.find(middle_score, middle_score, 0)
            row = {"game": game, "target": target, "players": players,
                   "seat_wins": [float(v) for v in solution.seat_wins], "seconds": seconds,
                   "equilibria": equilibria_summary(solution),
                   "middle": middle_score * solution.rules.unit,
                   "first_bank_start": first_banks(solution, [start] * players),
                   "first_bank_middle": first_banks(solution, [middle] * players)}
            out["seats"].append(row)
            wins = " / ".join(f"{v:.4f}" for v in row["seat_wins"])
            print(f"| {game} | {target} | {players} | {wins} | {seconds:.1f} | "
                  f"{row['equilibria']['levels_mixed']} | {row['first_bank_start']} | "
                  f"{row['first_bank_middle']} |", flush=True)
    print("\n" + DUEL_HEADER)
    print("|---|---|---|---|---|---|---|")
    for game, target, *changes in duel_cases:
        changes = changes[0] if changes else {}
        solution = (None if changes else solved.get((game, target, 3))) \
            or solve_case(game, target, 3, changes)[0]
        row, line = duel_row(solution, game, target, changes, args.sample)
        out["duel"].append(row)
        print(line, flush=True)
    if args.json_out:
        args.json_out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

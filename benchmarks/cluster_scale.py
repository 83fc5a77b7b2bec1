"""What the N-player solve costs through a cluster, measured at three targets
of one game and projected to the games only a cluster could solve (issue
70, point 5; docs/cluster.md, "What it costs" and "How far it goes").

    python benchmarks/cluster_scale.py [--game cinq-mille] [--players 3]
        [--targets 1500,2000,3000] [--workers 2] [--worker-memory 2GB] [--json FILE] [--from FILE]

Each target is solved twice, each solve in a fresh process (its peak
resident memory its own): in one process (``solve_players``) and through
``--cluster local:W`` (``solve_players_cluster``, workers started by it,
each within ``--worker-memory``). Measured: the wall time, the time per
block and per DP row, the time in tasks and outside them per level, and
the bytes: V, take_values, the checkpoint on disk, each worker's peak, the
client's peak and the single process's peak; and that both solves give
the same V, bit for bit (SHA-256).

Then the projection (:func:`solver.tables.estimates.estimated_cluster`),
checked against the three measured solves (its error stated), and given for
3-player quinze-mille to 15,000, 3-player dix-mille to 10,000, 4-player
cinq-mille to 5,000 and 4-player Pig to 100 on 2 to 256 workers.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

BIG = [("quinze-mille", 15000, 3), ("dix-mille", 10000, 3), ("cinq-mille", 5000, 4),
       ("pig", 100, 4)]
PROJECTED_WORKERS = (2, 16, 64, 256)


def one(mode: str, game: str, players: int, target: int, workers: int,
        worker_memory: str | None) -> dict:
    """One solve in this process (the child's side)."""
    import hashlib
    import time

    import numpy as np

    from solver.engine.n_player import Setup, solve_players
    from solver.model.dice import keep_table
    from solver.model.rules import get_rules
    from solver.tables.cluster import peak_bytes, reset_peak
    rules = get_rules(game).with_target(target)
    setup = Setup.of(rules, players)        # compiles nothing; counts blocks and levels
    found = {"mode": mode, "game": game, "players": players, "target": target,
             "nodes": setup.nodes, "blocks": sum(setup.level(j).count for j in range(setup.levels)),
             "levels": setup.levels}
    del setup
    reset_peak()
    started = time.perf_counter()
    if mode == "single":
        solution = solve_players(rules, players)
    else:
        from solver.tables.cluster import solve_players_cluster
        folder = Path(tempfile.mkdtemp(prefix="cluster-scale-")) / "t.h5.checkpoint"
        solution = solve_players_cluster(rules, players, f"local:{workers}", folder,
                                         worker_memory=worker_memory)
        found["checkpoint_bytes"] = sum(f.stat().st_size for f in folder.iterdir())
        found["cluster"] = solution.stats["cluster"]
    found["seconds"] = time.perf_counter() - started
    found["peak_bytes"] = peak_bytes()
    stats = solution.stats
    found["sweeps"] = stats["sweeps"]
    found["rows_run"] = stats["keep_evaluations"] // len(keep_table(rules).packed().keep_units)
    found["turn_dp_runs"] = stats["turn_dp_runs"]
    found["V_bytes"] = int(solution.V.nbytes)
    found["take_values_bytes"] = int(solution.take_values.nbytes)
    found["V_sha256"] = hashlib.sha256(np.ascontiguousarray(solution.V).tobytes()).hexdigest()
    if mode == "cluster":
        shutil.rmtree(folder.parent, ignore_errors=True)
    return found


def measure(args, mode: str, target: int) -> dict:
    command = [sys.executable, __file__, "--one", mode, "--game", args.game,
               "--players", str(args.players), "--targets", str(target),
               "--workers", str(args.workers)]
    if args.worker_memory:
        command += ["--worker-memory", args.worker_memory]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode != 0:
        sys.exit(f"{mode} {target}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mb(n) -> str:
    return f"{n / 1e6:,.0f} MB"


def report(rows: list[dict], workers: int) -> list[dict]:
    from solver.model.rules import get_rules
    from solver.tables.estimates import estimated_cluster
    print("| target | turn starts | blocks / levels | DP rows run | one process: s, "
          f"us a block, ns a DP row, peak | local:{workers}: s (in tasks / levels / the "
          "client's own), us a block, ns a DP row | V / take_values / checkpoint | worker "
          "peak / client peak | same bits |")
    print("|---|---|---|---|---|---|---|---|---|")
    checks = []
    for single, there in rows:
        c = there["cluster"]
        own = f"{c['client_seconds']:.1f}" if "client_seconds" in c else "-"
        print(f"| {single['target']:,} | {single['nodes']:,} | {single['blocks']:,} / "
              f"{single['levels']} | {single['rows_run']:,} | {single['seconds']:.1f} s, "
              f"{1e6 * single['seconds'] / single['blocks']:.0f}, "
              f"{1e9 * single['seconds'] / single['rows_run']:.0f}, {mb(single['peak_bytes'])} | "
              f"{there['seconds']:.1f} s ({c['task_seconds']:.1f} / {c['level_seconds']:.1f} / "
              f"{own}), {1e6 * there['seconds'] / there['blocks']:.0f}, "
              f"{1e9 * there['seconds'] / there['rows_run']:.0f} | {mb(there['V_bytes'])} / "
              f"{mb(there['take_values_bytes'])} / {mb(there['checkpoint_bytes'])} | "
              f"{mb(c['worker_peak_max_bytes'])} / {mb(c['client_peak_bytes'])} | "
              f"{'yes' if single['V_sha256'] == there['V_sha256'] else 'NO'} |")
        rules = get_rules(single["game"]).with_target(single["target"])
        # the blocks that cycle, where the solve counted them
        guess = estimated_cluster(rules, single["players"], workers, c.get("cycling_blocks"))
        checks.append({"target": single["target"], "measured_s": there["seconds"],
                       "cycling": c.get("cycling_blocks"),
                       "projected_s": guess["seconds"], "rows_run": single["rows_run"],
                       "projected_rows": guess["rows"], "levels": single["levels"],
                       "projected_levels": guess["levels"],
                       "worker_peak": c["worker_peak_max_bytes"],
                       "projected_worker_peak": guess["worker_bytes"],
                       "checkpoint": there["checkpoint_bytes"],
                       "projected_checkpoint": guess["checkpoint_bytes"]})
    print("\nThe projection against the measured solves (projected / measured):\n")
    print("| target | blocks that cycle | wall s | DP rows | levels | worker peak | "
          "checkpoint |")
    print("|---|---|---|---|---|---|---|")
    for k in checks:
        cycling = "share" if k["cycling"] is None else k["cycling"]
        print(f"| {k['target']:,} | {cycling} | {k['projected_s']:.1f} / {k['measured_s']:.1f} "
              f"({k['projected_s'] / k['measured_s']:.2f}) | "
              f"{k['projected_rows'] / k['rows_run']:.2f} | "
              f"{k['projected_levels']} / {k['levels']} | "
              f"{mb(k['projected_worker_peak'])} / {mb(k['worker_peak'])} | "
              f"{k['projected_checkpoint'] / k['checkpoint']:.2f} |")
    return checks


def level_read_share(rules, players: int) -> float:
    """The largest share of the turn starts that one level's blocks read:
    a bank raises one score by at most the highest score, so level ``L``
    reads levels ``L`` to ``L + highest`` (and, with falls, lower ones of
    the last sweep: as far down as the penalty, or, where a fall goes back
    to a previous score, as far as the highest score). The turn
    starts of a level are the convolution of the player states' counts by
    score. What a worker would map if V were stored in level order
    (docs/cluster.md, "Not done yet")."""
    from solver.model.states import player_space
    score = player_space(rules, "exact").score
    score = score - score.min()
    by_score = np.bincount(score).astype(float)
    by_level = by_score
    for _ in range(players - 1):
        by_level = np.convolve(by_level, by_score)
    top, cumulative = int(score.max()), np.concatenate([[0.0], np.cumsum(by_level)])
    below = (rules.fall_penalty // rules.unit if rules.fall_penalty
             else top if rules.crosses else 0)
    n = len(by_level)
    return max(cumulative[min(n, L + top + 1)] - cumulative[max(0, L - below)]
               for L in range(n)) / cumulative[-1]


def projections() -> list[dict]:
    from solver.model.rules import get_rules
    from solver.tables.estimates import estimated_cluster
    print("\nProjected (estimated_cluster; workers of one core, 12 GB each: a machine "
          "like this one is 2 of them):\n")
    print("| game | turn starts | V | take_values | worker peak | levels x sweeps | tasks "
          "on W workers | hours on " + ", ".join(map(str, PROJECTED_WORKERS)) + " workers "
          "| of which the client's own | most of V a level reads |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    found = []
    for game, target, players in BIG:
        rules = get_rules(game).with_target(target)
        each = [estimated_cluster(rules, players, w) for w in PROJECTED_WORKERS]
        g = each[0]
        print(f"| {players}-player {game} to {target:,} | {g['nodes']:.3g} | "
              f"{g['V_bytes'] / 1e9:,.3g} GB | {g['take_values_bytes'] / 1e9:,.3g} GB | "
              f"{g['worker_bytes'] / 1e9:,.3g} GB | {g['levels']:,} x {g['sweeps']} | "
              f"{g['levels'] * g['sweeps']:,} x W | "
              + ", ".join(f"{e['seconds'] / 3600:,.3g}" for e in each)
              + f" | {g['client_seconds'] / 3600:,.3g} | "
              + f"{level_read_share(rules, players):.0%} |")
        found.append({"game": game, "target": target, "players": players,
                      "by_workers": {w: e for w, e in zip(PROJECTED_WORKERS, each)}})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="cinq-mille")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--targets", default="1500,2000,3000")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-memory", default="2GB")
    parser.add_argument("--json", type=Path, metavar="FILE")
    parser.add_argument("--one", choices=("single", "cluster"), help=argparse.SUPPRESS)
    parser.add_argument("--from", dest="source", type=Path, metavar="FILE",
                        help="report the solves of an earlier --json FILE, not measured again")
    args = parser.parse_args()
    targets = [int(t) for t in args.targets.split(",")]
    if args.one:
        print(json.dumps(one(args.one, args.game, args.players, targets[0], args.workers,
                             args.worker_memory)))
        return
    from solver.tables.machine import machine
    print(f"{machine()}; load average {os.getloadavg()[0]:.1f} at the start\n")
    rows = []
    if args.source:
        rows = json.loads(args.source.read_text())["measured"]
    else:
        # numba's cache warmed first (a small solve), so that no solve compiles
        from solver.model.rules import get_rules
        warm = max(min(targets) // 2, get_rules(args.game).entry + 250)
        measure(args, "single", warm - warm % 50 if warm > 100 else warm)
        for target in targets:
            rows.append((measure(args, "single", target), measure(args, "cluster", target)))
    checks = report(rows, args.workers) if rows else []
    found = projections()
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    if args.json:
        args.json.write_text(json.dumps({"measured": rows, "checks": checks,
                                         "projections": found}, indent=1))


if __name__ == "__main__":
    main()

"""What writing an N-player table costs in memory and time (issue 70, point 2:
the table of a solve larger than memory; docs/cluster.md, "What the client
holds").

    python benchmarks/bench_write_table.py [--game pig] [--target 60] [--players 4]
        [--code DIR]

Solves the game once (in one process), keeps its values as ``.npy`` files,
then in a fresh process maps them copy-on-write, as a cluster solve's
client holds them (:meth:`solver.tables.checkpoint.Checkpoint.mapped`), and
writes the table (:func:`solver.tables.files.write_table`): that process's
seconds and peak resident memory (pages of the maps it reads included),
the table's size, and its values' SHA-256. ``--code DIR``: the writing
process imports the program from DIR (another commit checked out there),
for a before and after on one machine.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

WRITE = r"""
import json, sys, time
import numpy as np
from solver.engine.solution_n import MultiSolution
from solver.model.rules import get_rules
from solver.model.states import player_space
from solver.tables.files import write_table
folder, game, target, players = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# sys.argv[5]: where the program must come from
rules = get_rules(game, target)
solution = MultiSolution(rules, player_space(rules, "exact"), players,
                         np.load(folder + "/V.npy", mmap_mode="c"),
                         np.load(folder + "/take_values.npy", mmap_mode="c"))
solution.mixed.update({int(k): [tuple(d) for d in v]
                       for k, v in json.load(open(folder + "/mixed.json")).items()})
solution.stats = {"seconds": 0.0}
def peak():
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent
    # across fork and exec.
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM"))
before = peak()
started = time.perf_counter()
size = write_table(solution, folder + "/table.h5", 1e-12, 0.0)
seconds = time.perf_counter() - started
peak = peak()
print(json.dumps({"seconds": seconds, "peak_bytes": peak, "before_write_bytes": before,
                  "table_bytes": size, "V_bytes": solution.V.nbytes}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="pig")
    parser.add_argument("--target", type=int, default=60)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--code", type=Path, help="import the writer from this checkout")
    args = parser.parse_args()

    import numpy as np

    from solver.engine.n_player import solve_players
    from solver.model.rules import get_rules
    from solver.tables.machine import machine

    solution = solve_players(get_rules(args.game, args.target), args.players)
    with tempfile.TemporaryDirectory() as folder:
        np.save(Path(folder) / "V.npy", solution.V)
        np.save(Path(folder) / "take_values.npy", solution.take_values)
        (Path(folder) / "mixed.json").write_text(json.dumps(
            {str(k): v for k, v in solution.mixed.items()}))
        del solution
        env = dict(os.environ)
        if args.code:
            env["PYTHONPATH"] = str(args.code.resolve())
        code = args.code.resolve() if args.code else Path(__file__).resolve().parent.parent
        done = subprocess.run([sys.executable, "-c", WRITE, folder, args.game,
                               str(args.target), str(args.players), str(code)],
                              capture_output=True, text=True, env=env, check=True,
                              cwd=folder)   # not this checkout: "" leads sys.path
        result = json.loads(done.stdout.strip().splitlines()[-1])
        import h5py
        with h5py.File(Path(folder) / "table.h5") as f:
            result["V_sha256"] = hashlib.sha256(np.ascontiguousarray(f["V"][()])).hexdigest()
    result.update(game=args.game, target=args.target, players=args.players,
                  code=str(args.code or "this checkout"), machine=machine())
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

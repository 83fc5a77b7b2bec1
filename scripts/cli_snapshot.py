"""The ``farkle`` commands' output for a fixed list of calls, to show that a
change of the code's layout changed no behaviour.

    python scripts/cli_snapshot.py write before.json   # on the old commit
    python scripts/cli_snapshot.py write after.json    # on the new one
    python scripts/cli_snapshot.py compare before.json after.json

Each call runs ``python -m solver.cli`` as a person would, in a scratch
table directory (the committed tables are read, nothing is written to
them); its exit status, standard output and standard error are recorded.
Timings printed by a command (``in 1.2 s``) differ run to run and are
masked before comparing.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

HOUSE = 'base = "cinq-mille"\nname = "snapshot-house"\ntarget = 1500\nentry = 300\n'

CALLS = [
    ["variants", "--json"],
    ["variants"],
    ["keeps", "dix-mille", "1", "1", "5", "2", "3", "4", "--json"],
    ["keeps", "quinze-mille", "1", "1", "1", "6", "6", "2", "--json"],
    ["odds", "cinq-mille", "--json"],
    ["odds", "pig", "--json"],
    ["info", "{tables}/pig.h5", "--json"],
    ["info", "{tables}/cinq-mille.h5", "--json"],
    ["advise", "cinq-mille", "--me", "1500", "--opp", "2000", "--turn", "600", "--dice", "2",
     "--json"],
    ["advise", "cinq-mille", "--me", "3000", "--opp", "4200", "--turn", "350", "--dice", "5",
     "--roll", "1", "1", "5", "5", "3", "--json"],
    ["advise", "cinq-mille", "--me", "3000", "--opp", "4200", "--turn", "350", "--dice", "5",
     "--roll", "1", "1", "5", "5", "3"],
    ["advise", "cinq-mille", "--me", "1000", "--opp", "2000", "--opp", "750", "--json"],
    ["advise", "cinq-mille", "--me", "1500", "--opp", "2000", "--turn", "600", "--dice", "2",
     "--card", "--json"],
    ["advise", "pig", "--me", "50", "--opp", "60", "--turn", "20", "--json"],
    ["advise", "pig", "--me", "50", "--opp", "60", "--opp", "70", "--turn", "20", "--json"],
    ["advise", "--rules", "{house}", "--me", "500", "--opp", "900", "--turn", "300",
     "--dice", "3", "--solve", "--json"],
    ["solve", "pig", "--target", "30", "--json"],
    ["solve", "cinq-mille", "--target", "1000", "--players", "3", "--json"],
    ["advise", "cinq-mille", "--target", "1000", "--me", "750", "--opp", "0", "--opp", "800",
     "--json"],
    ["simulate", "cinq-mille", "--a", "optimal", "--b", "card", "--games", "2000", "--seed", "3",
     "--json"],
    ["simulate", "pig", "--a", "threshold:20", "--b", "expected", "--games", "2000", "--seed",
     "5", "--json"],
    ["simulate", "pig", "--players", "3", "--seat", "optimal", "--seat", "random", "--seat",
     "threshold:20", "--games", "2000", "--seed", "1", "--json"],
    ["card", "cinq-mille", "--json"],
    ["card", "cinq-mille"],
    ["card", "pig", "--players", "3"],
    ["card", "dix-mille"],
    ["tables", "--json"],
    ["advise", "cinq-mille", "--me", "-5", "--opp", "0"],
    ["solve", "no-such-game"],
    ["keeps", "cinq-mille", "7"],
]

TIMING = re.compile(r"\d+(\.\d+)? ?(s|ms|min|seconds?)\b")
JSON_TIMING = re.compile(r'("\w*second\w*": )[-\d.e+]+')


def masked(text: str) -> str:
    """``text`` with the times a run measures masked: they differ run to run."""
    return JSON_TIMING.sub(r"\1<time>", TIMING.sub("<time>", text))


def run_calls():
    with tempfile.TemporaryDirectory() as scratch:
        house = os.path.join(scratch, "house.toml")
        with open(house, "w") as file:
            file.write(HOUSE)
        tables = os.path.join(scratch, "tables")
        env = {**os.environ, "FARKLE_TABLES": tables, "COLUMNS": "100"}
        committed = os.path.join(os.getcwd(), "tables")
        out = {}

        def local(text):
            """``text`` with this run's folders named, not spelled out."""
            return text.replace(scratch, "<tmp>").replace(os.getcwd(), "<repo>")

        for call in CALLS:
            args = [a.format(tables=committed, house=house) for a in call]
            done = subprocess.run([sys.executable, "-m", "solver.cli", *args], env=env,
                                  capture_output=True, text=True, timeout=900,
                                  stdin=subprocess.DEVNULL)
            key = " ".join(call)
            out[key] = {"status": done.returncode,
                        "stdout": masked(local(done.stdout)),
                        "stderr": masked(local(done.stderr))}
            print(f"{done.returncode}  {key}", file=sys.stderr)
        return out


def main(argv):
    if len(argv) == 2 and argv[0] == "write":
        with open(argv[1], "w") as file:
            json.dump(run_calls(), file, indent=1)
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        before, after = ({key: {part: masked(text) if isinstance(text, str) else text
                                for part, text in call.items()}
                          for key, call in json.load(open(path)).items()}
                         for path in argv[1:])
        differ = [key for key in before if before[key] != after.get(key)]
        for key in differ:
            print(f"differs: {key}")
            for part in ("status", "stdout", "stderr"):
                if before[key][part] != after.get(key, {}).get(part):
                    print(f"  {part}:\n    before {before[key][part]!r:.400}\n"
                          f"    after  {after.get(key, {}).get(part)!r:.400}")
        print(f"{len(before) - len(differ)} of {len(before)} calls the same")
        return 1 if differ else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

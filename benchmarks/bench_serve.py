"""The page's answer time: whole games asked of ``farkle serve`` over HTTP.

    python benchmarks/bench_serve.py [GAME[,PLAYERS] ...]

The server holds no game: every request replays the page's entries so far
(solver.web.api). This plays whole games as the page does (seeded dice,
the recommended choice each time), one request per entry, and reports the
wall time of a request (median, and the slowest) and of the last requests
of the longest game, where the replay is longest. The first request of a
game, which reads its table, is reported apart.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
import urllib.request

import numpy as np

from solver.tables.machine import machine


def ask(url, body):
    request = urllib.request.Request(url + "api/game", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as answer:
        data = json.loads(answer.read())
    return data, time.perf_counter() - started


def play(url, game, players, seed):
    """One whole game; the request times in entry order."""
    rng = np.random.default_rng(seed)
    body = {"game": game, "players": players, "entries": []}
    times = []
    while True:
        answer, seconds = ask(url, body)
        times.append(seconds)
        if answer["phase"] == "over":
            return times
        if answer["phase"] == "roll":
            entry = {"dice": [int(d) for d in rng.integers(1, 7, answer["in_hand"])]}
        elif answer["advice"] is None:
            entry = {"choose": "roll"}
        else:
            best = answer["advice"]["choices"][answer["recommended"]]
            entry = {"keep": best["keep"]} if best["action"] == "keep" \
                else {"choose": best["action"]}
        body["entries"].append(entry)


def main(argv=None) -> int:
    specs = (argv if argv is not None else sys.argv[1:]) or ["cinq-mille,2", "cinq-mille,3"]
    server = subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", "0",
                               "--quiet"], stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().split()[4]
    try:
        print(f"Machine: {machine()}. Command: `python benchmarks/bench_serve.py "
              f"{' '.join(specs)}` (5 games each).\n")
        print("| game | players | first request s | request s, median | slowest s | "
              "entries in the longest game | its last 10 requests, median s |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for spec in specs:
            game, players = (spec.split(",") + ["2"])[:2]
            games = [play(url, game, int(players), seed) for seed in range(5)]
            first = games[0][0]
            rest = [t for times in games for t in times[1:]]
            longest = max(games, key=len)
            print(f"| {game} | {players} | {first:.3f} | {statistics.median(rest):.4f} | "
                  f"{max(rest):.3f} | {len(longest) - 1} | "
                  f"{statistics.median(longest[-10:]):.4f} |")
    finally:
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Many phones at once: ``farkle serve`` under 20 clients, some of them idle
or slow.

    python benchmarks/bench_serve_load.py [--requests 40] [--seconds 60]

Starts ``farkle serve --port 0 --quiet`` on 127.0.0.1 (as tests/conftest.py
does), then runs two rounds of clients, all on 127.0.0.1:

1. **20 clients**: 16 ask ``/api/advise`` questions (two- and three-player
   cinq-mille, from the committed tables), ``--requests`` each, one after
   the other, each on a connection of its own; beside them 2 connect and
   send nothing (connecting again when the server closes them), and 2 send
   a body one byte a second (starting again when the server cuts them off).
2. **16 clients**: the same askers alone, for comparison.

For each round it prints how many questions were answered, their median
and 95th-percentile latency (connect to the last byte of the answer), the
slowest, and answers a second. Bounded: a question waits at most
``--timeout`` seconds and a round stops after ``--seconds`` whatever is
left, so it ends by itself (a server answering one connection at a time
is stuck behind the first idle client: its askers time out and are
counted as unanswered).

The questions are drawn from a fixed pool (seeded), asked once before the
rounds so that the tables are read and the kernels compiled: the rounds
measure the server under load, not a table's first read.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import statistics
import subprocess
import sys
import threading
import time

from solver.tables.machine import machine

ASKERS = 16
IDLE = 2
SLOW = 2
GAMES = [("cinq-mille", 1), ("cinq-mille", 2)]     # (game, opponents): committed tables


def start_server():
    """``farkle serve --port 0 --quiet``: (the process, host, port)."""
    process = subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", "0",
                                "--quiet"], stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("serving the page on http://127.0.0.1:"):
        process.kill()
        raise SystemExit(f"the server said {line!r}")
    host, port = line.split()[4].removeprefix("http://").rstrip("/").split(":")
    return process, host, int(port)


def positions(rng: random.Random, count: int) -> list[dict]:
    """``count`` cinq-mille questions: scores the game can have (0, or the
    entry of 750 and up), a turn total, the dice in hand."""
    scores = [0] + list(range(750, 4500, 50))
    out = []
    for _ in range(count):
        game, opponents = rng.choice(GAMES)
        me = rng.choice(scores)
        turn = rng.choice([t for t in (0, 100, 350, 750, 1200) if me + t < 5000])
        out.append({"game": game, "me": me, "opp": [rng.choice(scores) for _ in range(opponents)],
                    "turn": turn, "dice": rng.randint(1, 5) if turn else 5})
    return out


def ask(host, port, question: dict, timeout: float) -> tuple[int, float]:
    """POST /api/advise: (HTTP status, seconds from connect to the answer's
    last byte)."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("POST", "/api/advise", json.dumps(question),
                           {"Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        return answer.status, time.perf_counter() - started
    finally:
        connection.close()


def asker(host, port, questions, count, timeout, deadline, times, failures):
    for question in questions[:count]:
        if time.monotonic() > deadline:
            failures.append("round over")
            return
        try:
            status, seconds = ask(host, port, question, timeout)
        except OSError as error:            # refused, reset, or no answer in time
            failures.append(type(error).__name__)
            continue
        if status == 200:
            times.append(seconds)
        else:
            failures.append(f"HTTP {status}")


def idle_client(host, port, stop):
    """Connect and say nothing; connect again whenever the server hangs up."""
    while not stop.is_set():
        with socket.create_connection((host, port), timeout=1) as connection:
            while not stop.is_set():
                try:
                    if connection.recv(1024) == b"":
                        break
                except TimeoutError:
                    continue
                except OSError:
                    break


def slow_client(host, port, stop):
    """A question whose body comes one byte a second; again when cut off."""
    while not stop.is_set():
        with socket.create_connection((host, port), timeout=1) as connection:
            connection.sendall(b"POST /api/advise HTTP/1.0\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 200\r\n\r\n")
            while not stop.wait(1):
                try:
                    connection.sendall(b" ")
                except OSError:
                    break


def round_of(host, port, pool, troublemakers: bool, options) -> dict:
    """One round: the askers (and, with ``troublemakers``, the idle and slow
    clients beside them); the figures of the answered questions."""
    stop = threading.Event()
    others = []
    if troublemakers:
        others = [threading.Thread(target=idle_client, args=(host, port, stop), daemon=True)
                  for _ in range(IDLE)]
        others += [threading.Thread(target=slow_client, args=(host, port, stop), daemon=True)
                   for _ in range(SLOW)]
        for thread in others:
            thread.start()
        time.sleep(1)               # they are connected before the first question
    times: list[float] = []
    failures: list[str] = []
    deadline = time.monotonic() + options.seconds
    rng = random.Random(1)
    askers = [threading.Thread(target=asker, daemon=True,
                               args=(host, port, rng.sample(pool, len(pool)), options.requests,
                                     options.timeout, deadline, times, failures))
              for _ in range(ASKERS)]
    started = time.perf_counter()
    for thread in askers:
        thread.start()
    for thread in askers:
        thread.join(max(0.0, deadline - time.monotonic()) + options.timeout + 1)
    wall = time.perf_counter() - started
    stop.set()
    for thread in others:
        thread.join(5)
    return {"clients": ASKERS + len(others), "asked": ASKERS * options.requests,
            "answered": len(times), "failures": failures, "wall": wall,
            "median": statistics.median(times) if times else None,
            "p95": statistics.quantiles(times, n=20)[18] if len(times) > 1 else None,
            "slowest": max(times) if times else None}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=40, help="questions per asker")
    parser.add_argument("--seconds", type=float, default=60, help="a round stops after this")
    parser.add_argument("--timeout", type=float, default=20,
                        help="seconds a question waits for its answer")
    options = parser.parse_args(argv)
    pool = positions(random.Random(0), 200)
    process, host, port = start_server()
    try:
        # Each question once: the tables read, the kernels compiled, and a
        # question the game refuses (none should be) left out of the pool.
        pool = [q for q in pool if ask(host, port, q, 120)[0] == 200]
        rounds = [("16 askers, 2 idle, 2 slow", round_of(host, port, pool, True, options)),
                  ("16 askers alone", round_of(host, port, pool, False, options))]
    finally:
        process.terminate()
        process.wait(10)
    print(f"Machine: {machine()}. Command: `python benchmarks/bench_serve_load.py "
          f"--requests {options.requests} --seconds {options.seconds:g} "
          f"--timeout {options.timeout:g}` ({ASKERS} askers, {len(pool)} cinq-mille "
          f"questions, 2 and 3 players).\n")
    print("| clients | answered | median s | 95th percentile s | slowest s | answers/s | "
          "not answered |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, got in rounds:
        show = (lambda v: "-" if v is None else f"{v:.4f}")
        missed = ", ".join(f"{n} {kind}" for kind, n in
                           sorted({f: got["failures"].count(f) for f in got["failures"]}.items()))
        print(f"| {name} | {got['answered']} of {got['asked']} | {show(got['median'])} | "
              f"{show(got['p95'])} | {show(got['slowest'])} | "
              f"{got['answered'] / got['wall']:.0f} | {missed or 'none'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

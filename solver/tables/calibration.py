"""The solve-time estimate, calibrated on the machine that runs it.

``solver.tables.estimates`` counts a solve's work from the rules and turns
it into seconds at the rate of the project's machine. Machines differ (the
same solve took 15 s here and 51 s on a busy one, issue 68), so every solve
that :func:`solver.tables.make.make_table` finishes records, in
``solve-times.json`` of the user's cache directory (on Linux
``~/.cache/farkle-solver``), the machine, the kind of solve, the seconds
estimated and the seconds it took. The estimate of the next solve is then

    seconds = model estimate x median(measured / estimated)

over the last RECORDS solves of the same kind on this machine (a kind:
with crosses or not, the memory, two players or more, since their models
err differently), or of any kind here when none of that kind is recorded,
or x 1 on a machine with no record. Solves estimated under LEAST_ESTIMATE
seconds are not recorded: their time is mostly the process's (loading or
compiling the kernels takes seconds), not the solve's.

A speed given in ``$FARKLE_SOLVE_RATE`` is taken as it is: nothing is
read or recorded then. The file is small and written whole (temporary
file, then rename); a damaged or unreadable file counts as no record.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
from pathlib import Path

import platformdirs

from solver.model.rules import Rules
from solver.tables.machine import machine

RECORDS = 9
"""Solves of one kind kept per machine (the median reads the last ones)."""
LEAST_ESTIMATE = 5.0
"""Estimated seconds below which a solve is not recorded (a first solve
of Pig, estimated at 0.1 s, took 1 to 18 s with the kernels to load)."""
FILE_NAME = "solve-times.json"


def kind_of(rules: Rules, memory: str | None, players: int) -> str:
    """The kind of a solve whose estimate errs alike: ``crosses-model-2``,
    ``plain-exact-3``, ..."""
    crosses = "penalty" if rules.fall_penalty else "crosses" if rules.crosses \
        else "final" if rules.final_round else "plain"
    memory = memory or ("model" if players == 2 and rules.falls_back else "exact")
    return f"{crosses}-{memory}-{players}"


def path() -> Path:
    return platformdirs.user_cache_path("farkle-solver") / FILE_NAME


def _given_rate() -> bool:
    return "FARKLE_SOLVE_RATE" in os.environ


def _records() -> list[dict]:
    try:
        records = json.loads(path().read_text())
    except (OSError, ValueError):
        return []
    if not isinstance(records, list):
        return []
    return [r for r in records if isinstance(r, dict)
            and isinstance(r.get("machine"), str) and isinstance(r.get("kind"), str)
            and _positive(r.get("estimated")) and _positive(r.get("measured"))]


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and 0 < value < 1e9


def factor(kind: str) -> float:
    """What this machine's solves of ``kind`` took over their estimate
    (module docstring); 1 with no record or a rate given."""
    if _given_rate():
        return 1.0
    here = [r for r in _records()
            if r["machine"] == machine() and r["estimated"] >= LEAST_ESTIMATE]
    same = [r for r in here if r["kind"] == kind][-RECORDS:]
    chosen = same or here[-RECORDS:]
    if not chosen:
        return 1.0
    return statistics.median(r["measured"] / r["estimated"] for r in chosen)


def record(kind: str, estimated: float, measured: float) -> None:
    """Keep a finished solve's time (module docstring); never fails the
    solve it follows."""
    if not _positive(estimated) or estimated < LEAST_ESTIMATE or _given_rate():
        return
    here, others = [], []
    for r in _records():
        (here if (r["machine"], r["kind"]) == (machine(), kind) else others).append(r)
    here.append({"machine": machine(), "kind": kind, "estimated": estimated,
                 "measured": round(measured, 3)})
    records = others + here[-RECORDS:]
    where = path()
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=where.parent, prefix=f".{FILE_NAME}.",
                                         delete=False) as file:
            json.dump(records, file, indent=1)
        os.replace(file.name, where)
    except OSError:
        try:
            os.unlink(file.name)
        except (OSError, NameError):
            pass

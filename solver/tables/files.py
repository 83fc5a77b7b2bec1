"""Solved games as HDF5 files: the layout, writing and reading.

One file per game and target. Layout (all scores in units of
``rules.unit`` points):

    attrs   format, format_version, program_version, game, target, rules (JSON),
            tolerance, bellman_residual, solve_seconds, first_player_win,
            stats (JSON), axes (JSON: what each dataset's axes mean)
    player/score          int64 [P]    banked score of each player state
    player/previous       int64 [P]    score before the last bank (-1: forgotten)
    player/crosses        int64 [P]    crosses of each player state
    player/fall_to        int64 [S]    (crosses model) fall target per score
    attrs memory          none, exact or model (solver.engine.memory)
    W                     float64 [P, P]  W[m, w]: mover's win probability at a
                                          turn start, mover m, waiting w
    take_row              int64 [P]    row of take_values for states that may
                                          take over, -1 otherwise
    take_codes            int64 [K, B, O, D-1]  (take-over games only)
                          the take-over values, coded (solver.tables.take_codes:
                          taken offers alone, in steps of attrs quantum =
                          2^-33, as differences); decoded,
                          take_values[take_row[w], bank_slot[m], t - first, n-1]:
                          value to w of taking over t units with n dice from a
                          banker who has just banked and is now at m (bank_slot:
                          the states a bank leads to; first, O: the slot's
                          smallest offer and the most offers of a slot,
                          PlayerSpace.offers); 0 where w would rather start
                          afresh, and where t > score[m]: no bank makes that
                          offer. Format 4 kept these as float64 take_values.

With three or more players (attrs ``players`` N, ``seat_wins``,
``equilibria``; solver.engine.n_player):

    V                     float64 [P^N, N]  V[node, k]: chance of the player k
                                          seats after the mover (node: the
                                          player states, mover first, base P)
    take_values           float64 [K, T, D-1, N]  roll values of the nodes whose
                                          mover may take over after a bank
                                          (solver.engine.turn_kernel_n.take_index)
    mixed/bank            float64 [M, 4]  node, t, n, q: bank with probability q
    mixed/keep            float64 [M, 6]  node, t, roll class, main keep,
                                          alternative keep, q

``W`` and the take-over values are everything an exact answer needs: any
turn is replayed from them (:mod:`solver.advice.advisor`). The file is written under a
temporary name and renamed when complete, so an interrupted write never
leaves a file that looks valid.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import h5py
import numpy as np

from solver import __version__
from solver.tables import take_codes
from solver.tables.paths import solve_command
from solver.model.errors import UsageError
from solver.engine.solution_n import MultiSolution
from solver.engine.solution import Solution
from solver.model.rules import Rules
from solver.model.states import player_space

FORMAT = "farkle-solver-table"
FORMAT_VERSION = 5
"""2: take-over values kept for the states a bank leads to alone; 3: tables
of three or more players (two-player tables are as in 2); 4: two-player
take-over values kept for the turn totals that lead to the slot alone; 5:
two-player take-over values coded (solver.tables.take_codes). Format 4 tables are
read as they are."""

AXES = {
    "player/score": ["player state"],
    "player/previous": ["player state (-1: not remembered)"],
    "player/crosses": ["player state"],
    "player/fall_to": ["score (units): the model's fall after the last cross"],
    "W": ["mover player state", "waiting player state"],
    "take_row": ["player state"],
    "take_codes": ["take-over row of the taker", "bank slot of the banker's state after the bank",
                   "offered turn total (units) minus the slot's first offer (PlayerSpace.offers)",
                   "offered dice minus one"],
    "V": ["node: the players' states, mover first, in base P", "player, seats after the mover"],
    "mixed/bank": ["mixed bank decision", "node, turn total (units), dice, probability of banking"],
    "mixed/keep": ["mixed keep decision", "node, turn total (units), roll class, main keep, "
                   "alternative keep, probability of the alternative"],
}
PLAYER_AXES = {name: axes for name, axes in AXES.items() if name != "take_codes"}
PLAYER_AXES["take_values"] = ["take-over row of the node (solver.engine.turn_kernel_n)",
                              "offered turn total (units)", "offered dice minus one",
                              "player, seats after the mover"]


def write_table(solution: Solution, path: Path, tolerance: float, residual: float) -> int:
    """Write ``solution`` to ``path`` atomically; returns the file's size.

    The file is made in memory, written under a name of this process's
    own (``NAME.h5.PID.partial``: two writers never share one) and renamed.
    HDF5 writing to a full disk crashed the interpreter; a plain write
    fails with an OSError, and the partial file is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    rules = solution.rules
    compress = dict(compression="gzip", compression_opts=4, shuffle=True)
    image = io.BytesIO()
    try:
        with h5py.File(image, "w") as f:
            f.attrs["format"] = FORMAT
            f.attrs["format_version"] = FORMAT_VERSION
            f.attrs["program_version"] = __version__
            f.attrs["game"] = rules.name
            f.attrs["target"] = rules.target
            f.attrs["rules"] = rules.to_json()
            f.attrs["tolerance"] = tolerance
            f.attrs["bellman_residual"] = residual
            f.attrs["solve_seconds"] = solution.stats.get("seconds", float("nan"))
            f.attrs["first_player_win"] = solution.first_player_win
            f.attrs["stats"] = json.dumps(solution.stats)
            f.attrs["axes"] = json.dumps(AXES)
            space = solution.space
            f.attrs["memory"] = space.memory
            f.create_dataset("player/score", data=space.score)
            f.create_dataset("player/previous", data=space.previous)
            f.create_dataset("player/crosses", data=space.crosses)
            if space.fall_to is not None:
                f.create_dataset("player/fall_to", data=space.fall_to)
            if isinstance(solution, MultiSolution):
                _write_players(f, solution, compress)
            else:
                _write_two_players(f, solution, compress)
        with open(partial, "wb") as out:
            out.write(image.getbuffer())
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()
    return path.stat().st_size


def _write_two_players(f, solution: Solution, compress) -> None:
    f.attrs["players"] = 2
    f.create_dataset("W", data=solution.W, **compress)
    f.create_dataset("take_row", data=solution.take_row)
    if not np.any(solution.take_row >= 0):
        return
    # Coded one taker's row at a time (solver.tables.take_codes): no second copy
    # of the values in memory, and advice decodes the one row it reads.
    values, space = solution.take_values, solution.space
    slot_states = np.flatnonzero(space.bank_slot >= 0)      # slots in state order
    offers = space.score[slot_states] + 1 - space.offers[0]
    codes = f.create_dataset("take_codes", shape=values.shape, dtype=np.int64,
                             chunks=(1,) + values.shape[1:], **compress)
    codes.attrs["quantum"] = take_codes.QUANTUM
    for w in np.flatnonzero(solution.take_row >= 0):
        row = solution.take_row[w]
        codes[row] = take_codes.encode_row(values[row], solution.W[w, slot_states], offers)


def _write_players(f, solution: MultiSolution, compress) -> None:
    """The datasets of a table of three or more players (module docstring)."""
    f.attrs["players"] = solution.players
    f.attrs["axes"] = json.dumps(PLAYER_AXES)
    f.attrs["seat_wins"] = json.dumps([float(v) for v in solution.seat_wins])
    f.attrs["equilibria"] = json.dumps(equilibria_summary(solution))
    f.attrs["equilibria_found"] = json.dumps(solution.equilibria)
    # Small chunks: advice reads one slice of P rows per turn it replays.
    f.create_dataset("V", data=solution.V, chunks=(min(len(solution.V), 4096),
                                                   solution.players), **compress)
    if np.any(solution.space.can_take):
        values = solution.take_values
        # As with two players: offers past the banker's new score are never
        # made; zeroed, they compress away.
        slot_score = solution.space.score[solution.space.bank_slot >= 0]
        banker_score = slot_score[np.arange(len(values)) % len(slot_score)]
        t = np.arange(values.shape[1])
        values[t[None, :] > banker_score[:, None]] = 0.0
        chunks = (1,) + values.shape[1:]
        f.create_dataset("take_values", data=values, chunks=chunks, **compress)
    banks = [(node, t, n, q) for node, entries in solution.mixed.items()
             for kind, t, n, *rest in entries if kind == "bank" for q in rest]
    keeps = [(node, t, r, main, alt, q) for node, entries in solution.mixed.items()
             for kind, t, r, *rest in entries if kind == "keep" for main, alt, q in [rest]]
    f.create_dataset("mixed/bank", data=np.array(banks, dtype=float).reshape(-1, 4))
    f.create_dataset("mixed/keep", data=np.array(keeps, dtype=float).reshape(-1, 6))


def equilibria_summary(solution: MultiSolution) -> dict:
    """What ``farkle info`` says of the equilibria: how many blocks (and
    levels) needed mixing, the mixed decisions, the other equilibria found
    and how far they move a block's values."""
    found = solution.equilibria
    levels = {int(solution.space.score[solution.states_of(e["nodes"][0])].sum())
              for e in found}
    return {"blocks_mixed": len(found), "levels_mixed": len(levels),
            "mixed_decisions": sum(len(v) for v in solution.mixed.values()),
            "blocks_selected_otherwise": sum(1 for e in found
                                             if e.get("selection", "logit path") != "logit path"),
            "blocks_with_other_equilibria": sum(1 for e in found if e["other_equilibria"]),
            "other_equilibria": sum(e["other_equilibria"] for e in found),
            "largest_move_of_other_equilibria": max((e["other_move"] for e in found),
                                                    default=0.0)}


def read_info(path: Path) -> dict:
    """The metadata of a table file (``farkle info``)."""
    with _open(path) as f:
        info = {key: _plain(value) for key, value in f.attrs.items()}
        info["rules"] = json.loads(info["rules"])
        info["stats"] = json.loads(info["stats"])
        info["axes"] = json.loads(info["axes"])
        info.setdefault("players", 2)
        info["outdated"] = _outdated(f)
        for key in ("seat_wins", "equilibria", "equilibria_found"):
            if key in info:
                info[key] = json.loads(info[key])
        if "take_codes" in f:
            info["take_quantum"] = float(f["take_codes"].attrs["quantum"])
        info["datasets"] = {}
        f.visititems(lambda name, obj: info["datasets"].__setitem__(
            name, {"shape": list(obj.shape), "dtype": str(obj.dtype)})
            if isinstance(obj, h5py.Dataset) else None)
    info["file"] = str(path)
    info["bytes"] = Path(path).stat().st_size
    return info


def read_table(path: Path, expect: Rules | None = None, lazy_take: bool = True,
               expect_players: int | None = None) -> Solution | MultiSolution:
    """Load a table. With ``expect``, refuse a table of other rules. With
    ``lazy_take``, take-over values stay on disk and are read per query."""
    f = _open(path)
    try:
        rules = Rules.from_json(f.attrs["rules"])
        if expect is not None and rules != expect:
            raise UsageError(f"table {path} holds {rules.name} to {rules.target}, "
                             f"not {expect.name} to {expect.target} (its "
                             f"{rules.first_difference(expect)})")
        fall_to = f["player/fall_to"][()] if "player/fall_to" in f else None
        if expect_players is not None and int(f.attrs.get("players", 2)) != expect_players:
            raise UsageError(f"table {path} is for {int(f.attrs.get('players', 2))} players, "
                             f"not {expect_players}")
        space = player_space(rules, str(f.attrs.get("memory", "none")), fall_to)
        for name in ("score", "previous", "crosses"):
            if not np.array_equal(f[f"player/{name}"][()], getattr(space, name)):
                raise UsageError(f"table {path} does not match its rules (player states differ)")
        if int(f.attrs.get("players", 2)) != 2:
            solution = _read_players(f, rules, space, lazy_take)
            if not lazy_take:
                f.close()
            return solution
        W = f["W"][()]
        take_row = f["take_row"][()]
        if _outdated(f):
            raise UsageError(f"table {path} was made by an older farkle-solver; "
                             f"make it again with: "
                             f"{solve_command(rules, f.attrs.get('memory'))}")
        if "take_codes" in f:
            take = take_codes.TakeRows(f["take_codes"])
            take_values = take if lazy_take else np.asarray(take)
        elif "take_values" in f:           # format 4: the values as they are
            take = f["take_values"]
            take_values = take if lazy_take else take[()]
        else:
            take_values = np.zeros((1, 1, 1, 1))
        stats = json.loads(f.attrs["stats"])
        stats["bellman_residual"] = float(f.attrs["bellman_residual"])
    except UsageError:
        f.close()
        raise
    except (KeyError, ValueError, OSError, TypeError) as error:
        f.close()
        raise UsageError(f"table {path} is damaged ({error})") from None
    if not (lazy_take and ("take_codes" in f or "take_values" in f)):
        f.close()
    return Solution(rules, space, W, take_row, take_values, stats)


def _read_players(f, rules: Rules, space, lazy: bool) -> MultiSolution:
    """A table of three or more players; with ``lazy`` its values stay in
    the file (one slice is read per turn replayed)."""
    players = int(f.attrs["players"])
    take_values = np.zeros((1, 1, 1, players))
    if "take_values" in f:
        take_values = f["take_values"] if lazy else f["take_values"][()]
    mixed: dict = {}
    for node, t, n, q in f["mixed/bank"][()]:
        mixed.setdefault(int(node), []).append(("bank", int(t), int(n), float(q)))
    for node, t, r, main, alt, q in f["mixed/keep"][()]:
        mixed.setdefault(int(node), []).append(("keep", int(t), int(r), int(main), int(alt),
                                                float(q)))
    stats = json.loads(f.attrs["stats"])
    stats["bellman_residual"] = float(f.attrs["bellman_residual"])
    V = f["V"] if lazy else f["V"][()]
    return MultiSolution(rules, space, players, V, take_values, mixed,
                         json.loads(f.attrs.get("equilibria_found", "[]")), stats)


def outdated(path: Path) -> bool:
    """Whether a table file reads its take-over values in a layout older
    than this program's (two-player take-over tables before format 4): it
    must be made again."""
    with _open(path) as f:
        return _outdated(f)


def _outdated(f: h5py.File) -> bool:
    return (int(f.attrs.get("players", 2)) == 2 and ("take_values" in f or "take_codes" in f)
            and int(f.attrs["format_version"]) < 4)


def _open(path: Path) -> h5py.File:
    path = Path(path)
    if not path.exists():
        raise UsageError(f"no table at {path}")
    try:
        f = h5py.File(path, "r")
    except OSError:
        raise UsageError(f"table {path} is damaged or not an HDF5 file") from None
    if f.attrs.get("format") != FORMAT:
        f.close()
        raise UsageError(f"{path} is not a farkle-solver table")
    return f


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bytes):
        return value.decode()
    return value

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

Checksums (format 6). Every dataset carries ``attrs sha256``: the SHA-256 of
its values (little-endian, in C order); the root's ``attrs sha256`` covers
the other attributes and every dataset's name, shape, dtype and attributes
(so their checksums too). The datasets read lazily (``take_codes``, ``V``,
the N-player ``take_values``) also have HDF5's Fletcher-32 filter, which
HDF5 checks on every chunk it reads.

Damaged files. Whatever is wrong with a file, reading it raises
:class:`DamagedTable` (a :class:`UsageError`: one line, exit status 2),
quickly, never a traceback or a hang:

* a path that is not a regular file (a FIFO, a directory, a device) is
  refused from its ``fstat`` before anything reads it (a FIFO would block);
* before h5py opens the file, :func:`_check_hdf5` reads its superblock and
  the root group's attribute messages and walks the global heap
  collections their variable-length strings point into, as HDF5 will.
  HDF5 spins for ever on a collection whose object sizes do not tile it
  (an object of size 0 makes its parser stand still), and allocates what a
  string's length field says (up to 4 GB) before it finds the length
  wrong; both are refused here first. A file cut short (its end-of-file
  address past its size) is refused too;
* every attribute is checked for its type before it is read, the metadata
  against the root checksum, the rules against ``game`` and ``target``,
  every dataset's shape and dtype against the rules' player space, and
  values as they are read: finite, in [0, 1], equal to their checksum when
  read whole. A dataset read lazily is checked chunk by chunk (Fletcher-32,
  and gzip's own Adler-32) and each read slice for its range; its SHA-256
  when it is read whole (``lazy_take=False``).

Tables of format 5 and older carry no checksums and are read as before,
with every other check.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import stat
import struct
from pathlib import Path

import h5py
import numpy as np

from solver import __version__
from solver.tables import take_codes
from solver.tables.paths import solve_command
from solver.model.errors import UsageError
from solver.engine.solution_n import MAX_PLAYERS, MultiSolution
from solver.engine.solution import Solution
from solver.model.rules import Rules
from solver.model.states import player_space

FORMAT = "farkle-solver-table"
FORMAT_VERSION = 6
"""2: take-over values kept for the states a bank leads to alone; 3: tables
of three or more players (two-player tables are as in 2); 4: two-player
take-over values kept for the turn totals that lead to the slot alone; 5:
two-player take-over values coded (solver.tables.take_codes); 6: SHA-256
checksums of the values and the metadata, Fletcher-32 on the chunks read
lazily (module docstring). Format 4 and 5 tables are read as they are (no
checksum to check)."""
CHECKSUMS_FROM = 6
"""The first format whose tables carry checksums."""
CHECKSUM = "sha256"
"""The attribute of a dataset (its values) and of the root (the metadata)."""
CHUNKS_CHECKSUM = "chunks_sha256"
"""The attribute of a dataset read lazily: its chunks as stored."""
LAZY = ("take_codes", "V", "take_values")
"""The datasets that advice reads a slice at a time."""

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
            _create(f, "player/score", space.score)
            _create(f, "player/previous", space.previous)
            _create(f, "player/crosses", space.crosses)
            if space.fall_to is not None:
                _create(f, "player/fall_to", space.fall_to)
            if isinstance(solution, MultiSolution):
                _write_players(f, solution, compress)
            else:
                _write_two_players(f, solution, compress)
            f.flush()
            for name in LAZY:
                if name in f:
                    f[name].attrs[CHUNKS_CHECKSUM] = np.bytes_(_chunks_digest(
                        f[name], lambda at, n: _image_bytes(image, at, n)))
            f.attrs[CHECKSUM] = np.bytes_(_metadata_digest(_attributes(f), _datasets(f)))
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
    _create(f, "W", solution.W, **compress)
    _create(f, "take_row", solution.take_row)
    if not np.any(solution.take_row >= 0):
        return
    # Coded one taker's row at a time (solver.tables.take_codes): no second copy
    # of the values in memory, and advice decodes the one row it reads.
    values, space = solution.take_values, solution.space
    slot_states = np.flatnonzero(space.bank_slot >= 0)      # slots in state order
    offers = space.score[slot_states] + 1 - space.offers[0]
    codes = f.create_dataset("take_codes", shape=values.shape, dtype=np.int64,
                             chunks=(1,) + values.shape[1:], fletcher32=True, **compress)
    codes.attrs["quantum"] = take_codes.QUANTUM
    digest, rows = hashlib.sha256(), 0
    for w in np.flatnonzero(solution.take_row >= 0):
        row = solution.take_row[w]
        coded = take_codes.encode_row(values[row], solution.W[w, slot_states], offers)
        codes[row] = coded
        # Takers are numbered in state order (PlayerSpace.take_rows): the rows
        # come in order, and the digest of the rows is the dataset's.
        assert row == rows
        digest.update(_le_bytes(coded))
        rows += 1
    codes.attrs[CHECKSUM] = np.bytes_(digest.hexdigest())


def _write_players(f, solution: MultiSolution, compress) -> None:
    """The datasets of a table of three or more players (module docstring)."""
    f.attrs["players"] = solution.players
    f.attrs["axes"] = json.dumps(PLAYER_AXES)
    f.attrs["seat_wins"] = json.dumps([float(v) for v in solution.seat_wins])
    f.attrs["equilibria"] = json.dumps(equilibria_summary(solution))
    f.attrs["equilibria_found"] = json.dumps(solution.equilibria)
    # Small chunks: advice reads one slice of P rows per turn it replays.
    _create(f, "V", solution.V, chunks=(min(len(solution.V), 4096), solution.players),
            fletcher32=True, **compress)
    if np.any(solution.space.can_take):
        values = solution.take_values
        # As with two players: offers past the banker's new score are never
        # made; zeroed, they compress away.
        slot_score = solution.space.score[solution.space.bank_slot >= 0]
        banker_score = slot_score[np.arange(len(values)) % len(slot_score)]
        t = np.arange(values.shape[1])
        values[t[None, :] > banker_score[:, None]] = 0.0
        chunks = (1,) + values.shape[1:]
        _create(f, "take_values", values, chunks=chunks, fletcher32=True, **compress)
    banks = [(node, t, n, q) for node, entries in solution.mixed.items()
             for kind, t, n, *rest in entries if kind == "bank" for q in rest]
    keeps = [(node, t, r, main, alt, q) for node, entries in solution.mixed.items()
             for kind, t, r, *rest in entries if kind == "keep" for main, alt, q in [rest]]
    _create(f, "mixed/bank", np.array(banks, dtype=float).reshape(-1, 4))
    _create(f, "mixed/keep", np.array(keeps, dtype=float).reshape(-1, 6))


def _create(f, name: str, data, **options) -> None:
    """A dataset and the SHA-256 of its values (module docstring)."""
    dataset = f.create_dataset(name, data=data, **options)
    dataset.attrs[CHECKSUM] = np.bytes_(hashlib.sha256(
        _le_bytes(np.asarray(data, dtype=dataset.dtype))).hexdigest())


def _image_bytes(image: io.BytesIO, at: int, n: int) -> bytes:
    """Bytes of the file being made in memory (the view released at once:
    h5py goes on writing to it)."""
    with image.getbuffer() as view:
        return bytes(view[at:at + n])


def _le_bytes(values: np.ndarray) -> memoryview:
    """The bytes a checksum covers: little-endian, C order."""
    values = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<"))
    return memoryview(values.reshape(-1).view(np.uint8))


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


class DamagedTable(UsageError):
    """A table file that cannot be read as this program writes one (module
    docstring, "Damaged files"): one line, exit status 2."""

    def __init__(self, path, reason):
        text = " ".join(str(reason).split()) or type(reason).__name__
        super().__init__(f"table {path} is damaged ({text[:240]})")


class _Bad(Exception):
    """What is wrong with a file, found by this module's checks."""


def read_info(path: Path) -> dict:
    """The metadata of a table file (``farkle info``, ``farkle tables``),
    once the whole file is checked as :func:`read_table` checks it, and the
    values read lazily (``take_codes``, ``V``, the N-player
    ``take_values``) through their stored chunks' checksum (format 6): a
    table that cannot answer is never shown as sound."""
    with _Table(path) as table:
        with table.reading():
            info = dict(table.attrs)
            for key in ("rules", "stats", "axes", "seat_wins", "equilibria", "equilibria_found"):
                if key in info:
                    info[key] = json.loads(info[key])
            info.setdefault("players", 2)
            info["outdated"] = table.outdated
            if "take_codes" in table.datasets:
                info["take_quantum"] = float(table.datasets["take_codes"]["attrs"]["quantum"])
            info["datasets"] = {name: {"shape": meta["shape"], "dtype": meta["dtype"]}
                                for name, meta in table.datasets.items()}
            space = table.layout()
            if not table.outdated:
                table.check_values(space)
                for name in LAZY:
                    table.check_chunks(name)
    info["file"] = str(path)
    info["bytes"] = table.size
    return info


def read_table(path: Path, expect: Rules | None = None, lazy_take: bool = True,
               expect_players: int | None = None) -> Solution | MultiSolution:
    """Load a table. With ``expect``, refuse a table of other rules. With
    ``lazy_take``, take-over values stay on disk and are read per query
    (and checked as they are read: module docstring)."""
    table = _Table(path)
    keep_open = False
    try:
        with table.reading():
            rules, players = table.rules, table.players
            if expect is not None and rules != expect:
                raise UsageError(f"table {path} holds {rules.name} to {rules.target}, "
                                 f"not {expect.name} to {expect.target} (its "
                                 f"{rules.first_difference(expect)})")
            if expect_players is not None and players != expect_players:
                raise UsageError(f"table {path} is for {players} players, not {expect_players}")
            if table.outdated:
                raise UsageError(f"table {path} was made by an older farkle-solver; "
                                 f"make it again with: "
                                 f"{solve_command(rules, table.attrs.get('memory'))}")
            space = table.layout()
            W, take_row, mixed = table.check_values(space)
            stats = json.loads(table.attrs["stats"])
            stats["bellman_residual"] = float(table.attrs["bellman_residual"])
            if players != 2:
                V, take_values = table.lazy("V"), table.lazy("take_values")
                keep_open = lazy_take
                if not lazy_take:
                    V = np.asarray(V)
                    take_values = None if take_values is None else np.asarray(take_values)
                if take_values is None:
                    take_values = np.zeros((1, 1, 1, players))
                return MultiSolution(rules, space, players, V, take_values, mixed,
                                     json.loads(table.attrs.get("equilibria_found", "[]")),
                                     stats)
            # take_codes (format 5 on), or format 4's take_values as they are.
            take_values = table.lazy("take_codes")
            if take_values is None:
                take_values = table.lazy("take_values")
            if take_values is None:
                take_values = np.zeros((1, 1, 1, 1))
            elif lazy_take:
                keep_open = True
            else:
                take_values = np.asarray(take_values)
            return Solution(rules, space, W, take_row, take_values, stats)
    finally:
        if not keep_open:
            table.close()


def outdated(path: Path) -> bool:
    """Whether a table file reads its take-over values in a layout older
    than this program's (two-player take-over tables before format 4): it
    must be made again."""
    with _Table(path) as table:
        return table.outdated


REQUIRED = {"format": str, "format_version": int, "program_version": str, "game": str,
            "target": int, "rules": str, "tolerance": float, "bellman_residual": float,
            "solve_seconds": float, "first_player_win": float, "stats": str, "axes": str}
"""The attributes of every table, and their types (module docstring)."""
OPTIONAL = {"memory": str, "players": int, "seat_wins": str, "equilibria": str,
            "equilibria_found": str, CHECKSUM: str}
TYPE_NAMES = {str: "a string", int: "an integer", float: "a number"}
EPS = 1e-9
"""How far past [0, 1] a stored probability may be (rounding)."""


class _Table:
    """An open table file whose attributes have been checked (types, the
    root checksum, the rules against the game and target): :meth:`layout`
    checks the datasets' shapes, :meth:`check_values` the values read
    whole, :meth:`lazy` wraps the values read on demand."""

    def __init__(self, path):
        self.path = Path(path)
        self.f, self.size, strings = _open(self.path)
        try:
            with self.reading():
                self.attrs = _attributes(self.f, strings)
                if self.attrs.get("format") != FORMAT:
                    raise UsageError(f"{self.path} is not a farkle-solver table")
                self.datasets = _datasets(self.f)
                self._check_attributes()
        except BaseException:
            self.f.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.f.close()

    def reading(self):
        """Any error but a :class:`UsageError` becomes :class:`DamagedTable`."""
        return _Reading(self.path)

    def _check_attributes(self) -> None:
        attrs = self.attrs
        for name, value in attrs.items():
            kind = REQUIRED.get(name) or OPTIONAL.get(name)
            if kind is None:
                raise _Bad(f"an attribute this program never writes: {name!r}")
            if not isinstance(value, kind) and not (kind is float and isinstance(value, int)):
                raise _Bad(f"attribute {name} is not {TYPE_NAMES[kind]}")
        missing = [name for name in REQUIRED if name not in attrs]
        if missing:
            raise _Bad(f"its attribute {missing[0]} is missing")
        version = attrs["format_version"]
        if version > FORMAT_VERSION:
            raise UsageError(f"table {self.path} was made by a newer farkle-solver (table "
                             f"format {version}; this one reads formats up to "
                             f"{FORMAT_VERSION})")
        if version < 1:
            raise _Bad(f"format version {version}")
        self.checksums = version >= CHECKSUMS_FROM
        if self.checksums:
            if CHECKSUM not in attrs:
                raise _Bad("its checksum is missing")
            for name, meta in self.datasets.items():
                if CHECKSUM not in meta["attrs"]:
                    raise _Bad(f"{name} has no checksum")
            if attrs[CHECKSUM] != _metadata_digest(attrs, self.datasets):
                raise _Bad("its metadata do not match their checksum")
        try:
            self.rules = Rules.from_json(attrs["rules"])
        except Exception as error:         # whatever the rules' reader says of them
            raise _Bad(f"its rules cannot be read: {error}") from None
        if (self.rules.name, self.rules.target) != (attrs["game"], attrs["target"]):
            raise _Bad(f"its rules are not those of {attrs['game']} to {attrs['target']}")
        self.players = attrs.get("players", 2)
        if not 2 <= self.players <= MAX_PLAYERS:
            raise _Bad(f"{self.players} players")
        self.memory = attrs.get("memory", "none")
        if self.memory not in ("none", "exact", "model"):
            raise _Bad(f"memory {self.memory!r}")
        for name in ("first_player_win", "tolerance", "bellman_residual"):
            if not 0 <= attrs[name] <= (1 if name == "first_player_win" else math.inf):
                raise _Bad(f"{name} {attrs[name]}")
        if not (attrs["solve_seconds"] >= 0 or math.isnan(attrs["solve_seconds"])):
            raise _Bad(f"solve_seconds {attrs['solve_seconds']}")
        for name, kind in (("stats", dict), ("axes", dict), ("seat_wins", list),
                           ("equilibria", dict), ("equilibria_found", list)):
            if name in attrs and not isinstance(json.loads(attrs[name]), kind):
                raise _Bad(f"attribute {name} is not a JSON {kind.__name__}")
        if "seat_wins" in attrs:
            seat_wins = json.loads(attrs["seat_wins"])
            if len(seat_wins) != self.players or not all(
                    isinstance(v, float) and 0 <= v <= 1 for v in seat_wins):
                raise _Bad("its seats' chances are not probabilities")
        self.outdated = (self.players == 2 and version < 4 and
                         ("take_values" in self.datasets or "take_codes" in self.datasets))

    def layout(self):
        """The rules' player space, once every dataset has the shape and
        dtype the rules give it (the take-over values of an outdated
        table are not checked: they are never read)."""
        rules, players, datasets = self.rules, self.players, self.datasets
        fall_to = None
        if "player/fall_to" in datasets:
            fall_to = self.values("player/fall_to", "int64", (None,))
            if len(fall_to) > rules.target_units or np.any(fall_to < 0) or \
                    np.any(fall_to > rules.target_units):
                raise _Bad("player/fall_to is not a list of scores")
        space = player_space(rules, self.memory, fall_to)
        P = space.size
        expected = {f"player/{name}": ("int64", (P,)) for name in ("score", "previous", "crosses")}
        if fall_to is not None:
            expected["player/fall_to"] = ("int64", fall_to.shape)
        takers = int(np.sum(space.can_take))
        banked = int(np.sum(space.bank_slot >= 0))
        dice = max(rules.dice - 1, 1)
        if players == 2:
            expected.update(W=("float64", (P, P)), take_row=("int64", (P,)))
            shape = (takers, banked, space.offers[1], dice)
            if self.outdated:              # never read: any take-over values
                expected.update({name: (datasets[name]["dtype"], None)
                                 for name in ("take_values", "take_codes") if name in datasets})
            elif takers and self.attrs["format_version"] >= 5:
                expected["take_codes"] = ("int64", shape)
            elif takers:
                expected["take_values"] = ("float64", shape)
        else:
            expected["V"] = ("float64", (P ** players, players))
            if takers:
                expected["take_values"] = ("float64", (takers * P ** (players - 2) * banked,
                                                       rules.target_units, dice, players))
            expected["mixed/bank"] = ("float64", (None, 4))
            expected["mixed/keep"] = ("float64", (None, 6))
        for name, meta in datasets.items():
            if name not in expected:
                raise _Bad(f"a dataset this program never writes: {name}")
        for name, (dtype, shape) in expected.items():
            if name not in datasets:
                raise _Bad(f"{name} is missing")
            _check_shape(name, datasets[name], dtype, shape)
        if "take_codes" in datasets and \
                datasets["take_codes"]["attrs"].get("quantum") != take_codes.QUANTUM:
            raise _Bad("take_codes has another step than this program's")
        return space

    def check_values(self, space):
        """The values every answer reads whole, checked: ``(W, take_row,
        mixed)`` (None where the table has none)."""
        for name in ("score", "previous", "crosses"):
            if not np.array_equal(self.values(f"player/{name}"), getattr(space, name)):
                raise UsageError(f"table {self.path} does not match its rules "
                                 f"(player states differ)")
        if self.players != 2:
            return None, None, self._mixed(space)
        W = _probabilities(self.values("W"), "W")
        take_row = self.values("take_row")
        if not np.array_equal(take_row, space.take_rows()):
            raise _Bad("take_row is not its player states' take-over rows")
        return W, take_row, None

    def _mixed(self, space) -> dict:
        nodes = space.size ** self.players
        mixed: dict = {}
        bank, keep = self.values("mixed/bank"), self.values("mixed/keep")
        for rows in (bank, keep):
            if not np.all(np.isfinite(rows)) or np.any(rows[:, 0] < 0) or \
                    np.any(rows[:, 0] >= nodes) or np.any(rows[:, :-1] != np.rint(rows[:, :-1])):
                raise _Bad("a mixed decision that is no decision")
            _probabilities(rows[:, -1], "a mixed decision's probability")
        for node, t, n, q in bank:
            mixed.setdefault(int(node), []).append(("bank", int(t), int(n), float(q)))
        for node, t, r, main, alt, q in keep:
            mixed.setdefault(int(node), []).append(("keep", int(t), int(r), int(main), int(alt),
                                                    float(q)))
        return mixed

    def values(self, name, dtype=None, shape=None) -> np.ndarray:
        """A dataset read whole and checked against its checksum."""
        if dtype is not None:
            _check_shape(name, self.datasets.get(name), dtype, shape)
        dataset = self.f[name]
        values = dataset[()]
        if self.checksums and _digest(values) != self.datasets[name]["attrs"][CHECKSUM]:
            raise _Bad(f"{name} does not match its checksum")
        return values

    def check_chunks(self, name) -> None:
        """A dataset read lazily, checked whole without decoding it: its
        chunks as stored against their checksum (format 6)."""
        if not self.checksums or name not in self.datasets:
            return
        with open(self.path, "rb") as file:
            def read(at, n):
                if at + n > self.size:
                    raise _Bad(f"{name} points past the end of the file")
                file.seek(at)
                return file.read(n)
            if _chunks_digest(self.f[name], read) != \
                    self.datasets[name]["attrs"].get(CHUNKS_CHECKSUM):
                raise _Bad(f"{name} does not match its checksum")

    def lazy(self, name) -> "_Lazy | None":
        """A dataset read on demand (None if the table has none)."""
        if name not in self.datasets:
            return None
        checksum = self.datasets[name]["attrs"].get(CHECKSUM) if self.checksums else None
        return _Lazy(self.path, name, self.f[name], checksum,
                     take_codes.decode if name == "take_codes" else None)


class _Reading:
    """The context in which a table is read: whatever goes wrong but a
    :class:`UsageError` (a refusal that says what is wrong) is damage."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None or isinstance(error, UsageError) or not isinstance(error, Exception):
            return False
        raise DamagedTable(self.path, error) from None


def _check_shape(name, meta, dtype, shape) -> None:
    if meta is None:
        raise _Bad(f"{name} is missing")
    if meta["dtype"] != dtype or (shape is not None and (
            len(meta["shape"]) != len(shape) or
            any(want is not None and have != want for have, want in zip(meta["shape"], shape)))):
        raise _Bad(f"{name} is {meta['dtype']} {meta['shape']}, not {dtype} "
                   f"{list(shape) if shape is not None else ''}".rstrip())


def _probabilities(values: np.ndarray, name: str) -> np.ndarray:
    """``values``, once they are all finite and in [0, 1]."""
    if values.size and not (np.all(np.isfinite(values)) and values.min() >= -EPS
                            and values.max() <= 1 + EPS):
        raise _Bad(f"{name} holds values that are not probabilities")
    return values


def _digest(values: np.ndarray) -> str:
    return hashlib.sha256(_le_bytes(values)).hexdigest()


class _Lazy:
    """A dataset of a table read on demand, as an array would give it:
    ``lazy[key]`` reads a slice (for ``take_codes``, one taker's row
    decoded: :mod:`solver.tables.take_codes`), ``np.asarray(lazy)`` all of
    it. Every slice read is checked for its range, and the whole of it
    against its checksum; HDF5 checks each chunk's Fletcher-32 (format 6)
    and gzip its Adler-32. A failure is :class:`DamagedTable`."""

    def __init__(self, path, name, dataset, checksum, decode=None):
        self.path, self.name, self.dataset = path, name, dataset
        self.checksum, self.decode = checksum, decode
        self.shape = dataset.shape

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, key):
        with _Reading(self.path):
            if self.decode is None:
                return _probabilities(np.asarray(self.dataset[key]), self.name)
            row, rest = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
            values = _probabilities(self.decode(self.dataset[int(row)]), self.name)
            return values[rest] if rest else values

    def __array__(self, dtype=None, copy=None):
        with _Reading(self.path):
            out = np.empty(self.shape)
            digest = hashlib.sha256()
            step = self.dataset.chunks[0] if self.dataset.chunks else max(len(self), 1)
            for start in range(0, len(self), step):
                raw = self.dataset[start:start + step]
                digest.update(_le_bytes(raw))
                out[start:start + step] = raw if self.decode is None else self.decode(raw)
            if self.checksum is not None and digest.hexdigest() != self.checksum:
                raise _Bad(f"{self.name} does not match its checksum")
            _probabilities(out, self.name)
        return out if dtype is None else out.astype(dtype)


def _attributes(obj, strings: set | None = None) -> dict:
    """The attributes of a file or dataset as plain values. Each one's type
    is looked at before it is read: a variable-length string is read only
    if ``strings`` names it (:func:`_check_hdf5` checked it; None: the
    writer's own file)."""
    out = {}
    for name in obj.attrs:
        attr = obj.attrs.get_id(name)
        kind = attr.dtype.kind
        if attr.shape != () or kind not in "iufSO" or kind == "O" and (
                h5py.check_string_dtype(attr.dtype) is None
                or strings is not None and name not in strings):
            raise _Bad(f"attribute {name!r} is not of a type this program writes")
        out[name] = _plain(obj.attrs[name])
    return out


def _datasets(f) -> dict:
    """Each dataset's shape, dtype and attributes (which never hold
    variable-length strings)."""
    found = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            found[name] = {"shape": list(obj.shape), "dtype": str(obj.dtype),
                           "attrs": _attributes(obj, strings=set())}
    f.visititems(visit)
    return found


def _chunks_digest(dataset, read) -> str:
    """SHA-256 of a chunked dataset's chunks as HDF5 stores them
    (compressed, each with its Fletcher-32), in the order of their offsets:
    what ``farkle info`` and ``farkle tables`` check of the values advice
    reads lazily, without decompressing them. ``read(at, n)``: the file's
    bytes."""
    chunks: list = []
    dataset.id.chunk_iter(chunks.append)
    per_axis = [-(-size // chunk) for size, chunk in zip(dataset.shape, dataset.chunks)]
    if len(chunks) != math.prod(per_axis):
        raise _Bad(f"{dataset.name.lstrip('/')} has {len(chunks)} chunks, not "
                   f"{math.prod(per_axis)}")
    digest = hashlib.sha256()
    for chunk in sorted(chunks, key=lambda c: c.chunk_offset):
        digest.update(struct.pack("<IQ", chunk.filter_mask, chunk.size))
        digest.update(read(chunk.byte_offset, chunk.size))
    return digest.hexdigest()


def _metadata_digest(attrs: dict, datasets: dict) -> str:
    """The root checksum: every attribute but itself, every dataset's name,
    shape, dtype and attributes."""
    text = json.dumps({"attrs": {k: v for k, v in attrs.items() if k != CHECKSUM},
                       "datasets": datasets}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _open(path: Path):
    """``(h5py file, size, the variable-length strings checked)``, once the
    path is a regular file whose structure :func:`_check_hdf5` accepts."""
    try:
        # Not blocking: a FIFO opens at once, and fstat tells what it is.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise UsageError(f"no table at {path}") from None
    except OSError as error:
        raise UsageError(f"table {path} cannot be read ({error.strerror})") from None
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(status.st_mode) else \
            "a FIFO" if stat.S_ISFIFO(status.st_mode) else "not a regular file"
        raise DamagedTable(path, f"{what}, not a table file" if what[0] == "a" else what)
    with os.fdopen(fd, "rb") as file:
        try:
            strings = _check_hdf5(file, status.st_size)
        except (_Bad, OSError, struct.error) as error:
            raise DamagedTable(path, error) from None
    try:
        f = h5py.File(path, "r")
    except Exception as error:             # whatever HDF5 says of the file
        raise DamagedTable(path, f"HDF5 cannot open it: {error}") from None
    return f, status.st_size, strings


HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
MAX_HEADER = 1 << 20
"""The most bytes of object header blocks and of one global heap collection
read by :func:`_check_hdf5` (a table's are a few kilobytes)."""


def _check_hdf5(file, size: int) -> set:
    """Check, in plain bytes, what HDF5 cannot be trusted with: the names of
    the root attributes whose variable-length strings are sound.

    The tables are HDF5 files as h5py writes them by default: superblock
    version 0, version-1 object headers and attribute messages, the
    strings of the root's attributes in global heap collections. HDF5
    parses a collection in a loop that an object of size 0 (or sizes that
    do not tile the collection) turns into an endless one, and it
    allocates a string's stored length before it compares it with the
    heap object's: so every string's (length, collection, index) is
    checked here against a collection walked as HDF5 walks it, and each
    collection must be tiled exactly by its objects."""
    def read(at, n):
        if at < 0 or n < 0 or at + n > size:
            raise _Bad(f"it is cut short or points past its end ({size} bytes)")
        file.seek(at)
        data = file.read(n)
        if len(data) != n:
            raise _Bad("it is cut short")
        return data

    superblock = read(0, 72) if size >= 72 else b""
    if superblock[:8] != HDF5_SIGNATURE:
        raise _Bad("not an HDF5 file" if size else "an empty file")
    if superblock[8] != 0 or superblock[13] != 8 or superblock[14] != 8:
        raise _Bad("not the HDF5 layout this program writes")
    base, _, end, _, _, root = struct.unpack_from("<6Q", superblock, 24)
    if base != 0 or end > size:
        raise _Bad(f"it is cut short: {size} of its {end} bytes")
    version, _, messages, _, length = struct.unpack_from("<BBHII", read(root, 12))
    if version != 1:
        raise _Bad("its root group's header is not one this program writes")
    blocks, seen, total = [(root + 16, length)], 0, 0
    strings: dict = {}
    while blocks:
        at, length = blocks.pop()
        total += length
        if total > MAX_HEADER:
            raise _Bad("its root group's header is too long")
        block, p = read(at, length), 0
        while p + 8 <= length:
            kind, n = struct.unpack_from("<HH", block, p)
            data = block[p + 8:p + 8 + n]
            seen += 1
            if len(data) != n or seen > messages:
                raise _Bad("its root group's header is not as written")
            if kind == 0x10:                               # continuation
                blocks.append(struct.unpack_from("<QQ", data))
            elif kind == 0x0C:                             # attribute
                name, refs = _attribute_strings(data)
                if refs:
                    strings[name] = refs
            p += 8 + n
    heaps: dict = {}
    for name, refs in strings.items():
        for length, heap, index in refs:
            if length == 0:
                continue
            if heap not in heaps:
                heaps[heap] = _heap_objects(read, heap)
            if heaps[heap].get(index) != length:
                raise _Bad(f"the string of attribute {name} is not where it says")
    return set(strings)


def _pad8(n: int) -> int:
    return (n + 7) // 8 * 8


def _attribute_strings(data: bytes):
    """An attribute message's name, and its variable-length strings' heap
    references ``(length, collection address, index)`` (none for other
    types)."""
    version, _, name_size, type_size, space_size = struct.unpack_from("<BBHHH", data)
    if version != 1:
        raise _Bad("an attribute not of the layout this program writes")
    name = data[8:8 + name_size].rstrip(b"\0").decode("utf-8", "replace")
    at = 8 + _pad8(name_size)
    datatype = data[at:at + type_size]
    if not datatype or datatype[0] & 0x0F != 9:               # not variable-length
        return name, []
    values = data[at + _pad8(type_size) + _pad8(space_size):]
    if not values or len(values) % 16:
        raise _Bad(f"attribute {name} is not as written")
    return name, [struct.unpack_from("<IQI", values, i) for i in range(0, len(values), 16)]


def _heap_objects(read, address: int) -> dict:
    """A global heap collection's objects, ``{index: size}``, walked as
    HDF5's parser walks it; a collection its objects do not tile exactly
    is damaged (HDF5 would loop on it or read past it)."""
    head = read(address, 16)
    if head[:5] != b"GCOL\x01":
        raise _Bad("a string points where there is no global heap")
    size = struct.unpack_from("<Q", head, 8)[0]
    if not 16 <= size <= MAX_HEADER:
        raise _Bad("a global heap of an impossible size")
    heap, p, objects = read(address, size), 16, {}
    while p < size:
        if p + 16 > size:                  # too small for an object: free space
            break
        index, _, _, length = struct.unpack_from("<HHIQ", heap, p)
        step = 16 + _pad8(length) if index else length
        if step < 16 or p + step > size or (index and index in objects):
            raise _Bad("its global heap is not as written")
        if index:
            objects[index] = length
        p += step
    return objects


def _plain(value):
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bytes):
        value = value.decode()
    return value

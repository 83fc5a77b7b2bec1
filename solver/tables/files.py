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
    attrs memory          none, exact, model (solver.engine.memory) or penalty
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
    reach                 float64 [P^(N-1), E+1, N]  (a final round) every
                                          player's chance after the mover banks
                                          k units past the target, the others
                                          at rest (solver.engine.final_round_n)
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
* before h5py opens the file, :mod:`solver.tables.hdf5_guard` reads its superblock and
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
import json
import os
from pathlib import Path

import h5py
import numpy as np

from solver import __version__
from solver.engine.solution import Solution
from solver.engine.solution_n import MultiSolution
from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.tables import take_codes
from solver.tables.layout import (
    AXES,
    CHECKSUM,
    CHUNKS_CHECKSUM,
    FORMAT,
    FORMAT_VERSION,
    LAZY,
    PLAYER_AXES,
    attributes_of,
    chunks_digest,
    datasets_of,
    le_bytes,
    metadata_digest,
    values_digest,
)
from solver.tables.paths import solve_command
from solver.tables.reading import TableReader
from solver.text import _

SLAB_BYTES = 64 * 2**20
"""How much of the take-over values the writer holds at once."""


def write_table(solution: Solution, path: Path, tolerance: float, residual: float) -> int:
    """Write ``solution`` to ``path`` atomically; returns the file's size.

    The file is written as HDF5 makes it (a table larger than memory goes
    to disk a chunk at a time), under a name of this process's own
    (``NAME.h5.PID.partial``: two writers never share one), and renamed
    when complete; whatever fails, the partial file is removed. A write
    that fails (a full disk) is kept from HDF5, which crashes the
    interpreter on it (:class:`_DiskImage`), and raised once HDF5 has let
    go of the file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    rules = solution.rules
    compress = dict(compression="gzip", compression_opts=4, shuffle=True)
    try:
        with _DiskImage(partial) as image:
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
                    if name in f and image.error is None:
                        f[name].attrs[CHUNKS_CHECKSUM] = np.bytes_(
                            chunks_digest(f[name], image.read_at))
                f.attrs[CHECKSUM] = np.bytes_(metadata_digest(attributes_of(f), datasets_of(f)))
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()
    return path.stat().st_size


class _DiskImage:
    """The partial file as h5py's file object (its ``fileobj`` driver: seek,
    tell, read, write, truncate, flush). HDF5 crashes the interpreter when a
    write fails (h5py 3.16 with HDF5 2.0: a segmentation fault on a full
    disk, after h5py's own error), so a failing write is remembered and reported to HDF5 as done;
    the file, garbage from there on, is never renamed: leaving the ``with``
    raises the first error, after HDF5 has closed the file, and after a
    whole file is flushed to the disk (``fsync``)."""

    def __init__(self, path: Path):
        self.file = open(path, "w+b")
        self.error: OSError | None = None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        try:
            if kind is None:
                self.flush()
                self._guarded(os.fsync, self.file.fileno())
        finally:
            self.file.close()
        if kind is None and self.error is not None:
            raise self.error

    def _guarded(self, act, *args, instead=None):
        """``act(*args)`` unless a write has failed already; a failure
        remembered and ``instead`` returned, as after one."""
        if self.error is None:
            try:
                return act(*args)
            except OSError as error:
                self.error = error
        return instead

    def write(self, data) -> int:
        data = memoryview(data)
        return self._guarded(self.file.write, data, instead=data.nbytes)

    def flush(self) -> None:
        self._guarded(self.file.flush)

    def truncate(self, size=None):
        return self._guarded(self.file.truncate, size, instead=size)

    def seek(self, *where):
        return self.file.seek(*where)

    def tell(self):
        return self.file.tell()

    def readinto(self, buffer):
        return self.file.readinto(buffer)

    def read(self, *size):
        return self.file.read(*size)

    def read_at(self, at: int, n: int) -> bytes:
        """The file's bytes, for the chunks' checksum (after a flush)."""
        self.flush()
        return os.pread(self.file.fileno(), n, at)


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

    def rows():
        # Takers are numbered in state order (PlayerSpace.take_rows): the
        # rows come in order.
        for w in np.flatnonzero(solution.take_row >= 0):
            row = solution.take_row[w]
            yield row, take_codes.encode_row(values[row], solution.W[w, slot_states],
                                             offers)[None]
    codes = _create_in_pieces(f, "take_codes", values.shape, np.int64, rows(), **compress)
    codes.attrs["quantum"] = take_codes.QUANTUM


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
        # made; zeroed, they compress away. Written a slab at a time (the
        # values may be a checkpoint's map, larger than memory), the solve
        # left as it is.
        slot_score = solution.space.score[solution.space.bank_slot >= 0]
        t = np.arange(values.shape[1])
        slab = max(1, SLAB_BYTES // max(1, values[0].nbytes))

        def slabs():
            for start in range(0, len(values), slab):
                rows = np.array(values[start:start + slab])
                banker = slot_score[np.arange(start, start + len(rows)) % len(slot_score)]
                rows[t[None, :] > banker[:, None]] = 0.0
                yield start, rows
        _create_in_pieces(f, "take_values", values.shape, values.dtype, slabs(), **compress)
    if solution.reach is not None:
        _create(f, "reach", solution.reach, **compress)
    banks = [(node, t, n, q) for node, entries in solution.mixed.items()
             for kind, t, n, *rest in entries if kind == "bank" for q in rest]
    keeps = [(node, t, r, main, alt, q) for node, entries in solution.mixed.items()
             for kind, t, r, *rest in entries if kind == "keep" for main, alt, q in [rest]]
    _create(f, "mixed/bank", np.array(banks, dtype=float).reshape(-1, 4))
    _create(f, "mixed/keep", np.array(keeps, dtype=float).reshape(-1, 6))


def _create(f, name: str, data, **options) -> None:
    """A dataset and the SHA-256 of its values (module docstring)."""
    dataset = f.create_dataset(name, data=data, **options)
    dataset.attrs[CHECKSUM] = np.bytes_(values_digest(np.asarray(data, dtype=dataset.dtype)))


def _create_in_pieces(f, name: str, shape, dtype, pieces, **options):
    """A dataset of rows too many to hold at once, chunked a row at a time,
    written from ``pieces``, ``(first row, rows)`` in order, and the SHA-256
    of its values, as :func:`_create`'s."""
    dataset = f.create_dataset(name, shape=shape, dtype=dtype, chunks=(1,) + tuple(shape[1:]),
                               fletcher32=True, **options)
    digest, written = hashlib.sha256(), 0
    for start, rows in pieces:
        # In order, or the digest of the pieces would not be the dataset's.
        assert start == written
        dataset[start:start + len(rows)] = rows
        digest.update(le_bytes(np.asarray(rows, dtype=dataset.dtype)))
        written += len(rows)
    dataset.attrs[CHECKSUM] = np.bytes_(digest.hexdigest())
    return dataset


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
    """The metadata of a table file (``farkle info``, ``farkle tables``),
    once the whole file is checked as :func:`read_table` checks it, and the
    values read lazily (``take_codes``, ``V``, the N-player
    ``take_values``) through their stored chunks' checksum (format 6): a
    table that cannot answer is never shown as sound."""
    with TableReader(path) as table:
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
    table = TableReader(path)
    keep_open = False
    try:
        with table.reading():
            rules, players = table.rules, table.players
            if expect is not None and rules != expect:
                raise UsageError(_("table {path} holds {game} to {target}, not {expected} to "
                                   "{expected_target} (its {difference})").format(
                    path=path, game=rules.name, target=figure(rules.target),
                    expected=expect.name, expected_target=figure(expect.target),
                    difference=rules.first_difference(expect)))
            if expect_players is not None and players != expect_players:
                raise UsageError(_("table {path} is for {players} players, not {expected}")
                                 .format(path=path, players=players, expected=expect_players))
            if table.outdated:
                raise UsageError(_("table {path} was made by an older farkle-solver; make it "
                                   "again with: {command}").format(
                    path=path, command=solve_command(rules, table.attrs.get('memory'))))
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
                reach = table.lazy("reach")
                return MultiSolution(rules, space, players, V, take_values, mixed,
                                     json.loads(table.attrs.get("equilibria_found", "[]")),
                                     stats, None if reach is None else np.asarray(reach))
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
    with TableReader(path) as table:
        return table.outdated



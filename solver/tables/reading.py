"""Reading a table file, every part checked as it is read (the attributes'
types, the metadata against its checksum, shapes and dtypes against the
rules' player space, values finite and in [0, 1], datasets read lazily
chunk by chunk): :func:`solver.tables.files.read_table`'s work.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np

from solver.engine.solution_n import MAX_PLAYERS
from solver.model.errors import UsageError
from solver.model.last_turn import past_target_units
from solver.model.rules import Rules
from solver.model.states import player_space
from solver.tables import take_codes
from solver.tables.hdf5_guard import open_table_file
from solver.tables.layout import (
    CHECKSUM,
    CHECKSUMS_FROM,
    CHUNKS_CHECKSUM,
    FORMAT,
    FORMAT_VERSION,
    Bad,
    DamagedTable,
    attributes_of,
    check_shape,
    chunks_digest,
    datasets_of,
    le_bytes,
    metadata_digest,
    probabilities,
    values_digest,
)
from solver.text import N_, _

REQUIRED = {"format": str, "format_version": int, "program_version": str, "game": str,
            "target": int, "rules": str, "tolerance": float, "bellman_residual": float,
            "solve_seconds": float, "first_player_win": float, "stats": str, "axes": str}


"""The attributes of every table, and their types (module docstring)."""


OPTIONAL = {"memory": str, "players": int, "seat_wins": str, "equilibria": str,
            "equilibria_found": str, CHECKSUM: str}


TYPE_NAMES = {str: N_("a string"), int: N_("an integer"), float: N_("a number")}


class TableReader:
    """An open table file whose attributes have been checked (types, the
    root checksum, the rules against the game and target): :meth:`layout`
    checks the datasets' shapes, :meth:`check_values` the values read
    whole, :meth:`lazy` wraps the values read on demand."""

    def __init__(self, path):
        self.path = Path(path)
        self.f, self.size, strings = open_table_file(self.path)
        try:
            with self.reading():
                self.attrs = attributes_of(self.f, strings)
                if self.attrs.get("format") != FORMAT:
                    raise UsageError(_("{path} is not a farkle-solver table").format(
                        path=self.path))
                self.datasets = datasets_of(self.f)
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
        return Reading(self.path)

    def _check_attributes(self) -> None:
        attrs = self.attrs
        for name, value in attrs.items():
            kind = REQUIRED.get(name) or OPTIONAL.get(name)
            if kind is None:
                raise Bad(_("an attribute this program never writes: {name}").format(
                    name=repr(name)))
            if not isinstance(value, kind) and not (kind is float and isinstance(value, int)):
                raise Bad(_("attribute {name} is not {kind}").format(
                    name=name, kind=_(TYPE_NAMES[kind])))
        missing = [name for name in REQUIRED if name not in attrs]
        if missing:
            raise Bad(_("its attribute {name} is missing").format(name=missing[0]))
        version = attrs["format_version"]
        if version > FORMAT_VERSION:
            raise UsageError(_("table {path} was made by a newer farkle-solver (table format "
                               "{version}; this one reads formats up to {most})").format(
                path=self.path, version=version, most=FORMAT_VERSION))
        if version < 1:
            raise Bad(_("format version {version}").format(version=version))
        self.checksums = version >= CHECKSUMS_FROM
        if self.checksums:
            if CHECKSUM not in attrs:
                raise Bad(_("its checksum is missing"))
            for name, meta in self.datasets.items():
                if CHECKSUM not in meta["attrs"]:
                    raise Bad(_("{name} has no checksum").format(name=name))
            if attrs[CHECKSUM] != metadata_digest(attrs, self.datasets):
                raise Bad(_("its metadata do not match their checksum"))
        try:
            self.rules = Rules.from_json(attrs["rules"])
        except Exception as error:         # whatever the rules' reader says of them
            raise Bad(_("its rules cannot be read: {error}").format(error=error)) from None
        if (self.rules.name, self.rules.target) != (attrs["game"], attrs["target"]):
            raise Bad(_("its rules are not those of {game} to {target}").format(
                game=attrs['game'], target=attrs['target']))
        self.players = attrs.get("players", 2)
        if not 2 <= self.players <= MAX_PLAYERS:
            raise Bad(_("{players} players").format(players=self.players))
        self.memory = attrs.get("memory", "none")
        if self.memory not in ("none", "exact", "model", "penalty"):
            raise Bad(_("memory {memory}").format(memory=repr(self.memory)))
        for name in ("first_player_win", "tolerance", "bellman_residual"):
            if not 0 <= attrs[name] <= (1 if name == "first_player_win" else math.inf):
                raise Bad(f"{name} {attrs[name]}")
        if not (attrs["solve_seconds"] >= 0 or math.isnan(attrs["solve_seconds"])):
            raise Bad(f"solve_seconds {attrs['solve_seconds']}")
        for name, kind in (("stats", dict), ("axes", dict), ("seat_wins", list),
                           ("equilibria", dict), ("equilibria_found", list)):
            if name in attrs and not isinstance(json.loads(attrs[name]), kind):
                raise Bad(_("attribute {name} is not a JSON {kind}").format(
                    name=name, kind=kind.__name__))
        if "seat_wins" in attrs:
            seat_wins = json.loads(attrs["seat_wins"])
            if len(seat_wins) != self.players or not all(
                    isinstance(v, float) and 0 <= v <= 1 for v in seat_wins):
                raise Bad(_("its seats' chances are not probabilities"))
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
                raise Bad(_("player/fall_to is not a list of scores"))
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
            if rules.final_round:
                expected["reach"] = ("float64", (P ** (players - 1),
                                                 past_target_units(rules) + 1, players))
            expected["mixed/bank"] = ("float64", (None, 4))
            expected["mixed/keep"] = ("float64", (None, 6))
        for name, meta in datasets.items():
            if name not in expected:
                raise Bad(_("a dataset this program never writes: {name}").format(name=name))
        for name, (dtype, shape) in expected.items():
            if name not in datasets:
                raise Bad(_("{name} is missing").format(name=name))
            check_shape(name, datasets[name], dtype, shape)
        if "take_codes" in datasets and \
                datasets["take_codes"]["attrs"].get("quantum") != take_codes.QUANTUM:
            raise Bad(_("take_codes has another step than this program's"))
        return space

    def check_values(self, space):
        """The values every answer reads whole, checked: ``(W, take_row,
        mixed)`` (None where the table has none)."""
        for name in ("score", "previous", "crosses"):
            if not np.array_equal(self.values(f"player/{name}"), getattr(space, name)):
                raise UsageError(_("table {path} does not match its rules (player states "
                                   "differ)").format(path=self.path))
        if self.players != 2:
            return None, None, self._mixed(space)
        W = probabilities(self.values("W"), "W")
        take_row = self.values("take_row")
        if not np.array_equal(take_row, space.take_rows()):
            raise Bad(_("take_row is not its player states' take-over rows"))
        return W, take_row, None

    def _mixed(self, space) -> dict:
        nodes = space.size ** self.players
        mixed: dict = {}
        bank, keep = self.values("mixed/bank"), self.values("mixed/keep")
        for rows in (bank, keep):
            if not np.all(np.isfinite(rows)) or np.any(rows[:, 0] < 0) or \
                    np.any(rows[:, 0] >= nodes) or np.any(rows[:, :-1] != np.rint(rows[:, :-1])):
                raise Bad(_("a mixed decision that is no decision"))
            probabilities(rows[:, -1], "a mixed decision's probability")
        for node, t, n, q in bank:
            mixed.setdefault(int(node), []).append(("bank", int(t), int(n), float(q)))
        for node, t, r, main, alt, q in keep:
            mixed.setdefault(int(node), []).append(("keep", int(t), int(r), int(main), int(alt),
                                                    float(q)))
        return mixed

    def values(self, name, dtype=None, shape=None) -> np.ndarray:
        """A dataset read whole and checked against its checksum."""
        if dtype is not None:
            check_shape(name, self.datasets.get(name), dtype, shape)
        dataset = self.f[name]
        values = dataset[()]
        if self.checksums and values_digest(values) != self.datasets[name]["attrs"][CHECKSUM]:
            raise Bad(_("{name} does not match its checksum").format(name=name))
        return values

    def check_chunks(self, name) -> None:
        """A dataset read lazily, checked whole without decoding it: its
        chunks as stored against their checksum (format 6)."""
        if not self.checksums or name not in self.datasets:
            return
        with open(self.path, "rb") as file:
            def read(at, n):
                if at + n > self.size:
                    raise Bad(_("{name} points past the end of the file").format(name=name))
                file.seek(at)
                return file.read(n)
            if chunks_digest(self.f[name], read) != \
                    self.datasets[name]["attrs"].get(CHUNKS_CHECKSUM):
                raise Bad(_("{name} does not match its checksum").format(name=name))

    def lazy(self, name) -> "Lazy | None":
        """A dataset read on demand (None if the table has none)."""
        if name not in self.datasets:
            return None
        checksum = self.datasets[name]["attrs"].get(CHECKSUM) if self.checksums else None
        return Lazy(self.path, name, self.f[name], checksum,
                     take_codes.decode if name == "take_codes" else None)


class Reading:
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


class Lazy:
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
        with Reading(self.path):
            if self.decode is None:
                return probabilities(np.asarray(self.dataset[key]), self.name)
            row, rest = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
            values = probabilities(self.decode(self.dataset[int(row)]), self.name)
            return values[rest] if rest else values

    def __array__(self, dtype=None, copy=None):
        with Reading(self.path):
            out = np.empty(self.shape)
            digest = hashlib.sha256()
            step = self.dataset.chunks[0] if self.dataset.chunks else max(len(self), 1)
            for start in range(0, len(self), step):
                raw = self.dataset[start:start + step]
                digest.update(le_bytes(raw))
                out[start:start + step] = raw if self.decode is None else self.decode(raw)
            if self.checksum is not None and digest.hexdigest() != self.checksum:
                raise Bad(_("{name} does not match its checksum").format(name=self.name))
            probabilities(out, self.name)
        return out if dtype is None else out.astype(dtype)

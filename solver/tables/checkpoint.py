"""An N-player solve's checkpoint: the values of the levels done, on disk,
so that a solve on a cluster (:mod:`solver.tables.cluster`) can stop and
resume, and so that its workers read the values of the levels above.

A directory beside the table, ``NAME.h5.checkpoint/`` (:func:`checkpoint_path`):

    progress.json      what the solve is (rules, player states, players,
                       tolerance, this program's version) and how far it has
                       come (:class:`solver.engine.n_player.SweepState`,
                       the mixed decisions of the sweep so far)
    V.npy              every turn start's values, float64 [P^N, N]
    take_values.npy    the take-over roll values, float64
    reach.npy          the final round's values (its SHA-256 in progress.json)
    undo-S-L.npy       level L of sweep S's values before the client wrote
                       that level's (only while it writes them)
    client.json        the running client's token (:func:`write_token`),
                       by which a worker checks that it sees this folder
                       and not another one at the same path

The client is the one writer: it maps the arrays read-write; a worker maps
them copy-on-write and returns what it computed. A level is recorded done
after its values are flushed, by replacing ``progress.json`` whole; before
it writes a level's values the client saves the old ones (``undo``), so a
client killed half-way through a level leaves values that are put back,
and the level solved again from the same start gives the same bits.

A checkpoint of other rules, players or tolerance, or of another version,
is refused in one line (foreign); one that cannot be read, or whose arrays
have the wrong shape or values outside [0, 1], too (damaged).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import secrets
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from solver import __version__
from solver.engine.n_player import Setup, SweepState
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.states import PlayerSpace
from solver.text import _

FORMAT = "farkle-solver N-player checkpoint"
FORMAT_VERSION = 1
PROGRESS = "progress.json"
TOKEN = "client.json"
SUFFIX = ".checkpoint"
CHECK_ROWS = 1 << 18
"""Rows of ``V`` checked at a time for values in [0, 1] when resuming."""


def checkpoint_path(table: Path) -> Path:
    """Where the checkpoint of the table at ``table`` is kept."""
    table = Path(table)
    return table.with_name(table.name + SUFFIX)


def remove_checkpoint(folder: Path) -> None:
    """Remove a checkpoint (once its table is written); nothing if none."""
    shutil.rmtree(folder, ignore_errors=True)


def _sha256(*arrays) -> str:
    digest = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        digest.update(f"{a.dtype.str}{a.shape}".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def identity(rules: Rules, space: PlayerSpace, players: int, tol: float,
             max_sweeps: int) -> dict:
    """What a checkpoint must be for to be resumed: a solve of these rules,
    player states, players and tolerance, by this version."""
    return {"rules": hashlib.sha256(rules.to_json().encode()).hexdigest(),
            "game": f"{rules.name} to {rules.target}",
            "space": _sha256(space.score, space.previous, space.crosses, space.zero_next,
                             space.bank_next, space.can_take, space.bank_slot, space.up),
            "players": players, "tolerance": tol, "max_sweeps": max_sweeps,
            "version": __version__}


def _describe(ident: dict) -> str:
    return _("{game}, {players} players, tolerance {tolerance}, farkle-solver {version}").format(
        game=ident.get("game"), players=ident.get("players"), tolerance=ident.get("tolerance"),
        version=ident.get("version"))


@dataclass
class Checkpoint:
    """An open checkpoint: ``V`` and ``take_values`` mapped read-write (the
    client's), and what ``progress.json`` records."""
    folder: Path
    record: dict
    reach: np.ndarray
    V: np.ndarray | None = None
    take_values: np.ndarray | None = None

    # ---------------------------------------------------------- opening
    @classmethod
    def find(cls, folder: Path, ident: dict) -> Checkpoint | None:
        """The checkpoint at ``folder`` if there is one, checked to be of
        ``ident``'s solve (UsageError, one line, else); its arrays are
        opened by :meth:`attach`."""
        folder = Path(folder)
        _remove_partials(folder)
        if not folder.exists():
            return None
        if not folder.is_dir():
            raise UsageError(_("the checkpoint {folder} is not a directory: remove it or "
                               "choose another --out").format(folder=folder))
        try:
            record = json.loads((folder / PROGRESS).read_text())
            if record.get("format") != FORMAT:
                raise ValueError(_("not a checkpoint of this program"))
        except (OSError, ValueError, AttributeError) as error:
            raise _damaged(folder, f"{PROGRESS}: {_reason(error)}") from None
        if record.get("format_version") != FORMAT_VERSION or record.get("identity") != ident:
            theirs = record.get("identity") if isinstance(record.get("identity"), dict) else {}
            raise UsageError(_("the checkpoint {folder} is of another solve ({theirs}; this "
                               "one: {ours}): remove it or choose another --out").format(
                                   folder=folder, theirs=_describe(theirs),
                                   ours=_describe(ident)))
        try:
            state = record["state"]
            SweepState(**state)
            _mixed_of(record["mixed"])
            list(record["equilibria"])
            reach = np.load(folder / "reach.npy")
            if _sha256(reach) != record["reach_sha256"]:
                raise ValueError(_("reach.npy does not match its checksum"))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise _damaged(folder, _reason(error)) from None
        return cls(folder, record, reach)

    @classmethod
    def create(cls, folder: Path, ident: dict, setup: Setup) -> Checkpoint:
        """A new checkpoint at ``folder`` for ``setup``'s solve, nothing
        solved: written beside it and renamed, so that a checkpoint found is
        always whole."""
        folder = Path(folder)
        partial = folder.with_name(f"{folder.name}.{os.getpid()}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        try:
            partial.mkdir(parents=True)
            V, take = setup.start_values()
            np.save(partial / "V.npy", V)
            del V
            np.save(partial / "take_values.npy", take)
            np.save(partial / "reach.npy", setup.reach)
            record = {"format": FORMAT, "format_version": FORMAT_VERSION, "identity": ident,
                      "reach_sha256": _sha256(setup.reach), "levels": setup.levels,
                      "state": asdict(SweepState()), "mixed": [], "equilibria": []}
            _write_json(partial / PROGRESS, record)
            os.replace(partial, folder)
        except OSError as error:
            shutil.rmtree(partial, ignore_errors=True)
            raise UsageError(_("cannot write the checkpoint {folder}: {why}").format(
                folder=folder, why=error.strerror or error)) from None
        store = cls(folder, record, setup.reach)
        store.attach(setup)
        return store

    def attach(self, setup: Setup) -> None:
        """Map the arrays read-write, checked against ``setup``'s shapes and
        values in [0, 1]; put back the values of a level left half-written."""
        try:
            self.V = self._open("V.npy", (setup.nodes, setup.players))
            self.take_values = self._open("take_values.npy", setup.take_shape)
            for start in range(0, len(self.V), CHECK_ROWS):
                rows = self.V[start:start + CHECK_ROWS]
                if not np.all((rows >= 0.0) & (rows <= 1.0)):
                    raise ValueError(_("V.npy holds values outside [0, 1]"))
            if self.reach.ndim != 3 or self.reach.dtype != np.float64:
                raise ValueError(_("reach.npy has the shape {shape}").format(
                    shape=self.reach.shape))
            state = self.state
            if not (all(isinstance(v, int) and v >= 0 for v in (
                    state.sweeps, state.level, state.total_passes, state.rows_run))
                    and state.level <= setup.levels):
                raise ValueError(_("{file}: no such level {level}").format(
                    file=PROGRESS, level=state.level))
            self._undo_half_written(setup)
        except (OSError, ValueError) as error:
            self.close()
            raise _damaged(self.folder, _reason(error)) from None

    def _open(self, name: str, shape: tuple) -> np.ndarray:
        array = np.load(self.folder / name, mmap_mode="r+")
        if array.shape != tuple(shape) or array.dtype != np.float64:
            raise ValueError(_("{file} has the shape {shape} ({dtype}), not {wanted}").format(
                file=name, shape=array.shape, dtype=array.dtype, wanted=tuple(shape)))
        return array

    # ----------------------------------------------------------- state
    @property
    def state(self) -> SweepState:
        return SweepState(**self.record["state"])

    @property
    def mixed(self) -> dict:
        return _mixed_of(self.record["mixed"])

    @property
    def equilibria(self) -> list:
        return [{**found, "mixed": [tuple(m) for m in found["mixed"]]}
                for found in self.record["equilibria"]]

    # --------------------------------------------------------- writing
    def _undo_name(self, sweep: int, level: int) -> Path:
        return self.folder / f"undo-{sweep}-{level}.npy"

    def save_undo(self, sweep: int, level: int, values: np.ndarray) -> None:
        """Keep level ``level`` of sweep ``sweep``'s values before they are
        overwritten (written whole, then renamed)."""
        undo = self._undo_name(sweep, level)
        partial = undo.with_suffix(".partial")
        with open(partial, "wb") as out:
            np.save(out, values)
        os.replace(partial, undo)

    def record_level(self, state: SweepState, solution) -> None:
        """Level ``state.level - 1`` of sweep ``state.sweeps`` is done: flush
        the values, then record it (``progress.json`` replaced whole), then
        drop its undo."""
        self.V.flush()
        self.take_values.flush()
        record = dict(self.record, state=asdict(state),
                      mixed=[[node, [list(d) for d in decisions]]
                             for node, decisions in solution.mixed.items()],
                      equilibria=list(solution.equilibria))
        _write_json(self.folder / PROGRESS, record)
        self.record = record
        self._undo_name(state.sweeps, state.level - 1).unlink(missing_ok=True)

    def _undo_half_written(self, setup: Setup) -> None:
        """Put back the values of the level a killed client was writing (its
        undo file), so that it is solved again from the same start; remove
        undo files of levels recorded done."""
        state = self.state
        at_end = state.level == setup.levels
        nxt = (state.sweeps + 1, 0) if state.level == 0 or at_end else (state.sweeps,
                                                                         state.level)
        for undo in sorted(self.folder.glob("undo-*")):
            if undo.name == self._undo_name(*nxt).name:
                values = np.load(undo)
                nodes = setup.level(nxt[1]).nodes()
                if values.shape != (len(nodes), setup.players):
                    raise ValueError(_("{file} has the shape {shape}").format(
                        file=undo.name, shape=values.shape))
                self.V[nodes] = values
                self.V.flush()
            undo.unlink()

    def mapped(self) -> tuple[np.ndarray, np.ndarray]:
        """``V`` and ``take_values`` mapped copy-on-write, for the table's
        writer: read from the files as it goes (the pages it has read can be
        given back by the system at any time), nothing written back. The maps stay
        valid once the checkpoint is removed (POSIX keeps a removed file's
        data while it is mapped)."""
        return (np.load(self.folder / "V.npy", mmap_mode="c"),
                np.load(self.folder / "take_values.npy", mmap_mode="c"))

    def close(self) -> None:
        """Flush and let go of the maps (unmapped when the last view goes)."""
        for name in ("V", "take_values"):
            array = getattr(self, name)
            if array is not None:
                array.flush()
                setattr(self, name, None)


def _mixed_of(entries) -> dict:
    """``solution.mixed`` from its JSON form, ``[[node, [decision...]], ...]``."""
    return {int(node): [tuple(d) for d in decisions] for node, decisions in entries}


def write_token(folder: Path) -> str:
    """A new random token, written to ``folder``'s :data:`TOKEN` (whole):
    a worker that reads another one, or none, sees another folder
    (:func:`solver.tables.cluster_tasks.check_view`)."""
    token = secrets.token_hex(16)
    _write_json(Path(folder) / TOKEN, {"token": token})
    return token


def read_token(folder: Path) -> str | None:
    """The token of ``folder``'s :data:`TOKEN`, or None where there is none
    to read."""
    try:
        return str(json.loads((Path(folder) / TOKEN).read_text())["token"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_json(path: Path, data: dict) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data))
    os.replace(partial, path)


def _remove_partials(folder: Path) -> None:
    """Remove checkpoints left half-made by processes that are gone."""
    for partial in folder.parent.glob(f"{glob.escape(folder.name)}.*.partial"):
        pid = partial.name[len(folder.name) + 1:-len(".partial")]
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        shutil.rmtree(partial, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _damaged(folder: Path, reason: str) -> UsageError:
    return UsageError(_("the checkpoint {folder} is damaged ({reason}): remove it to solve "
                        "from the start").format(folder=folder, reason=reason))


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        name = Path(error.filename).name if error.filename else ""
        return f"{name}: {error.strerror}" if name else error.strerror
    if isinstance(error, KeyError):
        return _("{name} missing").format(name=error.args[0])
    return str(error).splitlines()[0] if str(error) else type(error).__name__

"""The table file's layout and checksums, shared by its writer and its
reader (:mod:`solver.tables.files` describes the layout): the format,
the datasets' axes, the SHA-256 of values, chunks and metadata, the
probability checks, and the one error a damaged file gives.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct

import h5py
import numpy as np

from solver.model.errors import UsageError
from solver.text import _

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
PLAYER_AXES["reach"] = ["the other players' states (base P, the next seat first)",
                        "units past the target banked", "player, seats after the banker"]


def le_bytes(values: np.ndarray) -> memoryview:
    """The bytes a checksum covers: little-endian, C order."""
    values = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<"))
    return memoryview(values.reshape(-1).view(np.uint8))


class DamagedTable(UsageError):
    """A table file that cannot be read as this program writes one (module
    docstring, "Damaged files"): one line, exit status 2."""

    def __init__(self, path, reason):
        text = " ".join(str(reason).split()) or type(reason).__name__
        super().__init__(_("table {path} is damaged ({reason})").format(
            path=path, reason=text[:240]))


class Bad(Exception):
    """What is wrong with a file, found by this module's checks."""


EPS = 1e-9


"""How far past [0, 1] a stored probability may be (rounding)."""


def check_shape(name, meta, dtype, shape) -> None:
    if meta is None:
        raise Bad(_("{name} is missing").format(name=name))
    if meta["dtype"] != dtype or (shape is not None and (
            len(meta["shape"]) != len(shape) or
            any(want is not None and have != want for have, want in zip(meta["shape"], shape)))):
        raise Bad(_("{name} is {have}, not {want}").format(
            name=name, have=f"{meta['dtype']} {meta['shape']}",
            want=f"{dtype} {list(shape) if shape is not None else ''}".rstrip()))


def probabilities(values: np.ndarray, name: str) -> np.ndarray:
    """``values``, once they are all finite and in [0, 1]."""
    if values.size and not (np.all(np.isfinite(values)) and values.min() >= -EPS
                            and values.max() <= 1 + EPS):
        raise Bad(_("{name} holds values that are not probabilities").format(name=name))
    return values


def values_digest(values: np.ndarray) -> str:
    return hashlib.sha256(le_bytes(values)).hexdigest()


def attributes_of(obj, strings: set | None = None) -> dict:
    """The attributes of a file or dataset as plain values. Each one's type
    is looked at before it is read: a variable-length string is read only
    if ``strings`` names it (:func:`solver.tables.hdf5_guard._check_hdf5` checked it; None: the
    writer's own file)."""
    out = {}
    for name in obj.attrs:
        attr = obj.attrs.get_id(name)
        kind = attr.dtype.kind
        if attr.shape != () or kind not in "iufSO" or kind == "O" and (
                h5py.check_string_dtype(attr.dtype) is None
                or strings is not None and name not in strings):
            raise Bad(_("attribute {name} is not of a type this program writes").format(
                name=repr(name)))
        out[name] = plain(obj.attrs[name])
    return out


def datasets_of(f) -> dict:
    """Each dataset's shape, dtype and attributes (which never hold
    variable-length strings)."""
    found = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            found[name] = {"shape": list(obj.shape), "dtype": str(obj.dtype),
                           "attrs": attributes_of(obj, strings=set())}
    f.visititems(visit)
    return found


def chunks_digest(dataset, read) -> str:
    """SHA-256 of a chunked dataset's chunks as HDF5 stores them
    (compressed, each with its Fletcher-32), in the order of their offsets:
    what ``farkle info`` and ``farkle tables`` check of the values advice
    reads lazily, without decompressing them. ``read(at, n)``: the file's
    bytes."""
    chunks: list = []
    dataset.id.chunk_iter(chunks.append)
    per_axis = [-(-size // chunk) for size, chunk in zip(dataset.shape, dataset.chunks)]
    if len(chunks) != math.prod(per_axis):
        raise Bad(_("{name} has {count} chunks, not {want}").format(
            name=dataset.name.lstrip('/'), count=len(chunks), want=math.prod(per_axis)))
    digest = hashlib.sha256()
    for chunk in sorted(chunks, key=lambda c: c.chunk_offset):
        digest.update(struct.pack("<IQ", chunk.filter_mask, chunk.size))
        digest.update(read(chunk.byte_offset, chunk.size))
    return digest.hexdigest()


def metadata_digest(attrs: dict, datasets: dict) -> str:
    """The root checksum: every attribute but itself, every dataset's name,
    shape, dtype and attributes."""
    text = json.dumps({"attrs": {k: v for k, v in attrs.items() if k != CHECKSUM},
                       "datasets": datasets}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def plain(value):
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bytes):
        value = value.decode()
    return value

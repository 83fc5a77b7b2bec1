"""A table file read safely before h5py opens it: a regular file (a FIFO
would block), its superblock, and the global heap collections of its
string attributes walked as HDF5 will (HDF5 spins for ever on a
collection whose objects do not tile it, and allocates what a damaged
string length says); see :mod:`solver.tables.files`, "Damaged files".
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

import h5py

from solver.model.errors import UsageError
from solver.tables.layout import Bad, DamagedTable
from solver.text import _

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def open_table_file(path: Path):
    """``(h5py file, size, the variable-length strings checked)``, once the
    path is a regular file whose structure :func:`_check_hdf5` accepts."""
    try:
        # Not blocking: a FIFO opens at once, and fstat tells what it is.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise UsageError(_("no table at {path}").format(path=path)) from None
    except OSError as error:
        raise UsageError(_("table {path} cannot be read ({reason})").format(
            path=path, reason=error.strerror)) from None
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        raise DamagedTable(path, _("a directory, not a table file")
                           if stat.S_ISDIR(status.st_mode) else
                           _("a FIFO, not a table file") if stat.S_ISFIFO(status.st_mode) else
                           _("not a regular file"))
    with os.fdopen(fd, "rb") as file:
        try:
            strings = _check_hdf5(file, status.st_size)
        except (Bad, OSError, struct.error) as error:
            raise DamagedTable(path, error) from None
    try:
        f = h5py.File(path, "r")
    except Exception as error:             # whatever HDF5 says of the file
        raise DamagedTable(path, _("HDF5 cannot open it: {error}").format(
            error=error)) from None
    return f, status.st_size, strings


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
            raise Bad(_("it is cut short or points past its end ({size} bytes)").format(
                size=size))
        file.seek(at)
        data = file.read(n)
        if len(data) != n:
            raise Bad(_("it is cut short"))
        return data

    superblock = read(0, 72) if size >= 72 else b""
    if superblock[:8] != HDF5_SIGNATURE:
        raise Bad(_("not an HDF5 file") if size else _("an empty file"))
    if superblock[8] != 0 or superblock[13] != 8 or superblock[14] != 8:
        raise Bad(_("not the HDF5 layout this program writes"))
    base, _v, end, _f, _s, root = struct.unpack_from("<6Q", superblock, 24)
    if base != 0 or end > size:
        raise Bad(_("it is cut short: {size} of its {end} bytes").format(size=size, end=end))
    version, _r, messages, _p, length = struct.unpack_from("<BBHII", read(root, 12))
    if version != 1:
        raise Bad(_("its root group's header is not one this program writes"))
    blocks, seen, total = [(root + 16, length)], 0, 0
    strings: dict = {}
    while blocks:
        at, length = blocks.pop()
        total += length
        if total > MAX_HEADER:
            raise Bad(_("its root group's header is too long"))
        block, p = read(at, length), 0
        while p + 8 <= length:
            kind, n = struct.unpack_from("<HH", block, p)
            data = block[p + 8:p + 8 + n]
            seen += 1
            if len(data) != n or seen > messages:
                raise Bad(_("its root group's header is not as written"))
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
                raise Bad(_("the string of attribute {name} is not where it says").format(
                    name=name))
    return set(strings)


def _pad8(n: int) -> int:
    return (n + 7) // 8 * 8


def _attribute_strings(data: bytes):
    """An attribute message's name, and its variable-length strings' heap
    references ``(length, collection address, index)`` (none for other
    types)."""
    version, _r, name_size, type_size, space_size = struct.unpack_from("<BBHHH", data)
    if version != 1:
        raise Bad(_("an attribute not of the layout this program writes"))
    name = data[8:8 + name_size].rstrip(b"\0").decode("utf-8", "replace")
    at = 8 + _pad8(name_size)
    datatype = data[at:at + type_size]
    if not datatype or datatype[0] & 0x0F != 9:               # not variable-length
        return name, []
    values = data[at + _pad8(type_size) + _pad8(space_size):]
    if not values or len(values) % 16:
        raise Bad(_("attribute {name} is not as written").format(name=name))
    return name, [struct.unpack_from("<IQI", values, i) for i in range(0, len(values), 16)]


def _heap_objects(read, address: int) -> dict:
    """A global heap collection's objects, ``{index: size}``, walked as
    HDF5's parser walks it; a collection its objects do not tile exactly
    is damaged (HDF5 would loop on it or read past it)."""
    head = read(address, 16)
    if head[:5] != b"GCOL\x01":
        raise Bad(_("a string points where there is no global heap"))
    size = struct.unpack_from("<Q", head, 8)[0]
    if not 16 <= size <= MAX_HEADER:
        raise Bad(_("a global heap of an impossible size"))
    heap, p, objects = read(address, size), 16, {}
    while p < size:
        if p + 16 > size:                  # too small for an object: free space
            break
        index, _r, _c, length = struct.unpack_from("<HHIQ", heap, p)
        step = 16 + _pad8(length) if index else length
        if step < 16 or p + step > size or (index and index in objects):
            raise Bad(_("its global heap is not as written"))
        if index:
            objects[index] = length
        p += step
    return objects

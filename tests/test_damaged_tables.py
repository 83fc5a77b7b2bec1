"""Damaged tables (issue 68, point 3): whatever is wrong with a table file
(any byte flipped, metadata wrong or missing, datasets of the wrong shape,
values not finite, not a regular file at all), every command answers at
once: either as the sound table answers, or with one line on stderr and
exit status 2; never a traceback or a hang. ``farkle tables`` lists such a
file as damaged. Run through the CLI as a person runs it, each call under a
timeout of a few seconds (solver.tables.files, "Damaged files";
docs/solver.md, "Damaged tables")."""

import json
import os
import struct
import subprocess
import sys

import h5py
import numpy as np
import pytest
from conftest import small_dix

from solver.tables import layout
from solver.tables.files import read_info, read_table
from solver.tables.layout import CHECKSUM, CHUNKS_CHECKSUM, DamagedTable

TIMEOUT = 8
"""Seconds a command may take on a damaged table (each answers in about
0.3 s here, most of it starting Python; HDF5 spun for minutes before)."""
ADVISE = ("advise", "pig", "--target", 30, "--me", 0, "--opp", 0, "--turn", 10, "--json")


def run(*args, tables):
    """The CLI as a person runs it, with ``tables`` as the user's table
    directory; a hang fails the test (subprocess.TimeoutExpired)."""
    return subprocess.run([sys.executable, "-m", "solver.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "FARKLE_TABLES": str(tables)})


@pytest.fixture(scope="module")
def sound(tmp_path_factory):
    """Pig to 30 (0.7 s to solve, 18 kB), and what info and advice say of
    it: (path, bytes, info's lines, advice's JSON)."""
    folder = tmp_path_factory.mktemp("sound")
    path = folder / "pig-30.h5"
    made = run("solve", "pig", "--target", 30, "--out", path, tables=folder / "tables")
    assert made.returncode == 0, made.stderr
    info = run("info", path, tables=folder)
    advice = run(*ADVISE, "--table", path, tables=folder)
    assert info.returncode == 0 and advice.returncode == 0
    return path, path.read_bytes(), info.stdout.replace(str(path), "FILE"), \
        json.loads(advice.stdout)


def answers_or_refuses(path, sound, tables) -> bool:
    """``farkle info`` and ``farkle advise --table`` on ``path``: each the
    sound table's answer, or one line and exit status 2 (True: refused)."""
    _, _, info, advice = sound
    refused = []
    for args, same in ((("info", path), lambda out: out.replace(str(path), "FILE") == info),
                       ((*ADVISE, "--table", path), lambda out: json.loads(out) == advice)):
        result = run(*args, tables=tables)
        assert "Traceback" not in result.stderr, result.stderr
        if result.returncode == 0:
            assert same(result.stdout), f"{args[0]} answered otherwise on {path.name}"
            assert result.stderr == ""
        else:
            assert result.returncode == 2, result.stderr
            assert result.stderr.count("\n") == 1 and result.stderr.startswith("farkle: ")
        refused.append(result.returncode == 2)
    return any(refused)


def listed(tables) -> dict:
    """``farkle tables --json``'s rows of the user's files, by file name."""
    result = run("tables", "--json", tables=tables)
    assert result.returncode == 0, result.stderr
    return {os.path.basename(row["path"]): row for row in json.loads(result.stdout)
            if row.get("path") and str(tables) in row["path"]}


def heap_of(data: bytes) -> int:
    """Where the global heap collection of the root's strings starts."""
    return data.index(b"GCOL\x01")


def flip_positions(data: bytes) -> list[int]:
    """A bounded sample of bytes to flip: 12 spread over the file, 8 in the
    superblock and 8 in the global heap collection's object headers (where
    a flip made HDF5 spin)."""
    heap = heap_of(data)
    spread = np.linspace(0, len(data) - 1, 12).astype(int)
    superblock = [8, 13, 24, 40, 41, 47, 64, 70]
    objects = [heap + 8, heap + 9, heap + 16, heap + 24, heap + 25, heap + 32, heap + 47,
               heap + 200]
    return sorted(set(int(p) for p in [*spread, *superblock, *objects]))


def test_any_byte_flipped_answers_as_before_or_in_one_line(sound, tmp_path):
    _, data, _, _ = sound
    tables = tmp_path / "tables"
    tables.mkdir()
    refused = {}
    for position in flip_positions(data):
        damaged = bytearray(data)
        damaged[position] ^= 0xFF
        path = tables / f"flip-{position:06d}.h5"
        path.write_bytes(damaged)
        refused[path.name] = answers_or_refuses(path, sound, tables)
    rows = listed(tables)
    for name, was_refused in refused.items():
        assert rows[name]["status"] == ("damaged" if was_refused else "present"), name
        if was_refused:
            assert "\n" not in rows[name]["error"], rows[name]["error"]
    # Most flips land in values, metadata or structure: all of those refused.
    assert sum(refused.values()) >= len(refused) // 2


def reseal(path):
    """Checksums made again for the file as it now is: damage that a
    checksum would not see, left to the other checks."""
    with h5py.File(path, "r+") as f:
        for name, meta in layout.datasets_of(f).items():
            f[name].attrs[CHECKSUM] = np.bytes_(layout.values_digest(f[name][()]))
        f.attrs[CHECKSUM] = np.bytes_(layout.metadata_digest(layout.attributes_of(f),
                                                              layout.datasets_of(f)))


def edit(change, sealed=False):
    def damage(path):
        with h5py.File(path, "r+") as f:
            change(f)
        if sealed:
            reseal(path)
    return damage


def replace(name, values):
    def change(f):
        del f[name]
        f.create_dataset(name, data=values)
    return change


def set_attr(name, value, on=""):
    def change(f):
        (f[on] if on else f).attrs[name] = value
    return change


def del_attr(name, on=""):
    def change(f):
        del (f[on] if on else f).attrs[name]
    return change


def with_bytes(make):
    def damage(path):
        path.write_bytes(make(path.read_bytes()))
    return damage


def object_size_changed(data: bytes) -> bytes:
    """The first string's heap object one word longer: HDF5's walk of the
    collection then lands mid-object on zeros and never moves again."""
    at = heap_of(data) + 16 + 8
    size = struct.unpack_from("<Q", data, at)[0]
    return data[:at] + struct.pack("<Q", size + 8) + data[at + 8:]


def string_length_huge(data: bytes) -> bytes:
    """The high byte of the ``format`` string's length set: HDF5 allocated
    4 GB before it compared the length with the heap object's."""
    at = data.index(struct.pack("<IQI", len(layout.FORMAT), heap_of(data), 1))
    return data[:at + 3] + b"\xff" + data[at + 4:]


def another_target(sealed):
    def change(f):
        rules = json.loads(f.attrs["rules"])
        rules["target"] = 40
        f.attrs["rules"] = json.dumps(rules)
    return edit(change, sealed=sealed)


def fifo(path):
    path.unlink()
    os.mkfifo(path)


def directory(path):
    path.unlink()
    path.mkdir()


NAN = np.full((30, 30), np.nan)
DAMAGES = {
    "empty": with_bytes(lambda data: b""),
    "cut short": with_bytes(lambda data: data[:len(data) // 2]),
    "cut at 1000 bytes": with_bytes(lambda data: data[:1000]),
    "not HDF5": with_bytes(lambda data: b"hello\n" * 100),
    "a FIFO": fifo,
    "a directory": directory,
    "heap object resized (HDF5 spun)": with_bytes(object_size_changed),
    "string length of 4 GB (HDF5 allocated it)": with_bytes(string_length_huge),
    "format removed": edit(del_attr("format")),
    "format changed": edit(set_attr("format", "another-format")),
    "format version removed": edit(del_attr("format_version")),
    "format version from the future": edit(set_attr("format_version", 99), sealed=True),
    "rules not JSON": edit(set_attr("rules", "{not json")),
    "rules of another target": another_target(sealed=False),
    "rules of another target, resealed": another_target(sealed=True),
    "first player's chance changed": edit(set_attr("first_player_win", 0.6)),
    "first player's chance NaN, resealed": edit(set_attr("first_player_win", np.nan),
                                                sealed=True),
    "an attribute of another type": edit(set_attr("target", "thirty"), sealed=True),
    "an attribute unknown": edit(set_attr("colour", "blue"), sealed=True),
    "checksum removed": edit(del_attr(CHECKSUM)),
    "checksum changed": edit(set_attr(CHECKSUM, np.bytes_("0" * 64))),
    "W's checksum removed": edit(del_attr(CHECKSUM, on="W")),
    "W's checksum changed": edit(set_attr(CHECKSUM, np.bytes_("0" * 64), on="W")),
    "W removed": edit(lambda f: f.__delitem__("W")),
    "W of the wrong shape": edit(replace("W", np.full((29, 30), 0.5))),
    "W of the wrong shape, resealed": edit(replace("W", np.full((29, 30), 0.5)), sealed=True),
    "W of the wrong type, resealed": edit(replace("W", np.zeros((30, 30), dtype=np.int64)),
                                          sealed=True),
    "W NaN": edit(replace("W", NAN)),
    "W NaN, resealed": edit(replace("W", NAN), sealed=True),
    "W infinite, resealed": edit(replace("W", np.full((30, 30), np.inf)), sealed=True),
    "W above 1, resealed": edit(replace("W", np.full((30, 30), 1.5)), sealed=True),
    "player states of the wrong shape, resealed": edit(replace("player/score", np.arange(31)),
                                                       sealed=True),
    "take-over rows wrong, resealed": edit(replace("take_row", np.zeros(30, dtype=np.int64)),
                                           sealed=True),
    "three players said, resealed": edit(set_attr("players", 3), sealed=True),
}


def test_every_kind_of_damage_is_refused_in_one_line(sound, tmp_path):
    """Each damage of DAMAGES, in a table of its own: ``farkle info`` and
    ``farkle advise --table`` refuse it in one line (exit status 2), and
    ``farkle tables`` (which finds each in the user's directory) lists it
    as damaged, without blocking on the FIFO."""
    _, data, _, _ = sound
    tables = tmp_path / "tables"
    tables.mkdir()
    for number, (kind, damage) in enumerate(DAMAGES.items()):
        path = tables / f"damage-{number:02d}.h5"
        path.write_bytes(data)
        damage(path)
        assert answers_or_refuses(path, sound, tables), f"{kind}: answered as if sound"
    rows = listed(tables)
    for number, kind in enumerate(DAMAGES):
        row = rows[f"damage-{number:02d}.h5"]
        assert row["status"] == "damaged", (kind, row)
        assert "\n" not in row["error"], kind
    text = run("tables", tables=tables)
    assert text.returncode == 0 and text.stdout.count(" damaged: ") == len(DAMAGES)


def test_a_damaged_default_table_stops_every_command_in_one_line(sound, tmp_path):
    """The user's own pig-30 table (the default one: no ``--table``),
    damaged where HDF5 spun: advise, simulate (which reads the table
    whole) and info refuse it in one line."""
    _, data, _, _ = sound
    tables = tmp_path / "tables"
    tables.mkdir()
    table = tables / "pig-30.h5"
    damaged = bytearray(data)
    damaged[heap_of(data) + 24] ^= 0x01          # a heap object's size: HDF5 spun
    table.write_bytes(damaged)
    for args in (ADVISE, ("simulate", "pig", "--target", 30, "--games", 100, "--a", "optimal",
                           "--b", "optimal"),
                 ("info", table)):
        result = run(*args, tables=tables)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "damaged" in result.stderr and "Traceback" not in result.stderr


def test_the_checksums_are_written_and_a_changed_value_is_found(sound, tmp_path):
    """Every dataset carries the SHA-256 of its values and the root that of
    the metadata; one value of W changed (gzip happily compresses the new
    one) is found by every reader."""
    path, data, _, _ = sound
    with h5py.File(path, "r") as f:
        assert f.attrs["format_version"] == layout.FORMAT_VERSION
        assert len(f.attrs[CHECKSUM]) == 64
        for name in ("W", "take_row", "player/score", "player/previous", "player/crosses"):
            assert f[name].attrs[CHECKSUM] == np.bytes_(layout.values_digest(f[name][()])), name
    assert read_table(path).first_player_win == pytest.approx(read_info(path)["first_player_win"])
    changed = tmp_path / "changed.h5"
    changed.write_bytes(data)
    with h5py.File(changed, "r+") as f:
        f["W"][3, 4] = f["W"][3, 4] + 1e-12
    for read in (read_table, read_info):
        with pytest.raises(DamagedTable, match="W does not match its checksum"):
            read(changed)


def test_take_over_values_read_lazily_are_checked_where_they_are_read(tmp_path):
    """A take-over table (dix-mille to 800): its coded take-over values have
    a Fletcher-32 per chunk and a checksum of the chunks as stored. One
    code changed in place is found by ``farkle info`` and ``farkle tables``
    (the stored chunks), by advice on the offer that reads that row (the
    chunk's Fletcher-32) and by a full read (the values' SHA-256)."""
    rules, tables = small_dix(tmp_path)
    path = tables / "dix-small-800.h5"
    with h5py.File(path, "r") as f:
        codes = f["take_codes"]
        assert codes.fletcher32 and len(codes.attrs[CHUNKS_CHECKSUM]) == 64
        chunks = []
        codes.id.chunk_iter(chunks.append)
        first = min(chunks, key=lambda c: c.chunk_offset)
    offer = ("advise", "--rules", rules, "--me", 350, "--opp", 350, "--offer", "350,2",
             "--table", path)
    sound = run(*offer, tables=tables)
    assert sound.returncode == 0 and "take over" in sound.stdout
    data = bytearray(path.read_bytes())
    data[first.byte_offset + first.size // 2] ^= 0x01     # the first taker's row
    path.write_bytes(data)
    assert run("info", path, tables=tables).returncode == 2
    assert listed(tables)["dix-small-800.h5"]["status"] == "damaged"
    with pytest.raises(DamagedTable):
        read_table(path, lazy_take=False)
    lazy = read_table(path)
    with pytest.raises(DamagedTable):
        lazy.take_values[0]
    lazy.take_values[1]                           # the other rows are sound

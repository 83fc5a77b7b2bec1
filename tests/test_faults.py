"""Faults around the table files (issue 68, point 1), through the command
line as a person runs it, ``FARKLE_TABLES`` in a scratch directory.

* Many processes wanting one table: one solves, the others say they wait,
  wait, then use its table (``solve``, ``advise``; ``serve`` answers that it
  is being made, then reads it); one table, nothing left beside it.
* Where the table cannot go, found before the work: ``--out`` a directory
  or under a file, a directory that cannot be made, a read-only one, a
  full disk: one line, exit 2, in well under the solve's time.
* A disk that fills while the solve runs: one line, exit 2, nothing kept.
* A killed solve: what it left (the lock file, partial files) is removed
  by the next run, which succeeds.

Run as root (as here), a directory of mode 0o555 can still be written; a
read-only directory is then a read-only tmpfs, and a full disk a tiny
tmpfs: both need ``mount`` (root), and are skipped without it. The mode
0o555 case runs only when not root. A kill -9 exactly inside the write
cannot be timed (the table's write is a fraction of a second), so its
leftover, a partial file of a dead process, is planted.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from conftest import start_server, stop_server

from solver.tables.lock import lock_path, table_lock

WAITING = "waiting for another farkle solving"


def env_for(tables: Path) -> dict:
    return {**os.environ, "FARKLE_TABLES": str(tables)}


def farkle(tables: Path, *args, timeout: float = 120):
    """``farkle ARGS`` with its tables in ``tables``; (result, seconds)."""
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "solver.cli", *map(str, args)],
                            capture_output=True, text=True, timeout=timeout,
                            env=env_for(tables))
    return result, time.monotonic() - started


def start(tables: Path, folder: Path, name: str, *args) -> tuple:
    """``farkle ARGS`` started in the background, its output in files of
    ``folder``: (process, stdout file, stderr file)."""
    out, err = folder / f"{name}.out", folder / f"{name}.err"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "solver.cli", *map(str, args)],
                                   stdout=stdout, stderr=stderr, env=env_for(tables))
    return process, out, err


def wait_for(condition, seconds: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.05)


def finish(process, seconds: float = 120) -> int:
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("farkle: "), result.stderr
    return lines[0]


def dead_pid() -> int:
    """The pid of a process that has ended."""
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, timeout=60).stdout)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Tables made once, to be put in place by a test playing the solving
    process: pig to 60, and a house game (pig to 60 named pig-sixty) for
    the page. (folder, house rules file)."""
    folder = tmp_path_factory.mktemp("made")
    rules = folder / "pig-sixty.toml"
    rules.write_text('base = "pig"\nname = "pig-sixty"\ntarget = 60\n')
    for args in (("pig", "--target", 60, "--out", folder / "pig-60.h5"),
                 ("--rules", rules, "--out", folder / "pig-sixty-60.h5")):
        result, _ = farkle(folder / "unused", "solve", *args)
        assert result.returncode == 0, result.stderr
    return folder, rules


@pytest.fixture
def mount(tmp_path):
    """``mount(options)``: a tmpfs mounted with ``options`` (skipped where
    this process may not mount), unmounted after the test."""
    mounted = []

    def make(options: str) -> Path:
        point = tmp_path / f"disk{len(mounted)}"
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)],
                              capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'not root'})")
        mounted.append(point)
        return point
    yield make
    for point in mounted:
        subprocess.run(["umount", "-l", str(point)], capture_output=True, timeout=30)


# ----------------------------------------------------- many processes, one table

@pytest.mark.parametrize("count", [2, 3])
def test_solves_of_one_table_wait_for_the_one_that_solves(tmp_path, count):
    """The test holds the table's lock first, as a farkle solving it would,
    so that every solve started finds it taken: each says once that it
    waits; once let go, one solves and the others use its table."""
    tables = tmp_path / "tables"
    tables.mkdir()
    with table_lock(tables / "pig-60.h5"):
        runs = [start(tables, tmp_path, f"solve{i}", "solve", "pig", "--target", 60)
                for i in range(count)]
        for _, _, err in runs:
            wait_for(lambda: f"{WAITING} pig-60 (pid {os.getpid()}) ..." in err.read_text(),
                     what="the waiting line")
    assert [finish(process) for process, _, _ in runs] == [0] * count
    outs = [out.read_text() for _, out, _ in runs]
    assert sum("turn starts solved in" in out for out in outs) == 1
    assert sum("solved by another farkle while this one waited" in out for out in outs) \
        == count - 1
    assert all("0.5398929" in out for out in outs)
    for _, _, err in runs:
        assert "Traceback" not in err.read_text()
    assert sorted(p.name for p in tables.iterdir()) == ["pig-60.h5"]


def test_solves_started_together_leave_one_table(tmp_path):
    """Three solves started at once (no lock held by the test): all
    succeed; each solved, or waited (saying so) and used the table made
    meanwhile; one table, nothing else."""
    tables = tmp_path / "tables"
    runs = [start(tables, tmp_path, f"solve{i}", "solve", "pig", "--target", 60, "--json")
            for i in range(3)]
    assert [finish(process) for process, _, _ in runs] == [0] * 3
    for _, out, err in runs:
        answer = json.loads(out.read_text())
        assert answer["first_player_win"] == pytest.approx(0.5398929, abs=1e-7)
        if "made_by" in answer:
            assert WAITING in err.read_text()
        assert "Traceback" not in err.read_text()
    assert sorted(p.name for p in tables.iterdir()) == ["pig-60.h5"]


def put_in_place(source: Path, path: Path) -> None:
    """Write a table as a solving farkle does: a partial file, renamed."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    shutil.copyfile(source, partial)
    os.replace(partial, path)


def test_advice_waits_for_the_solve_then_answers(tmp_path, made):
    folder, _ = made
    tables = tmp_path / "tables"
    tables.mkdir()
    with table_lock(tables / "pig-60.h5"):
        advise, out, err = start(tables, tmp_path, "advise", "advise", "pig", "--target", 60,
                                 "--me", 10, "--opp", 0)
        wait_for(lambda: WAITING in err.read_text(), what="the waiting line")
        assert advise.poll() is None
        put_in_place(folder / "pig-60.h5", tables / "pig-60.h5")
    assert finish(advise) == 0, err.read_text()
    assert "roll" in out.read_text() or "bank" in out.read_text()
    said = err.read_text().strip().splitlines()
    assert said == [f"farkle: {WAITING} pig-60 (pid {os.getpid()}) ...",
                    f"farkle: pig was solved by another farkle (pid {os.getpid()}): "
                    f"using its table"]
    assert sorted(p.name for p in tables.iterdir()) == ["pig-60.h5"]


def test_the_page_says_the_table_is_being_made_then_reads_it(tmp_path, made):
    """The page never solves nor holds a request for minutes: while another
    farkle solves, the question gets a 503 saying so, with the seconds after
    which to ask again (the page does: tests/test_page.py); once the table
    is there, the answer."""
    folder, rules = made
    tables = tmp_path / "tables"
    tables.mkdir()
    (tmp_path / "cwd").mkdir()
    process, url = start_server(tables, "--rules", str(rules), cwd=tmp_path / "cwd",
                                home=tmp_path / "cwd")

    def ask():
        request = urllib.request.Request(
            url + "api/advise", data=json.dumps({"game": "pig-sixty", "me": 10,
                                                 "opp": 0}).encode(),
            headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            with error:
                return error.code, {**json.loads(error.read()),
                                    "Retry-After": error.headers["Retry-After"]}
    try:
        with table_lock(tables / "pig-sixty-60.h5"):
            status, answer = ask()
            assert status == 503, answer
            assert answer["retry_after"] == 5 and answer["Retry-After"] == "5"
            assert f"being solved now by another farkle (pid {os.getpid()})" in answer["error"]
            put_in_place(folder / "pig-sixty-60.h5", tables / "pig-sixty-60.h5")
        status, answer = ask()
        assert status == 200, answer
    finally:
        stop_server(process)


# ------------------------------------------- where the table cannot go, found first

def test_an_out_that_is_a_directory_or_under_a_file_is_refused_first(tmp_path):
    """dix-mille takes minutes to solve: the refusal comes in seconds."""
    tables = tmp_path / "tables"
    (tmp_path / "a-file").write_text("not a directory")
    for out, said in ((tmp_path, "it is a directory"),
                      (tmp_path / "a-file" / "x.h5", "is not a directory"),
                      (tmp_path / "a-file" / "deeper" / "x.h5", "is not a directory")):
        result, seconds = farkle(tables, "solve", "dix-mille", "--out", out, timeout=60)
        assert result.returncode == 2 and said in one_line(result)
        assert seconds < 15
    assert (tmp_path / "a-file").read_text() == "not a directory"
    assert not tables.exists()


def test_a_table_directory_that_cannot_be_made_is_refused_first(tmp_path):
    (tmp_path / "a-file").write_text("")
    for tables in (tmp_path / "a-file", tmp_path / "a-file" / "tables"):
        result, seconds = farkle(tables, "solve", "dix-mille", timeout=60)
        assert result.returncode == 2 and "not a directory" in one_line(result)
        assert seconds < 15
        # Advice that would make a quick table says so too.
        result, _ = farkle(tables, "advise", "pig", "--target", 30, "--me", 0, "--opp", 0,
                           timeout=60)
        assert result.returncode == 2 and "not a directory" in one_line(result)


def test_a_read_only_table_directory_is_refused_first(tmp_path, mount):
    tables = mount("ro,size=64k")
    for folder in (tables, tables / "sub"):
        result, seconds = farkle(folder, "solve", "dix-mille", timeout=60)
        assert result.returncode == 2 and "Read-only file system" in one_line(result)
        assert seconds < 15


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a directory of mode 0o555")
def test_a_directory_without_write_permission_is_refused_first(tmp_path):
    tables = tmp_path / "tables"
    tables.mkdir()
    tables.chmod(0o555)
    try:
        result, seconds = farkle(tables, "solve", "dix-mille", timeout=60)
        assert result.returncode == 2 and "Permission denied" in one_line(result)
        assert seconds < 15
    finally:
        tables.chmod(0o755)


def test_a_full_disk_is_refused_first(tmp_path, mount):
    tables = mount("size=64k")
    result, seconds = farkle(tables, "solve", "pig", "--target", 60, timeout=60)
    assert result.returncode == 2 and "not enough space" in one_line(result)
    assert seconds < 15
    assert list(tables.iterdir()) == []


def test_a_disk_that_fills_during_the_solve_leaves_nothing(tmp_path, mount):
    """Room when the solve starts (it waits for the test's lock, after its
    checks), none when it writes: one line, exit 2, no partial file."""
    tables = mount("size=2m")
    filler = tables / "filler"
    with table_lock(tables / "pig-60.h5"):
        solve, out, err = start(tables, tmp_path, "solve", "solve", "pig", "--target", 60)
        wait_for(lambda: WAITING in err.read_text(), what="the waiting line")
        with open(filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(bytes(4096))
            except OSError:
                pass
    assert finish(solve) == 2
    said = err.read_text().strip().splitlines()
    assert len(said) == 2 and said[0].startswith(f"farkle: {WAITING}"), said
    assert "No space left on device" in said[1] and "nothing was kept" in said[1]
    assert sorted(p.name for p in tables.iterdir()) == ["filler"]


def test_a_disk_that_fills_while_the_table_is_written(mount):
    """The writer writes the file as HDF5 makes it (no image in memory), and
    HDF5 crashes the interpreter when a write fails: a disk with room for
    the file's first 40 kB of 292 kB (3-player Pig to 25) makes the writer
    raise the disk's own error, in this process, which lives on, and
    leaves nothing behind; a disk with room writes the same table."""
    from solver.engine.n_player import solve_players
    from solver.model.rules import get_rules
    from solver.tables.files import read_table, write_table
    solution = solve_players(get_rules("pig", 25), 3)
    small = mount("size=40k")
    with pytest.raises(OSError, match="No space left on device"):
        write_table(solution, small / "pig-25.h5", 1e-12, 0.0)
    assert list(small.iterdir()) == []
    roomy = mount("size=4m")
    size = write_table(solution, roomy / "pig-25.h5", 1e-12, 0.0)
    assert size > 40 * 1024
    table = read_table(roomy / "pig-25.h5", expect=solution.rules, expect_players=3)
    assert np.array_equal(np.asarray(table.V), solution.V)


# --------------------------------------------------------------- kill -9

def test_what_a_killed_solve_leaves_is_removed_by_the_next_run(tmp_path):
    tables = tmp_path / "tables"
    solve, _, _ = start(tables, tmp_path, "killed", "solve", "pig", "--target", 60)
    lock = lock_path(tables / "pig-60.h5")
    wait_for(lambda: lock.exists() and lock.read_text().strip() == str(solve.pid),
             what="the solve to take its lock")
    solve.send_signal(signal.SIGKILL)
    solve.wait(timeout=30)
    assert not (tables / "pig-60.h5").exists()
    # What a kill inside the write leaves (module docstring): partial files
    # of a dead process, of an older version (no pid), of a pid used again
    # since (pid 1, started after the file was written); and one of a live
    # process that may be writing (this one), which is left alone.
    stale = [tables / f"pig-60.h5.{dead_pid()}.partial", tables / "pig-60.h5.partial",
             tables / "pig-60.h5.1.partial"]
    live = tables / f"pig-60.h5.{os.getpid()}.partial"
    for path in stale + [live]:
        path.write_bytes(b"half a table")
    os.utime(stale[2], (1e6, 1e6))
    result, _ = farkle(tables, "solve", "pig", "--target", 60)
    assert result.returncode == 0 and result.stderr == ""
    assert sorted(p.name for p in tables.iterdir()) == sorted(["pig-60.h5", live.name])
    live.unlink()

    # A reader finding a table cleans what a killed writer left beside it.
    lock.write_text(f"{dead_pid()}\n")
    stale[0].write_bytes(b"half a table")
    result, _ = farkle(tables, "advise", "pig", "--target", 60, "--me", 10, "--opp", 0)
    assert result.returncode == 0 and result.stderr == ""
    assert sorted(p.name for p in tables.iterdir()) == ["pig-60.h5"]

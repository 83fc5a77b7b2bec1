"""The N-player solve on a Dask cluster (issue 70's first stage,
docs/cluster.md): the same bits as the single-process solve, a stopped or
killed solve resumed from its checkpoint with the same bits, a worker
killed mid-level losing no level, each worker's memory limit and peak
reported, foreign and damaged checkpoints and bad ``--cluster`` and
``--worker-memory`` values refused in one line, and Dask never imported
without ``--cluster``.

The library tests share one local cluster of 2 worker processes (one
thread each), reached by its scheduler's address; the command line starts
its own (``--cluster local:2``). Small targets: the suite's budget is
tight (measured on 2 loaded cores: docs/cluster.md)."""

import dataclasses
import itertools
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import farkle

pytest.importorskip("distributed")

from solver.cli.main import main
from solver.engine.n_player import Setup, solve_players
from solver.engine.turn_kernel_n import take_index
from solver.model.errors import UsageError
from solver.model.rules import get_rules
from solver.tables import checkpoint as store_module
from solver.tables.checkpoint import Checkpoint, checkpoint_path, identity
from solver.tables.cluster import Stopped, chunks, solve_players_cluster
from solver.tables.cluster_tasks import take_rows_of
from solver.tables.make import make_table


def quinze_take_over(target):
    """quinze-mille with take-over from 500: take-over rows in play."""
    return dataclasses.replace(get_rules("quinze-mille"), takeover_min=500).with_target(target)


def pig_falls(target=4):
    """Pig where two zero turns in a row cost 3 points, down to -3: falls,
    so 8 sweeps of 19 levels."""
    return dataclasses.replace(get_rules("pig"), crosses=2, fall_penalty=3,
                               floor=-3).with_target(target)


@pytest.fixture(scope="module")
def scheduler():
    """A local cluster of 2 worker processes, one thread each: its address."""
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR,
                      env={"NUMBA_NUM_THREADS": "1"}) as cluster:
        yield cluster.scheduler_address


def assert_same(a, b):
    """Two solutions of one game hold the same bits."""
    assert np.array_equal(a.V, b.V)
    assert np.array_equal(a.take_values, b.take_values)
    assert a.mixed == b.mixed and a.equilibria == b.equilibria
    assert a.stats["sweeps"] == b.stats["sweeps"]
    assert a.stats["sweep_changes"] == b.stats["sweep_changes"]
    assert a.stats["turn_dp_runs"] == b.stats["turn_dp_runs"]


# ------------------------------------------------------------ the same bits

@pytest.mark.parametrize("rules, players", [
    (get_rules("cinq-mille", 2000), 3),
    # Pig with 4 players to 40 took 40 s through local:2 beside another
    # engineer's jobs (10 to 14 s in one process): 25 here.
    (get_rules("pig", 25), 4),
    (quinze_take_over(1000), 3),
], ids=["cinq-mille-2000-3", "pig-25-4", "quinze-take-over-1000-3"])
def test_a_cluster_solve_is_the_single_process_solve_bit_for_bit(scheduler, tmp_path, rules,
                                                                 players):
    here = solve_players(rules, players)
    there = solve_players_cluster(rules, players, scheduler, tmp_path / "t.h5.checkpoint")
    assert_same(here, there)
    levels = Setup.of(rules, players).levels
    assert there.stats["cluster"]["levels_solved"] == levels
    assert there.stats["cluster"]["tasks"] >= levels
    assert there.stats["cluster"]["workers"] == 2
    # Each worker's peak reported; the values held as the checkpoint's maps,
    # not copied (readable once the checkpoint is removed).
    peaks = there.stats["cluster"]["worker_peak_bytes"]
    assert len(peaks) >= 2 and all(peak > 50e6 for peak in peaks.values())
    assert there.stats["cluster"]["client_peak_bytes"] > 50e6
    assert isinstance(there.V, np.memmap) and isinstance(there.take_values, np.memmap)
    shutil.rmtree(tmp_path / "t.h5.checkpoint")
    assert np.array_equal(there.V, here.V)


def test_chunks_cover_a_level_and_take_rows_are_the_kernels():
    """A level cut into chunks: every block once, in order; the take-over
    rows a task returns are :func:`take_index`'s."""
    setup = Setup.of(quinze_take_over(1000), 3)
    for j in range(setup.levels):
        level = setup.level(j)
        cut = chunks(level, 0, level.count, 3)
        assert cut[0][0] == 0 and cut[-1][1] == level.count and len(cut) <= 3
        assert all(a < b and b == c for (a, b), (c, _) in itertools.pairwise(cut))
    nodes = np.arange(setup.nodes)
    expected = [take_index(setup.seats, setup.moves.take_row, setup.moves.bank_slot, int(n))
                for n in nodes]
    assert list(take_rows_of(setup, nodes)) == [r for r in expected if r >= 0]
    assert len(take_rows_of(setup, nodes)) > 0


# ------------------------------------------------------------------ resume

def test_a_stopped_solve_resumes_after_its_last_level(scheduler, tmp_path):
    """cinq-mille to 1,500 with 3 players, stopped after the level whose
    block needs mixing: the second run solves only the levels not
    recorded, and the mixed decisions come back from the checkpoint."""
    rules = get_rules("cinq-mille", 1500)
    here = solve_players(rules, 3)
    setup = Setup.of(rules, 3)
    mixed_node = here.equilibria[0]["nodes"][0]
    level = next(j for j in range(setup.levels) if mixed_node in setup.level_nodes(j))
    stop = level + 2
    folder = tmp_path / "t.h5.checkpoint"
    with pytest.raises(Stopped):
        solve_players_cluster(rules, 3, scheduler, folder, stop_after_levels=stop)
    record = json.loads((folder / "progress.json").read_text())
    assert record["state"]["level"] == stop and record["mixed"]
    there = solve_players_cluster(rules, 3, scheduler, folder)
    assert there.stats["cluster"]["resumed_at"] == [1, stop]
    assert there.stats["cluster"]["levels_solved"] == setup.levels - stop
    # A task or two per level (2 workers), and none for the levels done.
    assert setup.levels - stop <= there.stats["cluster"]["tasks"] <= 2 * (setup.levels - stop)
    assert_same(here, there)


class Killed(Exception):
    pass


def test_a_level_left_half_written_is_put_back(scheduler, tmp_path, monkeypatch):
    """A client killed after writing a level's values but before recording
    it (in the second sweep of a game with falls, where every block starts
    from its own values of the last sweep): the run again puts the level's
    old values back (its undo file) before solving it again, and ends with
    the same bits."""
    rules = pig_falls()
    here = solve_players(rules, 3)
    assert here.stats["sweeps"] > 2
    setup = Setup.of(rules, 3)
    kill_at = setup.levels + 5                  # the fifth level of the second sweep
    calls = {"n": 0}
    record_level = Checkpoint.record_level

    def killed(self, state, solution):
        calls["n"] += 1
        if calls["n"] == kill_at:
            raise Killed
        record_level(self, state, solution)

    folder = tmp_path / "t.h5.checkpoint"
    monkeypatch.setattr(Checkpoint, "record_level", killed)
    with pytest.raises(Killed):
        solve_players_cluster(rules, 3, scheduler, folder)
    monkeypatch.setattr(Checkpoint, "record_level", record_level)
    # The level's new values are written, its old ones kept beside them.
    nodes = setup.level(4).nodes()
    old = np.load(folder / "undo-2-4.npy")
    assert not np.array_equal(np.load(folder / "V.npy")[nodes], old)
    resumed = {}
    attach = Checkpoint.attach

    def seen(self, setup):
        attach(self, setup)
        resumed["V"] = np.array(self.V[nodes])

    monkeypatch.setattr(Checkpoint, "attach", seen)
    there = solve_players_cluster(rules, 3, scheduler, folder)
    assert np.array_equal(resumed["V"], old)
    assert there.stats["cluster"]["resumed_at"] == [2, 4]
    assert not (folder / "undo-2-4.npy").exists()
    assert_same(here, there)


def test_a_worker_killed_mid_level_loses_no_level(scheduler, tmp_path, monkeypatch):
    """A worker killed (SIGKILL) while a level's tasks are out, before
    their results are gathered: Dask runs its lost tasks again (the nanny
    starts a new worker), the solve goes on without stopping, every level
    is solved once and its tasks submitted once, and the values are the
    single-process solve's, bit for bit."""
    from solver.tables import cluster as cluster_module
    rules = get_rules("cinq-mille", 1500)
    here = solve_players(rules, 3)
    setup = Setup.of(rules, 3)
    gather, calls, killed = cluster_module._gather, {"n": 0}, {}

    def kill_then_gather(client, futures, state):
        calls["n"] += 1
        if calls["n"] == 10:
            keys = {f.key for f in futures}
            deadline = time.monotonic() + 5
            while not killed and time.monotonic() < deadline:
                # A worker running one of the level's tasks, else holding
                # a result not yet gathered.
                held = {w for k, ws in client.who_has(futures).items() for w in ws}
                running = {w for w, ks in client.processing().items() if keys & set(ks)}
                for address in sorted(running) or sorted(held):
                    pid = client.run(os.getpid, workers=[address])[address]
                    os.kill(pid, signal.SIGKILL)
                    killed.update(address=address, pid=pid, keys=keys,
                                  running=bool(running))
                    break
        return gather(client, futures, state)

    monkeypatch.setattr(cluster_module, "_gather", kill_then_gather)
    there = solve_players_cluster(rules, 3, scheduler, tmp_path / "t.h5.checkpoint")
    assert killed, "no worker held a task of the level"
    assert_same(here, there)
    done = there.stats["cluster"]
    assert done["resumed_at"] is None and done["levels_solved"] == setup.levels
    # One task a worker for a level's blocks, and one for its cycling block.
    assert done["settle_tasks"] == done["cycling_blocks"] == 1
    assert done["tasks"] == sum(len(chunks(setup.level(j), 0, setup.level(j).count, 2))
                                for j in range(setup.levels)) + done["settle_tasks"]
    from distributed import Client
    with Client(scheduler, timeout=10) as client:
        # Its lost tasks ran again: a key sent to be processed twice (the
        # scheduler's story: who, key, from, to, ...).
        story = [e for e in client.story(*killed["keys"]) if e[0] == "scheduler"]
        starts = [e[1] for e in story if e[3] == "processing"]
        assert any(starts.count(k) >= 2 for k in killed["keys"]), story
        client.wait_for_workers(2, timeout=30)         # as the other tests found it


@pytest.mark.parametrize("sees, words", [
    ("another folder", r"the Dask worker on \S+ does not see this solve's checkpoint at "
                       r"\S+t\.h5\.checkpoint: workers on several machines need it on a "
                       r"file system they share, at the same path"),
    ("other code", r"the Dask worker on \S+ runs other farkle-solver code \(\d\S*, sources "
                   r"[0-9a-f]{12}\) than this client \(other\): install the same on every "
                   r"machine"),
])
def test_a_worker_that_cannot_take_part_stops_the_solve_in_one_line(scheduler, tmp_path,
                                                                     monkeypatch, sees, words):
    """Workers on several machines must see the checkpoint's folder at one
    path, the folder the client writes (not a stale one of the same name),
    and run the same code. Real workers, shown what one on another machine
    would see: the client sends a token other than the one it wrote (the
    worker reads another folder's), or a digest of other code. The solve
    stops before any level is recorded, in one line, the checkpoint kept."""
    from solver.tables import cluster as cluster_module
    if sees == "another folder":
        write_token = cluster_module.write_token
        monkeypatch.setattr(cluster_module, "write_token",
                            lambda folder: write_token(folder) and "another folder's token")
    else:
        monkeypatch.setattr(cluster_module, "code_digest", lambda: "other")
    folder = tmp_path / "t.h5.checkpoint"
    with pytest.raises(UsageError, match=words) as refused:
        solve_players_cluster(get_rules("cinq-mille", 1000), 3, scheduler, folder)
    assert "\n" not in str(refused.value)
    assert json.loads((folder / "progress.json").read_text())["state"]["level"] == 0


def compare_tables(a, b):
    """Every dataset of two table files, and the attributes that carry
    values, are equal."""
    import h5py

    def contents(path):
        found = {}
        with h5py.File(path, "r") as f:
            f.visititems(lambda name, obj: found.__setitem__(name, obj[()])
                         if isinstance(obj, h5py.Dataset) else None)
            attrs = {k: f.attrs[k] for k in ("seat_wins", "equilibria_found",
                                              "first_player_win", "players", "rules")}
        return found, attrs

    (data_a, attrs_a), (data_b, attrs_b) = contents(a), contents(b)
    assert sorted(data_a) == sorted(data_b) and "V" in data_a
    for name in data_a:
        assert data_a[name].dtype == data_b[name].dtype, name
        assert np.array_equal(data_a[name], data_b[name]), name
    assert attrs_a == attrs_b


def test_the_command_line_killed_and_run_again_writes_the_same_table(tmp_path):
    """``farkle solve cinq-mille --target 2000 --players 3 --cluster local:2
    --worker-memory 1GB``: killed (SIGKILL) once its checkpoint records 30
    levels, run again, it resumes and writes the table the single-process
    solve writes, bit for bit, and removes the checkpoint; its ``--json``
    gives each worker's limit and peak (within it) and the client's."""
    rules = get_rules("cinq-mille", 2000)
    single = tmp_path / "single.h5"
    make_table(rules, single, players=3)
    out = tmp_path / "cluster.h5"
    command = [sys.executable, "-m", "solver.cli", "solve", "cinq-mille", "--target", "2000",
               "--players", "3", "--cluster", "local:2", "--worker-memory", "1GB",
               "--out", str(out), "--json"]
    progress = checkpoint_path(out) / "progress.json"
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if json.loads(progress.read_text())["state"]["level"] >= 30:
                    break
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.05)
        assert process.poll() is None, process.communicate()[1][-2000:]
        os.kill(process.pid, signal.SIGKILL)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)      # its workers, had they stayed
        except ProcessLookupError:
            pass
        process.communicate()
    done = json.loads(progress.read_text())["state"]["level"]
    assert 30 <= done < Setup.of(rules, 3).levels and not out.exists()
    result = farkle(*command[3:], check=0)
    stats = json.loads(result.stdout)
    assert stats["players"] == 3
    limits, peaks = stats["cluster"]["worker_memory_limit"], stats["cluster"]["worker_peak_bytes"]
    assert len(limits) == 2 and set(limits.values()) == {10**9}
    assert peaks and all(50e6 < peak < 10**9 for peak in peaks.values())
    assert 50e6 < stats["cluster"]["client_peak_bytes"] < 2e9
    assert not checkpoint_path(out).exists()
    compare_tables(single, out)


def test_ctrl_c_at_a_terminal_stops_cleanly_and_keeps_the_checkpoint(tmp_path):
    """``farkle solve cinq-mille --target 2500 --players 3 --cluster
    local:2`` at a terminal (a pseudo-terminal): its bar shows the levels
    done and the time left; Ctrl-C once some levels are done stops it with
    "farkle: interrupted" (exit status 130), no table, the checkpoint
    holding the levels done, and its workers stopped with it."""
    import io

    import pexpect
    out = tmp_path / "t.h5"
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "solve", "cinq-mille", "--target",
                                           "2500", "--players", "3", "--cluster", "local:2",
                                           "--out", str(out)],
                          encoding="utf-8", timeout=120, dimensions=(24, 120),
                          env={**os.environ, "TQDM_MININTERVAL": "0"})
    child.logfile_read = io.StringIO()
    child.expect(r"\[\d\d:\d\d<\d\d:\d\d, level ([1-9]\d) of 134\]")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    screen = child.logfile_read.getvalue()
    assert child.exitstatus == 130, screen[-1000:]
    assert "farkle: interrupted" in screen and "Traceback" not in screen
    assert not out.exists()
    recorded = json.loads((checkpoint_path(out) / "progress.json").read_text())["state"]["level"]
    assert 10 <= recorded < 134
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.killpg(child.pid, 0)             # the command's workers, had they stayed
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the workers outlived the command by 20 s")


# ----------------------------------------------------------------- refusals

def new_checkpoint(folder, rules, players=3, tol=1e-12):
    setup = Setup.of(rules, players)
    Checkpoint.create(folder, identity(rules, setup.space, players, tol, 200), setup).close()


@pytest.mark.parametrize("rules, players, tol", [
    (get_rules("cinq-mille", 1000), 3, 1e-12),
    (get_rules("cinq-mille", 1500), 4, 1e-12),
    (get_rules("cinq-mille", 1500), 3, 1e-10),
], ids=["other-rules", "other-players", "other-tolerance"])
def test_a_foreign_checkpoint_is_refused(tmp_path, rules, players, tol):
    folder = tmp_path / "t.h5.checkpoint"
    new_checkpoint(folder, get_rules("cinq-mille", 1500))
    with pytest.raises(UsageError, match="is of another solve .*remove it or choose another "
                                         "--out"):
        solve_players_cluster(rules, players, "local:2", folder, tol=tol)


def damage_progress(folder):
    (folder / "progress.json").write_text('{"format": "farkle-solver N-pl')


def damage_shape(folder):
    np.save(folder / "V.npy", np.zeros((5, 3)))


def damage_values(folder):
    V = np.load(folder / "V.npy", mmap_mode="r+")
    V[7, 1] = np.nan
    V.flush()


def damage_truncated(folder):
    with open(folder / "take_values.npy", "r+b") as f:
        f.truncate(40)


def damage_reach(folder):
    np.save(folder / "reach.npy", np.ones((1, 1, 1)))


def damage_state(folder):
    record = json.loads((folder / "progress.json").read_text())
    record["state"]["levels_done"] = record["state"].pop("level")
    (folder / "progress.json").write_text(json.dumps(record))


@pytest.mark.parametrize("damage", [damage_progress, damage_shape, damage_values,
                                    damage_truncated, damage_reach, damage_state])
def test_a_damaged_checkpoint_is_refused(tmp_path, damage):
    rules = get_rules("cinq-mille", 1500)
    folder = tmp_path / "t.h5.checkpoint"
    new_checkpoint(folder, rules)
    damage(folder)
    with pytest.raises(UsageError, match="checkpoint .* is damaged .*remove it"):
        solve_players_cluster(rules, 3, "local:2", folder)


def one_line_exit_2(result, words):
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("farkle: ") and words in result.stderr, result.stderr


def test_refusals_from_the_command_line_are_one_line(tmp_path):
    """A foreign checkpoint beside ``--out``, a damaged one, and a scheduler
    address nothing answers at: one line, exit 2, no traceback, no table,
    and no checkpoint left for the address."""
    out = tmp_path / "t.h5"
    new_checkpoint(checkpoint_path(out), get_rules("cinq-mille", 1000))
    solve = ("solve", "cinq-mille", "--target", 1500, "--players", 3, "--out", out)
    one_line_exit_2(farkle(*solve, "--cluster", "local:2"), "is of another solve")
    store_module.remove_checkpoint(checkpoint_path(out))
    new_checkpoint(checkpoint_path(out), get_rules("cinq-mille", 1500))
    damage_shape(checkpoint_path(out))
    one_line_exit_2(farkle(*solve, "--cluster", "local:2"), "is damaged")
    shutil.rmtree(checkpoint_path(out))
    one_line_exit_2(farkle(*solve, "--cluster", "tcp://127.0.0.1:1"),
                    "no Dask scheduler answers at tcp://127.0.0.1:1")
    assert not out.exists() and not checkpoint_path(out).exists()


@pytest.mark.parametrize("value, players, words", [
    ("local:0", 3, "local:W takes a number of workers of 1 or more"),
    ("local:x", 3, "local:W takes a number of workers of 1 or more"),
    ("local:", 3, "local:W takes a number of workers of 1 or more"),
    ("nowhere", 3, "a Dask scheduler's address"),
    ("local:2", 2, "--players 3 or more"),
])
def test_bad_cluster_values_are_one_line_and_exit_2(tmp_path, capsys, value, players, words):
    assert main(["solve", "cinq-mille", "--target", "1500", "--players", str(players),
                 "--cluster", value, "--out", str(tmp_path / "t.h5")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "t.h5.checkpoint").exists()


@pytest.mark.parametrize("options, words", [
    (["--worker-memory", "4GB"], "--worker-memory goes with --cluster local:W"),
    (["--cluster", "tcp://127.0.0.1:1", "--worker-memory", "4GB"], "their own --memory-limit"),
    (["--cluster", "local:2", "--worker-memory", "lots"], "a size such as 4GB"),
    (["--cluster", "local:2", "--worker-memory", "10MB"], "is too small"),
])
def test_bad_worker_memory_is_one_line_and_exit_2(tmp_path, capsys, options, words):
    assert main(["solve", "cinq-mille", "--target", "1500", "--players", "3", *options,
                 "--out", str(tmp_path / "t.h5")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "t.h5.checkpoint").exists()


def test_memory_sizes_read_as_dask_reads_them():
    from dask.utils import parse_bytes

    from solver.tables.cluster import parse_memory
    for text in ("4GB", "1.5GiB", "800MB", "2 gb", "300000000"):
        assert parse_memory(text) == parse_bytes(text), text


def test_without_cluster_dask_is_not_imported(tmp_path):
    code = ("import sys\nfrom solver.cli.main import main\n"
            f"assert main(['solve', 'pig', '--target', '12', '--players', '3', '--out', "
            f"{str(tmp_path / 't.h5')!r}]) == 0\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "t.h5").exists()

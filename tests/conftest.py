import os
import re
import subprocess
import sys

import pytest

# The suite reads the program in English whatever the machine's locale
# (docs/french.md): LANGUAGE is the first variable solver.text reads, and the
# CLI's subprocesses inherit it. A French test passes --lang fr, or an
# environment of its own without LANGUAGE.
os.environ["LANGUAGE"] = "en"

# The suite runs in two processes (pytest-xdist, pyproject.toml), which
# share numba's cache: one process at a time loads or compiles a kernel
# (solver.model.compile_lock), so each kernel is compiled once, by whichever
# process wants it first (docs/solver.md, "numba's cache").
# One core per worker: numba's parallel kernels (a card's evaluation, the
# solver's levels) run one thread each, the CLI's subprocesses too. Two
# threads a worker on two cores made OpenMP's waiting threads spin against
# the other worker: a card fit of a few seconds alone took 35 s in the
# suite (docs/benchmarks/suite.md). A test that wants threads sets them.
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")


@pytest.fixture(autouse=True)
def tables_in_tmp(tmp_path_factory, monkeypatch):
    """Every test reads and writes tables in a scratch directory, so that the
    committed tables/ stay as they are,"""
    monkeypatch.setenv("FARKLE_TABLES", str(tmp_path_factory.getbasetemp() / "tables"))
    # and keeps what solves took (solver.tables.calibration) out of ~/.cache.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


def farkle(*args, check=None, env=None):
    """Run the CLI as a user would (in ``env``, else this process's
    environment); returns the CompletedProcess."""
    result = subprocess.run([sys.executable, "-m", "solver.cli", *map(str, args)],
                            capture_output=True, text=True, timeout=600, env=env)
    if check is not None:
        assert result.returncode == check, result.stderr
    return result


# A dix-mille to 800 (crosses, falls and take-over), solved in about a second.
SMALL_DIX = 'base = "dix-mille"\nname = "dix-small"\ntarget = 800\n'


def solved_house(folder, text, file_name="house.toml"):
    """A house-rules file of ``text`` in ``folder``, its table made by
    ``farkle solve --rules`` into ``folder/tables``: (rules file, the
    environment whose ``FARKLE_TABLES`` is that directory)."""
    rules = folder / file_name
    rules.write_text(text)
    env = {**os.environ, "FARKLE_TABLES": str(folder / "tables")}
    farkle("solve", "--rules", rules, env=env, check=0)
    return rules, env


def small_dix(folder):
    """SMALL_DIX's rules file in ``folder`` and its table, solved into
    ``folder/tables``: (rules file, table directory)."""
    rules, env = solved_house(folder, SMALL_DIX, "dix-small.toml")
    return rules, folder / "tables"


def start_server(tables, *options, cwd, home=None):
    """``farkle serve --port 0 --quiet`` reading ``tables``, started as a
    person starts it: (the process, the address it printed)."""
    env = {**os.environ, "FARKLE_TABLES": str(tables), **({"HOME": str(home)} if home else {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "serve", "--port", "0", "--quiet", *options],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.fullmatch(r"serving the page on (http://127\.0\.0\.1:\d+/) \(Ctrl-C stops\)\n",
                         line)
    assert match, f"the server said {line!r}" + (process.stderr.read() if not line else "")
    return process, match.group(1)


def stop_server(process):
    process.terminate()
    process.wait(timeout=10)
    process.stdout.close()
    process.stderr.close()


def answerer(child):
    """``answer(prompt, text, then=None)`` for a program in a
    pseudo-terminal (pexpect): wait for ``prompt``, type ``text``, then
    wait for ``then`` if given."""
    def answer(prompt, text, then=None):
        child.expect(prompt)
        child.sendline(text)
        if then:
            child.expect(then)
    return answer

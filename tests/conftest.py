import subprocess
import sys

import pytest


@pytest.fixture(autouse=True)
def tables_in_tmp(tmp_path_factory, monkeypatch):
    """Every test reads and writes tables in a scratch directory, so that the
    committed tables/ stay as they are."""
    monkeypatch.setenv("FARKLE_TABLES", str(tmp_path_factory.getbasetemp() / "tables"))


def farkle(*args, check=None):
    """Run the CLI as a user would; returns the CompletedProcess."""
    result = subprocess.run([sys.executable, "-m", "solver.cli", *map(str, args)],
                            capture_output=True, text=True, timeout=600)
    if check is not None:
        assert result.returncode == check, result.stderr
    return result

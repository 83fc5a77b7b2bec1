"""The package's layers (docs/architecture.md): the contracts in
pyproject.toml hold (import-linter), and no modules import each other in a
cycle, directly or inside a function (grimp, import-linter's graph)."""

import shutil
import subprocess
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("lint-imports") is None, reason="import-linter not installed")
def test_the_layer_contracts_hold():
    done = subprocess.run(["lint-imports", "--config", str(ROOT / "pyproject.toml")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "broken" in done.stdout and "0 broken" in done.stdout


def import_cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    edges = {m: graph.find_modules_directly_imported_by(m) & graph.modules for m in graph.modules}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in edges[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


def test_no_modules_import_each_other():
    assert import_cycles(grimp.build_graph("solver")) == []


def test_a_cycle_is_found():
    """The check itself: a graph with a -> b -> c -> a has that cycle."""
    graph = grimp.ImportGraph()
    for a, b in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        graph.add_import(importer=a, imported=b)
    assert import_cycles(graph) == [["p.a", "p.b", "p.c"]]

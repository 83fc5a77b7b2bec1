"""The turn rules of :mod:`solver.model.turn_rules`, compiled for numba kernels.

The compiled modules (the solver's turn DP, the simulator's game loop, the
crosses model's bank distribution, the paper's analysis) import the rules
from here and call them inside their loops.

numba's on-disk cache (``cache=True``) is keyed on the file that defines
the cached kernel (its stamp, or since numba 0.57 a hash of its text), not
on the files it calls into, whose code is compiled into it. A kernel module
therefore calls :func:`drop_stale_caches` with its own file when it is
imported: cached kernels of that module older than ``turn_rules.py``, this
module or a module whose code it calls are deleted, so that numba compiles
them again and a changed rule never runs from a stale cache. (The caches
live in the package's ``__pycache__``; an installed package is compiled
afresh on first use.) Importing this module also makes numba load and
compile the kernels one process at a time (:mod:`solver.model.compile_lock`).
"""

from __future__ import annotations

import os
import types
from pathlib import Path

from numba import njit

from solver.model import compile_lock, turn_rules

# Every kernel module imports this one: from here on, one process at a time
# loads or compiles a kernel (solver.model.compile_lock).
compile_lock.install()

RULES = ("keep_result", "dice_left", "may_bank_total", "may_bank", "banked_score", "offer",
         "may_take_over", "add_cross", "after_bank", "after_zero_turn", "bank_changes_nothing",
         "offer_only_overshoots", "rows_past_target")


def compiled_copies(module: types.ModuleType, names, compiled: dict | None = None) -> dict:
    """The functions ``names`` of ``module`` compiled for numba (inlined),
    by name. The functions call one another (may_bank calls
    may_bank_total, a card's keep rank the turn rules' keep_result): each is
    compiled as a copy whose global names are the compiled functions, these
    and ``compiled`` (name -> compiled function), not the plain ones."""
    namespace = {**vars(module), **(compiled or {})}
    for name in names:
        function = getattr(module, name)
        namespace[name] = njit(inline="always")(
            types.FunctionType(function.__code__, namespace, name, function.__defaults__))
    return {name: namespace[name] for name in names}


COMPILED_RULES = compiled_copies(turn_rules, RULES)
(keep_result, dice_left, may_bank_total, may_bank, banked_score, offer, may_take_over,
 add_cross, after_bank, after_zero_turn, bank_changes_nothing,
 offer_only_overshoots, rows_past_target) = (COMPILED_RULES[_name] for _name in RULES)


def drop_stale_caches(kernel_file: str, *called_files: str) -> None:
    """Delete the cached kernels of ``kernel_file`` that are older than the
    files whose compiled code they hold (the turn rules, this module, and
    ``called_files``: the modules of other kernels or rules it calls)
    (module docstring)."""
    kernel = Path(kernel_file)
    try:
        newest = max(os.stat(path).st_mtime
                     for path in (turn_rules.__file__, __file__, *called_files))
        for cached in (kernel.parent / "__pycache__").glob(f"{kernel.stem}.*.nb[ic]"):
            if cached.stat().st_mtime < newest:
                cached.unlink(missing_ok=True)
    except OSError:
        pass        # a read-only install: compiled afresh, nothing stale

"""The turn rules of :mod:`solver.turn_rules`, compiled for numba kernels.

The compiled modules (the solver's turn DP, the simulator's game loop, the
crosses model's bank distribution, the paper's analysis) import the rules
from here and call them inside their loops.

numba's on-disk cache (``cache=True``) is keyed on the stamp of the file
that defines the cached kernel, not on the files it calls into (their code
is compiled into it). A kernel module therefore calls :func:`renew_stamp`
with its own file when it is imported: if ``turn_rules.py``, this module or
a kernel module it calls is newer, the kernel's file gets a new stamp and
numba compiles it again, so that a changed rule never runs from a stale
cache. (An installed package has one stamp for every file: nothing to do.)
"""

from __future__ import annotations

import os
import types

from numba import njit

from . import turn_rules

RULES = ("keep_result", "dice_left", "may_bank_total", "may_bank", "banked_score", "offer",
         "may_take_over", "add_cross", "after_bank", "after_zero_turn", "bank_changes_nothing",
         "offer_only_overshoots")

# The rules call one another (may_bank calls may_bank_total, ...): each is
# compiled as a copy whose global names are the compiled rules.
_namespace = dict(vars(turn_rules))
for _name in RULES:
    _rule = getattr(turn_rules, _name)
    _namespace[_name] = njit(inline="always")(
        types.FunctionType(_rule.__code__, _namespace, _name, _rule.__defaults__))
(keep_result, dice_left, may_bank_total, may_bank, banked_score, offer, may_take_over,
 add_cross, after_bank, after_zero_turn, bank_changes_nothing,
 offer_only_overshoots) = (_namespace[_name] for _name in RULES)


def renew_stamp(kernel_file: str, *called_files: str) -> None:
    """Give ``kernel_file`` a newer stamp than the files whose compiled code
    its kernels hold (the turn rules, this module, and ``called_files``: the
    modules of other kernels it calls) if it has an older one (module
    docstring)."""
    try:
        newest = max(os.stat(path).st_mtime
                     for path in (turn_rules.__file__, __file__, *called_files))
        if os.stat(kernel_file).st_mtime < newest:
            os.utime(kernel_file)
    except OSError:
        pass        # read-only install: its files are stamped together

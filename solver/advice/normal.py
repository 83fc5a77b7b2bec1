"""The standard normal distribution function and its inverse, as compiled ufuncs.

The model's law (:mod:`solver.advice.duels`) needs ``Phi`` and ``Phi^-1`` for
one answer at the table, where the look-ahead has loaded numba already and
importing ``scipy.special`` would add a fifth of a second. So:

    ndtr(x)  = Phi(x)    = erfc(-x / sqrt(2)) / 2
    ndtri(p) = Phi^-1(p): Acklam's rational approximation (relative error
               1.15e-9), then one Halley step on Phi(x) - p, which brings it
               to the precision of erfc (tests/test_duels.py compares both
               with scipy.special);

``ndtri(0) = -inf``, ``ndtri(1) = inf``.
"""

from __future__ import annotations

import math

from numba import njit, vectorize

from solver.model.compiled_rules import drop_stale_caches

drop_stale_caches(__file__)

_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00)
_LOW = 0.02425
"""Below this, the tail's approximation."""


@vectorize(["float64(float64)"], cache=True)
def ndtr(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@njit(cache=True)
def _lower_half(p):
    """``Phi^-1(p)`` for ``0 < p <= 1/2`` (module docstring)."""
    if p < _LOW:
        q = math.sqrt(-2.0 * math.log(p))
        x = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) \
            / ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    else:
        q = p - 0.5
        r = q * q
        x = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q \
            / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
    # Halley's step on Phi(x) - p: the error goes from 1e-9 to its cube.
    error = 0.5 * math.erfc(-x / math.sqrt(2.0)) - p
    u = error * math.sqrt(2.0 * math.pi) * math.exp(0.5 * x * x)
    return x - u / (1.0 + 0.5 * x * u)


@vectorize(["float64(float64)"], cache=True)
def ndtri(p):
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    # Above 1/2 by symmetry: 1 - p is exact there, Phi(x) - p would cancel.
    if p > 0.5:
        return -_lower_half(1.0 - p)
    return _lower_half(p)

"""Two-player take-over values as small integers, for the table files.

The take-over values are most of a two-player table (quinze-mille: 86.7
million float64, 149 MB gzipped, beside 0.5 MB of start values). Three
steps make them small without moving an answer by more than 1e-10:

1. **Only taken offers.** Every reader uses an offer's value through the
   waiting player's choice (:mod:`solver.engine.turn`)

       O(w, m', t, n) = max(W[w, m'], R_{w,m'}(t, n)),

   so a roll value at or below the taker's fresh start ``W[w, m']`` is never
   read: it is stored as 0, as are the rows past the banker's score (no
   bank makes those offers). About half the offers are taken (44% in
   quinze-mille, 54% in dix-mille).
2. **Rounded** to a multiple of ``QUANTUM = 2^-33``:

       q = round(v / QUANTUM)          (error at most 2^-34, 5.8e-11)

3. **Differences.** The values are smooth in the banker's state (the bank
   slot), the offer and the dice, so what is stored is the residual

       c = zigzag(D_n D_t D_slot D_slot q)

   where ``D_a`` is the difference with the previous entry along axis
   ``a`` (the first entry kept as it is) and zigzag maps 0, -1, 1, -2, ...
   to 0, 1, 2, 3, ... so that small residuals of either sign have zero
   high bytes. HDF5's shuffle and gzip filters then pack quinze-mille's
   values into 57 MB and dix-mille's into 106 MB (BENCHMARKS.md).

Decoding runs the cumulative sums back, exactly in integers; a value of 0
is an offer not taken (``max(W, 0) = W``). Rows are coded one taker at a
time: advice reads one row (:class:`TakeRows`).
"""

from __future__ import annotations

import numpy as np

QUANTUM = 2.0 ** -33
"""The stored values' step: half of it, 5.8e-11, is the largest error."""
DIFFERENCES = (0, 0, 1, 2)
"""The axes of one taker's row differenced, in order: slot twice, offer, dice."""


def encode_row(values: np.ndarray, fresh: np.ndarray, offers: np.ndarray) -> np.ndarray:
    """One taker's row ``values[slot, offer row, dice - 1]`` as codes.
    ``fresh[slot]``: the taker's fresh start ``W[w, m']`` against the
    slot's banker; ``offers[slot]``: how many offer rows a bank can make."""
    made = np.arange(values.shape[1])[None, :] < offers[:, None]
    taken = (values > fresh[:, None, None]) & made[:, :, None]
    q = np.where(taken, np.rint(values / QUANTUM), 0).astype(np.int64)
    for axis in DIFFERENCES:
        q = np.diff(q, axis=axis, prepend=0)
    return (q << 1) ^ (q >> 63)


def decode(codes: np.ndarray) -> np.ndarray:
    """Values from codes, for one taker's row or a stack of rows (the last
    three axes are slot, offer row, dice)."""
    q = (codes >> 1) ^ -(codes & 1)
    for axis in reversed(DIFFERENCES):
        np.cumsum(q, axis=axis - 3, out=q)
    return q * QUANTUM


class TakeRows:
    """The take-over values of a table file, decoded one taker's row at a
    time: ``rows[k]`` and ``rows[k, slot, ...]`` as an array would give
    them, ``np.asarray(rows)`` all of them."""

    def __init__(self, dataset):
        self.dataset = dataset
        self.shape = dataset.shape

    def __getitem__(self, key):
        row, rest = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
        values = decode(self.dataset[int(row)])
        return values[rest] if rest else values

    def __array__(self, dtype=None, copy=None):
        out = np.empty(self.shape)
        for row in range(self.shape[0]):
            out[row] = decode(self.dataset[row])
        return out if dtype is None else out.astype(dtype)

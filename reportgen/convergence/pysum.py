"""The mean of each group's pair values, summed exactly as the builtin ``sum`` does.

The scorer divides ``sum(values)`` by ``len(values)``. CPython 3.11 adds floats left to right;
CPython 3.12 and later add them with Neumaier's compensation (an error term added at the end).
Both are reproduced here, one pair position at a time across all groups (a loop over at most
n(n-1)/2 positions, not over groups), so the float is the builtin's on the running interpreter.
"""

from __future__ import annotations

import sys

import numpy as np
import numpy.typing as npt

__all__ = ["COMPENSATED", "pair_means"]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
COMPENSATED = sys.version_info >= (3, 12)


def pair_means(values: F64, offsets: I64, *, compensated: bool = COMPENSATED) -> F64:
    """Per group g, ``sum(values[offsets[g]:offsets[g + 1]]) / count`` (1.0 with no values)."""
    counts = np.diff(offsets)
    acc = np.zeros(len(counts), dtype=np.float64)
    comp = np.zeros(len(counts), dtype=np.float64)
    for p in range(int(counts.max(initial=0))):
        has = np.flatnonzero(counts > p)
        x = values[offsets[has] + p]
        if not compensated:
            acc[has] += x
            continue
        a = acc[has]
        t = a + x
        comp[has] += np.where(np.abs(a) >= np.abs(x), (a - t) + x, (x - t) + a)
        acc[has] = t
    if compensated:
        fix = (comp != 0.0) & np.isfinite(comp)
        acc[fix] += comp[fix]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, acc / np.maximum(counts, 1), 1.0)

"""One small array helper shared by the vectorised convergence modules."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["ranges", "run_starts"]

I64 = npt.NDArray[np.int64]


def ranges(starts: I64, lengths: I64) -> tuple[I64, I64]:
    """Concatenated ``range(s, s + n)`` for every (s, n), and which range each value is from."""
    which = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if len(ends) else 0
    return starts[which] + np.arange(total, dtype=np.int64) - (ends - lengths)[which], which


def run_starts(values: npt.NDArray[np.int64]) -> I64:
    """Indices where a run of equal values starts in a sorted array ([] for an empty one)."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(values[1:] != values[:-1])
    change += 1
    return np.concatenate(([0], change)).astype(np.int64)

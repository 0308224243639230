"""Where the runs of every group first disagree, token-wise, all groups at once.

The scorer compares every run with run 0 position by position up to the shortest run. Here
all groups are compared in windows of positions that double in width (8, 16, 32, ...); a group
leaves as soon as a window shows a difference, so groups that split early (most of them)
cost a few comparisons per run, and identical runs cost at most twice their length.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from reportgen.convergence.ranges import ranges

__all__ = ["shared_prefix"]

I64 = npt.NDArray[np.int64]


def shared_prefix(ids: I64, tok_offsets: I64, row_off: I64) -> tuple[I64, I64, I64]:
    """Per group: tokens all runs share from the start, the shortest and the longest run.

    Runs are rows; group g is rows ``row_off[g]:row_off[g + 1]``, row r has tokens
    ``ids[tok_offsets[r]:tok_offsets[r + 1]]``."""
    counts = np.diff(tok_offsets)
    sizes = np.diff(row_off)
    minlen = np.minimum.reduceat(counts, row_off[:-1]) if len(sizes) else counts[:0]
    maxlen = np.maximum.reduceat(counts, row_off[:-1]) if len(sizes) else counts[:0]
    position = minlen.copy()
    active = np.flatnonzero((sizes > 1) & (minlen > 0))
    lo, width = 0, 8
    while len(active):
        hi = np.minimum(minlen[active], lo + width)
        rows, member = ranges(row_off[active] + 1, sizes[active] - 1)
        span = (hi - lo)[member]
        at, row_of = ranges(tok_offsets[rows] + lo, span)
        group_of = member[row_of]
        ref = tok_offsets[row_off[active[group_of]]] + (at - tok_offsets[rows[row_of]])
        differs = ids[at] != ids[ref]
        found = np.full(len(active), np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(found, group_of[differs], at[differs] - tok_offsets[rows[row_of[differs]]])
        hit = found < np.iinfo(np.int64).max
        position[active[hit]] = found[hit]
        active = active[~hit & (hi < minlen[active])]
        lo, width = lo + width, width * 2
    return position, minlen, maxlen

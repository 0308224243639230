"""Outlier runs of a group: runs much less similar to the others than the group's typical run.

Each run gets its mean similarity to the other runs (one row of the pairwise similarity
matrix, diagonal left out). A run is an outlier when that mean is below
``median - max(k * MAD, floor)`` of the group's means, MAD being the median absolute deviation
from the median (unscaled), ``k`` 3.0 and ``floor`` 0.05 by default. The floor keeps a group
whose runs are nearly all alike (MAD 0) from flagging a run for a rounding-level difference.
Groups of fewer than three runs have no outliers: with two runs, neither is the odd one out.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["OUTLIER_FLOOR", "OUTLIER_K", "Outlier", "find_outliers", "mean_similarities"]

OUTLIER_K = 3.0
OUTLIER_FLOOR = 0.05


@dataclass(frozen=True, slots=True)
class Outlier:
    """One flagged run: its index in the group, which similarity flagged it, and the numbers."""

    index: int
    run_id: str | None
    measure: str  # "output" (token Jaccard) or "trajectory" (1 - TDI)
    mean_similarity: float
    threshold: float


def mean_similarities(matrix: Sequence[Sequence[float | None]]) -> list[float | None]:
    """Per run, the mean of its similarities to the other runs (None where none is known)."""
    out: list[float | None] = []
    for i, row in enumerate(matrix):
        values = [v for j, v in enumerate(row) if j != i and v is not None]
        out.append(sum(values) / len(values) if values else None)
    return out


def find_outliers(
    matrix: Sequence[Sequence[float | None]],
    measure: str,
    run_ids: Sequence[str | None],
    *,
    k: float = OUTLIER_K,
    floor: float = OUTLIER_FLOOR,
) -> list[Outlier]:
    """Runs whose mean similarity is below ``median - max(k * MAD, floor)``."""
    means = mean_similarities(matrix)
    known = [m for m in means if m is not None]
    if len(known) < 3:
        return []
    median = statistics.median(known)
    mad = statistics.median(abs(m - median) for m in known)
    threshold = median - max(k * mad, floor)
    return [
        Outlier(i, run_ids[i], measure, m, threshold)
        for i, m in enumerate(means)
        if m is not None and m < threshold
    ]

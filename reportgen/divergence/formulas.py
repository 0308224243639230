"""The divergence formulas over arrays of pairs or runs, in one place: the pair metrics and
trajectory convergence both call these (the plain-Python reference in
:mod:`reportgen.divergence.reference` is the independent check the tests compare them with)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def tdi(lcs: npt.ArrayLike, total_steps: npt.ArrayLike) -> FloatArray:
    """Trajectory Divergence Index ``1 - 2*LCS / (|A| + |B|)``; two empty traces give 0.0."""
    total = np.asarray(total_steps, dtype=np.float64)
    common = np.asarray(lcs, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total == 0, 0.0, 1.0 - (2.0 * common) / np.where(total == 0, 1.0, total))


def wei(wasted_steps: npt.ArrayLike, steps: npt.ArrayLike) -> FloatArray:
    """Wasted Effort Index: error, retry and abandoned steps over all steps; 0.0 for no steps."""
    n = np.asarray(steps)
    wasted = np.asarray(wasted_steps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n == 0, 0.0, wasted / np.where(n == 0, 1, n))

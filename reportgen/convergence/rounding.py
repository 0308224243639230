"""Python's ``round(x, 3)`` for a whole numpy array at once, bit for bit.

CPython rounds the exact binary value of ``x`` half-to-even at the third decimal and returns
the double nearest to the decimal it chose. ``np.round`` scales by 1000 first (an inexact
product), so it disagrees on values near a half. Here the decision is exact integer arithmetic
on ``x * 2**64``, which is an integer for every double in ``[2**-11, 1)``; smaller values round
to 0.0 and 1.0 stays 1.0. Only ``[0, 1]`` is needed: every convergence number lives there.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["round3"]

_LOW32 = np.uint64(0xFFFFFFFF)
_HALF = np.uint64(1 << 63)
_TINY = 2.0**-11  # below this, x < 0.0005 and Python rounds to 0.0


def round3(values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``[round(v, 3) for v in values]`` as float64, for values in ``[0, 1]``."""
    x = np.asarray(values, dtype=np.float64)
    if x.size and (np.isnan(x).any() or x.min() < 0.0 or x.max() > 1.0):
        raise ValueError("round3 expects values in [0, 1]")
    mid = (x >= _TINY) & (x < 1.0)
    u = np.ldexp(np.where(mid, x, 0.0), 64 - 1).astype(np.uint64) << np.uint64(1)
    # 1000 * u = (1000 * hi) * 2**32 + 1000 * lo, each product below 2**42: no overflow.
    hi, lo = u >> np.uint64(32), u & _LOW32
    a, b = hi * np.uint64(1000), lo * np.uint64(1000)
    t = a + (b >> np.uint64(32))
    whole = t >> np.uint64(32)  # floor(1000 x)
    frac = ((t & _LOW32) << np.uint64(32)) | (b & _LOW32)  # (1000 x - whole) * 2**64
    up = (frac > _HALF) | ((frac == _HALF) & (whole & np.uint64(1)).astype(bool))
    k = (whole + up.astype(np.uint64)).astype(np.float64)
    return np.where(x >= 1.0, 1.0, np.where(mid, k / 1000.0, 0.0))

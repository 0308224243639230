"""pair_means reproduces the builtin sum: plain on CPython 3.11, Neumaier on 3.12+."""

from __future__ import annotations

import sys

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from reportgen.convergence.pysum import COMPENSATED, pair_means


def plain(values: list[float]) -> float:
    total = 0.0
    for x in values:
        total += x
    return total


def neumaier(values: list[float]) -> float:
    """CPython 3.12's float sum (checked against python3.12/3.13 ``sum`` by hand)."""
    total, comp = 0.0, 0.0
    for x in values:
        t = total + x
        comp += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
        total = t
    return total + comp if comp and comp == comp and abs(comp) != float("inf") else total


_JACCARDS = st.builds(lambda a, b: min(a, b) / max(a, b, 1), st.integers(0, 60), st.integers(1, 60))


@given(st.lists(st.lists(_JACCARDS, max_size=30), max_size=8))
def test_both_modes(groups: list[list[float]]) -> None:
    flat = np.array([v for g in groups for v in g], dtype=np.float64)
    offsets = np.cumsum([0] + [len(g) for g in groups])
    for compensated, summed in ((False, plain), (True, neumaier)):
        got = pair_means(flat, offsets, compensated=compensated).tolist()
        assert got == [summed(g) / len(g) if g else 1.0 for g in groups]


def test_modes_differ_and_default_follows_python() -> None:
    values = [0.1] * 10
    offsets = np.array([0, 10])
    arr = np.array(values)
    assert (
        pair_means(arr, offsets, compensated=False)[0]
        != pair_means(arr, offsets, compensated=True)[0]
    )
    assert (sys.version_info >= (3, 12)) == COMPENSATED
    assert pair_means(arr, offsets)[0] == sum(values) / len(values)

"""round3 is Python's round(x, 3), bit for bit, on [0, 1]."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen.convergence.rounding import round3

_HALVES = [k / 2000 for k in range(2001)]
_NEAR = [math.nextafter(x, d) for x in _HALVES for d in (0.0, 1.0)]


def test_halves_and_neighbours() -> None:
    values = [*_HALVES, *_NEAR, 0.0, 1.0, 2.0**-11, 2.0**-12, 0.0625, 0.0005, 0.9995]
    values = [v for v in values if 0.0 <= v <= 1.0]
    assert round3(values).tolist() == [round(v, 3) for v in values]


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=50))
def test_matches_python_round(values: list[float]) -> None:
    assert round3(values).tolist() == [round(v, 3) for v in values]


@given(st.integers(1, 200), st.integers(1, 200))
def test_ratios(a: int, b: int) -> None:
    x = min(a, b) / max(a, b)
    assert round3(np.array([x]))[0] == round(x, 3)


def test_out_of_range() -> None:
    with pytest.raises(ValueError):
        round3([1.5])
    with pytest.raises(ValueError):
        round3([float("nan")])

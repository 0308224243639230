"""Outlier runs: mean similarity below median - max(k * MAD, floor)."""

from __future__ import annotations

import statistics

from hypothesis import given
from hypothesis import strategies as st

from reportgen.convergence.outliers import find_outliers, mean_similarities


def sym(values: dict[tuple[int, int], float], n: int) -> list[list[float | None]]:
    m: list[list[float | None]] = [[1.0] * n for _ in range(n)]
    for (i, j), v in values.items():
        m[i][j] = m[j][i] = v
    return m


def test_one_odd_run_out() -> None:
    # runs 0-3 identical, run 4 shares little: means 0.8 (x4) and 0.2; median 0.8, MAD 0
    n = 5
    m = sym({(i, j): (0.2 if 4 in (i, j) else 1.0) for i in range(n) for j in range(i + 1, n)}, n)
    assert mean_similarities(m) == [0.8, 0.8, 0.8, 0.8, 0.2]
    (out,) = find_outliers(m, "output", ["a", "b", "c", "d", "e"])
    assert (out.index, out.run_id, out.measure) == (4, "e", "output")
    assert out.threshold == 0.8 - 0.05


def test_no_outliers_when_alike_or_small() -> None:
    assert find_outliers(sym({}, 4), "output", [None] * 4) == []
    assert find_outliers(sym({(0, 1): 0.0}, 2), "output", [None] * 2) == []
    # a rounding-level difference stays under the floor
    m = sym({(0, 1): 0.99, (0, 2): 0.99, (1, 2): 1.0}, 3)
    assert find_outliers(m, "output", [None] * 3) == []


def test_unknown_paths_are_skipped() -> None:
    m: list[list[float | None]] = [[1.0, 0.9, None], [0.9, 1.0, None], [None, None, None]]
    assert mean_similarities(m) == [0.9, 0.9, None]
    assert find_outliers(m, "trajectory", [None] * 3) == []


@given(st.lists(st.floats(0, 1), min_size=3, max_size=6), st.floats(0, 5))
def test_rule(row_means: list[float], k: float) -> None:
    # a matrix whose row means are arbitrary is hard to build; check the rule on the means
    n = len(row_means)
    m = sym(
        {(i, j): (row_means[i] + row_means[j]) / 2 for i in range(n) for j in range(i + 1, n)}, n
    )
    means = [v for v in mean_similarities(m) if v is not None]
    med = statistics.median(means)
    mad = statistics.median(abs(v - med) for v in means)
    expected = [i for i, v in enumerate(means) if v < med - max(k * mad, 0.05)]
    assert [o.index for o in find_outliers(m, "output", [None] * n, k=k)] == expected

"""Change-point detection on nightly series (asv-style penalised step fit)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.site.changepoints import (
    change_points,
    detect_segments,
    fit_segments,
    noise_sigma,
)


def test_a_clear_step_is_found_where_it_starts() -> None:
    [cp] = change_points([0.08, 0.09, 0.07, 0.2, 0.22, 0.19])
    assert cp.index == 3
    assert cp.before == pytest.approx(0.08)
    assert cp.after == pytest.approx(0.61 / 3)
    assert cp.relative == pytest.approx((0.61 / 3 - 0.08) / 0.08)


def test_flat_and_quantised_noise_give_nothing() -> None:
    assert change_points([1.0] * 10) == []
    assert change_points([0.08, 0.07, 0.09, 0.08, 0.07, 0.08]) == []


def test_a_step_on_the_last_night_counts() -> None:
    [cp] = change_points([5, 5, 5, 5, 5, 9])
    assert (cp.index, cp.before, cp.after) == (5, 5.0, 9.0)


def test_gaps_are_skipped_and_indexes_refer_to_the_series() -> None:
    [cp] = change_points([1.0, None, 1.0, 1.0, 3.0, None, 3.0])
    assert cp.index == 4


def test_small_relative_steps_are_merged_away() -> None:
    values = [100.0] * 10 + [102.0] * 10
    assert len(detect_segments(values, min_relative=0.0)) == 2
    assert change_points(values) == []


def test_two_steps() -> None:
    cps = change_points([1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4])
    assert [c.index for c in cps] == [4, 8]


def test_fit_without_penalty_splits_every_change() -> None:
    assert len(fit_segments([1.0, 2.0, 3.0], 0.0)) == 3
    assert fit_segments([], 1.0) == []


def test_short_series() -> None:
    assert change_points([]) == []
    assert change_points([1.0]) == []


def _rates(n: int, trials: int = 200) -> tuple[float, float]:
    rng = random.Random(n)
    false = sum(
        bool(change_points([rng.gauss(10, 1) for _ in range(n)], min_relative=0))
        for _ in range(trials)
    )
    found = 0
    for _ in range(trials):
        values = [rng.gauss(10, 1) for _ in range(n // 2)] + [
            rng.gauss(13, 1) for _ in range(n - n // 2)
        ]
        found += any(abs(c.index - n // 2) <= 1 for c in change_points(values, min_relative=0))
    return false / trials, found / trials


@pytest.mark.parametrize(("n", "max_false", "min_found"), [(10, 0.2, 0.85), (30, 0.1, 0.95)])
def test_noise_rarely_counts_and_real_steps_usually_do(
    n: int, max_false: float, min_found: float
) -> None:
    false, found = _rates(n)
    assert false <= max_false
    assert found >= min_found


def _fit_one_start_at_a_time(values: list[float], penalty: float) -> list[tuple[int, int]]:
    """The Potts fit by the textbook double loop (the reference the numpy fit must match)."""
    n = len(values)
    s1, s2 = [0.0], [0.0]
    for v in values:
        s1.append(s1[-1] + v)
        s2.append(s2[-1] + v * v)
    best, back = [0.0] + [math.inf] * n, [0] * (n + 1)
    for end in range(1, n + 1):
        for start in range(end):
            total = s1[end] - s1[start]
            sse = max(0.0, (s2[end] - s2[start]) - total * total / (end - start))
            if best[start] + sse + penalty < best[end]:
                best[end], back[end] = best[start] + sse + penalty, start
    bounds, end = [], n
    while end > 0:
        bounds.append((back[end], end))
        end = back[end]
    return bounds[::-1]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, 1.0, 2.0])), min_size=0, max_size=60
    ),
    st.sampled_from([0.0, 0.5, 3.0, 1e4]),
)
def test_fit_matches_the_double_loop(values: list[float], penalty: float) -> None:
    got = fit_segments(values, penalty)
    assert [(s.start, s.end) for s in got] == _fit_one_start_at_a_time(values, penalty)


def test_the_interval_is_scipy_stats_t() -> None:
    from scipy import stats

    from reportgen.site.changepoints import ALPHA

    series = [10.0, 10.2, 9.9, 10.1, 14.0, 14.2, 13.8, 14.1]
    (cp,) = change_points(series)
    sigma = noise_sigma(series)
    se = sigma * math.sqrt(1 / cp.n_before + 1 / cp.n_after)
    half = stats.t.ppf(1 - ALPHA / 2, len(series) - 2) * se
    assert (cp.low, cp.high) == (cp.after - cp.before - half, cp.after - cp.before + half)
    assert cp.p_value == 2 * stats.t.sf(abs(cp.after - cp.before) / se, len(series) - 2)

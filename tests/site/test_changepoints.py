"""Change-point detection on nightly series (asv-style penalised step fit)."""

from __future__ import annotations

import random

import pytest

from reportgen.site.changepoints import change_points, detect_segments, fit_segments


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

"""The statistical methods against hand-worked values, known references and a slow
resampling loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.statistics import methods


def test_paired_t_by_hand() -> None:
    # four tasks, differences 0.1, -0.2, 0.3, 0.0: mean 0.05, sd sqrt(0.13 / 3) = 0.20817,
    # se 0.10408, t(3, 0.975) = 3.18245 -> half width 0.33124; t = 0.48038 -> p = 0.6638
    est = methods.paired_t([0.1, -0.2, 0.3, 0.0])
    assert float(est.delta) == pytest.approx(0.05)
    assert float(est.low) == pytest.approx(0.05 - 0.33124, abs=1e-5)
    assert float(est.high) == pytest.approx(0.05 + 0.33124, abs=1e-5)
    assert float(est.p_value) == pytest.approx(0.6638, abs=1e-4)


def test_paired_t_edges() -> None:
    flat = methods.paired_t([0.0, 0.0, 0.0])
    assert (float(flat.low), float(flat.high), float(flat.p_value)) == (0.0, 0.0, 1.0)
    shifted = methods.paired_t([-0.5, -0.5])
    assert float(shifted.p_value) == 0.0
    one = methods.paired_t([0.3])
    assert float(one.delta) == 0.3 and math.isnan(float(one.low)) and math.isnan(float(one.p_value))
    above = methods.paired_t([0.3, 0.4, 0.5], popmean=0.1, alternative="greater")
    # t = (0.4 - 0.1) / (0.1 / sqrt 3) = 5.196, one-sided df 2: p = 0.01756
    assert float(above.p_value) == pytest.approx(0.01756, abs=1e-4)


def test_wilson_seven_of_sixteen() -> None:
    low, high = methods.wilson(7, 16)
    assert (round(low, 4), round(high, 4)) == (0.2310, 0.6682)


def test_scipy_special_gives_scipy_stats_numbers_bit_for_bit() -> None:
    # t and Wilson come from the special functions scipy.stats calls (so that a comparison
    # need not import scipy.stats): the same float64, to the last bit
    from scipy import stats

    for df in [1, 2, 3, 7, 30, 199, 1999, 10**6]:
        for q in [0.8, 0.95, 0.975, 0.9875, 1 - 0.05 / 14, 0.999]:
            assert methods.t_ppf(q, df) == stats.t.ppf(q, df)
        x = np.array([[0.0, -0.0, 0.3, -2.5, 40.0], [np.inf, -np.inf, np.nan, 1e300, -7.0]])
        np.testing.assert_array_equal(methods.t_sf(x, df), stats.t.sf(x, df))
        assert methods.t_sf(np.float64(1.7), df) == stats.t.sf(np.float64(1.7), df)
    for n in [1, 2, 5, 16, 99, 2000]:
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            for alpha in [0.05, 0.025, 0.05 / 7, 0.5]:
                ci = stats.binomtest(k, n).proportion_ci(1 - alpha, method="wilson")
                assert methods.wilson(k, n, alpha) == (float(ci.low), float(ci.high))
    for x_b, n_b, x_c, n_c in [(0, 5, 0, 3), (5, 5, 3, 3), (0, 50, 2, 50), (1, 2, 1, 3)]:
        table = [[x_c, n_c - x_c], [x_b, n_b - x_b]]
        assert methods.fisher_exact(x_b, n_b, x_c, n_c) == stats.fisher_exact(table).pvalue


def test_mcnemar_exact_on_a_two_by_two() -> None:
    # 6 pairs broken, 1 fixed: two-sided exact p = 2 * P(X <= 1 | 7, 1/2) = 2 * 8 / 128
    assert methods.mcnemar_exact(6, 1) == pytest.approx(0.125)
    assert methods.mcnemar_exact(0, 0) == 1.0
    assert methods.mcnemar_exact(10, 0) == pytest.approx(2 / 1024)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 3000))
def test_mcnemar_exact_is_scipys_binomtest(broken: int, fixed: int) -> None:
    from scipy import stats

    expected = 1.0 if broken + fixed == 0 else stats.binomtest(fixed, broken + fixed).pvalue
    # scipy.stats sums the tails with Boost's binomial, scipy.special with Cephes: equal to
    # about 1e-12 relative far out in the tails; below 1e-250 scipy.stats may give 0 where
    # Cephes still has digits (both are as good as 0 for a p-value)
    assert methods.mcnemar_exact(broken, fixed) == pytest.approx(expected, rel=1e-9, abs=1e-250)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 0.05, math.nan])),
        min_size=0,
        max_size=40,
    )
)
def test_benjamini_hochberg_is_scipys_false_discovery_control(p: list[float]) -> None:
    from scipy import stats

    got = methods.benjamini_hochberg(p)
    values = np.asarray(p, dtype=np.float64)
    known = ~np.isnan(values)
    assert np.isnan(got[~known]).all()
    if known.any():
        expected = stats.false_discovery_control(values[known], method="bh")
        np.testing.assert_array_equal(got[known], expected)


def test_newcombe_never_collapses() -> None:
    delta, low, high = methods.newcombe_paired(20, 0, 0, 0)
    assert delta == 0 and low < -0.1 and high > 0.1
    delta, low, high = methods.newcombe_paired(5, 6, 1, 4)
    assert delta == pytest.approx(-5 / 16) and low < delta < high and low >= -1 and high <= 1


def test_holm() -> None:
    adjusted = methods.holm([0.01, 0.04, 0.03, math.nan])
    assert adjusted[:3] == pytest.approx([0.03, 0.06, 0.06]) and math.isnan(adjusted[3])


def test_verdict_rules() -> None:
    est = methods.Interval(
        np.array([-0.2, 0.2, 0.01, 0.01, 0.01, 0.03]),
        np.array([-0.3, 0.1, -0.02, -0.2, math.nan, 0.01]),
        np.array([-0.1, 0.3, 0.03, 0.2, math.nan, 0.04]),
        np.array([0.001, 0.001, 0.5, 0.5, math.nan, 0.01]),
    )
    got = methods.verdicts(est, min_effect=0.05, worse_when="lower")
    assert list(got) == ["regression", "improvement", "no_change", "inconclusive",
                         "inconclusive", "improvement"]  # fmt: skip
    # read from the interval alone: excluding 0 wins over lying inside ± min_effect
    higher = methods.verdicts(est, min_effect=0.05, worse_when="higher")
    assert list(higher) == ["improvement", "regression", "no_change", "inconclusive",
                            "inconclusive", "regression"]  # fmt: skip


def test_family_alphas_and_bonferroni() -> None:
    families = ["primary", "primary", "secondary", "secondary", "secondary"]
    levels, sizes = methods.family_alphas(families, [True, True, True, False, True], 0.05)
    assert list(levels) == pytest.approx([0.025, 0.025, 0.025, 0.025, 0.025])
    assert list(sizes) == [2, 2, 2, 2, 2]
    levels, sizes = methods.family_alphas(families, [False, True, False, False, False], 0.05)
    assert list(levels) == pytest.approx([0.05] * 5) and list(sizes) == [1] * 5
    adjusted = methods.bonferroni([0.01, 0.3, math.nan], [2, 7, 7])
    assert adjusted[:2] == pytest.approx([0.02, 1.0]) and math.isnan(adjusted[2])


def _slow_bootstrap(
    b: np.ndarray, c: np.ndarray, resamples: int, seed: int
) -> tuple[float, float, float]:
    """The bootstrap written as a plain loop, one resample at a time, from the same stream."""
    rng = np.random.default_rng(seed)
    ratios = []
    for _ in range(resamples):
        row = rng.integers(0, b.size, size=b.size)
        sb = sum(b[i] for i in row)
        sc = sum(c[i] for i in row)
        if sb > 0:
            ratios.append((sc - sb) / sb)
    low, high = np.quantile(ratios, [0.025, 0.975])
    tail = min(sum(r <= 0 for r in ratios), sum(r >= 0 for r in ratios))
    return float(low), float(high), min(1.0, 2 * (tail + 1) / (len(ratios) + 1))


def test_bootstrap_draws_match_one_resample_at_a_time() -> None:
    one_draw = methods.bootstrap_indices(np.random.default_rng(7), 5, 4)
    rng = np.random.default_rng(7)
    assert (np.stack([rng.integers(0, 5, size=5) for _ in range(4)]) == one_draw).all()


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0.01, 100), st.floats(0, 100)), min_size=2, max_size=12),
    st.integers(0, 2**16),
)
def test_bootstrap_matches_a_direct_loop(rows: list[tuple[float, float]], seed: int) -> None:
    b = np.array([r[0] for r in rows])
    c = np.array([r[1] for r in rows])
    est = methods.total_change(b, c, resamples=200, seed=seed)
    low, high, p = _slow_bootstrap(b, c, 200, seed)
    assert float(est.delta) == pytest.approx((c.sum() - b.sum()) / b.sum())
    assert float(est.low) == pytest.approx(low, rel=1e-9, abs=1e-12)
    assert float(est.high) == pytest.approx(high, rel=1e-9, abs=1e-12)
    assert float(est.p_value) == pytest.approx(p)


def test_bootstrap_in_chunks_is_the_same_bootstrap(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    b, c = rng.uniform(1, 2, 30), rng.uniform(1, 2, 30)
    whole = methods.total_change(b, c, resamples=500, seed=11)
    monkeypatch.setattr(methods, "_CHUNK_CELLS", 7 * 30)  # seven resamples per draw
    chunked = methods.total_change(b, c, resamples=500, seed=11)
    assert (float(whole.low), float(whole.high)) == (float(chunked.low), float(chunked.high))

"""The statistical methods behind label-level verdicts, vectorised over leading axes.

Every array function takes its units (tasks) on the last axis and may carry any leading axes
(many comparisons at once: the simulation tests run 200 of them in one call). Distributions
come from :mod:`scipy.stats`; nothing here loops over tasks or resamples in Python."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import stats

FloatArray = npt.NDArray[np.float64]
Verdict = Literal["regression", "improvement", "no_change", "insufficient_data"]
_CHUNK_CELLS = 1 << 22  # task indices drawn at once by the bootstrap (32 MiB of int64)
VERDICTS: tuple[Verdict, ...] = ("regression", "improvement", "no_change", "insufficient_data")


@dataclass(frozen=True)
class Interval:
    """A point estimate with its confidence interval and p-value (arrays, one per comparison;
    NaN where they cannot be computed)."""

    delta: FloatArray
    low: FloatArray
    high: FloatArray
    p_value: FloatArray


def paired_t(
    diffs: npt.ArrayLike,
    alpha: float = 0.05,
    *,
    popmean: float = 0.0,
    alternative: Literal["two-sided", "greater"] = "two-sided",
) -> Interval:
    """The t interval and p-value of the mean of per-task differences (last axis).

    One difference per task (its trials averaged first) makes the task the unit: the standard
    error is the clustered one of Miller (2024), "Adding Error Bars to Evals". The interval is
    two-sided at ``1 - alpha``; the p-value tests the mean against ``popmean``. With no spread
    at all the interval is the point and the p-value 0 or 1 (the caller decides whether that
    is trustworthy); fewer than two tasks give NaN."""
    d = np.asarray(diffs, dtype=np.float64)
    n = d.shape[-1]
    with np.errstate(all="ignore"):
        mean = d.mean(axis=-1) if n else np.full(d.shape[:-1], np.nan)
    if n < 2:
        nan = np.full(mean.shape, np.nan)
        return Interval(mean, nan, nan, nan.copy())
    with np.errstate(all="ignore"):  # zero spread or overflowing values: NaN, no warning
        se = d.std(axis=-1, ddof=1) / math.sqrt(n)
        half = stats.t.ppf(1 - alpha / 2, n - 1) * se
        t = (mean - popmean) / se
    if alternative == "greater":
        p = stats.t.sf(t, n - 1)
        p = np.where(se == 0, np.where(mean > popmean, 0.0, 1.0), p)
    else:
        p = 2 * stats.t.sf(np.abs(t), n - 1)
        p = np.where(se == 0, np.where(mean == popmean, 1.0, 0.0), p)
    with np.errstate(all="ignore"):
        low, high = mean - half, mean + half
    return Interval(mean, low, high, np.asarray(p, dtype=np.float64))


def wilson(successes: int, trials: int, alpha: float = 0.05) -> tuple[float, float]:
    """The Wilson score interval of a pass rate (scipy's binomtest); (nan, nan) for none."""
    if trials == 0:
        return (math.nan, math.nan)
    ci = stats.binomtest(successes, trials).proportion_ci(1 - alpha, method="wilson")
    return (float(ci.low), float(ci.high))


def mcnemar_exact(broken: int, fixed: int) -> float:
    """Exact McNemar p-value (two-sided): the discordant pairs, ``broken`` (passed → failed)
    against ``fixed`` (failed → passed), as a binomial test at one half."""
    if broken + fixed == 0:
        return 1.0
    return float(stats.binomtest(fixed, broken + fixed, 0.5).pvalue)


def newcombe_paired(
    both: int, only_base: int, only_cand: int, neither: int, alpha: float = 0.05
) -> tuple[float, float, float]:
    """Candidate minus baseline pass rate of paired binary outcomes, with Newcombe's (1998,
    method 10) interval built from the two Wilson intervals and their correlation: it never
    collapses to a point when every pair agrees, unlike a Wald or t interval."""
    n = both + only_base + only_cand + neither
    if n == 0:
        return (math.nan, math.nan, math.nan)
    p_base, p_cand = (both + only_base) / n, (both + only_cand) / n
    lb, ub = wilson(both + only_base, n, alpha)
    lc, uc = wilson(both + only_cand, n, alpha)
    margins = (
        (both + only_base) * (only_cand + neither) * (both + only_cand) * (only_base + neither)
    )
    phi = (both * neither - only_base * only_cand) / math.sqrt(margins) if margins else 0.0
    delta = p_cand - p_base
    down = (p_cand - lc) ** 2 - 2 * phi * (p_cand - lc) * (ub - p_base) + (ub - p_base) ** 2
    up = (uc - p_cand) ** 2 - 2 * phi * (uc - p_cand) * (p_base - lb) + (p_base - lb) ** 2
    return (delta, delta - math.sqrt(max(down, 0.0)), delta + math.sqrt(max(up, 0.0)))


def bootstrap_indices(rng: np.random.Generator, n: int, resamples: int) -> npt.NDArray[np.int64]:
    """``resamples`` rows of ``n`` task indices drawn with replacement, in one draw."""
    return rng.integers(0, n, size=(resamples, n))


def total_change(
    baseline: npt.ArrayLike,
    candidate: npt.ArrayLike,
    alpha: float = 0.05,
    *,
    resamples: int = 2000,
    seed: int = 0,
) -> Interval:
    """Relative change of totals over paired tasks, ``(Σc - Σb) / Σb``, with a seeded paired
    percentile bootstrap over tasks (both sides of a task resampled together). The p-value is
    the two-sided bootstrap one, ``2 · min(P*(r ≤ 0), P*(r ≥ 0))`` with the +1 correction;
    resamples whose baseline total is 0 are dropped. Fewer than two tasks give NaN."""
    b = np.asarray(baseline, dtype=np.float64)
    c = np.asarray(candidate, dtype=np.float64)
    n = b.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):  # huge totals: no number, not a warning
        sb, sc = b.sum(), c.sum()
        point = (sc - sb) / sb if sb > 0 else math.nan
    if n < 2 or not sb > 0:
        return Interval(np.array(point), np.array(math.nan), np.array(math.nan), np.array(math.nan))
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_CELLS // n)  # resamples per draw: memory stays bounded for any n
    rb = np.empty(resamples)
    rc = np.empty(resamples)
    with np.errstate(all="ignore"):
        for start in range(0, resamples, rows):  # a loop over chunks, not over resamples
            idx = bootstrap_indices(rng, n, min(rows, resamples - start))
            rb[start : start + idx.shape[0]] = b[idx].sum(axis=1)
            rc[start : start + idx.shape[0]] = c[idx].sum(axis=1)
        ratios = (rc - rb) / rb
    ratios = ratios[(rb > 0) & np.isfinite(ratios)]
    if not ratios.size or not math.isfinite(point):
        return Interval(np.array(point), np.array(math.nan), np.array(math.nan), np.array(math.nan))
    low, high = np.quantile(ratios, [alpha / 2, 1 - alpha / 2])
    k = ratios.size
    tail = min(np.count_nonzero(ratios <= 0), np.count_nonzero(ratios >= 0))
    p = min(1.0, 2 * (tail + 1) / (k + 1))
    return Interval(np.array(point), np.array(low), np.array(high), np.array(p))


def holm(p_values: npt.ArrayLike) -> FloatArray:
    """Holm's step-down adjustment of a family of p-values (NaN entries are not part of the
    family and stay NaN): controls the chance of any false regression across the metrics."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    known = np.flatnonzero(~np.isnan(p))
    m = known.size
    if m == 0:
        return out
    order = known[np.argsort(p[known], kind="stable")]
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(stepped, 1.0)
    return out


def verdicts(
    estimate: Interval,
    p_adjusted: npt.ArrayLike,
    *,
    alpha: float,
    min_effect: float,
    worse_when: Literal["higher", "lower"],
) -> npt.NDArray[np.str_]:
    """One verdict per comparison. ``regression`` / ``improvement``: significant at
    ``alpha`` (after adjustment) in the worse / better direction; ``no_change``: the interval
    lies inside ± ``min_effect``; else ``insufficient_data``."""
    p = np.asarray(p_adjusted, dtype=np.float64)
    sign = 1.0 if worse_when == "higher" else -1.0
    worse = sign * estimate.delta
    significant = p < alpha  # NaN compares False
    inside = (estimate.high <= min_effect) & (estimate.low >= -min_effect)
    regression = significant & (worse > 0)
    improvement = significant & (worse < 0)
    return np.select(
        [regression, improvement, inside],
        ["regression", "improvement", "no_change"],
        default="insufficient_data",
    )

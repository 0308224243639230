"""The statistical methods behind label-level verdicts, vectorised over leading axes.

Every array function takes its units (tasks) on the last axis and may carry any leading axes
(many comparisons at once: the simulation tests run 200 of them in one call). Distributions
come from :mod:`scipy.special` (Student's t, the normal quantile: the functions scipy.stats's
``t`` and ``binomtest(...).proportion_ci(method="wilson")`` compute with, called directly) and,
for the exact tests, from :mod:`scipy.stats`, imported only when a test has data to judge:
importing scipy.stats costs a process about half a second. Nothing here loops over tasks or
resamples in Python."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Verdict = Literal["regression", "improvement", "no_change", "inconclusive"]
_CHUNK_CELLS = 1 << 16  # task draws per chunk of the bootstrap (512 KiB of int64: in cache)
VERDICTS: tuple[Verdict, ...] = ("regression", "improvement", "no_change", "inconclusive")


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
        half = t_ppf(1 - alpha / 2, n - 1) * se
        t = (mean - popmean) / se
    if alternative == "greater":
        p = t_sf(t, n - 1)
        p = np.where(se == 0, np.where(mean > popmean, 0.0, 1.0), p)
    else:
        p = 2 * t_sf(np.abs(t), n - 1)
        p = np.where(se == 0, np.where(mean == popmean, 1.0, 0.0), p)
    with np.errstate(all="ignore"):
        low, high = mean - half, mean + half
    return Interval(mean, low, high, np.asarray(p, dtype=np.float64))


def _stats() -> Any:
    """:mod:`scipy.stats`, imported on first use (about half a second)."""
    from scipy import stats

    return stats


def t_ppf(q: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Student's t quantile, ``scipy.stats.t.ppf(q, df)`` for ``0 < q < 1`` and ``df > 0``
    (the special function it calls, without importing scipy.stats)."""
    from scipy.special import stdtrit

    return stdtrit(df, q)


def t_sf(x: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Student's t survival function, ``scipy.stats.t.sf(x, df)`` for ``df > 0`` (the special
    function it calls, without importing scipy.stats)."""
    from scipy.special import stdtr

    return stdtr(df, np.negative(x))


def wilson(successes: int, trials: int, alpha: float = 0.05) -> tuple[float, float]:
    """The Wilson score interval of a pass rate (no continuity correction); (nan, nan) for
    none. scipy's ``binomtest(successes, trials).proportion_ci(1 - alpha, method="wilson")``,
    operation for operation, without importing scipy.stats."""
    if trials == 0:
        return (math.nan, math.nan)
    from scipy.special import ndtri

    k, n, confidence_level = successes, trials, 1 - alpha
    p = k / n
    z = ndtri(0.5 + 0.5 * confidence_level)
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    q = 1 - p
    delta = z / denom * math.sqrt(4 * n * p * q + z**2)
    low = 0.0 if k == 0 else center - delta
    high = 1.0 if k == n else center + delta
    return (float(low), float(high))


def mcnemar_exact(broken: int, fixed: int) -> float:
    """Exact McNemar p-value (two-sided): the discordant pairs, ``broken`` (passed → failed)
    against ``fixed`` (failed → passed), as a binomial test at one half. scipy's
    ``binomtest(fixed, broken + fixed, 0.5).pvalue``, operation for operation, without
    importing scipy.stats: at one half the binomial is symmetric, so the outcomes as unlikely
    as ``fixed`` are the two tails past ``m = min(fixed, broken)``, P(X <= m) + P(X >= n - m)
    (Cephes' binomial where scipy.stats calls Boost's: equal to about 1e-12 relative)."""
    n = broken + fixed
    if n == 0 or 2 * fixed == n:
        return 1.0
    from scipy.special import bdtr, bdtrc

    m = min(fixed, broken)
    return float(min(1.0, bdtr(m, n, 0.5) + bdtrc(n - m - 1, n, 0.5)))


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


def newcombe_unpaired(
    x_base: int, n_base: int, x_cand: int, n_cand: int, alpha: float = 0.05
) -> tuple[float, float, float]:
    """Candidate minus baseline proportion of two independent samples (``x`` of ``n`` each),
    with Newcombe's (1998, method 10) hybrid score interval from the two Wilson intervals at
    ``1 - alpha``; NaN when a side has no run."""
    if n_base == 0 or n_cand == 0:
        return (math.nan, math.nan, math.nan)
    p_base, p_cand = x_base / n_base, x_cand / n_cand
    lb, ub = wilson(x_base, n_base, alpha)
    lc, uc = wilson(x_cand, n_cand, alpha)
    delta = p_cand - p_base
    down = math.sqrt((p_cand - lc) ** 2 + (ub - p_base) ** 2)
    up = math.sqrt((uc - p_cand) ** 2 + (p_base - lb) ** 2)
    return (delta, delta - down, delta + up)


def fisher_exact(x_base: int, n_base: int, x_cand: int, n_cand: int) -> float:
    """Fisher's exact test (two-sided) that two independent proportions are equal."""
    if n_base == 0 or n_cand == 0:
        return math.nan
    if x_base + x_cand == 0 or x_base + x_cand == n_base + n_cand:
        return 1.0  # a column of zeros: scipy's answer too (only one table has these margins)
    table = [[x_cand, n_cand - x_cand], [x_base, n_base - x_base]]
    return float(_stats().fisher_exact(table).pvalue)


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
    found = total_changes(b[None, :], c[None, :], alpha, resamples=resamples, seed=seed)
    return Interval(
        found.delta[0, ...], found.low[0, ...], found.high[0, ...], found.p_value[0, ...]
    )


def bootstrap_counts(
    rng: np.random.Generator, n: int, resamples: int
) -> Iterator[npt.NDArray[np.float64]]:
    """The bootstrap's draws as weights: chunks of rows, one row per resample, holding how
    often each of the ``n`` tasks was drawn (the same draws as :func:`bootstrap_indices`,
    chunk by chunk, so memory stays bounded for any ``n``). A resample's total is then one
    matrix product, for every metric at once."""
    rows = max(1, _CHUNK_CELLS // n)
    for start in range(0, resamples, rows):  # a loop over chunks, not over resamples
        idx = bootstrap_indices(rng, n, min(rows, resamples - start))
        k = idx.shape[0]
        flat = (idx + (np.arange(k, dtype=np.int64) * n)[:, None]).ravel()
        yield np.bincount(flat, minlength=k * n).reshape(k, n).astype(np.float64)


def total_changes(
    baseline: npt.ArrayLike,
    candidate: npt.ArrayLike,
    alpha: float = 0.05,
    *,
    resamples: int = 2000,
    seed: int = 0,
) -> Interval:
    """:func:`total_change` of several metrics over the same tasks at once (rows of
    ``baseline`` and ``candidate``, tasks on the last axis), from one set of draws: with the
    same seed each row gets exactly the interval it would get alone."""
    b = np.atleast_2d(np.asarray(baseline, dtype=np.float64))
    c = np.atleast_2d(np.asarray(candidate, dtype=np.float64))
    m, n = b.shape
    nan = np.full(m, np.nan)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        sb, sc = b.sum(axis=-1), c.sum(axis=-1)
        point = np.where(sb > 0, (sc - sb) / np.where(sb > 0, sb, 1.0), np.nan)
    if n < 2 or not (sb > 0).any():
        return Interval(point, nan, nan.copy(), nan.copy())
    both = np.concatenate([b, c]).T  # (n, 2m): one matrix product gives every total
    totals = np.empty((resamples, 2 * m))
    done = 0
    with np.errstate(all="ignore"):
        for counts in bootstrap_counts(np.random.default_rng(seed), n, resamples):
            totals[done : done + counts.shape[0]] = counts @ both
            done += counts.shape[0]
        rb, rc = totals[:, :m], totals[:, m:]
        ratios = (rc - rb) / rb
    usable = (rb > 0) & np.isfinite(ratios) & np.isfinite(point)
    k = usable.sum(axis=0)
    masked = np.where(usable, ratios, np.nan)
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    some = k > 0
    if some.any():
        q = np.nanquantile(masked[:, some], [alpha / 2, 1 - alpha / 2], axis=0)
        low[some], high[some] = q[0], q[1]
    tail = np.minimum((usable & (ratios <= 0)).sum(axis=0), (usable & (ratios >= 0)).sum(axis=0))
    p = np.where(some, np.minimum(1.0, 2 * (tail + 1) / (k + 1)), np.nan)
    return Interval(point, low, high, p)


def variance_shares(
    diffs: npt.ArrayLike, groups: npt.ArrayLike
) -> tuple[float | None, float | None]:
    """How the spread of per-trial differences splits between tasks and between the trials of
    a task: the one-way random-effects decomposition by the method of moments (unbalanced
    groups, between-task variance floored at 0). Returns the shares (between tasks, between
    trials), or (None, None) when it cannot be told apart (no task run twice, one task, no
    spread). Many tasks with a large between-task share: more tasks narrow the interval;
    a large between-trial share: more trials per task help too."""
    d = np.asarray(diffs, dtype=np.float64)
    g = np.asarray(groups, dtype=np.int64)
    if d.size == 0:
        return (None, None)
    _, g = np.unique(g, return_inverse=True)
    k = np.bincount(g).astype(np.float64)
    t, total = k.size, d.size
    if t < 2 or total <= t:
        return (None, None)
    means = np.bincount(g, weights=d) / k
    within = float(((d - means[g]) ** 2).sum()) / (total - t)
    grand = d.mean()
    between_ms = float((k * (means - grand) ** 2).sum()) / (t - 1)
    k0 = (total - float((k * k).sum()) / total) / (t - 1)
    between = max(0.0, (between_ms - within) / k0)
    if not math.isfinite(between + within) or between + within <= 0:
        return (None, None)
    share = between / (between + within)
    return (share, 1.0 - share)


def min_detectable_effect(half_width: float, n: int, alpha: float, power: float = 0.8) -> float:
    """The smallest true change that this sample would call significant with probability
    ``power``: the interval's half-width scaled by ``(t(1 - alpha/2) + t(power)) / t(1 - alpha/2)`` (with
    ``n - 1`` degrees of freedom; for a paired t this is the textbook formula). NaN when there
    is no interval."""
    if n < 2 or not math.isfinite(half_width):
        return math.nan
    q = float(t_ppf(1 - alpha / 2, n - 1))
    return half_width * (q + float(t_ppf(power, n - 1))) / q


def holm(p_values: npt.ArrayLike) -> FloatArray:
    """Holm's step-down adjustment of a family of p-values (NaN entries are not part of the
    family and stay NaN): controls the chance of any false rejection across the family. The
    label-level verdicts do not use it: a step-down procedure has no interval that agrees
    with it, so they read Bonferroni-level intervals instead (:func:`family_alphas`)."""
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


def benjamini_hochberg(p_values: npt.ArrayLike) -> FloatArray:
    """Benjamini-Hochberg q-values of a family of p-values (``scipy.stats``'s
    false_discovery_control; NaN entries are not part of the family and stay NaN): for the
    flags of a dashboard, where many series are scanned at once and a few false flags among
    many true ones are tolerable, unlike a gate (family-wise error, :func:`family_alphas`)."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    known = ~np.isnan(p)
    if known.any():
        out[known] = _step_up(p[known])
    return out


def _step_up(p: FloatArray) -> FloatArray:
    """scipy's ``false_discovery_control(p, method="bh")`` of a 1-D array, operation for
    operation, without importing scipy.stats (about half a second a process): each sorted
    p-value times m over its rank, then the running minimum from the largest down."""
    if not np.all((p >= 0.0) & (p <= 1.0)):
        raise ValueError("`ps` must include only numbers between 0 and 1.")
    m = p.size
    if m <= 1:
        return p.copy()
    order = np.argsort(p)
    adjusted = p[order] * (m / np.arange(1, m + 1, dtype=np.float64))
    np.minimum.accumulate(adjusted[::-1], out=adjusted[::-1])
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return np.clip(out, 0.0, 1.0)


def family_alphas(
    families: npt.ArrayLike, present: npt.ArrayLike, alpha: float
) -> tuple[FloatArray, FloatArray]:
    """Bonferroni within each family: every metric is judged at ``alpha / m``, with ``m`` the
    metrics of its family that have data (``present``; a metric without data costs the
    others nothing). Returns each metric's level and its family's ``m`` (at least 1), so
    that each family's chance of any false verdict stays at or below ``alpha``."""
    fam = np.asarray(families)
    has = np.asarray(present, dtype=bool)
    if fam.size == 0:
        return np.zeros(0), np.zeros(0)
    _, group = np.unique(fam, return_inverse=True)
    m = np.maximum(np.bincount(group.ravel(), weights=has.astype(np.float64))[group.ravel()], 1.0)
    return alpha / m, m


def bonferroni(p_values: npt.ArrayLike, m: npt.ArrayLike) -> FloatArray:
    """Bonferroni-adjusted p-values, ``min(1, m · p)`` (NaN stays NaN): below alpha exactly
    when the raw p-value is below ``alpha / m``."""
    p = np.asarray(p_values, dtype=np.float64)
    return np.minimum(p * np.asarray(m, dtype=np.float64), 1.0)


def verdicts(
    estimate: Interval,
    *,
    min_effect: float,
    worse_when: Literal["higher", "lower"],
) -> npt.NDArray[np.str_]:
    """One verdict per comparison, read from its interval alone (so the verdict always
    agrees with the interval printed beside it, at the interval's level):
    ``regression`` / ``improvement``: the interval excludes 0 on the worse / better side;
    ``no_change``: the interval lies inside ± ``min_effect``; else ``inconclusive`` (also
    where there is no interval)."""
    sign = 1.0 if worse_when == "higher" else -1.0
    low, high = estimate.low, estimate.high
    worse_low = np.where(sign > 0, low, -high)  # the interval of the change for the worse
    worse_high = np.where(sign > 0, high, -low)
    regression = worse_low > 0  # NaN compares False
    improvement = worse_high < 0
    inside = (high <= min_effect) & (low >= -min_effect)
    return np.select(
        [regression, improvement, inside],
        ["regression", "improvement", "no_change"],
        default="inconclusive",
    )


def pass_k(passes: npt.ArrayLike, trials: npt.ArrayLike, k: int) -> tuple[FloatArray, FloatArray]:
    """Per task, pass@k = 1 - C(n - c, k) / C(n, k) and pass^k = C(c, k) / C(n, k)
    (tau-bench's definition: k of the task's n runs drawn without replacement, at least one /
    all passing), vectorised over tasks with scipy's exact-in-float binomials."""
    from scipy.special import comb

    c = np.asarray(passes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(all="ignore"):
        total = comb(n, k)
        return 1.0 - comb(n - c, k) / total, comb(c, k) / total

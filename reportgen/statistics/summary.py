"""Label-level statistics of a comparison: one object per metric of
:data:`reportgen.gating.metrics.LABEL_METRICS` (estimate, interval, p-value, verdict), the
per-task outcome classes, and the label-level gates (``--max-success-drop``, ...).

The task is the unit: a task's trials are averaged on each side first, then the per-task
differences are tested. The metrics fall in three families, the outcomes (primary), the
path, cost and effort metrics (secondary) and the error rate (infrastructure); each metric's
interval is computed at its family's Bonferroni level and its verdict is read from that
interval (docs/statistics.md). A pair with a run the infrastructure ended (``*_error_kind``)
is scored by no metric but the error rate, which counts the runs themselves."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from reportgen._gc import collector_paused
from reportgen.divergence.compare import Comparison
from reportgen.divergence.records import LabelStatistics, PairRecord
from reportgen.errors import UsageError
from reportgen.gating.metrics import LABEL_METRICS, LabelMetric, errored, label_metric_for_gate
from reportgen.gating.thresholds import Threshold
from reportgen.gating.verdict import breaks, violation
from reportgen.statistics import methods
from reportgen.statistics.methods import FloatArray, Interval

ALPHA = 0.05
RESAMPLES = 2000
SEED = 0
TASK_CLASSES = ("newly_broken", "fixed", "flaky", "still_failing", "still_passing", "unknown")


def _number(value: Any) -> float | None:
    """A JSON number, or None where there is none (NaN, or an overflow to infinity)."""
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Grouping:
    """The pairs' tasks: ``tasks`` sorted, ``index`` the task of each pair (by position)."""

    tasks: list[str]
    index: npt.NDArray[np.int64]

    @classmethod
    def of(cls, pairs: Sequence[PairRecord], keys: Mapping[str, str]) -> Grouping:
        names = [keys.get(p["pair_id"], p["task_id"]) for p in pairs]
        if not names:
            return cls([], np.zeros(0, dtype=np.int64))
        tasks, index = np.unique(np.array(names, dtype=str), return_inverse=True)
        return cls([str(t) for t in tasks], index.astype(np.int64).ravel())


def _column(pairs: Sequence[PairRecord], read: Callable[[Any], float | None] | None) -> FloatArray:
    """One side's value of every pair (NaN: unknown); the only pass over the records."""
    if read is None:
        return np.zeros(len(pairs))
    values = [read(p) for p in pairs]
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)


@dataclass(frozen=True)
class Sides:
    """One metric over the tasks where it is known: per task (``tasks``, indexes into the
    grouping) the mean of each side over its pairs, and the pairs used (``pair_task``,
    ``pair_base``, ``pair_cand``: the task and both values of each)."""

    tasks: npt.NDArray[np.int64]
    base: FloatArray
    cand: FloatArray
    pair_task: npt.NDArray[np.int64]
    pair_base: FloatArray
    pair_cand: FloatArray

    @property
    def used(self) -> int:
        return int(self.pair_task.size)


def errored_pairs(pairs: Sequence[PairRecord]) -> npt.NDArray[np.bool_]:
    """Which pairs have a run the infrastructure ended (not scored)."""
    return np.array([errored(p) for p in pairs], dtype=bool)


def task_sides(
    pairs: Sequence[PairRecord],
    grouping: Grouping,
    metric: LabelMetric,
    floors: Mapping[str, float] | None = None,
    skip: npt.NDArray[np.bool_] | None = None,
) -> Sides:
    """Per task: the mean over its pairs of each side's value, for the pairs where both
    sides are known and no run errored (``skip``, default :func:`errored_pairs`; a ``runs``
    metric, the error rate, keeps them all), grouped with ``bincount``, never a Python loop
    per task. For a ``floor`` metric the baseline side is the task's noise floor
    (``floors``) and tasks without one are left out."""
    b = _column(pairs, metric.baseline)
    c = _column(pairs, metric.candidate)
    valid = np.isfinite(b) & np.isfinite(c)
    if metric.kind != "runs":
        valid &= ~(errored_pairs(pairs) if skip is None else skip)
    index = grouping.index[valid]
    b, c = b[valid], c[valid]
    n_tasks = len(grouping.tasks)
    if metric.kind == "floor":
        known = np.array([(floors or {}).get(t, math.nan) for t in grouping.tasks], dtype=float)
        keep = np.isfinite(known[index]) if index.size else np.zeros(0, dtype=bool)
        index, c = index[keep], c[keep]
        b = known[index]
    count = np.bincount(index, minlength=n_tasks)
    present = np.flatnonzero(count)
    with np.errstate(over="ignore", invalid="ignore"):
        base = np.bincount(index, weights=b, minlength=n_tasks)[present] / count[present]
        cand = np.bincount(index, weights=c, minlength=n_tasks)[present] / count[present]
    return Sides(present, base, cand, index, b, c)


def shows_change(metric: LabelMetric, sides: Sides) -> bool:
    """Whether the metric has data to judge: some paired task, and a change that can be
    computed (a total needs a baseline total above 0). Only these count in their family's
    Bonferroni correction: a metric without data costs the others no power."""
    if not sides.tasks.size:
        return False
    with np.errstate(all="ignore"):
        if metric.kind == "total":
            base, cand = sides.base.sum(), sides.cand.sum()
            return bool(np.isfinite(base) and np.isfinite(cand) and base > 0)
        return bool(np.isfinite((sides.cand - sides.base).mean()))


def _rate(sides: Sides, alpha: float, nominal: float) -> tuple[Interval, str, dict[str, Any]]:
    """A pass rate: exact McNemar with Newcombe's interval when every task has one trial a
    side; else the paired t over per-task rates (pooled McNemar/Newcombe when the per-task
    differences have no spread at all); the interval of the change at ``1 - alpha``. Each
    side's pooled rate gets its Wilson interval, and pass^k's change its interval, at the
    ``nominal`` level (they describe, they carry no verdict)."""
    pb, pc = sides.pair_base == 1.0, sides.pair_cand == 1.0
    both, only_b = int(np.sum(pb & pc)), int(np.sum(pb & ~pc))
    only_c, neither = int(np.sum(~pb & pc)), int(np.sum(~pb & ~pc))
    used, n_tasks = sides.used, sides.tasks.size
    extra = {  # each side's rate over all its trials (each task weighs by its trials)
        "baseline_trial_rate": (both + only_b) / used if used else None,
        "candidate_trial_rate": (both + only_c) / used if used else None,
        "baseline_ci": [_number(x) for x in methods.wilson(both + only_b, used, nominal)],
        "candidate_ci": [_number(x) for x in methods.wilson(both + only_c, used, nominal)],
    }
    extra.update(_pass_k(sides, nominal))
    diffs = sides.cand - sides.base
    single = used == n_tasks
    if single or (n_tasks >= 2 and np.ptp(diffs) == 0):
        delta, low, high = methods.newcombe_paired(both, only_b, only_c, neither, alpha)
        p = methods.mcnemar_exact(only_b, only_c)
        name = "mcnemar_exact+newcombe" + ("" if single else "_pooled_trials")
        return Interval(np.array(delta), np.array(low), np.array(high), np.array(p)), name, extra
    return methods.paired_t(diffs, alpha), "paired_t_over_tasks", extra


def _run_share(sides: Sides, alpha: float, nominal: float) -> tuple[Interval, str, dict[str, Any]]:
    """A share of runs (the error rate): each side's runs pooled (a 0/1 value each), its
    Wilson interval at the ``nominal`` level; the change by Newcombe's interval for two
    independent proportions at ``1 - alpha`` and Fisher's exact test. Infrastructure errors
    strike runs, not tasks: the runs, not the tasks, are the unit."""
    n_b = n_c = sides.used
    x_b, x_c = int(np.sum(sides.pair_base == 1.0)), int(np.sum(sides.pair_cand == 1.0))
    delta, low, high = methods.newcombe_unpaired(x_b, n_b, x_c, n_c, alpha)
    p = methods.fisher_exact(x_b, n_b, x_c, n_c)
    extra = {
        "baseline": x_b / n_b if n_b else None,
        "candidate": x_c / n_c if n_c else None,
        "baseline_errored": x_b,
        "candidate_errored": x_c,
        "baseline_ci": [_number(x) for x in methods.wilson(x_b, n_b, nominal)],
        "candidate_ci": [_number(x) for x in methods.wilson(x_c, n_c, nominal)],
        "variance_share_tasks": None,
        "variance_share_trials": None,
    }
    estimate = Interval(np.array(delta), np.array(low), np.array(high), np.array(p))
    return estimate, "newcombe_unpaired+fisher_exact(runs)", extra


def _pass_k(sides: Sides, alpha: float) -> dict[str, Any]:
    """pass@k and pass^k over the suite (the mean over tasks of each task's value), with k
    the fewest trials any task has on both sides, and the paired t interval of the pass^k
    change; nothing when some task ran once (k = 1 is the success rate itself)."""
    if not sides.tasks.size:
        return {}
    n = np.bincount(sides.pair_task, minlength=int(sides.tasks.max()) + 1)[sides.tasks]
    k = int(n.min())
    if k < 2:
        return {}
    size = int(sides.tasks.max()) + 1
    out: dict[str, Any] = {"k": k}
    hats = []
    for side, values in (("baseline", sides.pair_base), ("candidate", sides.pair_cand)):
        passes = np.bincount(sides.pair_task, weights=values == 1.0, minlength=size)[sides.tasks]
        at, hat = methods.pass_k(passes, n, k)
        out[f"{side}_pass_at_k"] = _number(at.mean())
        out[f"{side}_pass_hat_k"] = _number(hat.mean())
        hats.append(hat)
    change = methods.paired_t(hats[1] - hats[0], alpha)
    out["pass_hat_k_delta"] = _number(change.delta)
    out["pass_hat_k_ci"] = [_number(change.low), _number(change.high)]
    return out


def _entry(
    metric: LabelMetric, sides: Sides, estimate: Interval, method: str, alpha: float
) -> dict[str, Any]:
    """One metric's object of ``summary.metrics`` with its interval at ``1 - alpha``, before
    the family step (``p_value`` is still the raw one; :func:`label_statistics` adjusts it
    and gives the verdict)."""
    n = int(sides.tasks.size)
    baseline: float | None = None
    candidate: float | None = None
    if metric.kind == "total":
        baseline, candidate = _number(sides.base.sum()), _number(sides.cand.sum())
    elif n:
        baseline, candidate = _number(sides.base.mean()), _number(sides.cand.mean())
    delta = _number(estimate.delta) if n else None
    low, high = _number(estimate.low), _number(estimate.high)
    half = math.nan if low is None or high is None or delta is None else (high - low) / 2
    between, within = methods.variance_shares(sides.pair_cand - sides.pair_base, sides.pair_task)
    return {
        "metric": metric.name,
        "baseline": baseline,
        "candidate": candidate,
        "delta": delta,
        "ci_low": low,
        "ci_high": high,
        "ci_level": 1.0 - alpha,
        "family": metric.family,
        "p_value": _number(estimate.p_value),
        "verdict": "inconclusive",
        "n_tasks": n,
        "n_trials_baseline": 2 * n if metric.kind == "floor" else sides.used,
        "n_trials_candidate": sides.used,
        "method": method,
        "min_effect": metric.min_effect,
        "min_detectable_effect": _number(methods.min_detectable_effect(half, n, alpha)),
        "variance_share_tasks": between,
        "variance_share_trials": within,
    }


def metric_statistics(
    pairs: Sequence[PairRecord],
    keys: Mapping[str, str],
    metric: LabelMetric,
    floors: Mapping[str, float] | None = None,
    *,
    alpha: float = ALPHA,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> dict[str, Any]:
    """One metric's object of ``summary.metrics`` on its own (raw p-value, interval at
    ``1 - alpha``, no verdict yet); ``floors``: each task's baseline-vs-baseline TDI
    (``Comparison.repeat_tdi``)."""
    sides = [task_sides(pairs, Grouping.of(pairs, keys), metric, floors)]
    return _all_entries((metric,), sides, [alpha], alpha, resamples=resamples, seed=seed)[0]


def _all_entries(
    metrics: Sequence[LabelMetric],
    sides: Sequence[Sides],
    levels: Sequence[float],
    nominal: float,
    *,
    resamples: int,
    seed: int,
) -> list[dict[str, Any]]:
    """Every metric's entry, its interval at ``1 - levels[i]`` (descriptive intervals at
    ``1 - nominal``); the totals that share their tasks and level share one bootstrap (the
    same seed gives each exactly the draws it would get alone)."""
    estimates: dict[int, tuple[Interval, str, dict[str, Any]]] = {}
    totals: dict[tuple[bytes, float], list[int]] = defaultdict(list)
    for i, (metric, side, alpha) in enumerate(zip(metrics, sides, levels, strict=True)):
        if metric.kind == "rate":
            estimates[i] = _rate(side, alpha, nominal)
        elif metric.kind == "runs":
            estimates[i] = _run_share(side, alpha, nominal)
        elif metric.kind == "total":
            totals[(side.tasks.tobytes(), alpha)].append(i)
        elif metric.kind == "floor":
            estimate = methods.paired_t(side.cand - side.base, alpha)
            estimates[i] = (estimate, "paired_t_over_tasks(vs baseline repeat)", {})
        else:
            estimates[i] = (
                methods.paired_t(side.cand - side.base, alpha),
                "paired_t_over_tasks",
                {},
            )
    method = f"total_change+paired_bootstrap({resamples}, seed {seed})"
    for (_, alpha), group in totals.items():
        found = methods.total_changes(
            np.stack([sides[i].base for i in group]),
            np.stack([sides[i].cand for i in group]),
            alpha,
            resamples=resamples,
            seed=seed,
        )
        for row, i in enumerate(group):
            one = Interval(*(np.asarray(a[row, ...]) for a in
                             (found.delta, found.low, found.high, found.p_value)))  # fmt: skip
            estimates[i] = (one, method, {})
    out = []
    for i, (metric, side, alpha) in enumerate(zip(metrics, sides, levels, strict=True)):
        estimate, name, extra = estimates[i]
        out.append({**_entry(metric, side, estimate, name, alpha), **extra})
    return out


def min_effects(
    thresholds: Sequence[Threshold] = (), overrides: Mapping[str, float] | None = None
) -> dict[str, tuple[float, str]]:
    """Each label-level metric's minimum effect of interest and where it came from: an
    override (``--min-effect METRIC=X``, in the delta's unit) over the metric's gate
    threshold when one is set (``--max-success-drop 10`` is 0.10 of success rate) over the
    registry's default."""
    gates = {t.gate: t for t in thresholds}
    out: dict[str, tuple[float, str]] = {}
    for metric in LABEL_METRICS:
        value, source = metric.min_effect, "default"
        threshold = gates.get(metric.gate.name) if metric.gate is not None else None
        if threshold is not None and threshold.value > 0 and metric.gate_reads == "drop":
            value, source = threshold.value / metric.scale, threshold.source
        if overrides and metric.name in overrides:
            value, source = overrides[metric.name], "--min-effect"
        out[metric.name] = (value, source)
    return out


def label_statistics(
    pairs: Sequence[PairRecord],
    keys: Mapping[str, str],
    floors: Mapping[str, float] | None = None,
    *,
    alpha: float = ALPHA,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    effects: Mapping[str, tuple[float, str]] | None = None,
) -> list[dict[str, Any]]:
    """``summary.metrics``: every label-level metric with its interval and verdict.

    The metrics fall in two families (``LabelMetric.family``): the outcomes (primary) and
    the path, cost and effort metrics (secondary). Within each, Bonferroni: a metric's
    interval is computed at ``1 - alpha / m`` (``ci_level``), with ``m`` the metrics of its
    family with data (:func:`shows_change`), and its verdict is read from that interval
    (:func:`methods.verdicts`) against its minimum effect (``effects``, from
    :func:`min_effects`; default the registry's). ``p_value`` is the raw one
    (``p_value_raw``) times ``m``, capped at 1."""
    grouping = Grouping.of(pairs, keys)
    skip = errored_pairs(pairs)
    sides = [task_sides(pairs, grouping, m, floors, skip) for m in LABEL_METRICS]
    present = [shows_change(m, s) for m, s in zip(LABEL_METRICS, sides, strict=True)]
    levels, sizes = methods.family_alphas([m.family for m in LABEL_METRICS], present, alpha)
    found = _all_entries(
        LABEL_METRICS, sides, [float(a) for a in levels], alpha, resamples=resamples, seed=seed
    )
    effects = effects or min_effects()
    raw = np.array([np.nan if f["p_value"] is None else f["p_value"] for f in found])
    adjusted = methods.bonferroni(raw, sizes)
    for entry, metric, p in zip(found, LABEL_METRICS, adjusted, strict=True):
        entry["p_value_raw"] = entry["p_value"]
        entry["p_value"] = _number(p)
        entry["min_effect"], entry["min_effect_source"] = effects[metric.name]
        nan = math.nan
        estimate = Interval(
            np.array(nan if entry["delta"] is None else entry["delta"]),
            np.array(nan if entry["ci_low"] is None else entry["ci_low"]),
            np.array(nan if entry["ci_high"] is None else entry["ci_high"]),
            np.array(p),
        )
        entry["verdict"] = str(
            methods.verdicts(estimate, min_effect=entry["min_effect"], worse_when=metric.worse_when)
        )
        entry["tasks_needed"] = (
            _tasks_needed(entry["n_tasks"], entry["min_detectable_effect"], entry["min_effect"])
            if entry["verdict"] == "inconclusive"
            else None
        )
        if metric.kind == "runs":
            entry["tasks_needed"] = None
            entry["pairs_not_scored"] = int(skip.sum())
            entry["error_kinds"] = error_kinds(pairs)
    return found


def error_kinds(pairs: Sequence[PairRecord]) -> dict[str, dict[str, int]]:
    """How many runs of each side errored, by error_kind (sorted), each run once."""
    seen: dict[str, dict[str, str]] = {"baseline": {}, "candidate": {}}
    for pair in pairs:
        for side, runs in seen.items():
            kind = pair.get(f"{side}_error_kind")
            if kind is not None:
                runs[pair[f"{side}_run_id"]] = str(kind)  # type: ignore[literal-required]
    out: dict[str, dict[str, int]] = {}
    for side, runs in seen.items():
        counts: dict[str, int] = defaultdict(int)
        for kind in runs.values():
            counts[kind] += 1
        out[side] = dict(sorted(counts.items()))
    return out


def _tasks_needed(n: int, mde: float | None, min_effect: float) -> int | None:
    """About how many tasks would bring the minimum detectable effect down to
    ``min_effect`` (it falls as ``1/√n``); None when it cannot be told (no interval, no
    effect of interest, or a number too large for a float)."""
    if not mde or min_effect <= 0:
        return None
    ratio = mde / min_effect
    needed = n * ratio * ratio  # a product overflows to inf where ** would raise
    return math.ceil(needed) if math.isfinite(needed) else None


def _outcomes(pairs: Sequence[PairRecord], side: str) -> FloatArray:
    """One side's success as 1/0 (NaN: unknown, or the infrastructure ended the run)."""
    key = f"{side}_success"

    def read(p: Any) -> float | None:
        if p.get(key) is None or p.get(f"{side}_error_kind") is not None:
            return None
        return float(bool(p[key]))

    return _column(pairs, read)


def task_classes(pairs: Sequence[PairRecord], keys: Mapping[str, str]) -> dict[str, Any]:
    """``summary.tasks``: how many tasks were fixed, newly broken, still failing, still
    passing, flaky (mixed outcomes across the trials of one side) or unknown (a side gives no
    outcome, or only runs the infrastructure ended: errored runs count as no outcome, never
    as failures), and which tasks are in the first three classes (counted per task with
    ``bincount``)."""
    grouping = Grouping.of(pairs, keys)
    n = len(grouping.tasks)

    def count(values: FloatArray, outcome: float) -> npt.NDArray[np.int64]:
        return np.bincount(grouping.index[values == outcome], minlength=n)

    b, c = _outcomes(pairs, "baseline"), _outcomes(pairs, "candidate")
    b_pass, b_fail, c_pass, c_fail = count(b, 1.0), count(b, 0.0), count(c, 1.0), count(c, 0.0)
    unknown = (b_pass + b_fail == 0) | (c_pass + c_fail == 0)
    flaky = ~unknown & (((b_pass > 0) & (b_fail > 0)) | ((c_pass > 0) & (c_fail > 0)))
    rest = ~unknown & ~flaky
    kinds = {
        "newly_broken": rest & (b_pass > 0) & (c_fail > 0),
        "fixed": rest & (b_fail > 0) & (c_pass > 0),
        "still_failing": rest & (b_fail > 0) & (c_fail > 0),
        "still_passing": rest & (b_pass > 0) & (c_pass > 0),
        "flaky": flaky,
        "unknown": unknown,
    }
    named = {k: [grouping.tasks[i] for i in np.flatnonzero(v)] for k, v in kinds.items()}
    counts: dict[str, Any] = {name: len(named[name]) for name in TASK_CLASSES}
    return {**counts, "newly_broken_tasks": named["newly_broken"],
            "fixed_tasks": named["fixed"], "flaky_tasks": named["flaky"]}  # fmt: skip


def label_violations(
    metrics: Sequence[Mapping[str, Any]], thresholds: Sequence[Threshold]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The label-level gates broken (the drop of the point estimate beyond its threshold; for
    a gate that reads the candidate, ``--max-error-rate``, the candidate's own value), and
    those that could not be judged (the metric is unknown)."""
    by_name = {m["metric"]: m for m in metrics}
    broken: list[dict[str, Any]] = []
    unknown: list[dict[str, Any]] = []
    for threshold in thresholds:
        try:
            metric = label_metric_for_gate(threshold.gate)
        except KeyError:
            continue
        assert metric.gate is not None
        if metric.gate_reads == "candidate":
            level = by_name[metric.name]["candidate"]
            drop = None if level is None else level * metric.scale
            what = metric.label
        else:
            delta = by_name[metric.name]["delta"]
            sign = -1.0 if metric.worse_when == "lower" else 1.0
            drop = None if delta is None else sign * delta * metric.scale
            what = f"{metric.label} drop"
        entry = violation(metric.gate.name, what, drop, threshold).to_dict()
        if drop is None:
            unknown.append(entry)
        elif breaks(metric.gate, drop, threshold.value):
            broken.append(entry)
    return broken, unknown


def attach_statistics(
    comparison: Comparison,
    *,
    fail_on_regression: bool = False,
    alpha: float = ALPHA,
    seed: int = SEED,
    min_effect: Mapping[str, float] | None = None,
    thresholds: Sequence[Threshold] | None = None,
) -> LabelStatistics:
    """Compute the label-level statistics of ``comparison`` and store them on it: its JSON
    summary gains ``metrics`` and ``tasks``, its verdict the label-level gates and, with
    ``fail_on_regression``, every metric whose verdict is ``regression``. ``min_effect``
    overrides metrics' minimum effects of interest (by metric name, in the delta's unit);
    ``thresholds`` (default the comparison's) are the label-level gates judged."""
    with collector_paused():  # the columns read from the records hold no cycles
        return _attach(comparison, fail_on_regression, alpha, seed, min_effect, thresholds)


def _attach(
    comparison: Comparison,
    fail_on_regression: bool,
    alpha: float,
    seed: int,
    min_effect: Mapping[str, float] | None,
    thresholds: Sequence[Threshold] | None,
) -> LabelStatistics:
    gates = list(comparison.thresholds if thresholds is None else thresholds)
    unknown_names = set(min_effect or {}) - {m.name for m in LABEL_METRICS}
    if unknown_names:
        known = ", ".join(m.name for m in LABEL_METRICS)
        raise UsageError(
            f"--min-effect: unknown metric {', '.join(sorted(unknown_names))} (known: {known})"
        )
    metrics = label_statistics(
        comparison.pairs,
        comparison.task_keys,
        comparison.repeat_tdi,
        alpha=alpha,
        seed=seed,
        effects=min_effects(gates, min_effect),
    )
    broken, unknown = label_violations(metrics, gates)
    result: LabelStatistics = {
        "metrics": metrics,
        "tasks": task_classes(comparison.pairs, comparison.task_keys),
        "alpha": alpha,
        "label_violations": broken,
        "label_gates_not_evaluated": unknown,
        # the agent's: an error rate significantly up is broken infrastructure, which the
        # headline says and --max-error-rate gates, never a regression of the agent
        "regressions": [
            m["metric"]
            for m in metrics
            if m["verdict"] == "regression" and m["family"] != "infrastructure"
        ],
        "fail_on_regression": fail_on_regression,
    }
    comparison.statistics = result
    return result

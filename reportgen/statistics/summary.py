"""Label-level statistics of a comparison: one object per metric of
:data:`reportgen.gating.metrics.LABEL_METRICS` (estimate, interval, p-value, verdict), the
per-task outcome classes, and the label-level gates (``--max-success-drop``, ...).

The task is the unit: a task's trials are averaged on each side first, then the per-task
differences are tested (docs/statistics.md)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from reportgen.divergence.compare import Comparison
from reportgen.divergence.records import PairRecord
from reportgen.gating.metrics import LABEL_METRICS, LabelMetric, label_metric_for_gate
from reportgen.gating.thresholds import Threshold
from reportgen.gating.verdict import breaks, violation
from reportgen.statistics import methods
from reportgen.statistics.methods import Interval

ALPHA = 0.05
RESAMPLES = 2000
SEED = 0
TASK_CLASSES = ("newly_broken", "fixed", "flaky", "still_failing", "still_passing", "unknown")


def _number(value: Any) -> float | None:
    """A JSON number, or None where there is none (NaN, or an overflow to infinity)."""
    value = float(value)
    return value if math.isfinite(value) else None


def _task_means(
    pairs: Sequence[PairRecord],
    keys: Mapping[str, str],
    metric: LabelMetric,
    floors: Mapping[str, float] | None = None,
) -> tuple[list[str], np.ndarray, np.ndarray, int]:
    """Per task (sorted keys): the mean over its pairs of each side's value, for the pairs
    where both sides are known, and the number of pairs used. For a ``floor`` metric the
    baseline side is the task's noise floor (``floors``) and tasks without one are left out."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for pair in pairs:
        c = metric.candidate(pair)
        b = 0.0 if metric.baseline is None else metric.baseline(pair)
        if b is None or c is None or not (math.isfinite(b) and math.isfinite(c)):
            continue
        acc = sums[keys.get(pair["pair_id"], pair["task_id"])]
        acc[0] += b
        acc[1] += c
        acc[2] += 1
    if metric.kind == "floor":
        floors = floors or {}
        sums = {t: [floors[t] * acc[2], acc[1], acc[2]] for t, acc in sums.items() if t in floors}
    tasks = sorted(sums)
    count = np.array([sums[t][2] for t in tasks])
    base = np.array([sums[t][0] for t in tasks]) / np.maximum(count, 1)
    cand = np.array([sums[t][1] for t in tasks]) / np.maximum(count, 1)
    return tasks, base, cand, int(count.sum())


def _rate(
    pairs: Sequence[PairRecord], keys: Mapping[str, str], metric: LabelMetric, alpha: float
) -> tuple[Interval, str, dict[str, Any]]:
    """A pass rate: exact McNemar with Newcombe's interval when every task has one trial a
    side; else the paired t over per-task rates (pooled McNemar/Newcombe when the per-task
    differences have no spread at all). Each side's pooled rate gets its Wilson interval."""
    tasks, base, cand, used = _task_means(pairs, keys, metric)
    known = [
        (metric.baseline(p), metric.candidate(p))
        for p in pairs
        if metric.baseline is not None
        and metric.baseline(p) is not None
        and metric.candidate(p) is not None
    ]
    table = {(b, c): 0 for b in (0.0, 1.0) for c in (0.0, 1.0)}
    for b, c in known:
        table[(b, c)] += 1  # type: ignore[index]
    both, only_b, only_c, neither = table[1, 1], table[1, 0], table[0, 1], table[0, 0]
    extra = {  # each side's rate over all its trials (each task weighs by its trials)
        "baseline_trial_rate": (both + only_b) / used if used else None,
        "candidate_trial_rate": (both + only_c) / used if used else None,
        "baseline_ci": [_number(x) for x in methods.wilson(both + only_b, used, alpha)],
        "candidate_ci": [_number(x) for x in methods.wilson(both + only_c, used, alpha)],
    }
    diffs = cand - base
    single = used == len(tasks)
    if single or (len(tasks) >= 2 and np.ptp(diffs) == 0):
        delta, low, high = methods.newcombe_paired(both, only_b, only_c, neither, alpha)
        p = methods.mcnemar_exact(only_b, only_c)
        name = "mcnemar_exact+newcombe" + ("" if single else "_pooled_trials")
        return Interval(np.array(delta), np.array(low), np.array(high), np.array(p)), name, extra
    return methods.paired_t(diffs, alpha), "paired_t_over_tasks", extra


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
    """One metric's object of ``summary.metrics`` before the Holm step (``p_value`` is still
    the raw one; :func:`label_statistics` adjusts it and gives the verdict). ``floors``: each
    task's baseline-vs-baseline TDI (``Comparison.repeat_tdi``)."""
    tasks, base, cand, used = _task_means(pairs, keys, metric, floors)
    extra: dict[str, Any] = {}
    if metric.kind == "rate":
        estimate, method, extra = _rate(pairs, keys, metric, alpha)
    elif metric.kind == "total":
        estimate = methods.total_change(base, cand, alpha, resamples=resamples, seed=seed)
        method = f"total_change+paired_bootstrap({resamples}, seed {seed})"
    elif metric.kind == "floor":
        estimate = methods.paired_t(cand - base, alpha)
        method = "paired_t_over_tasks(vs baseline repeat)"
    else:
        estimate = methods.paired_t(cand - base, alpha)
        method = "paired_t_over_tasks"
    baseline: float | None = None
    candidate: float | None = None
    if metric.kind == "total":
        baseline, candidate = float(base.sum()), float(cand.sum())
    elif tasks:
        baseline, candidate = float(base.mean()), float(cand.mean())
    return {
        "metric": metric.name,
        "baseline": baseline,
        "candidate": candidate,
        "delta": _number(estimate.delta) if tasks else None,
        "ci_low": _number(estimate.low),
        "ci_high": _number(estimate.high),
        "p_value": _number(estimate.p_value),
        "verdict": "insufficient_data",
        "n_tasks": len(tasks),
        "n_trials_baseline": 2 * len(tasks) if metric.kind == "floor" else used,
        "n_trials_candidate": used,
        "method": method,
        "min_effect": metric.min_effect,
        **extra,
    }


def label_statistics(
    pairs: Sequence[PairRecord],
    keys: Mapping[str, str],
    floors: Mapping[str, float] | None = None,
    *,
    alpha: float = ALPHA,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[dict[str, Any]]:
    """``summary.metrics``: every label-level metric, its p-value Holm-adjusted across the
    family (``p_value_raw`` keeps the unadjusted one) and its verdict at ``alpha``."""
    found = [
        metric_statistics(pairs, keys, m, floors, alpha=alpha, resamples=resamples, seed=seed)
        for m in LABEL_METRICS
    ]
    raw = np.array([np.nan if f["p_value"] is None else f["p_value"] for f in found])
    adjusted = methods.holm(raw)
    for entry, metric, p in zip(found, LABEL_METRICS, adjusted, strict=True):
        entry["p_value_raw"] = entry["p_value"]
        entry["p_value"] = _number(p)
        nan = math.nan
        estimate = Interval(
            np.array(nan if entry["delta"] is None else entry["delta"]),
            np.array(nan if entry["ci_low"] is None else entry["ci_low"]),
            np.array(nan if entry["ci_high"] is None else entry["ci_high"]),
            np.array(p),
        )
        entry["verdict"] = str(
            methods.verdicts(
                estimate,
                p,
                alpha=alpha,
                min_effect=metric.min_effect,
                worse_when=metric.worse_when,
            )
        )
    return found


def task_classes(pairs: Sequence[PairRecord], keys: Mapping[str, str]) -> dict[str, Any]:
    """``summary.tasks``: how many tasks were fixed, newly broken, still failing, still
    passing, flaky (mixed outcomes across the trials of one side) or unknown (a side gives no
    outcome), and which tasks are in the first three classes."""
    sides: dict[str, tuple[set[bool], set[bool]]] = defaultdict(lambda: (set(), set()))
    for pair in pairs:
        b, c = sides[keys.get(pair["pair_id"], pair["task_id"])]
        if pair.get("baseline_success") is not None:
            b.add(bool(pair["baseline_success"]))
        if pair.get("candidate_success") is not None:
            c.add(bool(pair["candidate_success"]))
    named: dict[str, list[str]] = {name: [] for name in TASK_CLASSES}
    for task in sorted(sides):
        b, c = sides[task]
        if not b or not c:
            kind = "unknown"
        elif len(b) > 1 or len(c) > 1:
            kind = "flaky"
        else:
            kind = {
                (True, False): "newly_broken",
                (False, True): "fixed",
                (False, False): "still_failing",
                (True, True): "still_passing",
            }[(next(iter(b)), next(iter(c)))]
        named[kind].append(task)
    counts: dict[str, Any] = {name: len(named[name]) for name in TASK_CLASSES}
    return {**counts, "newly_broken_tasks": named["newly_broken"],
            "fixed_tasks": named["fixed"], "flaky_tasks": named["flaky"]}  # fmt: skip


def label_violations(
    metrics: Sequence[Mapping[str, Any]], thresholds: Sequence[Threshold]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The label-level gates broken (the drop of the point estimate beyond its threshold),
    and those that could not be judged (the metric is unknown)."""
    by_name = {m["metric"]: m for m in metrics}
    broken: list[dict[str, Any]] = []
    unknown: list[dict[str, Any]] = []
    for threshold in thresholds:
        try:
            metric = label_metric_for_gate(threshold.gate)
        except KeyError:
            continue
        assert metric.gate is not None
        delta = by_name[metric.name]["delta"]
        sign = -1.0 if metric.worse_when == "lower" else 1.0
        drop = None if delta is None else sign * delta * metric.scale
        entry = violation(metric.gate.name, f"{metric.label} drop", drop, threshold)
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
) -> dict[str, Any]:
    """Compute the label-level statistics of ``comparison`` and store them on it: its JSON
    summary gains ``metrics`` and ``tasks``, its verdict the label-level gates and, with
    ``fail_on_regression``, every metric whose verdict is ``regression``."""
    metrics = label_statistics(
        comparison.pairs, comparison.task_keys, comparison.repeat_tdi, alpha=alpha, seed=seed
    )
    broken, unknown = label_violations(metrics, comparison.thresholds)
    result = {
        "metrics": metrics,
        "tasks": task_classes(comparison.pairs, comparison.task_keys),
        "alpha": alpha,
        "label_violations": broken,
        "label_gates_not_evaluated": unknown,
        "regressions": [m["metric"] for m in metrics if m["verdict"] == "regression"],
        "fail_on_regression": fail_on_regression,
    }
    comparison.statistics = result
    return result

"""The reliability profile of a label over one night: how consistent its repeated runs
(trials) of the same tasks are, each measure a mean over the tasks with a t interval.

The measures (:data:`reportgen.gating.metrics.RELIABILITY_METRICS`, defined in
docs/statistics.md, "Reliability profile") are computed in DuckDB, one ``.sql`` file per
family, for every label and night of the archive at once; the intervals for all of them in
one vectorised call. Sequential trajectory consistency is convergence
(:mod:`reportgen.convergence`), not recomputed here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

from reportgen._sql import load_sql
from reportgen.divergence.records import ReliabilityGate
from reportgen.gating.metrics import (
    RELIABILITY_METRICS,
    ReliabilityMetric,
    reliability_metric_for_gate,
)
from reportgen.gating.thresholds import Threshold
from reportgen.gating.verdict import Violation, breaks
from reportgen.statistics.methods import t_ppf

__all__ = [
    "FAMILIES",
    "ReliabilityMeasure",
    "ReliabilityProfile",
    "gate_reliability",
    "profile_of",
    "reliability_profiles",
]

#: The SQL file of each measure family, in report order.
FAMILIES = (
    "reliability_outcomes",
    "reliability_tools",
    "reliability_resources",
    "reliability_robustness",
)
_METRICS = {m.name: m for m in RELIABILITY_METRICS}


@dataclass(frozen=True)
class ReliabilityMeasure:
    """One measure of one (label, night): the mean over ``n_tasks`` tasks, its interval at
    ``level`` (None for one task), and ``trials``, the median repeats per task it rests on."""

    name: str
    estimate: float
    ci_low: float | None
    ci_high: float | None
    level: float
    n_tasks: int
    trials: float

    @property
    def metric(self) -> ReliabilityMetric:
        return _METRICS[self.name]

    @property
    def too_few_repeats(self) -> bool:
        """Fewer repeats per task (median) than the measure needs to mean anything."""
        return self.trials < self.metric.min_trials

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.name,
            "estimate": self.estimate,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "ci_level": self.level,
            "n_tasks": self.n_tasks,
            "trials": self.trials,
            "min_trials": self.metric.min_trials,
            "too_few_repeats": self.too_few_repeats,
        }


@dataclass(frozen=True)
class ReliabilityProfile:
    """The reliability profile of one label over one night (batch): its measures in registry
    order, those it has data for (robustness only where runs carry ``meta.perturbation``)."""

    label: str
    batch: str
    measures: tuple[ReliabilityMeasure, ...] = field(default_factory=tuple)
    suite: str | None = None  # the one suite it covers (``by_suite``), None: every suite

    def get(self, name: str) -> ReliabilityMeasure | None:
        """The measure ``name`` (a :data:`RELIABILITY_METRICS` name), None without data."""
        return next((m for m in self.measures if m.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        suite = {} if self.suite is None else {"suite": self.suite}
        return {
            "label": self.label,
            "batch": self.batch,
            **suite,
            "measures": [m.to_dict() for m in self.measures],
        }


def _rows(
    con: duckdb.DuckDBPyConnection, labels: list[str] | None, by_suite: bool
) -> list[tuple[Any, ...]]:
    """Every family's rows: (label, batch, scope, measure, n_tasks, mean, sd, trials)."""
    con.execute(load_sql("run_resolved"))
    con.execute(load_sql("reliability_runs"))
    rows: list[tuple[Any, ...]] = []
    for family in FAMILIES:
        rows += con.execute(load_sql(family), {"labels": labels, "by_suite": by_suite}).fetchall()
    return rows


def _intervals(
    means: np.ndarray[Any, Any], sds: np.ndarray[Any, Any], n: np.ndarray[Any, Any], alpha: float
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The t interval of each mean over its tasks (nan where fewer than two tasks)."""
    many = n >= 2
    df = np.where(many, n - 1, 1).astype(np.float64)
    half = t_ppf(1.0 - alpha / 2.0, df) * np.nan_to_num(sds) / np.sqrt(np.maximum(n, 1))
    half = np.where(many & np.isfinite(sds), half, np.nan)
    return means - half, means + half


def reliability_profiles(
    con: duckdb.DuckDBPyConnection,
    *,
    labels: Iterable[str] | None = None,
    batches: Iterable[str] | None = None,
    alpha: float = 0.05,
    by_suite: bool = False,
) -> list[ReliabilityProfile]:
    """The reliability profile of every (label, batch) of the archive on ``con`` (or of the
    ``labels`` and ``batches`` given), sorted by label then batch; a pair with no task of two
    or more clean runs has none. Intervals at ``1 - alpha``, clipped to each measure's
    range. ``by_suite``: one profile per (label, batch, suite) instead (the suite pages)."""
    chosen = None if labels is None else sorted(set(labels))
    wanted_batches = None if batches is None else set(batches)
    rows = [
        r for r in _rows(con, chosen, by_suite) if wanted_batches is None or r[1] in wanted_batches
    ]
    if not rows:
        return []
    means = np.array([float(r[5]) for r in rows])
    sds = np.array([np.nan if r[6] is None else float(r[6]) for r in rows])
    n = np.array([int(r[4]) for r in rows])
    lows, highs = _intervals(means, sds, n, alpha)
    found: dict[tuple[str, str, str], list[ReliabilityMeasure]] = {}
    for row, low, high in zip(rows, lows.tolist(), highs.tolist(), strict=True):
        metric = _METRICS[row[3]]
        found.setdefault((row[0], row[1], row[2]), []).append(
            ReliabilityMeasure(
                row[3],
                float(row[5]),
                None if low != low else max(metric.low, low),
                None if high != high else min(metric.high, high),
                1.0 - alpha,
                int(row[4]),
                float(row[7]),
            )
        )
    order = {m.name: k for k, m in enumerate(RELIABILITY_METRICS)}
    return [
        ReliabilityProfile(
            label,
            batch,
            tuple(sorted(ms, key=lambda m: order[m.name])),
            scope if by_suite else None,
        )
        for (label, batch, scope), ms in sorted(found.items())
    ]


def profile_of(
    profiles: Sequence[ReliabilityProfile], label: str, batch: str
) -> ReliabilityProfile | None:
    """The profile of ``label`` over ``batch`` among ``profiles``, None when it has none."""
    return next((p for p in profiles if p.label == label and p.batch == batch), None)


def gate_reliability(
    baseline: Sequence[ReliabilityProfile],
    candidate: Sequence[ReliabilityProfile],
    thresholds: Sequence[Threshold],
) -> ReliabilityGate:
    """The ``--min-*`` reliability gates among ``thresholds`` judged on each of the
    ``candidate`` label's profiles (one per night): a measure below its threshold fails (equal
    passes); a gate with no measure to read (no night with two or more trials of a task, no
    perturbed run for robustness) is listed as not evaluated. Both labels' profiles are kept
    for the report."""
    violations: list[dict[str, Any]] = []
    unknown: list[dict[str, Any]] = []
    for threshold in thresholds:
        try:
            metric = reliability_metric_for_gate(threshold.gate)
        except KeyError:
            continue
        measures = [(p, p.get(metric.name)) for p in candidate]
        if not any(m is not None for _, m in measures):
            subject = ", ".join(f"{p.label} @ {p.batch}" for p in candidate) or "the candidate"
            unknown.append(
                Violation(
                    metric.gate.name, metric.name, None, threshold.value, threshold.source,
                    subject, f"{metric.label}: no data for {subject} (too few repeats)",
                ).to_dict()
            )  # fmt: skip
            continue
        for profile, measure in measures:
            if measure is None or not breaks(metric.gate, measure.estimate, threshold.value):
                continue
            where = f"{profile.label} @ {profile.batch}"
            few = ", too few repeats" if measure.too_few_repeats else ""
            message = (
                f"{metric.gate.name}: {where}: {metric.label} {measure.estimate:.3g} < "
                f"{threshold.value:g} (from {threshold.source}; {measure.n_tasks} tasks, "
                f"{measure.trials:g} trials per task{few})"
            )
            details = (
                ("label", profile.label),
                ("batch", profile.batch),
                ("n_tasks", measure.n_tasks),
                ("too_few_repeats", measure.too_few_repeats),
            )
            violations.append(
                Violation(
                    metric.gate.name, metric.name, measure.estimate, threshold.value,
                    threshold.source, where, message, details,
                ).to_dict()
            )  # fmt: skip
    return {
        "baseline": [p.to_dict() for p in baseline],
        "candidate": [p.to_dict() for p in candidate],
        "violations": violations,
        "not_evaluated": unknown,
    }

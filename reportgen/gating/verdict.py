"""Verdicts: which thresholds a pair broke. One place decides what "fails" means.

A gate fails when the value is strictly greater than its threshold (equal passes), for every
metric, in the CLI, the API and the pytest plugin alike; a ``min`` gate (convergence) fails
when the value is strictly below. A metric that is unknown for a pair (a delta against a zero
or unknown baseline) cannot fail a gate; the verdict says so."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reportgen.gating.metrics import (
    Gate,
    errored,
    label_gates,
    metric_for_gate,
    reliability_gates,
)
from reportgen.gating.thresholds import Threshold


def breaks(gate: Gate, value: float, threshold: float) -> bool:
    """True when ``value`` fails ``gate`` at ``threshold``: the one comparison rule."""
    return value < threshold if gate.bound == "min" else value > threshold


@dataclass(frozen=True)
class Violation:
    """One gate broken (or, in a verdict's ``unknown``, one that could not be judged): the one
    shape of "what failed" for every gate, whatever it judges: a pair (``compare``, ``gate``),
    the comparison as a whole (``--max-success-drop``), a group of repeated runs
    (``--min-convergence``) or a run of a coding loop (``iterations``). ``subject`` names what
    it judged ("" for the whole comparison), ``message`` says it all in one line where the
    gate words it, ``details`` are the gate's own fields of the JSON contract (a group's
    keys and run count)."""

    gate: str
    metric: str
    value: float | list[str] | None
    threshold: float | bool
    source: str
    subject: str = ""
    message: str = ""
    details: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract: gate, metric, value, threshold, source, the details, and the
        message when there is one."""
        out: dict[str, Any] = {
            "gate": self.gate,
            "metric": self.metric,
            "value": self.value,
            "threshold": self.threshold,
            "source": self.source,
            **dict(self.details),
        }
        if self.message:
            out["message"] = self.message
        return out


@dataclass
class Verdict:
    """Which thresholds one pair broke (violations) and which it could not be judged on, as
    the JSON contract's dicts (:meth:`Violation.to_dict`)."""

    passed: bool = True
    violations: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[dict[str, Any]] = field(default_factory=list)


def violation(
    gate: str, metric: str, value: float | None, threshold: Threshold, subject: str = ""
) -> Violation:
    """A threshold's violation: gate, metric label, value, threshold and its source."""
    return Violation(gate, metric, value, threshold.value, threshold.source, subject)


def _label_level() -> set[str]:
    """The gates judged over a label's tasks, not per pair: the label-level metrics' and the
    reliability profile's."""
    return {g.name for g in (*label_gates(), *reliability_gates())}


def judge(pair: Mapping[str, Any], thresholds: Sequence[Threshold]) -> Verdict:
    """The verdict for one pair: a violation for every value beyond its threshold. A pair with
    a run the infrastructure ended is judged on no gate (each is listed as not evaluated)."""
    verdict = Verdict()
    label_level = _label_level()  # judged over the tasks, not per pair
    not_scored = errored(pair)
    for threshold in thresholds:
        if threshold.gate in label_level:
            continue
        metric = metric_for_gate(threshold.gate)
        assert metric.gate is not None
        value = None if not_scored else metric.value(pair)
        entry = violation(
            metric.gate.name, metric.label, value, threshold, str(pair.get("pair_id", ""))
        ).to_dict()
        if value is None:
            verdict.unknown.append(entry)
        elif breaks(metric.gate, value, threshold.value):
            verdict.violations.append(entry)
    verdict.passed = not verdict.violations
    return verdict


def verdicts_by_metric(pair: Mapping[str, Any], thresholds: Sequence[Threshold]) -> dict[str, bool]:
    """For the site: JSON-contract metric key -> passed, for every gate that could be judged."""
    verdict = judge(pair, thresholds)
    failed = {v["gate"] for v in verdict.violations}
    unknown = {u["gate"] for u in verdict.unknown}
    label_level = _label_level()
    return {
        metric_for_gate(t.gate).key: t.gate not in failed
        for t in thresholds
        if t.gate not in unknown and t.gate not in label_level
    }

"""Gating: the metric registry, thresholds (flags, config files, API keywords) and verdicts,
shared by compare, gate, iterations, convergence, the Python API and the pytest plugin."""

from reportgen.gating.metrics import (
    Gate,
    PairMetric,
    metric_for_gate,
    pair_gates,
    pair_metrics,
    register,
    registered,
    stagnant_loops,
)
from reportgen.gating.thresholds import (
    Resolved,
    Threshold,
    check_threshold,
    find_config,
    load_config,
    parse_threshold,
    resolve,
    resolve_thresholds,
)
from reportgen.gating.verdict import Verdict, breaks, judge, verdicts_by_metric

__all__ = [
    "Gate",
    "PairMetric",
    "Resolved",
    "Threshold",
    "Verdict",
    "breaks",
    "check_threshold",
    "find_config",
    "judge",
    "load_config",
    "metric_for_gate",
    "pair_gates",
    "pair_metrics",
    "parse_threshold",
    "register",
    "registered",
    "resolve",
    "resolve_thresholds",
    "stagnant_loops",
    "verdicts_by_metric",
]

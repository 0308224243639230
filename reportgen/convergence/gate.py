"""The convergence gate: which groups score below a minimum (the scorer's inclusive rule)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import duckdb

from reportgen.convergence.report import GroupConvergence, convergence_report
from reportgen.divergence.compare import Comparison
from reportgen.errors import UsageError
from reportgen.gating.metrics import MIN_CONVERGENCE
from reportgen.gating.thresholds import check_threshold as check_gate_threshold
from reportgen.gating.verdict import Violation, breaks

__all__ = ["check_threshold", "convergence_gate", "gate_convergence"]

_KEYS = ("suite", "label", "task_id", "batch")


def check_threshold(min_convergence: float) -> float:
    """The threshold as a float; ValueError unless it is a finite number in [0, 1] (the
    rule of :func:`reportgen.gating.check_threshold`, as a ValueError for library callers)."""
    try:
        return check_gate_threshold(
            MIN_CONVERGENCE, min_convergence, "convergence gate", "min_convergence"
        )
    except UsageError as error:
        raise ValueError(str(error)) from None


def _fields(group: GroupConvergence | Mapping[str, Any]) -> Mapping[str, Any]:
    """The fields the gate reads, from a GroupConvergence or a dict."""
    if isinstance(group, GroupConvergence):
        names = (*_KEYS, "num_runs", "convergence_score")
        return {name: getattr(group, name) for name in names}
    return group


def convergence_gate(
    groups: Iterable[GroupConvergence | Mapping[str, Any]],
    min_convergence: float,
    source: str = "",
) -> list[dict[str, Any]]:
    """One violation per group whose convergence_score is below ``min_convergence`` (a
    :class:`reportgen.gating.verdict.Violation`, as its JSON-contract dict; ``source``: where
    the threshold came from).

    A score equal to the threshold passes, as in agent-convergence-scorer's
    ``--min-convergence``. Groups may be :class:`GroupConvergence` objects or dicts with the
    group keys and ``convergence_score`` (what ``group_convergence`` returns)."""
    threshold = check_threshold(min_convergence)
    violations: list[dict[str, Any]] = []
    for group in groups:
        row = _fields(group)
        score = float(row["convergence_score"])
        if not breaks(MIN_CONVERGENCE, score, threshold):
            continue
        keys = {k: row.get(k) for k in _KEYS}
        where = f"{keys['suite']}/{keys['label']}/{keys['task_id']} @ {keys['batch']}"
        found = Violation(
            MIN_CONVERGENCE.name,
            "convergence_score",
            score,
            threshold,
            source,
            where,
            f"{where}: convergence_score {score} < {threshold} ({row.get('num_runs')} runs)",
            (*keys.items(), ("num_runs", row.get("num_runs"))),
        )
        violations.append(found.to_dict())
    return violations


def gate_convergence(
    con: duckdb.DuckDBPyConnection,
    comparison: Comparison,
    min_convergence: float,
    source: str,
    *,
    label: str,
    batch: str | None,
) -> None:
    """Add the convergence gate to ``comparison``: every group of ``label`` (N repeated runs of
    one task in one batch) whose convergence_score is below ``min_convergence`` fails."""
    groups = convergence_report(con, label=label, batch=batch)
    violations = convergence_gate(groups, min_convergence, source)
    comparison.convergence = {
        "label": label,
        "threshold": min_convergence,
        "source": source,
        "groups": len(groups),
        "violations": violations,
    }

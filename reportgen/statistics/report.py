"""The label-level verdicts in words: one line per metric, then the task classes (newly
broken tasks first), for the terminal and for Markdown. They lead the report: a reader sees
whether the candidate regressed before any per-pair row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reportgen.escape import md_code, term_text
from reportgen.gating.metrics import LABEL_METRICS

_LABELS = {m.name: m for m in LABEL_METRICS}
MINUS = "\N{MINUS SIGN}"


def _signed(value: float, digits: int, unit: str) -> str:
    text = f"{abs(value):.{digits}f}{unit}"
    return (MINUS if value < 0 else "+") + text


def _plain(value: float, digits: int, unit: str = "") -> str:
    return (MINUS if value < 0 else "") + f"{abs(value):.{digits}f}{unit}"


def verdict_line(entry: Mapping[str, Any], alpha: float = 0.05) -> str:
    """``success 91.7 % → 75.0 % (-16.7 pp, 95 % CI -30.1 to -3.2 pp): regression`` (printed
    with a true minus sign)."""
    metric = _LABELS[entry["metric"]]
    b, c, d = entry["baseline"], entry["candidate"], entry["delta"]
    low, high = entry["ci_low"], entry["ci_high"]
    if metric.kind == "rate":
        digits, unit, scale, du = 1, " %", 100.0, " pp"
    elif metric.kind == "total":
        digits, unit, scale, du = (4 if metric.name == "cost_usd" else 0), "", 1.0, " %"
    else:
        digits, unit, scale, du = 3, "", 1.0, ""
    dscale = 100.0 if metric.kind in ("rate", "total") else 1.0
    ddigits = 1 if metric.kind in ("rate", "total") else 3
    if d is None:
        return f"{metric.label}: no paired tasks with this metric: insufficient_data"
    if metric.kind == "floor":
        values = f"{metric.label} {_plain(b, 3)} between baseline runs → {_plain(c, 3)} ("
        values += _signed(d, 3, "")
    else:
        values = f"{metric.label} {_plain(b * scale, digits, unit)} → {_plain(c * scale, digits, unit)} ("
        values += _signed(d * dscale, ddigits, du)
    if low is None or high is None:
        interval = ", no interval"
    else:
        interval = (
            f", {100 * (1 - alpha):g} % CI {_plain(low * dscale, ddigits)}"
            f" to {_plain(high * dscale, ddigits, du)}"
        )
    return f"{values}{interval}): {entry['verdict']}"


def task_lines(tasks: Mapping[str, Any], code: bool) -> list[str]:
    """The task classes in one line, then newly broken, fixed and flaky tasks by name."""
    counts = ", ".join(
        f"{tasks[name]} {name.replace('_', ' ')}"
        for name in ("newly_broken", "fixed", "flaky", "still_failing", "still_passing")
    )
    lines = [f"Tasks: {counts}" + (f", {tasks['unknown']} unknown" if tasks["unknown"] else "")]
    show = md_code if code else term_text
    for name in ("newly_broken", "fixed", "flaky"):
        for task in tasks[f"{name}_tasks"]:
            lines.append(("- " if code else "  ") + f"{name.replace('_', ' ')}: {show(task)}")
    return lines


def lead_lines(statistics: Mapping[str, Any] | None, markdown: bool) -> list[str]:
    """The lines that open a report: the verdicts, the label-level gates broken, the tasks."""
    if statistics is None:
        return []
    lines = [verdict_line(m, statistics["alpha"]) for m in statistics["metrics"]]
    if markdown:
        lines = [f"- {line}" for line in lines]
    for v in statistics["label_violations"]:
        lines.append(
            f"{'- ' if markdown else ''}FAILED {v['gate']}: {v['value']:.3g} > "
            f"{v['threshold']:g} (from {v['source']})"
        )
    return [*lines, "", *task_lines(statistics["tasks"], markdown)]

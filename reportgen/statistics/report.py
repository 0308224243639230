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


def _units(kind: str, name: str) -> tuple[int, str, float, str, float, int]:
    """(digits, unit, scale) of the values and (unit, scale, digits) of the delta."""
    if kind in ("rate", "runs"):
        return 1, " %", 100.0, " pp", 100.0, 1
    if kind == "total":
        return (4 if name == "cost_usd" else 0), "", 1.0, " %", 100.0, 1
    return 3, "", 1.0, "", 1.0, 3


def value_text(unit: str, value: float) -> str:
    """One value of a label-level metric in its unit (the registry's ``LabelMetric.unit``):
    ``$0.1717``, ``82.3 s``, ``43,704``, ``2.2``, ``98.3 %``, ``0.050``."""
    sign = MINUS if value < 0 else ""
    size = abs(value)
    if unit == "rate":
        return f"{sign}{100 * size:.1f} %"
    if unit == "usd":
        return f"{sign}${size:,.2f}" if size >= 100 else f"{sign}${size:,.4f}"
    if unit == "ms":
        return f"{sign}{size / 1000:,.1f} s"
    if unit == "tokens":
        return f"{sign}{size:,.0f}"
    if unit == "steps":
        return f"{sign}{size:,.1f}"
    return f"{sign}{size:.3f}"


def level_text(ci_level: float) -> str:
    """An interval's level in percent with up to one decimal and no trailing zeros (95,
    97.5, 99.3); more decimals only where one would round it to 100."""
    text = "100"
    for digits in range(1, 5):
        text = f"{100 * ci_level:.{digits}f}".rstrip("0").rstrip(".")
        if text != "100":
            break
    return text


def effect_text(entry: Mapping[str, Any]) -> str:
    """The metric's minimum effect of interest in the unit of its delta (5.0 pp, 10.0 %,
    0.050)."""
    metric = _LABELS[entry["metric"]]
    *_, du, dscale, ddigits = _units(metric.kind, metric.name)
    return _plain(entry["min_effect"] * dscale, ddigits, du)


def verdict_parts(entry: Mapping[str, Any]) -> dict[str, str]:
    """One metric's numbers as text: ``baseline``, ``candidate``, ``delta``, ``ci`` (the
    interval of the delta at its level, ``ci_level``, the one its verdict was read from; or
    "no interval"), ``level`` (that level in percent), ``label`` (the metric's short
    name)."""
    metric = _LABELS[entry["metric"]]
    *_, du, dscale, ddigits = _units(metric.kind, metric.name)
    b, c, d = entry["baseline"], entry["candidate"], entry["delta"]
    low, high = entry["ci_low"], entry["ci_high"]
    none = "\N{EN DASH}"
    level = level_text(entry["ci_level"])
    parts = {"label": metric.label, "baseline": none, "candidate": none, "delta": none,
             "level": level}  # fmt: skip
    if b is not None and c is not None:
        parts["baseline"] = value_text(metric.unit, b)
        parts["candidate"] = value_text(metric.unit, c)
    if d is not None:
        parts["delta"] = _signed(d * dscale, ddigits, du)
    if low is None or high is None:
        parts["ci"] = parts["interval"] = "no interval"
    else:
        parts["interval"] = (
            f"{_plain(low * dscale, ddigits)} to {_plain(high * dscale, ddigits, du)}"
        )
        parts["ci"] = f"{level} % CI {parts['interval']}"
    return parts


def verdict_words(entry: Mapping[str, Any]) -> str:
    """The verdict, and for ``inconclusive`` what the power figures say: ``inconclusive,
    needs about 160 tasks to see a change of 5.0 pp``."""
    verdict = str(entry["verdict"])
    needed, n = entry.get("tasks_needed"), entry["n_tasks"]
    if verdict != "inconclusive" or not needed:
        return verdict
    if needed > n:
        return f"{verdict}, needs about {needed} tasks to see a change of {effect_text(entry)}"
    return f"{verdict}, its {n} tasks would see a change of {effect_text(entry)}; this one may be smaller"


def verdict_line(entry: Mapping[str, Any]) -> str:
    """``success 91.7 % → 75.0 % (-16.7 pp, 97.5 % CI -30.1 to -3.2 pp): regression``
    (printed with a true minus sign): the interval is the one the verdict was read from, at
    its level."""
    metric = _LABELS[entry["metric"]]
    if not entry["n_tasks"]:
        return f"{metric.label}: no paired tasks with this metric: {entry['verdict']}"
    parts = verdict_parts(entry)
    between = " between baseline runs" if metric.kind == "floor" else ""
    grain = f"{metric.grain} over {entry['n_tasks']} task{'s' if entry['n_tasks'] != 1 else ''}"
    if metric.kind == "runs":
        grain = f"per run over {entry['n_trials_baseline']} + {entry['n_trials_candidate']} runs"
    values = f"{metric.label}, {grain}: {parts['baseline']}{between} → {parts['candidate']}"
    if entry["delta"] is None:  # a total whose baseline is 0: no relative change
        return f"{values} (no change computable over {entry['n_tasks']} tasks): {entry['verdict']}"
    interval = ", no interval" if parts["ci"] == "no interval" else f", {parts['ci']}"
    return f"{values} ({parts['delta']}{interval}): {verdict_words(entry)}"


#: What each verdict means, for tooltips and the reports' glossary.
VERDICT_MEANING = {
    "regression": "significantly worse: the interval, at its family's corrected level, lies "
    "wholly on the worse side of 0",
    "improvement": "significantly better: the interval, at its family's corrected level, lies "
    "wholly on the better side of 0",
    "no_change": "not significant, and the whole interval lies within ± the minimum effect of "
    "interest: any change is too small to matter",
    "inconclusive": "the data cannot tell a change that matters from none (too few tasks, "
    "too noisy, or the metric is missing): not a pass; run more tasks or trials",
}

#: The families of verdicts in words (``LabelMetric.family``).
FAMILY_MEANING = {
    "primary": "the outcomes, success and reward",
    "secondary": "the path, cost and effort metrics",
    "infrastructure": "the error rate, whose runs no other metric scores",
}


def verdict_explanation(entry: Mapping[str, Any]) -> str:
    """A tooltip for one metric's verdict: what the numbers are, the method, the interval
    and its level, the p-value, the verdict, and what more data would take."""
    metric = _LABELS[entry["metric"]]
    family = entry["family"]
    level = f"{level_text(entry['ci_level'])} %"
    what = {
        "rate": "the pass rate over tasks (each task's trials averaged first)",
        "runs": "the share of runs the infrastructure ended, each run once (each side's "
        "Wilson interval; the change by Newcombe's interval for independent proportions)",
        "mean": "the mean over tasks (each task's trials averaged first)",
        "floor": "the candidate's divergence from the baseline, against the divergence of two "
        "baseline runs of the same task (its noise floor)",
        "total": "the total over the paired tasks; the change is (Σcandidate - Σbaseline) / "
        "Σbaseline",
    }[metric.kind]
    text = [
        f"{metric.label}: {what}.",
        f"Interval: {level} confidence interval of the change ({entry['method']}), the "
        f"level of a {family} metric (Bonferroni within {FAMILY_MEANING[family]}); the "
        "verdict is read from it.",
    ]
    if entry.get("p_value") is not None:
        text.append(f"p = {entry['p_value']:.3g} after Bonferroni's correction within the "
                    f"{family} metrics.")  # fmt: skip
    text.append(f"{entry['verdict']}: {VERDICT_MEANING[entry['verdict']]}.")
    text.append(f"Tasks: {entry['n_tasks']}; runs {entry['n_trials_baseline']} baseline, "
                f"{entry['n_trials_candidate']} candidate.")  # fmt: skip
    if entry.get("tasks_needed"):
        text.append(
            f"At this spread, about {entry['tasks_needed']} tasks would tell a change of "
            f"{effect_text(entry)} from none."
        )
    if entry.get("k"):
        k = entry["k"]
        text.append(
            f"pass@{k} (any of {k} runs passes) {entry['baseline_pass_at_k']:.3f} → "
            f"{entry['candidate_pass_at_k']:.3f}; pass^{k} (all {k} pass) "
            f"{entry['baseline_pass_hat_k']:.3f} → {entry['candidate_pass_hat_k']:.3f}."
        )
    share = entry.get("variance_share_tasks")
    if share is not None:
        text.append(
            f"{100 * share:.0f} % of the spread is between tasks, "
            f"{100 * (1 - share):.0f} % between trials of a task."
        )
    return " ".join(text)


def task_lines(
    tasks: Mapping[str, Any], code: bool, links: Mapping[str, str] | None = None
) -> list[str]:
    """The task classes in one line, then newly broken, fixed and flaky tasks by name; in
    Markdown (``code``) a newly broken task with a page in ``links`` (task key -> URL of its
    diff on the published site) links to it."""
    counts = ", ".join(
        f"{tasks[name]} {name.replace('_', ' ')}"
        for name in ("newly_broken", "fixed", "flaky", "still_failing", "still_passing")
    )
    lines = [f"Tasks: {counts}" + (f", {tasks['unknown']} unknown" if tasks["unknown"] else "")]
    show = md_code if code else term_text
    for name in ("newly_broken", "fixed", "flaky"):
        for task in tasks[f"{name}_tasks"]:
            shown = show(task)
            if code and links and name == "newly_broken" and task in links:
                shown = f"[{shown}]({links[task]})"
            lines.append(("- " if code else "  ") + f"{name.replace('_', ' ')}: {shown}")
    return lines


def lead_lines(
    statistics: Mapping[str, Any] | None, markdown: bool, links: Mapping[str, str] | None = None
) -> list[str]:
    """The lines that open a report: the verdicts, the label-level gates broken, the tasks
    (``links``: as for :func:`task_lines`)."""
    if statistics is None:
        return []
    lines = [verdict_line(m) for m in statistics["metrics"]]
    if markdown:
        lines = [f"- {line}" for line in lines]
    for v in statistics["label_violations"]:
        lines.append(
            f"{'- ' if markdown else ''}FAILED {v['gate']}: {v['value']:.3g} > "
            f"{v['threshold']:g} (from {v['source']})"
        )
    return [*lines, "", *task_lines(statistics["tasks"], markdown, links)]

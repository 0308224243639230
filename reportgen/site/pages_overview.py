"""The index (regressions first, suites, nights latest first) and per-suite history pages
(each metric over nights, with change points found by :mod:`reportgen.site.changepoints`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from reportgen.site import charts, fmt, paths
from reportgen.site.changepoints import change_points
from reportgen.site.context import HistoryPage, IndexPage, Link
from reportgen.site.data import SiteData
from reportgen.site.notes_html import render_notes
from reportgen.site.pages_compare import night_anchor, night_rows
from reportgen.site.pages_convergence import convergence_history_charts, convergence_rows
from reportgen.site.pages_iterations import loop_run_rows
from reportgen.site.pages_runs import _pair_row
from reportgen.statistics import label_statistics, task_classes
from reportgen.statistics.report import task_lines, verdict_line

Metric = tuple[str, str, str, bool, Callable[[float | None], str]]
#: Nightly metrics: (key in site_nightly, title, axis title, higher is worse, formatter).
METRICS: tuple[Metric, ...] = (
    ("wei", "Wasted Effort Index", "WEI", True, fmt.ratio),
    ("cost_usd", "Mean cost per run", "USD", True, fmt.usd),
    ("tokens", "Mean tokens per run", "tokens", True, fmt.num),
    ("latency_ms", "Mean latency per run", "ms", True, fmt.ms),
    ("steps_per_run", "Mean steps per run", "steps", True, lambda v: fmt.ratio(v, 2)),
    ("success_rate", "Success rate", "share of runs", False, fmt.share),
)
#: Per-night means over the compared pairs (series named "<candidate> vs <baseline>").
PAIR_METRICS: tuple[Metric, ...] = (
    ("tdi", "Mean trajectory divergence (TDI)", "TDI", True, fmt.ratio),
    ("stagnant_loops", "Stagnant loops", "loops", True, fmt.num),
)


def _series(
    rows: list[dict[str, Any]], key: str, by: str
) -> dict[str, list[tuple[str, float | None]]]:
    """Per ``by`` value, (night, value) in night order."""
    out: dict[str, list[tuple[str, float | None]]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: r["batch"]):
        out[row[by]].append((row["batch"], row[key]))
    return dict(out)


def _compared(data: SiteData, pair_rows: list[dict[str, Any]], suite: str) -> list[dict[str, Any]]:
    """Per night, the comparison's means for one suite, as a series named after both labels."""
    name = f"{data.candidate_label} vs {data.baseline_label}"
    return [dict(r, series=name) for r in night_rows([p for p in pair_rows if p["suite"] == suite])]


def suite_change_points(data: SiteData) -> dict[str, list[dict[str, Any]]]:
    """Change points of every nightly series, per suite, latest night first."""
    compare = paths.compare_index_path(data.baseline_label, data.candidate_label)
    pair_rows = [_pair_row(p) for p in data.pairs]
    out: dict[str, list[dict[str, Any]]] = {}
    for suite in data.suites:
        found = []
        sources = [([r for r in data.nightly if r["suite"] == suite], "label", METRICS)]
        compared = _compared(data, pair_rows, suite)
        sources.append((compared, "series", PAIR_METRICS))
        nights = {r["batch"] for r in compared}
        for rows, by, metrics in sources:
            for key, title, _axis, worse_up, show in metrics:
                for label, values in sorted(_series(rows, key, by).items()):
                    for cp in change_points([v for _, v in values]):
                        night = values[cp.index][0]
                        found.append({
                            "suite": suite, "metric": key, "title": title, "label": label, "batch": night,
                            "before": cp.before, "after": cp.after, "relative": cp.relative,
                            "before_text": show(cp.before), "after_text": show(cp.after),
                            "regression": (cp.after > cp.before) == worse_up,
                            "href": f"{compare}#{night_anchor(night)}" if night in nights else None,
                            "history": paths.history_path(suite),
                        })  # fmt: skip
        found.sort(
            key=lambda c: (c["batch"], c["regression"], c["metric"], c["label"]), reverse=True
        )
        out[suite] = found
    return out


def history_pages(
    data: SiteData, nav: list[Link], cps: dict[str, list[dict[str, Any]]]
) -> list[HistoryPage]:
    """One history page per suite."""
    pages = []
    pair_rows = [_pair_row(p) for p in data.pairs]
    for suite in data.suites:
        rows = [r for r in data.nightly if r["suite"] == suite]
        marks = [(c["label"], c["batch"]) for c in cps[suite]]
        figures = [
            charts.nightly_lines(key, title, axis, _series(rows, key, "label"), marks)
            for key, title, axis, _, _ in METRICS
        ]
        compared = _compared(data, pair_rows, suite)
        if compared:
            figures += [
                charts.nightly_lines(key, title, axis, _series(compared, key, "series"), marks)
                for key, title, axis, _, _ in PAIR_METRICS
            ]
        figures += convergence_history_charts(data, suite)
        pages.append(HistoryPage(
            path=paths.history_path(suite), title=f"History of {suite}", nav=nav, charts=figures,
            suite=suite, change_points=cps[suite],
            table=sorted(rows, key=lambda r: (r["batch"], r["label"]), reverse=True),
            convergence=convergence_rows(data, suite),
            notes=[n for n in map(render_notes, data.suite_notes.get(suite, [])) if n is not None],
        ))  # fmt: skip
    return pages


def _suite_summary(data: SiteData, suite: str) -> dict[str, Any]:
    """Key figures of a suite: per label, the latest night and the change from the night before."""
    labels = []
    for label, rows in sorted(_group(data.nightly, suite).items()):
        rows.sort(key=lambda r: r["batch"])
        latest, prev = rows[-1], (rows[-2] if len(rows) > 1 else None)
        labels.append({"label": label, "latest": latest, "previous": prev, "nights": len(rows)})
    tasks = sorted({r["task_id"] for r in data.runs if r["suite"] == suite})
    return {
        "suite": suite,
        "history": paths.history_path(suite),
        "labels": labels,
        "tasks": [Link(t, paths.task_path(suite, t)) for t in tasks],
    }


def _group(rows: list[dict[str, Any]], suite: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["suite"] == suite:
            out[row["label"]].append(row)
    return out


def _attention(data: SiteData) -> list[dict[str, Any]]:
    """Pairs of the latest compared night where the candidate did worse, worst first."""
    if not data.pairs:
        return []
    latest = max(p.batch for p in data.pairs)
    rows = [_pair_row(p) for p in data.pairs if p.batch == latest]
    worse = [
        r for r in rows if r["stagnant_loops"] or r["wei_change"] > 0 or (r["cost_delta"] or 0) > 10
    ]
    worse.sort(
        key=lambda r: (-r["stagnant_loops"], -r["wei_change"], -r["tdi"], r["task_id"], r["trial"])
    )
    return worse[:12]


def _verdicts(data: SiteData) -> tuple[str | None, list[dict[str, Any]], str | None]:
    """The label-level verdicts of the latest compared night (what ``reportgen gate`` judges
    by default): its night, one line and verdict per metric, and the task classes."""
    if not data.pairs:
        return None, [], None
    latest = max(p.batch for p in data.pairs)
    night = [p for p in data.pairs if p.batch == latest]
    keys = {p.metrics["pair_id"]: f"{p.suite}/{p.task_id}" for p in night}
    records = [p.metrics for p in night]
    found = label_statistics(records, keys, data.repeat_tdi)
    lines = [{"line": verdict_line(m), "verdict": m["verdict"]} for m in found]
    return latest, lines, task_lines(task_classes(records, keys), code=False)[0]


def index_page(
    data: SiteData, nav: list[Link], cps: dict[str, list[dict[str, Any]]], build_time: str
) -> IndexPage:
    """The front page."""
    regressions = sorted(
        (c for found in cps.values() for c in found if c["regression"]),
        key=lambda c: (c["batch"], c["suite"], c["metric"], c["label"]),
        reverse=True,
    )
    by_night: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in data.nightly:
        by_night[row["batch"]].append(row)
    compare = paths.compare_index_path(data.baseline_label, data.candidate_label)
    pair_nights = {p.batch for p in data.pairs}
    nights = [
        {
            "batch": n,
            "rows": sorted(rows, key=lambda r: (r["suite"], r["label"])),
            "href": f"{compare}#{night_anchor(n)}" if n in pair_nights else None,
        }
        for n, rows in sorted(by_night.items(), reverse=True)
    ]
    night, verdicts, tasks = _verdicts(data)
    return IndexPage(
        path="index.html", title="Agent runs", nav=nav, build_time=build_time,
        verdict_night=night, verdicts=verdicts, task_classes=tasks,
        regressions=regressions, attention=_attention(data),
        suites=[_suite_summary(data, s) for s in data.suites], nights=nights,
        compare=Link(f"{data.baseline_label} vs {data.candidate_label}", compare) if data.pairs else None,
        loop_runs=loop_run_rows(data),
    )  # fmt: skip

"""The index (regressions first, suites, nights latest first) and per-suite history pages
(each metric over nights, with change points found by :mod:`reportgen.site.changepoints`)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from reportgen.site import charts, fmt, paths
from reportgen.site.changepoints import ALPHA as CP_ALPHA
from reportgen.site.changepoints import ChangePoint, change_points
from reportgen.site.context import HistoryPage, IndexPage, Link
from reportgen.site.data import SiteData
from reportgen.site.notes_html import render_notes
from reportgen.site.pages_compare import (
    ALL_SUITES,
    NightStats,
    broken_links,
    night_anchor,
    night_rows,
    night_statistics,
    pair_row,
)
from reportgen.site.pages_convergence import convergence_history_charts, convergence_rows
from reportgen.site.pages_iterations import loop_run_rows
from reportgen.site.pages_reliability import reliability_charts, reliability_view
from reportgen.site.pages_runs import _pair_row
from reportgen.site.pages_spend import index_avoidable
from reportgen.statistics.methods import benjamini_hochberg
from reportgen.statistics.report import task_lines

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


def _signed(value: float, show: Callable[[float | None], str]) -> str:
    """A change in the metric's own format, with its sign."""
    return ("\N{MINUS SIGN}" if value < 0 else "+") + show(abs(value))


def _interval_text(cp: ChangePoint, show: Callable[[float | None], str]) -> str | None:
    """The change point's 95 % interval in the metric's format (None: too few nights)."""
    if not math.isfinite(cp.low):
        return None
    return f"{_signed(cp.low, show)} to {_signed(cp.high, show)}"


def _evidence_text(
    cp: ChangePoint, show: Callable[[float | None], str], q: float, flagged: bool
) -> str:
    """A change point's evidence in words: both levels with their nights, the interval, the
    p-value and its Benjamini-Hochberg q-value over the site's change points."""
    nights = f"{cp.n_before} night{'s' * (cp.n_before != 1)} at {show(cp.before)}"
    nights += f", then {cp.n_after} at {show(cp.after)}"
    interval = _interval_text(cp, show)
    if interval is None:
        return f"{nights}; too few nights for an interval: within noise"
    verdict = "more than noise" if flagged else "within noise"
    return (
        f"{nights}; change {_signed(cp.after - cp.before, show)}, 95 % CI {interval}"
        f" (p = {cp.p_value:.2g}, q = {q:.2g}): {verdict}"
    )


def suite_change_points(data: SiteData) -> dict[str, list[dict[str, Any]]]:
    """Change points of every nightly series, per suite, latest night first, each with its
    evidence. The site flags many series at once, so their p-values are adjusted together by
    Benjamini-Hochberg (false discovery rate at 0.05): ``kind`` is ``regression`` or
    ``improvement`` only when the step's interval excludes 0 and its q-value is below 0.05,
    else ``within_noise``."""
    compare = paths.compare_index_path(data.baseline_label, data.candidate_label)
    pair_rows = [_pair_row(p) for p in data.pairs]
    found: list[tuple[str, str, str, str, str, bool, ChangePoint, Any, bool]] = []
    for suite in data.suites:
        sources = [([r for r in data.nightly if r["suite"] == suite], "label", METRICS)]
        compared = _compared(data, pair_rows, suite)
        sources.append((compared, "series", PAIR_METRICS))
        nights = {r["batch"] for r in compared}
        for rows, by, metrics in sources:
            for key, title, _axis, worse_up, show in metrics:
                for label, values in sorted(_series(rows, key, by).items()):
                    for cp in change_points([v for _, v in values]):
                        night = values[cp.index][0]
                        worse = (cp.after > cp.before) == worse_up
                        found.append(
                            (suite, key, title, label, night, worse, cp, show, night in nights)
                        )
    q = benjamini_hochberg([cp.p_value for *_, cp, _show, _n in found])
    out: dict[str, list[dict[str, Any]]] = {suite: [] for suite in data.suites}
    for (suite, key, title, label, night, worse, cp, show, compared_night), qv in zip(
        found, q, strict=True
    ):
        flagged = cp.significant and bool(qv < CP_ALPHA)
        kind = ("regression" if worse else "improvement") if flagged else "within_noise"
        out[suite].append({
            "suite": suite, "metric": key, "title": title, "label": label, "batch": night,
            "before": cp.before, "after": cp.after, "relative": cp.relative,
            "before_text": show(cp.before), "after_text": show(cp.after),
            "n_before": cp.n_before, "n_after": cp.n_after,
            "ci_low": charts.r6(cp.low), "ci_high": charts.r6(cp.high),
            "p_value": charts.r6(cp.p_value), "q_value": charts.r6(float(qv)), "kind": kind,
            "ci_text": _interval_text(cp, show),
            "evidence": _evidence_text(cp, show, float(qv), flagged),
            "regression": kind == "regression",
            "href": f"{compare}#{night_anchor(night)}" if compared_night else None,
            "history": paths.history_path(suite),
        })  # fmt: skip
    for cps in out.values():
        cps.sort(key=lambda c: (c["batch"], c["regression"], c["metric"], c["label"]), reverse=True)
    return out


def _marks(cps: list[dict[str, Any]], metric: str) -> list[charts.Mark]:
    """The change points of one metric only, as chart marks with their evidence."""
    return [
        charts.Mark(c["label"], c["batch"], f"{c['kind'].replace('_', ' ')}: {c['evidence']}",
                    c["kind"] != "within_noise")
        for c in cps
        if c["metric"] == metric
    ]  # fmt: skip


def history_pages(
    data: SiteData,
    nav: list[Link],
    cps: dict[str, list[dict[str, Any]]],
    nights: NightStats | None = None,
) -> list[HistoryPage]:
    """One history page per suite; each chart rings only its own metric's change points.
    With the comparison, the suite's label-level verdicts of every night are listed too."""
    pages = []
    pair_rows = [_pair_row(p) for p in data.pairs]
    stats = night_statistics(data) if nights is None else nights
    for suite in data.suites:
        rows = [r for r in data.nightly if r["suite"] == suite]
        found = cps[suite]
        figures = [
            charts.nightly_lines(key, title, axis, _series(rows, key, "label"), _marks(found, key))
            for key, title, axis, _, _ in METRICS
        ]
        compared = _compared(data, pair_rows, suite)
        if compared:
            figures += [
                charts.nightly_lines(
                    key, title, axis, _series(compared, key, "series"), _marks(found, key)
                )
                for key, title, axis, _, _ in PAIR_METRICS
            ]
        figures += convergence_history_charts(data, suite)
        verdicts = [
            v for (s, _), v in sorted(stats.items(), key=lambda kv: kv[0][1], reverse=True)
            if s == suite
        ]  # fmt: skip
        reliable = reliability_view(data.reliability, [suite])
        pages.append(HistoryPage(
            path=paths.history_path(suite), title=f"History of {suite}", nav=nav,
            charts=figures + reliability_charts(reliable),
            suite=suite, change_points=found,
            table=sorted(rows, key=lambda r: (r["batch"], r["label"]), reverse=True),
            convergence=convergence_rows(data, suite),
            reliability_columns=reliable.columns, reliability=reliable.rows,
            reliability_changes=reliable.changes,
            notes=[
                n
                for note in data.suite_notes.get(suite, [])
                if (n := render_notes(note, data.redact_notes)) is not None
            ],
            night_verdicts=[
                {"batch": v["batch"], "href": f"{paths.compare_index_path(data.baseline_label, data.candidate_label)}#{night_anchor(v['batch'])}",
                 "rows": [r for r in v["rows"] if r["verdict"] in ("regression", "improvement")]}
                for v in verdicts
            ],
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
    sources = [(c.baseline_label, c.candidate_label, c.pairs) for c in data.comparisons] or [
        (data.baseline_label, data.candidate_label, data.pairs)
    ]
    comparisons = [
        Link(f"{base} vs {cand}", paths.compare_index_path(base, cand))
        for base, cand, pairs in sources
        if any(p.suite == suite for p in pairs)
    ]
    return {
        "suite": suite,
        "history": paths.history_path(suite),
        "labels": labels,
        "tasks": [Link(t, paths.task_path(suite, t)) for t in tasks],
        "comparisons": comparisons,  # only those whose pairs include this suite
    }


def _group(rows: list[dict[str, Any]], suite: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["suite"] == suite:
            out[row["label"]].append(row)
    return out


def _attention(data: SiteData) -> list[dict[str, Any]]:
    """Pairs of the latest compared night where the candidate did worse (an outcome lost,
    loops, more wasted effort, cost up over 10 %), newly broken first, then worst first. A
    pair whose outcome was fixed (failed, then passed) did not get worse, whatever it cost."""
    if not data.pairs:
        return []
    latest = max(p.batch for p in data.pairs)
    rows = [pair_row(p) for p in data.pairs if p.batch == latest]
    worse = [
        r
        for r in rows
        if not r["fixed"]
        and (
            r["broken"]
            or r["stagnant_loops"]
            or r["wei_change"] > 0
            or (r["cost_delta"] or 0) > 10
            or (r["reward_delta"] or 0) < 0
        )
    ]
    worse.sort(
        key=lambda r: (not r["broken"], -r["stagnant_loops"], -r["wei_change"], -r["tdi"],
                       r["task_id"], r["trial"])
    )  # fmt: skip
    return worse[:12]


#: The index lists the newest regressions only (a year of nightlies finds thousands); the
#: rest are on the history pages, night by night.
REGRESSIONS_SHOWN = 30


def _regressions(
    data: SiteData, cps: dict[str, list[dict[str, Any]]], nights: NightStats
) -> list[dict[str, Any]]:
    """What the index calls a regression: a label-level verdict ``regression`` of a compared
    night (over its tasks, outcomes first, then path, effort and resource metrics), and a
    nightly step change that is more than the series' noise. A change within noise is not
    listed."""
    compare = paths.compare_index_path(data.baseline_label, data.candidate_label)
    found: list[dict[str, Any]] = []
    for (suite, night), v in nights.items():
        if suite != ALL_SUITES:
            continue
        for order, row in enumerate(v["rows"]):
            if row["verdict"] == "regression":
                found.append({
                    "kind": "verdict", "batch": night, "suite": "all suites", "order": order,
                    "line": row["line"], "explain": row["explain"], "metric": row["metric"],
                    "href": f"{compare}#{night_anchor(night)}", "history": None,
                })  # fmt: skip
    for suite_cps in cps.values():
        for c in suite_cps:
            if c["regression"]:
                found.append({**c, "kind": "step", "order": 100})
    found.sort(key=lambda r: (r["batch"], -r["order"], r["suite"]), reverse=True)
    return found


def _verdicts(
    nights: NightStats,
) -> tuple[str | None, list[dict[str, Any]], str | None, str | None]:
    """The label-level verdicts of the latest compared night (what ``reportgen gate`` judges
    by default): its night, one row per metric, the task classes and the headline."""
    latest = [k for k in nights if k[0] == ALL_SUITES]
    if not latest:
        return None, [], None, None
    v = nights[max(latest)]
    return v["batch"], v["rows"], task_lines(v["tasks"], code=False)[0], v["headline"]


def index_page(
    data: SiteData,
    nav: list[Link],
    cps: dict[str, list[dict[str, Any]]],
    build_time: str,
    nights: NightStats | None = None,
) -> IndexPage:
    """The front page."""
    stats = night_statistics(data) if nights is None else nights
    regressions = _regressions(data, cps, stats)
    within_noise = sum(1 for found in cps.values() for c in found if c["kind"] == "within_noise")
    by_night: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in data.nightly:
        by_night[row["batch"]].append(row)
    compare = paths.compare_index_path(data.baseline_label, data.candidate_label)
    pair_nights = {p.batch for p in data.pairs}
    night_list = [
        {
            "batch": n,
            "rows": sorted(rows, key=lambda r: (r["suite"], r["label"])),
            "href": f"{compare}#{night_anchor(n)}" if n in pair_nights else None,
        }
        for n, rows in sorted(by_night.items(), reverse=True)
    ]
    night, verdicts, tasks, said = _verdicts(stats)
    broken = []
    if night is not None:
        broken = broken_links(
            data, night, stats[(ALL_SUITES, night)]["tasks"]["newly_broken_tasks"]
        )
    return IndexPage(
        path="index.html", title="Agent runs", nav=nav, build_time=build_time,
        verdict_night=night, verdicts=verdicts, task_classes=tasks, headline=said, broken=broken,
        regressions=regressions[:REGRESSIONS_SHOWN],
        regressions_older=max(0, len(regressions) - REGRESSIONS_SHOWN), attention=_attention(data), within_noise=within_noise,
        suites=[_suite_summary(data, s) for s in data.suites], nights=night_list,
        compare=Link(f"{data.baseline_label} vs {data.candidate_label}", compare) if data.pairs else None,
        loop_runs=loop_run_rows(data), avoidable=index_avoidable(data),
        avoidable_nights=data.spend_nights,
    )  # fmt: skip

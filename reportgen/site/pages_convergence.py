"""Convergence pages: one per group of repeated runs (suite, label, task, night with at least
two outputs), and convergence over nights on each suite's history page.

The numbers come from :mod:`reportgen.convergence.archive`: ``convergence_report`` for every
group at once (scores, pairwise matrices, medoids, outliers, outcomes) and ``history_series``;
the outputs are read once with the same group order (``read_members``). Outputs are agent
text: templates escape them; chart labels carry only run numbers."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import duckdb

from reportgen.convergence.archive import convergence_report, history_series
from reportgen.convergence.members import read_members
from reportgen.site import fmt, paths
from reportgen.site.charts import LABEL_COLOURS, chart_text, r6
from reportgen.site.context import Chart, Link, Page

if TYPE_CHECKING:
    from reportgen.convergence.archive import GroupConvergence
    from reportgen.site.data import SiteData

_TOKEN = re.compile(r"\S+")
_FONT = {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 12}
#: Convergence history charts are named ``convergence-<label>`` (the history template puts
#: them in their own section).
CHART_PREFIX = "convergence-"


@dataclass
class ConvergenceData:
    """Every group's convergence with its outputs, and each task's scores over nights."""

    groups: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)


def _group_dict(group: GroupConvergence, outputs: list[str]) -> dict[str, Any]:
    t = group.trajectory
    return {
        "suite": group.suite, "label": group.label, "task_id": group.task_id, "batch": group.batch,
        "num_runs": group.num_runs, "run_ids": group.run_ids, "trials": group.trials,
        "outputs": outputs, "scores": group.scores(),
        "matrix": group.output_similarity, "output_medoid": group.output_medoid,
        "trajectory": None if t is None else {
            "runs_with_path": t.runs_with_path, "mean_tdi": t.mean_tdi, "medoid": t.medoid,
            "distinct_paths": t.distinct_paths, "similarity": t.similarity,
        },
        "outliers": [{"index": o.index, "measure": o.measure, "mean_similarity": o.mean_similarity,
                      "threshold": o.threshold} for o in group.outliers],
        "outcomes": None if group.outcomes is None else {
            "runs_with_outcome": group.outcomes.runs_with_outcome, "passes": group.outcomes.passes,
            "pass_at_k": group.outcomes.pass_at_k, "pass_hat_k": group.outcomes.pass_hat_k,
            "mean_reward": group.outcomes.mean_reward,
        },
    }  # fmt: skip


def load_convergence(con: duckdb.DuckDBPyConnection) -> ConvergenceData:
    """All groups at once (one report, one read of the outputs) and the nightly series."""
    report = convergence_report(con)
    if not report:
        return ConvergenceData()
    members = read_members(con)
    outputs = members.table.column("output").to_pylist()
    by_key = {
        key: outputs[int(members.offsets[g]) : int(members.offsets[g + 1])]
        for g, key in enumerate(members.keys())
    }
    groups = [_group_dict(g, by_key[g.key]) for g in report]
    return ConvergenceData(groups=groups, history=history_series(con))


@dataclass(kw_only=True)
class ConvergencePage(Page):
    """N runs of one task on one night: scores, the pairwise matrix, outputs side by side."""

    template: ClassVar[str] = "convergence.html"
    group: dict[str, Any]
    cards: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    divergence: dict[str, Any]
    trajectory: dict[str, Any] | None
    outcomes: dict[str, Any] | None
    others: list[Link]


def group_path(group: dict[str, Any]) -> str:
    """The page of a group (a dict with suite, label, task_id and batch)."""
    return paths.convergence_path(group["suite"], group["label"], group["task_id"], group["batch"])


def _split(output: str, index: int | None) -> dict[str, str]:
    """The output cut around its ``index``-th whitespace token (the divergence point), keeping
    the original spacing; all in ``before`` when the run ends before the point."""
    if index is not None:
        for i, match in enumerate(_TOKEN.finditer(output)):
            if i == index:
                s, e = match.span()
                return {"before": output[:s], "at": output[s:e], "after": output[e:]}
    return {"before": output, "at": "", "after": ""}


def heatmap(chart_id: str, title: str, matrix: list[list[float]], names: list[str]) -> Chart:
    """The pairwise similarity matrix (runs labelled #1 … #N, as in the outputs below)."""
    z = [[r6(v) for v in row] for row in matrix]
    trace = {
        "type": "heatmap", "z": z, "x": names, "y": names, "zmin": 0, "zmax": 1,
        "colorscale": [[0, "#fbe9e7"], [0.5, "#f4c27a"], [1, "#1f5fa8"]],
        "texttemplate": "%{z:.2f}", "hovertemplate": "%{y} vs %{x}: %{z:.3f}<extra></extra>",
        "colorbar": {"thickness": 10, "len": 0.9},
    }  # fmt: skip
    size = max(220, min(520, 60 + 44 * len(names)))
    layout = {
        "font": _FONT, "height": size, "margin": {"l": 56, "r": 8, "t": 12, "b": 44},
        "xaxis": {"type": "category", "side": "bottom", "title": {"text": "run"}},
        "yaxis": {"type": "category", "autorange": "reversed", "title": {"text": "run"}},
        "paper_bgcolor": "rgba(0,0,0,0)",
    }  # fmt: skip
    return Chart(chart_id, title, {"data": [trace], "layout": layout}, len(names) ** 2)


def _cards(g: dict[str, Any]) -> list[dict[str, Any]]:
    s = g["scores"]
    cards = [
        {"name": "convergence score", "value": fmt.ratio(s["convergence_score"]),
         "note": "0.4 exact + 0.6 token overlap", "warn": s["convergence_score"] < 0.5},
        {"name": "exact match", "value": fmt.share(s["exact_match_rate"]),
         "note": "of run pairs byte-identical", "warn": False},
        {"name": "token overlap", "value": fmt.ratio(s["token_metrics"]["avg_overlap"]),
         "note": f"Jaccard of all {fmt.ratio(s['token_metrics']['jaccard'])}", "warn": False},
    ]  # fmt: skip
    t = g["trajectory"]
    if t is not None:
        cards.append({"name": "paths", "value": str(t["distinct_paths"]),
                      "note": f"distinct step sequences · mean TDI {fmt.ratio(t['mean_tdi'])}",
                      "warn": t["distinct_paths"] > 1})  # fmt: skip
    o = g["outcomes"]
    if o is not None and o["runs_with_outcome"]:
        k = len(o["pass_at_k"])
        cards.append({"name": "outcomes", "value": f"{o['passes']} / {o['runs_with_outcome']} passed",
                      "note": f"pass@{k} {fmt.ratio(o['pass_at_k'][-1], 2)} · pass^{k} {fmt.ratio(o['pass_hat_k'][-1], 2)}",
                      "warn": o["passes"] < o["runs_with_outcome"]})  # fmt: skip
    return cards


def _run_views(g: dict[str, Any], data: SiteData) -> list[dict[str, Any]]:
    position = g["scores"]["divergence_point"]["token_position"]
    diverged = g["scores"]["divergence_point"]["diverges_at_token"] is not None
    outliers: dict[int, list[str]] = defaultdict(list)
    for o in g["outliers"]:
        outliers[o["index"]].append(o["measure"])
    n = g["num_runs"]
    t = g["trajectory"]
    views = []
    for i, (run_id, trial, output) in enumerate(
        zip(g["run_ids"], g["trials"], g["outputs"], strict=True)
    ):
        n_tokens = len(output.split())
        index = position if diverged and position < n_tokens else None
        others = [v for j, v in enumerate(g["matrix"][i]) if j != i]
        run = data.runs_by_id.get(run_id) if run_id is not None else None
        views.append({
            "number": i + 1, "run_id": run_id, "trial": trial, "tokens": n_tokens,
            "text": _split(output, index), "divergence_index": index,
            "mean_similarity": sum(others) / (n - 1) if n > 1 else None,
            "output_medoid": i == g["output_medoid"],
            "trajectory_medoid": t is not None and i == t["medoid"],
            "outlier": sorted(outliers.get(i, [])),
            "success": run["success"] if run else None,
            "href": paths.run_path(run["suite"], run["task_id"], run_id) if run and run_id else None,
        })  # fmt: skip
    return views


def convergence_pages(data: SiteData, nav: list[Link]) -> Iterator[ConvergencePage]:
    """One page per group, linked to the same task's other nights."""
    nights: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for g in data.convergence.groups:
        nights[(g["suite"], g["label"], g["task_id"])].append(g["batch"])
    for g in data.convergence.groups:
        key = {k: g[k] for k in ("suite", "label", "task_id", "batch")}
        names = [f"#{i}" for i in range(1, g["num_runs"] + 1)]
        figures = [
            heatmap(
                "outputs",
                "Output similarity (token-set Jaccard) of each pair of runs",
                g["matrix"],
                names,
            )
        ]
        if g["trajectory"] is not None:
            figures.append(
                heatmap(
                    "paths",
                    "Path similarity (1 - TDI of the step sequences) of each pair",
                    g["trajectory"]["similarity"],
                    names,
                )
            )
        dp = g["scores"]["divergence_point"]
        others = [
            Link(b, paths.convergence_path(g["suite"], g["label"], g["task_id"], b))
            for b in sorted(nights[(g["suite"], g["label"], g["task_id"])])
        ]
        yield ConvergencePage(
            path=group_path(g), title=f"Convergence of {g['task_id']} · {g['label']} · {g['batch']}",
            nav=nav, charts=figures,
            crumbs=[Link(g["suite"], paths.history_path(g["suite"]) + "#convergence"),
                    Link(g["task_id"], paths.task_path(g["suite"], g["task_id"]))],
            group={**key, "num_runs": g["num_runs"]}, cards=_cards(g), runs=_run_views(g, data),
            divergence={"token": dp["diverges_at_token"], "position": dp["token_position"],
                        "diverged": dp["diverges_at_token"] is not None},
            trajectory=g["trajectory"] and {k: v for k, v in g["trajectory"].items() if k != "similarity"},
            outcomes=g["outcomes"], others=others,
        )  # fmt: skip


def convergence_history_charts(data: SiteData, suite: str) -> list[Chart]:
    """One chart per label of ``suite``: each task's convergence score over nights."""
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for series in data.convergence.history:
        if series["suite"] == suite:
            by_label[series["label"]].append(series)
    nights = {p["batch"] for rows in by_label.values() for s in rows for p in s["points"]}
    charts = []
    for label, rows in sorted(by_label.items()):
        if len(nights) == 1:  # a trend of single points says nothing: a bar per task
            charts.append(_one_night_bars(label, rows, next(iter(nights))))
            continue
        traces = []
        for i, s in enumerate(sorted(rows, key=lambda r: r["task_id"])):
            traces.append({
                "type": "scatter", "mode": "lines+markers", "name": _safe(s["task_id"]),
                "x": [chart_text(p["batch"]) for p in s["points"]],
                "y": [r6(p["convergence_score"]) for p in s["points"]],
                "line": {"color": LABEL_COLOURS[i % len(LABEL_COLOURS)]},
                "customdata": [[p["num_runs"], r6(p["exact_match_rate"])] for p in s["points"]],
                "hovertemplate": "%{x}: score %{y}<br>%{customdata[0]} runs, exact match "
                "%{customdata[1]}<extra>%{fullData.name}</extra>",
            })  # fmt: skip
        layout = {
            "font": _FONT, "height": 280, "margin": {"l": 56, "r": 16, "t": 28, "b": 44},
            "legend": {"orientation": "h", "y": 1.14, "x": 0},
            "xaxis": {"title": {"text": "night"}, "type": "category", "automargin": True},
            "yaxis": {"title": {"text": "convergence score"}, "range": [0, 1.05]},
            "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "#fbfbfd",
        }  # fmt: skip
        points = sum(len(s["points"]) for s in rows)
        charts.append(
            Chart(
                CHART_PREFIX + paths.slug(label),
                f"Convergence of repeated runs over nights: {label}",
                {"data": traces, "layout": layout},
                points,
            )
        )
    return charts


def _one_night_bars(label: str, rows: list[dict[str, Any]], night: str) -> Chart:
    """The convergence chart of ``label`` when the suite has one night: a bar per task."""
    ordered = sorted(rows, key=lambda r: r["task_id"])
    points = [s["points"][0] for s in ordered]
    trace = {
        "type": "bar", "name": chart_text(night),
        "x": [_safe(s["task_id"]) for s in ordered],
        "y": [r6(p["convergence_score"]) for p in points],
        "marker": {"color": LABEL_COLOURS[0]},
        "customdata": [[p["num_runs"], r6(p["exact_match_rate"])] for p in points],
        "hovertemplate": "task %{x}: score %{y}<br>%{customdata[0]} runs, exact match "
        "%{customdata[1]}<extra></extra>",
    }  # fmt: skip
    layout = {
        "font": _FONT, "height": 280, "margin": {"l": 56, "r": 16, "t": 28, "b": 44},
        "xaxis": {"title": {"text": "task"}, "type": "category", "automargin": True},
        "yaxis": {"title": {"text": "convergence score"}, "range": [0, 1.05]},
        "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "#fbfbfd",
    }  # fmt: skip
    return Chart(
        CHART_PREFIX + paths.slug(label),
        f"Convergence of repeated runs, night {night}: {label}",
        {"data": [trace], "layout": layout},
        len(points),
    )


def convergence_rows(
    data: SiteData, suite: str, task_id: str | None = None
) -> list[dict[str, Any]]:
    """The groups of ``suite`` (and ``task_id``), latest night first, as table rows."""
    rows = []
    for g in data.convergence.groups:
        if g["suite"] != suite or (task_id is not None and g["task_id"] != task_id):
            continue
        s = g["scores"]
        rows.append({
            "batch": g["batch"], "label": g["label"], "task_id": g["task_id"], "runs": g["num_runs"],
            "score": s["convergence_score"], "exact": s["exact_match_rate"],
            "paths": g["trajectory"]["distinct_paths"] if g["trajectory"] else None,
            "outliers": len({o["index"] for o in g["outliers"]}), "href": group_path(g),
        })  # fmt: skip
    rows.sort(key=lambda r: (r["batch"], r["label"], r["task_id"]), reverse=True)
    return rows


def _safe(text: str) -> str:
    """A task id as a chart label (see ``charts.chart_text``)."""
    return chart_text(text, 40)

"""Iteration pages of coding-loop runs (progress or only activity) and the side-by-side view of
two runs on the same backlog.

The numbers come from :mod:`reportgen.iterations` (``analyse``, ``page_data`` and
``compare_page_data``), so a page shows what the CLI and the gates use. Step ids and run ids
are agent text: the templates escape them, and in chart labels (which Plotly reads as a little
HTML) they are HTML-escaped so they show as text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any, ClassVar

import duckdb

from reportgen.iterations import analyse, compare_page_data, page_data
from reportgen.site import fmt, paths
from reportgen.site.charts import LABEL_COLOURS, chart_text, r6
from reportgen.site.context import Chart, Link, Page

if TYPE_CHECKING:
    from reportgen.site.data import SiteData

RESOLVED, PERSISTING, NEW = "#2e7d32", "#ef6c00", "#c62828"
_FONT = {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 12}


@dataclass
class IterationData:
    """Every coding-loop run's page data, and the pairs of runs on the same backlog."""

    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    pairs: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def partners(self, run_id: str) -> list[str]:
        """Runs compared with ``run_id`` on a side-by-side page."""
        out = [b for a, b in self.pairs if a == run_id]
        return sorted(out + [a for a, b in self.pairs if b == run_id])


def same_backlog(a: Sequence[str], b: Sequence[str]) -> bool:
    """True when two runs work through the same backlog: the same step ids, or (a run that got
    stuck or stopped early) one run's steps, in the order first attempted, are the start of
    the other's."""
    if set(a) == set(b):
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return bool(short) and list(long[: len(short)]) == list(short)


def load_iterations(con: duckdb.DuckDBPyConnection) -> IterationData:
    """Page data of every run with iteration records, and of every same-backlog pair (none,
    without analysing anything, when the archive holds no iteration records)."""
    data = IterationData()
    if not con.execute("SELECT EXISTS (FROM iterations)").fetchall()[0][0]:
        return data
    runs = analyse(con)
    order: dict[str, list[str]] = {}
    for run in runs:
        data.runs[run.run_id] = page_data(con, run.run_id)
        steps = sorted(run.steps, key=lambda s: (s.first_iter, s.step))
        order[run.run_id] = [s.step for s in steps]
    for a, b in combinations(sorted(order), 2):
        if same_backlog(order[a], order[b]):
            data.pairs[(a, b)] = compare_page_data(con, a, b)
    return data


@dataclass(kw_only=True)
class IterationsPage(Page):
    """One coding-loop run: progress at a glance, the failing-set trajectory, thrash evidence."""

    template: ClassVar[str] = "iterations.html"
    run_id: str
    summary: dict[str, Any]
    steps: list[dict[str, Any]]
    related: list[Link]


@dataclass(kw_only=True)
class IterationsComparePage(Page):
    """Two coding-loop runs on the same backlog, side by side."""

    template: ClassVar[str] = "iterations_compare.html"
    runs: list[dict[str, Any]]
    steps: list[dict[str, Any]]
    leader: int | None
    verdict: str


def _chart_text(text: str, limit: int = 28) -> str:
    """Agent text for a chart label: shortened, and HTML-escaped (Plotly reads a little HTML
    in labels and shows entities as the characters they stand for)."""
    return chart_text(text, limit)


def _layout(x_title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "font": _FONT,
        "margin": {"l": 56, "r": 16, "t": 28, "b": 44},
        "height": 300,
        "legend": {"orientation": "h", "y": 1.14, "x": 0},
        "xaxis": {"title": {"text": x_title}, "automargin": True},
        "yaxis": {"title": {"text": y_title}, "automargin": True},
        "hovermode": "closest",
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "#fbfbfd",
    }
    layout.update(extra)
    return layout


def _attempt_rows(step: dict[str, Any], number: int) -> list[dict[str, Any]]:
    """A step's attempts as rows (one per attempt), with the step's number and name."""
    s = step["series"]
    rows = []
    for i in range(len(s["attempt"])):
        rows.append({key: values[i] for key, values in s.items()})
        rows[-1]["number"] = number
        rows[-1]["step"] = step["step"]
    return rows


def _step_bands(steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Alternate shading behind each step's iterations, a red band over thrashing attempts,
    and the step's number on top."""
    shapes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    for number, step in enumerate(steps, 1):
        iters = step["series"]["iter"]
        if not iters:
            continue
        lo, hi = min(iters) - 0.5, max(iters) + 0.5
        if number % 2 == 0:
            shapes.append(_band(lo, hi, "rgba(31,95,168,0.06)"))
        thrash = step["thrash"]
        if thrash and thrash["flagged"] and thrash["iters"]:
            shapes.append(
                _band(
                    min(thrash["iters"]) - 0.5, max(thrash["iters"]) + 0.5, "rgba(198,40,40,0.10)"
                )
            )
        notes.append(
            {
                "x": (lo + hi) / 2,
                "y": 1.0,
                "xref": "x",
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "text": f"S{number}" + (" \u2713" if step["certified"] else ""),
                "hovertext": _chart_text(step["step"], 80),
                "font": {"size": 11, "color": "#2e7d32" if step["certified"] else "#667085"},
            }
        )
    return shapes, notes


def _band(x0: float, x1: float, colour: str) -> dict[str, Any]:
    return {
        "type": "rect", "xref": "x", "yref": "paper", "x0": x0, "x1": x1, "y0": 0, "y1": 1,
        "fillcolor": colour, "line": {"width": 0}, "layer": "below",
    }  # fmt: skip


def failing_chart(steps: list[dict[str, Any]]) -> Chart:
    """Per attempt (x: iteration), the failing set split into persisting and new (stacked up)
    and the failures it resolved (below zero); steps shaded in turn, thrashing attempts red."""
    rows = [r for n, s in enumerate(steps, 1) for r in _attempt_rows(s, n)]
    rows.sort(key=lambda r: r["iter"])
    custom = [
        [f"S{r['number']}", _chart_text(r["step"]), r["attempt"], r["n_failing"]] for r in rows
    ]
    hover = (
        "iteration %{x} · %{customdata[0]} %{customdata[1]} attempt %{customdata[2]}"
        "<br>%{fullData.name}: %{y}<br>failing: %{customdata[3]}<extra></extra>"
    )
    traces = []
    for key, name, colour, sign in (
        ("persisting", "persisting", PERSISTING, 1),
        ("new", "new", NEW, 1),
        ("resolved", "resolved (below 0)", RESOLVED, -1),
    ):
        traces.append(
            {
                "type": "bar",
                "name": name,
                "x": [r["iter"] for r in rows],
                "y": [None if r[key] is None else sign * r[key] for r in rows],
                "marker": {"color": colour},
                "customdata": custom,
                "hovertemplate": hover,
            }
        )
    certified = [r for r in rows if r["certified"]]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "certified",
            "x": [r["iter"] for r in certified],
            "y": [0 for _ in certified],
            "marker": {"symbol": "star", "size": 13, "color": "#1b5e20", "line": {"width": 1, "color": "#fff"}},
            "customdata": [custom[rows.index(r)] for r in certified],
            "hovertemplate": "iteration %{x} · %{customdata[0]} certified<extra></extra>",
        }
    )  # fmt: skip
    shapes, notes = _step_bands(steps)
    layout = _layout("iteration (S1, S2 … = backlog steps; red band: thrashing)", "failures",
                     barmode="relative", bargap=0.15, shapes=shapes, annotations=notes)  # fmt: skip
    layout["xaxis"]["dtick"] = 1 if len(rows) <= 40 else None
    layout["margin"]["t"] = 64
    layout["legend"]["y"] = 1.3
    return Chart(
        "failing",
        "Failing set per attempt: persisting and new failures stacked, resolved ones below zero",
        {"data": traces, "layout": layout},
        len(rows) * 4,
    )


def patch_chart(steps: list[dict[str, Any]]) -> Chart:
    """Patch similarity to the step's previous attempt (left axis) and diff volume against the
    last certified state (right axis), per iteration; lines break between steps."""
    xs: list[int | None] = []
    sim: list[float | None] = []
    vol: list[int | None] = []
    for n, step in enumerate(steps, 1):
        if n > 1:
            xs.append(None)
            sim.append(None)
            vol.append(None)
        for r in _attempt_rows(step, n):
            xs.append(r["iter"])
            sim.append(r6(r["patch_distance"]))
            vol.append(r["diff_volume"])
    traces = [
        {"type": "scatter", "mode": "lines+markers", "name": "patch similarity (1 = same patch)",
         "x": xs, "y": sim, "line": {"color": LABEL_COLOURS[0]}, "connectgaps": False},
        {"type": "scatter", "mode": "lines+markers", "name": "diff volume (lines)", "x": xs,
         "y": vol, "yaxis": "y2", "line": {"color": LABEL_COLOURS[1], "dash": "dot"},
         "connectgaps": False},
    ]  # fmt: skip
    shapes, notes = _step_bands(steps)
    layout = _layout("iteration", "patch similarity", shapes=shapes, annotations=notes)
    layout["yaxis"]["range"] = [0, 1.05]
    layout["yaxis2"] = {
        "title": {"text": "diff lines"}, "overlaying": "y", "side": "right",
        "rangemode": "tozero", "showgrid": False, "automargin": True,
    }  # fmt: skip
    layout["margin"]["t"] = 64
    layout["legend"]["y"] = 1.3
    layout["margin"]["r"] = 56
    return Chart(
        "patch",
        "Patch similarity to the previous attempt and diff volume since the last certified state",
        {"data": traces, "layout": layout},
        2 * len(xs),
    )


def spend_chart(steps: list[dict[str, Any]]) -> Chart:
    """Spend (USD) per backlog step, coloured by outcome: certified, open, thrashing."""
    colours = {"certified": RESOLVED, "not certified": "#7a7a7a", "thrashing": NEW}
    traces = []
    for kind, colour in colours.items():
        picked = [(n, s) for n, s in enumerate(steps, 1) if _outcome(s) == kind]
        if not picked:
            continue
        traces.append(
            {
                "type": "bar",
                "name": kind,
                "x": [f"S{n}" for n, _ in picked],
                "y": [r6(s["usd"]) for _, s in picked],
                "marker": {"color": colour},
                "customdata": [[_chart_text(s["step"]), s["n_attempts"], s["tokens"]] for _, s in picked],
                "hovertemplate": "%{x} %{customdata[0]}: $%{y}<br>%{customdata[1]} attempts, "
                "%{customdata[2]} tokens<extra>%{fullData.name}</extra>",
            }
        )  # fmt: skip
    layout = _layout("backlog step", "USD")
    layout["xaxis"]["type"] = "category"
    layout["xaxis"]["categoryorder"] = "array"
    layout["xaxis"]["categoryarray"] = [f"S{n}" for n in range(1, len(steps) + 1)]
    return Chart("spend", "Spend per backlog step", {"data": traces, "layout": layout}, len(steps))


def progress_chart(series: list[tuple[str, dict[str, list[Any]]]]) -> Chart:
    """Certified steps against cumulative spend, one line per run: what the money bought."""
    traces = []
    for i, (name, p) in enumerate(series):
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": _chart_text(name, 48),
                "x": [0.0, *(r6(v) for v in p["cumulative_usd"])],
                "y": [0, *p["certified_steps"]],
                "line": {"color": LABEL_COLOURS[i % len(LABEL_COLOURS)], "shape": "hv"},
                "customdata": [[0], *([it] for it in p["iter"])],
                "hovertemplate": "$%{x} spent by iteration %{customdata[0]}: %{y} certified"
                "<extra></extra>",
            }
        )
    layout = _layout("cumulative spend (USD)", "certified steps")
    layout["yaxis"]["rangemode"] = "tozero"
    layout["yaxis"]["dtick"] = 1
    points = sum(len(p["iter"]) for _, p in series)
    return Chart(
        "progress", "Certified steps against spend", {"data": traces, "layout": layout}, points
    )


def _outcome(step: dict[str, Any]) -> str:
    if step["certified"]:
        return "certified"
    thrash = step["thrash"]
    return "thrashing" if thrash and thrash["flagged"] else "not certified"


def _summary_view(summary: dict[str, Any]) -> dict[str, Any]:
    """The run summary plus the figures the page leads with, formatted."""
    view = dict(summary)
    view["usd_text"] = fmt.usd(summary["usd"])
    view["per_certified_text"] = fmt.usd(summary["usd_per_certified_step"])
    view["tokens_per_certified_text"] = fmt.num(summary["tokens_per_certified_step"])
    view["marginal_text"] = fmt.usd(summary["marginal_usd"])
    view["tool_error_text"] = fmt.share(summary["tool_error_rate"])
    view["thrashing"] = bool(summary["thrash_steps"])
    return view


def _step_view(step: dict[str, Any], number: int) -> dict[str, Any]:
    thrash = step["thrash"]
    return {
        "number": number,
        "anchor": f"s{number}",
        "step": step["step"],
        "outcome": _outcome(step),
        "certified": step["certified"],
        "certified_attempt": step["certified_attempt"],
        "certified_iter": step["certified_iter"],
        "check": step["check"],
        "check_kind": step["check_kind"],
        "normaliser": step["normaliser"],
        "n_attempts": step["n_attempts"],
        "tokens": step["tokens"],
        "usd": step["usd"],
        "thrash": thrash if thrash and thrash["flagged"] else None,
        "attempts": _attempt_rows(step, number),
    }


def loop_run_rows(data: SiteData) -> list[dict[str, Any]]:
    """The index's list of coding-loop runs: certified / attempted steps, spend per certified
    step, thrash flag, and the side-by-side pages each run takes part in."""
    loops = data.iterations
    rows = []
    for run_id, page in sorted(loops.runs.items()):
        s = page["summary"]
        rows.append({
            "run_id": run_id, "href": paths.iterations_path(run_id),
            "certified": s["certified_steps"], "steps": s["n_steps"], "attempts": s["n_attempts"],
            "usd": s["usd"], "usd_per_certified": s["usd_per_certified_step"],
            "thrash_steps": s["thrash_steps"],
            "compare": [Link(f"vs {b if a == run_id else a}", paths.iterations_compare_path(a, b)) for a, b in sorted(loops.pairs) if run_id in (a, b)],
        })  # fmt: skip
    return rows


def iteration_links(data: SiteData, run_id: str) -> list[Link]:
    """The run page's link to the run's iteration page (when it has iteration records)."""
    if run_id not in data.iterations.runs:
        return []
    return [Link("Iterations: progress per backlog step", paths.iterations_path(run_id))]


def _compare_link(a: str, b: str, this: str) -> Link:
    other = b if this == a else a
    return Link(f"side by side with {other}", paths.iterations_compare_path(a, b))


def iteration_pages(data: SiteData, nav: list[Link]) -> Iterator[Page]:
    """One page per coding-loop run, and one per pair of runs on the same backlog."""
    loops = data.iterations
    for run_id, raw in sorted(loops.runs.items()):
        steps = raw["steps"]
        related = []
        if run_id in data.runs_by_id:
            run = data.runs_by_id[run_id]
            related.append(
                Link("Trace of this run", paths.run_path(run["suite"], run["task_id"], run_id))
            )
        related += [_compare_link(a, b, run_id) for a, b in loops.pairs if run_id in (a, b)]
        figures = [progress_chart([(run_id, raw["progress"])])] if steps else []
        if steps:
            figures += [failing_chart(steps), patch_chart(steps), spend_chart(steps)]
        yield IterationsPage(
            path=paths.iterations_path(run_id), title=f"Iterations of {run_id}", nav=nav,
            crumbs=[Link("Coding-loop runs", "index.html#loop-runs")], charts=figures,
            run_id=run_id, summary=_summary_view(raw["summary"]),
            steps=[_step_view(s, n) for n, s in enumerate(steps, 1)], related=related,
        )  # fmt: skip
    for (a, b), raw in sorted(loops.pairs.items()):
        yield _compare_page(a, b, raw, nav)


def _compare_page(a: str, b: str, raw: dict[str, Any], nav: list[Link]) -> IterationsComparePage:
    runs = []
    for i, (run_id, summary) in enumerate(zip((a, b), raw["runs"], strict=True)):
        view = _summary_view(summary)
        view["href"] = paths.iterations_path(run_id)
        view["side"] = "AB"[i]
        runs.append(view)
    leader = _leader(runs)
    if leader is None:
        verdict = "Neither run is ahead: the same certified steps at the same spend per step."
    else:
        lead, other = runs[leader], runs[1 - leader]
        verdict = (
            f"Run {lead['side']} is making more progress: {lead['certified_steps']} of "
            f"{lead['n_steps']} steps certified at {lead['per_certified_text']} each, against "
            f"{other['certified_steps']} of {other['n_steps']} at {other['per_certified_text']}"
            + (f"; run {other['side']} is thrashing on {', '.join(other['thrash_steps'])}"
               if other["thrash_steps"] else "")
            + "."
        )  # fmt: skip
    steps = []
    for n, row in enumerate(raw["steps"], 1):
        steps.append(
            {"number": n, "step": row["step"], "a": _brief(row["a"]), "b": _brief(row["b"])}
        )
    progress = [(f"A: {a}", raw["progress"]["a"]), (f"B: {b}", raw["progress"]["b"])]
    return IterationsComparePage(
        path=paths.iterations_compare_path(a, b), title="Two runs on the same backlog", nav=nav,
        crumbs=[Link("Coding-loop runs", "index.html#loop-runs")],
        charts=[progress_chart(progress)], runs=runs, steps=steps, leader=leader, verdict=verdict,
    )  # fmt: skip


def _brief(step: dict[str, Any] | None) -> dict[str, Any] | None:
    if step is None:
        return None
    outcome = (
        "certified" if step["certified"] else ("thrashing" if step["thrash"] else "not certified")
    )
    return {**step, "outcome": outcome}  # fmt: skip


def _leader(runs: list[dict[str, Any]]) -> int | None:
    """The run making more progress: more certified steps, then less spend per certified
    step, then fewer thrashing steps; None when they tie."""

    def key(r: dict[str, Any]) -> tuple[float, float, float]:
        per = r["usd_per_certified_step"]
        return (
            -r["certified_steps"],
            per if per is not None else float("inf"),
            len(r["thrash_steps"]),
        )

    ka, kb = key(runs[0]), key(runs[1])
    if ka == kb:
        return None
    return 0 if ka < kb else 1

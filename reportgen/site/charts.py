"""Chart figures as plain Plotly data/layout dicts (no plotly.graph_objects: building and
validating thousands of figure objects would dominate the build). Numbers are rounded so
the same archive always gives the same bytes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportgen.site.context import Chart, StepView

STATUS_COLOURS = {"ok": "#2e7d32", "error": "#c62828", "retry": "#ef6c00", "abandoned": "#6a1b9a"}
LABEL_COLOURS = ("#1f5fa8", "#d1495b", "#2a9d8f", "#e9a23b", "#6c4f9c", "#7a7a7a")
VERDICT_AXIS_LIMIT = 10.0  # the verdict chart's x axis: at most ± this many minimum effects
_FONT = {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 12}


def chart_text(text: object, limit: int | None = None) -> str:
    """Agent text for any text Plotly draws (trace names, hover text and custom data, tick
    labels of category axes, annotations, titles): shortened to ``limit`` characters, with
    ``&``, ``<`` and ``>`` as entities. Plotly reads a subset of HTML in these (links, bold,
    line breaks) and shows entities as the characters they stand for, so the text reads as
    itself and never becomes markup."""
    value = str(text)
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "\u2026"
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def r6(value: float | None) -> float | None:
    """Round to 6 significant digits (None and non-finite values become None)."""
    if value is None or not math.isfinite(value):
        return None
    return float(f"{value:.6g}")


def _layout(title: str, x_title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    """The shared layout: compact margins, legend on top, no title inside the plot."""
    layout: dict[str, Any] = {
        "font": _FONT,
        "margin": {"l": 56, "r": 16, "t": 28, "b": 44},
        "height": 280,
        "legend": {"orientation": "h", "y": 1.12, "x": 0},
        "xaxis": {"title": {"text": x_title}, "automargin": True},
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero", "automargin": True},
        "hovermode": "closest",
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "#fbfbfd",
        "meta": {"title": title},
    }
    layout.update(extra)
    return layout


def _band(x0: float, x1: float, colour: str) -> dict[str, Any]:
    """A shaded vertical band across the plot (recovery windows, loops)."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "paper",
        "x0": x0,
        "x1": x1,
        "y0": 0,
        "y1": 1,
        "fillcolor": colour,
        "line": {"width": 0},
        "layer": "below",
    }


def step_timeline(chart_id: str, steps: Sequence[StepView]) -> Chart:
    """Latency per step, one bar colour per status; recovery windows and stagnant loops shaded
    (other repeats are not loops and stay plain)."""
    traces = []
    for status, colour in STATUS_COLOURS.items():
        picked = [s for s in steps if s.status == status]
        if not picked:
            continue
        traces.append(
            {
                "type": "bar",
                "name": status,
                "x": [s.idx for s in picked],
                "y": [r6(s.latency_ms or 0.0) for s in picked],
                "marker": {"color": colour},
                "customdata": [
                    [chart_text(s.action), s.tokens_in, s.tokens_out, r6(s.cost_usd)]
                    for s in picked
                ],
                "hovertemplate": "step %{x}: %{customdata[0]}<br>%{y} ms<br>tokens "
                "%{customdata[1]} in / %{customdata[2]} out<br>$%{customdata[3]}<extra>%{fullData.name}</extra>",
            }
        )
    shapes = [_band(s.idx - 0.5, s.idx + 0.5, "rgba(255,193,7,0.22)") for s in steps if s.recovery]
    shapes += [
        _band(s.idx - 0.5, s.idx + 0.5, "rgba(156,39,176,0.12)")
        for s in steps
        if s.loop and s.stagnant
    ]
    layout = _layout("Step timeline", "step", "latency (ms)", shapes=shapes, bargap=0.15)
    return Chart(
        chart_id,
        "Latency per step (bars coloured by status; shaded: recovery windows, stagnant loops)",
        {"data": traces, "layout": layout},
        len(steps),
    )


@dataclass(frozen=True, slots=True)
class Mark:
    """A change point to ring on one label's line: its night, the evidence in words (the
    hover text) and whether it is more than noise (a filled ring) or within it (grey)."""

    label: str
    night: str
    text: str
    significant: bool


def nightly_lines(
    chart_id: str,
    title: str,
    y_title: str,
    series: dict[str, list[tuple[str, float | None]]],
    marks: Sequence[Mark] = (),
) -> Chart:
    """One line per label over nights; ``marks`` (this metric's change points only) put a
    ring on the night a new level starts, with its evidence in the hover text. With a single
    night there is no trend to draw: one bar per label instead (:func:`label_bars`)."""
    nights = {night for values in series.values() for night, _ in values}
    if len(nights) == 1:
        return label_bars(chart_id, title, y_title, series, next(iter(nights)))
    traces: list[dict[str, Any]] = []
    points = 0
    for i, (label, values) in enumerate(sorted(series.items())):
        colour = LABEL_COLOURS[i % len(LABEL_COLOURS)]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": chart_text(label),
                "x": [chart_text(night) for night, _ in values],
                "y": [r6(v) for _, v in values],
                "line": {"color": colour},
            }
        )
        points += len(values)
        flagged = dict(values)
        for significant in (True, False):
            at = [
                m
                for m in marks
                if m.label == label and m.night in flagged and m.significant == significant
            ]
            if not at:
                continue
            kind = "change point" if significant else "change within noise"
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": chart_text(f"{label}: {kind}"),
                    "x": [chart_text(m.night) for m in at],
                    "y": [r6(flagged[m.night]) for m in at],
                    "customdata": [chart_text(m.text) for m in at],
                    "marker": {
                        "size": 14 if significant else 11,
                        "symbol": "circle-open" if significant else "diamond-open",
                        "color": colour if significant else "#8a8a8a",
                        "line": {"width": 2},
                    },
                    "hovertemplate": "%{x}: %{customdata}<extra>%{fullData.name}</extra>",
                }
            )
    layout = _layout(title, "night", y_title)
    layout["xaxis"]["type"] = "category"
    return Chart(chart_id, title, {"data": traces, "layout": layout}, points)


def label_bars(
    chart_id: str,
    title: str,
    y_title: str,
    series: dict[str, list[tuple[str, float | None]]],
    night: str,
) -> Chart:
    """One bar per label for the only night there is (a trend of single points says
    nothing)."""
    labels = sorted(series)
    values = [r6(dict(series[label]).get(night)) for label in labels]
    traces = [
        {
            "type": "bar",
            "name": chart_text(night),
            "x": [chart_text(label) for label in labels],
            "y": values,
            "marker": {
                "color": [LABEL_COLOURS[i % len(LABEL_COLOURS)] for i in range(len(labels))]
            },
        }
    ]
    layout = _layout(f"{title} (night {night})", "label", y_title)
    layout["xaxis"]["type"] = "category"
    return Chart(chart_id, title, {"data": traces, "layout": layout}, len(labels))


def verdict_bars(
    chart_id: str, rows: Sequence[dict[str, Any]], metrics: Sequence[dict[str, Any]]
) -> Chart:
    """The label-level verdicts as a dot per metric with its confidence interval as an error
    bar, in units of the metric's minimum effect of interest (dotted lines at ±1: inside them
    a change is too small to matter). Colour: the verdict; hover: the numbers in the metric's
    own units and what they mean."""
    colours = {"regression": "#c62828", "improvement": "#2e7d32", "no_change": "#1f5fa8",
               "inconclusive": "#8a8a8a"}  # fmt: skip
    picked_by: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    reach: list[float] = []  # how far from 0 the dots and intervals go
    for verdict in colours:
        picked_by[verdict] = [
            (r, m)
            for r, m in zip(rows, metrics, strict=True)
            if m["verdict"] == verdict and m["delta"] is not None and m["min_effect"] > 0
        ]
        for _r, m in picked_by[verdict]:
            reach += [abs(v) / m["min_effect"] for v in (m["delta"], m["ci_low"], m["ci_high"])
                      if v is not None]  # fmt: skip
    edge = min(max([2.0, *reach]) * 1.1, VERDICT_AXIS_LIMIT)
    traces = []
    annotations: list[dict[str, Any]] = []
    for verdict, colour in colours.items():
        picked = picked_by[verdict]
        if not picked:
            continue
        x: list[float | None] = []
        minus: list[float | None] = []
        plus: list[float | None] = []
        y: list[str] = []
        symbols: list[str] = []
        text: list[list[str]] = []
        for r, m in picked:
            scale = m["min_effect"]
            at = m["delta"] / scale
            low, high = m["ci_low"], m["ci_high"]
            label = chart_text(r["label"])
            if abs(at) > edge:  # off the axis: an arrow at its edge, and the number beside it
                side = 1.0 if at > 0 else -1.0
                x.append(r6(side * edge))
                minus.append(None)
                plus.append(None)
                symbols.append("triangle-right" if side > 0 else "triangle-left")
                annotations.append(
                    {"x": side * edge, "y": label, "xref": "x", "yref": "y",
                     "text": chart_text(f"{r.get('delta') or f'{at:+.3g}'} ({at:+.3g} min. effects)"),
                     "showarrow": False, "xanchor": "right" if side > 0 else "left",
                     "xshift": -10 * side, "yshift": 10, "font": {"color": colour, "size": 11}}
                )  # fmt: skip
            else:
                x.append(r6(at))
                minus.append(r6((m["delta"] - low) / scale) if low is not None else None)
                plus.append(r6((high - m["delta"]) / scale) if high is not None else None)
                symbols.append("circle")
            y.append(label)
            text.append([chart_text(r["line"]), f"{scale:g}"])
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": verdict.replace("_", " "),
                "x": x,
                "y": y,
                "error_x": {"type": "data", "symmetric": False, "array": plus,
                            "arrayminus": minus, "color": colour, "thickness": 2, "width": 6},
                "marker": {"color": colour, "size": 10, "symbol": symbols},
                "customdata": text,
                "cliponaxis": False,
                "hovertemplate": "%{customdata[0]}<br>minimum effect of interest "
                "%{customdata[1]}<extra></extra>",
            }
        )  # fmt: skip
    order = [chart_text(r["label"]) for r in rows]
    shapes = [
        {"type": "line", "xref": "x", "yref": "paper", "x0": v, "x1": v, "y0": 0, "y1": 1,
         "line": {"color": "#9e9e9e", "width": 1, "dash": "dot" if v else "solid"}}
        for v in (-1, 0, 1)
    ]  # fmt: skip
    layout = _layout(
        "Verdicts",
        f"change / minimum effect of interest (dotted: ±1; axis cut at ±{VERDICT_AXIS_LIMIT:g})",
        "metric",
        shapes=shapes,
        annotations=annotations,
        height=60 + 34 * max(len(rows), 1),
    )
    layout["yaxis"] = {"type": "category", "categoryorder": "array", "title": {"text": "metric"},
                       "categoryarray": order[::-1], "automargin": True}  # fmt: skip
    layout["xaxis"]["range"] = [-edge, edge]  # a huge interval would flatten every other one
    return Chart(
        chart_id,
        "Change of each metric with the interval its verdict is read from (at its family's "
        "level), in units of its minimum effect",
        {"data": traces, "layout": layout},
        len(rows),
    )


def scatter_points(
    label: str,
    x: list[float | None],
    y: list[float | None],
    minus: list[float | None],
    plus: list[float | None],
    text: list[str],
    index: int,
) -> dict[str, Any]:
    """One label's points of the cost/success scatter, with error bars on the pass rate."""
    colour = LABEL_COLOURS[index % len(LABEL_COLOURS)]
    return {
        "type": "scatter",
        "mode": "markers",
        "name": chart_text(label),
        "x": x,
        "y": y,
        "error_y": {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus,
                    "color": colour, "thickness": 1.5, "width": 4},
        "marker": {"color": colour, "size": 10},
        "customdata": text,
        "hovertemplate": "%{customdata}<extra></extra>",
    }  # fmt: skip


def frontier_line(points: Sequence[tuple[float, float, str]]) -> list[dict[str, Any]]:
    """The Pareto frontier of (cost, success) points: from the cheapest, each point that
    passes more often than every cheaper one (none when fewer than two points)."""
    best = -math.inf
    front = []
    for cost, rate, label in sorted(points, key=lambda p: (p[0], -p[1])):
        if rate > best:
            front.append((cost, rate, label))
            best = rate
    if len(points) < 2:
        return []
    return [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "marker": {"symbol": "diamond-open", "size": 16, "color": "#555"},
            "name": "frontier (latest night)",
            "x": [r6(c) for c, _, _ in front],
            "y": [r6(r) for _, r, _ in front],
            "line": {"color": "#555", "dash": "dash", "shape": "hv"},
            "hoverinfo": "skip",
        }
    ]


def cost_success_chart(chart_id: str, traces: list[dict[str, Any]], points: int) -> Chart:
    """The cost-vs-success scatter of the labels."""
    layout = _layout("Cost and success", "mean cost per run (USD)", "pass rate of runs")
    layout["yaxis"]["range"] = [0, 1.05]
    layout["yaxis"]["tickformat"] = ".0%"
    return Chart(
        chart_id,
        "Cost against success, one point per label and night (error bars: 95 % Wilson "
        "interval of the pass rate; dashed: the cheapest labels no other beats)",
        {"data": traces, "layout": layout},
        points,
    )


def cumulative_cost(
    chart_id: str, baseline: Sequence[StepView], candidate: Sequence[StepView]
) -> Chart:
    """Running cost over steps for both sides of a pair: the level over [k, k + 1] is the cost
    once step k (0-based) is done, so every step, the last one too, shows as a level."""
    traces = []
    for (name, steps), colour in zip(
        (("baseline", baseline), ("candidate", candidate)), LABEL_COLOURS, strict=False
    ):
        total = 0.0
        ys: list[float | None] = [0.0]
        for s in steps:
            total += s.cost_usd or 0.0
            ys.append(r6(total))
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": name,
                "x": list(range(len(steps) + 1)),
                "y": ys,
                "line": {"color": colour, "shape": "vh"},
            }
        )
    layout = _layout("Cumulative cost", "steps done", "cost so far (USD)")
    return Chart(
        chart_id,
        "Cumulative cost by step",
        {"data": traces, "layout": layout},
        len(baseline) + len(candidate),
    )


def _fill(colour: str, alpha: float) -> str:
    """A ``#rrggbb`` colour as ``rgba(...)`` with ``alpha`` (for interval bands)."""
    red, green, blue = (int(colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def _span_text(low: float | None, high: float | None) -> str:
    """An interval as the reliability table prints it ("0.62 to 0.81")."""
    return "no interval" if low is None or high is None else f"{low:.2f} to {high:.2f}"


def nightly_band_lines(
    chart_id: str,
    title: str,
    y_title: str,
    series: dict[str, list[tuple[str, float | None]]],
    bands: dict[str, list[tuple[str, float | None, float | None]]],
    marks: Sequence[Mark] = (),
) -> Chart:
    """:func:`nightly_lines` with each series' interval (``bands``: night, low, high) drawn
    as a shaded band behind its line in the line's colour; with a single night, as error
    bars on :func:`label_bars`' bars. Values are drawn as given (rounded by :func:`r6`)."""
    chart = nightly_lines(chart_id, title, y_title, series, marks)
    labels = sorted(series)
    data: list[dict[str, Any]] = chart.figure["data"]
    spans = {label: {night: (lo, hi) for night, lo, hi in bands.get(label, ())} for label in labels}
    if data and data[0]["type"] == "bar":  # one night: an error bar per label
        night = next(night for values in series.values() for night, _ in values)
        points = [(dict(series[label]).get(night), *spans[label].get(night, (None, None)))
                  for label in labels]  # fmt: skip
        data[0]["error_y"] = {
            "type": "data",
            "symmetric": False,
            "array": [None if v is None or hi is None else r6(hi - v) for v, _, hi in points],
            "arrayminus": [None if v is None or lo is None else r6(v - lo) for v, lo, _ in points],
            "color": "#555",
            "thickness": 1.5,
            "width": 6,
        }
        return chart
    shaded: list[dict[str, Any]] = []
    for i, label in enumerate(labels):
        band = bands.get(label, [])
        if not any(lo is not None and hi is not None for _, lo, hi in band):
            continue
        colour = LABEL_COLOURS[i % len(LABEL_COLOURS)]
        x = [chart_text(night) for night, _, _ in band]
        common = {"type": "scatter", "mode": "lines", "x": x, "line": {"width": 0},
                  "showlegend": False, "hoverinfo": "skip", "legendgroup": chart_text(label)}  # fmt: skip
        shaded.append({**common, "name": chart_text(f"{label}: interval low"),
                       "y": [r6(lo) for _, lo, _ in band]})  # fmt: skip
        shaded.append({**common, "name": chart_text(f"{label}: interval"),
                       "y": [r6(hi) for _, _, hi in band], "fill": "tonexty",
                       "fillcolor": _fill(colour, 0.16)})  # fmt: skip
    lines = (trace for trace in data if trace["mode"] == "lines+markers")
    for label, trace in zip(labels, lines, strict=True):  # nightly_lines: one per label, sorted
        trace["legendgroup"] = trace["name"]  # the band hides and shows with its line
        trace["customdata"] = [_span_text(*spans[label].get(night, (None, None)))
                               for night, _ in series[label]]  # fmt: skip
        trace["hovertemplate"] = (
            "%{x}: %{y:.2f} (95 % CI %{customdata})<extra>%{fullData.name}</extra>"
        )
    chart.figure["data"] = shaded + data
    layout = chart.figure["layout"]
    layout["xaxis"]["categoryorder"] = "category ascending"
    # the legend grows upwards when it wraps on a narrow screen (rings add entries), so a
    # second row pushes the top margin instead of covering the plot
    layout["legend"] = {**layout["legend"], "y": 1.02, "yanchor": "bottom"}
    return chart

"""Chart figures as plain Plotly data/layout dicts (no plotly.graph_objects: building and
validating thousands of figure objects would dominate the build). Numbers are rounded so
the same archive always gives the same bytes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from reportgen.site.context import Chart, StepView

STATUS_COLOURS = {"ok": "#2e7d32", "error": "#c62828", "retry": "#ef6c00", "abandoned": "#6a1b9a"}
LABEL_COLOURS = ("#1f5fa8", "#d1495b", "#2a9d8f", "#e9a23b", "#6c4f9c", "#7a7a7a")
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
    """Latency per step, one bar colour per status; recovery windows and loops shaded."""
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
    shapes += [_band(s.idx - 0.5, s.idx + 0.5, "rgba(156,39,176,0.12)") for s in steps if s.loop]
    layout = _layout("Step timeline", "step", "latency (ms)", shapes=shapes, bargap=0.15)
    return Chart(
        chart_id,
        "Latency per step (bars coloured by status; shaded: recovery windows, loops)",
        {"data": traces, "layout": layout},
        len(steps),
    )


def nightly_lines(
    chart_id: str,
    title: str,
    y_title: str,
    series: dict[str, list[tuple[str, float | None]]],
    marks: Sequence[tuple[str, str]] = (),
) -> Chart:
    """One line per label over nights; ``marks`` (label, night) put a ring on change points."""
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
        at = [night for lab, night in marks if lab == label and night in flagged]
        if at:
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": chart_text(f"{label}: change point"),
                    "x": [chart_text(night) for night in at],
                    "y": [r6(flagged[n]) for n in at],
                    "marker": {
                        "size": 14,
                        "symbol": "circle-open",
                        "color": colour,
                        "line": {"width": 2},
                    },
                    "hoverinfo": "x+name",
                }
            )
    layout = _layout(title, "night", y_title)
    layout["xaxis"]["type"] = "category"
    return Chart(chart_id, title, {"data": traces, "layout": layout}, points)


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

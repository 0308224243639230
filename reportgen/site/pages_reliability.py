"""The reliability profile on a suite's page and on a comparison's page: one row per night
and label (the history), each measure with its interval, and the change points of each
measure's series over the nights (:mod:`reportgen.statistics.reliability`; template
``_reliability.html``; change points by :mod:`reportgen.site.changepoints`)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from reportgen.gating.metrics import RELIABILITY_METRICS
from reportgen.site.changepoints import ChangePoint, change_points
from reportgen.statistics.methods import benjamini_hochberg
from reportgen.statistics.reliability import ReliabilityMeasure, ReliabilityProfile

if TYPE_CHECKING:
    from reportgen.site.context import Chart

#: False discovery rate over the reliability series' change points (as the suite page's other
#: change points are flagged).
FDR = 0.05
#: Every measure is a score, higher more reliable: 1 - something for the consistencies, a
#: difference of pass shares for robustness.
UNITS = {"robustness": "pass-share points, perturbed minus clean"}
UNIT = "score 0 to 1, 1 = the same over every repeat"


def _cell(measure: ReliabilityMeasure | None) -> dict[str, Any]:
    if measure is None:
        return {
            "text": "n/a",
            "interval": "",
            "few": False,
            "value": None,
            "low": None,
            "high": None,
            "tasks": 0,
            "trials": "",
        }
    interval = (
        ""
        if measure.ci_low is None or measure.ci_high is None
        else f"{measure.ci_low:.2f} to {measure.ci_high:.2f}"
    )
    return {
        "text": f"{measure.estimate:.2f}",
        "interval": interval,
        "few": measure.too_few_repeats,
        "value": measure.estimate,
        "low": measure.ci_low,
        "high": measure.ci_high,
        "tasks": measure.n_tasks,
        "trials": f"{measure.trials:g}",
    }


@dataclass(frozen=True, slots=True)
class ReliabilityChange:
    """A change point of one measure's series over the nights of one suite and label: the
    night its new level starts, both levels with their nights, the 95 % interval of the
    change and whether it is more than the night-to-night noise (Benjamini-Hochberg over
    every reliability series shown)."""

    suite: str
    label: str
    measure: str
    header: str
    batch: str
    before: float
    after: float
    n_before: int
    n_after: int
    interval: str | None  # "-0.31 to -0.12"; None: too few nights
    kind: Literal["regression", "improvement", "within_noise"]

    @property
    def change(self) -> str:
        return f"{self.after - self.before:+.2f}"


@dataclass(frozen=True, slots=True)
class ReliabilityView:
    """What ``_reliability.html`` shows: the measures present (columns), one row per suite,
    night and label (newest night first), the change points, and whether rows name their
    suite (a comparison over several suites)."""

    columns: list[dict[str, Any]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    changes: list[ReliabilityChange] = field(default_factory=list)
    by_suite: bool = False


def reliability_table(
    profiles: list[ReliabilityProfile], suite: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The columns (the measures any of ``suite``'s profiles has, in registry order: name,
    header, definition) and rows (one per night and label, newest night first) of its
    reliability table; none without repeated runs."""
    view = reliability_view(profiles, [suite])
    return view.columns, view.rows


def reliability_view(
    profiles: Sequence[ReliabilityProfile],
    suites: Collection[str],
    labels: Collection[str] | None = None,
) -> ReliabilityView:
    """The reliability of ``suites`` (of ``labels``, default every label) night by night,
    with the change points of each measure's series; empty without repeated runs."""
    mine = sorted(
        (p for p in profiles if p.suite in suites and (labels is None or p.label in labels)),
        key=lambda p: (p.suite or "", p.label),
    )
    mine.sort(key=lambda p: p.batch, reverse=True)
    present = {m.name for p in mine for m in p.measures}
    columns = [
        {
            "name": m.name,
            "header": m.label,
            "definition": m.definition,
            "unit": UNITS.get(m.name, UNIT),
        }
        for m in RELIABILITY_METRICS
        if m.name in present
    ]
    rows = [
        {
            "suite": p.suite,
            "batch": p.batch,
            "label": p.label,
            "cells": [_cell(p.get(c["name"])) for c in columns],
        }
        for p in mine
    ]
    return ReliabilityView(columns, rows, _changes(mine, columns), len(suites) > 1)


def _changes(
    profiles: Sequence[ReliabilityProfile], columns: Sequence[dict[str, Any]]
) -> list[ReliabilityChange]:
    """The change points of every (suite, label, measure) series over the nights, newest
    first; a step is a regression (or improvement) when its interval excludes 0 and its
    Benjamini-Hochberg q-value over all these change points is below :data:`FDR`."""
    series: dict[tuple[str, str], list[ReliabilityProfile]] = defaultdict(list)
    for p in sorted(profiles, key=lambda p: p.batch):
        series[(p.suite or "", p.label)].append(p)
    found: list[tuple[str, str, dict[str, Any], str, ChangePoint]] = []
    for (suite, label), nights in sorted(series.items()):
        for column in columns:
            values = [None if (m := p.get(column["name"])) is None else m.estimate for p in nights]
            for cp in change_points(values):
                found.append((suite, label, column, nights[cp.index].batch, cp))
    q = benjamini_hochberg([cp.p_value for *_, cp in found]).tolist() if found else []
    changes = []
    for (suite, label, column, batch, cp), qv in zip(found, q, strict=True):
        flagged = cp.significant and bool(qv < FDR)
        worse = cp.after < cp.before  # higher is always more reliable
        interval = None if not math.isfinite(cp.low) else f"{cp.low:+.2f} to {cp.high:+.2f}"
        changes.append(
            ReliabilityChange(
                suite,
                label,
                column["name"],
                column["header"],
                batch,
                cp.before,
                cp.after,
                cp.n_before,
                cp.n_after,
                interval,
                ("regression" if worse else "improvement") if flagged else "within_noise",
            )
        )
    changes.sort(key=lambda c: c.batch, reverse=True)
    return changes


#: Chart ids of the reliability charts start so (the page templates draw them in the
#: reliability section, not in their own chart grids).
CHART_PREFIX = "reliability-"


def series_name(row_or_change: dict[str, Any] | ReliabilityChange, by_suite: bool) -> str:
    """The name of a (suite,) label series in the charts: the label, with its suite first
    when the rows name suites."""
    if isinstance(row_or_change, ReliabilityChange):
        suite, label = row_or_change.suite, row_or_change.label
    else:
        suite, label = row_or_change["suite"] or "", row_or_change["label"]
    return f"{suite} · {label}" if by_suite else label


def reliability_charts(view: ReliabilityView) -> list[Chart]:
    """One line chart per measure (the table's columns) over the nights, a line per label
    (and suite) with its interval as a band and the measure's change points ringed: the
    table's own cells (rows) and change points, so the chart draws the numbers the table
    prints. None without rows."""
    from reportgen.site import charts  # charts -> context -> this module

    figures = []
    oldest_first = sorted(view.rows, key=lambda r: r["batch"])
    for k, column in enumerate(view.columns):
        series: dict[str, list[tuple[str, float | None]]] = defaultdict(list)
        bands: dict[str, list[tuple[str, float | None, float | None]]] = defaultdict(list)
        for row in oldest_first:
            cell = row["cells"][k]
            name = series_name(row, view.by_suite)
            series[name].append((row["batch"], cell["value"]))
            bands[name].append((row["batch"], cell["low"], cell["high"]))
        marks = [
            charts.Mark(
                series_name(c, view.by_suite),
                c.batch,
                f"{c.kind.replace('_', ' ')}: {c.before:.2f} to {c.after:.2f} ({c.change}),"
                f" 95 % CI {c.interval or 'none (too few nights)'}",
                c.kind != "within_noise",
            )
            for c in view.changes
            if c.measure == column["name"]
        ]
        chart = charts.nightly_band_lines(
            CHART_PREFIX + column["name"],
            column["header"].capitalize(),
            "pass-share change" if column["name"] == "robustness" else "score",
            dict(series),
            dict(bands),
            marks,
        )
        rings = "; rings: change points" if marks else ""
        nights = len({row["batch"] for row in oldest_first})
        shown = "night by night (band" if nights > 1 else "on its one night (bars"
        caption = f"{column['header'].capitalize()} {shown}: 95 % interval{rings})"
        figures.append(replace(chart, title=caption))
    return figures

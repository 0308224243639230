"""Reliability with its history and change points (P22): on the comparison page (the two
labels only) and the suite page, each value with its interval, the grain and unit named, and
the change points of each measure's series over the nights as changepoints.py finds them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from reportgen.archive import connect
from reportgen.site import BuildReport
from reportgen.site.changepoints import change_points
from reportgen.site.charts import r6
from reportgen.site.pages_reliability import reliability_charts, reliability_view
from reportgen.statistics.reliability import (
    ReliabilityMeasure,
    ReliabilityProfile,
    reliability_profiles,
)
from tests.site.html import Element, parse

Site = tuple[Path, BuildReport]
VALUE = re.compile(r"^-?\d\.\d\d \(-?\d\.\d\d to -?\d\.\d\d\)")


def _profile(batch: str, value: float, label: str = "x", suite: str = "s") -> ReliabilityProfile:
    measure = ReliabilityMeasure("outcome_consistency", value, value - 0.05, value + 0.05,
                                 0.95, 10, 5.0)  # fmt: skip
    return ReliabilityProfile(label, batch, (measure,), suite)


def test_a_drop_in_the_series_is_a_change_point_and_a_flat_one_is_not() -> None:
    values = [0.90, 0.91, 0.89, 0.90, 0.91, 0.50, 0.51, 0.49, 0.50, 0.51]
    dropped = [_profile(f"2026-11-{10 + k}", v) for k, v in enumerate(values)]
    flat = [_profile(f"2026-11-{10 + k}", 0.9, label="y") for k in range(10)]
    view = reliability_view([*dropped, *flat], ["s"])
    (change,) = view.changes
    assert (change.label, change.measure, change.batch) == (
        "x",
        "outcome_consistency",
        "2026-11-15",
    )
    assert change.kind == "regression" and change.interval is not None
    assert change.n_before == 5 and change.n_after == 5
    assert change.before == pytest.approx(0.902) and change.after == pytest.approx(0.502)
    assert [cp.index for cp in change_points(values)] == [5]
    # one row per night and label, newest first; only the labels asked for
    assert [r["batch"] for r in view.rows][:2] == ["2026-11-19", "2026-11-19"]
    assert {r["label"] for r in reliability_view([*dropped, *flat], ["s"], ["y"]).rows} == {"y"}
    assert not view.by_suite and reliability_view(dropped, ["s", "t"]).by_suite


def test_a_rise_is_an_improvement() -> None:
    values = [0.5, 0.52, 0.49, 0.5, 0.51, 0.9, 0.91, 0.89, 0.9, 0.92]
    view = reliability_view([_profile(f"2026-11-{10 + k}", v) for k, v in enumerate(values)], ["s"])
    assert [c.kind for c in view.changes] == ["improvement"]


def _section(file: Path) -> Element:
    return parse(file).one("section", id="reliability")


def test_the_comparison_page_shows_both_labels_reliability_night_by_night(
    demo_site: Site, demo_db: Path
) -> None:
    section = _section(demo_site[0] / "compare" / "baseline..candidate" / "index.html")
    grain = section.one("p", class_="reliability-grain").text
    assert "Grain: one row per night and label" in grain and "Unit: a score from 0 to 1" in grain
    table = section.one("table", class_="reliability")
    rows = [[td.text for td in tr.select("td")] for tr in table.select("tbody")[0].select("tr")]
    con = connect(demo_db, read_only=True)
    try:
        profiles = reliability_profiles(con, by_suite=True)
    finally:
        con.close()
    nights = sorted({p.batch for p in profiles}, reverse=True)
    assert len(nights) > 1  # history: every night, newest first
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), reverse=True)
    assert {(r[0], r[1]) for r in rows} == {
        (p.batch, p.label) for p in profiles if p.label in ("baseline", "candidate")
    }
    for row in rows:
        for cell in row[2:]:
            assert VALUE.match(cell) or cell.startswith("n/a"), cell  # each with its interval
    # the change points: as reliability_view finds them over the same profiles
    view = reliability_view(profiles, ["nightly"], ["baseline", "candidate"])
    shown = section.select("table", class_="reliability-changes")
    got = [
        [" ".join(td.text.split()) for td in tr.select("td")]
        for t in shown
        for tr in t.select("tbody")[0].select("tr")
    ]
    assert [(r[0], r[1], r[2]) for r in got] == [(c.batch, c.header, c.label) for c in view.changes]
    assert [r[6] for r in got] == [c.change for c in view.changes]
    if not view.changes:
        assert section.select("p", class_="reliability-flat")


def test_the_suite_page_shows_the_same_change_points(demo_site: Site) -> None:
    site = demo_site[0]
    history = _section(site / "history" / "nightly.html")
    compare = _section(site / "compare" / "baseline..candidate" / "index.html")
    assert history.one("h3", id="reliability-change-points")

    def rows(section: Element) -> list[str]:
        return [tr.text for t in section.select("table", class_="reliability-changes")
                for tr in t.select("tr")]  # fmt: skip

    assert rows(history) == rows(compare)  # the demo has one suite and these two labels


# -- the charts: a line per label over the nights, drawn from the table's own cells --------


def _lines(figure: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A chart's lines by label (the bands and change-point rings aside)."""
    return {t["name"]: t for t in figure["data"] if t.get("mode") == "lines+markers"}


def _bands(figure: dict[str, Any]) -> dict[str, tuple[list[Any], list[Any], list[Any]]]:
    """A chart's interval bands by label: (nights, lows, highs)."""
    traces = [t for t in figure["data"] if t.get("hoverinfo") == "skip" and "legendgroup" in t]
    lows = {t["legendgroup"]: t for t in traces if "fill" not in t}
    return {t["legendgroup"]: (t["x"], lows[t["legendgroup"]]["y"], t["y"])
            for t in traces if t.get("fill") == "tonexty"}  # fmt: skip


def test_each_measure_has_a_chart_of_the_table_cells_with_bands_and_rings() -> None:
    values = [0.90, 0.91, 0.89, 0.90, 0.91, 0.50, 0.51, 0.49, 0.50, 0.51]
    dropped = [_profile(f"2026-11-{10 + k}", v) for k, v in enumerate(values)]
    flat = [_profile(f"2026-11-{10 + k}", 0.9, label="y") for k in range(10)]
    view = reliability_view([*dropped, *flat], ["s"])
    (chart,) = reliability_charts(view)
    assert chart.id == "reliability-outcome_consistency"
    lines, bands = _lines(chart.figure), _bands(chart.figure)
    assert set(lines) == set(bands) == {"x", "y"}
    for label, line in lines.items():
        rows = sorted((r for r in view.rows if r["label"] == label), key=lambda r: r["batch"])
        cells = [r["cells"][0] for r in rows]
        assert line["x"] == [r["batch"] for r in rows]  # oldest night first
        assert line["y"] == [r6(c["value"]) for c in cells]  # the table's numbers (6 digits)
        assert [f"{v:.2f}" for v in line["y"]] == [c["text"] for c in cells]
        lows, highs = [r6(c["low"]) for c in cells], [r6(c["high"]) for c in cells]
        assert bands[label] == (line["x"], lows, highs)
        assert [f"{lo:.2f} to {hi:.2f}" for _, lo, hi in zip(*bands[label], strict=True)] == [
            c["interval"] for c in cells
        ]
    # the one change point (x's drop on 2026-11-15) is ringed on x's line at its value
    (ring,) = [t for t in chart.figure["data"] if t.get("mode") == "markers"]
    assert ring["name"] == "x: change point"
    assert ring["x"] == ["2026-11-15"] and ring["y"] == [0.5]
    assert "regression" in ring["customdata"][0]


def test_one_night_draws_bars_with_the_interval_as_error_bars() -> None:
    view = reliability_view([_profile("2026-11-10", 0.8), _profile("2026-11-10", 0.6, "y")], ["s"])
    (chart,) = reliability_charts(view)
    (bars,) = chart.figure["data"]
    assert bars["type"] == "bar" and bars["x"] == ["x", "y"] and bars["y"] == [0.8, 0.6]
    assert bars["error_y"]["array"] == bars["error_y"]["arrayminus"] == [0.05, 0.05]


def test_chart_text_from_labels_is_escaped_and_suites_name_their_series() -> None:
    hostile = "</script><img src=x onerror=alert(1)>"
    profiles = [_profile(f"2026-11-{10 + k}", 0.9, label=hostile, suite=s)
                for k in range(3) for s in ("s", "t")]  # fmt: skip
    (chart,) = reliability_charts(reliability_view(profiles, ["s", "t"]))
    text = json.dumps(chart.figure)
    assert "<img" not in text and "</script" not in text  # Plotly draws it as text
    assert set(_lines(chart.figure)) == {
        "s · &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;",
        "t · &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;",
    }


@pytest.mark.parametrize("page", ["history/nightly.html", "compare/baseline..candidate/index.html"])
def test_the_pages_charts_draw_the_numbers_their_table_prints(demo_site: Site, page: str) -> None:
    section = _section(demo_site[0] / page)
    headers = [th.text for th in section.one("table", class_="reliability").select("th")][2:]
    body = section.one("table", class_="reliability").select("tbody")[0]
    printed = {(tds[0].text, tds[1].text): [td.text for td in tds[2:]]
               for tds in (tr.select("td") for tr in body.select("tr"))}  # fmt: skip
    figures = {
        s.attrs["id"].removeprefix("fig-reliability-"): json.loads(s.text)
        for s in section.select("script", type="application/json")
    }
    assert len(figures) == len(headers) > 1  # a chart per measure, inside the section
    for k, figure in enumerate(figures.values()):
        for label, line in _lines(figure).items():
            for night, value in zip(line["x"], line["y"], strict=True):
                cell = printed[(night, label)][k]
                assert cell.startswith(f"{value:.2f} ("), (night, label, headers[k], cell)
        for label, (nights, lows, highs) in _bands(figure).items():
            for night, lo, hi in zip(nights, lows, highs, strict=True):
                assert f"({lo:.2f} to {hi:.2f})" in printed[(night, label)][k]

"""Reliability with its history and change points (P22): on the comparison page (the two
labels only) and the suite page, each value with its interval, the grain and unit named, and
the change points of each measure's series over the nights as changepoints.py finds them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.site import BuildReport
from reportgen.site.changepoints import change_points
from reportgen.site.pages_reliability import reliability_view
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

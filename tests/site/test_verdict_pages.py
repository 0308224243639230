"""Verdicts on the site: the comparison's verdict table with intervals (and error bars), the
cost-vs-success scatter, tooltips; history charts ring only their own metric's change
points, with evidence; nothing within noise is called a regression; all of it in Chromium."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from pytest import MonkeyPatch
from scipy import stats

from reportgen.site import BuildReport, build_site, pages_overview
from reportgen.site.changepoints import Segment, change_points, evidence
from reportgen.site.charts import frontier_line
from reportgen.site.paths import slug
from tests.site.browser_pages import chromium_page
from tests.site.conftest import BUILD_TIME
from tests.site.html import Element, parse

Site = tuple[Path, BuildReport]
COMPARE = "compare/baseline..candidate/index.html"


def _figures(doc: Element) -> dict[str, dict[str, object]]:
    return {
        s.attrs["id"].removeprefix("fig-"): json.loads(s.text)
        for s in doc.select("script", type="application/json")
        if s.attrs.get("id", "").startswith("fig-")
    }


def test_change_point_evidence_by_hand() -> None:
    # [1, 1, 1, 3, 3, 3]: successive differences 0, 0, 2, 0, 0 -> mean 0.4, sigma = sqrt(pi)/2
    # * 0.4 = 0.35449; se = sigma * sqrt(1/3 + 1/3) = 0.28944; t(0.975, 4) = 2.77645
    [cp] = change_points([1, 1, 1, 3, 3, 3])
    sigma = math.sqrt(math.pi) / 2 * 0.4
    se = sigma * math.sqrt(2 / 3)
    half = stats.t.ppf(0.975, 4) * se
    assert (cp.n_before, cp.n_after) == (3, 3)
    assert (cp.low, cp.high) == (pytest.approx(2 - half), pytest.approx(2 + half))
    assert cp.low == pytest.approx(1.1964, abs=1e-4) and cp.significant
    # a step of 1 with noise sigma 1 over 2 + 1 nights: se = sqrt(1/2 + 1), t(0.975, 1)
    short = evidence(2, Segment(0, 2, 1.0), Segment(2, 3, 2.0), 1.0, 3)
    half = stats.t.ppf(0.975, 1) * math.sqrt(1.5)
    assert (short.low, short.high) == (pytest.approx(1 - half), pytest.approx(1 + half))
    assert not short.significant
    assert not evidence(1, Segment(0, 1, 1.0), Segment(1, 2, 2.0), 1.0, 2).significant


def test_frontier_keeps_the_labels_nothing_beats() -> None:
    # (cost, pass rate): b is cheaper than c and passes more often; a is cheapest
    points = [(1.0, 0.5, "a"), (2.0, 0.9, "b"), (3.0, 0.8, "c"), (4.0, 0.95, "d")]
    [line] = frontier_line(points)
    assert line["x"] == [1.0, 2.0, 4.0] and line["y"] == [0.5, 0.9, 0.95]
    assert frontier_line(points[:1]) == []


def test_history_charts_ring_only_their_own_metrics_change_points(demo_site: Site) -> None:
    doc = parse(demo_site[0] / "history" / "nightly.html")
    rows = doc.one("section", id="change-points").select("tr")[1:]
    by_metric: dict[str, set[tuple[str, str]]] = {}
    for row in rows:
        assert row.attrs["title"]  # the evidence, as a tooltip
        cells = row.select("td")
        kind = cells[3].attrs["data-value"]
        assert kind in ("regression", "improvement", "within noise")
        assert "(" in cells[4].text and "(" in cells[5].text  # nights on each level
        _, metric_label_night = row.attrs["id"].split("-", 1)
        by_metric.setdefault(metric_label_night, set())
    # the reliability charts ring the reliability change points (test_reliability_history.py)
    figures = {k: f for k, f in _figures(doc).items() if not k.startswith("reliability-")}
    ringed: dict[str, set[tuple[str, str]]] = {}
    for key, figure in figures.items():
        for trace in figure["data"]:  # type: ignore[attr-defined]
            name = trace["name"]
            if name.endswith(("change point", "change within noise")):
                assert all(trace["customdata"]), name  # evidence in the hover text
                for night in trace["x"]:
                    ringed.setdefault(key, set()).add((name.split(":")[0], night))
    assert ringed, "the demo has change points"
    row_ids = {r.attrs["id"] for r in rows}
    for key, marks in ringed.items():
        for label, night in marks:
            assert f"cp-{slug(key)}-{slug(label)}-{slug(night)}" in row_ids, (key, label, night)
    # and every row is ringed on its own chart, and only there
    for row_id in row_ids:
        owners = [
            k
            for k, marks in ringed.items()
            for label, night in marks
            if row_id == f"cp-{slug(k)}-{slug(label)}-{slug(night)}"
        ]
        assert len(owners) <= 1, row_id


def test_nothing_within_noise_is_called_a_regression(demo_site: Site) -> None:
    history = parse(demo_site[0] / "history" / "nightly.html")
    noisy = [
        r
        for r in history.one("section", id="change-points").select("tr")[1:]
        if r.select("td")[3].attrs["data-value"] == "within noise"
    ]
    panel = parse(demo_site[0] / "index.html").one("section", id="regressions")
    items = panel.select("li")
    assert items
    for li in items:
        assert li.text.rstrip().endswith(("verdicts and pairs", "history"))
        assert "within noise" not in li.text
        assert ": regression" in li.text or "more than noise" in li.text
    for row in noisy:
        cells = row.select("td")
        night, title = cells[0].text, cells[1].text
        assert not any(night in li.text and title in li.text for li in items)


def test_index_shows_outcomes_beside_path_metrics(demo_site: Site) -> None:
    doc = parse(demo_site[0] / "index.html")
    verdicts = doc.one("section", id="verdicts")
    first = verdicts.select("li")[0]
    assert (
        first.text.startswith("success, mean over 12 tasks: 98.3 % → 76.7 %")
        and first.attrs["title"]
    )
    head = [th.text for th in doc.one("section", id="attention").select("th")]
    assert head[4:7] == ["success", "reward change", "TDI"]  # after suite, task, night, trial


def test_comparison_has_verdict_tables_error_bars_and_the_frontier(demo_site: Site) -> None:
    doc = parse(demo_site[0] / COMPARE)
    section = doc.one("section", id="verdicts")
    nights = section.select("details", class_="verdicts")
    assert len(nights) == 6 and "open" in nights[0].attrs  # every night, latest open
    for night in nights:
        rows = night.one("table").select("tr")[1:]
        assert [r.select("td")[0].text for r in rows][:2] == ["success", "reward"]
        assert len(rows) == 10 and all("Interval:" in r.attrs["title"] for r in rows)
        assert all(" to " in r.select("td")[4].text or "no interval" in r.select("td")[4].text
                   for r in rows)  # fmt: skip
    heads = nights[0].select("th")
    assert all(th.attrs.get("title") for th in heads[1:])  # what each number means
    glossary = section.one("dl", class_="glossary").text
    for term in ("TDI", "WEI", "RSR", "CI"):
        assert term in glossary
    figures = _figures(doc)
    bars = next(f for k, f in figures.items() if k.startswith("verdicts-"))
    assert any("error_x" in t and any(v is not None for v in t["error_x"]["array"])
               for t in bars["data"])  # type: ignore[attr-defined]  # fmt: skip
    frontier = figures["frontier"]["data"]
    labels = {t["name"] for t in frontier if "error_y" in t}  # type: ignore[attr-defined]
    assert {"baseline", "candidate"} <= labels
    assert any(t["name"] == "frontier (latest night)" for t in frontier)  # type: ignore[attr-defined]
    table = doc.one("section", id="pairs")
    at = [th.attrs.get("data-col") for th in table.select("th")].index("outcome")
    latest = [r for r in table.select("tr")[1:] if r.select("td")[0].text == "2026-11-28"]
    broken = [r.select("td")[at].attrs["data-value"] == "newly broken" for r in latest]
    assert any(broken) and broken == sorted(broken, reverse=True)  # newly broken first


@pytest.mark.browser
def test_verdict_pages_render_in_chromium(demo_site: Site) -> None:
    site = demo_site[0]
    with chromium_page() as checked:
        for rel in ("index.html", COMPARE, "history/nightly.html"):
            page = checked.open(site / rel)
            drawn = page.evaluate("document.querySelectorAll('div.chart svg.main-svg').length")
            charts = page.evaluate("document.querySelectorAll('div.chart').length")
            assert drawn >= charts, rel
        page = checked.open(site / COMPARE)
        bars = page.evaluate("document.querySelectorAll('#chart-frontier g.errorbar').length")
        assert bars > 0
        assert checked.problems == []


def test_the_index_lists_the_newest_regressions_and_counts_the_rest(
    demo_db: Path, demo_site: tuple[Path, object], tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    every = parse(demo_site[0] / "index.html").one("section", id="regressions")
    found = every.one("ul", class_="cp-list").select("li")
    assert len(found) >= 2
    monkeypatch.setattr(pages_overview, "REGRESSIONS_SHOWN", 1)
    build_site(demo_db, tmp_path / "site", build_time=BUILD_TIME)
    panel = parse(tmp_path / "site" / "index.html").one("section", id="regressions")
    [shown] = panel.one("ul", class_="cp-list").select("li")
    assert shown.text == found[0].text  # the newest
    more = len(found) - 1
    assert f"{more} older regression{'s' if more != 1 else ''}: on the history pages" in panel.text

"""Iteration pages (coding-loop progress) and the side-by-side view of two runs on the same
backlog: parsed-HTML selectors on the demo site, hostile step and run ids, and the pages in
Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reportgen.ingest import ingest
from reportgen.site import BuildReport, build_site
from reportgen.site.pages_iterations import same_backlog
from tests.site.browser_pages import SCREENSHOTS, chromium_page
from tests.site.conftest import BUILD_TIME, IMG, XSS
from tests.site.html import Element, parse
from tests.site.test_links import broken_links

Site = tuple[Path, BuildReport]
CONVERGING = "2026-11-28/backlog-converging"
THRASHING = "2026-11-28/backlog-thrashing"


def _pages(site: Path) -> tuple[Path, Path, Path]:
    files = sorted((site / "iterations").glob("*.html"))
    [pair] = [f for f in files if ".." in f.name]
    [good] = [f for f in files if ".." not in f.name and "converging" in f.name]
    [bad] = [f for f in files if ".." not in f.name and "thrashing" in f.name]
    return good, bad, pair


def _money(text: str) -> float:
    return float(re.sub(r"[^0-9.]", "", text))


def _glance(doc: Element) -> tuple[int, float, str]:
    """(certified steps, spend per certified step, thrash text) from a page's cards."""
    certified = int(doc.one("strong", class_="certified").texts[0].strip())
    per = _money(doc.one("strong", class_="per-certified").text)
    return certified, per, doc.one("strong", class_="thrash").text.strip()


def test_same_backlog_rule() -> None:
    assert same_backlog(["a", "b", "c"], ["a", "b", "c", "d"])
    assert same_backlog(["c", "b", "a"], ["a", "b", "c"])
    assert not same_backlog(["a", "x"], ["a", "b", "c"])
    assert not same_backlog([], ["a"])


def test_index_lists_loop_runs_with_certified_and_thrash(demo_site: Site) -> None:
    doc = parse(demo_site[0] / "index.html")
    section = doc.one("section", id="loop-runs")
    rows = section.select("tr")[1:]
    assert [r.select("a")[0].text for r in rows] == [CONVERGING, THRASHING]
    good, bad = rows
    for row, certified, steps in ((good, "9", "/ 10"), (bad, "2", "/ 3")):
        cell = row.select("td")[1]
        assert cell.one("strong").text == certified and steps in cell.text
    assert "none" in good.text and "worse" not in good.classes
    assert "thrashing" in bad.text and "session-tokens" in bad.text
    assert "worse" in bad.classes
    assert any(".." in a.attrs["href"] for a in good.select("a"))


def test_the_two_demo_runs_separate_at_a_glance(demo_site: Site) -> None:
    good, bad, _pair = _pages(demo_site[0])
    g_cert, g_per, g_thrash = _glance(parse(good))
    b_cert, b_per, b_thrash = _glance(parse(bad))
    assert (g_cert, b_cert) == (9, 2)
    assert g_per * 4 < b_per, "spend per certified step: the stuck run pays over 4x as much"
    assert g_thrash == "none" and b_thrash.startswith("⚠ 1 step")
    glance = parse(bad).one("section", id="at-a-glance")
    assert "glance-thrash" in glance.classes
    assert "glance-progress" in parse(good).one("section", id="at-a-glance").classes


def test_iteration_page_shows_trajectory_evidence_and_check_kinds(demo_site: Site) -> None:
    _good, bad, _pair = _pages(demo_site[0])
    doc = parse(bad)
    figures = {
        s.attrs["id"]: json.loads(s.text) for s in doc.select("script", type="application/json")
    }
    assert set(figures) == {"fig-progress", "fig-failing", "fig-patch", "fig-spend"}
    failing = figures["fig-failing"]
    assert [t["name"] for t in failing["data"]][:3] == ["persisting", "new", "resolved (below 0)"]
    assert failing["layout"]["barmode"] == "relative"
    persisting = failing["data"][0]
    assert persisting["y"][-1] == 9 and persisting["x"][-1] == 22
    assert len(figures["fig-patch"]["data"]) == 2
    rows = doc.one("section", id="steps").select("tbody")[0].select("tr")
    assert [r.select("a")[1].text for r in rows] == [
        "go-modules",
        "drop-pkg-errors",
        "session-tokens",
    ]
    assert [r.select("td")[3].attrs["data-value"] for r in rows] == [
        "build-only",
        "build-only",
        "test-suite",
    ]
    detail = doc.one("details", id="s3")
    assert "open" in detail.attrs
    evidence = detail.one("div", class_="evidence")
    assert "attempts 2, 3, 4" in evidence.one("h3").text
    assert "failing set churning for 14 attempts" in evidence.text
    assert len(detail.select("tr", class_="in-thrash")) == 14


def test_compare_page_names_the_run_making_progress(demo_site: Site) -> None:
    good, bad, pair = _pages(demo_site[0])
    assert pair.name == f"{good.stem}..{bad.stem}.html"
    doc = parse(pair)
    assert doc.one("p", id="verdict").text.startswith("Run A is making more progress: 9 of 10")
    assert "leader" in doc.one("section", id="run-a").classes
    assert "trailer" in doc.one("section", id="run-b").classes
    rows = doc.one("section", id="steps").select("tbody")[0].select("tr")
    assert len(rows) == 10
    assert "thrashing" in rows[2].text and "not reached" in rows[3].text
    links = {a.attrs["href"] for a in doc.select("a")}
    assert {good.name, bad.name} <= links
    for page in (good, bad):
        assert pair.name in {a.attrs["href"] for a in parse(page).select("a")}


def test_iteration_pages_are_deterministic(demo_db: Path, demo_site: Site, tmp_path: Path) -> None:
    build_site(demo_db, tmp_path / "again", build_time=BUILD_TIME)
    for file in sorted((demo_site[0] / "iterations").glob("*.html")):
        assert file.read_bytes() == (tmp_path / "again/iterations" / file.name).read_bytes()


def _hostile_records(run: str, stuck: bool) -> list[dict[str, object]]:
    steps = ["go-modules", f"{XSS}{IMG}"] + ([] if stuck else ["third"])
    records, it = [], 0
    for step in steps:
        for attempt in (1, 2):
            it += 1
            done = attempt == 2 and not (stuck and step != "go-modules")
            records.append({
                "run": run, "iter": it, "step": step, "attempt": attempt, "check": f"pytest {XSS}",
                "exit": 0 if done else 1, "failing": [] if done else [f"t::{XSS}", IMG],
                "patch": f"+{XSS}\n", "patch_lines": 1, "tokens_in": 100, "tokens_out": 10,
                "usd": 0.01, "certified": done,
            })  # fmt: skip
    return records


@pytest.fixture(scope="module")
def hostile_loop_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile-loops")
    src = root / "loops.jsonl"
    records = _hostile_records(f"run {XSS}", False) + _hostile_records(f"run {IMG}", True)
    src.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ingest([src], root / "a.duckdb")
    build_site(root / "a.duckdb", root / "site", build_time=BUILD_TIME)
    return root / "site"


def test_hostile_step_and_run_ids_show_as_text(hostile_loop_site: Path) -> None:
    files = sorted((hostile_loop_site / "iterations").glob("*.html"))
    assert len(files) == 3, "two runs and their side-by-side page"
    for file in files:
        html = file.read_text(encoding="utf-8")
        assert XSS not in html and IMG not in html
        doc = parse(html)
        assert doc.select("img") == []
        assert all(
            "src" in s.attrs or s.attrs.get("type") == "application/json"
            for s in doc.select("script")
        )
        assert XSS in doc.text
    assert broken_links(hostile_loop_site) == []


@pytest.mark.browser
def test_iteration_pages_in_the_browser(demo_site: Site) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page() as tab:
        for file in _pages(demo_site[0]):
            page = tab.open(file)
            charts = page.locator("div.chart").count()
            assert charts >= 1
            assert page.locator("div.chart:has(svg.main-svg)").count() == charts
            assert tab.problems == [], f"{file}: {tab.problems}"
            name = "iterations-compare" if ".." in file.name else f"iterations-{file.stem[11:30]}"
            page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

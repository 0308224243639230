"""Convergence pages (N repeated runs of one task on one night) and convergence over nights on
the history and task pages: parsed-HTML selectors on the demo site, hostile outputs, and the
pages in Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.convergence.archive import convergence_report
from reportgen.ingest import ingest
from reportgen.site import BuildReport, build_site
from tests.site.browser_pages import SCREENSHOTS, chromium_page
from tests.site.conftest import BUILD_TIME, IMG, TEXTAREA, XSS
from tests.site.html import parse
from tests.site.test_links import broken_links

Site = tuple[Path, BuildReport]
GROUP = "convergence/nightly/summarize-incident/candidate/2026-11-28.html"


def test_one_page_per_group(demo_db: Path, demo_site: Site) -> None:
    con = connect(demo_db, read_only=True)
    try:
        groups = convergence_report(con)
    finally:
        con.close()
    files = sorted((demo_site[0] / "convergence").rglob("*.html"))
    assert len(files) == len(groups) == 36


def test_group_page_shows_matrix_outputs_divergence_medoid_outliers(demo_site: Site) -> None:
    doc = parse(demo_site[0] / GROUP)
    figures = {
        s.attrs["id"]: json.loads(s.text) for s in doc.select("script", type="application/json")
    }
    assert set(figures) == {"fig-outputs", "fig-paths"}
    [heat] = figures["fig-outputs"]["data"]
    assert heat["type"] == "heatmap" and len(heat["z"]) == 5 and heat["z"][0][0] == 1.0
    assert heat["x"] == ["#1", "#2", "#3", "#4", "#5"]
    outputs = doc.one("section", id="outputs").select("article")
    assert len(outputs) == 5
    marks = [a.select("mark", class_="div-mark") for a in outputs]
    assert all(len(m) == 1 for m in marks), "every run is long enough to reach the divergence point"
    assert {m[0].text for m in marks} == {"Payments", "A"}
    assert sum("is-medoid" in a.classes for a in outputs) == 1
    outliers = [a for a in outputs if "is-outlier" in a.classes]
    assert outliers and all("outlier" in a.text for a in outliers)
    assert "diverge at token 0" in doc.one("p", class_="sub").text
    cards = {
        c.one("span").text: c.one("strong").text for c in doc.one("div", id="scores").select("div")
    }
    assert cards["convergence score"] == "0.504" and cards["exact match"] == "60.0%"


def test_identical_outputs_mark_no_divergence(demo_site: Site) -> None:
    doc = parse(
        demo_site[0] / "convergence/nightly/answer-billing-question/baseline/2026-11-23.html"
    )
    assert doc.select("mark", class_="div-mark") == []
    assert "agree on every token" in doc.one("p", class_="sub").text


def test_history_page_charts_convergence_over_nights(demo_site: Site) -> None:
    doc = parse(demo_site[0] / "history/nightly.html")
    section = doc.one("section", id="convergence")
    ids = [s.attrs["id"] for s in section.select("script", type="application/json")]
    assert ids == ["fig-convergence-baseline", "fig-convergence-candidate"]
    fig = json.loads(section.select("script")[0].text)
    assert [t["name"] for t in fig["data"]] == [
        "answer-billing-question",
        "summarize-incident",
        "triage-bug-report",
    ]
    assert all(len(t["x"]) == 6 for t in fig["data"])
    rows = section.select("tbody")[0].select("tr")
    assert len(rows) == 36 and rows[0].select("td")[0].text == "2026-11-28"
    assert all(r.select("a")[0].attrs["href"].startswith("../convergence/nightly/") for r in rows)


def test_task_page_links_its_groups(demo_site: Site) -> None:
    doc = parse(demo_site[0] / "tasks/nightly/summarize-incident.html")
    rows = doc.one("section", id="convergence").select("tbody")[0].select("tr")
    assert len(rows) == 12
    assert (
        rows[0].select("a")[0].attrs["href"]
        == "../../convergence/nightly/summarize-incident/candidate/2026-11-28.html"
    )


def _hostile_run(trial: int, output: str) -> dict[str, object]:
    return {
        "run_id": f"{XSS}/{trial}", "task_id": f"task {XSS}", "label": IMG, "suite": "s",
        "trial": trial, "started_at": "2026-11-28T02:00:00Z", "output": output,
        "steps": [{"type": "tool", "action": XSS, "status": "ok"}],
    }  # fmt: skip


@pytest.fixture(scope="module")
def hostile_group_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile-convergence")
    runs = [
        _hostile_run(0, f"same start {XSS} {IMG}"),
        _hostile_run(1, f"same start {TEXTAREA} {XSS}"),
        _hostile_run(2, f"{XSS}"),
    ]
    src = root / "runs.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    ingest([src], root / "a.duckdb")
    build_site(root / "a.duckdb", root / "site", build_time=BUILD_TIME)
    return root / "site"


def test_hostile_outputs_show_as_text(hostile_group_site: Path) -> None:
    [file] = sorted((hostile_group_site / "convergence").rglob("*.html"))
    html = file.read_text(encoding="utf-8")
    for raw in (XSS, IMG, TEXTAREA):
        assert raw not in html
    doc = parse(html)
    assert doc.select("img") == [] and doc.select("textarea") == [] and doc.select("b") == []
    texts = [a.one("pre").text for a in doc.select("article")]
    assert texts[0] == f"same start {XSS} {IMG}"
    assert texts[1] == f"same start {TEXTAREA} {XSS}"
    assert broken_links(hostile_group_site) == []


@pytest.mark.browser
def test_convergence_pages_in_the_browser(demo_site: Site) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page() as tab:
        for name, rel in (("convergence", GROUP), ("history-convergence", "history/nightly.html")):
            page = tab.open(demo_site[0] / rel)
            charts = page.locator("div.chart").count()
            assert charts >= 2
            assert page.locator("div.chart:has(svg.main-svg)").count() == charts
            assert tab.problems == [], f"{rel}: {tab.problems}"
            page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

"""The demo site's pages, checked with selectors on the parsed HTML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reportgen.site import BuildReport
from reportgen.site.render import CSP
from tests.site.browser_pages import rendered_html
from tests.site.conftest import BUILD_TIME, html_pages
from tests.site.html import Element, parse, parse_file

Site = tuple[Path, BuildReport]


def _page(site: Site, rel: str) -> Element:
    return parse(site[0] / rel)


def test_every_page_has_the_csp_and_no_inline_javascript(demo_site: Site) -> None:
    for file in html_pages(demo_site[0]):
        doc = parse_file(file)
        [meta] = doc.select("meta", http_equiv="Content-Security-Policy")
        assert meta.attrs["content"] == CSP, file
        for script in doc.select("script"):
            assert "src" in script.attrs or script.attrs.get("type") == "application/json", file
            if "src" in script.attrs:
                assert "://" not in script.attrs["src"] and not script.text.strip()


def test_build_time_appears_on_the_index_only(demo_site: Site) -> None:
    out = demo_site[0]
    hits = [
        f
        for f in out.rglob("*")
        if f.is_file()
        and f.suffix in {".html", ".js", ".json"}
        and BUILD_TIME.encode() in f.read_bytes()
    ]
    assert hits == [out / "index.html"]


def test_index_puts_regressions_first(demo_site: Site) -> None:
    doc = _page(demo_site, "index.html")
    sections = doc.one("main").select("section")
    assert sections[0].attrs["id"] == "regressions"
    assert "alert" in sections[0].classes
    items = sections[0].select("li")
    assert items and any("Wasted Effort Index" in li.text for li in items)
    nights = [li.text.split()[0] for li in items]
    assert nights == sorted(nights, reverse=True)
    assert all(
        a.attrs["href"].startswith("compare/baseline..candidate/index.html#night-")
        for li in items
        for a in li.select("a")[:1]
    )


def test_index_lists_suites_and_the_latest_night_first(demo_site: Site) -> None:
    doc = _page(demo_site, "index.html")
    suite = doc.one("section", id="suite-nightly")
    assert [tr.select("td")[0].text for tr in suite.select("tbody")[0].select("tr")] == [
        "baseline",
        "candidate",
    ]
    nights = [tr.select("td")[0].text for tr in doc.one("section", id="nights").select("tr")[1:]]
    assert nights[0] == "2026-11-28" and nights[-1] == "2026-11-23"


def test_history_lists_change_points_with_links_to_the_comparison(demo_site: Site) -> None:
    doc = _page(demo_site, "history/nightly.html")
    rows = doc.one("section", id="change-points").select("tbody")[0].select("tr")
    assert rows
    regression = [r for r in rows if "Wasted Effort Index" in r.text and "candidate" in r.text]
    assert regression and "regression" in regression[0].text
    link = regression[0].select("a")[0].attrs["href"]
    assert link.startswith("../compare/baseline..candidate/index.html#night-2026-11-2")
    charts = [d.attrs["id"] for d in doc.select("div", class_="chart")]
    assert len(charts) == 15  # 8 nightly + 2 convergence + 5 reliability measures
    reliability = doc.one("section", id="reliability").select("div", class_="chart")
    assert [d.attrs["id"] for d in reliability] == [c for c in charts if "reliability" in c]


def test_run_page_has_the_step_timeline(demo_site: Site) -> None:
    out = demo_site[0]
    [file] = (out / "runs/nightly/fix-login").glob("2026-11-28-fix-login-candidate-*.html")
    doc = parse(rendered_html(file))  # the rows are drawn from the run's step data script
    rows = doc.one("table", class_="steps").select("tbody")[0].select("tr")
    assert [r.attrs["id"] for r in rows] == [f"step-{i}" for i in range(len(rows))]
    assert any("st-row-error" in r.classes for r in rows)
    assert any("rec" in r.classes for r in rows), "a recovery window is shaded"
    assert any("in-loop" in r.classes for r in rows), "a loop is marked"
    assert any("stagnant" in r.text for r in rows)
    assert len(rows[0].select("details")) == 2
    assert doc.one("div", id="chart-timeline")
    assert doc.one("section", id="loops")


def test_pair_page_shows_metrics_and_the_aligned_diff(demo_site: Site) -> None:
    pair = demo_site[0] / "compare/baseline..candidate/nightly/fix-login/2026-11-28.html"
    doc = parse(rendered_html(pair))  # the side cells are drawn from the runs' step scripts
    metrics = {
        tr.attrs["id"]: tr
        for tr in doc.one("section", id="metrics").select("tr")
        if "id" in tr.attrs
    }
    assert {
        "metric-trajectory_divergence_index",
        "metric-candidate_wei",
        "metric-cost_delta_percentage",
    } <= set(metrics)
    assert "worse" in metrics["metric-candidate_wei"].classes
    assert "gate" not in doc.one("section", id="metrics").select("thead")[0].text, (
        "no verdicts before gates exist"
    )
    rows = doc.one("table", class_="diff").select("tbody")[0].select("tr")
    rows = [r for r in rows if "word-diff-row" not in r.classes]  # a modified row's word diff
    statuses = {next(iter(c for c in r.classes if c.startswith("diff-"))) for r in rows}
    assert {"diff-matched", "diff-added"} <= statuses
    [first] = [r for r in rows if "first-div" in r.classes]
    assert first.one("span", id="first-divergence")
    assert any(td.classes & {"rec"} for r in rows for td in r.select("td"))
    side_links = [a.attrs["href"] for a in rows[0].select("a") if "#step-" in a.attrs["href"]]
    assert side_links and all(
        h.startswith("../../../../runs/nightly/fix-login/") for h in side_links
    )


def test_compare_index_has_night_anchors_and_every_pair(demo_site: Site) -> None:
    doc = _page(demo_site, "compare/baseline..candidate/index.html")
    nights = doc.one("section", id="nights").select("tbody")[0].select("tr")
    assert [tr.attrs["id"] for tr in nights][:2] == ["night-2026-11-28", "night-2026-11-27"]
    pairs = doc.one("section", id="pairs").select("tbody")[0].select("tr")
    assert len(pairs) == 144


def test_task_page_lists_all_runs(demo_site: Site) -> None:
    doc = _page(demo_site, "tasks/nightly/fix-login.html")
    runs = doc.one("section", id="runs").select("tbody")[0].select("tr")
    assert len(runs) == 12
    assert {r.select("td")[1].text for r in runs} == {"baseline", "candidate"}


def test_site_has_assets_and_nojekyll(demo_site: Site) -> None:
    out = demo_site[0]
    assert (out / ".nojekyll").is_file()
    assert (out / "assets/plotly-cartesian.min.js").stat().st_size > 1_000_000
    assert len(list(out.rglob("plotly*.js"))) == 1
    for name in ("site.css", "tables.js", "charts.js"):
        assert (out / "assets" / name).is_file()


def test_cumulative_cost_chart_gives_every_step_a_level() -> None:
    """From (0, 0) to (n, total), drawn 'vh': the last step has a level, not a spike."""
    from reportgen.site.charts import cumulative_cost

    def view(idx: int, cost: float | None) -> Any:
        return type("V", (), {"idx": idx, "cost_usd": cost})()

    chart = cumulative_cost("cost", [view(0, 0.5), view(1, None), view(2, 2.0)], [view(0, 1.0)])
    base, cand = chart.figure["data"]
    assert base["x"] == [0, 1, 2, 3] and base["y"] == [0.0, 0.5, 0.5, 2.5]
    assert cand["x"] == [0, 1] and cand["y"] == [0.0, 1.0]
    assert base["line"]["shape"] == "vh"


def test_index_shows_the_latest_nights_verdicts_as_gate_gives_them(
    demo_site: Site, demo_db: Path
) -> None:
    import json

    from typer.testing import CliRunner

    from reportgen.cli import app

    panel = _page(demo_site, "index.html").one("section", id="verdicts")
    assert "2026-11-28" in panel.one("h2").text
    lines = [li.text for li in panel.select("li")]
    gated = json.loads(CliRunner().invoke(app, ["gate", "--db", str(demo_db), "--json"]).stdout)
    verdicts = [m["verdict"] for m in gated["summary"]["metrics"]]
    # an inconclusive line goes on with what more data would take: "inconclusive, needs ..."
    assert [line.rsplit(": ", 1)[1].split(",", 1)[0] for line in lines] == verdicts
    assert lines[0].startswith("success, ") and "regression" in verdicts
    assert "alert" in panel.classes and "2 newly broken" in panel.text

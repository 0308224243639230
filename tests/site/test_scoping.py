"""Charts and sections keep to their scope (P18): a comparison page's cost-against-success
frontier shows only its two labels; on the index a suite links only to the comparisons that
include it, and more than a few suites make one sortable table instead of a section each; the
forest plot of the verdicts draws a value past its axis as an arrow at the edge, its number
beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from reportgen.ingest import ingest
from reportgen.site import BuildReport, build_site
from reportgen.site.charts import verdict_bars
from reportgen.site.context import SUITE_SECTIONS
from tests.site.html import Element, parse_file

TASKS = ("alpha", "beta", "gamma")


def _run(suite: str, label: str, task: str, night: int) -> dict[str, Any]:
    """A two-step run; model-b fails beta and pays more."""
    broken = label == "model-b" and task == "beta"
    steps = [
        {"type": "tool", "action": "read_file", "input": {"path": f"{task}.py"}, "output": "ok",
         "status": "ok", "cost_usd": 0.01, "latency_ms": 100},
        {"type": "tool", "action": "run_tests", "input": {"target": task},
         "output": "failed" if broken else "passed", "status": "error" if broken else "ok",
         "cost_usd": 0.03 if label == "model-b" else 0.02, "latency_ms": 200},
    ]  # fmt: skip
    return {
        "run_id": f"{suite}/2026-11-2{night}/{task}/{label}",
        "task_id": task,
        "label": label,
        "suite": suite,
        "started_at": f"2026-11-2{night}T01:00:00Z",
        "batch": f"2026-11-2{night}",
        "success": not broken,
        "steps": steps,
    }


def _site(root: Path, runs: list[dict[str, Any]], *compare: str) -> Path:
    traces = root / "runs.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    db = root / "scope.duckdb"
    ingest([traces], db)
    site = root / "site"
    build_site(db, site, build_time="2026-11-29T00:00:00Z", compare=compare)
    return site


@pytest.fixture(scope="module")
def two_suites(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Suite "web" runs base and model-a, suite "cli" base and model-b: base..model-a compares
    web only, base..model-b cli only."""
    runs = [
        _run(suite, label, task, night)
        for night in (7, 8)
        for suite, labels in (("web", ("base", "model-a")), ("cli", ("base", "model-b")))
        for label in labels
        for task in TASKS
    ]
    return _site(tmp_path_factory.mktemp("scope"), runs, "base..model-a", "base..model-b")


def figure(page: Path, chart_id: str) -> dict[str, Any]:
    """A chart's Plotly figure: inline in the page, or in its data file beside it."""
    html = parse_file(page)
    div = html.one("div", data_chart=chart_id)
    if "data-src" in div.attrs:
        text = (page.parent / div.attrs["data-src"]).read_text(encoding="utf-8")
        found: dict[str, Any] = json.loads(text.split("]=", 1)[1].rstrip().rstrip(";"))
        return found
    script = html.one("script", id=f"fig-{chart_id}")
    found = json.loads(script.text)
    return found


def test_a_comparisons_frontier_shows_only_its_two_labels(two_suites: Path) -> None:
    for base, cand in (("base", "model-a"), ("base", "model-b")):
        fig = figure(two_suites / "compare" / f"{base}..{cand}" / "index.html", "frontier")
        names = {t["name"] for t in fig["data"] if t.get("type") == "scatter" and "error_y" in t}
        assert names == {base, cand}
        text = json.dumps(fig)
        other = "model-b" if cand == "model-a" else "model-a"
        assert other not in text


def _suite_links(section: Element) -> set[str]:
    return {a.attrs["href"] for a in section.select("a") if a.attrs["href"].startswith("compare/")}


def test_each_suite_section_links_only_to_comparisons_that_include_it(two_suites: Path) -> None:
    index = parse_file(two_suites / "index.html")
    web = index.one("section", id="suite-web")
    cli = index.one("section", id="suite-cli")
    assert _suite_links(web) == {"compare/base..model-a/index.html"}
    assert _suite_links(cli) == {"compare/base..model-b/index.html"}


def test_many_suites_make_one_sortable_table(tmp_path: Path) -> None:
    suites = [f"suite-{i:02d}" for i in range(SUITE_SECTIONS + 1)]
    runs = [
        _run(suite, label, "alpha", night)
        for night in (7, 8)
        for suite in suites
        for label in ("base", "model-a")
    ]
    site = _site(tmp_path, runs, "base..model-a")
    index = parse_file(site / "index.html")
    assert index.select("section", class_="suite") == []  # no section per suite
    table = index.one("section", id="suites").one("table")
    assert "data-filter" in table.attrs  # tables.js sorts it (by any data-col header)
    heads = [th.attrs.get("data-col") for th in table.select("th")]
    assert {"suite", "label", "night", "runs"} <= set(heads)
    rows = table.select("tbody")[0].select("tr")
    assert sorted({r.select("td")[0].text for r in rows}) == suites
    for row in rows:  # each row links its suite's history and its comparison
        hrefs = [a.attrs["href"] for a in row.select("a")]
        assert any(h.startswith("history/") for h in hrefs)
        assert "compare/base..model-a/index.html" in hrefs


def test_up_to_eight_suites_keep_a_section_each(two_suites: Path) -> None:
    index = parse_file(two_suites / "index.html")
    assert len(index.select("section", class_="suite")) == 2
    assert index.select("section", id="suites") == []


def _metric(delta: float, verdict: str = "regression") -> dict[str, Any]:
    return {"verdict": verdict, "delta": delta, "min_effect": 0.1, "ci_low": delta * 0.5,
            "ci_high": delta * 1.5}  # fmt: skip


def test_the_forest_plot_draws_values_past_its_axis_as_arrows_with_their_numbers() -> None:
    rows = [
        {"label": "RSR", "line": "RSR +618.2 %", "delta": "+618.2 %"},
        {"label": "cost", "line": "cost +3 %", "delta": "+3.0 %"},
        {"label": "tokens", "line": "tokens -90 %", "delta": "-90.0 %"},
    ]
    chart = verdict_bars("verdicts", rows, [_metric(6.182), _metric(0.03), _metric(-9.0)])
    layout = chart.figure["layout"]
    low, high = layout["xaxis"]["range"]
    texts = {a["y"]: a["text"] for a in layout["annotations"]}
    assert "+618.2 %" in texts["RSR"] and "-90.0 %" in texts["tokens"]
    assert "cost" not in texts  # in range: a dot and its interval, no annotation
    points = {
        y: (x, symbol)
        for trace in chart.figure["data"]
        for x, y, symbol in zip(trace["x"], trace["y"], trace["marker"]["symbol"], strict=True)
    }
    assert points["RSR"] == (high, "triangle-right")
    assert points["tokens"] == (low, "triangle-left")
    assert low <= points["cost"][0] <= high and points["cost"][1] == "circle"


def test_the_demo_forest_plot_shows_rsr_past_its_axis(demo_site: tuple[Path, BuildReport]) -> None:
    page = demo_site[0] / "compare" / "baseline..candidate" / "index.html"
    div = next(
        d
        for d in parse_file(page).select("div", class_="chart")
        if d.attrs["data-chart"].startswith("verdicts-")
    )
    fig = figure(page, div.attrs["data-chart"])
    texts = [a["text"] for a in fig["layout"].get("annotations", [])]
    # the demo's RSR change (several hundred per cent) is drawn at the edge with its number
    assert any(re.match(r"\+\d{3,}\.\d %", t) for t in texts), texts

"""Several configurations against one baseline: ``reportgen build --compare BASE..A --compare
BASE..B`` (and ``[site] compare``) builds a comparison for each and a matrix page of them side
by side; without ``--compare`` the archive's labels decide, and the index says how."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reportgen.archive import connect
from reportgen.cli import app
from reportgen.ingest import ingest
from reportgen.site.choose import choose, parse_compare
from tests.site.browser_pages import SCREENSHOTS, chromium_page
from tests.site.html import parse_file
from tests.site.test_links import broken_links

runner = CliRunner()
TASKS = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]


def _run(label: str, task: str, night: int, hour: int) -> dict[str, Any]:
    """A run of ``task``: model-b breaks beta and gamma (and pays more), model-a keeps every task."""
    broken = label == "model-b" and task in ("beta", "gamma")
    steps = [
        {"type": "tool", "action": "read_file", "input": {"path": f"{task}.py"}, "output": "ok",
         "status": "ok", "cost_usd": 0.01, "latency_ms": 100},
        {"type": "tool", "action": "run_tests", "input": {"target": task},
         "output": "failed" if broken else "passed", "status": "error" if broken else "ok",
         "cost_usd": 0.03 if label == "model-b" else 0.02, "latency_ms": 200},
    ]  # fmt: skip
    if label == "model-a":
        steps.insert(1, {"type": "tool", "action": "list_dir", "input": {"path": "."},
                         "output": "a b", "status": "ok", "cost_usd": 0.005})  # fmt: skip
    return {
        "run_id": f"2026-11-2{night}/{task}/{label}",
        "task_id": task,
        "label": label,
        "suite": "matrix",
        "started_at": f"2026-11-2{night}T0{hour}:00:00Z",
        "batch": f"2026-11-2{night}",
        "success": not broken,
        "steps": steps,
    }


@pytest.fixture(scope="module")
def three_labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("matrix")
    runs = [
        _run(label, task, night, hour)
        for night in (7, 8)
        for hour, label in ((1, "base"), (2, "model-a"), (3, "model-b"))
        for task in TASKS
    ]
    traces = root / "runs.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    db = root / "matrix.duckdb"
    ingest([traces], db)
    return db


def _build(db: Path, out: Path, *extra: str) -> None:
    args = ["build", "--db", str(db), "--out", str(out), "--build-time", "2026-11-29T00:00:00Z"]
    result = runner.invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output


@pytest.mark.browser
def test_two_compares_give_two_comparisons_and_a_matrix(three_labels: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _build(three_labels, out, "--compare", "base..model-a", "--compare", "base..model-b")
    index = parse_file(out / "index.html")
    sections = index.select("section", class_="comparison")
    assert [s.attrs["id"] for s in sections] == [
        "comparison-base..model-a",
        "comparison-base..model-b",
    ]
    heads = [s.select("h3")[0].select("a")[0].attrs["href"] for s in sections]
    assert heads == ["compare/base..model-a/index.html", "compare/base..model-b/index.html"]
    assert "0 newly broken" in sections[0].text and "2 newly broken" in sections[1].text
    links = [a.attrs["href"] for a in index.one("section", id="comparisons").select("a")]
    assert "compare/matrix.html" in links
    assert "Comparisons from --compare: base..model-a, base..model-b." in index.text
    for name in ("base..model-a", "base..model-b"):
        page = parse_file(out / "compare" / name / "index.html")
        assert len(page.one("section", id="pairs").select("tbody")[0].select("tr")) == 12
    matrix = parse_file(out / "compare" / "matrix.html")
    heads = [
        th.attrs["data-comparison"] for th in matrix.select("th") if "data-comparison" in th.attrs
    ]
    assert heads == ["base..model-a", "base..model-b"]
    broken = matrix.one("tr", id="newly-broken").select("td")
    assert broken[0].one("strong").text == "0"
    assert broken[1].one("strong").text == "2"
    assert [c.text for c in broken[1].select("code")] == ["matrix/beta", "matrix/gamma"]
    success = matrix.one("tr", id="metric-success_rate").select("td")
    assert "regression" in success[1].text or "inconclusive" in success[1].text
    nav = [a.text for a in matrix.one("header").select("a")]
    assert "Comparisons (2)" in nav and not any(t.startswith("base vs") for t in nav)
    assert broken_links(out) == []
    with chromium_page() as tab:
        page = tab.open(out / "compare" / "matrix.html")
        titles = page.evaluate(
            "() => Array.from(document.querySelectorAll('div.chart')).map(d => "
            "[d.layout.xaxis.title.text, d.layout.yaxis.title.text])"
        )
        assert titles and all(x and y for x, y in titles)  # the scatter's axes are named
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "matrix.png"), full_page=True)
        tab.page.set_viewport_size({"width": 390, "height": 844})
        for name in ("compare/matrix.html", "index.html"):
            tab.open(out / name)
            assert tab.page.evaluate("document.documentElement.scrollWidth") <= 390, name
        tab.page.screenshot(path=str(SCREENSHOTS / "index-comparisons-390px.png"), full_page=True)
        assert tab.problems == []


def test_without_compare_every_label_is_compared_with_the_most_common(
    three_labels: Path,
) -> None:
    con = connect(three_labels, read_only=True)
    try:
        choice = choose(con)
    finally:
        con.close()
    # equal run counts: the label with the oldest run (base, an hour earlier) is the baseline
    assert choice.pairs == [("base", "model-a"), ("base", "model-b")]
    assert "the label with the most runs" in choice.said and "--compare" in choice.said


def test_site_compare_in_the_config_is_used(three_labels: Path, tmp_path: Path) -> None:
    config = tmp_path / "reportgen.toml"
    config.write_text('[site]\ncompare = ["base..model-b"]\n', encoding="utf-8")
    out = tmp_path / "site"
    _build(three_labels, out, "--config", str(config))
    assert (out / "compare" / "base..model-b" / "index.html").is_file()
    assert (
        not (out / "compare" / "base..model-a").exists()
        and not (out / "compare" / "matrix.html").exists()
    )
    assert "reportgen.toml [site] compare: base..model-b" in parse_file(out / "index.html").text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--compare", "base..nope"], "no run has label 'nope'"),
        (["--compare", "base"], "expected BASE..CAND"),
    ],
)
def test_a_bad_compare_is_a_one_line_usage_error(
    three_labels: Path, tmp_path: Path, args: list[str], words: str
) -> None:
    out = tmp_path / "site"
    result = runner.invoke(app, ["build", "--db", str(three_labels), "--out", str(out), *args])
    assert result.exit_code == 2 and words in result.output
    assert not out.exists()


def test_parse_compare() -> None:
    assert parse_compare("a..b") == ("a", "b")
    assert parse_compare("gpt-4.1..gpt-4.5") == ("gpt-4.1", "gpt-4.5")

"""One answer, shown the same everywhere (P17): the demo's latest night, evaluated once by
``gate``, reads the same on every surface. Each label-level metric's verdict line (its grain,
values with units, change, interval at its level and verdict) and the headline sentence are
the same strings in the terminal, the Markdown, the JSON they are made from, the index, the
comparison page and the feed."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.site import BuildReport
from reportgen.statistics.report import verdict_line, verdict_parts
from tests.site.html import parse_file

runner = CliRunner()
NIGHT = "2026-11-28"


def _gate(db: Path, *flags: str) -> str:
    result = runner.invoke(app, ["gate", "--db", str(db), "--batch", NIGHT, *flags])
    assert result.exit_code == 0, result.output
    return result.stdout


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_every_surface_says_the_same(demo_db: Path, demo_site: tuple[Path, BuildReport]) -> None:
    site = demo_site[0]
    summary = json.loads(_gate(demo_db, "--json"))["summary"]
    metrics = summary["metrics"]
    lines = [verdict_line(m) for m in metrics]
    said = summary["headline"]
    assert said.endswith(" No gates set.")
    page_said = said.removesuffix(" No gates set.")  # a site page says nothing of gates
    assert page_said.startswith("Worse: 2 tasks newly broken (migrate-db, review-pull-request)")

    terminal = _gate(demo_db).splitlines()
    assert terminal[0] == said
    for line in lines:
        assert line in terminal

    markdown = _gate(demo_db, "--markdown").splitlines()
    assert markdown[2].startswith("Worse")
    for line in lines:
        assert f"- {line}" in markdown

    index = parse_file(site / "index.html")
    shown = _squash(index.one("p", id="headline").text)  # the label pair and night, then it
    assert page_said in shown and f"night {NIGHT}" in shown
    panel = [_squash(li.text) for li in index.one("section", id="verdicts").select("li")]
    assert panel == lines

    compare = parse_file(site / "compare" / "baseline..candidate" / "index.html")
    shown = _squash(compare.one("p", id="headline").text)
    assert page_said in shown and f"Night {NIGHT}" in shown
    table = compare.one("details", id=f"verdicts-night-{NIGHT}").select("tbody")[0]
    for row, entry in zip(table.select("tr"), metrics, strict=True):
        cells = [_squash(td.text) for td in row.select("td")]
        parts = verdict_parts(entry)
        assert cells[1:4] == [parts["baseline"], parts["candidate"], parts["delta"]]

    feed = ET.parse(site / "feed.xml").getroot()
    ns = {"a": "http://www.w3.org/2005/Atom"}
    latest = feed.find("a:entry", ns)
    assert latest is not None
    text = latest.findtext("a:summary", default="", namespaces=ns).splitlines()
    assert text[0] == page_said
    regressions = [verdict_line(m) for m in metrics if m["verdict"] == "regression"]
    assert regressions and all(line in text for line in regressions)


def test_the_matrix_says_what_gate_says(demo_db: Path, tmp_path: Path) -> None:
    """With two comparisons the matrix shows each side by side; the first column's cells are
    the strings of the verdict parts `gate` gives for that night (the delta, the interval and
    its level, both values)."""
    from reportgen.site import build_site

    out = tmp_path / "site"
    build_site(
        demo_db,
        out,
        build_time="2026-11-29T06:00:00Z",
        compare=["baseline..candidate", "candidate..baseline"],
    )
    metrics = json.loads(_gate(demo_db, "--json"))["summary"]["metrics"]
    matrix = parse_file(out / "compare" / "matrix.html")
    for entry in metrics:
        parts = verdict_parts(entry)
        row = matrix.one("tr", id=f"metric-{entry['metric']}")
        cell = _squash(row.select("td")[0].text)
        assert cell.startswith(parts["delta"]), (entry["metric"], cell)
        if parts["interval"] != "no interval":
            assert f"[{parts['interval']}, {parts['level']} %]" in cell
            assert f"{parts['baseline']} → {parts['candidate']}" in cell

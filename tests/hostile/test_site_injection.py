"""Hostile ids and step text across the site, in headless Chromium from file://: nothing runs
(no dialog, no page error) and no injected element exists."""

from __future__ import annotations

from pathlib import Path

from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.hostile.conftest import chart_runs, hostile_runs, write_runs
from tests.site.browser_pages import chromium_page

BUILD_TIME = "2026-11-29T06:00:00Z"
INJECTED = """() => ({
  script: Array.from(document.scripts).filter(s => !s.src && s.type !== 'application/json').length,
  img: document.querySelectorAll('img, iframe, object, embed, textarea').length,
  js: Array.from(document.querySelectorAll('[href],[src]')).filter(e =>
        /^\\s*(javascript|data|vbscript):/i.test(e.getAttribute('href') || e.getAttribute('src') || '')).length,
  on: Array.from(document.querySelectorAll('*')).filter(
        e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
  chartLinks: document.querySelectorAll('div.chart a').length,
})"""
CLEAN = {"script": 0, "img": 0, "js": 0, "on": 0, "chartLinks": 0}


def test_hostile_site_runs_nothing(tmp_path: Path) -> None:
    runs = hostile_runs("baseline") + hostile_runs("candidate") + chart_runs()
    db = tmp_path / "a.duckdb"
    ingest([write_runs(tmp_path / "in" / "runs.jsonl", runs)], db)
    out = tmp_path / "site"
    build_site(db, out, build_time=BUILD_TIME)
    pages = sorted(out.rglob("*.html"))
    picked = [
        p for p in pages if p.parent == out or p.parent.name == "history" or p.name == "index.html"
    ]
    for folder in ("runs", "tasks", "compare"):
        picked += [p for p in pages if p.relative_to(out).parts[0] == folder][:4]
    with chromium_page() as checked:
        for file in picked:
            page = checked.open(file)
            assert page.evaluate(INJECTED) == CLEAN, file
        assert checked.problems == [], checked.problems

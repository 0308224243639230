"""Chart text: agent text in trace names, category ticks, hover text and custom data reaches
Plotly escaped, so Plotly never draws it as a link or markup."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site.charts import chart_text
from tests.hostile.conftest import LINK, chart_runs, write_runs
from tests.site.browser_pages import chromium_page

BUILD_TIME = "2026-11-29T06:00:00Z"
_TEMPLATE_KEYS = {"hovertemplate", "texttemplate"}  # reportgen's own templates


@pytest.fixture(scope="module")
def chart_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("charts")
    db = root / "a.duckdb"
    ingest([write_runs(root / "runs.jsonl", chart_runs())], db)
    out = root / "site"
    build_site(db, out, build_time=BUILD_TIME)
    return out


def _figures(site: Path) -> Iterator[tuple[Path, Any]]:
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for block in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.S):
            yield page, json.loads(block)
    for script in site.rglob("*.js"):
        # search/: the search index; *.steps.js: a run's step data, drawn with textContent
        # (tests/site/test_escaping.py), never a figure
        if script.parent.name not in ("assets", "search") and not script.name.endswith(".steps.js"):
            text = script.read_text(encoding="utf-8")
            yield script, json.loads(text[text.index("]=") + 2 : text.rindex(";")])


def _strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)


def test_chart_text_escapes_markup() -> None:
    assert chart_text(LINK) == '&lt;a href="javascript:alert(7)"&gt;click&lt;/a&gt;'
    assert chart_text("a &lt; b") == "a &amp;lt; b"
    assert chart_text("x" * 50, 10) == "x" * 9 + "\u2026"


def test_no_markup_reaches_a_figure(chart_site: Path) -> None:
    seen = 0
    for where, figure in _figures(chart_site):
        for key, text in _strings(figure):
            if key in _TEMPLATE_KEYS:
                continue
            seen += 1
            assert "<" not in text and ">" not in text, (where, key, text)
    assert seen


def _plotly_links(page: Any) -> int:
    return int(page.evaluate("document.querySelectorAll('div.chart a').length"))


def test_charts_draw_agent_text_as_text_in_chromium(chart_site: Path) -> None:
    history = sorted(chart_site.glob("history/*.html"))
    runs = sorted(chart_site.glob("runs/**/*.html"))
    assert history and runs
    with chromium_page() as checked:
        for file in (*history, runs[0]):
            page = checked.open(file)
            assert _plotly_links(page) == 0, file
            # hover the first point of every trace: the hover label holds agent text too
            page.evaluate(
                """() => document.querySelectorAll('div.chart').forEach(d => {
                     (d.data || []).forEach((t, i) => {
                       try { window.Plotly.Fx.hover(d, [{curveNumber: i, pointNumber: 0}]); }
                       catch (e) {}
                     });
                   })"""
            )
            assert _plotly_links(page) == 0, file
            text = page.evaluate(
                "Array.from(document.querySelectorAll('div.chart')).map(d => d.textContent).join(' ')"
            )
            assert "<a href" in text, file  # shown, as text
        assert checked.problems == [], checked.problems

"""Lighter pages: a page that draws no chart loads no Plotly; the charts use Plotly's
cartesian bundle; the heaviest page's weight and load time are measured in Chromium and
printed (run with ``-s`` to see them). The index's feed link resolves."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from reportgen.site import BuildReport

from .browser_pages import chromium_page
from .conftest import html_pages

Site = tuple[Path, BuildReport]
pytestmark = pytest.mark.browser


def _page_weight(page: Path) -> int:
    """Bytes a page pulls in: itself, the scripts and stylesheets it names (file://)."""
    import re

    html = page.read_text(encoding="utf-8")
    total = len(html.encode())
    for ref in re.findall(r'(?:src|href)="([^"#]+\.(?:js|css))"', html):
        total += (page.parent / ref).resolve().stat().st_size
    return total


def test_pages_without_charts_load_no_plotly(demo_site: Site) -> None:
    out = demo_site[0]
    plain = [p for p in html_pages(out) if 'class="chart' not in p.read_text(encoding="utf-8")]
    charted = [p for p in html_pages(out) if p not in plain]
    assert plain and charted
    with chromium_page() as tab:
        requests: list[str] = []
        tab.page.on("request", lambda r: requests.append(r.url))
        for page in plain[:20]:
            tab.open(page)
        assert not [u for u in requests if "plotly" in u]
        requests.clear()
        tab.open(charted[0])
        assert [u.rsplit("/", 1)[1] for u in requests if "plotly" in u] == [
            "plotly-cartesian.min.js"
        ]
        assert tab.problems == []


def test_heaviest_page_weight_and_load_time(demo_site: Site) -> None:
    out = demo_site[0]
    heaviest = max(html_pages(out), key=_page_weight)
    weight = _page_weight(heaviest)
    with chromium_page() as tab:
        started = time.perf_counter()
        tab.open(heaviest)  # until load, every chart drawn
        elapsed = time.perf_counter() - started
        assert tab.problems == []
    print(
        f"\nheaviest page: {heaviest.relative_to(out)}: {weight / 1e6:.2f} MB with its "
        f"scripts, loaded and drawn in {elapsed:.2f} s"
    )
    assert weight < 3_000_000  # the full Plotly bundle alone was 4.8 MB


def test_the_index_feed_link_resolves(demo_site: Site) -> None:
    with chromium_page() as tab:
        tab.open(demo_site[0] / "index.html")
        links = tab.page.eval_on_selector_all(
            "link[type='application/atom+xml'], a.feed", "els => els.map(e => e.href)"
        )
        assert len(links) == 2 and len(set(links)) == 1
        response = tab.page.goto(links[0])
        assert response is not None and response.ok
        assert "<feed" in tab.page.content() or "entry" in tab.page.content()

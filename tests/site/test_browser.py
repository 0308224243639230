"""The built site in real headless Chromium (Debian's package, driven by Playwright), from
file://: every page of the demo site loads with no console errors, failed requests or network
requests, and its charts draw; filters change the rows and the URL fragment; hostile text shows
as text and runs nothing. Screenshots go to artifacts/screenshots/ (git-ignored).

Skipped when /usr/bin/chromium is missing, unless REPORTGEN_REQUIRE_BROWSER=1 (CI): then the
tests fail instead. All tests share one browser and one context."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.site import BuildReport
from tests.site.conftest import IMG, JS_LINK, TEXTAREA, XSS, html_pages

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    # Without script streaming V8 reuses the compiled Plotly bundle from page to page, which
    # cuts each page load from ~0.5 s to ~0.15 s (the site itself is unaffected).
    "--disable-features=ScriptStreaming",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
#: Scroll each lazily loaded chart into view in turn (its data file loads then), wait until
#: every chart holds Plotly's SVG, and return how many charts the page has: one round trip.
DRAW_ALL = """async () => {
  const drawn = d => new Promise((resolve, reject) => {
    const start = Date.now();
    (function poll() {
      if (d.querySelector('svg.main-svg')) { resolve(); }
      else if (Date.now() - start > 15000) { reject(new Error('chart ' + d.id + ' did not draw')); }
      else { setTimeout(poll, 10); }
    })();
  });
  const charts = Array.from(document.querySelectorAll('div.chart'));
  for (const d of charts.filter(c => c.hasAttribute('data-src'))) { d.scrollIntoView(); await drawn(d); }
  await Promise.all(charts.map(drawn));
  return charts.length;
}"""
#: Pages loaded at once by the every-page test (the browser works on one while Python waits).
PIPELINE = 2
Site = tuple[Path, BuildReport]


def _unavailable(reason: str) -> None:
    if os.environ.get("REPORTGEN_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (REPORTGEN_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(f"{reason}; install Debian's chromium package to run the browser tests")


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    """One headless Chromium and one browser context for every test of the module."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        yield ctx
        ctx.close()
        browser.close()


class Tab:
    """A page that records console errors and warnings, page errors, failed requests,
    requests that leave file://, and dialogs (alert, confirm, prompt: all dismissed)."""

    def __init__(self, context: Any) -> None:
        self.page = context.new_page()
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on(
            "requestfailed",
            lambda r: self.problems.append(f"request failed: {r.url} ({r.failure})"),
        )
        self.page.on("request", self._request)
        self.page.on("dialog", self._dialog)

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def _request(self, request: Any) -> None:
        if not request.url.startswith("file://"):
            self.problems.append(f"network request: {request.url}")

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def open(self, file: Path, fragment: str = "") -> Any:
        """Load ``file`` (plus a fragment) and wait for its load event."""
        self.page.goto(file.as_uri() + fragment, wait_until="load")
        return self.page

    def charts_drawn(self) -> int:
        """Wait until every chart of the open page has drawn; return how many it has."""
        return int(self.page.evaluate(DRAW_ALL))


@pytest.fixture
def tab(context: Any) -> Iterator[Tab]:
    t = Tab(context)
    yield t
    t.page.close()


def test_every_demo_page_loads_cleanly_and_draws_its_charts(context: Any, demo_site: Site) -> None:
    out, report = demo_site
    pages = html_pages(out)
    assert len(pages) == report.pages > 400
    tabs = [Tab(context) for _ in range(PIPELINE)]
    failures: dict[str, list[str]] = {}
    charts = 0
    queue, loading = list(pages), []
    try:
        while queue or loading:
            while queue and len(loading) < len(tabs):
                tab = next(t for t in tabs if all(t is not other for other, _ in loading))
                file = queue.pop(0)
                tab.problems.clear()
                tab.page.goto(file.as_uri(), wait_until="commit")
                loading.append((tab, file))
            tab, file = loading.pop(0)
            tab.page.wait_for_load_state("load")
            charts += tab.charts_drawn()
            if tab.problems:
                failures[file.relative_to(out).as_posix()] = list(tab.problems)
    finally:
        for tab in tabs:
            tab.page.close()
    assert failures == {}
    assert all(tab.dialogs == [] for tab in tabs)
    assert charts >= report.pages * 0.9, "run, pair, task and history pages all have charts"


def test_screenshots(tab: Tab, demo_site: Site) -> None:
    out = demo_site[0]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    [run] = (out / "runs/nightly/fix-login").glob("2026-11-28-*candidate*.html")
    shots = {
        "index": out / "index.html",
        "run": run,
        "comparison": out / "compare/baseline..candidate/nightly/fix-login/2026-11-28.html",
    }
    for name, file in shots.items():
        tab.open(file)
        tab.charts_drawn()
        target = SCREENSHOTS / f"{name}.png"
        tab.page.screenshot(path=str(target), full_page=False)
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert target.stat().st_size > 10_000
    assert tab.problems == []


def _visible_rows(page: Any, section: str) -> int:
    return int(page.locator(f"#{section} table[data-filter] tbody tr:visible").count())


def _rows_where(page: Any, section: str, column: int, value: str) -> int:
    """Rows of a section's table whose ``column`` (0-based) reads ``value``, visible or not."""
    cells = page.locator(f"#{section} table[data-filter] tbody tr td:nth-child({column + 1})")
    return sum(1 for text in cells.all_inner_texts() if text.strip() == value)


def test_filters_change_rows_and_the_fragment(tab: Tab, demo_site: Site) -> None:
    file = demo_site[0] / "compare/baseline..candidate/index.html"
    page = tab.open(file)
    total = page.locator("#pairs table[data-filter] tbody tr").count()
    assert _visible_rows(page, "pairs") == total > 24
    night = "2026-11-28"
    on_night = _rows_where(page, "pairs", 0, night)
    assert 0 < on_night < total
    page.select_option("#pairs select[name=night]", night)
    assert _visible_rows(page, "pairs") == on_night
    assert f"night={night}" in page.evaluate("location.hash")
    assert page.locator("#pairs .filters .count").inner_text() == f"{on_night} of {total} rows"
    page.fill("#pairs input[name=q]", "fix-login")
    assert _visible_rows(page, "pairs") == 1
    assert "q=fix-login" in page.evaluate("location.hash")
    shared = page.evaluate("location.hash")
    page.fill("#pairs input[name=q]", "")
    page.select_option("#pairs select[name=night]", "")
    assert _visible_rows(page, "pairs") == total
    page = tab.open(file, shared)
    assert _visible_rows(page, "pairs") == 1, "a shared link restores the filtered view"
    assert page.input_value("#pairs select[name=night]") == night
    assert page.input_value("#pairs input[name=q]") == "fix-login"
    assert tab.problems == []


def test_filtering_a_run_by_status(tab: Tab, demo_site: Site) -> None:
    [run] = (demo_site[0] / "runs/nightly/fix-login").glob("2026-11-28-*candidate*.html")
    page = tab.open(run)
    total = _visible_rows(page, "steps")
    ok = _rows_where(page, "steps", 1, "ok")
    assert 0 < ok < total
    page.select_option("#steps select[name=status]", "ok")
    assert _visible_rows(page, "steps") == ok
    assert page.evaluate("location.hash") == "#status=ok"
    page = tab.open(run, "#status=ok")
    assert _visible_rows(page, "steps") == ok
    page = tab.open(run, "#step-2")  # a plain anchor is not a filter
    assert _visible_rows(page, "steps") == total
    assert tab.problems == []


def test_sorting_lands_in_the_fragment(tab: Tab, demo_site: Site) -> None:
    page = tab.open(demo_site[0] / "compare/baseline..candidate/index.html")
    page.click("#pairs th[data-col=tdi]")
    page.click("#pairs th[data-col=tdi]")
    assert "sort=-tdi" in page.evaluate("location.hash")
    first = page.locator("#pairs tbody tr").first.locator("td").nth(4).inner_text()
    values = [float(v) for v in page.locator("#pairs tbody tr td:nth-child(5)").all_inner_texts()]
    assert float(first) == max(values)
    assert tab.problems == []


def test_numbers_line_up_on_the_right(tab: Tab, demo_site: Site) -> None:
    """Number columns of the data tables are right-aligned (the table rule must not win)."""
    page = tab.open(demo_site[0] / "compare/baseline..candidate/nightly/fix-login/2026-11-28.html")
    aligns = page.evaluate(
        "() => [...document.querySelectorAll('table.metrics td.n, table.metrics th.n')]"
        ".map(c => getComputedStyle(c).textAlign)"
    )
    assert aligns and set(aligns) == {"right"}
    name = page.evaluate(
        "() => getComputedStyle(document.querySelector('table.metrics td')).textAlign"
    )
    assert name in ("left", "start")
    assert tab.problems == []


def test_night_link_filters_the_pairs(tab: Tab, demo_site: Site) -> None:
    page = tab.open(demo_site[0] / "compare/baseline..candidate/index.html")
    on_night = _rows_where(page, "pairs", 0, "2026-11-27")
    count = "#pairs .count"
    before = page.inner_text(count)
    page.click("#night-2026-11-27 a.filter-link")
    # the filter applies on the hashchange event, which fires after the click returns
    page.wait_for_function(
        "([sel, was]) => document.querySelector(sel).textContent !== was", arg=[count, before]
    )
    assert _visible_rows(page, "pairs") == on_night > 0
    assert "night=2026-11-27" in page.evaluate("location.hash")


def _open_everything(page: Any) -> None:
    """Open every collapsed block so its text is rendered."""
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")


def test_hostile_text_shows_as_text_and_runs_nothing(tab: Tab, hostile_site: Path) -> None:
    pages = html_pages(hostile_site)
    assert len(pages) >= 6
    for file in pages:
        page = tab.open(file)
        tab.charts_drawn()
        _open_everything(page)
        assert page.locator("img, textarea, b, iframe, object").count() == 0, file
        assert page.locator("a[href^='javascript:' i]").count() == 0, file
        assert tab.dialogs == [], file
    [run] = [p for p in hostile_site.rglob("runs/**/*.html") if "candidate" in p.name]
    page = tab.open(run)
    _open_everything(page)
    for text in (XSS, IMG, TEXTAREA, JS_LINK):
        shown = page.get_by_text(text, exact=False).first
        assert shown.is_visible(), f"{text!r} is not visible as text"
    main = page.inner_text("main")
    assert XSS in page.inner_text("h1") and IMG in main and TEXTAREA in main
    notes = page.locator("section.notes")
    assert f"[click me]({JS_LINK})" in notes.inner_text()
    assert [a.get_attribute("href") for a in notes.locator("a").all()] == ["https://example.com"]
    [pair] = hostile_site.glob("compare/*/*/*/*.html")
    page = tab.open(pair)
    _open_everything(page)
    assert page.get_by_text(XSS, exact=False).first.is_visible()
    assert tab.dialogs == [], "no alert, confirm or prompt ever opened"
    assert tab.problems == []


def test_big_charts_load_lazily_from_file(tab: Tab, tmp_path: Path) -> None:
    from reportgen.ingest import ingest
    from reportgen.site import build_site
    from tests.conftest import make_run

    src = tmp_path / "long.jsonl"
    src.write_text(json.dumps(make_run("long", n_steps=400, suite="s", label="baseline")) + "\n")
    ingest([src], tmp_path / "a.duckdb")
    build_site(tmp_path / "a.duckdb", tmp_path / "site", build_time="2026-11-29T00:00:00Z")
    [file] = (tmp_path / "site/runs/s/long").glob("*.html")
    page = tab.open(file)
    assert page.locator("div.chart[data-src]").count() == 1, "the big chart is loaded lazily"
    assert tab.charts_drawn() == 1
    assert tab.problems == []


#: For each reliability chart of the page: its id, how many plotted series (Plotly's own
#: ``div.data``) carry a fill (the interval bands), and the y values of its lines by name.
RELIABILITY_CHARTS = """() => [...document.querySelectorAll('#reliability div.chart')].map(d => ({
  id: d.id,
  drawn: !!d.querySelector('svg.main-svg'),
  bands: (d.data || []).filter(t => t.fill === 'tonexty').length,
  lines: Object.fromEntries((d.data || []).filter(t => t.mode === 'lines+markers')
    .map(t => [t.name, Array.from(t.y)])),
}))"""


@pytest.mark.parametrize("width", [1280, 390])
def test_reliability_charts_draw_on_the_suite_and_comparison_pages(
    context: Any, demo_site: Site, width: int
) -> None:
    """Each reliability measure's chart draws in the reliability section (lines with their
    interval bands, the same numbers as its embedded figure), with no console error and no
    horizontal overflow on a desktop or a phone-wide screen."""
    out = demo_site[0]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab = Tab(context)
    try:
        tab.page.set_viewport_size({"width": width, "height": 900})
        for name, file in (
            ("suite", out / "history/nightly.html"),
            ("comparison", out / "compare/baseline..candidate/index.html"),
        ):
            page = tab.open(file)
            tab.charts_drawn()
            shown = page.evaluate(RELIABILITY_CHARTS)
            measures = page.locator("#reliability table.reliability thead th.n").count()
            assert len(shown) == measures > 1, name
            for chart in shown:
                embedded = json.loads(page.inner_text(f"#fig-{chart['id'].removeprefix('chart-')}"))
                lines = {t["name"]: t["y"] for t in embedded["data"]
                         if t.get("mode") == "lines+markers"}  # fmt: skip
                assert chart["drawn"] and chart["bands"] == len(lines) == 2, chart["id"]
                assert chart["lines"] == lines, chart["id"]
            widths = page.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert widths[0] <= widths[1], f"{name} overflows sideways at {width} px: {widths}"
            page.locator("#reliability").screenshot(
                path=str(SCREENSHOTS / f"reliability-{name}-{width}.png")
            )
        assert tab.problems == []
        assert tab.dialogs == []
    finally:
        tab.page.close()

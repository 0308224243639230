"""The built site in real headless Chromium (Debian's package, driven by Playwright), from
file://: no console errors or failed requests, charts draw, filters work and land in the URL
fragment, hostile text runs nothing. Screenshots go to build/screenshots/ (git-ignored).

Skipped when /usr/bin/chromium is missing, unless REPORTGEN_REQUIRE_BROWSER=1 (CI): then the
tests fail instead."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.site import BuildReport

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
Site = tuple[Path, BuildReport]


def _unavailable(reason: str) -> None:
    if os.environ.get("REPORTGEN_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (REPORTGEN_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(f"{reason}; install Debian's chromium package to run the browser tests")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield b
        b.close()


class Tab:
    """A page that records console errors, page errors, failed requests and dialogs."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.problems: list[str] = []
        self.page.on(
            "console",
            lambda m: (
                m.type in ("error", "warning")
                and self.problems.append(f"console {m.type}: {m.text}")
            ),
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))
        self.page.on(
            "request",
            lambda r: r.url.startswith("file://") or self.problems.append(f"network: {r.url}"),
        )
        self.page.on(
            "dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss())
        )

    def open(self, file: Path, fragment: str = "") -> Any:
        self.page.goto(file.as_uri() + fragment)
        self.page.wait_for_load_state("load")
        return self.page

    def charts_drawn(self) -> None:
        """Scroll every chart into view (lazy ones load then) and wait for its SVG."""
        for div in self.page.query_selector_all("div.chart"):
            div.scroll_into_view_if_needed()
            self.page.wait_for_function(
                "d => d.querySelector('svg.main-svg') !== null", arg=div, timeout=10_000
            )


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    t = Tab(browser)
    yield t
    t.page.close()


def _sample_pages(out: Path) -> list[Path]:
    """One page of every kind (two run, pair and task pages): each costs about a second in
    Chromium, so all 447 would take minutes; test_links.py checks every page's links."""
    pages = [out / "index.html", *sorted((out / "history").glob("*.html"))]
    pages += sorted((out / "compare").glob("*/index.html"))
    pages += sorted((out / "tasks").rglob("*.html"))[:2]
    for kind, pattern in (("runs", "*/*"), ("compare", "*/*/*")):
        for task in sorted((out / kind).glob(pattern))[:2]:
            pages.append(sorted(task.glob("*.html"))[-1])
    return pages


def test_pages_load_cleanly_and_charts_draw(tab: Tab, demo_site: Site) -> None:
    out = demo_site[0]
    pages = _sample_pages(out)
    assert len(pages) == 9
    for file in pages:
        tab.open(file)
        tab.charts_drawn()
        assert tab.problems == [], f"{file}: {tab.problems}"


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
        tab.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000
    assert tab.problems == []


def _visible_rows(page: Any, section: str) -> int:
    return int(page.locator(f"#{section} table[data-filter] tbody tr:visible").count())


def test_filters_change_rows_and_the_fragment(tab: Tab, demo_site: Site) -> None:
    file = demo_site[0] / "compare/baseline..candidate/index.html"
    page = tab.open(file)
    assert _visible_rows(page, "pairs") == 144
    page.select_option("#pairs select[name=night]", "2026-11-28")
    assert _visible_rows(page, "pairs") == 24
    assert "night=2026-11-28" in page.evaluate("location.hash")
    page.fill("#pairs input[name=q]", "fix-login")
    assert _visible_rows(page, "pairs") == 1
    assert "q=fix-login" in page.evaluate("location.hash")
    shared = page.evaluate("location.hash")
    page2 = tab.open(file, shared)
    assert _visible_rows(page2, "pairs") == 1, "a shared link restores the filtered view"
    assert page2.input_value("#pairs select[name=night]") == "2026-11-28"
    assert tab.problems == []


def test_sorting_lands_in_the_fragment(tab: Tab, demo_site: Site) -> None:
    page = tab.open(demo_site[0] / "compare/baseline..candidate/index.html")
    page.click("#pairs th[data-col=tdi]")
    page.click("#pairs th[data-col=tdi]")
    assert "sort=-tdi" in page.evaluate("location.hash")
    first = page.locator("#pairs tbody tr").first.locator("td").nth(4).inner_text()
    values = [float(v) for v in page.locator("#pairs tbody tr td:nth-child(5)").all_inner_texts()]
    assert float(first) == max(values)


def test_night_link_filters_the_pairs(tab: Tab, demo_site: Site) -> None:
    page = tab.open(demo_site[0] / "compare/baseline..candidate/index.html")
    page.click("#night-2026-11-27 a.filter-link")
    assert _visible_rows(page, "pairs") == 24
    assert "night=2026-11-27" in page.evaluate("location.hash")


def test_hostile_text_runs_nothing(tab: Tab, hostile_site: Path) -> None:
    pages = [*hostile_site.rglob("runs/**/*.html"), *hostile_site.rglob("compare/*/*/*/*.html")]
    for file in sorted(pages):
        page = tab.open(file)
        tab.charts_drawn()
        assert page.locator("img").count() == 0
        assert page.evaluate("window.__pwned === undefined")
    [run] = [p for p in hostile_site.rglob("runs/**/*.html") if "candidate" in p.name]
    page = tab.open(run)
    page.locator("details.payload summary").first.click()
    assert "<script>alert(1)</script>" in page.inner_text("main")
    assert tab.problems == []


def test_big_charts_load_lazily_from_file(tab: Tab, tmp_path: Path) -> None:
    import json

    from reportgen.ingest import ingest
    from reportgen.site import build_site
    from tests.conftest import make_run

    src = tmp_path / "long.jsonl"
    src.write_text(json.dumps(make_run("long", n_steps=400, suite="s", label="baseline")) + "\n")
    ingest([src], tmp_path / "a.duckdb")
    build_site(tmp_path / "a.duckdb", tmp_path / "site", build_time="2026-11-29T00:00:00Z")
    [file] = (tmp_path / "site/runs/s/long").glob("*.html")
    tab.open(file)
    tab.charts_drawn()
    assert tab.problems == []

"""A headless Chromium page for the iteration and convergence page tests, with the same
skip / require rule as test_browser.py: skipped when /usr/bin/chromium (or playwright) is
missing, unless REPORTGEN_REQUIRE_BROWSER=1, when the test fails instead."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def _unavailable(reason: str) -> None:
    if os.environ.get("REPORTGEN_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (REPORTGEN_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(f"{reason}; install Debian's chromium package to run the browser tests")


class CheckedPage:
    """A page that records console errors and warnings, page errors, failed requests,
    requests that leave file:// and dialogs."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.problems: list[str] = []
        page.on(
            "console",
            lambda m: (
                m.type in ("error", "warning")
                and self.problems.append(f"console {m.type}: {m.text}")
            ),
        )
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))
        page.on(
            "request",
            lambda r: r.url.startswith("file://") or self.problems.append(f"network: {r.url}"),
        )
        page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))

    def open(self, file: Path) -> Any:
        """Load ``file``, scroll every chart into view and wait for its SVG."""
        self.page.goto(file.as_uri())
        self.page.wait_for_load_state("load")
        for div in self.page.query_selector_all("div.chart"):
            div.scroll_into_view_if_needed()
            self.page.wait_for_function(
                "d => d.querySelector('svg.main-svg') !== null", arg=div, timeout=15_000
            )
        self.page.evaluate("window.scrollTo(0, 0)")
        return self.page


@contextmanager
def chromium_page() -> Iterator[CheckedPage]:
    """One headless Chromium page (skips or fails as described above)."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            yield CheckedPage(browser.new_page(viewport={"width": 1280, "height": 900}))
        finally:
            browser.close()


_RENDERED: dict[Path, str] = {}


def rendered_html(file: Path) -> str:
    """The HTML of ``file`` as Chromium has it once the page's scripts ran (the step rows of
    run and pair pages are drawn from the runs' step data scripts), cached per file."""
    if file not in _RENDERED:
        with chromium_page() as tab:
            tab.page.goto(file.as_uri())
            tab.page.wait_for_load_state("load")
            assert tab.problems == [], tab.problems
            _RENDERED[file] = tab.page.content()
    return _RENDERED[file]

"""For every reader: at a 390 px viewport no page of each kind scrolls sideways; with
``prefers-color-scheme: dark`` the page background is dark (and light otherwise)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.site import BuildReport

from .browser_pages import SCREENSHOTS, chromium_page
from .conftest import html_pages

Site = tuple[Path, BuildReport]
pytestmark = pytest.mark.browser


def _one_of_each_kind(site: Path) -> list[Path]:
    """The index and the first page of each folder (history, compare, runs, tasks...), with
    the biggest comparison and run pages (the widest tables)."""
    pages = html_pages(site)
    kinds: dict[str, Path] = {}
    for page in pages:
        kinds.setdefault(page.relative_to(site).parts[0], page)
    for folder in ("compare", "runs"):
        found = [p for p in pages if p.relative_to(site).parts[0] == folder]
        if found:
            kinds[f"{folder}-biggest"] = max(found, key=lambda p: p.stat().st_size)
    return sorted(set(kinds.values()))


def test_no_page_scrolls_sideways_at_390_px(demo_site: Site) -> None:
    out = demo_site[0]
    wide = {}
    with chromium_page() as tab:
        tab.page.set_viewport_size({"width": 390, "height": 844})
        for page in _one_of_each_kind(out):
            tab.open(page)
            width = tab.page.evaluate("document.documentElement.scrollWidth")
            if width > 390:
                wide[page.relative_to(out).as_posix()] = width
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.open(out / "index.html")
        tab.page.screenshot(path=str(SCREENSHOTS / "index-390px.png"), full_page=True)
        assert tab.problems == []
    assert wide == {}


def _background(tab: object, page: Path) -> tuple[int, ...]:
    tab.open(page)  # type: ignore[attr-defined]
    color = tab.page.evaluate("getComputedStyle(document.body).backgroundColor")  # type: ignore[attr-defined]
    return tuple(int(c) for c in color[color.index("(") + 1 : -1].split(",")[:3])


def test_dark_mode_follows_the_system_setting(demo_site: Site) -> None:
    index = demo_site[0] / "index.html"
    with chromium_page() as tab:
        tab.page.emulate_media(color_scheme="dark")
        dark = _background(tab, index)
        tab.page.screenshot(path=str(SCREENSHOTS / "index-dark.png"))
        tab.page.emulate_media(color_scheme="light")
        light = _background(tab, index)
        assert tab.problems == []
    assert sum(dark) / 3 < 60 < 200 < sum(light) / 3

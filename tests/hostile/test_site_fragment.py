"""A malformed fragment in a shared link (``#q=%E0%A4%A``) must not throw in tables.js: no
console error, no filter, and the table controls still work (file://, headless Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.site import build_site
from tests.site.browser_pages import chromium_page

BUILD_TIME = "2026-11-29T06:00:00Z"


@pytest.mark.parametrize("fragment", ["q=%E0%A4%A", "%E0=x&q=fix", "q=fix&sort=%", "q=%"])
def test_malformed_fragment_falls_back_to_no_filter(
    fragment: str, two_archives: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    build_site(two_archives[0], out, build_time=BUILD_TIME)
    [index] = list(out.glob("compare/*/index.html"))
    with chromium_page() as checked:
        page = checked.page
        page.goto(index.as_uri() + "#" + fragment)
        page.wait_for_load_state("load")
        table = "table[data-filter]"
        total = page.eval_on_selector(table, "t => t.tBodies[0].rows.length")
        shown = page.eval_on_selector(
            table, "t => Array.from(t.tBodies[0].rows).filter(r => !r.hidden).length"
        )
        assert total > 1 and shown == total, "no filter applied"
        search = page.locator("div.filters input[type=search]").first
        search.fill("zzz-no-such-row")
        hidden = page.eval_on_selector(
            table, "t => Array.from(t.tBodies[0].rows).every(r => r.hidden)"
        )
        assert hidden, "the search box still filters"
        assert "q=zzz-no-such-row" in page.evaluate("location.hash")
        search.fill("")
        assert page.eval_on_selector(
            table, "t => Array.from(t.tBodies[0].rows).every(r => !r.hidden)"
        )
        assert checked.problems == [], checked.problems

"""A reviewer's way from "worse" to "why", in Chromium, on the demo site and on a site of all the
shared real data, opened from file:// and served by ``python -m http.server`` on 127.0.0.1:
every newly broken task named on the index or a comparison page reaches the diff of a pair
that broke in one click, where the why panel shows both final answers, and the screenshots a reviewer sees first (index, comparison, pair
page, the PR comment rendered as HTML) are written at 1280 and 390 px to
artifacts/screenshots/."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.site import BuildReport
from tests.site.browser_pages import SCREENSHOTS, chromium_page

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``python -m http.server`` on 127.0.0.1 over ``folder``, once it answers."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(url + "index.html", timeout=2):
                return server, url
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise
            time.sleep(0.1)


@pytest.fixture(scope="module")
def sites(
    demo_site: tuple[Path, BuildReport], all_data_site: tuple[Path, Path]
) -> Iterator[dict[str, tuple[Path, str]]]:
    """Each site's folder and the http:// root that serves it."""
    folders = {"demo": demo_site[0], "all-data": all_data_site[1]}
    servers = {name: _serve(folder) for name, folder in folders.items()}
    try:
        yield {name: (folders[name], servers[name][1]) for name in folders}
    finally:
        for server, _url in servers.values():
            server.terminate()
            server.wait(timeout=10)


def _where(folder: Path, root: str, transport: str, page: Path) -> str:
    relative = page.relative_to(folder).as_posix()
    return page.as_uri() if transport == "file" else root + relative


def _pages_naming_broken_tasks(folder: Path) -> list[Path]:
    return [folder / "index.html", *sorted((folder / "compare").glob("*/index.html"))]


@pytest.mark.parametrize("transport", ["file", "http"])
@pytest.mark.parametrize("which", ["demo", "all-data"])
def test_each_newly_broken_task_reaches_its_diff_in_one_click(
    sites: dict[str, tuple[Path, str]], which: str, transport: str
) -> None:
    folder, root = sites[which]
    clicked = 0
    with chromium_page() as checked:
        page = checked.page
        for listing in _pages_naming_broken_tasks(folder):
            url = _where(folder, root, transport, listing)
            page.goto(url, wait_until="load")
            links = page.locator("p.headline a, p.newly-broken a")
            for n in range(links.count()):
                if n:
                    page.goto(url, wait_until="load")
                if not links.nth(n).is_visible():  # an older night's, folded in its <details>
                    assert links.nth(n).evaluate("a => a.closest('details') !== null")
                    continue
                task = links.nth(n).inner_text().strip()
                with page.expect_navigation(wait_until="load"):
                    links.nth(n).click()
                assert "/compare/" in page.url, (listing, task, page.url)
                outcome = page.locator("#metric-candidate_success").inner_text()
                assert "✓→✗" in outcome, (listing, task, outcome)
                assert task.rsplit("/", 1)[-1] in page.content()
                # the why panel leads the page, with both runs' final answers
                assert page.locator("section#why").is_visible()
                answers = page.locator("#why .why-answer").all_inner_texts()
                assert len(answers) == 2 and not any("none recorded" in a for a in answers), answers
                clicked += 1
        assert checked.problems == [] if transport == "file" else True
    assert clicked > 0, f"the {which} site names no newly broken task"


def _pr_comment_html(markdown: str, target: Path) -> Path:
    """The PR comment as GitHub shows it, near enough: CommonMark with tables, in a plain
    page of GitHub's body font and width."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    style = (
        "body{font:14px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
        "max-width:860px;margin:16px auto;padding:0 16px;color:#1f2328}"
        "table{border-collapse:collapse;display:block;overflow:auto}"
        "td,th{border:1px solid #d1d9e0;padding:6px 13px}code{background:#eff1f3;padding:0 4px}"
    )
    target.write_text(
        f'<!doctype html><meta charset="utf-8"><meta name="viewport" '
        f'content="width=device-width"><style>{style}</style>{body}',
        encoding="utf-8",
    )
    return target


def _first_broken_pair(folder: Path, listing: Path) -> Path:
    from tests.site.html import parse_file

    link = parse_file(listing).select("p", class_="newly-broken")[0].select("a")[0]
    return (listing.parent / link.attrs["href"]).resolve()


def test_screenshots_of_what_a_reviewer_sees_first(
    sites: dict[str, tuple[Path, str]], demo_db: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from reportgen.cli import app

    folder, root = sites["demo"]
    result = CliRunner().invoke(
        app, ["gate", "--db", str(demo_db), "--markdown", "--site-url", root]
    )
    assert result.exit_code == 0, result.output
    comparison = folder / "compare" / "baseline..candidate" / "index.html"
    shots = {
        "index": folder / "index.html",
        "comparison": comparison,
        "pair-why": _first_broken_pair(folder, comparison),
        "pr-comment": _pr_comment_html(result.stdout, tmp_path / "comment.html"),
    }
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page() as checked:
        for width in WIDTHS:
            checked.page.set_viewport_size({"width": width, "height": 900})
            for name, file in shots.items():
                shown: Any = checked.open(file)
                target = SCREENSHOTS / f"reviewer-{name}-{width}px.png"
                shown.screenshot(path=str(target), full_page=False)
                assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
                width_used = shown.evaluate("document.documentElement.scrollWidth")
                assert width_used <= width, (name, width, width_used)
                # a heading or headline wraps at its spaces, never inside a date or task name
                lines = shown.evaluate(
                    "[...document.querySelectorAll('h1 .nowrap, p.headline .nowrap')]"
                    ".map(e => e.getClientRects().length)"
                )
                assert all(n == 1 for n in lines), (name, width, lines)
        # the comment's links open the served site's diffs
        page = checked.page
        page.goto(shots["pr-comment"].as_uri(), wait_until="load")
        first = page.locator("a", has_text="migrate-db").first
        href = first.get_attribute("href") or ""
        assert href.startswith(root), href
        page.goto(href, wait_until="load")
        assert "✓→✗" in page.locator("#metric-candidate_success").inner_text()

"""Markdown notes: CommonMark, raw HTML off, never a javascript: link, no remote images."""

from __future__ import annotations

import pytest

from reportgen.site.notes_html import render_notes, safe_link
from tests.site.html import parse


def test_markdown_renders() -> None:
    html = str(render_notes("Candidate switches to **m-1.5**. See [docs](https://example.com)."))
    doc = parse(html)
    assert doc.one("strong").text == "m-1.5"
    assert doc.one("a").attrs["href"] == "https://example.com"


def test_empty_notes_render_nothing() -> None:
    assert render_notes(None) is None
    assert render_notes("  \n") is None


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "java\tscript:x",
        "data:text/html,x",
        "vbscript:x",
    ],
)
def test_dangerous_links_are_not_links(url: str) -> None:
    assert not safe_link(url)
    doc = parse(str(render_notes(f"[click]({url})")))
    assert doc.select("a") == []


def test_raw_html_is_text() -> None:
    text = "<script>alert(1)</script> <img src=x onerror=alert(2)> </textarea>"
    doc = parse(str(render_notes(text)))
    assert doc.select("script") == [] and doc.select("img") == []
    assert "<script>alert(1)</script>" in doc.text


def test_images_never_load() -> None:
    doc = parse(str(render_notes("![x](https://example.com/x.png)")))
    assert doc.select("img") == []


def test_relative_links_of_a_readme_show_as_text() -> None:
    """A README's own files (images/overview.png, docs/x.md) are not on the site."""
    doc = parse(str(render_notes("see ![overview](images/overview.png) and [docs](docs/x.md)")))
    assert doc.select("a") == [] and "docs" in doc.text
    assert safe_link("#part") and not safe_link("../x.html")


def test_markdown_tables_render_as_tables() -> None:
    doc = parse(
        str(render_notes("| model | pass |\n|---|---:|\n| m-1 | 91 % |\n| <b>m-2</b> | 75 % |"))
    )
    table = doc.one("table")
    assert [th.text for th in table.select("th")] == ["model", "pass"]
    assert [td.text for td in table.select("td")] == ["m-1", "91 %", "<b>m-2</b>", "75 %"]

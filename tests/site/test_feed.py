"""The Atom feed: one entry per compared night, newest first, with that night's verdicts and
newly broken tasks; valid for an ordinary feed reader (feedparser); linked from the index;
hostile ids arrive as text."""

from __future__ import annotations

from pathlib import Path

import feedparser

from reportgen.site import BuildReport, build_site

from .conftest import BUILD_TIME

Site = tuple[Path, BuildReport]


def test_feed_has_one_entry_per_compared_night(demo_site: Site) -> None:
    out = demo_site[0]
    parsed = feedparser.parse((out / "feed.xml").read_bytes())
    assert not parsed.bozo, parsed.get("bozo_exception")
    nights = {p.name[:10] for p in (out / "compare").rglob("20*.html")}  # one page per pair
    titles = [e.title for e in parsed.entries]
    assert [t.split(":")[0] for t in titles] == sorted(nights, reverse=True)
    latest = parsed.entries[0]
    assert "regression" in latest.title and "success" in latest.summary
    assert "newly broken: nightly/" in latest.summary
    for line in latest.summary.splitlines():  # each newly broken task names its diff's page
        if line.startswith("newly broken: "):
            page = line.rsplit("(", 1)[1].rstrip(")")
            assert "✓→✗" in (out / page).read_text(encoding="utf-8")
    assert parsed.feed.updated == BUILD_TIME
    for entry in parsed.entries:
        page, _, anchor = entry.link.partition("#")
        assert f'id="{anchor}"' in (out / page).read_text(encoding="utf-8")


def test_index_links_the_feed(demo_site: Site) -> None:
    html = (demo_site[0] / "index.html").read_text(encoding="utf-8")
    assert 'type="application/atom+xml"' in html and 'href="feed.xml"' in html


def test_site_url_makes_links_absolute(demo_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_site(demo_db, out, build_time=BUILD_TIME, site_url="https://example.org/evals")
    parsed = feedparser.parse((out / "feed.xml").read_bytes())
    assert all(e.link.startswith("https://example.org/evals/compare/") for e in parsed.entries)


def test_hostile_ids_are_text_in_the_feed(hostile_site: Path) -> None:
    raw = (hostile_site / "feed.xml").read_bytes()
    assert b"<script>" not in raw
    parsed = feedparser.parse(raw)
    assert not parsed.bozo
    assert len(parsed.entries) == 1

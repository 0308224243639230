"""``feed.xml``: an Atom feed of "what changed since last night", one entry per compared night
with its label-level verdicts and newly broken tasks, for any ordinary feed reader.

Entries are built from the same statistics as the index's verdict panel; the feed is
written with ElementTree (every value escaped), and its times come from the archive and the
build's one time stamp, so a rebuild gives the same bytes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Any

from reportgen.escape import xml_text
from reportgen.site import paths
from reportgen.site.data import PairInfo, SiteData
from reportgen.site.pages_compare import ALL_SUITES, NightStats, broken_links, night_anchor
from reportgen.statistics.report import verdict_line

ATOM = "http://www.w3.org/2005/Atom"
FEED = "feed.xml"
NIGHTS = 30  # the latest nights in the feed (readers keep older entries themselves)


def _night_entry(
    night: str, pairs: list[PairInfo], data: SiteData, stats: dict[str, Any]
) -> dict[str, Any]:
    """One night's verdicts (its ``night_statistics`` over all suites), newly broken tasks
    and headline."""
    found, tasks = stats["metrics"], stats["tasks"]
    worse = [m for m in found if m["verdict"] == "regression"]
    better = [m for m in found if m["verdict"] == "improvement"]
    broken = list(tasks["newly_broken_tasks"])
    parts = [f"{len(worse)} regression{'s' if len(worse) != 1 else ''}"]
    if better:
        parts.append(f"{len(better)} improvement{'s' if len(better) != 1 else ''}")
    if broken:
        parts.append(f"{len(broken)} newly broken task{'s' if len(broken) != 1 else ''}")
    started = [data.runs_by_id[p.candidate_run_id].get("started_at") for p in pairs]
    stamps = sorted(s for s in started if s)
    return {
        "title": f"{night}: {', '.join(parts)}",
        "lines": [verdict_line(m) for m in found],
        "broken": broken_links(data, night, broken),
        "updated": stamps[-1] if stamps else f"{night}T00:00:00Z",
    }


def feed_xml(
    data: SiteData, nights: NightStats, build_time: str, site_url: str | None = None
) -> bytes:
    """The Atom document for the latest compared nights (newest first); ``nights`` holds
    each night's label-level statistics (pages_compare.night_statistics)."""
    base = (site_url.rstrip("/") + "/") if site_url else ""
    compare = paths.compare_index_path(data.baseline_label, data.candidate_label)
    by_night: dict[str, list[PairInfo]] = defaultdict(list)
    for pair in data.pairs:
        by_night[pair.batch].append(pair)
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    title = f"reportgen: {data.candidate_label} vs {data.baseline_label}, night by night"
    _text(feed, "title", title)
    _text(feed, "id", f"urn:reportgen:feed:{data.baseline_label}..{data.candidate_label}")
    _text(feed, "updated", build_time)
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=f"{base}{FEED}")
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="alternate", href=f"{base}index.html")
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", "reportgen")
    for night in sorted(by_night, reverse=True)[:NIGHTS]:
        entry = _night_entry(night, by_night[night], data, nights[(ALL_SUITES, night)])
        node = ET.SubElement(feed, f"{{{ATOM}}}entry")
        _text(node, "title", entry["title"])
        _text(
            node, "id", f"urn:reportgen:night:{data.baseline_label}..{data.candidate_label}:{night}"
        )
        _text(node, "updated", entry["updated"])
        href = f"{base}{compare}#{night_anchor(night)}"
        ET.SubElement(node, f"{{{ATOM}}}link", rel="alternate", href=href)
        stats = nights[(ALL_SUITES, night)]
        summary = "\n".join(
            [
                stats["headline"],
                *entry["lines"],
                *(f"newly broken: {link.text} ({base}{link.href})" for link in entry["broken"]),
            ]
        )
        _text(node, "summary", summary)
    document: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def _text(parent: ET.Element, tag: str, text: str) -> None:
    ET.SubElement(parent, f"{{{ATOM}}}{tag}").text = xml_text(text)

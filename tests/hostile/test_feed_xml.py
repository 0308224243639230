"""feed.xml stays well-formed XML whatever the ids hold: a newly broken task whose id has
characters XML 1.0 forbids (vertical tab, form feed, ESC, U+FFFE) is named with those
characters shown as visible escapes, so feed readers do not drop the whole feed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.hostile.conftest import write_runs

TASK = "broken\x0b\x0c\x1b[31mtask\ufffe"


def test_feed_names_a_task_with_forbidden_characters_and_parses(tmp_path: Path) -> None:
    step = {"type": "tool", "action": "a", "status": "ok"}
    runs = [
        {"task_id": TASK, "label": label, "suite": "s", "success": label == "baseline",
         "started_at": "2026-11-28T02:00:00Z", "steps": [step]}
        for label in ("baseline", "candidate")
    ]  # fmt: skip
    db = tmp_path / "a.duckdb"
    ingest([write_runs(tmp_path / "in" / "runs.jsonl", runs)], db)
    site = tmp_path / "site"
    build_site(db, site, build_time="2026-11-29T06:00:00Z")
    raw = (site / "feed.xml").read_bytes()
    root = ET.fromstring(raw)  # raises on a character XML forbids
    text = "".join(root.itertext())
    assert "broken\\x0b\\x0c\\x1b[31mtask\\ufffe" in text

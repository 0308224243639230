"""A suite's README.md in an ingested folder becomes Markdown notes on its history page,
rendered safely: raw HTML is text, javascript: links are not links."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen.archive import connect
from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.conftest import make_run
from tests.site.html import parse


def test_readme_becomes_suite_notes(tmp_path: Path) -> None:
    folder = tmp_path / "in" / "baseline"
    folder.mkdir(parents=True)
    (folder / "runs.jsonl").write_text(json.dumps(make_run("t1", run_id="r1", suite="qa")) + "\n")
    (tmp_path / "in" / "README.md").write_text(
        "# QA suite\n\nRuns **nightly**. <script>alert(1)</script> [bad](javascript:alert(1)) [ok](https://example.org)\n"
    )
    db = tmp_path / "a.duckdb"
    ingest([tmp_path / "in"], db)
    con = connect(db, read_only=True)
    assert con.execute("SELECT suite, path LIKE '%README.md' FROM suite_notes").fetchall() == [
        ("qa", True)
    ]
    con.close()
    ingest([tmp_path / "in"], db)  # re-ingest: the note is not duplicated
    con = connect(db, read_only=True)
    assert con.execute("SELECT count(*) FROM suite_notes").fetchall() == [(1,)]
    con.close()
    report = build_site(db, tmp_path / "site", build_time="2026-11-29T00:00:00Z")
    history = (report.index.parent / "history" / "qa.html").read_text(encoding="utf-8")
    doc = parse(history)
    notes = doc.select("section", id="notes")
    assert notes, "history page shows the suite's notes"
    text = notes[0].text
    assert "QA suite" in text and "<script>alert(1)</script>" in text
    assert "<script>alert" not in history.replace("&lt;script&gt;", "")
    hrefs = [a.attrs.get("href") for a in notes[0].select("a")]
    assert hrefs == ["https://example.org"]

"""The demo: ingest the bundled sample runs into an archive and summarise it."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from reportgen.archive import connect
from reportgen.ingest import IngestReport, ingest
from reportgen.reports.summary import archive_summary
from reportgen.resources import shipped_dir


def run_demo(
    out: Path | None = None, *, site: bool = True
) -> tuple[Path, IngestReport, dict[str, Any]]:
    """Ingest ``sample_runs/`` into ``out/reportgen.duckdb`` (a fresh temp folder by default)
    and, with ``site``, build the static site into ``out/site``; the summary says where."""
    folder = out if out is not None else Path(tempfile.mkdtemp(prefix="reportgen-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "reportgen.duckdb"
    report = ingest([shipped_dir("sample_runs")], db)
    con = connect(db, read_only=True)
    try:
        summary = archive_summary(con)
    finally:
        con.close()
    if site:
        from reportgen.site import build_site

        built = build_site(db, folder / "site", build_time="2026-11-29T00:00:00Z")
        summary["site"] = {"index": str(built.index), "pages": built.pages}
    return db, report, summary

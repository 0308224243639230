"""The demo: ingest the bundled sample runs into an archive and summarise it."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import duckdb

from reportgen.archive import connect
from reportgen.errors import UsageError, show
from reportgen.ingest import IngestReport, ingest
from reportgen.reports.summary import archive_summary
from reportgen.resources import shipped_dir

# The folder ``reportgen demo`` without ``--out`` writes to, under the system's temp folder:
# one place, replaced by each run (never a new folder per run), marked as the demo's own.
DEFAULT_FOLDER = "reportgen-demo"
MARKER = ".reportgen-demo"


def default_folder() -> Path:
    """``<tempdir>/reportgen-demo``, emptied for a new demo: an earlier demo's folder (it holds
    the demo's marker file and is this user's own, not a link) is removed; anything else there
    is a usage error and is left alone."""
    folder = Path(tempfile.gettempdir()) / DEFAULT_FOLDER
    if os.path.lexists(folder):
        info = folder.lstat()
        ours = (
            folder.is_dir()
            and not folder.is_symlink()
            and (not hasattr(os, "getuid") or info.st_uid == os.getuid())
            and (folder / MARKER).is_file()
        )
        if not ours:
            raise UsageError(
                f"{show(str(folder))} exists and is not an earlier demo's folder; remove it or "
                "give --out FOLDER"
            )
        shutil.rmtree(folder)
    folder.mkdir(mode=0o700)
    (folder / MARKER).write_text("made by reportgen demo: replaced by the next one\n")
    return folder


def run_demo(
    out: Path | None = None, *, site: bool = True
) -> tuple[Path, IngestReport, dict[str, Any]]:
    """Ingest ``sample_runs/`` into a new ``out/reportgen.duckdb`` (by default
    ``<tempdir>/reportgen-demo``, replaced by each run: :func:`default_folder`) and, with ``site``, build the static site into a new ``out/site``; the summary says
    where. The demo never writes into files it did not create: an existing archive or site
    there (e.g. ``--out .`` in a project) is a usage error, and nothing is changed."""
    folder = out if out is not None else default_folder()
    db = folder / "reportgen.duckdb"
    for existing in (db, folder / "site") if site else (db,):
        if os.path.lexists(existing):
            raise UsageError(
                f"{show(str(existing))} already exists; the demo writes only new files, so "
                "choose an empty or new --out folder"
            )
    folder.mkdir(parents=True, exist_ok=True)
    report = ingest([shipped_dir("sample_runs")], db, new_archive=True)
    con = connect(db, read_only=True)
    try:
        summary = archive_summary(con)
        summary["verdict"] = _latest_verdict(con)
    finally:
        con.close()
    if site:
        from reportgen.site import build_site

        built = build_site(db, folder / "site", build_time="2026-11-29T00:00:00Z")
        summary["site"] = {"index": str(built.index), "pages": built.pages}
    return db, report, summary


def _latest_verdict(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The headline of the sample runs' latest night, baseline against candidate, as
    ``reportgen gate`` evaluates it."""
    from reportgen.divergence.compare import latest_shared_batch
    from reportgen.evaluation import evaluate_labels

    night = latest_shared_batch(con, "baseline", "candidate")
    judged = evaluate_labels(
        con, "baseline", "candidate", baseline_batch=night, candidate_batch=night, with_steps=False
    )
    return {"night": night, "headline": judged.headline}

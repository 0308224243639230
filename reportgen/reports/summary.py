"""What is in an archive, in numbers: for ``demo``, ``ingest`` and the index page."""

from __future__ import annotations

from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.archive import table_counts


def archive_summary(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Table counts plus one row per (suite, label): runs, tasks, batches and spend."""
    con.execute(load_sql("run_resolved"))  # the table macro label_summary reads
    rows = con.execute(load_sql("label_summary")).fetchall()
    columns = (
        "suite",
        "label",
        "runs",
        "tasks",
        "batches",
        "first_batch",
        "last_batch",
        "steps",
        "wasted_steps",
        "tokens",
        "cost_usd",
    )
    return {
        "tables": table_counts(con),
        "labels": [dict(zip(columns, row, strict=True)) for row in rows],
    }

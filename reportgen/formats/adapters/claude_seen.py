"""Resumed or forked Claude Code sessions across loads: which of the messages and events a
load stages were already counted by archived runs of other files (claude_code_seen.sql).

Within one load, sessions are read in order of their first timestamp and a record counts
once (claude_code.py). Across loads the archive holds no record uuids, so two keys stand in
for them: an API response's ``message.id`` (kept in its llm step's output as ``message_id``)
and an error or interrupt step's type and start time. The run loaded first keeps them."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

import duckdb
import pyarrow as pa

from reportgen._sql import load_sql

_CANDIDATES = "cc_candidates"


def event_key(kind: str, seconds: float | None) -> str | None:
    """The key of an error or interrupt step started at ``seconds`` (epoch), as the SQL
    writes it (``type:epoch milliseconds``)."""
    return None if seconds is None else f"{kind}:{round(seconds * 1000)}"


def archived_keys(
    con: duckdb.DuckDBPyConnection,
    message_ids: Iterable[str],
    files: list[str],
    times: Iterable[float],
) -> tuple[set[str], set[str]]:
    """(message ids, event keys) that archived Claude Code runs of files other than
    ``files`` already counted, among the given ids and within the span of ``times``."""
    ids = sorted(set(message_ids))
    span = sorted(times)
    if not ids and not span:
        return set(), set()
    lo, hi = (span[0], span[-1]) if span else (0.0, 0.0)
    con.register(_CANDIDATES, pa.table({"id": pa.array(ids, pa.string())}))
    try:
        rows = con.execute(
            load_sql("claude_code_seen"),
            {
                "files": files,
                "lo": datetime.fromtimestamp(lo - 1, UTC),
                "hi": datetime.fromtimestamp(hi + 1, UTC),
            },
        ).fetchall()
    finally:
        con.unregister(_CANDIDATES)
    messages = {str(key) for kind, key in rows if kind == "message"}
    events = {str(key) for kind, key in rows if kind == "event"}
    return messages, events

"""A failing span's status message is the step's error message (steps.error), apart from its
output, as AgentDiff's adapters keep it; the run page shows it and search finds it."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site.paths import run_path
from reportgen.site.stepdata import read_steps_script
from tests.site.published import search_words

MESSAGE = "connection refused by upstream"


def _span(span_id: str, name: str, op: str, code: int, **extra: object) -> dict[str, object]:
    return {
        "traceId": "aa",
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
        "status": {"code": code, **extra},
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": op}}],
    }


def test_span_status_message_is_the_error_not_the_output(tmp_path: Path) -> None:
    spans = [
        _span("01", "agent run", "invoke_agent", 1),
        {
            **_span("02", "execute_tool search", "execute_tool", 2, message=MESSAGE),
            "parentSpanId": "01",
        },
    ]
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    db = tmp_path / "a.duckdb"
    ingest([trace], db)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT status, output, error FROM steps ORDER BY idx").fetchall()
        suite, task, run_id = con.execute("SELECT suite, task_id, run_id FROM runs").fetchall()[0]
    assert rows == [("ok", None, None), ("error", None, MESSAGE)]
    out = tmp_path / "site"
    build_site(db, out, build_time="2026-12-01T00:00:00Z")
    page = out / run_path(suite, task, run_id)  # its step rows come from its step data script
    _, data = read_steps_script(page.with_suffix(".steps.js"))
    assert any(f"error: {MESSAGE}" in s["out"] for s in data["steps"])
    assert "upstream" in search_words(out)

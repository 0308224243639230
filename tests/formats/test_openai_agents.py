"""OpenAI Agents SDK trace exports: every shared file (ingest bodies and JSONL), counts
computed here from the raw items; the parent_id tree, typed handoff and guardrail steps,
group_id trials that pair, both shapes of one trace merged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from reportgen.archive import connect
from reportgen.divergence.compare import compare_labels
from reportgen.errors import InputError
from reportgen.ingest.loader import ingest

from .helpers import DATA, needs_data
from .helpers import load as _load

FOLDER = DATA / "openai-agents"


def load(folder: Path, *paths: Path) -> Any:
    folder.mkdir(parents=True, exist_ok=True)
    return _load(folder, *paths)


def _files() -> list[Path]:
    if not FOLDER.is_dir():
        return []
    return sorted([*FOLDER.glob("ingest/*.json"), *FOLDER.glob("raw/*.jsonl")])


def _items(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".jsonl":
        return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return list(json.loads(path.read_text())["data"])


def _sdk(span: dict[str, Any]) -> str | None:
    inner = span["span_data"].get("data")
    return inner.get("sdk_span_type") if isinstance(inner, dict) else None


def _expected(path: Path) -> dict[str, Any]:
    items = _items(path)
    spans = {i["id"]: i for i in items if i["object"] == "trace.span"}
    traces = {i["id"] for i in items if i["object"] == "trace"} | {
        s["trace_id"] for s in spans.values()
    }
    steps = [s for s in spans.values() if _sdk(s) not in ("task", "turn") or s["error"]]
    tool_errors = sum(
        1 for s in steps if s["span_data"]["type"] == "function" and s["error"] is not None
    )
    turns = {k for k, s in spans.items() if _sdk(s) == "turn"}

    def turn_of(span: dict[str, Any]) -> str | None:
        parent = span.get("parent_id")
        while parent in spans:
            if parent in turns:
                return str(parent)
            parent = spans[parent].get("parent_id")
        return None

    nested = any(turn_of(spans[t]) for t in turns)
    tokens_in = tokens_out = 0
    used_turns: set[str] = set()
    calls = sorted(
        (s for s in spans.values() if s["span_data"]["type"] in ("generation", "response")),
        key=lambda s: s["started_at"],
    )
    for s in calls:
        usage = s["span_data"].get("usage")
        if usage is None and not nested:
            turn = turn_of(s)
            if turn and turn not in used_turns:
                used_turns.add(turn)
                usage = spans[turn]["span_data"]["data"].get("usage")
        if usage:
            tokens_in += usage.get("input_tokens") or 0
            tokens_out += usage.get("output_tokens") or 0
    return {
        "runs": len(traces),
        "steps": len(steps),
        "tool_errors": tool_errors,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
    }


@needs_data
@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(FOLDER)))
def test_every_shared_file_counts(path: Path, tmp_path: Path) -> None:
    con = load(tmp_path, path)
    row = con.execute(
        """
        SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM steps),
               (SELECT count(*) FROM steps WHERE type = 'tool' AND status = 'error'),
               (SELECT coalesce(sum(tokens_in), 0) FROM steps),
               (SELECT coalesce(sum(tokens_out), 0) FROM steps)
        """
    ).fetchone()
    assert row is not None
    keys = ("runs", "steps", "tool_errors", "tokens_in", "tokens_out")
    assert dict(zip(keys, row, strict=True)) == _expected(path)
    # every step's parent is an earlier step of its run
    bad = con.execute(
        "SELECT count(*) FROM steps s WHERE parent IS NOT NULL AND parent >= idx"
    ).fetchone()
    assert bad == (0,)


@needs_data
def test_typed_steps_and_statuses(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER / "raw")
    rows = con.execute(
        "SELECT r.task_id, s.type, s.action, s.status FROM steps s JOIN runs r USING (run_id)"
        " WHERE s.type IN ('handoff', 'guardrail') OR s.status = 'abandoned' ORDER BY ALL"
    ).fetchall()
    assert rows == [
        ("Customer support", "handoff", "handoff:Billing Agent", "ok"),
        ("Docs QA", "agent", "Docs Agent", "abandoned"),
        ("Tutor", "guardrail", "no_homework", "error"),
    ]
    # the billing agent's tool calls hang from it (the handoff target)
    tree = con.execute(
        "SELECT c.action, p.action FROM steps c JOIN steps p ON p.run_id = c.run_id"
        " AND p.idx = c.parent WHERE c.type = 'tool' AND c.run_id IN"
        " (SELECT run_id FROM runs WHERE task_id = 'Customer support') ORDER BY c.idx"
    ).fetchall()
    assert tree == [("lookup_invoice", "Billing Agent"), ("refund_charge", "Billing Agent")]
    failed = con.execute("SELECT task_id FROM runs WHERE success = false ORDER BY 1").fetchall()
    assert failed == [("Docs QA",), ("Tutor",)]


@needs_data
def test_both_shapes_of_a_trace_merge_into_one_run(tmp_path: Path) -> None:
    both = load(tmp_path / "both", FOLDER)
    raw = load(tmp_path / "raw", FOLDER / "raw")
    query = "SELECT count(*), sum(tokens_in), sum(tokens_out) FROM steps"
    assert both.execute(query).fetchone() == raw.execute(query).fetchone()
    assert both.execute("SELECT count(*) FROM runs").fetchone() == (11,)


@needs_data
def test_group_id_trials_compare(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    ingest([FOLDER / "ingest"], db)
    con = connect(db, read_only=True)
    try:
        trials = con.execute(
            "SELECT label, list(trial ORDER BY trial) FROM runs WHERE task_id = 'Weather QA'"
            " AND label LIKE 'eval_%' GROUP BY label ORDER BY label"
        ).fetchall()
        assert trials == [("eval_weather_A", [0, 1, 2]), ("eval_weather_B", [0, 1, 2])]
        comparison = compare_labels(con, "eval_weather_A", "eval_weather_B")
    finally:
        con.close()
    assert len(comparison.pairs) == 3 and not comparison.unpaired


def test_bad_item_is_named(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    trace = {"object": "trace", "id": "trace_1", "workflow_name": "w"}
    span = {"object": "trace.span", "trace_id": "trace_1", "span_data": {"type": "agent"}}
    path.write_bytes(orjson.dumps(trace) + b"\n" + orjson.dumps(span) + b"\n")
    with pytest.raises(InputError) as caught:
        ingest([path], tmp_path / "a.duckdb")
    assert (caught.value.line, caught.value.field) == (2, "id")

"""OpenTelemetry GenAI 2026 exports (otel-genai-2026): counts computed here from the raw OTLP
JSON. A session's per-turn traces are one run; a model call two instrumentations each wrote
is one step; MLflow spans' tokens; GenAI log events give the goal and answer; an
infrastructure error at the root of the last turn is the run's error_kind."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from .helpers import DATA, load, needs_data

FOLDER = DATA / "otel-genai-2026" / "generated"


def _value(v: dict[str, Any]) -> Any:
    return next(iter(v.values())) if v else None


def _spans(path: Path) -> list[dict[str, Any]]:
    doc = json.loads(path.read_text())
    out = []
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                attrs = {a["key"]: _value(a["value"]) for a in s.get("attributes", [])}
                out.append(dict(s, attrs=attrs, scope=ss["scope"]["name"]))
    return out


def _expected(path: Path) -> dict[str, Any]:
    """Runs: one per session id (else per trace). Model calls: where the Anthropic SDK's own
    spans are there beside an instrumentation's, the SDK's spans (one per call); else every
    chat span. Tools: execute_tool / MLflow TOOL spans."""
    spans = _spans(path)
    sdk = "com.anthropic.sdk.python"
    if any(s["scope"] == sdk for s in spans):
        spans = [s for s in spans if s["scope"] == sdk or "chat" not in s["name"]]
    runs = {
        s["attrs"].get("session.id") or s["traceId"] for s in spans if not s.get("parentSpanId")
    }
    calls: dict[Any, dict[str, int]] = {}
    tools = tool_errors = 0
    for s in spans:
        a = s["attrs"]
        kind = a.get("gen_ai.operation.name") or json.loads(a.get("mlflow.spanType", "null"))
        if kind in ("chat", "CHAT_MODEL"):
            key = s["spanId"]
            if "mlflow.chat.tokenUsage" in a:
                usage = json.loads(a["mlflow.chat.tokenUsage"])
                tokens = {"in": usage["input_tokens"], "out": usage["output_tokens"]}
            else:
                tokens = {
                    "in": int(a.get("gen_ai.usage.input_tokens", 0)),
                    "out": int(a.get("gen_ai.usage.output_tokens", 0)),
                }
            calls.setdefault(key, tokens)
        elif kind in ("execute_tool", "TOOL"):
            tools += 1
            tool_errors += s.get("status", {}).get("code") == "STATUS_CODE_ERROR"
    return {
        "runs": len(runs),
        "llm": len(calls),
        "tools": tools,
        "tool_errors": tool_errors,
        "tokens_in": sum(c["in"] for c in calls.values()),
        "tokens_out": sum(c["out"] for c in calls.values()),
        "cost": None,  # no cost attribute in these exports
    }


def _loaded(con: Any) -> dict[str, Any]:
    row = con.execute(
        """
        SELECT (SELECT count(*) FROM runs),
               count(*) FILTER (WHERE type = 'llm'),
               count(*) FILTER (WHERE type = 'tool'),
               count(*) FILTER (WHERE type = 'tool' AND status = 'error'),
               sum(tokens_in), sum(tokens_out), sum(cost_usd)
        FROM steps
        """
    ).fetchone()
    keys = ("runs", "llm", "tools", "tool_errors", "tokens_in", "tokens_out", "cost")
    return dict(zip(keys, row, strict=True))


def _traces() -> list[Path]:
    return sorted(FOLDER.glob("*.traces.otlp.json")) if FOLDER.is_dir() else []


@needs_data
@pytest.mark.parametrize("path", _traces(), ids=lambda p: p.name)
def test_every_file_counts(path: Path, tmp_path: Path) -> None:
    assert _loaded(load(tmp_path, path)) == _expected(path)


@needs_data
def test_a_sessions_turns_are_one_run_in_order(tmp_path: Path) -> None:
    path = FOLDER / "anthropic-session-A.traces.otlp.json"
    spans = _spans(path)
    roots = sorted(
        (s for s in spans if not s.get("parentSpanId")), key=lambda s: int(s["startTimeUnixNano"])
    )
    assert len({s["traceId"] for s in roots}) == 4
    assert len({s["attrs"]["session.id"] for s in roots}) == 1
    con = load(tmp_path, path)
    runs = con.execute("SELECT run_id, meta->'trace_ids' FROM runs").fetchall()
    assert len(runs) == 1 and runs[0][0] == roots[0]["attrs"]["session.id"]
    assert json.loads(runs[0][1]) == [s["traceId"] for s in roots]
    agents = con.execute(
        "SELECT idx FROM steps WHERE type = 'agent' AND parent IS NULL ORDER BY idx"
    ).fetchall()
    assert len(agents) == 4  # one top-level step per turn
    # every step of turn n comes after turn n's root and before turn n+1's
    tops = [i for (i,) in agents] + [10**6]
    rows = con.execute("SELECT idx, parent, started_at FROM steps ORDER BY idx").fetchall()
    for idx, parent, _ in rows:
        if parent is not None:
            turn = max(n for n, top in enumerate(tops[:-1]) if top <= idx)
            assert tops[turn] <= parent < tops[turn + 1]
    stamps = [r[2] for r in rows]
    assert stamps == sorted(stamps)


@needs_data
def test_log_events_give_goal_and_answer(tmp_path: Path) -> None:
    traces = FOLDER / "anthropic-session-D.traces.otlp.json"
    logs = FOLDER / "anthropic-session-D.logs.otlp.json"
    records = [
        r
        for rl in json.loads(logs.read_text())["resourceLogs"]
        for sl in rl["scopeLogs"]
        for r in sl["logRecords"]
    ]
    user = next(r for r in records if r["eventName"] == "gen_ai.user.message")
    goal = user["body"]["kvlistValue"]["values"][0]["value"]["stringValue"]
    con = load(tmp_path, traces, logs)
    got = con.execute("SELECT count(*), any_value(meta->>'goal'), any_value(output) FROM runs")
    count, said_goal, answer = got.fetchone()
    assert count == 1 and said_goal == goal and answer
    (tmp_path / "alone").mkdir()
    alone = load(tmp_path / "alone", traces)
    assert alone.execute("SELECT meta->>'goal' FROM runs").fetchone() == (None,)


@needs_data
def test_mlflow_tool_error_and_answer(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER / "mlflow-anthropic-agent.traces.otlp.json")
    rows = con.execute("SELECT output, meta->>'goal' FROM runs ORDER BY meta->>'goal'").fetchall()
    assert rows == [
        ("The parser now handles empty input; the test passes.", "Fix the failing parser test."),
        ("The parser now handles empty input; the test passes.", "Run the tests again."),
    ]
    error = con.execute("SELECT error FROM steps WHERE status = 'error'").fetchall()
    assert error == [("RuntimeError: exit code 1: FAILED tests/test_parser.py::test_empty",)]


def _otlp(spans: list[dict[str, Any]]) -> dict[str, Any]:
    def attrs(d: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"key": k, "value": {"stringValue": str(v)}} for k, v in d.items()]

    out = [
        dict(
            s,
            attributes=attrs(s["attributes"]),
            startTimeUnixNano=str(s["start"]),
            endTimeUnixNano=str(s["start"] + 10),
        )
        for s in spans
    ]
    for s in out:
        s.pop("start")
    return {"resourceSpans": [{"scopeSpans": [{"spans": out}]}]}


def test_infra_error_ending_the_last_turn_is_an_error_kind(tmp_path: Path) -> None:
    error = {"code": "STATUS_CODE_ERROR", "message": "429 Too Many Requests"}
    session = {"session.id": "s1", "gen_ai.operation.name": "invoke_agent"}
    turns: dict[str, list[dict[str, Any]]] = defaultdict(list)
    turns["t1"].append(
        {
            "traceId": "t1",
            "spanId": "a",
            "name": "invoke_agent x",
            "start": 1_000,
            "attributes": session,
        }
    )
    turns["t2"].append(
        {
            "traceId": "t2",
            "spanId": "b",
            "name": "invoke_agent x",
            "start": 2_000,
            "attributes": {**session, "error.type": "RateLimitError"},
            "status": error,
        }
    )
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_otlp(turns["t1"] + turns["t2"])))
    con = load(tmp_path, path)
    row = con.execute("SELECT count(*), any_value(error_kind), any_value(success) FROM runs")
    assert row.fetchone() == (1, "rate_limit", None)
    path.write_text(json.dumps(_otlp(turns["t2"] + [dict(turns["t1"][0], start=3_000)])))
    (tmp_path / "recovered").mkdir()
    con = load(tmp_path / "recovered", path)  # a later turn went on: not the run's error
    assert con.execute("SELECT error_kind FROM runs").fetchone() == (None,)

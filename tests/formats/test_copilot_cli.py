"""GitHub Copilot CLI sessions (``events.jsonl``): every shared file, counts computed here from
the raw events; sub-agents as child runs; a session ending on an API error is not scored."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .helpers import DATA, load, needs_data

FOLDER = DATA / "copilot-cli"


def _files() -> list[Path]:
    return sorted(FOLDER.rglob("*.jsonl")) if FOLDER.is_dir() else []


def _expected(path: Path) -> dict[str, Any]:
    """Runs, steps, tool calls, tool errors, abandoned calls and output tokens, from the raw
    events: a tool call is a requested ``toolRequests[]`` entry, or a completion no earlier
    request of its id (in the same agent) was waiting for."""
    events = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    agents = {""}
    waiting: Counter[tuple[str, str]] = Counter()
    steps = calls = errors = tokens = 0
    for event in events:
        data = event["data"]
        agent = data.get("parentToolCallId") or ""
        if event["type"].startswith("subagent."):
            agent = data["toolCallId"]
        agents.add(agent)
        if event["type"] == "assistant.message":
            steps += 1
            tokens += data.get("outputTokens") or 0
            for request in data.get("toolRequests") or []:
                waiting[(agent, request["toolCallId"])] += 1
                steps += 1
                calls += 1
        elif event["type"] == "tool.execution_complete":
            key = (agent, data["toolCallId"])
            if waiting[key]:
                waiting[key] -= 1
            else:
                steps += 1
                calls += 1
            errors += data.get("success") is False
        elif event["type"] in ("session.error", "abort"):
            steps += 1
    return {
        "runs": len(agents),
        "steps": steps,
        "tool_calls": calls,
        "tool_errors": errors,
        "abandoned": sum(waiting.values()),
        "tokens_out": tokens,
    }


@needs_data
@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(FOLDER)))
def test_every_shared_file_counts(path: Path, tmp_path: Path) -> None:
    con = load(tmp_path, path)
    row = con.execute(
        """
        SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM steps),
               (SELECT count(*) FROM steps WHERE type = 'tool'),
               (SELECT count(*) FROM steps WHERE type = 'tool' AND status = 'error'),
               (SELECT count(*) FROM steps WHERE status = 'abandoned'),
               (SELECT coalesce(sum(tokens_out), 0) FROM steps),
               (SELECT list(DISTINCT format) FROM runs)
        """
    ).fetchone()
    assert row is not None
    keys = ("runs", "steps", "tool_calls", "tool_errors", "abandoned", "tokens_out")
    assert dict(zip(keys, row[:6], strict=True)) == _expected(path)
    assert row[6] == ["copilot-cli"]
    outcomes = con.execute(
        "SELECT count(*) FILTER (success), count(*) FILTER (NOT success),"
        " count(*) FILTER (error_kind IS NOT NULL) FROM runs"
    ).fetchone()
    assert outcomes == (0, 0, 0)  # nothing scores a session; none ended on an API error


@needs_data
def test_small_session_identity_why_and_child(tmp_path: Path) -> None:
    """The goal is the first user message, the output the last top-level reply; the sub-agent
    is a child run naming its parent and the tool step that started it, labelled by its own
    model; shutdown totals (cache included) in meta.usage."""
    path = FOLDER / "agent-sessions" / "small.jsonl"
    events = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    top = [e for e in events if not e["data"].get("parentToolCallId")]
    replies = [e["data"]["content"] for e in top if e["type"] == "assistant.message"]
    prompt = next(e["data"]["content"] for e in top if e["type"] == "user.message")
    con = load(tmp_path, path)
    rows = con.execute(
        "SELECT run_id, suite, label, task_id, output, meta FROM runs ORDER BY run_id"
    ).fetchall()
    parent, child = rows
    meta = json.loads(parent[5])
    assert parent[0] == "copilot_stage0_small"
    assert parent[1] == "copilot-cli/repo" and parent[2] == "gpt-5-mini"
    assert parent[3].startswith("prompt-") and meta["goal"] == prompt
    assert parent[4] == replies[-1]
    assert meta["usage"] == {"input": 100, "output": 15, "cache_read": 5, "cache_write": 0}
    child_meta = json.loads(child[5])
    assert child_meta["parent_run_id"] == parent[0]
    assert meta["children"] == [{"run_id": child[0], "step": child_meta["parent_step"]}]
    assert child[2] == "claude-haiku-4.5" and child[3].startswith(parent[3] + "/")
    started = con.execute(
        "SELECT type FROM steps WHERE run_id = ? AND idx = ?",
        [parent[0], meta["children"][0]["step"]],
    ).fetchone()
    assert started == ("tool",)


def _session(tmp_path: Path, last: dict[str, Any]) -> Path:
    lines = [
        {
            "type": "session.start",
            "data": {"sessionId": "s1", "copilotVersion": "1.0.77", "context": {"cwd": "/x/p"}},
            "id": "e1",
            "timestamp": "2026-01-01T10:00:00.000Z",
        },
        {"type": "user.message", "data": {"content": "fix it"}, "id": "e2"},
        {
            "type": "assistant.message",
            "data": {"content": "on it", "model": "gpt-5", "outputTokens": 4, "toolRequests": []},
            "id": "e3",
        },
        {**last, "id": "e4", "timestamp": "2026-01-01T10:00:05.000Z"},
    ]
    path = tmp_path / "s1" / "events.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (429, "Too many requests", "rate_limit"),
        (401, "Bad credentials", "auth"),
        (400, "prompt is too long", None),
    ],
)
def test_session_ending_on_api_error(
    tmp_path: Path, status: int, message: str, kind: str | None
) -> None:
    """A session whose last step is a session.error naming an infrastructure kind is not
    scored (error_kind, error_reason); any other API error is the agent's."""
    error = {"type": "session.error", "data": {"errorType": "query", "message": message}}
    error["data"]["statusCode"] = status  # type: ignore[index]
    con = load(tmp_path, _session(tmp_path, error))
    row = con.execute("SELECT format, success, error_kind, error_reason FROM runs").fetchone()
    assert row is not None and row[0] == "copilot-cli" and row[1] is None
    assert row[2] == kind
    assert (row[3] == f"HTTP {status}: {message}") is (kind is not None)

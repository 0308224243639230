"""Bad input in the session formats: one line naming the file, the line or field, exit 1."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from reportgen.cli import app

runner = CliRunner()

CLAUDE = {"type": "user", "uuid": "u", "parentUuid": None, "sessionId": "s", "message": {}}
CODEX = {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "s"}}
TRACE = {"object": "trace", "id": "trace_1", "workflow_name": "w"}

CASES = {
    "claude-code": (
        "s.jsonl",
        orjson.dumps(CLAUDE) + b"\n" + orjson.dumps({**CLAUDE, "message": 7}) + b"\n",
        "s.jsonl:2: message: expected an object",
    ),
    "codex-cli": (
        "rollout.jsonl",
        orjson.dumps(CODEX) + b"\n{broken\n",
        "rollout.jsonl:2: invalid JSON",
    ),
    "gemini-cli": (
        "session-1.json",
        orjson.dumps(
            {"sessionId": "s", "projectHash": "p", "messages": [{"type": "gemini", "toolCalls": 3}]}
        ),
        "session-1.json: messages[0].toolCalls: expected a list",
    ),
    "openai-agents": (
        "t.jsonl",
        orjson.dumps(TRACE)
        + b"\n"
        + orjson.dumps({"object": "trace.span", "id": "s1", "trace_id": "trace_1", "span_data": 5}),
        "span s1.span_data: expected an object",
    ),
    "swe-bench-submission": (
        "x_result.json",
        b'{"instance_id": "x", "resolved": 1, "patch_applied": true}',
        "x_result.json: resolved: expected true or false",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_line_and_exit_1(name: str, tmp_path: Path) -> None:
    file_name, content, expected = CASES[name]
    path = tmp_path / file_name
    path.write_bytes(content)
    result = runner.invoke(app, ["ingest", str(path), "--db", str(tmp_path / "a.duckdb")])
    assert result.exit_code == 1
    message = result.output.strip()
    assert len(message.splitlines()) == 1 and expected in message, message

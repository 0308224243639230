"""Gemini CLI sessions (JSON and the JSONL recording): every shared file, counts computed
here from the raw messages; a repeated message id in JSONL replaces the earlier line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from reportgen.errors import InputError
from reportgen.ingest.loader import ingest

from .helpers import DATA, needs_data
from .helpers import load as _load

FOLDER = DATA / "gemini-cli"


def load(folder: Path, *paths: Path) -> Any:
    folder.mkdir(parents=True, exist_ok=True)
    return _load(folder, *paths)


def _files() -> list[Path]:
    if not FOLDER.is_dir():
        return []
    return sorted([*FOLDER.rglob("*.json"), *FOLDER.rglob("*.jsonl")])


def _messages(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".json":
        return list(json.loads(path.read_text())["messages"])
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    latest: dict[str, dict[str, Any]] = {}
    for record in lines[1:]:
        if "type" in record and "$set" not in record:
            latest.pop(record["id"], None)
            latest[record["id"]] = record
    return list(latest.values())


def _expected(path: Path) -> dict[str, int]:
    replies = [m for m in _messages(path) if m["type"] in ("gemini", "model")]
    calls = [c for m in replies for c in m.get("toolCalls") or []]
    errors = [m for m in _messages(path) if m["type"] == "error"]
    tokens = [m.get("tokens") or {} for m in replies]
    return {
        "steps": len(replies) + len(calls) + len(errors),
        "tool_errors": sum(1 for c in calls if c.get("status") == "error"),
        "tokens_in": sum(t.get("input") or 0 for t in tokens),
        "tokens_out": sum((t.get("output") or 0) + (t.get("thoughts") or 0) for t in tokens),
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
               (SELECT coalesce(sum(tokens_out), 0) FROM steps),
               (SELECT any_value(format) FROM runs)
        """
    ).fetchone()
    assert row is not None
    assert row[0] == 1 and row[5] == "gemini-cli"
    keys = ("steps", "tool_errors", "tokens_in", "tokens_out")
    assert dict(zip(keys, row[1:5], strict=True)) == _expected(path)


@needs_data
def test_sources_md_figures(tmp_path: Path) -> None:
    """SOURCES.md: the Pomodoro chat has 11 tool calls (10 success, 1 error) and input
    120730 / output 4875 / cached 86702 / thoughts 1348 tokens."""
    con = load(tmp_path, FOLDER / "ai-sessions" / "gemini-cli-pomodoro-timer.json")
    assert con.execute(
        "SELECT status, count(*) FROM steps WHERE type = 'tool' GROUP BY 1 ORDER BY 1"
    ).fetchall() == [("error", 1), ("ok", 10)]
    usage = con.execute("SELECT meta->'usage' FROM runs").fetchone()
    assert usage is not None
    got = orjson.loads(usage[0])
    assert (got["input"], got["output"], got["cached"], got["thoughts"]) == (
        120730,
        4875,
        86702,
        1348,
    )


def test_jsonl_update_replaces_message(tmp_path: Path) -> None:
    path = tmp_path / "g" / "session-x.jsonl"
    path.parent.mkdir()
    lines = [
        {"sessionId": "g1", "projectHash": "abc", "startTime": "2026-01-01T00:00:00Z"},
        {"id": "u", "type": "user", "timestamp": "2026-01-01T00:00:01Z", "content": "hi"},
        {"id": "m", "type": "gemini", "model": "gemini-2.5-pro", "tokens": {"input": 5}},
        {"$set": {"lastUpdated": "2026-01-01T00:00:03Z"}},
        {"id": "m", "type": "gemini", "model": "gemini-2.5-pro", "tokens": {"input": 7}},
    ]
    path.write_bytes(b"\n".join(orjson.dumps(x) for x in lines) + b"\n")
    con = load(tmp_path / "db", path)
    assert con.execute("SELECT count(*), sum(tokens_in) FROM steps").fetchone() == (1, 7)


def test_bad_message_is_named(tmp_path: Path) -> None:
    path = tmp_path / "session-1.json"
    path.write_bytes(orjson.dumps({"sessionId": "s", "projectHash": "p", "messages": [3]}))
    with pytest.raises(InputError) as caught:
        ingest([path], tmp_path / "a.duckdb")
    assert caught.value.field == "messages[0]"
